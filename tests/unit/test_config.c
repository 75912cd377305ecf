/* test_config.c -- unit tests of the directive table and its readers (server/config.c).
 *
 * Two halves. First, the table and scratchpad.conf must agree: every row is an
 * active line of the file exactly once, every active line names a row, and
 * loading the file over scrambled values gives back every row's default (so a
 * default changed in one place and not the other fails here). Second, the
 * loader's behaviour: error messages that name the file, the line and the
 * directive; quoting and escapes; comments; command-line overrides; memory
 * units; bounds.
 *
 * scratchpad.conf is found at $TOP/scratchpad.conf (tests/run.sh sets TOP), else
 * in the current directory. Scratch files go to a private temporary directory
 * removed at the end. Messages printed on stderr are captured by pointing file
 * descriptor 2 at a temporary file for the duration of one call. */
#include "config.h"
#include "server.h"
#include "test.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FMT_CAP 1024
#define MSG_CAP 4096

static char tmpdir[256];
static char conf_path[1024];
static int file_seq;

/* ---- helpers ---- */

static const cfg_def *row(const char *name)
{
    const cfg_def *d = cfg_find(name, strlen(name));
    if (!d) {
        fprintf(stderr, "    no directive named %s in the table\n", name);
        abort();
    }
    return d;
}

/* The current value of directive name, formatted (static buffer, valid until
 * the next call). */
static const char *val(const char *name)
{
    static char buf[FMT_CAP];
    cfg_format(row(name), buf, sizeof(buf));
    return buf;
}

/* cfg_set with the value split into words as the file loader does. 0 / -1. */
static int set(const char *name, const char *value)
{
    char *words[64], buf[1024];
    const char *err = NULL;
    int n = cfg_split(value, words, 64, buf, sizeof(buf));
    if (n < 0)
        return -1;
    return cfg_set(row(name), n, words, &err);
}

/* Write text to a new file in the scratch directory; returns its path
 * (static buffer, valid until the next call). */
static const char *write_file(const char *text)
{
    static char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/conf-%d.conf", tmpdir, ++file_seq);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        abort();
    }
    fputs(text, f);
    fclose(f);
    return path;
}

/* Capture of stderr: begin points fd 2 at a temporary file, end restores it and
 * returns what was written (NUL-terminated, truncated to cap - 1 bytes). */
typedef struct capture {
    int saved;
    FILE *tmp;
} capture;

static void capture_begin(capture *cp)
{
    fflush(stderr);
    cp->tmp = tmpfile();
    cp->saved = dup(2);
    if (!cp->tmp || cp->saved < 0 || dup2(fileno(cp->tmp), 2) < 0) {
        perror("capture");
        abort();
    }
}

static void capture_end(capture *cp, char *out, size_t cap)
{
    size_t n;

    fflush(stderr);
    dup2(cp->saved, 2);
    close(cp->saved);
    rewind(cp->tmp);
    n = fread(out, 1, cap - 1, cp->tmp);
    out[n] = '\0';
    fclose(cp->tmp);
}

/* cfg_load_file(path) with its stderr captured into msg. */
static int load(const char *path, char *msg)
{
    capture cp;
    int rc;

    capture_begin(&cp);
    rc = cfg_load_file(path);
    capture_end(&cp, msg, MSG_CAP);
    return rc;
}

/* cfg_load_args with its stderr captured into msg; argv is NULL-terminated. */
static int load_args(char **argv, char *msg)
{
    capture cp;
    int argc = 0, rc;

    while (argv[argc])
        argc++;
    capture_begin(&cp);
    rc = cfg_load_args(argc, argv);
    capture_end(&cp, msg, MSG_CAP);
    return rc;
}

/* The directive names of the active lines of scratchpad.conf, in order, with
 * their line numbers. Returns the count; names are malloc'd. */
typedef struct active_line {
    char *name;
    int lineno;
} active_line;

static int read_active_lines(active_line *out, int max)
{
    FILE *f = fopen(conf_path, "r");
    char line[8192];
    int n = 0, lineno = 0;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        char *words[256], buf[8192];
        size_t len = strlen(line);
        int nw;

        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        nw = cfg_split(line, words, 256, buf, sizeof(buf));
        if (nw <= 0 || words[0][0] == '#')
            continue;
        if (n < max) {
            out[n].name = strdup(words[0]);
            out[n].lineno = lineno;
            n++;
        }
    }
    fclose(f);
    return n;
}

static void free_active_lines(active_line *a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        free(a[i].name);
}

/* Set d to a valid value other than its default if the row allows one.
 * Returns 1 if the value now differs from the default, 0 if the row has a
 * single possible value (a one-choice enum). */
