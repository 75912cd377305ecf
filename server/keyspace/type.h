/* type.h -- the type table: one row per type of value the keyspace holds.
 *
 * Why: the keyspace, the generic command families (TYPE, OBJECT, COPY, MEMORY
 * USAGE), the server's accounting and the log all handle values of every type,
 * and none of them should know what a type is made of. Each type describes
 * itself in one row (its folder in server/types/ registers it at start-up), and
 * they ask the row: a new type adds a row, and touches no file outside its own
 * folder but the registration (docs/architecture.md, "How to add a type").
 *
 * A row's functions take the entry (dbent) whose value they describe. The
 * value's bytes are the type's: inline in the entry (ENC_INLINE), or out of line
 * behind dbent_ptr (any other encoding). Every function of a row must be set
 * unless its comment says NULL is allowed.
 *
 * Effects a type produces on its own, outside a command (entries of a value
 * expiring), go to type_effects, which the server points at its propagation
 * layer at start-up; type_effects_on says whether anyone listens. */
#ifndef SP_TYPE_H
#define SP_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "keyspace/db.h"

struct lzval;

/* Where effects go: an effect is begin(db), its arguments, end (docs/aof.md). */
typedef struct effect_out {
    void (*begin)(void *ctx, int dbid);
    void (*arg)(void *ctx, const void *p, size_t n);
    void (*arg_lzval)(void *ctx, const struct lzval *v); /* a compressed value's stored chunks */
    void (*end)(void *ctx);
    void *ctx;
    /* Between two effects of one key: a place to write out what is buffered
     * (a huge scratchpad need not sit whole in a rewrite's buffer). May be NULL. */
    void (*pause)(void *ctx);
} effect_out;

static inline void eo_begin(const effect_out *o, int dbid) { o->begin(o->ctx, dbid); }
static inline void eo_bytes(const effect_out *o, const void *p, size_t n) { o->arg(o->ctx, p, n); }
static inline void eo_lzval(const effect_out *o, const struct lzval *v) { o->arg_lzval(o->ctx, v); }
static inline void eo_end(const effect_out *o) { o->end(o->ctx); }
static inline void eo_pause(const effect_out *o)
{
    if (o->pause)
        o->pause(o->ctx);
}
/* A NUL-terminated string / the decimal form of v, as one argument. */
void eo_str(const effect_out *o, const char *s);
void eo_ll(const effect_out *o, long long v);

/* ---- replaying a type's own effects (the log's load) ----
 *
 * A type's rewrite writes its keys as internal effects of its own (_SETSTR,
 * _SPENTRY, ...), which only the log's replay accepts; the type applies them
 * (its row's `effects`). An argument is bytes, or a compressed value in its
 * stored chunks, which the type takes with r->take_lzval. The replay keeps the
 * policy for values that do not decode (aof-load-bad-values): the type reports
 * one with r->bad_value and asks r->left_out whether an earlier one left out the
 * key (part NULL) or a part of it, as effect_replay says. */
typedef struct effect_arg {
    const char *p;          /* bytes (not NUL-terminated); NULL for a compressed value */
    size_t len;             /* bytes */
    int lz;                 /* 1: a compressed value (take it with take_lzval) */
    const void *src;        /* the replay's own description of it */
} effect_arg;

typedef struct effect_replay effect_replay;
struct effect_replay {
    /* The compressed value argument a holds, rebuilt and verified (the caller
     * owns it), or NULL when it does not decode. */
    struct lzval *(*take_lzval)(effect_replay *r, const effect_arg *a);
    /* A value that does not decode at key (and part, NULL for the whole value)
     * of database dbid: -1 with why set (the load must stop), or 0 (left out:
     * the effect is done). The type has removed what the key held for it. */
    int (*bad_value)(effect_replay *r, int dbid, const effect_arg *key, const effect_arg *part, char *why,
                     size_t whylen);
    /* 1 if key (and part) was left out by an earlier bad value; with forget,
     * it is back (the effect gives it a whole new state). */
    int (*left_out)(effect_replay *r, int dbid, const effect_arg *key, const effect_arg *part, int forget);
    /* An effect (name) on a left-out key / part, left out too: logged, counted. */
    void (*skipped)(effect_replay *r, int dbid, const effect_arg *name, const effect_arg *key,
                    const effect_arg *part);
    void *ctx;
};

/* One internal effect of a type: its name and how to apply it in d. Returns 0,
 * or -1 with why set (a malformed effect: the load stops). */
typedef struct type_effect {
    const char *name;
    int (*apply)(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen);
} type_effect;

/* The checksums of every stored chunk of v (lzval_chunk_verify): 0, or -1 with
 * why naming the key of database dbid, its part (NULL for a whole value) and
 * the chunk. A rewrite must not replace a log holding a value as it was written
 * with one holding bytes damaged since (a memory error, a bug): they would pass
 * the records' CRCs and fail only at the next load. ~20 GB/s of stored bytes. */
