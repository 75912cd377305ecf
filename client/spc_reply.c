/* spc_reply.c -- SP replies as typed results, and the results' free functions.
 *
 * No I/O here: spc_convert reads a hiredis reply into an spc_result. Replies
 * are RESP2, where a map arrives as a flat array of key, value, ...: maps are
 * read by key name, so the order of the server's keys and any key added later
 * do not matter. Shared by the synchronous, batched and asynchronous paths.
 *
 * Invariants: the reply's shape is never trusted: anything but the shape the
 * command promises is SP_ERR_PROTOCOL, with every output empty. A result
 * object points into the reply (no copy); when asked to keep the reply, the
 * result holds it and its free function releases it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spc_internal.h"

/* ---- reading replies ---- */

void spc_set_msg(char *dst, size_t cap, const char *s, size_t n)
{
    if (!cap)
        return;
    if (n > cap - 1)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static int starts(const char *msg, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(msg, prefix, n) == 0;
}

int spc_classify_error(const char *msg, size_t len)
{
    if (starts(msg, len, "WRONGTYPE"))
        return SP_ERR_WRONGTYPE;
    if (starts(msg, len, "VERSION"))
        return SP_ERR_VERSION;
    if (starts(msg, len, "ERR invalid entry name") || starts(msg, len, "ERR invalid PREFIX"))
        return SP_ERR_NAME;
    if (starts(msg, len, "ERR no such entry"))
        return SP_ERR_NOTFOUND;
    if (starts(msg, len, "ERR old text not found"))
        return SP_ERR_NOMATCH;
    if (starts(msg, len, "ERR old text occurs"))
        return SP_ERR_AMBIGUOUS;
    if (starts(msg, len, "NOAUTH") || starts(msg, len, "WRONGPASS"))
        return SP_ERR_AUTH;
    if (starts(msg, len, "NOPERM"))
        return SP_ERR_NOPERM;
    if (starts(msg, len, "LEASED"))
        return SP_ERR_LEASED;
    if (starts(msg, len, "FENCED"))
        return SP_ERR_FENCED;
    return SP_ERR_SERVER;
}

typedef struct conv_ctx {
    spc_result *res;
    char *err;
    size_t cap;
} conv_ctx;

static int set_status(conv_ctx *x, int status, const char *msg)
{
    x->res->status = status;
    spc_set_msg(x->err, x->cap, msg, strlen(msg));
    return status;
}

static int protocol(conv_ctx *x, const char *what)
{
    char msg[160];
    snprintf(msg, sizeof(msg), "unexpected reply: %s", what);
    return set_status(x, SP_ERR_PROTOCOL, msg);
}

static int server_error(conv_ctx *x, const redisReply *e)
{
    x->res->status = spc_classify_error(e->str, e->len);
    spc_set_msg(x->err, x->cap, e->str, e->len);
    return x->res->status;
}

/* If r or one of its elements (one level down, as the server may put an error
 * in place of a piece of an aggregate) is an error reply, report it. */
static int find_error(conv_ctx *x, const redisReply *r)
{
    size_t i;
    if (r->type == REDIS_REPLY_ERROR)
        return server_error(x, r);
    if (r->type == REDIS_REPLY_ARRAY)
        for (i = 0; i < r->elements; i++) {
            const redisReply *e = r->element[i];
            size_t k;
            if (e->type == REDIS_REPLY_ERROR)
                return server_error(x, e);
            if (e->type == REDIS_REPLY_ARRAY)
                for (k = 0; k < e->elements; k++)
                    if (e->element[k]->type == REDIS_REPLY_ERROR)
                        return server_error(x, e->element[k]);
        }
    return SP_OK;
}

static int not_found(conv_ctx *x)
{
    return set_status(x, SP_ERR_NOTFOUND, "no such entry or scratchpad");
}

/* The value of key in a RESP2 map (a flat array of key, value, ...), or NULL. */
static const redisReply *map_get(const redisReply *m, const char *key)
{
    size_t i, n = strlen(key);
    for (i = 0; i + 1 < m->elements; i += 2) {
        const redisReply *k = m->element[i];
        if ((k->type == REDIS_REPLY_STRING || k->type == REDIS_REPLY_STATUS) && k->len == n &&
            memcmp(k->str, key, n) == 0)
            return m->element[i + 1];
    }
    return NULL;
}

static int is_map(const redisReply *m)
{
    return m && m->type == REDIS_REPLY_ARRAY && m->elements % 2 == 0;
}

/* Integer field: a RESP integer or a numeric string; def when absent or nil. */
static long long map_ll(const redisReply *m, const char *key, long long def)
{
    const redisReply *v = map_get(m, key);
    if (!v)
        return def;
    if (v->type == REDIS_REPLY_INTEGER)
        return v->integer;
    if (v->type == REDIS_REPLY_STRING)
        return strtoll(v->str, NULL, 10);
    return def;
}

static const redisReply *map_str(const redisReply *m, const char *key)
{
    const redisReply *v = map_get(m, key);
    return v && (v->type == REDIS_REPLY_STRING || v->type == REDIS_REPLY_STATUS) ? v : NULL;
}

static spc_kind map_kind(const redisReply *m)
{
    const redisReply *v = map_str(m, "kind");
    if (v && v->len == 4 && memcmp(v->str, "text", 4) == 0)
        return SPC_KIND_TEXT;
    if (v && v->len == 6 && memcmp(v->str, "binary", 6) == 0)
        return SPC_KIND_BINARY;
    return SPC_KIND_AUTO;
}

static size_t nonneg(long long v)
{
    return v < 0 ? 0 : (size_t)v;
}

static int is_str(const redisReply *r)
{
    return r && r->type == REDIS_REPLY_STRING;
}

static int conv_content(conv_ctx *x, redisReply *r, int withmeta, int keep, int *kept)
{
    const redisReply *body = r, *meta = NULL;
    spc_content *c;

    if (r->type == REDIS_REPLY_NIL)
        return not_found(x);
    if (withmeta) {
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 2)
            return protocol(x, "SP.READ WITHMETA should reply [content, metadata]");
        body = r->element[0];
        meta = r->element[1];
        if (!is_map(meta))
            return protocol(x, "SP.READ metadata is not a map");
    }
    if (!is_str(body))
        return protocol(x, "content is not a bulk string");
    c = calloc(1, sizeof(*c));
    if (!c)
        return set_status(x, SP_ERR_OOM, "out of memory");
    c->data = body->str;
    c->len = body->len;
    if (meta) {
        c->has_meta = 1;
        c->meta.version = (uint64_t)map_ll(meta, "version", 0);
        c->meta.size = nonneg(map_ll(meta, "size", 0));
        c->meta.length = nonneg(map_ll(meta, "length", 0));
        c->meta.lines = nonneg(map_ll(meta, "lines", 0));
        c->meta.kind = map_kind(meta);
        c->meta.offset = map_ll(meta, "offset", 0);
        c->meta.truncated = map_ll(meta, "truncated", 0) != 0;
        c->meta.next_offset = map_ll(meta, "next_offset", -1);
    }
    if (keep) {
        c->priv = r;
        *kept = 1;
    }
    x->res->content = c;
    return SP_OK;
}