static int scramble(const cfg_def *d)
{
    char buf[FMT_CAP], before[FMT_CAP], *word = buf;
    const char *err = NULL;
    long long v;

    cfg_format(d, before, sizeof(before));
    switch (d->type) {
    case CFG_BOOL:
        snprintf(buf, sizeof(buf), "%s", strcmp(before, "yes") == 0 ? "no" : "yes");
        break;
    case CFG_INT:
    case CFG_MEMORY:
        v = strtoll(before, NULL, 10) == d->max ? d->min : d->max;
        snprintf(buf, sizeof(buf), "%lld", v);
        break;
    case CFG_OCTAL:
        v = strtoll(before, NULL, 8) == d->max ? d->min : d->max;
        snprintf(buf, sizeof(buf), "%llo", v);
        break;
    case CFG_ENUM: {
        int count = 0, cur = 0;
        while (d->enums[count]) {
            if (strcmp(d->enums[count], before) == 0)
                cur = count;
            count++;
        }
        if (count < 2)
            return 0;
        snprintf(buf, sizeof(buf), "%s", d->enums[(cur + 1) % count]);
        break;
    }
    case CFG_STRING:
        snprintf(buf, sizeof(buf), "scrambled-%s", d->name);
        break;
    case CFG_SPECIAL:
        /* save has one value, the empty schedule */
        snprintf(buf, sizeof(buf), "%s",
                 strcmp(d->name, "save") == 0                     ? ""
                 : strcmp(d->name, "notify-keyspace-events") == 0 ? "KEA"
                                                                  : "normal 1mb 1mb 1");
        break;
    }
    if (cfg_set(d, 1, &word, &err) < 0) {
        fprintf(stderr, "    cannot scramble %s with '%s': %s\n", d->name, buf, err);
        return -1;
    }
    cfg_format(d, buf, sizeof(buf));
    return strcmp(buf, before) != 0;
}

/* ---- the table and scratchpad.conf agree ---- */

static void test_every_row_is_an_active_line_once(void)
{
    active_line lines[512];
    int n = read_active_lines(lines, 512), i;
    const cfg_def *d;

    CHECK(n > 0);
    for (d = cfg_table; d->name; d++) {
        int seen = 0;
        for (i = 0; i < n; i++)
            if (strcasecmp(lines[i].name, d->name) == 0)
                seen++;
        if (seen != 1)
            fprintf(stderr, "    %s: %d active lines in %s (want 1)\n", d->name, seen, conf_path);
        CHECK(seen == 1);
    }
    free_active_lines(lines, n > 0 ? n : 0);
}

static void test_every_active_line_names_a_row(void)
{
    active_line lines[512];
    int n = read_active_lines(lines, 512), i;

    CHECK(n > 0);
    for (i = 0; i < n; i++) {
        const cfg_def *d = cfg_find(lines[i].name, strlen(lines[i].name));
        if (!d)
            fprintf(stderr, "    %s:%d: '%s' is not in cfg_table\n", conf_path, lines[i].lineno, lines[i].name);
        CHECK(d != NULL);
    }
    free_active_lines(lines, n > 0 ? n : 0);
}

static void test_the_file_sets_every_row_to_its_default(void)
{
    static char deflt[128][FMT_CAP];
    char now[FMT_CAP], msg[MSG_CAP];
    const cfg_def *d;
    int i;

    cfg_defaults();
    for (d = cfg_table, i = 0; d->name && i < 128; d++, i++)
        cfg_format(d, deflt[i], FMT_CAP);
    CHECK(d->name == NULL);
    for (d = cfg_table; d->name; d++)
        CHECK(scramble(d) >= 0);
    if (load(conf_path, msg) != 0 || msg[0]) {
        fprintf(stderr, "    loading %s printed:\n%s\n", conf_path, msg);
        CHECK(!"scratchpad.conf loads without a message");
        cfg_defaults();
        return;
    }
    for (d = cfg_table, i = 0; d->name && i < 128; d++, i++) {
        cfg_format(d, now, sizeof(now));
        if (strcmp(now, deflt[i]) != 0)
            fprintf(stderr, "    %s: the file gives '%s', the table's default is '%s'\n", d->name, now, deflt[i]);
        CHECK(strcmp(now, deflt[i]) == 0);
    }
    cfg_defaults();
}

static void test_scrambling_changes_every_row_that_has_a_choice(void)
{
    const cfg_def *d;

    cfg_defaults();
    for (d = cfg_table; d->name; d++) {
        int r = scramble(d);
        int single = (d->type == CFG_ENUM && d->enums[1] == NULL) || strcmp(d->name, "save") == 0;
        CHECK(r == 1 || (r == 0 && single));
    }
    cfg_defaults();
}

