/* fuzz_manifest.c -- libFuzzer target: the log's manifest parser
 * (persistence/aof_manifest.c: aof_manifest_parse), which start-up runs on
 * scratchpad.manifest before it opens any log file.
 *
 * The input is the manifest's text. Beyond the sanitizers' checks: a manifest
 * that parses is formatted (aof_manifest_format, what the server writes back),
 * and that text parses again to the same files (names, sequence numbers,
 * kinds, in order): the server never writes a manifest it would refuse or read
 * differently at the next start. */
#include "aof_manifest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

static void fail(const char *what)
{
    fprintf(stdout, "%s\n", what);
    fflush(stdout);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aof_manifest m, again;
    char err[256];
    char *text;
    size_t i;

    aof_manifest_init(&m);
    aof_manifest_init(&again);
    if (aof_manifest_parse((const char *)data, size, &m, err, sizeof(err)) == 0) {
        text = aof_manifest_format(&m);
        if (aof_manifest_parse(text, strlen(text), &again, err, sizeof(err)) < 0) {
            fprintf(stdout, "the formatted manifest is refused: %s\n%s", err, text);
            fail("a manifest the server writes does not parse");
        }
        if (again.nfiles != m.nfiles)
            fail("the formatted manifest names another number of files");
        for (i = 0; i < m.nfiles; i++)
            if (strcmp(m.files[i].name, again.files[i].name) != 0 || m.files[i].seq != again.files[i].seq ||
                m.files[i].kind != again.files[i].kind)
                fail("the formatted manifest names other files");
        xfree(text);
    }
    aof_manifest_free(&again);
    aof_manifest_free(&m);
    return 0;
}