/* Parse "N:text" (a match) or "N-text" (context) into line. 0 / -1. */
static int grep_line(const redisReply *e, spc_grep_line *line)
{
    size_t i = 0, n = 0;
    if (!is_str(e))
        return -1;
    while (i < e->len && e->str[i] >= '0' && e->str[i] <= '9' && i < 20)
        n = n * 10 + (size_t)(e->str[i++] - '0');
    if (i == 0 || i >= e->len || (e->str[i] != ':' && e->str[i] != '-'))
        return -1;
    line->lineno = n;
    line->is_match = e->str[i] == ':';
    line->text = e->str + i + 1;
    line->len = e->len - i - 1;
    return 0;
}

static int conv_grep(conv_ctx *x, redisReply *r, int withmeta, int keep, int *kept)
{
    const redisReply *arr = r, *meta = NULL;
    spc_grep *g;
    size_t i;

    if (r->type == REDIS_REPLY_NIL)
        return not_found(x);
    if (withmeta) {
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 2)
            return protocol(x, "SP.GREP WITHMETA should reply [lines, metadata]");
        arr = r->element[0];
        meta = r->element[1];
        if (!is_map(meta))
            return protocol(x, "SP.GREP metadata is not a map");
    }
    if (arr->type != REDIS_REPLY_ARRAY)
        return protocol(x, "SP.GREP lines are not an array");
    g = calloc(1, sizeof(*g) + arr->elements * sizeof(spc_grep_line));
    if (!g)
        return set_status(x, SP_ERR_OOM, "out of memory");
    g->lines = (spc_grep_line *)(g + 1);
    g->n = arr->elements;
    for (i = 0; i < arr->elements; i++)
        if (grep_line(arr->element[i], &g->lines[i]) < 0) {
            free(g);
            return protocol(x, "an SP.GREP line is not \"lineno:line\" or \"lineno-line\"");
        }
    if (meta) {
        g->has_meta = 1;
        g->matched = nonneg(map_ll(meta, "matched", 0));
        g->shown = nonneg(map_ll(meta, "shown", 0));
        g->truncated = map_ll(meta, "truncated", 0) != 0;
    }
    if (keep) {
        g->priv = r;
        *kept = 1;
    }
    x->res->grep = g;
    return SP_OK;
}

