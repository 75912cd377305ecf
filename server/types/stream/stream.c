/* stream.c -- the stream type (see stream.h): ids, counters, consumer groups,
 * PELs and the type's row.
 *
 * The rewrite writes a stream as internal effects of its own, replayed by
 * this file (docs/aof.md): _XSTREAM (the key, empty, with its last id,
 * entries added and max deleted id), _XENTRIES (entries in batches of at most
 * STREAM_REWRITE_BATCH entries or about STREAM_REWRITE_BYTES bytes), then per
 * group _XGROUP, its consumers (_XCONSUMER, seen time kept) and its pending
 * entries (_XPEL, batched), pausing between records so a huge stream is
 * written in bounded pieces; then PEXPIREAT for its expiry. */
#include "types/stream/stream.h"

#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "core/util.h"
#include "keyspace/type.h"

#define STREAM_REWRITE_BATCH 256
#define STREAM_REWRITE_BYTES (64 * 1024)

long long stream_node_max_bytes = 4096;
long long stream_node_max_entries = 100;

/* ---- ids ---- */

static int parse_u64(const char *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (n == 0 || n > 20)
        return -1;
    for (i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        if (v > (UINT64_MAX - (uint64_t)(p[i] - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    *out = v;
    return 0;
}

int stream_parse_id(const char *p, size_t n, uint64_t missing_seq, int edges, xs_id *id, int *seq_given)
{
    const char *dash;

    if (seq_given)
        *seq_given = 1;
    if (n > 127)
        return -1;
    if (edges && n == 1 && (p[0] == '-' || p[0] == '+')) {
        id->ms = id->seq = p[0] == '-' ? 0 : UINT64_MAX;
        return 0;
    }
    dash = memchr(p, '-', n);
    if (!dash) {
        id->seq = missing_seq;
        return parse_u64(p, n, &id->ms);
    }
    if (parse_u64(p, (size_t)(dash - p), &id->ms) < 0)
        return -1;
    if (seq_given && dash + 2 == p + n && dash[1] == '*') {
        *seq_given = 0;
        id->seq = 0;
        return 0;
    }
    return parse_u64(dash + 1, (size_t)(p + n - dash - 1), &id->seq);
}

size_t stream_fmt_id(char *buf, const xs_id *id)
{
    size_t n = ull_to_str(buf, id->ms);

    buf[n++] = '-';
    return n + ull_to_str(buf + n, id->seq);
}

int stream_id_incr(xs_id *id)
{
    if (id->seq == UINT64_MAX) {
        if (id->ms == UINT64_MAX)
            return -1;
        id->ms++;
        id->seq = 0;
    } else {
        id->seq++;
    }
    return 0;
}

int stream_id_decr(xs_id *id)
{
    if (id->seq == 0) {
        if (id->ms == 0)
            return -1;
        id->ms--;
        id->seq = UINT64_MAX;
    } else {
        id->seq--;
    }
    return 0;
}

/* ---- entries and counters ---- */

dbent *stream_create(db *d, const char *key, size_t klen)
{
    dbent *e = db_add(d, key, klen, OBJ_STREAM, sizeof(void *));
    stream *s = xcalloc(1, sizeof(stream));

    s->x = xs_new();
    dbent_set_ptr(e, s);
    e->enc = ENC_PTR;
    return e;
}

xs_id stream_first_id(const stream *s)
{
    xs_id id = {0, 0};
    xs_first(s->x, &id);
    return id;
}

void stream_append(stream *s, const xs_id *id, const xs_str *fv, size_t nfv)
{
    xs_append(s->x, id, fv, nfv, (size_t)stream_node_max_bytes, (size_t)stream_node_max_entries);
    s->last_id = *id;
    s->entries_added++;
}

int stream_delete(stream *s, const xs_id *id)
{
    if (!xs_delete(s->x, id))
        return 0;
    if (xs_id_cmp(id, &s->max_deleted) > 0)
        s->max_deleted = *id;
    return 1;
}

uint64_t stream_trim(stream *s, uint64_t maxlen, const xs_id *minid, int approx, uint64_t limit)
{
    return minid ? xs_trim_minid(s->x, minid, approx, limit) : xs_trim_maxlen(s->x, maxlen, approx, limit);
}

int stream_range_has_tombstones(const stream *s, const xs_id *start, const xs_id *end)
{
    xs_id first, lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX};

    if (xs_len(s->x) == 0 || (s->max_deleted.ms == 0 && s->max_deleted.seq == 0))
        return 0;
    first = stream_first_id(s);
    if (xs_id_cmp(&first, &s->max_deleted) > 0)
        return 0;
    if (start)
        lo = *start;
    if (end)
        hi = *end;
    return xs_id_cmp(&lo, &s->max_deleted) <= 0 && xs_id_cmp(&s->max_deleted, &hi) <= 0;
}

long long stream_estimate_read(const stream *s, const xs_id *id)
{
    xs_id first;
    int cmp_last, cmp_first;

    if (!s->entries_added)
        return 0;
    if (xs_len(s->x) == 0 && xs_id_cmp(id, &s->last_id) < 1)
        return (long long)s->entries_added;
    cmp_last = xs_id_cmp(id, &s->last_id);
    if (cmp_last == 0)
        return (long long)s->entries_added;
    if (cmp_last > 0)
        return XS_INVALID_READ;
    first = stream_first_id(s);
    cmp_first = xs_id_cmp(id, &first);
    if ((s->max_deleted.ms == 0 && s->max_deleted.seq == 0) || xs_id_cmp(&s->max_deleted, &first) < 0) {
        if (cmp_first < 0)
            return (long long)(s->entries_added - xs_len(s->x));
        if (cmp_first == 0)
            return (long long)(s->entries_added - xs_len(s->x) + 1);
    }
    return XS_INVALID_READ;
}

int stream_group_lag(const stream *s, const xgroup *g, long long *lag)
{
    long long r;

    *lag = 0;
    if (!s->entries_added)
        return 0;
    if (g->entries_read != XS_INVALID_READ && !stream_range_has_tombstones(s, &g->last_id, NULL)) {
        *lag = (long long)s->entries_added - g->entries_read;
        return 0;
    }
    r = stream_estimate_read(s, &g->last_id);
    if (r == XS_INVALID_READ)
        return -1;
    *lag = (long long)s->entries_added - r;
    return 0;
}

/* ---- PELs ---- */

static void pel_free(xpel *p)
{
    size_t i;

    for (i = 0; i < p->nc; i++)
        xfree(p->c[i]);
    xfree(p->c);
    memset(p, 0, sizeof(*p));
}

size_t pel_bytes(const xpel *p)
{
    size_t n = p->ccap * sizeof(pel_chunk *), i;

    for (i = 0; i < p->nc; i++)
        n += sizeof(pel_chunk) + p->c[i]->cap * sizeof(xnack *);
    return n;
}

void pel_seek(const xpel *p, size_t i)
{
    /* The cursor is a cache of where the last read was, not part of the
     * list's value: moving it leaves the list as it was. */
    xpel *m = (xpel *)p;
    size_t c = m->at_c, base = m->at_base;

    if (c >= m->nc || i < base) { /* readers walk forwards: start again from the first chunk */
        c = 0;
        base = 0;
    }
    while (i - base >= m->c[c]->n) {
        base += m->c[c]->n;
        c++;
    }
    m->at_c = c;
    m->at_base = base;
}

/* Index of the first id >= id inside chunk k. */
static uint32_t chunk_lower(const pel_chunk *k, const xs_id *id)
{
    uint32_t lo = 0, hi = k->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (xs_id_cmp(&k->a[mid]->id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The chunk where id is or would go: the last whose first id <= id (0 if none). */
static size_t chunk_of(const xpel *p, const xs_id *id)
{
    size_t lo = 1, hi = p->nc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (xs_id_cmp(&p->c[mid]->a[0]->id, id) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

size_t pel_lower(const xpel *p, const xs_id *id)
{
    size_t k, base = 0, i;

    if (p->n == 0)
        return 0;
    k = chunk_of(p, id);
    for (i = 0; i < k; i++)
        base += p->c[i]->n;
    ((xpel *)p)->at_c = k; /* a cache: see pel_seek */
    ((xpel *)p)->at_base = base;
    /* past chunk k's last id, base + n is the next chunk's first (or p->n) */
    return base + chunk_lower(p->c[k], id);
}

xnack *pel_find(const xpel *p, const xs_id *id)
{
    const pel_chunk *k;
    uint32_t j;

    if (p->n == 0)
        return NULL;
    k = p->c[chunk_of(p, id)];
    j = chunk_lower(k, id);
    return j < k->n && xs_id_cmp(&k->a[j]->id, id) == 0 ? k->a[j] : NULL;
}

static pel_chunk *chunk_new(uint32_t cap)
{
    pel_chunk *k = xmalloc(sizeof(pel_chunk) + cap * sizeof(xnack *));
    k->n = 0;
    k->cap = cap;
    return k;
}

/* Make room for a chunk at index at of the chunk array and put k there. */
static void chunks_insert(xpel *p, size_t at, pel_chunk *k)
{
    if (p->nc == p->ccap) {
        p->ccap = p->ccap ? p->ccap * 2 : 1;
        p->c = xrealloc(p->c, p->ccap * sizeof(pel_chunk *));
    }
    memmove(p->c + at + 1, p->c + at, (p->nc - at) * sizeof(pel_chunk *));
    p->c[at] = k;
    p->nc++;
}

static void pel_insert(xpel *p, xnack *n)
{
    size_t ki;
    pel_chunk *k;
    uint32_t j;

    p->at_c = PEL_NOWHERE; /* the cursor is stale */
    if (p->nc == 0) {
        chunks_insert(p, 0, chunk_new(4));
    }
    ki = p->n && xs_id_cmp(&p->c[p->nc - 1]->a[p->c[p->nc - 1]->n - 1]->id, &n->id) < 0 ? p->nc - 1
                                                                                        : chunk_of(p, &n->id);
    k = p->c[ki];
    j = chunk_lower(k, &n->id);
    if (k->n == PEL_CHUNK) {
        pel_chunk *r;
        if (j == PEL_CHUNK && ki == p->nc - 1) { /* appending: a new last chunk */
            r = chunk_new(4);
            chunks_insert(p, ki + 1, r);
            r->a[r->n++] = n;
            p->n++;
            return;
        }
        r = chunk_new(PEL_CHUNK);
        r->n = PEL_CHUNK / 2;
        memcpy(r->a, k->a + PEL_CHUNK / 2, r->n * sizeof(xnack *));
        k->n = PEL_CHUNK / 2;
        chunks_insert(p, ki + 1, r);
        if (j > k->n) {
            j -= k->n;
            k = r;
        }
    } else if (k->n == k->cap) {
        k->cap = k->cap * 2 < PEL_CHUNK ? k->cap * 2 : PEL_CHUNK;
        k = p->c[ki] = xrealloc(k, sizeof(pel_chunk) + k->cap * sizeof(xnack *));
    }
    memmove(k->a + j + 1, k->a + j, (k->n - j) * sizeof(xnack *));
    k->a[j] = n;
    k->n++;
    p->n++;
}

static void pel_remove(xpel *p, const xs_id *id)
{
    size_t ki;
    pel_chunk *k;
    uint32_t j;

    if (p->n == 0)
        return;
    ki = chunk_of(p, id);
    k = p->c[ki];
    j = chunk_lower(k, id);
    if (j >= k->n || xs_id_cmp(&k->a[j]->id, id) != 0)
        return;
    p->at_c = PEL_NOWHERE; /* the cursor is stale */
    memmove(k->a + j, k->a + j + 1, (k->n - j - 1) * sizeof(xnack *));
    k->n--;
    p->n--;
    if (k->n == 0) {
        xfree(k);
        memmove(p->c + ki, p->c + ki + 1, (p->nc - ki - 1) * sizeof(pel_chunk *));
        p->nc--;
        if (p->nc == 0)
            pel_free(p);
    } else if (k->cap > 8 && k->n < k->cap / 4) {
        k->cap /= 2;
        p->c[ki] = xrealloc(k, sizeof(pel_chunk) + k->cap * sizeof(xnack *));
    }
}

xnack *stream_nack_add(xgroup *g, xconsumer *c, const xs_id *id, int64_t time, uint64_t count)
{
    xnack *n = xmalloc(sizeof(xnack));

    n->id = *id;
    n->delivery_time = time;
    n->delivery_count = count;
    n->consumer = c;
    pel_insert(&g->pel, n);
    pel_insert(&c->pel, n);
    return n;
}

void stream_nack_move(xnack *n, xconsumer *c)
{
    if (n->consumer == c)
        return;
    pel_remove(&n->consumer->pel, &n->id);
    n->consumer = c;
    pel_insert(&c->pel, n);
}

void stream_nack_del(xgroup *g, xnack *n)
{
    xs_id id = n->id;
    pel_remove(&n->consumer->pel, &id);
    pel_remove(&g->pel, &id);
    xfree(n);
}

/* ---- groups and consumers ---- */

static int name_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c)
        return c;
    return an < bn ? -1 : an > bn;
}

/* Index of the first element of arr (names at the given offsets) >= name. */
#define NAME_LOWER(arr, count, nm, nl, out)                                     \
    do {                                                                        \
        size_t lo_ = 0, hi_ = (count);                                          \
        while (lo_ < hi_) {                                                     \
            size_t mid_ = lo_ + (hi_ - lo_) / 2;                                \
            if (name_cmp((arr)[mid_]->name, (arr)[mid_]->nlen, (nm), (nl)) < 0) \
                lo_ = mid_ + 1;                                                 \
            else                                                                \
                hi_ = mid_;                                                     \
        }                                                                       \
        (out) = lo_;                                                            \
    } while (0)

xgroup *stream_group_find(const stream *s, const char *name, size_t n)
{
    size_t i;
    NAME_LOWER(s->groups, s->ngroups, name, n, i);
    return i < s->ngroups && name_cmp(s->groups[i]->name, s->groups[i]->nlen, name, n) == 0 ? s->groups[i] : NULL;
}

xgroup *stream_group_create(stream *s, const char *name, size_t n, const xs_id *last_id, long long entries_read)
{
    xgroup *g;
    size_t i;

    NAME_LOWER(s->groups, s->ngroups, name, n, i);
    if (i < s->ngroups && name_cmp(s->groups[i]->name, s->groups[i]->nlen, name, n) == 0)
        return NULL;
    g = xcalloc(1, sizeof(xgroup));
    g->name = xstrndup(name, n);
    g->nlen = n;
    g->last_id = *last_id;
    g->entries_read = entries_read;
    s->groups = xrealloc(s->groups, (s->ngroups + 1) * sizeof(xgroup *));
    memmove(s->groups + i + 1, s->groups + i, (s->ngroups - i) * sizeof(xgroup *));
    s->groups[i] = g;
    s->ngroups++;
    return g;
}

static void consumer_free(xconsumer *c)
{
    pel_free(&c->pel);
    xfree(c->name);
    xfree(c);
}

static void group_free(xgroup *g)
{
    size_t i;
    for (i = 0; i < g->pel.n; i++)
        xfree(pel_at(&g->pel, i));
    pel_free(&g->pel);
    for (i = 0; i < g->ncons; i++)
        consumer_free(g->cons[i]);
    xfree(g->cons);
    xfree(g->name);
    xfree(g);
}

int stream_group_destroy(stream *s, const char *name, size_t n)
{
    size_t i;

    NAME_LOWER(s->groups, s->ngroups, name, n, i);
    if (i >= s->ngroups || name_cmp(s->groups[i]->name, s->groups[i]->nlen, name, n) != 0)
        return 0;
    group_free(s->groups[i]);
    memmove(s->groups + i, s->groups + i + 1, (s->ngroups - i - 1) * sizeof(xgroup *));
    s->ngroups--;
    return 1;
}

xconsumer *stream_consumer_find(const xgroup *g, const char *name, size_t n)
{
    size_t i;
    NAME_LOWER(g->cons, g->ncons, name, n, i);
    return i < g->ncons && name_cmp(g->cons[i]->name, g->cons[i]->nlen, name, n) == 0 ? g->cons[i] : NULL;
}

xconsumer *stream_consumer_get(xgroup *g, const char *name, size_t n, int64_t now, int *created)
{
    xconsumer *c;
    size_t i;

    if (created)
        *created = 0;
    NAME_LOWER(g->cons, g->ncons, name, n, i);
    if (i < g->ncons && name_cmp(g->cons[i]->name, g->cons[i]->nlen, name, n) == 0)
        return g->cons[i];
    c = xcalloc(1, sizeof(xconsumer));
    c->name = xstrndup(name, n);
    c->nlen = n;
    c->seen_time = now;
    g->cons = xrealloc(g->cons, (g->ncons + 1) * sizeof(xconsumer *));
    memmove(g->cons + i + 1, g->cons + i, (g->ncons - i) * sizeof(xconsumer *));
    g->cons[i] = c;
    g->ncons++;
    if (created)
        *created = 1;
    return c;
}

uint64_t stream_consumer_delete(xgroup *g, xconsumer *c)
{
    uint64_t n = c->pel.n;
    size_t i;

    while (c->pel.n > 0)
        stream_nack_del(g, pel_at(&c->pel, 0));
    for (i = 0; i < g->ncons; i++)
        if (g->cons[i] == c)
            break;
    memmove(g->cons + i, g->cons + i + 1, (g->ncons - i - 1) * sizeof(xconsumer *));
    g->ncons--;
    consumer_free(c);
    return n;
}

/* ---- the stream as a keyspace type ---- */

static const char *type_encoding(const dbent *e)
{
    (void)e;
    return "stream";
}

static void type_free_value(dbent *e)
{
    stream *s = stream_of(e);
    size_t i;

    for (i = 0; i < s->ngroups; i++)
        group_free(s->groups[i]);
    xfree(s->groups);
    xs_free(s->x);
    xfree(s);
}

static void *type_dup_value(const dbent *e)
{
    const stream *s = stream_of(e);
    stream *d = xcalloc(1, sizeof(stream));
    size_t i, j;

    d->x = xs_dup(s->x);
    d->last_id = s->last_id;
    d->max_deleted = s->max_deleted;
    d->entries_added = s->entries_added;
    for (i = 0; i < s->ngroups; i++) {
        const xgroup *g = s->groups[i];
        xgroup *ng = stream_group_create(d, g->name, g->nlen, &g->last_id, g->entries_read);
        for (j = 0; j < g->ncons; j++)
            stream_consumer_get(ng, g->cons[j]->name, g->cons[j]->nlen, g->cons[j]->seen_time, NULL);
        for (j = 0; j < g->pel.n; j++) {
            const xnack *n = pel_at(&g->pel, j);
            xconsumer *c = stream_consumer_find(ng, n->consumer->name, n->consumer->nlen);
            stream_nack_add(ng, c, &n->id, n->delivery_time, n->delivery_count);
        }
    }
    return d;
}

static size_t type_stored(const dbent *e)
{
    const stream *s = stream_of(e);
    size_t n = sizeof(stream) + xs_mem(s->x) + s->ngroups * sizeof(xgroup *), i, j;

    for (i = 0; i < s->ngroups; i++) {
        const xgroup *g = s->groups[i];
        n += sizeof(xgroup) + g->nlen + 1 + pel_bytes(&g->pel) + g->pel.n * sizeof(xnack);
        for (j = 0; j < g->ncons; j++)
            n += sizeof(xconsumer) + sizeof(xconsumer *) + g->cons[j]->nlen + 1 + pel_bytes(&g->cons[j]->pel);
    }
    return n;
}

static size_t type_logical(const dbent *e)
{
    const stream *s = stream_of(e);
    return xs_mem(s->x);
}

static void eo_id(const effect_out *o, const xs_id *id)
{
    char buf[48];
    eo_bytes(o, buf, stream_fmt_id(buf, id));
}

static void rw_head(const effect_out *o, int dbid, const dbent *e, const char *name)
{
    eo_begin(o, dbid);
    eo_str(o, name);
    eo_bytes(o, dbent_key(e), dbent_klen(e));
}

static int type_rewrite(const effect_out *o, int dbid, const dbent *e, int64_t expire, int64_t now, char *why,
                        size_t whylen)
{
    const stream *s = stream_of(e);
    xs_id lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX}, id;
    xs_iter it;
    uint64_t nf, k;
    int more;
    size_t i, j;

    (void)now;
    (void)why;
    (void)whylen;
    rw_head(o, dbid, e, "_XSTREAM");
    eo_id(o, &s->last_id);
    eo_ll(o, (long long)s->entries_added);
    eo_id(o, &s->max_deleted);
    eo_end(o);
    xs_iter_init(&it, s->x, &lo, &hi, 0);
    more = xs_next(&it, &id, &nf);
    while (more) {
        size_t n = 0, bytes = 0;
        eo_pause(o);
        rw_head(o, dbid, e, "_XENTRIES");
        while (more && n < STREAM_REWRITE_BATCH && bytes < STREAM_REWRITE_BYTES) {
            eo_id(o, &id);
            eo_ll(o, (long long)nf);
            for (k = 0; k < nf; k++) {
                const char *f, *v;
                size_t fl, vl;
                xs_field(&it, &f, &fl, &v, &vl);
                eo_bytes(o, f, fl);
                eo_bytes(o, v, vl);
                bytes += fl + vl;
            }
            n++;
            more = xs_next(&it, &id, &nf);
        }
        eo_end(o);
    }
    for (i = 0; i < s->ngroups; i++) {
        const xgroup *g = s->groups[i];
        eo_pause(o);
        rw_head(o, dbid, e, "_XGROUP");
        eo_bytes(o, g->name, g->nlen);
        eo_id(o, &g->last_id);
        eo_ll(o, g->entries_read);
        eo_end(o);
        for (j = 0; j < g->ncons; j++) {
            const xconsumer *c = g->cons[j];
            rw_head(o, dbid, e, "_XCONSUMER");
            eo_bytes(o, g->name, g->nlen);
            eo_bytes(o, c->name, c->nlen);
            eo_ll(o, c->seen_time);
            eo_end(o);
            for (k = 0; k < c->pel.n;) {
                size_t b = 0;
                eo_pause(o);
                rw_head(o, dbid, e, "_XPEL");
                eo_bytes(o, g->name, g->nlen);
                eo_bytes(o, c->name, c->nlen);
                for (; k < c->pel.n && b < STREAM_REWRITE_BATCH; k++, b++) {
                    const xnack *n = pel_at(&c->pel, k);
                    eo_id(o, &n->id);
                    eo_ll(o, n->delivery_time);
                    eo_ll(o, (long long)n->delivery_count);
                }
                eo_end(o);
            }
        }
    }
    if (expire >= 0) {
        rw_head(o, dbid, e, "PEXPIREAT");
        eo_ll(o, expire);
        eo_end(o);
    }
    return 0;
}

/* ---- replaying the rewrite's effects ---- */

static int replay_fail(char *why, size_t whylen, const char *msg, const effect_arg *name)
{
    snprintf(why, whylen, "%s (effect %.*s)", msg, (int)(name->len > 32 ? 32 : name->len), name->p);
    return -1;
}

static int arg_id(const effect_arg *a, xs_id *id)
{
    return a->lz ? -1 : stream_parse_id(a->p, a->len, 0, 0, id, NULL);
}

static int arg_num(const effect_arg *a, long long *v)
{
    return a->lz ? -1 : str_to_ll(a->p, a->len, v);
}

/* The stream at key a[1], or NULL (why set) if missing or of another type. */
static stream *replay_stream(db *d, const effect_arg *a, char *why, size_t whylen)
{
    dbent *e = a[1].lz ? NULL : db_find_raw(d, a[1].p, a[1].len);
    if (!e || e->type != OBJ_STREAM) {
        replay_fail(why, whylen, "no stream at the key", &a[0]);
        return NULL;
    }
    return stream_of(e);
}

/* _XSTREAM key last_id entries_added max_deleted: a new empty stream. */
static int apply_xstream(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    xs_id last, maxdel;
    long long added;
    dbent *e;
    stream *s;

    (void)r;
    (void)dbid;
    if (argc != 5 || a[1].lz || arg_id(&a[2], &last) < 0 || arg_num(&a[3], &added) < 0 || added < 0 ||
        arg_id(&a[4], &maxdel) < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    db_delete(d, a[1].p, a[1].len);
    e = stream_create(d, a[1].p, a[1].len);
    s = stream_of(e);
    s->last_id = last;
    s->entries_added = (uint64_t)added;
    s->max_deleted = maxdel;
    return 0;
}

/* _XENTRIES key id nf f v ... [id nf f v ...] */
static int apply_xentries(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    stream *s = replay_stream(d, a, why, whylen);
    int i = 2, k;

    (void)r;
    (void)dbid;
    if (!s)
        return -1;
    while (i < argc) {
        xs_id id, top;
        long long nf;
        xs_str fv[64], *big = NULL, *use = fv;
        if (i + 1 >= argc || arg_id(&a[i], &id) < 0 || arg_num(&a[i + 1], &nf) < 0 || nf < 1 || nf > (argc - i - 2) / 2)
            return replay_fail(why, whylen, "malformed entry", &a[0]);
        if (xs_last(s->x, &top) == 0 && xs_id_cmp(&id, &top) <= 0)
            return replay_fail(why, whylen, "entry ids out of order", &a[0]);
        if (2 * nf > 64)
            use = big = xmalloc(sizeof(xs_str) * (size_t)(2 * nf));
        for (k = 0; k < 2 * nf; k++) {
            const effect_arg *x = &a[i + 2 + k];
            if (x->lz) {
                xfree(big);
                return replay_fail(why, whylen, "malformed entry", &a[0]);
            }
            use[k].p = x->p;
            use[k].len = x->len;
        }
        xs_append(s->x, &id, use, (size_t)(2 * nf), (size_t)stream_node_max_bytes, (size_t)stream_node_max_entries);
        xfree(big);
        i += 2 + (int)(2 * nf);
    }
    return 0;
}

/* _XGROUP key name last_id entries_read */
static int apply_xgroup(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    stream *s = replay_stream(d, a, why, whylen);
    xs_id last;
    long long rd;

    (void)r;
    (void)dbid;
    if (!s)
        return -1;
    if (argc != 5 || a[2].lz || arg_id(&a[3], &last) < 0 || arg_num(&a[4], &rd) < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    stream_group_destroy(s, a[2].p, a[2].len);
    stream_group_create(s, a[2].p, a[2].len, &last, rd);
    return 0;
}

/* _XCONSUMER key group name seen_time */
static int apply_xconsumer(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    stream *s = replay_stream(d, a, why, whylen);
    xgroup *g;
    xconsumer *c;
    long long seen;

    (void)r;
    (void)dbid;
    if (!s)
        return -1;
    if (argc != 5 || a[2].lz || a[3].lz || arg_num(&a[4], &seen) < 0)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if (!(g = stream_group_find(s, a[2].p, a[2].len)))
        return replay_fail(why, whylen, "no such group", &a[0]);
    c = stream_consumer_get(g, a[3].p, a[3].len, seen, NULL);
    c->seen_time = seen;
    return 0;
}

/* _XPEL key group consumer id time count [id time count ...] */
static int apply_xpel(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    stream *s = replay_stream(d, a, why, whylen);
    xgroup *g;
    xconsumer *c;
    int i;

    (void)r;
    (void)dbid;
    if (!s)
        return -1;
    if (argc < 4 || (argc - 4) % 3 != 0 || a[2].lz || a[3].lz)
        return replay_fail(why, whylen, "malformed arguments", &a[0]);
    if (!(g = stream_group_find(s, a[2].p, a[2].len)) || !(c = stream_consumer_find(g, a[3].p, a[3].len)))
        return replay_fail(why, whylen, "no such group or consumer", &a[0]);
    for (i = 4; i < argc; i += 3) {
        xs_id id;
        long long t, n;
        xnack *old;
        if (arg_id(&a[i], &id) < 0 || arg_num(&a[i + 1], &t) < 0 || arg_num(&a[i + 2], &n) < 0 || n < 0)
            return replay_fail(why, whylen, "malformed pending entry", &a[0]);
        if ((old = pel_find(&g->pel, &id)))
            stream_nack_del(g, old);
        stream_nack_add(g, c, &id, t, (uint64_t)n);
    }
    return 0;
}

static const type_effect stream_effects[] = {
    {"_XSTREAM", apply_xstream},     {"_XENTRIES", apply_xentries}, {"_XGROUP", apply_xgroup},
    {"_XCONSUMER", apply_xconsumer}, {"_XPEL", apply_xpel},         {NULL, NULL},
};

static int type_debug_lz(dbent *e, const char *part, size_t plen, struct lzval **out)
{
    (void)e;
    (void)part;
    (void)plen;
    (void)out;
    return -1;
}

static const type_def stream_type = {
    .name = "stream",
    .encoding = type_encoding,
    .free_value = type_free_value,
    .dup_value = type_dup_value,
    .stored = type_stored,
    .logical = type_logical,
    .rewrite = type_rewrite,
    .effects = stream_effects,
    .debug_lz = type_debug_lz,
};

void stream_type_register(void)
{
    type_register(OBJ_STREAM, &stream_type);
}
