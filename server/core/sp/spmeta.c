/* spmeta.c -- an entry's metadata map (spmeta.h).
 *
 * Layout: one allocation, a header, an array of n spmeta_kv sorted by field
 * name, then the fields' and values' bytes the array points into. Building a
 * new map collects the fields into a stack array of at most 2 x
 * SPMETA_MAX_FIELDS + the edit's, sorts it, drops duplicates (the later one
 * wins) and packs once; maps are small, so every operation is a linear pass. */
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "sp/spmeta.h"

struct spmeta {
    size_t n;       /* fields */
    size_t bytes;   /* field and value bytes */
    spmeta_kv kv[]; /* n of them, by name; then the bytes */
};

int spmeta_field_valid(const char *f, size_t n)
{
    size_t i;

    if (n < 1 || n > SPMETA_FIELD_MAX)
        return 0;
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)f[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '-' || ch == '.' || ch == ':' || ch == '/'))
            return 0;
    }
    return 1;
}

static int kv_cmp(const spmeta_kv *a, const spmeta_kv *b)
{
    size_t n = a->flen < b->flen ? a->flen : b->flen;
    int c = memcmp(a->f, b->f, n);
    return c ? c : (a->flen > b->flen) - (a->flen < b->flen);
}

/* A field being collected: its kv and the order it came in (a later one wins). */
typedef struct pending {
    spmeta_kv kv;
    size_t seq;
} pending;

static int pending_cmp(const void *x, const void *y)
{
    const pending *a = x, *b = y;
    int c = kv_cmp(&a->kv, &b->kv);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

/* Pack kv[0..n) (sorted, unique) into a new map. */
static spmeta *pack(const spmeta_kv *kv, size_t n, size_t bytes)
{
    spmeta *m = xmalloc(sizeof(spmeta) + n * sizeof(spmeta_kv) + (bytes ? bytes : 1));
    char *p = (char *)(m->kv + n);
    size_t i;

    m->n = n;
    m->bytes = bytes;
    for (i = 0; i < n; i++) {
        memcpy(p, kv[i].f, kv[i].flen);
        m->kv[i].f = p;
        m->kv[i].flen = kv[i].flen;
        p += kv[i].flen;
        memcpy(p, kv[i].v, kv[i].vlen);
        m->kv[i].v = p;
        m->kv[i].vlen = kv[i].vlen;
        p += kv[i].vlen;
    }
    return m;
}

int spmeta_edit(const spmeta *old, int clear, const spmeta_kv *set, size_t nset, const spmeta_kv *del, size_t ndel,
                spmeta **out)
{
    size_t nold = clear || !old ? 0 : old->n, total = nold + nset, i, j, n = 0, bytes = 0;
    pending *all = xmalloc((total ? total : 1) * sizeof(pending));
    spmeta_kv *keep = xmalloc((total ? total : 1) * sizeof(spmeta_kv));
    int rc = SPMETA_OK;

    *out = NULL;
    for (i = 0; i < nold; i++) {
        all[i].kv = old->kv[i];
        all[i].seq = i;
    }
    for (i = 0; i < nset; i++) {
        all[nold + i].kv = set[i];
        all[nold + i].seq = nold + i;
    }
    qsort(all, total, sizeof(pending), pending_cmp);
    for (i = 0; i < total; i++) {
        if (i + 1 < total && kv_cmp(&all[i].kv, &all[i + 1].kv) == 0)
            continue; /* the next one, later, wins */
        for (j = 0; j < ndel; j++)
            if (kv_cmp(&all[i].kv, &del[j]) == 0)
                break;
        if (j < ndel)
            continue;
        keep[n++] = all[i].kv;
        bytes += all[i].kv.flen + all[i].kv.vlen;
    }
    if (n > SPMETA_MAX_FIELDS)
        rc = SPMETA_TOO_MANY;
    else if (bytes > SPMETA_MAX_BYTES)
        rc = SPMETA_TOO_BIG;
    else if (n)
        *out = pack(keep, n, bytes);
    xfree(keep);
    xfree(all);
    return rc;
}

size_t spmeta_count(const spmeta *m)
{
    return m ? m->n : 0;
}

size_t spmeta_bytes(const spmeta *m)
{
    return m ? m->bytes : 0;
}

size_t spmeta_stored(const spmeta *m)
{
    return m ? xmalloc_size(m) : 0;
}

void spmeta_at(const spmeta *m, size_t i, spmeta_kv *kv)
{
    *kv = m->kv[i];
}

const char *spmeta_get(const spmeta *m, const char *f, size_t flen, size_t *vlen)
{
    size_t i;

    for (i = 0; m && i < m->n; i++) {
        if (m->kv[i].flen == flen && memcmp(m->kv[i].f, f, flen) == 0) {
            *vlen = m->kv[i].vlen;
            return m->kv[i].v;
        }
    }
    return NULL;
}

spmeta *spmeta_dup(const spmeta *m)
{
    return m ? pack(m->kv, m->n, m->bytes) : NULL;
}

int spmeta_equal(const spmeta *a, const spmeta *b)
{
    size_t i;

    if (spmeta_count(a) != spmeta_count(b))
        return 0;
    for (i = 0; i < spmeta_count(a); i++)
        if (kv_cmp(&a->kv[i], &b->kv[i]) != 0 || a->kv[i].vlen != b->kv[i].vlen ||
            memcmp(a->kv[i].v, b->kv[i].v, a->kv[i].vlen) != 0)
            return 0;
    return 1;
}

void spmeta_free(spmeta *m)
{
    xfree(m);
}