/* save takes the empty schedule only, and says why it refuses any other. */
static void test_save_takes_only_no_schedule(void)
{
    const cfg_def *d = cfg_find("save", 4);
    char empty[] = "", sched[] = "3600 1 300 100", num[] = "900", out[FMT_CAP];
    char *w;
    const char *err = NULL;

    CHECK(d != NULL);
    if (!d)
        return;
    w = empty;
    CHECK(cfg_set(d, 1, &w, &err) == 0);
    CHECK(cfg_set(d, 0, &w, &err) == 0);
    w = sched;
    CHECK(cfg_set(d, 1, &w, &err) < 0 && err && strstr(err, "not supported") && strstr(err, "appendonly"));
    w = num;
    CHECK(cfg_set(d, 1, &w, &err) < 0);
    cfg_format(d, out, sizeof(out));
    CHECK(strcmp(out, "") == 0);
}

static void test_every_formatted_value_sets_back_to_itself(void)
{
    char before[FMT_CAP], after[FMT_CAP];
    const cfg_def *d;

    cfg_defaults();
    for (d = cfg_table; d->name; d++) {
        char *word = before;
        const char *err = NULL;
        cfg_format(d, before, sizeof(before));
        CHECK(cfg_set(d, 1, &word, &err) == 0);
        cfg_format(d, after, sizeof(after));
        CHECK(strcmp(before, after) == 0);
    }
    cfg_defaults();
}

/* ---- the loader: errors ---- */

static void test_unknown_directive_names_file_line_and_directive(void)
{
    char msg[MSG_CAP], want[600];
    const char *path = write_file("# a comment\n\nport 7000\nfrobnicate yes\nport 7001\n");

    cfg_defaults();
    CHECK(load(path, msg) == -1);
    snprintf(want, sizeof(want), "%s:4:", path);
    CHECK(strstr(msg, want) != NULL);
    CHECK(strstr(msg, "frobnicate") != NULL);
    CHECK(strstr(msg, "unknown directive") != NULL);
    CHECK(strcmp(val("port"), "7000") == 0);
    cfg_defaults();
}

static void test_port_out_of_range_fails_with_the_bounds(void)
{
    char msg[MSG_CAP], want[600];
    const char *path = write_file("port 99999\n");

    cfg_defaults();
    CHECK(load(path, msg) == -1);
    snprintf(want, sizeof(want), "%s:1:", path);
    CHECK(strstr(msg, want) != NULL);
    CHECK(strstr(msg, "'port'") != NULL);
    CHECK(strstr(msg, "between 0 and 65535") != NULL);
    CHECK(strcmp(val("port"), "6379") == 0);
}

static void test_malformed_memory_value_fails(void)
{
    char msg[MSG_CAP], want[600];
    const char *path = write_file("\n\nmaxmemory 12xb\n");

    cfg_defaults();
    CHECK(load(path, msg) == -1);
    snprintf(want, sizeof(want), "%s:3:", path);
    CHECK(strstr(msg, want) != NULL);
    CHECK(strstr(msg, "'maxmemory'") != NULL);
    CHECK(strstr(msg, "memory value") != NULL);
    CHECK(strcmp(val("maxmemory"), "0") == 0);
}

static void test_unknown_enum_value_fails_listing_the_choices(void)
{
    char msg[MSG_CAP];
    const char *path = write_file("loglevel loud\n");

    cfg_defaults();
    CHECK(load(path, msg) == -1);
    CHECK(strstr(msg, "'loglevel'") != NULL);
    CHECK(strstr(msg, "debug, verbose, notice, warning") != NULL);
    CHECK(strcmp(val("loglevel"), "notice") == 0);
}

static void test_non_integer_fails(void)
{
    char msg[MSG_CAP];

    cfg_defaults();
    CHECK(load(write_file("hz ten\n"), msg) == -1);
    CHECK(strstr(msg, "'hz'") != NULL);
    CHECK(strstr(msg, "integer") != NULL);
    CHECK(set("port", "+7000") == -1);
    CHECK(set("port", "07000") == -1);
    CHECK(set("port", "7000.0") == -1);
    CHECK(set("port", "") == -1);
    CHECK(strcmp(val("port"), "6379") == 0);
}

static void test_unbalanced_quotes_fail_naming_the_line(void)
{
    char msg[MSG_CAP], want[600];
    const char *path = write_file("port 7000\nlogfile \"/tmp/x.log\n");

    cfg_defaults();
    CHECK(load(path, msg) == -1);
    snprintf(want, sizeof(want), "%s:2:", path);
    CHECK(strstr(msg, want) != NULL);
    CHECK(strstr(msg, "unbalanced quotes") != NULL);
    cfg_defaults();
}

