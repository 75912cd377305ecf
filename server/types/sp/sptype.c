/* sptype.c -- the scratchpad as a type of the keyspace (see sptype.h). */
#include "types/sp/sptype.h"

#include <stdio.h>
#include <string.h>

#include "core/lz/lzval.h"
#include "core/sp/spmeta.h"
#include "core/util.h"
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
    const effect_out *o = type_effects_wanted() ? type_effects : NULL;
    int changed = 0;
    size_t i;

    if (s->nexpiring && s->min_expire <= now) {
        /* The entries that expire are one SP.DEL, then one change each, all in
         * one log record (an empty one writes nothing). */
        int any = 0;
        if (o)
            eo_begin(o, d->id);
        for (i = 0; o && i < s->n; i++) {
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
        for (i = 0; i < s->n; i++) {
            const sp_entry *x = s->e[i];
            if (x->expire >= 0 && x->expire <= now) {
                sp_change_note(o, d->id, dbent_key(e), dbent_klen(e), s, SPCO_OP_EXPIRE, x->name, x->nlen, NULL, NULL,
                               0, now);
                sp_hist_drop(s, x->name, x->nlen);
            }
        }
        if (o)
            eo_end(o);
    }
    changed = sp_expire_due(s, now) > 0;
    if (s->co && spco_lease_expire_due(s->co, now) > 0)
        changed = 1;
    if (changed && db_on_changed)
        db_on_changed(d, dbent_key(e), dbent_klen(e)); /* lease waiters and feed readers */
    if (s->n == 0 && (!s->co || s->co->nleases == 0) && s->nsnaps == 0)
        return -2;
    return sp_next_due(s);
}

/* ---- leases and the change feed ---- */

long long sp_changes_max_len = 10000;
long long sp_history_depth = 1;

void sp_history_note(sp *s, sp_entry *e, const char *name, size_t nlen, int op, int64_t time, const char *client,
                     size_t clen)
{
    if (!e || (op == SPCO_OP_APPEND && e->enc == SP_ENC_LZ4))
        sp_hist_drop(s, name, nlen);
    else
        sp_hist_note(s, e, time, op, client, clen, (size_t)sp_history_depth);
}

/* The highest token or change number given out or loaded, any scratchpad. */
static uint64_t counter_floor;

static void counter_seen(uint64_t v)
{
    if (v > counter_floor)
        counter_floor = v;
}

spco *sp_co(sp *s)
{
    if (!s->co) {
        uint64_t base = db_now > 0 ? (uint64_t)db_now * 1000 : 0;
        s->co = spco_new(base > counter_floor ? base : counter_floor);
    }
    return s->co;
}

int64_t sp_next_due(sp *s)
{
    int64_t a = sp_next_expire(s), b = s->co ? spco_lease_next_expire(s->co) : -1;
    if (a < 0)
        return b;
    return b >= 0 && b < a ? b : a;
}

int sp_key_settle(db *d, dbent *ke, sp *s)
{
    if (s->n == 0 && (!s->co || s->co->nleases == 0) && s->nsnaps == 0) {
        db_delete_entry(d, ke);
        return 1;
    }
    db_set_subexpire(d, ke, sp_next_due(s));
    return 0;
}

uint64_t sp_change_note(const effect_out *o, int dbid, const char *ns, size_t nslen, sp *s, int op, const char *name,
                        size_t nlen, const sp_entry *e, const char *client, size_t clen, int64_t now)
{
    spco *co = sp_co(s);
    uint64_t ver = e ? e->version : 0, size = e ? e->size : 0;
    uint64_t seq = spco_change_add(co, 0, now, op, name, nlen, ver, size, client, clen, (size_t)sp_changes_max_len);

    counter_seen(seq);
    if (clen > SPCO_CLIENT_MAX)
        clen = SPCO_CLIENT_MAX;
    if (o) {
        eo_begin(o, dbid);
        eo_str(o, "_SPCHANGE");
        eo_bytes(o, ns, nslen);
        eo_ll(o, (long long)seq);
        eo_ll(o, now);
        eo_str(o, spco_op_name(op));
        eo_bytes(o, name, nlen);
        eo_ll(o, (long long)ver);
        eo_ll(o, (long long)size);
        eo_bytes(o, client ? client : "", client ? clen : 0);
        eo_end(o);
    }
    return seq;
}

void sp_counter_seen(uint64_t v)
{
    counter_seen(v);
}