/* A metadata map (field, value, ...: strings) into fields[0 .. elements/2). 0, or -1 for another shape. */
static int meta_fields(const redisReply *m, spc_meta_field *fields)
{
    if (!is_map(m))
        return -1;
    for (size_t i = 0; i + 1 < m->elements; i += 2) {
        if (!is_str(m->element[i]) || !is_str(m->element[i + 1]))
            return -1;
        fields[i / 2].field = m->element[i]->str;
        fields[i / 2].value = m->element[i + 1]->str;
        fields[i / 2].value_len = m->element[i + 1]->len;
    }
    return 0;
}

static int conv_list(conv_ctx *x, redisReply *r, int withmeta, int keep, int *kept)
{
    const redisReply *cur, *arr;
    spc_list *l;
    spc_meta_field *fields;
    size_t i, nfields = 0;

    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !is_str(r->element[0]) ||
        r->element[1]->type != REDIS_REPLY_ARRAY)
        return protocol(x, "SP.LIST should reply [cursor, entries]");
    cur = r->element[0];
    arr = r->element[1];
    for (i = 0; withmeta && i < arr->elements; i++) {
        const redisReply *m = is_map(arr->element[i]) ? map_get(arr->element[i], "meta") : NULL;
        nfields += m && m->type == REDIS_REPLY_ARRAY ? m->elements / 2 : 0;
    }
    l = calloc(1, sizeof(*l) + arr->elements * sizeof(spc_list_item) + nfields * sizeof(spc_meta_field));
    if (!l)
        return set_status(x, SP_ERR_OOM, "out of memory");
    l->items = (spc_list_item *)(l + 1);
    fields = (spc_meta_field *)(l->items + arr->elements);
    l->n = arr->elements;
    l->has_meta = withmeta;
    l->cursor = cur->str;
    l->done = cur->len == 1 && cur->str[0] == '0';
    for (i = 0; i < arr->elements; i++) {
        const redisReply *e = arr->element[i];
        spc_list_item *it = &l->items[i];
        if (withmeta) {
            const redisReply *nm = is_map(e) ? map_str(e, "name") : NULL;
            if (!nm) {
                free(l);
                return protocol(x, "an SP.LIST WITHMETA entry is not a map with a name");
            }
            it->name = nm->str;
            it->name_len = nm->len;
            it->kind = map_kind(e);
            it->size = nonneg(map_ll(e, "size", 0));
            it->length = nonneg(map_ll(e, "length", 0));
            it->version = (uint64_t)map_ll(e, "version", 0);
            it->created = map_ll(e, "created", 0);
            it->updated = map_ll(e, "updated", 0);
            it->ttl = map_ll(e, "ttl", -1);
            const redisReply *m = map_get(e, "meta");
            if (m) {
                if (meta_fields(m, fields) < 0) {
                    free(l);
                    return protocol(x, "an SP.LIST WITHMETA entry's meta is not a map of strings");
                }
                it->meta = fields;
                it->nmeta = m->elements / 2;
                fields += it->nmeta;
            }
        } else {
            if (!is_str(e)) {
                free(l);
                return protocol(x, "an SP.LIST entry is not a name");
            }
            it->name = e->str;
            it->name_len = e->len;
        }
    }
    if (keep) {
        l->priv = r;
        *kept = 1;
    }
    x->res->list = l;
    return SP_OK;
}