int type_verify_lz(const struct lzval *v, int dbid, const dbent *e, const char *part, size_t plen, char *why,
                   size_t whylen);

/* A value seen as a set of elements (bytes), for the commands of another type
 * that take it as an input: Redis's ZUNION, ZINTER, ZDIFF, ZINTERCARD and the
 * STORE forms take a plain set as a sorted set whose scores are all 1. */
typedef struct type_elems {
    uint64_t (*count)(const dbent *e);
    /* 1 if e holds the element (p, n), else 0. */
    int (*has)(const dbent *e, const char *p, size_t n);
    /* Call fn on the elements of e (in the type's order) until it returns
     * non-zero; e must not change meanwhile. */
    void (*visit)(const dbent *e, int (*fn)(void *ctx, const char *p, size_t n), void *ctx);
} type_elems;

typedef struct type_def {
    const char *name;                            /* TYPE's reply: "string", "scratchpad" */
    /* OBJECT ENCODING's reply for e. */
    const char *(*encoding)(const dbent *e);
    /* Release what e holds out of line (called only when e->enc != ENC_INLINE). */
    void (*free_value)(dbent *e);
    /* Large values are freed in bounded steps from the event loop
     * (keyspace/lazyfree.h). free_effort: about the allocations freeing e's
     * out-of-line value takes (its elements, or 1 for one buffer). free_some:
     * free up to max (>= 1) of them from value v of encoding enc, detached from
     * its entry, resuming at *cursor (0 on the first call): 1 when v is wholly
     * freed, else 0. NULL, NULL: this type's values are freed at once. */
    size_t (*free_effort)(const dbent *e);
    int (*free_some)(void *v, uint8_t enc, uint64_t *cursor, size_t max);
    /* An independent copy of e's out-of-line value (COPY; called only when
     * e->enc != ENC_INLINE); the new entry gets it with e's enc and vlen. NULL:
     * values of this type cannot be copied. */
    void *(*dup_value)(const dbent *e);
    /* Bytes of memory e's out-of-line value holds (0 for an inline one). */
    size_t (*stored)(const dbent *e);
    /* Bytes of e's value as clients see it (INFO's dataset figures). */
    size_t (*logical)(const dbent *e);
    /* Call fn on every compressed value e holds (the background dictionary,
     * DEBUG LZ4-CORRUPT's lookups). NULL: the type holds none. */
    void (*visit_lz)(const dbent *e, void (*fn)(struct lzval *v, void *ctx), void *ctx);
    /* e now lives under a new key or in a new database (RENAME, MOVE, COPY).
     * NULL: nothing to do. */
    void (*moved)(db *d, dbent *e);
    /* Per-element expiry (db.h, "Sub-expiry"): where the value keeps its index
     * in the database's second heap, and how to expire the parts due by now.
     * NULL, NULL: the type's values have no parts with lifetimes of their own. */
    uint32_t *(*subidx)(void *p);
    int64_t (*subexpire)(db *d, dbent *e, int64_t now);
    /* The effects that recreate key e of database dbid in a new log base (a
     * replica's full sync will reuse them), its expiry `expire` (ms since the
     * epoch, -1: none) included, leaving out parts expired by `now`. Every
     * compressed value is verified first (type_verify_lz): -1 with why set and
     * nothing written if one fails; else 0. */
    int (*rewrite)(const effect_out *o, int dbid, const dbent *e, int64_t expire, int64_t now, char *why,
                   size_t whylen);
    /* The internal effects rewrite writes, which the replay gives back to the
     * type (ended by a NULL name). */
    const type_effect *effects;
    /* DEBUG LZ4-CORRUPT: the compressed value of part (NULL: the whole value)
     * of e, compressing one that waits for it first: 0 with *out (NULL: not
     * stored compressed), or -1 if the type has no such form (a syntax error). */
    int (*debug_lz)(dbent *e, const char *part, size_t plen, struct lzval **out);
    /* e's elements as a set's (type_elems). NULL: a value of this type is no
     * such input (the commands reply WRONGTYPE). */
    const type_elems *elems;
} type_def;

/* The row of every type, indexed by OBJ_*; NULL until registered. */
extern const type_def *type_table[OBJ_NTYPES];
/* Register t as type number type (once, at start-up). */
void type_register(int type, const type_def *t);
static inline const type_def *type_of(const dbent *e) { return type_table[e->type]; }

/* Effects of a type outside a command: set at start-up (server.c). */
extern const effect_out *type_effects;
extern const int *type_effects_on;
static inline int type_effects_wanted(void) { return type_effects && type_effects_on && *type_effects_on; }

#endif