void sp_lease_effect(const effect_out *o, int dbid, const char *ns, size_t nslen, const sp_lease *l)
{
    eo_begin(o, dbid);
    eo_str(o, "_SPLEASE");
    eo_bytes(o, ns, nslen);
    eo_bytes(o, l->data, l->rlen);
    eo_bytes(o, sp_lease_holder(l), l->hlen);
    eo_ll(o, (long long)l->token);
    eo_ll(o, l->expire);
    eo_end(o);
}

/* ---- the log: rewrite and replay ---- */

/* The entry's metadata fields, field value ..., after its state in _SPENTRY,
 * _SPSNAPENTRY and _SPHISTENTRY, and in _SPMETA. */
void sp_meta_effect_args(const effect_out *o, const sp_entry *e)
{
    size_t i;

    for (i = 0; i < spmeta_count(e->meta); i++) {
        spmeta_kv kv;
        spmeta_at(e->meta, i, &kv);
        eo_bytes(o, kv.f, kv.flen);
        eo_bytes(o, kv.v, kv.vlen);
    }
}

/* The metadata of a replayed record: the pairs a[from..argc) (none: NULL in
 * *out). 0, or -1 if they are malformed (odd, compressed, a bad field name,
 * past the bounds). */
static int replay_meta(const effect_arg *a, int from, int argc, spmeta **out)
{
    spmeta_kv set[SPMETA_MAX_FIELDS];
    int i, n = (argc - from) / 2;

    *out = NULL;
    if (argc < from || (argc - from) % 2 || n > SPMETA_MAX_FIELDS)
        return -1;
    for (i = 0; i < n; i++) {
        const effect_arg *f = &a[from + 2 * i], *v = f + 1;
        if (f->lz || v->lz || !spmeta_field_valid(f->p, f->len))
            return -1;
        set[i].f = f->p;
        set[i].flen = f->len;
        set[i].v = v->p;
        set[i].vlen = v->len;
    }
    return spmeta_edit(NULL, 1, set, (size_t)n, NULL, 0, out) == SPMETA_OK ? 0 : -1;
}

/* The _SPENTRY arguments after the command name: the entry's full state
 * (docs/aof.md), its content in the chunks it is stored in, its metadata. */
void sp_entry_effect_args(const effect_out *o, const char *ns, size_t nslen, const sp *s, const sp_entry *e)
{
    eo_bytes(o, ns, nslen);
    eo_bytes(o, e->name, e->nlen);
    eo_ll(o, e->kind);
    eo_ll(o, (long long)e->version);
    eo_ll(o, e->created);
    eo_ll(o, e->updated);
    eo_ll(o, e->expire);
    eo_ll(o, (long long)s->offload_seq);
    if (e->enc == SP_ENC_LZ4)
        eo_lzval(o, e->lz);
    else
        eo_bytes(o, e->raw, e->size);
    sp_meta_effect_args(o, e);
}

/* The entry fields of _SPSNAPENTRY / _SPHISTENTRY after the name, its
 * metadata last. */
static void entry_state_args(const effect_out *o, const sp_entry *e)
{
    eo_ll(o, e->kind);
    eo_ll(o, (long long)e->version);
    eo_ll(o, e->created);
    eo_ll(o, e->updated);
    eo_ll(o, e->expire);
    if (e->enc == SP_ENC_LZ4)
        eo_lzval(o, e->lz);
    else
        eo_bytes(o, e->raw, e->size);
    sp_meta_effect_args(o, e);
}

/* Each snapshot of s as the live entries just written (_SPSNAP, which shares
 * them, so their content is written once), then what differs from them: an
 * _SPSNAPDEL per live entry the snapshot lacks, an _SPSNAPENTRY (the entry's
 * whole state) per entry it holds in another state. Then the version floor of
 * restores (_SPVDEAD). Returns the records that make the key exist. */