static void test_too_many_values_fail(void)
{
    char msg[MSG_CAP];

    cfg_defaults();
    CHECK(load(write_file("port 7000 7001\n"), msg) == -1);
    CHECK(strstr(msg, "'port'") != NULL);
    CHECK(load(write_file("bind 127.0.0.1 -::1\n"), msg) == 0);
    CHECK(strcmp(val("bind"), "127.0.0.1 -::1") == 0);
    cfg_defaults();
}

static void test_missing_file_fails_naming_it(void)
{
    char msg[MSG_CAP], path[600];

    snprintf(path, sizeof(path), "%s/no-such.conf", tmpdir);
    CHECK(load(path, msg) == -1);
    CHECK(strstr(msg, path) != NULL);
}

static void test_failed_set_keeps_the_previous_value(void)
{
    cfg_defaults();
    CHECK(set("port", "7000") == 0);
    CHECK(set("port", "70000") == -1);
    CHECK(set("port", "x") == -1);
    CHECK(strcmp(val("port"), "7000") == 0);
    CHECK(set("loglevel", "loud") == -1);
    CHECK(strcmp(val("loglevel"), "notice") == 0);
    CHECK(set("client-output-buffer-limit", "normal 1mb 1mb") == -1);
    CHECK(set("client-output-buffer-limit", "normal 1mb x 1") == -1);
    CHECK(strncmp(val("client-output-buffer-limit"), "normal 1073741824 268435456 60 ", 31) == 0);
    cfg_defaults();
}

/* ---- the loader: syntax ---- */

static void test_quotes_and_escapes_decode_as_redis_conf(void)
{
    char *w[8], buf[256], msg[MSG_CAP];

    CHECK(cfg_split("a \"b c\" 'd e'", w, 8, buf, sizeof(buf)) == 3);
    CHECK(strcmp(w[0], "a") == 0 && strcmp(w[1], "b c") == 0 && strcmp(w[2], "d e") == 0);
    CHECK(cfg_split("\"\\x41\\x62\\n\\t\\\"\\\\\"", w, 8, buf, sizeof(buf)) == 1);
    CHECK(strcmp(w[0], "Ab\n\t\"\\") == 0);
    CHECK(cfg_split("'it\\'s' '\\n'", w, 8, buf, sizeof(buf)) == 2);
    CHECK(strcmp(w[0], "it's") == 0 && strcmp(w[1], "\\n") == 0);
    CHECK(cfg_split("\"\" ''", w, 8, buf, sizeof(buf)) == 2);
    CHECK(w[0][0] == '\0' && w[1][0] == '\0');
    CHECK(cfg_split("   \t ", w, 8, buf, sizeof(buf)) == 0);
    CHECK(cfg_split("\"abc", w, 8, buf, sizeof(buf)) == -1);
    CHECK(cfg_split("'abc", w, 8, buf, sizeof(buf)) == -1);
    CHECK(cfg_split("\"a\"b", w, 8, buf, sizeof(buf)) == -1);
    CHECK(cfg_split("a b c", w, 2, buf, sizeof(buf)) == -1);

    cfg_defaults();
    CHECK(load(write_file("logfile \"/tmp/with space.log\"\n"
                          "requirepass \"p\\x41ss\\\"word\"\n"
                          "pidfile 'it\\'s.pid'\n"),
               msg) == 0);
    CHECK(strcmp(val("logfile"), "/tmp/with space.log") == 0);
    CHECK(strcmp(val("requirepass"), "pAss\"word") == 0);
    CHECK(strcmp(val("pidfile"), "it's.pid") == 0);
    cfg_defaults();
}

static void test_comments_blank_lines_and_crlf_are_skipped(void)
{
    char msg[MSG_CAP];

    cfg_defaults();
    CHECK(load(write_file("# leading comment\n"
                          "\n"
                          "   \t\n"
                          "    # indented comment\n"
                          "#port 1\n"
                          "port 7003\r\n"
                          "\r\n"
                          "hz 20"),
               msg) == 0);
    CHECK(msg[0] == '\0');
    CHECK(strcmp(val("port"), "7003") == 0);
    CHECK(strcmp(val("hz"), "20") == 0);
    cfg_defaults();
}

static void test_directive_names_and_enum_values_ignore_case(void)
{
    char msg[MSG_CAP];

    cfg_defaults();
    CHECK(load(write_file("PORT 7004\nMaxMemory 1MB\nloglevel WARNING\n"), msg) == 0);
    CHECK(strcmp(val("port"), "7004") == 0);
    CHECK(strcmp(val("maxmemory"), "1048576") == 0);
    CHECK(strcmp(val("loglevel"), "warning") == 0);
    CHECK(cfg_find("por", 3) == NULL);
    CHECK(cfg_find("ports", 5) == NULL);
    cfg_defaults();
}

