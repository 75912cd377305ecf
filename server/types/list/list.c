/* list.c -- the list type over the quicklist (see list.h).
 *
 * The rewrite writes a list as RPUSH records of at most LIST_REWRITE_BATCH
 * elements or about LIST_REWRITE_BYTES bytes each (then PEXPIREAT for its
 * expiry), pausing between records, so a list of millions is written in
 * bounded pieces and replayed by the RPUSH command itself: the type has no
 * internal effect of its own. */
#include "types/list/list.h"

#include <string.h>

#include "core/mem.h"
#include "keyspace/type.h"

#define LIST_REWRITE_BATCH 256
#define LIST_REWRITE_BYTES (64 * 1024)

int list_fill = -2;
int list_compress_depth = 0;

dbent *list_create(db *d, const char *key, size_t klen)
{
    dbent *e = db_add(d, key, klen, OBJ_LIST, sizeof(void *));
    dbent_set_ptr(e, ql_new(list_fill));
    ql_set_compress(list_ql(e), list_compress_depth);
    e->enc = ENC_PTR;
    return e;
}

int list_drop_if_empty(db *d, dbent *e)
{
    if (ql_len(list_ql(e)) > 0)
        return 0;
    db_delete_entry(d, e);
    return 1;
}

/* ---- the list as a keyspace type ---- */

static const char *type_encoding(const dbent *e)
{
    (void)e;
    return "quicklist";
}

static void type_free_value(dbent *e)
{
    ql_free(list_ql(e));
}

static size_t type_free_effort(const dbent *e)
{
    return list_ql(e)->nodes;
}

static int type_free_some(void *v, uint8_t enc, uint64_t *cursor, size_t max)
{
    (void)enc;
    (void)cursor;
    return ql_free_some(v, max);
}

static void *type_dup_value(const dbent *e)
{
    return ql_dup(list_ql(e));
}

static size_t type_stored(const dbent *e)
{
    return ql_mem(list_ql(e));
}

static size_t type_logical(const dbent *e)
{
    return list_ql(e)->bytes;
}

/* RPUSH key e1 e2 ... in batches, then PEXPIREAT key expire. */
static int type_rewrite(const effect_out *o, int dbid, const dbent *e, int64_t expire, int64_t now, char *why,
                        size_t whylen)
{
    const quicklist *q = list_ql(e);
    ql_pos pos;
    int more;

    (void)now;
    (void)why;
    (void)whylen;
    more = ql_at(q, 0, &pos) == 0;
    while (more) {
        size_t n = 0, bytes = 0;
        eo_begin(o, dbid);
        eo_str(o, "RPUSH");
        eo_bytes(o, dbent_key(e), dbent_klen(e));
        while (more && n < LIST_REWRITE_BATCH && bytes < LIST_REWRITE_BYTES) {
            const char *p;
            size_t len;
            ql_get(&pos, &p, &len);
            eo_bytes(o, p, len);
            n++;
            bytes += len;
            /* eo_bytes copied the element; the list changes only in how its
             * nodes are stored (they are compressed back as they were). */
            more = ql_next_settle((quicklist *)q, &pos) == 0;
        }
        eo_end(o);
        if (more)
            eo_pause(o);
    }
    if (expire >= 0) {
        eo_begin(o, dbid);
        eo_str(o, "PEXPIREAT");
        eo_bytes(o, dbent_key(e), dbent_klen(e));
        eo_ll(o, expire);
        eo_end(o);
    }
    return 0;
}

static const type_effect list_effects[] = {
    {NULL, NULL},
};

static const type_def list_type = {
    .name = "list",
    .encoding = type_encoding,
    .free_value = type_free_value,
    .free_effort = type_free_effort,
    .free_some = type_free_some,
    .dup_value = type_dup_value,
    .stored = type_stored,
    .logical = type_logical,
    .rewrite = type_rewrite,
    .effects = list_effects,
};

void list_type_register(void)
{
    type_register(OBJ_LIST, &list_type);
}