static size_t snaps_rewrite(const effect_out *o, int dbid, const dbent *ke, const sp *s, int64_t now)
{
    size_t k, written = 0;

    for (k = 0; k < s->nsnaps; k++) {
        const sp_snap *sn = s->snaps[k];
        size_t i = 0, j = 0;
        eo_begin(o, dbid);
        eo_str(o, "_SPSNAP");
        eo_bytes(o, dbent_key(ke), dbent_klen(ke));
        eo_bytes(o, sn->label, sn->llen);
        eo_ll(o, sn->time);
        eo_end(o);
        written++;
        while (i < s->n || j < sn->n) {
            const sp_entry *a = i < s->n ? s->e[i] : NULL, *b = j < sn->n ? sn->e[j] : NULL;
            int c;
            if (a && a->expire >= 0 && a->expire <= now) {
                i++; /* not written live: not there for _SPSNAP to share */
                continue;
            }
            c = !a ? 1 : !b ? -1 : sp_name_cmp(a->name, a->nlen, b->name, b->nlen);
            if (c == 0 && a == b) {
                i++;
                j++;
                continue;
            }
            eo_begin(o, dbid);
            eo_str(o, c < 0 ? "_SPSNAPDEL" : "_SPSNAPENTRY");
            eo_bytes(o, dbent_key(ke), dbent_klen(ke));
            eo_bytes(o, sn->label, sn->llen);
            if (c < 0) {
                eo_bytes(o, a->name, a->nlen);
                i++;
            } else {
                eo_bytes(o, b->name, b->nlen);
                entry_state_args(o, b);
                i += c == 0;
                j++;
            }
            eo_end(o);
            eo_pause(o);
        }
    }
    if (s->vdead && (s->n || s->nsnaps)) {
        eo_begin(o, dbid);
        eo_str(o, "_SPVDEAD");
        eo_bytes(o, dbent_key(ke), dbent_klen(ke));
        eo_ll(o, (long long)s->vdead);
        eo_end(o);
    }
    return written;
}

/* Each entry's history, oldest first: _SPHIST for the live version (shared),
 * _SPHISTENTRY (the whole state) for older ones. Written after the feed, whose
 * replay would otherwise drop or reorder them; the first record of a name
 * starts its history again (apply_sphist). */
static void hist_rewrite(const effect_out *o, int dbid, const dbent *ke, const sp *s, int64_t now)
{
    size_t k;

    for (k = 0; k < s->nhist; k++) {
        const sp_hist *h = s->hist[k];
        const sp_entry *live = sp_find(s, h->name, h->nlen);
        size_t j;
        if (live && live->expire >= 0 && live->expire <= now)
            continue; /* not written: gone at the first lookup, its history with it */
        for (j = 0; j < h->n; j++) {
            const sp_histrec *rec = &h->rec[j];
            eo_begin(o, dbid);
            eo_str(o, rec->e == live ? "_SPHIST" : "_SPHISTENTRY");
            eo_bytes(o, dbent_key(ke), dbent_klen(ke));
            eo_bytes(o, h->name, h->nlen);
            eo_ll(o, rec->time);
            eo_str(o, spco_op_name(rec->op));
            eo_bytes(o, rec->client ? rec->client : "", rec->clen);
            if (rec->e == live)
                eo_ll(o, (long long)live->version);
            else
                entry_state_args(o, rec->e);
            eo_end(o);
            eo_pause(o);
        }
    }
}

/* A scratchpad: one _SPENTRY per live entry, then its key's expiry; a pause
 * after each entry. Every compressed entry is verified before anything is
 * written. */
static int type_rewrite(const effect_out *o, int dbid, const dbent *e, int64_t expire, int64_t now, char *why,
                        size_t whylen)
{
    const sp *s = dbent_ptr(e);
    size_t i, written = 0;

    for (i = 0; i < s->n; i++) {
        const sp_entry *en = s->e[i];
        if (en->expire >= 0 && en->expire <= now)
            continue;
        if (en->enc == SP_ENC_LZ4 && type_verify_lz(en->lz, dbid, e, en->name, en->nlen, why, whylen) < 0)
            return -1;
    }
    for (i = 0; i < s->n; i++) {
        const sp_entry *en = s->e[i];
        if (en->expire >= 0 && en->expire <= now)
            continue;
        eo_begin(o, dbid);
        eo_str(o, "_SPENTRY");
        sp_entry_effect_args(o, dbent_key(e), dbent_klen(e), s, en);
        eo_end(o);
        written++;
        eo_pause(o);
    }
    written += snaps_rewrite(o, dbid, e, s, now);
    for (i = 0; written && i < s->noffs; i++) {
        eo_begin(o, dbid);
        eo_str(o, "_SPOFFSEQ");
        eo_bytes(o, dbent_key(e), dbent_klen(e));
        eo_bytes(o, s->offs[i]->prefix, s->offs[i]->plen);
        eo_ll(o, (long long)s->offs[i]->last);
        eo_end(o);
    }
    if (s->co) {
        /* The counters, the live leases, then the retained changes: replaying
         * them gives back the same tokens and feed (docs/aof.md). */
        const spco *co = s->co;
        size_t live = 0;
        for (i = 0; i < co->nleases; i++)
            live += co->leases[i]->expire > now;
        if (written || live) {
            eo_begin(o, dbid);
            eo_str(o, "_SPSTATE");
            eo_bytes(o, dbent_key(e), dbent_klen(e));
            eo_ll(o, (long long)co->last_token);
            eo_ll(o, (long long)co->last_seq);
            eo_end(o);
            for (i = 0; i < co->nleases; i++)
                if (co->leases[i]->expire > now)
                    sp_lease_effect(o, dbid, dbent_key(e), dbent_klen(e), co->leases[i]);
            for (i = 0; i < co->nchanges; i++) {
                const sp_change *c = spco_change_at(co, i);
                eo_begin(o, dbid);
                eo_str(o, "_SPCHANGE");
                eo_bytes(o, dbent_key(e), dbent_klen(e));
                eo_ll(o, (long long)c->seq);
                eo_ll(o, c->time);
                eo_str(o, spco_op_name(c->op));
                eo_bytes(o, c->data, c->nlen);
                eo_ll(o, (long long)c->version);
                eo_ll(o, (long long)c->size);
                eo_bytes(o, sp_change_client(c), c->clen);
                eo_end(o);
                if ((i & 255) == 255)
                    eo_pause(o);
            }
            written += 1 + live;
        }
    }
    if (written)
        hist_rewrite(o, dbid, e, s, now);
    if (written && expire >= 0) {
        eo_begin(o, dbid);
        eo_str(o, "PEXPIREAT");
        eo_bytes(o, dbent_key(e), dbent_klen(e));
        eo_ll(o, expire);
        eo_end(o);
    }
    return 0;
}

