/* sptype.c -- the scratchpad as a type of the keyspace (see sptype.h). */
#include "types/sp/sptype.h"

#include "core/lz/lzval.h"
#include "core/mem.h"
#include "keyspace/type.h"
#include "keyspace/vcomp.h"

sp_params sp_server_params(void)
{
    sp_params p;
    p.compress_threshold = vc_threshold;
    p.compress_chunk = vc_chunk;
    p.compress_accel = vc_write_accel();
    p.cache = vc_lzcache();
    p.idle = vc_lzidle();
    return p;
}

/* ---- the scratchpad as a keyspace type ---- */

static void type_free_value(dbent *e)
{
    sp_free(dbent_ptr(e));
}

static void *type_dup_value(const dbent *e)
{
    return sp_dup(dbent_ptr(e));
}

static size_t type_stored(const dbent *e)
{
    return sp_stored(dbent_ptr(e));
}

static size_t type_logical(const dbent *e)
{
    return ((const sp *)dbent_ptr(e))->bytes;
}

static const char *type_encoding(const dbent *e)
{
    (void)e;
    return "sortedarray";
}

static void type_visit_lz(const dbent *e, void (*fn)(lzval *v, void *ctx), void *ctx)
{
    const sp *s = dbent_ptr(e);
    size_t i;

    for (i = 0; i < s->n; i++)
        if (s->e[i]->enc == SP_ENC_LZ4)
            fn(s->e[i]->lz, ctx);
}

static uint32_t *type_subidx(void *p)
{
    return &((sp *)p)->subidx;
}

static int64_t type_subexpire(db *d, dbent *e, int64_t now)
{
    sp *s = dbent_ptr(e);

    if (type_effects_wanted()) {
        /* The entries that expire are one SP.DEL. */
        const effect_out *o = type_effects;
        size_t i;
        int any = 0;
        for (i = 0; i < s->n; i++) {
            const sp_entry *x = s->e[i];
            if (x->expire >= 0 && x->expire <= now) {
                if (!any) {
                    eo_begin(o, d->id);
                    eo_str(o, "SP.DEL");
                    eo_bytes(o, dbent_key(e), dbent_klen(e));
                    any = 1;
                }
                eo_bytes(o, x->name, x->nlen);
            }
        }
        if (any)
            eo_end(o);
    }
    sp_expire_due(s, now);
    if (s->n == 0)
        return -2;
    return sp_next_expire(s);
}

static const type_def scratchpad_type = {
    .name = "scratchpad",
    .encoding = type_encoding,
    .free_value = type_free_value,
    .dup_value = type_dup_value,
    .stored = type_stored,
    .logical = type_logical,
    .visit_lz = type_visit_lz,
    .subidx = type_subidx,
    .subexpire = type_subexpire,
};

void sp_type_register(void)
{
    type_register(OBJ_SCRATCHPAD, &scratchpad_type);
}

/* ---- keys ---- */

sp *sp_key_create(db *d, const char *key, size_t klen, dbent **out)
{
    sp *s = sp_new();
    dbent *e = db_add(d, key, klen, OBJ_SCRATCHPAD, sizeof(void *));
    e->enc = ENC_PTR;
    dbent_set_ptr(e, s);
    *out = e;
    return s;
}

struct lzval *sp_debug_lzval(dbent *ke, const char *name, size_t nlen)
{
    sp_entry *e = sp_find(dbent_ptr(ke), name, nlen);
    return e && e->enc == SP_ENC_LZ4 ? e->lz : NULL;
}
