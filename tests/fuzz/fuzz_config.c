/* fuzz_config.c -- libFuzzer target: the configuration file parser
 * (server/config.c: cfg_load_file, cfg_split, every row's setter).
 *
 * The input is the text of a configuration file, written to a memfd and loaded
 * by path (/proc/self/fd/N) over the defaults, as the server loads
 * scratchpad.conf at start-up. Whatever it loaded (a file that fails stops at
 * the bad line; what came before stays set), every directive's value is then
 * formatted as CONFIG GET shows it and set again from that text as CONFIG SET
 * gives it: that must succeed and format the same (a value the server holds is
 * always one it accepts back). The error messages of bad lines go to stderr,
 * which the runner closes (tests/fuzz/run_target.sh). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FMT_CAP 4096

static void round_trip(void)
{
    static char before[FMT_CAP], after[FMT_CAP];
    const cfg_def *d;

    for (d = cfg_table; d->name; d++) {
        const char *err = NULL;
        char *one = before;
        cfg_format(d, before, sizeof(before));
        if (cfg_set(d, 1, &one, &err) < 0) {
            fprintf(stdout, "%s: its value '%s' is refused back: %s\n", d->name, before, err);
            fflush(stdout);
            abort();
        }
        cfg_format(d, after, sizeof(after));
        if (strcmp(before, after) != 0) {
            fprintf(stdout, "%s: '%s' set back formats as '%s'\n", d->name, before, after);
            fflush(stdout);
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd;

    cfg_defaults();
    fd = memfd_create("fuzz_config", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size)
        abort();
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    cfg_load_file(path);
    close(fd);
    round_trip();
    return 0;
}