static int replay_fail(char *why, size_t whylen, const char *msg, const effect_arg *name)
{
    snprintf(why, whylen, "%s (effect %.*s)", msg, (int)(name->len > 32 ? 32 : name->len), name->p);
    return -1;
}

/* The scratchpad at key a (created if absent). NULL if the key holds another type. */
static sp *replay_ns(db *d, const effect_arg *a, dbent **out)
{
    dbent *e = db_find_raw(d, a->p, a->len);
    if (e) {
        *out = e;
        return e->type == OBJ_SCRATCHPAD ? dbent_ptr(e) : NULL;
    }
    return sp_key_create(d, a->p, a->len, out);
}

/* _SPENTRY ns name kind version created updated expire offload_seq content [field value ...]
 * _SPAPPEND ns name version updated content
 * _SPEXPIREAT ns name expire
 * _SPMETA ns name version updated [field value ...]
 * _SPSPLICE ns name version updated off del content: bytes [off, off + del)
 *   replaced with content (sp_entry_splice, as SP.EDIT and SP.INSERT made it) */
static int apply_sp(effect_replay *r, db *d, int dbid, int op, const effect_arg *a, int argc, char *why,
                    size_t whylen)
{
    static const int want[5] = {10, 6, 4, 5, 8};
    sp_params pr = sp_server_params();
    long long n[6] = {0};
    int i, nnum = op == 0 ? 6 : op == 1 || op == 3 ? 2 : op == 4 ? 4 : 1;
    spmeta *meta = NULL;
    dbent *ke;
    sp_entry *e;
    sp *s;

    if ((op == 0 || op == 3 ? argc < want[op] : argc != want[op]) || a[1].lz || a[2].lz ||
        !sp_name_valid(a[2].p, a[2].len))
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if ((op == 0 || op == 3) && replay_meta(a, want[op], argc, &meta) < 0)
        return replay_fail(why, whylen, "malformed metadata", &a[0]);
    for (i = 0; i < nnum; i++)
        if (a[3 + i].lz || str_to_ll(a[3 + i].p, a[3 + i].len, &n[i]) < 0) {
            spmeta_free(meta);
            return replay_fail(why, whylen, "malformed number", &a[0]);
        }
    if (!(s = replay_ns(d, &a[1], &ke))) {
        spmeta_free(meta);
        return replay_fail(why, whylen, "the key holds a string", &a[0]);
    }
    e = sp_find_own(s, a[2].p, a[2].len);
    if (op == 0) {
        r->left_out(r, dbid, &a[1], &a[2], 1); /* a whole new state: the entry is back */
    } else if (!e && r->left_out(r, dbid, &a[1], &a[2], 0)) {
        /* An append, splice, expiry or metadata change of an entry left out: left out too. */
        spmeta_free(meta);
        r->skipped(r, dbid, &a[0], &a[1], &a[2]);
        sp_key_settle(d, ke, s);
        return 0;
    }
    if (op == 0) {
        const effect_arg *content = &a[9];
        if ((n[0] != SP_TEXT && n[0] != SP_BINARY) || n[1] < 1) {
            spmeta_free(meta);
            return replay_fail(why, whylen, "malformed entry", &a[0]);
        }
        if (!e)
            e = sp_add(s, a[2].p, a[2].len, n[2]);
        spmeta_free(e->meta);
        e->meta = meta; /* the entry's whole state: no fields means none */
        if (content->lz) {
            lzval *v = r->take_lzval(r, content);
            if (!v) {
                sp_remove(s, e); /* its earlier state, if any, is not the entry's state any more */
                sp_key_settle(d, ke, s);
                return r->bad_value(r, dbid, &a[1], &a[2], why, whylen);
            }
            sp_entry_set_lz(s, e, v, (int)n[0]);
        } else {
            sp_entry_set(s, e, content->p, content->len, (int)n[0], &pr);
        }
        e->version = (uint64_t)n[1];
        e->created = n[2];
        e->updated = n[3];
        sp_set_expire(s, e, n[4] >= 0 ? n[4] : -1);
        if ((uint64_t)n[5] > s->offload_seq)
            s->offload_seq = (uint64_t)n[5];
    } else if (op == 1) {
        const effect_arg *content = &a[5];
        if (!e || content->lz)
            return replay_fail(why, whylen, "append to a missing entry", &a[0]);
        if (sp_entry_append(s, e, content->p, content->len, &pr) < 0)
            return replay_fail(why, whylen, "the entry is corrupt", &a[0]);
        e->version = (uint64_t)n[0];
        e->updated = n[1];
    } else if (op == 4) {
        const effect_arg *content = &a[7];
        if (!e || content->lz || n[2] < 0 || n[3] < 0 || (unsigned long long)n[2] > e->size ||
            (unsigned long long)n[3] > e->size - (size_t)n[2])
            return replay_fail(why, whylen, "splice of a missing entry, or past its end", &a[0]);
        if (sp_entry_splice(s, e, (size_t)n[2], (size_t)n[3], content->p, content->len, &pr) < 0)
            return replay_fail(why, whylen, "the entry is corrupt", &a[0]);
        e->version = (uint64_t)n[0];
        e->updated = n[1];
    } else if (op == 2) {
        if (!e)
            return replay_fail(why, whylen, "expiry of a missing entry", &a[0]);
        sp_set_expire(s, e, n[0] >= 0 ? n[0] : -1);
    } else {
        if (!e) {
            spmeta_free(meta);
            return replay_fail(why, whylen, "metadata of a missing entry", &a[0]);
        }
        spmeta_free(e->meta);
        e->meta = meta;
        e->version = (uint64_t)n[0];
        e->updated = n[1];
    }
    sp_key_settle(d, ke, s);
    return 0;
}