static void test_later_lines_override_earlier_ones(void)
{
    char msg[MSG_CAP];

    cfg_defaults();
    CHECK(load(write_file("port 7000\nport 7001\n"), msg) == 0);
    CHECK(strcmp(val("port"), "7001") == 0);
    cfg_defaults();
}

static void test_empty_string_values_are_accepted(void)
{
    char msg[MSG_CAP];

    cfg_defaults();
    CHECK(set("unixsocket", "/tmp/sp.sock") == 0);
    CHECK(set("logfile", "/tmp/sp.log") == 0);
    CHECK(load(write_file("unixsocket\nlogfile \"\"\nrequirepass ''\n"), msg) == 0);
    CHECK(strcmp(val("unixsocket"), "") == 0);
    CHECK(strcmp(val("logfile"), "") == 0);
    CHECK(strcmp(val("requirepass"), "") == 0);
    cfg_defaults();
}

static void test_output_buffer_limit_takes_several_classes(void)
{
    char msg[MSG_CAP];

    cfg_defaults();
    CHECK(load(write_file("client-output-buffer-limit normal 0 0 0 pubsub 1mb 1kb 5\n"), msg) == 0);
    CHECK(strcmp(val("client-output-buffer-limit"),
                 "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 1024 5") == 0);
    CHECK(load(write_file("client-output-buffer-limit elsewhere 1 1 1\n"), msg) == -1);
    CHECK(strstr(msg, "client class") != NULL);
    CHECK(set("client-output-buffer-limit", "pubsub 32mb 8mb 60") == 0);
    cfg_defaults();
    CHECK(strcmp(val("client-output-buffer-limit"),
                 "normal 1073741824 268435456 60 slave 268435456 67108864 60 pubsub 33554432 8388608 60") == 0);
}

/* A class's seconds are a plain integer as redis-server reads them: no unit, not
 * negative; what CONFIG GET shows is what CONFIG SET takes back (found by
 * tests/fuzz/fuzz_config.c: "60g" was read as 60 GB and shown negative). */
static void test_output_buffer_seconds_are_a_plain_integer(void)
{
    char shown[FMT_CAP];

    cfg_defaults();
    CHECK(set("client-output-buffer-limit", "normal 1gb 2 60g") == -1);
    CHECK(set("client-output-buffer-limit", "normal 0 0 -1") == -1);
    CHECK(set("client-output-buffer-limit", "normal 0 0 1e3") == -1);
    CHECK(set("client-output-buffer-limit", "normal 0 0 2147483648") == -1);
    CHECK(set("client-output-buffer-limit", "normal 0 0 +5") == 0);
    CHECK(set("client-output-buffer-limit", "pubsub 1kb 1kb 2147483647") == 0);
    snprintf(shown, sizeof(shown), "%s", val("client-output-buffer-limit"));
    CHECK(strcmp(shown, "normal 0 0 5 slave 268435456 67108864 60 pubsub 1024 1024 2147483647") == 0);
    CHECK(set("client-output-buffer-limit", shown) == 0);
    CHECK(strcmp(val("client-output-buffer-limit"), shown) == 0);
    cfg_defaults();
}

/* notify-keyspace-events reads and prints Redis's letters as Redis does:
 * A hides n, p is Scratchpad's own class. */
static void test_notify_keyspace_events_prints_as_redis(void)
{
    cfg_defaults();
    CHECK(strcmp(val("notify-keyspace-events"), "") == 0);
    CHECK(set("notify-keyspace-events", "KEAn") == 0);
    CHECK(strcmp(val("notify-keyspace-events"), "AKE") == 0);
    CHECK(set("notify-keyspace-events", "Kg$lshzxetd") == 0);
    CHECK(strcmp(val("notify-keyspace-events"), "AK") == 0);
    CHECK(set("notify-keyspace-events", "Knm") == 0);
    CHECK(strcmp(val("notify-keyspace-events"), "nKm") == 0);
    CHECK(set("notify-keyspace-events", "Eg$") == 0);
    CHECK(strcmp(val("notify-keyspace-events"), "g$E") == 0);
    CHECK(set("notify-keyspace-events", "KEAp") == 0);
    CHECK(strcmp(val("notify-keyspace-events"), "ApKE") == 0);
    CHECK(set("notify-keyspace-events", "KQ") == -1);
    CHECK(strcmp(val("notify-keyspace-events"), "ApKE") == 0);
    cfg_defaults();
}

/* ---- command line ---- */