static int conv_stat(conv_ctx *x, const redisReply *r)
{
    spc_stat *s = &x->res->stat;
    const redisReply *v;

    if (r->type == REDIS_REPLY_NIL)
        return not_found(x);
    if (!is_map(r))
        return protocol(x, "SP.STAT should reply a map");
    s->kind = map_kind(r);
    s->size = nonneg(map_ll(r, "size", 0));
    s->length = nonneg(map_ll(r, "length", 0));
    s->lines = nonneg(map_ll(r, "lines", 0));
    s->version = (uint64_t)map_ll(r, "version", 0);
    s->created = map_ll(r, "created", 0);
    s->updated = map_ll(r, "updated", 0);
    s->ttl = map_ll(r, "ttl", -1);
    s->stored = nonneg(map_ll(r, "stored", 0));
    s->chunks = nonneg(map_ll(r, "chunks", 0));
    if ((v = map_str(r, "encoding")) != NULL)
        spc_set_msg(s->encoding, sizeof(s->encoding), v->str, v->len);
    if ((v = map_str(r, "sha256")) != NULL)
        spc_set_msg(s->sha256, sizeof(s->sha256), v->str, v->len);
    return SP_OK;
}

static int conv_info(conv_ctx *x, const redisReply *r)
{
    spc_info *in = &x->res->info;
    const redisReply *v;

    if (r->type == REDIS_REPLY_NIL)
        return not_found(x);
    if (!is_map(r))
        return protocol(x, "SP.INFO should reply a map");
    in->entries = nonneg(map_ll(r, "entries", 0));
    in->bytes = nonneg(map_ll(r, "bytes", 0));
    in->stored_bytes = nonneg(map_ll(r, "stored_bytes", 0));
    in->oldest_update = map_ll(r, "oldest_update", 0);
    in->newest_update = map_ll(r, "newest_update", 0);
    v = map_get(r, "compression_ratio");
    if (v && v->type == REDIS_REPLY_STRING)
        in->compression_ratio = strtod(v->str, NULL);
    else if (v && v->type == REDIS_REPLY_INTEGER)
        in->compression_ratio = (double)v->integer;
    return SP_OK;
}

static int conv_offload(conv_ctx *x, redisReply *r, int keep, int *kept)
{
    const redisReply *v;
    spc_offload *o;

    if (!is_map(r) || !(v = map_get(r, "stored")) || v->type != REDIS_REPLY_INTEGER)
        return protocol(x, "SP.OFFLOAD should reply a map with \"stored\"");
    o = calloc(1, sizeof(*o));
    if (!o)
        return set_status(x, SP_ERR_OOM, "out of memory");
    o->stored = v->integer != 0;
    if (o->stored) {
        const redisReply *nm = map_str(r, "name"), *pv = map_str(r, "preview");
        if (!nm || !pv) {
            free(o);
            return protocol(x, "SP.OFFLOAD stored without a name or a preview");
        }
        o->name = nm->str;
        o->name_len = nm->len;
        o->preview = pv->str;
        o->preview_len = pv->len;
        o->size = nonneg(map_ll(r, "size", 0));
        o->length = nonneg(map_ll(r, "length", 0));
        o->kind = map_kind(r);
    } else {
        const redisReply *ct = map_str(r, "content");
        if (!ct) {
            free(o);
            return protocol(x, "SP.OFFLOAD not stored without the content");
        }
        o->content = ct->str;
        o->content_len = ct->len;
    }
    if (keep) {
        o->priv = r;
        *kept = 1;
    }
    x->res->offload = o;
    return SP_OK;
}

