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
} effect_out;

static inline void eo_begin(const effect_out *o, int dbid) { o->begin(o->ctx, dbid); }
static inline void eo_bytes(const effect_out *o, const void *p, size_t n) { o->arg(o->ctx, p, n); }
static inline void eo_lzval(const effect_out *o, const struct lzval *v) { o->arg_lzval(o->ctx, v); }
static inline void eo_end(const effect_out *o) { o->end(o->ctx); }
/* A NUL-terminated string / the decimal form of v, as one argument. */
void eo_str(const effect_out *o, const char *s);
void eo_ll(const effect_out *o, long long v);

typedef struct type_def {
    const char *name;                            /* TYPE's reply: "string", "scratchpad" */
    /* OBJECT ENCODING's reply for e. */
    const char *(*encoding)(const dbent *e);
    /* Release what e holds out of line (called only when e->enc != ENC_INLINE). */
    void (*free_value)(dbent *e);
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
