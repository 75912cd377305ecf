/* agent.h -- one simulated agent, shared by agent.c (its connection, its life,
 * the accounting of its commands) and ops.c (what its operations send on each
 * target). Internal to scratchpad-bench.
 *
 * An agent has exactly one logical operation in flight, made of at most
 * PEND_MAX commands in flight at once; their replies come back in order, so the
 * pending commands are a ring. The model fields describe what the agent has
 * stored (see ops.c); they change when an operation starts, never because of a
 * reply (except the name SP.OFFLOAD generates), so that a seed gives the same
 * operations on both targets. */
#ifndef BENCH_AGENT_H
#define BENCH_AGENT_H

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "bench.h"

enum { AG_CONNECTING, AG_BUSY, AG_THINKING, AG_DONE };

#define PEND_MAX 4 /* commands of one operation in flight at once */
#define SETUP_MAX 8

typedef struct tool_ref {
    uint32_t num;   /* the entry is tool-<num> */
    uint32_t lines; /* lines of text */
    size_t size;    /* bytes (= characters: the text is ASCII) */
} tool_ref;

typedef struct pending {
    uint64_t t0;   /* ns, when queued */
    uint64_t sent; /* bytes of the request */
    int cmd;       /* bench_cmd */
} pending;

struct agent {
    worker *w;
    redisAsyncContext *ac; /* NULL once closed */
    unsigned id;
    rng r;
    loggen lg;
    char ns[64];           /* the namespace: <prefix>:<id> */
    size_t nslen;
    int state;             /* AG_* */
    struct event *think;

    /* setup: operations run before the mix, so that reads have targets */
    int setup[SETUP_MAX];
    int nsetup, setup_pos;
    int setup_counted;     /* counted in bench_shared.setup_done */
    unsigned session_left; /* operations left in this session */

    /* the model of the namespace */
    int has_plan, plan_steps;
    uint64_t plan_done;    /* bit k-1: step k ticked */
    unsigned findings;     /* findings written; the next goes to slot findings % keep */
    tool_ref tools[KEEP_MAX]; /* oldest first */
    int ntools;
    uint32_t tool_seq;     /* numbers given to tool outputs on Redis */
    size_t log_size;       /* bytes, 0 = no log */

    /* the operation in flight */
    int op, measured, err, is_setup;
    uint64_t t0, sent, recv; /* ns at start; bytes of all its requests and replies */
    pending pend[PEND_MAX];
    int phead, npend;
    char name[64];         /* the entry it is about */
    size_t namelen;
    int tidx;              /* index in tools[] of the entry read */
    size_t a1, a2;         /* window start and end, or first and last line */
    int pat;               /* grep pattern, index in loggen_patterns */
    int edit_k;            /* the plan step being ticked */
    int del_log;           /* OP_DEL: the log rather than the oldest tool output */

    /* agent-coord */
    int lease_step;     /* OP_LEASE_WRITE: 0 leasing, 1 writing, 2 releasing */
    long long token;    /* the fencing token of the lease held */
    long long feed_seq; /* the last change of the feed seen (SP.CHANGES SINCE) */
    int has_snap;       /* a snapshot "cycle" exists */
};

/* agent.c: queue the command formatted in a->w->fmt as one of the operation's
 * commands (cmd: bench_cmd, for the accounting). On failure (the connection is
 * going) sets a->err and queues nothing. */
void agent_send(agent *a, int cmd);

/* ops.c: the operation the agent wants next: the session's LIST when a session
 * starts, else one drawn from the mix. */
int ops_next(agent *a);

/* ops.c: start operation `op` (after turning it into one that makes sense in the
 * agent's state; a->op is the one run): queues its first command(s). */
void ops_begin(agent *a, int op);

/* ops.c: a reply to one of the operation's commands; may queue more. The
 * operation is over when nothing is pending after this returns. */
void ops_reply(agent *a, const redisReply *rep);

/* ops.c: the reply was an error: undo what the model assumed. */
void ops_failed(agent *a);

/* ops.c: fill a->setup from the mix. */
void ops_plan_setup(agent *a);

/* ops.c: per-thread resources of the operations (the client-side grep of
 * --baseline redis), and their release with the scratch buffers. */
void ops_worker_init(worker *w);
void ops_worker_free(worker *w);

#endif