/* An array reply whose every element is an array of `width` elements: 0, or -1. */
static int is_rows(const redisReply *r, size_t width)
{
    if (r->type != REDIS_REPLY_ARRAY)
        return -1;
    for (size_t i = 0; i < r->elements; i++)
        if (r->element[i]->type != REDIS_REPLY_ARRAY || r->element[i]->elements != width)
            return -1;
    return 0;
}

static int is_int(const redisReply *r)
{
    return r && r->type == REDIS_REPLY_INTEGER;
}

/* An integer, or 0 for nil (the diff's absent side). */
static long long int_or_nil(const redisReply *r)
{
    return is_int(r) ? r->integer : 0;
}

/* A result object of `head` bytes followed by n items of `item` bytes; *items is set to the first. */
static void *alloc_rows(conv_ctx *x, size_t head, size_t n, size_t item, void **items)
{
    char *p = calloc(1, head + n * item);
    if (!p) {
        set_status(x, SP_ERR_OOM, "out of memory");
        return NULL;
    }
    *items = p + head;
    return p;
}

static int conv_lease(conv_ctx *x, const redisReply *r)
{
    if (r->type == REDIS_REPLY_NIL)
        return set_status(x, SP_ERR_LEASED, "LEASED still held by another holder when the wait ended");
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !is_int(r->element[0]) || !is_int(r->element[1]))
        return protocol(x, "SP.LEASE should reply [token, expires-at]");
    x->res->lease.token = (uint64_t)r->element[0]->integer;
    x->res->lease.expires_at = r->element[1]->integer;
    return SP_OK;
}

static int conv_leases(conv_ctx *x, redisReply *r, int keep, int *kept)
{
    spc_leases *l;
    void *items;
    if (is_rows(r, 4) < 0)
        return protocol(x, "SP.LEASES should reply an array of [resource, holder, token, ms-left]");
    if (!(l = alloc_rows(x, sizeof(*l), r->elements, sizeof(spc_lease_item), &items)))
        return x->res->status;
    l->items = items;
    l->n = r->elements;
    for (size_t i = 0; i < r->elements; i++) {
        redisReply **e = r->element[i]->element;
        if (!is_str(e[0]) || !is_str(e[1]) || !is_int(e[2]) || !is_int(e[3])) {
            free(l);
            return protocol(x, "an SP.LEASES row is not [resource, holder, token, ms-left]");
        }
        l->items[i] = (spc_lease_item){e[0]->str,    e[0]->len, e[1]->str, e[1]->len, (uint64_t)e[2]->integer,
                                       e[3]->integer};
    }
    if (keep) {
        l->priv = r;
        *kept = 1;
    }
    x->res->leases = l;
    return SP_OK;
}

static int conv_changes(conv_ctx *x, redisReply *r, int keep, int *kept)
{
    const redisReply *ch = NULL;
    spc_changes *c;
    void *items;
    size_t n = 0;
    if (r->type != REDIS_REPLY_NIL) {
        ch = is_map(r) ? map_get(r, "changes") : NULL;
        if (!ch || is_rows(ch, 7) < 0)
            return protocol(x, "SP.CHANGES should reply a map with the changes as rows of 7");
        n = ch->elements;
    }
    if (!(c = alloc_rows(x, sizeof(*c), n, sizeof(spc_change), &items)))
        return x->res->status;
    c->items = items;
    c->n = n;
    c->timed_out = r->type == REDIS_REPLY_NIL;
    if (!c->timed_out) {
        c->first = (uint64_t)map_ll(r, "first", 0);
        c->last = (uint64_t)map_ll(r, "last", 0);
        c->gap = map_ll(r, "gap", 0) != 0;
    }
    for (size_t i = 0; i < n; i++) {
        redisReply **e = ch->element[i]->element;
        if (!is_int(e[0]) || !is_int(e[1]) || !is_str(e[2]) || !is_str(e[3]) || !is_int(e[4]) || !is_int(e[5]) ||
            !is_str(e[6])) {
            free(c);
            return protocol(x, "an SP.CHANGES change is not [seq, time, op, name, version, size, client]");
        }
        c->items[i] = (spc_change){(uint64_t)e[0]->integer, e[1]->integer,         e[2]->str, e[3]->str, e[3]->len,
                                   (uint64_t)e[4]->integer, nonneg(e[5]->integer), e[6]->str, e[6]->len};
    }
    if (keep) {
        c->priv = r;
        *kept = 1;
    }
    x->res->changes = c;
    return SP_OK;
}

