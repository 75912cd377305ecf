/* scratchpad_bench.c -- scratchpad-bench: many agents at once against
 * scratchpad-server (SP.* commands) or, with --baseline redis, the same work in
 * plain Redis commands against redis-server.
 *
 * One process, one connection per agent, hiredis async on libevent; --threads N
 * spreads the agents over N worker threads with an event base each, so that the
 * load generator is not the bottleneck. An agent's life and accounting are in
 * agent.c, what its operations send in ops.c, its text in loggen.c; this file
 * reads the options and presets, runs the phases (connect and set up, warm up,
 * measure, drain), prints a progress line every second and the report, and
 * writes the JSON.
 *
 * Phases. SETUP: every agent connects and writes the entries its mix reads
 * (plan, findings, tool outputs, log). WARMUP (--warmup s): the mix, not
 * measured. MEASURE (--duration s or --requests n operations): operations that
 * start in it are measured, whenever they finish. DRAIN: no new operations; the
 * run ends when every reply is in. On a separate connection, the server's
 * used_memory is read (INFO memory) before SETUP and after DRAIN, and its CPU
 * time (INFO cpu) when MEASURE starts and after DRAIN, so that a report can
 * tell a server-bound run from a client-bound one.
 *
 * Counting. "operations" and "commands" in the report and the JSON cover the
 * measured phase; "totals" in the JSON count every command sent in the whole
 * run (setup and warm-up included) and the INFO calls, so that they equal the
 * server's INFO commandstats exactly on a fresh server.
 *
 * Exit status: 0; 1 if nothing could be measured, a connection failed or was
 * lost, or the JSON could not be written; 2 for bad options. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <hiredis/hiredis.h>

#include "bench.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ---- options ---- */

static void usage(FILE *f)
{
    fprintf(f, "Usage: scratchpad-bench [options]\n"
               "\n"
               "Drives N simulated AI agents, one connection each, against scratchpad-server\n"
               "(SP.* commands) or, with --baseline redis, the same work in plain Redis commands.\n"
               "\n"
               "Target:\n"
               "  --host H               server address (127.0.0.1)\n"
               "  --port P               server port (6379)\n"
               "  --baseline redis       the Redis expression of the workload (SET, GET, GETRANGE,\n"
               "                         APPEND, SCAN, DEL; grep, lines and edits in the client)\n"
               "Load:\n"
               "  --agents N             concurrent agents, one connection each (50)\n"
               "  --threads N            worker threads, one event base each (1)\n"
               "  --duration S           seconds of measurement (10)\n"
               "  --requests N           measure N operations instead of a duration\n"
               "  --warmup S             seconds of unmeasured load first (2)\n"
               "  --think MS             mean think time between an agent's operations,\n"
               "                         exponentially distributed (0: none)\n"
               "  --seed N               seed of every choice and every byte (1)\n"
               "Workload:\n"
               "  --workload NAME        agent-mix (default), offload-heavy, read-heavy, small-kv,\n"
               "                         agent-coord (agent-mix with leases, the feed, snapshots)\n"
               "  --mix op=w,...         replace the preset's mix; ops: plan_write plan_read\n"
               "                         plan_edit finding_write finding_read offload peek head\n"
               "                         tail range lines grep append del kv_write kv_read\n"
               "                         lease_write changes snapshot diff (scratchpad only)\n"
               "  --plan-size A-B        plan size (1k-2k)\n"
               "  --finding-size A-B     finding size (4k-16k)\n"
               "  --tool-size A-B        tool output size, log-uniform (30k-1m)\n"
               "  --append-size A-B      bytes per append to the log (100-400)\n"
               "  --kv-size A-B          small-kv value size (64-1k)\n"
               "  --kv-keys N            small-kv entries per agent (100)\n"
               "  --window N             characters per HEAD, TAIL and RANGE read (2000)\n"
               "  --lines N              lines per LINES read (50)\n"
               "  --grep-max N           MAX of a grep (20)\n"
               "  --keep-tools N         tool outputs kept per agent; the oldest goes (4)\n"
               "  --keep-findings N      finding slots per agent, rewritten in turn (8)\n"
               "  --session-ops N        operations per session, each session starts with\n"
               "                         a LIST (40; 0: never list)\n"
               "  --log-max SIZE         the running log is deleted past this (256k)\n"
               "  --offload-threshold SIZE  THRESHOLD of SP.OFFLOAD (4096)\n"
               "  --prefix P             namespaces are P:<agent> (agent)\n"
               "Output:\n"
               "  --json FILE            write the results as JSON\n"
               "  --quiet                no progress lines\n"
               "Sizes take k and m suffixes (KiB, MiB).\n");
}

/* "16k", "1m", "300" -> bytes; -1 if malformed. */
static long long parse_size(const char *s, char **end)
{
    char *e;
    long long v;

    errno = 0;
    v = strtoll(s, &e, 10);
    if (e == s || errno || v < 0)
        return -1;
    if (*e == 'k' || *e == 'K')
        v *= 1024, e++;
    else if (*e == 'm' || *e == 'M')
        v *= 1024 * 1024, e++;
    else if (*e == 'g' || *e == 'G')
        v *= 1024LL * 1024 * 1024, e++;
    if (*e == 'b' || *e == 'B')
        e++;
    *end = e;
    return v;
}

