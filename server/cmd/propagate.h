/* propagate.h -- effects: what a write did, handed to every sink that keeps or
 * ships writes (the append-only log now, replicas later).
 *
 * Why: a write command must not know where its effect goes. It says what it
 * did, once, through the functions below; the sinks registered here (the log
 * registers itself while it is open, aof/persist.c) receive it. So a new sink
 * is one registration, not a call added to every command family, and
 * `make check-deps` keeps the families away from the log's headers.
 *
 * An effect is a command to replay in a database, as docs/aof.md describes:
 * prop_begin(db), its arguments, prop_end(). Effects opened inside an open
 * effect nest (EXEC wraps its commands' effects in one record). Commands whose
 * effect is the command as typed do nothing: cmd_call propagates their
 * arguments when they changed the dataset. Commands flagged CMD_OWN_EFFECT
 * propagate what they did themselves, only when prop_on is set.
 *
 * The sinks also answer three questions the command layer asks: whether
 * writes must be refused (-MISCONF), the position a reply must wait for
 * (prop_mark), and, before a write runs, which keys it is about to change
 * (the incremental rewrite writes a key's state before its first change).
 *
 * Nothing here allocates per effect: arguments go straight to the sinks. */
#ifndef SP_PROPAGATE_H
#define SP_PROPAGATE_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

struct lzval;

/* A sink. Every function may be NULL except begin, arg, arg_lzval and end. */
typedef struct prop_sink {
    const char *name;
    void (*begin)(int dbid);                    /* open an effect in database dbid */
    void (*arg)(const void *p, size_t n);       /* an argument, bytes */
    void (*arg_lzval)(const struct lzval *v);   /* an argument, a compressed value's stored chunks */
    void (*end)(void);                          /* close the effect */
    uint64_t (*mark)(void);                     /* the position after everything received so far:
                                                   replies wait until the sink has it (net.h acked) */
    const char *(*refusing)(void);              /* NULL, or why writes are refused now */
    /* Before a write command runs, while *wants_keys is non-zero: each key it
     * names (keyed), or, for a write without keys (FLUSHDB, FLUSHALL, SWAPDB),
     * its name (keyless). */
    const int *wants_keys;
    void (*keyed)(int dbid, const char *key, size_t klen);
    void (*keyless)(const char *cmdname);
} prop_sink;

/* Non-zero while at least one sink is attached: effects are wanted. */
extern int prop_on;
/* Renewed at every attach and detach (EXEC closes its record only in the
 * sinks it opened it in). */
extern unsigned prop_gen;

/* Attach s (at most 4 sinks) / detach it. Attaching a sink already attached
 * only renews prop_gen: a sink that starts a new record stream (the log's
 * writer changed) says so by attaching again. */
void prop_attach(const prop_sink *s);
void prop_detach(const prop_sink *s);

void prop_begin(int dbid);
void prop_bytes(const void *p, size_t n);
void prop_str(const char *s);
void prop_ll(long long v);
static inline void prop_arg(const sarg *a) { prop_bytes(a->p, a->len); }
void prop_lzval(const struct lzval *v);
void prop_end(void);

/* The whole effect "DEL key" in database dbid (an expired key). */
void prop_del(int dbid, const char *key, size_t klen);
/* The whole effect argv[0..argc) in database dbid (a command as typed). */
void prop_argv(int dbid, int argc, const sarg *argv);

/* The functions above as an effect writer (keyspace/type.h), for the types'
 * own effects (type_effects). */
struct effect_out;
extern const struct effect_out prop_effects;

/* State that is not in keys (the libraries of functions, script/): written
 * at the start of every log rewrite's base through an effect writer, by the
 * module that keeps it; NULL when there is none. */
extern void (*prop_rewrite_state)(const struct effect_out *o);

/* The largest position a reply depends on now (0 when no sink has one). */
uint64_t prop_mark(void);
/* NULL if writes are accepted, else the first sink's reason. */
const char *prop_refusing(void);
/* Non-zero when a sink wants to hear of the keys a write is about to change. */
int prop_wants_keys(void);
/* Tell the sinks that want it: key in dbid is about to change / a write
 * without keys (cmdname) is about to run. */
void prop_key(int dbid, const char *key, size_t klen);
void prop_keyless(const char *cmdname);


/* ---- the log's administration, as the commands see it ----
 * BGREWRITEAOF and INFO persistence ask the log through these, set by the log
 * at start-up (aof/persist.c), so that no command family includes it. */
typedef struct persist_info {
    int enabled;
    int rewrite_in_progress;
    const char *rewrite_mode;      /* "incremental" or "fork" */
    long long rewrite_scanned;     /* keys the running or last incremental rewrite wrote by its scan */
    long long rewrite_touched;     /* ... and before a write command changed them */
    long long last_rewrite_time_sec, current_rewrite_time_sec;
    int last_rewrite_ok;
    long long rewrites, rewrite_failures_in_a_row;
    int last_write_ok;
    const char *last_write_error;  /* "" if none */
    long long last_cow_size;       /* bytes, copied on write by the last child (peak, sampled each second) */
    long long current_cow_size;    /* bytes, of the running child */
    long long current_size, base_size; /* bytes of log */
    long long buffer_length;       /* bytes waiting to be written */
    int fsync_in_progress;
    long long delayed_fsync;
    long long fork_usec;           /* the last fork's duration */
    long long load_records, load_bytes, load_ms, load_truncated_bytes;
    long long load_bad_values;    /* values left out by aof-load-bad-values skip */
    long long load_bad_effects;   /* later effects on them, left out too */
    const char *fsync_policy;
    const char *dir;
} persist_info;
typedef struct prop_log_admin {
    int (*bgrewrite)(const char **err);  /* 0, or -1 with *err the error reply (without '-') */
    void (*get_info)(persist_info *pi);
    size_t (*buffer_bytes)(void);        /* bytes allocated for the log's buffer (INFO mem_aof_buffer) */
} prop_log_admin;
extern prop_log_admin prop_admin;

#endif