static int conv_meta(conv_ctx *x, redisReply *r, int keep, int *kept)
{
    const redisReply *m;
    spc_meta *out;
    void *items;
    if (r->type == REDIS_REPLY_NIL)
        return not_found(x);
    if (!is_map(r))
        return protocol(x, "SP.STAT should reply a map");
    m = map_get(r, "meta");
    if (m && !is_map(m))
        return protocol(x, "SP.STAT's meta is not a map");
    if (!(out = alloc_rows(x, sizeof(*out), m ? m->elements / 2 : 0, sizeof(spc_meta_field), &items)))
        return x->res->status;
    out->fields = items;
    out->n = m ? m->elements / 2 : 0;
    if (m && meta_fields(m, out->fields) < 0) {
        free(out);
        return protocol(x, "SP.STAT's meta is not a map of strings");
    }
    if (keep) {
        out->priv = r;
        *kept = 1;
    }
    x->res->meta = out;
    return SP_OK;
}

static int conv_snapshots(conv_ctx *x, redisReply *r, int keep, int *kept)
{
    spc_snapshots *s;
    void *items;
    if (is_rows(r, 4) < 0)
        return protocol(x, "SP.SNAPSHOTS should reply an array of [label, time, entries, bytes]");
    if (!(s = alloc_rows(x, sizeof(*s), r->elements, sizeof(spc_snapshot_item), &items)))
        return x->res->status;
    s->items = items;
    s->n = r->elements;
    for (size_t i = 0; i < r->elements; i++) {
        redisReply **e = r->element[i]->element;
        if (!is_str(e[0]) || !is_int(e[1]) || !is_int(e[2]) || !is_int(e[3])) {
            free(s);
            return protocol(x, "an SP.SNAPSHOTS row is not [label, time, entries, bytes]");
        }
        s->items[i] = (spc_snapshot_item){e[0]->str, e[0]->len, e[1]->integer, nonneg(e[2]->integer),
                                          nonneg(e[3]->integer)};
    }
    if (keep) {
        s->priv = r;
        *kept = 1;
    }
    x->res->snapshots = s;
    return SP_OK;
}

static int conv_diff(conv_ctx *x, redisReply *r, int keep, int *kept)
{
    spc_diff *d;
    void *items;
    if (is_rows(r, 6) < 0)
        return protocol(x, "SP.DIFF should reply an array of [status, name, old-version, new-version, old-size, "
                           "new-size]");
    if (!(d = alloc_rows(x, sizeof(*d), r->elements, sizeof(spc_diff_item), &items)))
        return x->res->status;
    d->items = items;
    d->n = r->elements;
    for (size_t i = 0; i < r->elements; i++) {
        redisReply **e = r->element[i]->element;
        spc_diff_status st = 0;
        if (is_str(e[0]))
            st = strcmp(e[0]->str, "added") == 0     ? SPC_DIFF_ADDED
                 : strcmp(e[0]->str, "removed") == 0 ? SPC_DIFF_REMOVED
                 : strcmp(e[0]->str, "changed") == 0 ? SPC_DIFF_CHANGED
                                                     : 0;
        if (!st || !is_str(e[1])) {
            free(d);
            return protocol(x, "an SP.DIFF row has an unknown status or no name");
        }
        d->items[i] = (spc_diff_item){st,
                                      e[1]->str,
                                      e[1]->len,
                                      (uint64_t)int_or_nil(e[2]),
                                      (uint64_t)int_or_nil(e[3]),
                                      nonneg(int_or_nil(e[4])),
                                      nonneg(int_or_nil(e[5]))};
    }
    if (keep) {
        d->priv = r;
        *kept = 1;
    }
    x->res->diff = d;
    return SP_OK;
}