static int parse_one_size(const char *s, size_t *out)
{
    char *e;
    long long v = parse_size(s, &e);
    if (v < 0 || *e)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* "A-B" or "A" -> range. */
static int parse_range(const char *s, size_range *r)
{
    char *e;
    long long a = parse_size(s, &e), b;

    if (a < 0)
        return -1;
    if (*e == '\0') {
        r->min = r->max = (size_t)a;
        return 0;
    }
    if (*e != '-')
        return -1;
    b = parse_size(e + 1, &e);
    if (b < a || *e)
        return -1;
    r->min = (size_t)a;
    r->max = (size_t)b;
    return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    char *e;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &e, 10);
    if (e == s || *e || errno || v > max || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *e;
    double v;
    errno = 0;
    v = strtod(s, &e);
    if (e == s || *e || errno || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int op_by_name(const char *s, size_t n)
{
    int k;
    for (k = 0; k < OP_COUNT; k++)
        if (strlen(bench_op_names[k]) == n && memcmp(bench_op_names[k], s, n) == 0)
            return k;
    return -1;
}

/* "peek=10,grep=5" -> weights (the others 0). */
static int parse_mix(const char *s, unsigned *weight)
{
    unsigned w[OP_COUNT] = {0}, total = 0;
    const char *p = s;

    while (*p) {
        const char *eq = strchr(p, '='), *comma;
        unsigned long long v;
        char num[24];
        int k;
        if (!eq)
            return -1;
        k = op_by_name(p, (size_t)(eq - p));
        comma = strchr(eq, ',');
        if (!comma)
            comma = eq + strlen(eq);
        if (k < 0 || k == OP_LIST || (size_t)(comma - eq - 1) >= sizeof(num))
            return -1;
        memcpy(num, eq + 1, (size_t)(comma - eq - 1));
        num[comma - eq - 1] = '\0';
        if (parse_uint(num, 1000000, &v) < 0)
            return -1;
        w[k] = (unsigned)v;
        total += (unsigned)v;
        p = *comma ? comma + 1 : comma;
    }
    if (!total)
        return -1;
    memcpy(weight, w, sizeof(w));
    return 0;
}

/* The presets: a mix and, for small-kv, no sessions. 0 / -1 (unknown name). */
static int apply_workload(bench_opts *o, const char *name)
{
    static const struct {
        const char *name;
        const char *mix;
        unsigned session_ops;
    } presets[] = {
        /* an agent at work: think, call a tool, park its output, look at slices
         * of it, note findings, tick the plan, log progress */
        {"agent-mix",
         "plan_write=2,plan_read=6,plan_edit=8,finding_write=8,finding_read=8,offload=6,peek=10,head=6,tail=8,"
         "range=8,lines=8,grep=10,append=10,del=2",
         40},
        /* tool outputs in, previews and tails out */
        {"offload-heavy", "offload=30,peek=20,head=5,tail=15,range=5,lines=5,grep=5,append=10,del=5", 40},
        /* an agent reviewing what it has: windows and greps over stored outputs */
        {"read-heavy",
         "plan_read=8,plan_edit=2,finding_read=10,offload=2,peek=14,head=10,tail=12,range=14,lines=12,grep=12,"
         "append=4",
         40},
        /* small values written and read whole, as SET/GET */
        {"small-kv", "kv_write=50,kv_read=50", 0},
        /* agent-mix with coordination: findings written under a lease with a
         * fenced write, the change feed read to catch up, a snapshot before a
         * cycle and the diff after it */
        {"agent-coord",
         "plan_write=2,plan_read=6,plan_edit=8,finding_write=4,finding_read=8,offload=6,peek=10,head=6,tail=8,"
         "range=8,lines=8,grep=10,append=10,del=2,lease_write=4,changes=6,snapshot=2,diff=3",
         40},
    };
    size_t i;

    for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
        if (strcmp(presets[i].name, name) == 0) {
            o->workload = presets[i].name;
            o->session_ops = presets[i].session_ops;
            return parse_mix(presets[i].mix, o->weight);
        }
    }
    return -1;
}

static void defaults(bench_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->host = "127.0.0.1";
    o->port = 6379;
    o->agents = 50;
    o->threads = 1;
    o->duration = 10;
    o->warmup = 2;
    o->seed = 1;
    o->plan = (size_range){1024, 2048};
    o->finding = (size_range){4096, 16384};
    o->tool = (size_range){30 * 1024, 1024 * 1024};
    o->append = (size_range){100, 400};
    o->kv = (size_range){64, 1024};
    o->kv_keys = 100;
    o->window = 2000;
    o->lines = 50;
    o->grep_max = 20;
    o->keep_tools = 4;
    o->keep_findings = 8;
    o->log_max = 256 * 1024;
    o->offload_threshold = 4096;
    o->prefix = "agent";
    apply_workload(o, "agent-mix");
}

enum {
    O_HOST = 256, O_PORT, O_AGENTS, O_THREADS, O_DURATION, O_REQUESTS, O_WARMUP, O_SEED, O_THINK, O_WORKLOAD,
    O_MIX, O_PLAN, O_FINDING, O_TOOL, O_APPEND, O_KV, O_KVKEYS, O_WINDOW, O_LINES, O_GREPMAX, O_KEEPTOOLS,
    O_KEEPFIND, O_SESSION, O_LOGMAX, O_OFFTHR, O_PREFIX, O_BASELINE, O_JSON, O_QUIET, O_HELP
};

static const struct option long_opts[] = {
    {"host", required_argument, NULL, O_HOST},
    {"port", required_argument, NULL, O_PORT},
    {"agents", required_argument, NULL, O_AGENTS},
    {"threads", required_argument, NULL, O_THREADS},
    {"duration", required_argument, NULL, O_DURATION},
    {"requests", required_argument, NULL, O_REQUESTS},
    {"warmup", required_argument, NULL, O_WARMUP},
    {"seed", required_argument, NULL, O_SEED},
    {"think", required_argument, NULL, O_THINK},
    {"workload", required_argument, NULL, O_WORKLOAD},
    {"mix", required_argument, NULL, O_MIX},
    {"plan-size", required_argument, NULL, O_PLAN},
    {"finding-size", required_argument, NULL, O_FINDING},
    {"tool-size", required_argument, NULL, O_TOOL},
    {"append-size", required_argument, NULL, O_APPEND},
    {"kv-size", required_argument, NULL, O_KV},
    {"kv-keys", required_argument, NULL, O_KVKEYS},
    {"window", required_argument, NULL, O_WINDOW},
    {"lines", required_argument, NULL, O_LINES},
    {"grep-max", required_argument, NULL, O_GREPMAX},
    {"keep-tools", required_argument, NULL, O_KEEPTOOLS},
    {"keep-findings", required_argument, NULL, O_KEEPFIND},
    {"session-ops", required_argument, NULL, O_SESSION},
    {"log-max", required_argument, NULL, O_LOGMAX},
    {"offload-threshold", required_argument, NULL, O_OFFTHR},
    {"prefix", required_argument, NULL, O_PREFIX},
    {"baseline", required_argument, NULL, O_BASELINE},
    {"json", required_argument, NULL, O_JSON},
    {"quiet", no_argument, NULL, O_QUIET},
    {"help", no_argument, NULL, O_HELP},
    {NULL, 0, NULL, 0},
};

static int bad(const char *opt, const char *val)
{
    fprintf(stderr, "scratchpad-bench: invalid value for --%s: '%s' (see --help)\n", opt, val);
    return -1;
}

/* Fill o from argv: the preset first (wherever --workload is), then every other
 * option over it. 0, 1 (--help shown), or -1 after a message. */
static int parse_args(bench_opts *o, int argc, char **argv)
{
    unsigned long long v;
    int c, idx, i;

    defaults(o);
    for (i = 1; i < argc; i++) {
        const char *name = NULL;
        if (strcmp(argv[i], "--workload") == 0 && i + 1 < argc)
            name = argv[i + 1];
        else if (strncmp(argv[i], "--workload=", 11) == 0)
            name = argv[i] + 11;
        if (name && apply_workload(o, name) < 0)
            return bad("workload", name);
    }
    opterr = 1;
    while ((c = getopt_long(argc, argv, "", long_opts, &idx)) != -1) {
        const char *arg = optarg, *nm = c >= O_HOST && c <= O_HELP ? long_opts[c - O_HOST].name : "?";
        switch (c) {
        case O_HOST: o->host = arg; break;
        case O_PORT:
            if (parse_uint(arg, 65535, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->port = (int)v;
            break;
        case O_AGENTS:
            if (parse_uint(arg, 1000000, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->agents = (int)v;
            break;
        case O_THREADS:
            if (parse_uint(arg, 256, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->threads = (int)v;
            break;
        case O_DURATION:
            if (parse_double(arg, &o->duration) < 0 || o->duration <= 0)
                return bad(nm, arg);
            o->requests = 0;
            break;
        case O_REQUESTS:
            if (parse_uint(arg, UINT64_MAX, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->requests = v;
            break;
        case O_WARMUP:
            if (parse_double(arg, &o->warmup) < 0)
                return bad(nm, arg);
            break;
        case O_SEED:
            if (parse_uint(arg, UINT64_MAX, &v) < 0)
                return bad(nm, arg);
            o->seed = v;
            break;
        case O_THINK:
            if (parse_double(arg, &o->think_ms) < 0)
                return bad(nm, arg);
            break;
        case O_WORKLOAD: break; /* applied above */
        case O_MIX:
            if (parse_mix(arg, o->weight) < 0)
                return bad(nm, arg);
            break;
        case O_PLAN: if (parse_range(arg, &o->plan) < 0 || !o->plan.min) return bad(nm, arg); break;
        case O_FINDING: if (parse_range(arg, &o->finding) < 0 || !o->finding.min) return bad(nm, arg); break;
        case O_TOOL: if (parse_range(arg, &o->tool) < 0) return bad(nm, arg); break;
        case O_APPEND: if (parse_range(arg, &o->append) < 0 || !o->append.min) return bad(nm, arg); break;
        case O_KV: if (parse_range(arg, &o->kv) < 0 || !o->kv.min) return bad(nm, arg); break;
        case O_KVKEYS:
            if (parse_uint(arg, 100000000, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->kv_keys = (unsigned)v;
            break;
        case O_WINDOW:
            if (parse_uint(arg, 1u << 30, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->window = (unsigned)v;
            break;
        case O_LINES:
            if (parse_uint(arg, 1u << 30, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->lines = (unsigned)v;
            break;
        case O_GREPMAX:
            if (parse_uint(arg, 1u << 30, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->grep_max = (unsigned)v;
            break;
        case O_KEEPTOOLS:
            if (parse_uint(arg, KEEP_MAX, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->keep_tools = (unsigned)v;
            break;
        case O_KEEPFIND:
            if (parse_uint(arg, KEEP_MAX, &v) < 0 || v == 0)
                return bad(nm, arg);
            o->keep_findings = (unsigned)v;
            break;
        case O_SESSION:
            if (parse_uint(arg, 1u << 30, &v) < 0)
                return bad(nm, arg);
            o->session_ops = (unsigned)v;
            break;
        case O_LOGMAX: if (parse_one_size(arg, &o->log_max) < 0) return bad(nm, arg); break;
        case O_OFFTHR: if (parse_one_size(arg, &o->offload_threshold) < 0) return bad(nm, arg); break;
        case O_PREFIX:
            if (!*arg || strlen(arg) > 40 || strpbrk(arg, "*?[]\\ \""))
                return bad(nm, arg);
            o->prefix = arg;
            break;
        case O_BASELINE:
            if (strcmp(arg, "redis") == 0)
                o->redis = 1;
            else if (strcmp(arg, "scratchpad") == 0 || strcmp(arg, "none") == 0)
                o->redis = 0;
            else
                return bad(nm, arg);
            break;
        case O_JSON: o->json = arg; break;
        case O_QUIET: o->quiet = 1; break;
        case O_HELP: usage(stdout); return 1;
        default: usage(stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "scratchpad-bench: unexpected argument '%s' (see --help)\n", argv[optind]);
        return -1;
    }
    if (o->tool.min <= o->offload_threshold) {
        fprintf(stderr, "scratchpad-bench: --tool-size must start above --offload-threshold (%zu)\n",
                o->offload_threshold);
        return -1;
    }
    if (o->redis &&
        (o->weight[OP_LEASE_WRITE] || o->weight[OP_CHANGES] || o->weight[OP_SNAPSHOT] || o->weight[OP_DIFF])) {
        fprintf(stderr, "scratchpad-bench: lease_write, changes, snapshot and diff have no Redis expression "
                        "(run agent-coord against scratchpad alone)\n");
        return -1;
    }
    if (o->threads > o->agents)
        o->threads = o->agents;
    return 0;
}

/* ---- the server, on a connection of its own ---- */

typedef struct meminfo {
    long long used;     /* used_memory, -1 if not reported */
    long long rss;      /* used_memory_rss, -1 if not reported */
} meminfo;

static long long info_field(const char *info, const char *field)
{
    size_t n = strlen(field);
    const char *p = info;

    while ((p = strstr(p, field)) != NULL) {
        if ((p == info || p[-1] == '\n') && p[n] == ':')
            return strtoll(p + n + 1, NULL, 10);
        p += n;
    }
    return -1;
}

/* INFO memory on c; counts the call in *calls. -1 if it failed. */
static int read_memory(redisContext *c, meminfo *m, uint64_t *calls)
{
    redisReply *r = redisCommand(c, "INFO memory");

    (*calls)++;
    m->used = m->rss = -1;
    if (!r)
        return -1;
    if (r->type == REDIS_REPLY_STRING) {
        m->used = info_field(r->str, "used_memory");
        m->rss = info_field(r->str, "used_memory_rss");
    }
    freeReplyObject(r);
    return 0;
}

/* The server's CPU seconds so far (INFO cpu: used_cpu_user + used_cpu_sys);
 * counts the call in *calls. -1 if unknown. */
static double read_server_cpu(redisContext *c, uint64_t *calls)
{
    redisReply *r = redisCommand(c, "INFO cpu");
    double v = -1;

    (*calls)++;
    if (!r)
        return -1;
    if (r->type == REDIS_REPLY_STRING) {
        const char *u = strstr(r->str, "used_cpu_user:"), *y = strstr(r->str, "used_cpu_sys:");
        if (u && y)
            v = strtod(u + 14, NULL) + strtod(y + 13, NULL);
    }
    freeReplyObject(r);
    return v;
}

/* Let the process hold one descriptor per agent and some more: asks for agents +
 * 64, warns only below what the run really needs (a socket per agent, the
 * control connection, an epoll descriptor per thread, stdio). */
static void raise_nofile(int agents, int threads)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)agents + 64, need = (rlim_t)agents + 8 + 2 * (rlim_t)threads;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
        return;
    if (rl.rlim_max < want) {
        struct rlimit up = {want, want};
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            return;
    }
    rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < need)
        fprintf(stderr,
                "scratchpad-bench: warning: open files limited to %llu, fewer than %d agents need; "
                "raise it with ulimit -n\n",
                (unsigned long long)rl.rlim_cur, agents);
}

/* ---- worker threads ---- */

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    worker *w = arg;
    (void)fd;
    (void)what;
    agents_tick(w);
    if (w->active == 0)
        event_base_loopbreak(w->base);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    int count = (w->o->agents - w->id + w->o->threads - 1) / w->o->threads;
    struct timeval tv = {0, 20000};

    w->base = event_base_new();
    if (!w->base) {
        fprintf(stderr, "scratchpad-bench: cannot create an event base\n");
        atomic_fetch_add(&w->sh->setup_done, count);
        w->connect_failed = (uint64_t)count;
        goto done;
    }
    w->tick = event_new(w->base, -1, EV_PERSIST, on_tick, w);
    event_add(w->tick, &tv);
    agents_create(w, w->id, w->o->threads, count);
    if (w->active > 0)
        event_base_dispatch(w->base);
    agents_destroy(w);
    event_free(w->tick);
    event_base_free(w->base);
done:
    atomic_store(&w->finished, 1);
    return NULL;
}

/* ---- report ---- */

static double secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

static double ms_of(uint64_t ns)
{
    return (double)ns / 1e6;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

typedef struct results {
    stat_slot op[OP_COUNT], cmd[CMD_COUNT], all;
    uint64_t calls[CMD_COUNT], call_errors[CMD_COUNT];
    uint64_t connect_failed, conn_lost, info_calls;
    uint64_t ops, errors, sent, recv;
    double elapsed;   /* s of the measured phase: its start to its last completion */
    double window;    /* s from its start to the end of the drain, for CPU shares */
    double cpu;       /* s of client CPU in the window */
    double server_cpu; /* s of server CPU in the window (INFO cpu), -1 if unknown */
    meminfo before, after;
} results;

static void slot_add(stat_slot *d, const stat_slot *s)
{
    hist_merge(&d->lat, &s->lat);
    d->errors += s->errors;
    d->bytes_sent += s->bytes_sent;
    d->bytes_recv += s->bytes_recv;
}

static void print_row(const char *name, const stat_slot *s, double elapsed)
{
    const hist *h = &s->lat;
    printf("%-14s %9llu %10.1f %8.3f %8.3f %8.3f %8.3f %9.3f %10.2f %10.2f %6llu\n", name,
           (unsigned long long)h->count, elapsed > 0 ? (double)h->count / elapsed : 0.0,
           ms_of(hist_percentile(h, 50)), ms_of(hist_percentile(h, 95)), ms_of(hist_percentile(h, 99)),
           ms_of(hist_percentile(h, 99.9)), ms_of(h->count ? h->max : 0), (double)s->bytes_sent / 1048576.0,
           (double)s->bytes_recv / 1048576.0, (unsigned long long)s->errors);
}

static void print_report(const bench_opts *o, const results *r)
{
    int k;
    const char *hdr = "%-14s %9s %10s %8s %8s %8s %8s %9s %10s %10s %6s\n";

    printf("scratchpad-bench: %s at %s:%d, workload %s, %d agents, %d thread%s, seed %llu, think %.1f ms\n",
           o->redis ? "redis (baseline)" : "scratchpad", o->host, o->port, o->workload ? o->workload : "custom",
           o->agents, o->threads, o->threads > 1 ? "s" : "", (unsigned long long)o->seed, o->think_ms);
    printf("measured %.2f s: %llu operations, %.1f ops/s, %llu errors; sent %.1f MB, received %.1f MB\n",
           r->elapsed, (unsigned long long)r->ops, r->elapsed > 0 ? (double)r->ops / r->elapsed : 0.0,
           (unsigned long long)r->errors, (double)r->sent / 1048576.0, (double)r->recv / 1048576.0);
    printf("CPU (share of a core): client %.0f%%, server %s", r->window > 0 ? 100.0 * r->cpu / r->window : 0.0,
           r->server_cpu < 0 ? "unknown" : "");
    if (r->server_cpu >= 0)
        printf("%.0f%% (%.0f operations per server CPU-second)",
               r->window > 0 ? 100.0 * r->server_cpu / r->window : 0.0,
               r->server_cpu > 0 ? (double)r->ops / r->server_cpu : 0.0);
    printf("\n");
    printf("used_memory: before %.1f MB, after %.1f MB (used_memory_rss after %.1f MB)\n",
           (double)r->before.used / 1048576.0, (double)r->after.used / 1048576.0, (double)r->after.rss / 1048576.0);
    if (r->connect_failed || r->conn_lost)
        printf("connections: %llu failed to connect, %llu lost\n", (unsigned long long)r->connect_failed,
               (unsigned long long)r->conn_lost);
    printf("\n");
    printf(hdr, "operation", "count", "ops/s", "p50 ms", "p95 ms", "p99 ms", "p99.9 ms", "max ms", "sent MB",
           "recv MB", "errors");
    for (k = 0; k < OP_COUNT; k++)
        if (r->op[k].lat.count)
            print_row(bench_op_names[k], &r->op[k], r->elapsed);
    print_row("all", &r->all, r->elapsed);
    printf("\n");
    printf(hdr, "command", "count", "calls/s", "p50 ms", "p95 ms", "p99 ms", "p99.9 ms", "max ms", "sent MB",
           "recv MB", "errors");
    for (k = 0; k < CMD_COUNT; k++)
        if (r->cmd[k].lat.count)
            print_row(bench_cmd_names[k], &r->cmd[k], r->elapsed);
}

static void json_lat(FILE *f, const hist *h)
{
    fprintf(f,
            "{\"mean\": %.1f, \"p50\": %.1f, \"p95\": %.1f, \"p99\": %.1f, \"p99_9\": %.1f, \"max\": %.1f}",
            hist_mean(h) / 1e3, (double)hist_percentile(h, 50) / 1e3, (double)hist_percentile(h, 95) / 1e3,
            (double)hist_percentile(h, 99) / 1e3, (double)hist_percentile(h, 99.9) / 1e3,
            (double)(h->count ? h->max : 0) / 1e3);
}

static void json_slot(FILE *f, const stat_slot *s, double elapsed)
{
    fprintf(f, "{\"count\": %llu, \"ops_per_sec\": %.2f, \"errors\": %llu, \"bytes_sent\": %llu, "
               "\"bytes_received\": %llu, \"latency_us\": ",
            (unsigned long long)s->lat.count, elapsed > 0 ? (double)s->lat.count / elapsed : 0.0,
            (unsigned long long)s->errors, (unsigned long long)s->bytes_sent, (unsigned long long)s->bytes_recv);
    json_lat(f, &s->lat);
    fprintf(f, "}");
}

/* s as a JSON string, quotes included. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_range(FILE *f, const char *name, size_range r, int comma)
{
    fprintf(f, "    \"%s\": [%zu, %zu]%s\n", name, r.min, r.max, comma ? "," : "");
}

/* The JSON file (format 1):
 *   tool, format, target ("scratchpad" | "redis"), host, port, workload, agents,
 *   threads, seed, think_ms, warmup_s, duration_s (0 with --requests), requests;
 *   settings: sizes as [min, max] bytes, the other knobs, and mix {op: weight};
 *   measured: elapsed_s (start of the phase to its last completion),
 *     operations, ops_per_sec, errors, bytes_sent, bytes_received,
 *     cpu_window_s (start of the phase to the end of the drain), client_cpu_s
 *     and server_cpu_s (INFO cpu; -1 if unknown) in that window, latency_us
 *     {mean, p50, p95, p99, p99_9, max} over every operation;
 *   operations: {op: {count, ops_per_sec, errors, bytes_sent, bytes_received,
 *     latency_us}} for the measured phase, ops as in --mix plus "list";
 *   commands: the same per wire command, named as INFO commandstats does;
 *   totals: commands {name: {calls, errors}} over the whole run (setup and
 *     warm-up included), info (INFO calls made), connect_failed,
 *     connections_lost -- on a fresh server, calls equal cmdstat_<name>:calls;
 *   used_memory: before, after, rss_before, rss_after (bytes; -1 if absent). */
static int write_json(const bench_opts *o, const results *r)
{
    FILE *f = fopen(o->json, "w");
    int k, first;

    if (!f) {
        fprintf(stderr, "scratchpad-bench: cannot write %s: %s\n", o->json, strerror(errno));
        return -1;
    }
    fprintf(f, "{\n  \"tool\": \"scratchpad-bench\",\n  \"format\": 1,\n");
    fprintf(f, "  \"target\": \"%s\",\n  \"host\": ", o->redis ? "redis" : "scratchpad");
    json_str(f, o->host);
    fprintf(f, ",\n  \"port\": %d,\n  \"workload\": ", o->port);
    json_str(f, o->workload ? o->workload : "custom");
    fprintf(f, ",\n  \"agents\": %d,\n  \"threads\": %d,\n  \"seed\": %llu,\n", o->agents, o->threads,
            (unsigned long long)o->seed);
    fprintf(f, "  \"think_ms\": %.3f,\n  \"warmup_s\": %.3f,\n  \"duration_s\": %.3f,\n  \"requests\": %llu,\n",
            o->think_ms, o->warmup, o->requests ? 0.0 : o->duration, (unsigned long long)o->requests);
    fprintf(f, "  \"settings\": {\n");
    json_range(f, "plan_size", o->plan, 1);
    json_range(f, "finding_size", o->finding, 1);
    json_range(f, "tool_size", o->tool, 1);
    json_range(f, "append_size", o->append, 1);
    json_range(f, "kv_size", o->kv, 1);
    fprintf(f, "    \"kv_keys\": %u,\n    \"window\": %u,\n    \"lines\": %u,\n    \"grep_max\": %u,\n", o->kv_keys,
            o->window, o->lines, o->grep_max);
    fprintf(f, "    \"keep_tools\": %u,\n    \"keep_findings\": %u,\n    \"session_ops\": %u,\n", o->keep_tools,
            o->keep_findings, o->session_ops);
    fprintf(f, "    \"log_max\": %zu,\n    \"offload_threshold\": %zu,\n    \"prefix\": ", o->log_max,
            o->offload_threshold);
    json_str(f, o->prefix);
    fprintf(f, ",\n");
    fprintf(f, "    \"mix\": {");
    for (k = 0, first = 1; k < OP_COUNT; k++) {
        if (k == OP_LIST || !o->weight[k])
            continue;
        fprintf(f, "%s\"%s\": %u", first ? "" : ", ", bench_op_names[k], o->weight[k]);
        first = 0;
    }
    fprintf(f, "}\n  },\n");
    fprintf(f, "  \"measured\": {\"elapsed_s\": %.4f, \"operations\": %llu, \"ops_per_sec\": %.2f, "
               "\"errors\": %llu, \"bytes_sent\": %llu, \"bytes_received\": %llu, \"cpu_window_s\": %.4f, "
               "\"client_cpu_s\": %.3f, \"server_cpu_s\": %.3f, \"latency_us\": ",
            r->elapsed, (unsigned long long)r->ops, r->elapsed > 0 ? (double)r->ops / r->elapsed : 0.0,
            (unsigned long long)r->errors, (unsigned long long)r->sent, (unsigned long long)r->recv, r->window, r->cpu,
            r->server_cpu);
    json_lat(f, &r->all.lat);
    fprintf(f, "},\n  \"operations\": {");
    for (k = 0, first = 1; k < OP_COUNT; k++) {
        if (!r->op[k].lat.count)
            continue;
        fprintf(f, "%s\n    \"%s\": ", first ? "" : ",", bench_op_names[k]);
        json_slot(f, &r->op[k], r->elapsed);
        first = 0;
    }
    fprintf(f, "\n  },\n  \"commands\": {");
    for (k = 0, first = 1; k < CMD_COUNT; k++) {
        if (!r->cmd[k].lat.count)
            continue;
        fprintf(f, "%s\n    \"%s\": ", first ? "" : ",", bench_cmd_names[k]);
        json_slot(f, &r->cmd[k], r->elapsed);
        first = 0;
    }
    fprintf(f, "\n  },\n  \"totals\": {\n    \"commands\": {");
    for (k = 0, first = 1; k < CMD_COUNT; k++) {
        if (!r->calls[k])
            continue;
        fprintf(f, "%s\n      \"%s\": {\"calls\": %llu, \"errors\": %llu}", first ? "" : ",", bench_cmd_names[k],
                (unsigned long long)r->calls[k], (unsigned long long)r->call_errors[k]);
        first = 0;
    }
    fprintf(f, "\n    },\n    \"info\": %llu,\n    \"connect_failed\": %llu,\n    \"connections_lost\": %llu\n  },\n",
            (unsigned long long)r->info_calls, (unsigned long long)r->connect_failed,
            (unsigned long long)r->conn_lost);
    fprintf(f, "  \"used_memory\": {\"before\": %lld, \"after\": %lld, \"rss_before\": %lld, \"rss_after\": %lld}\n}\n",
            r->before.used, r->after.used, r->before.rss, r->after.rss);
    if (fclose(f) != 0) {
        fprintf(stderr, "scratchpad-bench: cannot write %s: %s\n", o->json, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- the run ---- */

static const char *phase_name(int p)
{
    static const char *const names[] = {"setup", "warmup", "measure", "drain"};
    return names[p];
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_shared sh;
    corpus cp;
    results *r = NULL;
    worker *w = NULL;
    redisContext *ctl = NULL;
    struct timeval tmo = {5, 0};
    struct sigaction sa;
    uint64_t t_start, t_phase, t_measure = 0, t_end, last_ops = 0, last_sent = 0, last_recv = 0, t_last;
    double cpu0 = 0, scpu0 = -1;
    size_t corpus_bytes;
    int rc = 1, i, started = 0, phase;

    i = parse_args(&o, argc, argv);
    if (i != 0)
        return i > 0 ? 0 : 2;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    raise_nofile(o.agents, o.threads);

    memset(&cp, 0, sizeof(cp));
    corpus_bytes = 8u << 20;
    if (2 * o.tool.max + (1u << 20) > corpus_bytes)
        corpus_bytes = 2 * o.tool.max + (1u << 20);
    if (2 * o.finding.max > corpus_bytes)
        corpus_bytes = 2 * o.finding.max;
    if (2 * o.kv.max > corpus_bytes)
        corpus_bytes = 2 * o.kv.max;
    if (corpus_build(&cp, o.seed, corpus_bytes) < 0) {
        fprintf(stderr, "scratchpad-bench: out of memory building %zu bytes of text\n", corpus_bytes);
        return 1;
    }
    r = calloc(1, sizeof(*r));
    w = calloc((size_t)o.threads, sizeof(*w));
    if (!r || !w) {
        fprintf(stderr, "scratchpad-bench: out of memory\n");
        goto done;
    }

    ctl = redisConnectWithTimeout(o.host, o.port, tmo);
    if (!ctl || ctl->err) {
        fprintf(stderr, "scratchpad-bench: cannot connect to %s:%d: %s\n", o.host, o.port,
                ctl ? ctl->errstr : "out of memory");
        goto done;
    }
    redisSetTimeout(ctl, (struct timeval){30, 0});
    if (read_memory(ctl, &r->before, &r->info_calls) < 0) {
        fprintf(stderr, "scratchpad-bench: INFO memory failed: %s\n", ctl->errstr);
        goto done;
    }

    memset(&sh, 0, sizeof(sh));
    atomic_init(&sh.phase, PHASE_SETUP);
    atomic_init(&sh.measure_started, 0);
    atomic_init(&sh.setup_done, 0);
    sh.o = &o;
    sh.corpus = &cp;
    t_start = t_phase = t_last = bench_now_ns();
    for (i = 0; i < o.threads; i++) {
        int k;
        w[i].id = i;
        w[i].sh = &sh;
        w[i].o = &o;
        for (k = 0; k < OP_COUNT; k++)
            hist_init(&w[i].op[k].lat);
        for (k = 0; k < CMD_COUNT; k++)
            hist_init(&w[i].cmd[k].lat);
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0) {
            fprintf(stderr, "scratchpad-bench: cannot start thread %d\n", i);
            atomic_store(&sh.phase, PHASE_DRAIN);
            break;
        }
        started++;
    }
    if (!o.quiet)
        fprintf(stderr, "scratchpad-bench: %d agents connecting to %s:%d (%s, workload %s)\n", o.agents, o.host,
                o.port, o.redis ? "redis baseline" : "scratchpad", o.workload ? o.workload : "custom");

    for (;;) {
        int all_done = 1;
        uint64_t now;

        sleep_ms(50);
        now = bench_now_ns();
        for (i = 0; i < started; i++)
            all_done &= atomic_load(&w[i].finished);
        if (all_done)
            break;
        phase = atomic_load(&sh.phase);
        if (interrupted && phase != PHASE_DRAIN) {
            atomic_store(&sh.phase, PHASE_DRAIN);
            t_phase = now;
            fprintf(stderr, "scratchpad-bench: interrupted, draining\n");
        } else if (phase == PHASE_SETUP && atomic_load(&sh.setup_done) >= o.agents) {
            phase = o.warmup > 0 ? PHASE_WARMUP : PHASE_MEASURE;
            t_phase = now;
            if (phase == PHASE_MEASURE) {
                scpu0 = read_server_cpu(ctl, &r->info_calls);
                cpu0 = cpu_seconds();
                t_phase = t_measure = bench_now_ns();
            }
            atomic_store(&sh.phase, phase);
        } else if (phase == PHASE_WARMUP && secs(now - t_phase) >= o.warmup) {
            scpu0 = read_server_cpu(ctl, &r->info_calls);
            cpu0 = cpu_seconds();
            t_phase = t_measure = bench_now_ns();
            atomic_store(&sh.phase, PHASE_MEASURE);
        } else if (phase == PHASE_MEASURE &&
                   (o.requests ? atomic_load(&sh.measure_started) >= o.requests
                               : secs(now - t_measure) >= o.duration)) {
            t_phase = now;
            atomic_store(&sh.phase, PHASE_DRAIN);
        } else if (phase == PHASE_DRAIN && secs(now - t_phase) > 60) {
            fprintf(stderr, "scratchpad-bench: replies still missing 60 s after the end; giving up\n");
            _exit(1);
        }
        if (!o.quiet && now - t_last >= 1000000000u) {
            uint64_t ops = 0, sent = 0, recv = 0, errs = 0;
            double dt = secs(now - t_last);
            for (i = 0; i < started; i++) {
                ops += atomic_load_explicit(&w[i].live_ops, memory_order_relaxed);
                sent += atomic_load_explicit(&w[i].live_sent, memory_order_relaxed);
                recv += atomic_load_explicit(&w[i].live_recv, memory_order_relaxed);
                errs += atomic_load_explicit(&w[i].live_errors, memory_order_relaxed);
            }
            fprintf(stderr, "[%7.1fs] %-7s %9.0f ops/s  total %10llu  tx %7.1f MB/s  rx %7.1f MB/s  errors %llu\n",
                    secs(now - t_start), phase_name(atomic_load(&sh.phase)), (double)(ops - last_ops) / dt,
                    (unsigned long long)ops, (double)(sent - last_sent) / dt / 1048576.0,
                    (double)(recv - last_recv) / dt / 1048576.0, (unsigned long long)errs);
            last_ops = ops;
            last_sent = sent;
            last_recv = recv;
            t_last = now;
        }
    }
    t_end = 0;
    for (i = 0; i < started; i++) {
        int k;
        pthread_join(w[i].thread, NULL);
        for (k = 0; k < OP_COUNT; k++) {
            slot_add(&r->op[k], &w[i].op[k]);
            slot_add(&r->all, &w[i].op[k]);
        }
        for (k = 0; k < CMD_COUNT; k++) {
            slot_add(&r->cmd[k], &w[i].cmd[k]);
            r->calls[k] += w[i].calls[k];
            r->call_errors[k] += w[i].call_errors[k];
        }
        r->connect_failed += w[i].connect_failed;
        r->conn_lost += w[i].conn_lost;
        if (w[i].last_done_ns > t_end)
            t_end = w[i].last_done_ns;
    }
    r->server_cpu = -1;
    if (t_measure) {
        double scpu1 = read_server_cpu(ctl, &r->info_calls);
        r->cpu = cpu_seconds() - cpu0;
        r->window = secs(bench_now_ns() - t_measure);
        r->elapsed = t_end > t_measure ? secs(t_end - t_measure) : 0;
        if (scpu0 >= 0 && scpu1 >= scpu0)
            r->server_cpu = scpu1 - scpu0;
    }
    r->ops = r->all.lat.count;
    r->errors = r->all.errors;
    r->sent = r->all.bytes_sent;
    r->recv = r->all.bytes_recv;
    if (read_memory(ctl, &r->after, &r->info_calls) < 0)
        fprintf(stderr, "scratchpad-bench: INFO memory after the run failed: %s\n", ctl->errstr);

    print_report(&o, r);
    rc = 0;
    if (o.json && write_json(&o, r) < 0)
        rc = 1;
    if (!t_measure || r->ops == 0) {
        fprintf(stderr, "scratchpad-bench: nothing was measured\n");
        rc = 1;
    }
    if (r->connect_failed || r->conn_lost)
        rc = 1;
done:
    if (ctl)
        redisFree(ctl);
    free(w);
    free(r);
    corpus_free(&cp);
    return rc;
}