static int apply_spentry(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    return apply_sp(r, d, dbid, 0, a, argc, why, whylen);
}

static int apply_spappend(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why,
                          size_t whylen)
{
    return apply_sp(r, d, dbid, 1, a, argc, why, whylen);
}

static int apply_spsplice(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    return apply_sp(r, d, dbid, 4, a, argc, why, whylen);
}

static int apply_spexpireat(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why,
                            size_t whylen)
{
    return apply_sp(r, d, dbid, 2, a, argc, why, whylen);
}

static int apply_spmeta(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    return apply_sp(r, d, dbid, 3, a, argc, why, whylen);
}

/* Numbers n[0..cnt) from a[from ..]; -1 if one is not a number. */
static int replay_nums(const effect_arg *a, int from, int cnt, long long *n)
{
    int i;
    for (i = 0; i < cnt; i++)
        if (a[from + i].lz || str_to_ll(a[from + i].p, a[from + i].len, &n[i]) < 0)
            return -1;
    return 0;
}

static spco *replay_co(sp *s)
{
    if (!s->co)
        s->co = spco_new(0);
    return s->co;
}

static int name_ok(const effect_arg *x)
{
    return !x->lz && x->len >= 1 && x->len <= SPCO_NAME_MAX;
}

/* _SPSTATE ns last_token last_seq: the counters; the retained changes that
 * follow replace the feed. */