static int conv_history(conv_ctx *x, redisReply *r, int keep, int *kept)
{
    spc_history *h;
    void *items;
    if (r->type == REDIS_REPLY_NIL)
        return not_found(x);
    if (is_rows(r, 5) < 0)
        return protocol(x, "SP.HISTORY should reply an array of [version, time, op, size, client]");
    if (!(h = alloc_rows(x, sizeof(*h), r->elements, sizeof(spc_history_item), &items)))
        return x->res->status;
    h->items = items;
    h->n = r->elements;
    for (size_t i = 0; i < r->elements; i++) {
        redisReply **e = r->element[i]->element;
        if (!is_int(e[0]) || !is_int(e[1]) || !is_str(e[2]) || !is_int(e[3]) || !is_str(e[4])) {
            free(h);
            return protocol(x, "an SP.HISTORY row is not [version, time, op, size, client]");
        }
        h->items[i] = (spc_history_item){(uint64_t)e[0]->integer, e[1]->integer, e[2]->str,
                                         nonneg(e[3]->integer),   e[4]->str,     e[4]->len};
    }
    if (keep) {
        h->priv = r;
        *kept = 1;
    }
    x->res->history = h;
    return SP_OK;
}

static int conv_int(conv_ctx *x, const redisReply *r, long long *v)
{
    if (r->type != REDIS_REPLY_INTEGER)
        return protocol(x, "expected an integer");
    *v = r->integer;
    return SP_OK;
}

int spc_convert(redisReply *r, spc_conv conv, int withmeta, int keep, spc_result *res, int *kept, char *err,
                size_t cap)
{
    conv_ctx x = {res, err, cap};
    long long v = 0;

    memset(res, 0, sizeof(*res));
    *kept = 0;
    err[0] = '\0';
    res->errstr = err;
    if (find_error(&x, r) != SP_OK)
        return res->status;
    switch (conv) {
    case SPC_CV_STATUS:
        if (r->type != REDIS_REPLY_STATUS)
            return protocol(&x, "expected a status reply");
        return SP_OK;
    case SPC_CV_VERSION:
        if (r->type == REDIS_REPLY_NIL)
            return set_status(&x, SP_ERR_CONDITION, "the NX / XX condition was not met: nothing was written");
        if (conv_int(&x, r, &v) == SP_OK)
            res->version = (uint64_t)v;
        return res->status;
    case SPC_CV_LENGTH:
        if (conv_int(&x, r, &v) == SP_OK)
            res->length = nonneg(v);
        return res->status;
    case SPC_CV_COUNT:
    case SPC_CV_PERSIST:
        if (conv_int(&x, r, &v) == SP_OK)
            res->count = nonneg(v);
        return res->status;
    case SPC_CV_EXPIRE:
        if (conv_int(&x, r, &v) == SP_OK && v == 0)
            return not_found(&x);
        return res->status;
    case SPC_CV_TTL:
        if (conv_int(&x, r, &v) != SP_OK)
            return res->status;
        res->ttl = v;
        if (v == -2)
            return not_found(&x);
        return SP_OK;
    case SPC_CV_CONTENT:
        return conv_content(&x, r, withmeta, keep, kept);
    case SPC_CV_GREP:
        return conv_grep(&x, r, withmeta, keep, kept);
    case SPC_CV_LIST:
        return conv_list(&x, r, withmeta, keep, kept);
    case SPC_CV_EDIT:
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_INTEGER ||
            r->element[1]->type != REDIS_REPLY_INTEGER)
            return protocol(&x, "SP.EDIT / SP.META should reply [count, version]");
        res->count = nonneg(r->element[0]->integer);
        res->version = (uint64_t)r->element[1]->integer;
        return SP_OK;
    case SPC_CV_STAT:
        return conv_stat(&x, r);
    case SPC_CV_INFO:
        return conv_info(&x, r);
    case SPC_CV_OFFLOAD:
        return conv_offload(&x, r, keep, kept);
    case SPC_CV_LEASE:
        return conv_lease(&x, r);
    case SPC_CV_LEASES:
        return conv_leases(&x, r, keep, kept);
    case SPC_CV_CHANGES:
        return conv_changes(&x, r, keep, kept);
    case SPC_CV_META:
        return conv_meta(&x, r, keep, kept);
    case SPC_CV_SNAPSHOTS:
        return conv_snapshots(&x, r, keep, kept);
    case SPC_CV_DIFF:
        return conv_diff(&x, r, keep, kept);
    case SPC_CV_HISTORY:
        return conv_history(&x, r, keep, kept);
    }
    return protocol(&x, "unknown conversion");
}