static void test_command_line_overrides_the_file(void)
{
    char msg[MSG_CAP];
    char a0[] = "--port", a1[] = "7000", a2[] = "--loglevel", a3[] = "verbose", a4[] = "--unixsocket",
         a5[] = "--client-output-buffer-limit", a6[] = "normal", a7[] = "0", a8[] = "0", a9[] = "0";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL};

    cfg_defaults();
    CHECK(load(write_file("port 7005\nloglevel debug\nunixsocket /tmp/sp-test.sock\n"), msg) == 0);
    CHECK(strcmp(val("port"), "7005") == 0);
    CHECK(load_args(argv, msg) == 0);
    CHECK(msg[0] == '\0');
    CHECK(strcmp(val("port"), "7000") == 0);
    CHECK(strcmp(val("loglevel"), "verbose") == 0);
    CHECK(strcmp(val("unixsocket"), "") == 0);
    CHECK(strncmp(val("client-output-buffer-limit"), "normal 0 0 0 ", 13) == 0);
    cfg_defaults();
}

static void test_bad_command_line_fails_naming_the_directive(void)
{
    char msg[MSG_CAP];
    char a0[] = "--nope", a1[] = "1", b0[] = "port", b1[] = "7000", c0[] = "--port", c1[] = "99999";
    char *unknown[] = {a0, a1, NULL}, *bare[] = {b0, b1, NULL}, *range[] = {c0, c1, NULL};

    cfg_defaults();
    CHECK(load_args(unknown, msg) == -1);
    CHECK(strstr(msg, "'nope'") != NULL);
    CHECK(load_args(bare, msg) == -1);
    CHECK(strstr(msg, "'port'") != NULL);
    CHECK(load_args(range, msg) == -1);
    CHECK(strstr(msg, "'port'") != NULL);
    CHECK(strstr(msg, "between 0 and 65535") != NULL);
    CHECK(strcmp(val("port"), "6379") == 0);
}

/* ---- values ---- */

static void test_cpu_lists_follow_redis_conf(void)
{
    static const struct {
        const char *in;
        uint64_t w0, w1; /* CPUs 0-63, 64-127 */
    } ok[] = {
        {"", 0, 0},
        {"0", 1, 0},
        {"1", 2, 0},
        {"0-3", 0xf, 0},
        {"0,2,5", 0x25, 0},
        {"0-7:2", 0x55, 0},
        {"1-9:4", 0x222, 0},
        {"3-3", 0x8, 0},
        {"63-65", 1ULL << 63, 3},
        {"2,0-1", 0x7, 0},
    };
    static const char *const bad[] = {"a", "-1", "1-", "3-1", "1,", ",1", "1 2", "0-3:0", "0-3:", "1:2",
                                      "1024", "0-1024", " 1"};
    uint64_t mask[CPULIST_WORDS];
    size_t i;
    char *w;
    const char *err = NULL;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        int rc = cpulist_parse(ok[i].in, mask, CPULIST_WORDS);
        if (rc != 0 || mask[0] != ok[i].w0 || mask[1] != ok[i].w1)
            fprintf(stderr, "    cpulist \"%s\" gives %d %llx %llx\n", ok[i].in, rc, (unsigned long long)mask[0],
                    (unsigned long long)mask[1]);
        CHECK(rc == 0 && mask[0] == ok[i].w0 && mask[1] == ok[i].w1);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (cpulist_parse(bad[i], mask, CPULIST_WORDS) == 0)
            fprintf(stderr, "    cpulist \"%s\" accepted\n", bad[i]);
        CHECK(cpulist_parse(bad[i], mask, CPULIST_WORDS) < 0);
    }
    /* The setting is checked when it is applied (at start-up), so a bad list
     * stops the server there rather than failing each rewrite. */
    cfg_defaults();
    w = "2-x";
    CHECK(cfg_set(row("aof-rewrite-cpulist"), 1, &w, &err) == 0);
    CHECK(row("aof-rewrite-cpulist")->apply(&err) < 0 && err && strstr(err, "Invalid CPU list"));
    w = "0-1";
    CHECK(cfg_set(row("aof-rewrite-cpulist"), 1, &w, &err) == 0);
    CHECK(row("aof-rewrite-cpulist")->apply(&err) == 0);
    cfg_defaults();
}

static void test_memory_units_follow_redis_conf(void)
{
    static const struct {
        const char *in, *out;
    } ok[] = {
        {"0", "0"}, {"100", "100"}, {"1b", "1"}, {"1k", "1000"}, {"1kb", "1024"}, {"1K", "1000"},
        {"1KB", "1024"}, {"1m", "1000000"}, {"1mb", "1048576"}, {"1g", "1000000000"},
        {"1gb", "1073741824"}, {"1Gb", "1073741824"}, {"3gb", "3221225472"},
        {"9223372036854775807", "9223372036854775807"},
    };
    static const char *const bad[] = {"-1", "1tb", "kb", "1.5mb", "1 mb", "mb1", "12xb", "",
                                      "9223372036854775807kb", "01mb"};
    size_t i;

    cfg_defaults();
    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        char *w = (char *)ok[i].in;
        const char *err = NULL;
        CHECK(cfg_set(row("maxmemory"), 1, &w, &err) == 0);
        if (strcmp(val("maxmemory"), ok[i].out) != 0)
            fprintf(stderr, "    maxmemory %s gives %s, want %s\n", ok[i].in, val("maxmemory"), ok[i].out);
        CHECK(strcmp(val("maxmemory"), ok[i].out) == 0);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *w = (char *)bad[i];
        const char *err = NULL;
        CHECK(cfg_set(row("maxmemory"), 1, &w, &err) == -1);
    }
    cfg_defaults();
}