static int apply_spstate(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    long long n[2];
    dbent *ke;
    spco *co;
    sp *s;

    (void)r;
    (void)dbid;
    if (argc != 4 || a[1].lz || replay_nums(a, 2, 2, n) < 0 || n[0] < 0 || n[1] < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if (!(s = replay_ns(d, &a[1], &ke)))
        return replay_fail(why, whylen, "the key holds another type", &a[0]);
    co = replay_co(s);
    co->last_token = (uint64_t)n[0];
    co->last_seq = (uint64_t)n[1];
    spco_change_clear(co);
    counter_seen(co->last_token);
    counter_seen(co->last_seq);
    return 0;
}

/* _SPLEASE ns resource holder token expire_ms: a grant or renewal, exactly. */
static int apply_splease(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    long long n[2];
    dbent *ke;
    sp *s;

    (void)r;
    (void)dbid;
    if (argc != 6 || a[1].lz || !name_ok(&a[2]) || !name_ok(&a[3]) || replay_nums(a, 4, 2, n) < 0 || n[0] < 1)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if (!(s = replay_ns(d, &a[1], &ke)))
        return replay_fail(why, whylen, "the key holds another type", &a[0]);
    spco_lease_set(replay_co(s), a[2].p, a[2].len, a[3].p, a[3].len, (uint64_t)n[0], n[1]);
    counter_seen((uint64_t)n[0]);
    sp_key_settle(d, ke, s);
    return 0;
}

/* _SPUNLEASE ns resource: a release. */
static int apply_spunlease(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    dbent *ke;
    sp_lease *l;
    sp *s;

    (void)r;
    (void)dbid;
    if (argc != 3 || a[1].lz || !name_ok(&a[2]))
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    ke = db_find_raw(d, a[1].p, a[1].len);
    if (!ke || ke->type != OBJ_SCRATCHPAD)
        return 0;
    s = dbent_ptr(ke);
    if (s->co && (l = spco_lease_find(s->co, a[2].p, a[2].len)) != NULL) {
        spco_lease_remove(s->co, l);
        sp_key_settle(d, ke, s);
    }
    return 0;
}

/* _SPCHANGE ns seq time op name version size client: one change of the feed,
 * kept if the scratchpad exists and its number is new. */
static int apply_spchange(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    long long n[2], vs[2];
    int op;
    dbent *ke;
    spco *co;
    sp *s;

    (void)r;
    (void)dbid;
    if (argc != 9 || a[1].lz || replay_nums(a, 2, 2, n) < 0 || n[0] < 1 || a[4].lz ||
        (op = spco_op_parse(a[4].p, a[4].len)) < 0 || !name_ok(&a[5]) || replay_nums(a, 6, 2, vs) < 0 || a[8].lz)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    ke = db_find_raw(d, a[1].p, a[1].len);
    if (!ke || ke->type != OBJ_SCRATCHPAD)
        return 0; /* the scratchpad is gone, and its feed with it */
    s = dbent_ptr(ke);
    co = replay_co(s);
    if (co->nchanges && (uint64_t)n[0] <= spco_change_at(co, co->nchanges - 1)->seq)
        return 0; /* already in the state the rewrite wrote */
    spco_change_add(co, (uint64_t)n[0], n[1], op, a[5].p, a[5].len, (uint64_t)vs[0], (uint64_t)vs[1], a[8].p, a[8].len,
                    (size_t)sp_changes_max_len);
    counter_seen((uint64_t)n[0]);
    /* The entry's history, as spc_note keeps it when the change is made. */
    if (op == SPCO_OP_DEL || op == SPCO_OP_EXPIRE || vs[0] == 0) { /* the entry is gone */
        sp_hist_drop(s, a[5].p, a[5].len);
    } else {
        sp_entry *e = sp_find(s, a[5].p, a[5].len);
        if (e && e->version == (uint64_t)vs[0])
            sp_history_note(s, e, a[5].p, a[5].len, op, n[1], a[8].p, a[8].len);
    }
    return 0;
}

/* _SPOFFSEQ ns prefix last: SP.OFFLOAD's counter of a prefix (at least last). */
static int apply_spoffseq(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    long long n;
    uint64_t *ctr;
    dbent *ke;

    (void)r;
    (void)dbid;
    if (argc != 4 || a[1].lz || !name_ok(&a[2]) || replay_nums(a, 3, 1, &n) < 0 || n < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    ke = db_find_raw(d, a[1].p, a[1].len);
    if (!ke || ke->type != OBJ_SCRATCHPAD)
        return 0; /* the scratchpad is gone, and its counters with it */
    ctr = sp_offload_counter(dbent_ptr(ke), a[2].p, a[2].len);
    if ((uint64_t)n > *ctr)
        *ctr = (uint64_t)n;
    return 0;
}

/* The snapshot a[2] of the scratchpad at a[1], or NULL (none: the record applies
 * to nothing, as for a scratchpad that is gone). */
static sp_snap *replay_snap(db *d, const effect_arg *a, sp **s_out, dbent **ke)
{
    dbent *e = db_find_raw(d, a[1].p, a[1].len);

    if (!e || e->type != OBJ_SCRATCHPAD || a[2].lz)
        return NULL;
    *ke = e;
    *s_out = dbent_ptr(e);
    return sp_snap_find(*s_out, a[2].p, a[2].len);
}

static int label_ok(const effect_arg *x)
{
    return !x->lz && sp_name_valid(x->p, x->len);
}

/* _SPSNAP ns label time: snapshot the live entries (replacing a snapshot of
 * that label). */
static int apply_spsnap(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    long long t;
    dbent *ke;
    sp_snap *old;
    sp *s;

    (void)r;
    (void)dbid;
    if (argc != 4 || a[1].lz || !label_ok(&a[2]) || replay_nums(a, 3, 1, &t) < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if (!(s = replay_ns(d, &a[1], &ke)))
        return replay_fail(why, whylen, "the key holds another type", &a[0]);
    if ((old = sp_snap_find(s, a[2].p, a[2].len)) != NULL)
        sp_snap_drop(s, old);
    sp_snap_take(s, a[2].p, a[2].len, t);
    sp_key_settle(d, ke, s);
    return 0;
}

/* _SPSNAPDEL ns label name: the snapshot lacks that entry. */
static int apply_spsnapdel(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    dbent *ke;
    sp_snap *sn;
    sp *s;

    (void)r;
    (void)dbid;
    if (argc != 4 || a[1].lz || !label_ok(&a[2]) || a[3].lz || !sp_name_valid(a[3].p, a[3].len))
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if ((sn = replay_snap(d, a, &s, &ke)) != NULL)
        sp_snap_remove(sn, a[3].p, a[3].len);
    return 0;
}

/* _SPSNAPENTRY ns label name kind version created updated expire content: the
 * snapshot holds that entry in that state. */
static int apply_spsnapentry(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    sp_params pr = sp_server_params();
    long long n[5];
    spmeta *meta = NULL;
    sp *tmp, *s;
    sp_entry *e;
    sp_snap *sn;
    dbent *ke;

    if (argc < 10 || a[1].lz || !label_ok(&a[2]) || a[3].lz || !sp_name_valid(a[3].p, a[3].len) ||
        replay_nums(a, 4, 5, n) < 0 || (n[0] != SP_TEXT && n[0] != SP_BINARY) || n[1] < 1 ||
        replay_meta(a, 10, argc, &meta) < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if (!(sn = replay_snap(d, a, &s, &ke))) {
        spmeta_free(meta);
        if (a[9].lz)
            lzval_free(r->take_lzval(r, &a[9]));
        return 0;
    }
    /* Built in a scratchpad of its own, which then lets it go. */
    tmp = sp_new();
    e = sp_add(tmp, a[3].p, a[3].len, n[2]);
    if (a[9].lz) {
        lzval *v = r->take_lzval(r, &a[9]);
        if (!v) {
            spmeta_free(meta);
            sp_free(tmp);
            return r->bad_value(r, dbid, &a[1], &a[3], why, whylen);
        }
        sp_entry_set_lz(tmp, e, v, (int)n[0]);
    } else {
        sp_entry_set(tmp, e, a[9].p, a[9].len, (int)n[0], &pr);
    }
    e->meta = meta;
    e->version = (uint64_t)n[1];
    e->created = n[2];
    e->updated = n[3];
    e->expire = n[4] >= 0 ? n[4] : -1;
    sp_snap_put(sn, sp_entry_share(e));
    sp_free(tmp);
    return 0;
}

/* _SPHIST ns name time op client version: the live entry (at that version)
 * is the newest record of its history.
 * _SPHISTENTRY ns name time op client kind version created updated expire
 * content: an older version, in that state. */
static int apply_sphist(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    sp_params pr = sp_server_params();
    int whole = argc >= 12, op;
    long long n[6];
    spmeta *meta = NULL;
    dbent *ke;
    sp_entry *e;
    sp *s;

    if ((argc != 7 && argc < 12) || (whole && replay_meta(a, 12, argc, &meta) < 0) || a[1].lz || a[2].lz ||
        !sp_name_valid(a[2].p, a[2].len) || replay_nums(a, 3, 1, n) < 0 || a[4].lz ||
        (op = spco_op_parse(a[4].p, a[4].len)) < 0 || a[5].lz || replay_nums(a, 6, whole ? 5 : 1, n + 1) < 0 ||
        (whole && n[1] != SP_TEXT && n[1] != SP_BINARY)) {
        spmeta_free(meta);
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    }
    ke = db_find_raw(d, a[1].p, a[1].len);
    if (!ke || ke->type != OBJ_SCRATCHPAD) {
        spmeta_free(meta);
        if (whole && a[11].lz)
            lzval_free(r->take_lzval(r, &a[11]));
        return 0;
    }
    s = dbent_ptr(ke);
    {
        const sp_hist *h = sp_hist_find(s, a[2].p, a[2].len);
        uint64_t v = (uint64_t)(whole ? n[2] : n[1]);
        if (h && h->n && h->rec[h->n - 1].e->version >= v)
            sp_hist_drop(s, a[2].p, a[2].len); /* a rewrite's history starts again */
    }
    if (!whole) {
        e = sp_find(s, a[2].p, a[2].len);
        if (e && e->version == (uint64_t)n[1])
            sp_hist_push(s, sp_entry_share(e), n[0], op, a[5].p, a[5].len);
        return 0;
    } else {
        sp *tmp = sp_new();
        e = sp_add(tmp, a[2].p, a[2].len, n[3]);
        if (a[11].lz) {
            lzval *v = r->take_lzval(r, &a[11]);
            if (!v) {
                spmeta_free(meta);
                sp_free(tmp);
                return r->bad_value(r, dbid, &a[1], &a[2], why, whylen);
            }
            sp_entry_set_lz(tmp, e, v, (int)n[1]);
        } else {
            sp_entry_set(tmp, e, a[11].p, a[11].len, (int)n[1], &pr);
        }
        e->meta = meta;
        e->version = (uint64_t)n[2];
        e->created = n[3];
        e->updated = n[4];
        e->expire = n[5] >= 0 ? n[5] : -1;
        sp_hist_push(s, sp_entry_share(e), n[0], op, a[5].p, a[5].len);
        sp_free(tmp);
    }
    return 0;
}

/* _SPVDEAD ns version: the version floor of restored entries is at least it. */
static int apply_spvdead(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    long long v;
    dbent *ke;
    sp *s;

    (void)r;
    (void)dbid;
    if (argc != 3 || a[1].lz || replay_nums(a, 2, 1, &v) < 0 || v < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    ke = db_find_raw(d, a[1].p, a[1].len);
    if (!ke || ke->type != OBJ_SCRATCHPAD)
        return 0;
    s = dbent_ptr(ke);
    if ((uint64_t)v > s->vdead)
        s->vdead = (uint64_t)v;
    return 0;
}

/* _SPRESTORE ns label time: SP.RESTORE as it ran (sp_restore at that time). */
static int apply_sprestore(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    long long t;
    dbent *ke;
    sp_snap *sn;
    sp *s;

    (void)r;
    (void)dbid;
    if (argc != 4 || a[1].lz || !label_ok(&a[2]) || replay_nums(a, 3, 1, &t) < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if (!(sn = replay_snap(d, a, &s, &ke)))
        return replay_fail(why, whylen, "restore of a missing snapshot", &a[0]);
    sp_restore(s, sn, t, NULL, NULL);
    sp_key_settle(d, ke, s);
    return 0;
}

/* clang-format off */
static const type_effect scratchpad_effects[] = {
    {"_SPENTRY", apply_spentry},
    {"_SPAPPEND", apply_spappend},
    {"_SPSPLICE", apply_spsplice},
    {"_SPEXPIREAT", apply_spexpireat},
    {"_SPMETA", apply_spmeta},
    {"_SPSTATE", apply_spstate},
    {"_SPLEASE", apply_splease},
    {"_SPUNLEASE", apply_spunlease},
    {"_SPCHANGE", apply_spchange},
    {"_SPOFFSEQ", apply_spoffseq},
    {"_SPSNAP", apply_spsnap},
    {"_SPSNAPDEL", apply_spsnapdel},
    {"_SPSNAPENTRY", apply_spsnapentry},
    {"_SPVDEAD", apply_spvdead},
    {"_SPHIST", apply_sphist},
    {"_SPHISTENTRY", apply_sphist},
    {"_SPRESTORE", apply_sprestore},
    {NULL, NULL},
};
/* clang-format on */

/* DEBUG LZ4-CORRUPT key entry chunk: an entry only. */
static int type_debug_lz(dbent *e, const char *part, size_t plen, lzval **out)
{
    sp_entry *en;

    if (!part)
        return -1;
    en = sp_find(dbent_ptr(e), part, plen);
    *out = en && en->enc == SP_ENC_LZ4 ? en->lz : NULL;
    return 0;
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
    .rewrite = type_rewrite,
    .effects = scratchpad_effects,
    .debug_lz = type_debug_lz,
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