/* ---- results ---- */

void spc_content_free(spc_content *c)
{
    if (!c)
        return;
    if (c->priv)
        freeReplyObject(c->priv);
    free(c);
}

void spc_grep_free(spc_grep *g)
{
    if (!g)
        return;
    if (g->priv)
        freeReplyObject(g->priv);
    free(g);
}

void spc_list_free(spc_list *l)
{
    if (!l)
        return;
    if (l->priv)
        freeReplyObject(l->priv);
    free(l);
}

void spc_offload_free(spc_offload *o)
{
    if (!o)
        return;
    if (o->priv)
        freeReplyObject(o->priv);
    free(o);
}

/* The new results all end in the same way: a reply kept in priv, one allocation. */
#define DEFINE_FREE(fn, type)         \
    void fn(type *p)                  \
    {                                 \
        if (!p)                       \
            return;                   \
        if (p->priv)                  \
            freeReplyObject(p->priv); \
        free(p);                      \
    }
DEFINE_FREE(spc_leases_free, spc_leases)
DEFINE_FREE(spc_changes_free, spc_changes)
DEFINE_FREE(spc_meta_free, spc_meta)
DEFINE_FREE(spc_snapshots_free, spc_snapshots)
DEFINE_FREE(spc_diff_free, spc_diff)
DEFINE_FREE(spc_history_free, spc_history)

void spc_result_release(spc_result *res)
{
    spc_content_free(res->content);
    spc_grep_free(res->grep);
    spc_list_free(res->list);
    spc_offload_free(res->offload);
    spc_leases_free(res->leases);
    spc_changes_free(res->changes);
    spc_meta_free(res->meta);
    spc_snapshots_free(res->snapshots);
    spc_diff_free(res->diff);
    spc_history_free(res->history);
    res->content = NULL;
    res->grep = NULL;
    res->list = NULL;
    res->offload = NULL;
    res->leases = NULL;
    res->changes = NULL;
    res->meta = NULL;
    res->snapshots = NULL;
    res->diff = NULL;
    res->history = NULL;
}

const char *spc_status_name(int status)
{
    static const char *const names[] = {
        "SP_OK",         "SP_ERR_NOTFOUND", "SP_ERR_CONDITION", "SP_ERR_VERSION", "SP_ERR_WRONGTYPE",
        "SP_ERR_NAME",   "SP_ERR_NOMATCH",  "SP_ERR_AMBIGUOUS", "SP_ERR_AUTH",    "SP_ERR_SERVER",
        "SP_ERR_ARG",    "SP_ERR_PROTOCOL", "SP_ERR_IO",        "SP_ERR_TIMEOUT", "SP_ERR_OOM",
        "SP_ERR_NOPERM", "SP_ERR_LEASED",   "SP_ERR_FENCED",
    };
    if (status < 0 || (size_t)status >= sizeof(names) / sizeof(names[0]))
        return "SP_ERR_UNKNOWN";
    return names[status];
}