static void test_integer_bounds_are_inclusive(void)
{
    cfg_defaults();
    CHECK(set("port", "0") == 0);
    CHECK(set("port", "65535") == 0);
    CHECK(set("port", "-1") == -1);
    CHECK(set("port", "65536") == -1);
    CHECK(set("hz", "1") == 0);
    CHECK(set("hz", "500") == 0);
    CHECK(set("hz", "0") == -1);
    CHECK(set("hz", "501") == -1);
    CHECK(set("databases", "1") == 0);
    CHECK(set("databases", "1024") == 0);
    CHECK(set("databases", "0") == -1);
    CHECK(set("databases", "1025") == -1);
    CHECK(set("maxclients", "0") == -1);
    CHECK(set("maxclients", "1000000") == 0);
    CHECK(set("maxclients", "1000001") == -1);
    CHECK(set("tcp-keepalive", "7200") == 0);
    CHECK(set("tcp-keepalive", "7201") == -1);
    CHECK(set("timeout", "2000000000") == 0);
    CHECK(set("timeout", "2000000001") == -1);
    CHECK(set("slowlog-log-slower-than", "-1") == 0);
    CHECK(strcmp(val("slowlog-log-slower-than"), "-1") == 0);
    CHECK(set("slowlog-log-slower-than", "-2") == -1);
    CHECK(set("slowlog-log-slower-than", "9223372036854775807") == 0);
    CHECK(strcmp(val("slowlog-log-slower-than"), "9223372036854775807") == 0);
    CHECK(set("slowlog-max-len", "0") == 0);
    CHECK(set("slowlog-max-len", "-1") == -1);
    cfg_defaults();
}

static void test_memory_bounds_are_inclusive(void)
{
    cfg_defaults();
    CHECK(set("compress-chunk", "1kb") == 0);
    CHECK(set("compress-chunk", "1023") == -1);
    CHECK(set("compress-chunk", "16mb") == 0);
    CHECK(set("compress-chunk", "16777217") == -1);
    CHECK(set("compress-threshold", "0") == 0);
    CHECK(set("compress-threshold", "1gb") == 0);
    CHECK(set("compress-threshold", "1073741825") == -1);
    CHECK(set("proto-max-bulk-len", "1mb") == 0);
    CHECK(set("proto-max-bulk-len", "1048575") == -1);
    CHECK(set("proto-max-bulk-len", "2047mb") == 0);
    CHECK(set("proto-max-bulk-len", "2048mb") == -1);
    CHECK(set("client-query-buffer-limit", "1mb") == 0);
    CHECK(set("client-query-buffer-limit", "1m") == -1);
    cfg_defaults();
}

static void test_unixsocketperm_is_octal(void)
{
    cfg_defaults();
    CHECK(strcmp(val("unixsocketperm"), "0") == 0);
    CHECK(set("unixsocketperm", "700") == 0);
    CHECK(srv.cfg.unixsocketperm == 0700);
    CHECK(strcmp(val("unixsocketperm"), "700") == 0);
    CHECK(set("unixsocketperm", "0770") == 0);
    CHECK(srv.cfg.unixsocketperm == 0770);
    CHECK(set("unixsocketperm", "777") == 0);
    CHECK(set("unixsocketperm", "1000") == -1);
    CHECK(set("unixsocketperm", "9") == -1);
    CHECK(set("unixsocketperm", "") == -1);
    CHECK(srv.cfg.unixsocketperm == 0777);
    cfg_defaults();
}

static void test_defaults_fill_the_server_fields(void)
{
    cfg_defaults();
    CHECK(srv.cfg.port == 6379);
    CHECK(strcmp(srv.cfg.bind, "127.0.0.1") == 0);
    CHECK(srv.cfg.databases == 16);
    CHECK(srv.cfg.maxmemory == 0);
    CHECK(srv.cfg.proto_max_bulk_len == 512LL * 1024 * 1024);
    CHECK(srv.cfg.client_query_buffer_limit == 1024LL * 1024 * 1024);
    CHECK(srv.cfg.obuf_hard == 1024LL * 1024 * 1024);
    CHECK(srv.cfg.obuf_soft == 256LL * 1024 * 1024);
    CHECK(srv.cfg.obuf_soft_seconds == 60);
    CHECK(srv.cfg.compress_chunk == 64 * 1024);
    CHECK(srv.cfg.slowlog_slower_than == 10000);
}

