/* bench.h -- what scratchpad_bench.c (options, threads, phases, report),
 * agent.c (an agent's life and accounting) and ops.c (its operations) share.
 *
 * Vocabulary. A *logical operation* (bench_op) is what an agent means to do:
 * "grep the tool output", "edit the plan". It is expressed as one or more *wire
 * commands* (bench_cmd) depending on the target: SP.GREP on scratchpad, GET plus
 * a search in the client on Redis. Both are measured: operations (same names on
 * both targets, so they compare) and commands (what the server sees, so the
 * counts can be checked against INFO commandstats).
 *
 * Threads. Each worker thread owns an event base, its agents and its statistics;
 * nothing in a worker is touched by another thread while it runs, except the
 * `live` counters (atomics, read by the main thread for the progress line) and
 * the shared run state (bench_shared, atomics). */
#ifndef BENCH_H
#define BENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "loggen.h"

enum bench_op {
    OP_LIST,          /* start of a session: list the namespace */
    OP_PLAN_WRITE,    /* write or rewrite the plan (1-2 KB) */
    OP_PLAN_READ,     /* read the whole plan */
    OP_PLAN_EDIT,     /* tick one step of the plan */
    OP_FINDING_WRITE, /* record a finding (4-16 KB) */
    OP_FINDING_READ,  /* read a finding back whole */
    OP_OFFLOAD,       /* park a tool output (30 KB - 1 MB) */
    OP_PEEK,          /* preview of a tool output */
    OP_HEAD,          /* first `window` characters */
    OP_TAIL,          /* last `window` characters */
    OP_RANGE,         /* `window` characters at a random place */
    OP_LINES,         /* `lines` lines at a random place */
    OP_GREP,          /* lines matching a regular expression */
    OP_APPEND,        /* a line or a few to the running log */
    OP_DEL,           /* delete the oldest tool output (or the log) */
    OP_KV_WRITE,      /* small-kv: write a small entry */
    OP_KV_READ,       /* small-kv: read a small entry */
    OP_LEASE_WRITE,   /* agent-coord: take the lease, write a finding fenced, release */
    OP_CHANGES,       /* agent-coord: read the change feed since the last change seen */
    OP_SNAPSHOT,      /* agent-coord: snapshot the namespace (replacing the last one) */
    OP_DIFF,          /* agent-coord: what changed since the snapshot */
    OP_COUNT
};

enum bench_cmd {
    CMD_SP_WRITE,
    CMD_SP_APPEND,
    CMD_SP_READ,
    CMD_SP_RANGE,
    CMD_SP_GREP,
    CMD_SP_LIST,
    CMD_SP_EDIT,
    CMD_SP_DEL,
    CMD_SP_PEEK,
    CMD_SP_OFFLOAD,
    CMD_SET,
    CMD_GET,
    CMD_GETRANGE,
    CMD_APPEND,
    CMD_SCAN,
    CMD_DEL,
    CMD_SP_LEASE,
    CMD_SP_RELEASE,
    CMD_SP_CHANGES,
    CMD_SP_SNAPSHOT,
    CMD_SP_DROPSNAPSHOT,
    CMD_SP_DIFF,
    CMD_COUNT
};

/* Lower-case names: ops as in --mix and the report, commands as INFO
 * commandstats spells them (cmdstat_<name>). */
extern const char *const bench_op_names[OP_COUNT];
extern const char *const bench_cmd_names[CMD_COUNT];

typedef struct size_range {
    size_t min, max; /* bytes, inclusive */
} size_range;

#define KEEP_MAX 64 /* bound of --keep-tools and --keep-findings */
#define GREP_PATTERNS_MAX 16

typedef struct bench_opts {
    const char *host;
    int port;
    int agents, threads;
    double duration;       /* s of measurement, when requests is 0 */
    uint64_t requests;     /* measured operations, 0 = by duration */
    double warmup;         /* s, not measured */
    uint64_t seed;
    double think_ms;       /* mean think time between operations, 0 = none */
    const char *workload;  /* preset name */
    unsigned weight[OP_COUNT]; /* relative frequency of each op (OP_LIST unused) */
    size_range plan, finding, tool, append, kv;
    unsigned kv_keys;      /* small entries per agent */
    unsigned window;       /* characters per HEAD/TAIL/RANGE */
    unsigned lines;        /* lines per LINES read */
    unsigned grep_max;     /* MAX of SP.GREP */
    unsigned keep_tools, keep_findings;
    unsigned session_ops;  /* operations per session (LIST at each start), 0 = no LIST */
    size_t log_max;        /* bytes; the log is deleted and restarted past this */
    size_t offload_threshold; /* bytes; smaller tool outputs stay inline */
    const char *prefix;    /* namespaces are <prefix>:<agent number> */
    int redis;             /* 1: --baseline redis */
    const char *json;      /* --json file, or NULL */
    int quiet;
} bench_opts;

/* The run, shared by every thread. */
enum { PHASE_SETUP, PHASE_WARMUP, PHASE_MEASURE, PHASE_DRAIN };

typedef struct bench_shared {
    _Atomic int phase;
    _Atomic uint64_t measure_started; /* operations started in PHASE_MEASURE */
    _Atomic int setup_done;           /* agents past their setup (or failed) */
    const bench_opts *o;
    const corpus *corpus;
} bench_shared;

/* Statistics of one operation or command. */
typedef struct stat_slot {
    hist lat;            /* ns, from first send to last reply */
    uint64_t errors;     /* error replies, or a client-side failure of the op */
    uint64_t bytes_sent; /* RESP bytes of the requests */
    uint64_t bytes_recv; /* RESP bytes of the replies */
} stat_slot;

typedef struct agent agent;

typedef struct worker {
    int id;
    bench_shared *sh;
    const bench_opts *o;
    struct event_base *base;
    struct event *tick;    /* periodic: sees the phase change */
    agent **agents;
    int nagents;
    int active;            /* agents that may still start operations */
    pthread_t thread;

    /* measured phase only */
    stat_slot op[OP_COUNT];
    stat_slot cmd[CMD_COUNT];
    uint64_t last_done_ns; /* completion of the last measured operation */

    /* every phase: what the server saw from this thread */
    uint64_t calls[CMD_COUNT], call_errors[CMD_COUNT];
    uint64_t connect_failed, conn_lost;
    unsigned errors_shown; /* error replies printed, at most a few */

    /* read by the main thread while running */
    _Atomic uint64_t live_ops, live_sent, live_recv, live_errors;
    _Atomic int finished;

    /* scratch, reused by every agent of the thread (commands are copied by
     * hiredis as soon as they are queued) */
    char *fmt;
    size_t fmt_len, fmt_cap; /* bytes of the command being formatted, allocated */
    char *text;
    size_t text_cap;
    void *grep_code[GREP_PATTERNS_MAX]; /* pcre2_code *, the client-side grep of --baseline redis */
    void *grep_match;      /* pcre2_match_data * */
} worker;

/* Monotonic clock in ns. */
uint64_t bench_now_ns(void);

/* agent.c: create the worker's agents (numbers first, first + step, ...) and
 * start connecting them on w->base. 0, or -1 when not one could be created. */
int agents_create(worker *w, int first, int step, int count);

/* agent.c: the phase may have changed: idle agents that must stop, stop. */
void agents_tick(worker *w);

/* agent.c: close every connection and free the agents (after the loop ended). */
void agents_destroy(worker *w);

#endif