int main(void)
{
    const char *top = getenv("TOP");
    const char *base = getenv("TMPDIR");
    int rc, i;

    snprintf(conf_path, sizeof(conf_path), "%s/scratchpad.conf", top && top[0] ? top : ".");
    snprintf(tmpdir, sizeof(tmpdir), "%s/sp-test-config-XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }

    RUN(test_every_row_is_an_active_line_once, "every directive of the table is an active line of scratchpad.conf exactly once");
    RUN(test_every_active_line_names_a_row, "every active line of scratchpad.conf names a directive of the table");
    RUN(test_scrambling_changes_every_row_that_has_a_choice, "every directive with more than one possible value can be set away from its default");
    RUN(test_the_file_sets_every_row_to_its_default, "loading scratchpad.conf over changed values gives every directive its table default, silently");
    RUN(test_save_takes_only_no_schedule, "save takes only the empty schedule and names the log when it refuses one");
    RUN(test_every_formatted_value_sets_back_to_itself, "the formatted value of every directive sets it back to the same value");
    RUN(test_defaults_fill_the_server_fields, "the defaults reach the server's fields in their units");
    RUN(test_unknown_directive_names_file_line_and_directive, "an unknown directive fails with a message naming the file, the line and the directive, and stops the load there");
    RUN(test_port_out_of_range_fails_with_the_bounds, "port 99999 fails with a message naming the line, the directive and its bounds");
    RUN(test_malformed_memory_value_fails, "maxmemory 12xb fails as a malformed memory value");
    RUN(test_unknown_enum_value_fails_listing_the_choices, "loglevel loud fails and the message lists the valid levels");
    RUN(test_non_integer_fails, "an integer directive refuses words, signs, leading zeros, decimals and the empty string");
    RUN(test_unbalanced_quotes_fail_naming_the_line, "an unbalanced quote fails naming the line");
    RUN(test_too_many_values_fail, "a one-value directive given two values fails, while bind takes several addresses");
    RUN(test_missing_file_fails_naming_it, "a missing configuration file fails with a message naming it");
    RUN(test_failed_set_keeps_the_previous_value, "a value that fails to parse leaves the directive as it was");
    RUN(test_quotes_and_escapes_decode_as_redis_conf, "double quotes take \\xHH \\n \\t \\\" \\\\ escapes and single quotes take \\' only, as in redis.conf");
    RUN(test_comments_blank_lines_and_crlf_are_skipped, "comments, indented comments, blank lines and CRLF line ends are skipped");
    RUN(test_directive_names_and_enum_values_ignore_case, "directive names, units and enum values are case-insensitive, and a name must match whole");
    RUN(test_later_lines_override_earlier_ones, "a directive given twice takes the later value");
    RUN(test_empty_string_values_are_accepted, "a string directive with no value, \"\" or '' is set to the empty string");
    RUN(test_notify_keyspace_events_prints_as_redis,
        "notify-keyspace-events prints its letters as Redis does (A hides n) and refuses an unknown letter");
    RUN(test_output_buffer_seconds_are_a_plain_integer,
        "client-output-buffer-limit's seconds are a plain integer as in Redis, and what it shows it takes back");
    RUN(test_output_buffer_limit_takes_several_classes, "client-output-buffer-limit takes several classes on one line and refuses an unknown class");
    RUN(test_command_line_overrides_the_file, "--name value arguments override the file, with zero or several words per directive");
    RUN(test_bad_command_line_fails_naming_the_directive, "an unknown --directive, a bare word or a bad value on the command line fails naming it");
    RUN(test_cpu_lists_follow_redis_conf, "aof-rewrite-cpulist takes Redis's CPU lists (n, a-b, a-b:step, commas) and a bad list fails when applied");
    RUN(test_memory_units_follow_redis_conf, "memory units follow redis.conf: k=1000, kb=1024, m, mb, g, gb in any case, and malformed amounts fail");
    RUN(test_integer_bounds_are_inclusive, "integer bounds are accepted at both ends and refused one past them");
    RUN(test_memory_bounds_are_inclusive, "memory bounds are accepted at both ends and refused one past them");
    RUN(test_unixsocketperm_is_octal, "unixsocketperm is read and shown in octal, at most 777");

    for (i = 1; i <= file_seq; i++) {
        char path[600];
        snprintf(path, sizeof(path), "%s/conf-%d.conf", tmpdir, i);
        unlink(path);
    }
    rmdir(tmpdir);
    rc = TEST_DONE();
    return rc;
}
