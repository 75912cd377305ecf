/* sphist.c -- the history of a scratchpad's entries (see sp.h).
 *
 * Why: an agent that broke an entry wants the version before (SP.HISTORY,
 * SP.READ VERSION, SP.REVERT) without a snapshot of the whole scratchpad.
 *
 * How: a history record holds a share of an entry state, exactly as a
 * snapshot does, so keeping a version costs what changed after it: the live
 * entry is copied before its next change (sp_own), the old state stays here,
 * its compressed content still shared with the copy until the content itself
 * changes. Histories are kept per name in an array sorted by name; a name's
 * records are its last versions, oldest first, the newest being the live
 * state. Deleting an entry drops its history. */
#include <string.h>

#include "mem.h"
#include "sp/sp.h"

static size_t hist_lower(const sp *s, const char *name, size_t nlen)
{
    size_t lo = 0, hi = s->nhist;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sp_name_cmp(s->hist[mid]->name, s->hist[mid]->nlen, name, nlen) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

sp_hist *sp_hist_find(const sp *s, const char *name, size_t nlen)
{
    size_t i = hist_lower(s, name, nlen);

    return i < s->nhist && sp_name_cmp(s->hist[i]->name, s->hist[i]->nlen, name, nlen) == 0 ? s->hist[i] : NULL;
}

sp_histrec *sp_hist_version(const sp_hist *h, uint64_t v)
{
    size_t i;

    for (i = 0; h && i < h->n; i++)
        if (h->rec[i].e->version == v)
            return &h->rec[i];
    return NULL;
}

static void rec_free(sp_histrec *r)
{
    sp_entry_release(r->e);
    xfree(r->client);
}

static void hist_free(sp_hist *h)
{
    size_t i;

    for (i = 0; i < h->n; i++)
        rec_free(&h->rec[i]);
    xfree(h->rec);
    xfree(h);
}

void sp_hist_drop(sp *s, const char *name, size_t nlen)
{
    size_t i = hist_lower(s, name, nlen);

    if (i == s->nhist || sp_name_cmp(s->hist[i]->name, s->hist[i]->nlen, name, nlen) != 0)
        return;
    hist_free(s->hist[i]);
    memmove(&s->hist[i], &s->hist[i + 1], sizeof(sp_hist *) * (s->nhist - i - 1));
    if (--s->nhist == 0) {
        xfree(s->hist);
        s->hist = NULL;
    }
}

/* The history of e's name, created if absent. */
static sp_hist *hist_get(sp *s, const sp_entry *e)
{
    size_t i = hist_lower(s, e->name, e->nlen);
    sp_hist *h;

    if (i < s->nhist && sp_name_cmp(s->hist[i]->name, s->hist[i]->nlen, e->name, e->nlen) == 0)
        return s->hist[i];
    h = xcalloc(1, sizeof(sp_hist) + e->nlen + 1);
    h->nlen = e->nlen;
    memcpy(h->name, e->name, e->nlen);
    s->hist = xrealloc(s->hist, sizeof(sp_hist *) * (s->nhist + 1));
    memmove(&s->hist[i + 1], &s->hist[i], sizeof(sp_hist *) * (s->nhist - i));
    s->hist[i] = h;
    s->nhist++;
    return h;
}

void sp_hist_push(sp *s, sp_entry *e, int64_t time, int op, const char *client, size_t clen)
{
    sp_hist *h = hist_get(s, e);
    sp_histrec *r;

    h->rec = xrealloc(h->rec, sizeof(sp_histrec) * (h->n + 1));
    r = &h->rec[h->n++];
    r->e = e;
    r->time = time;
    r->op = (uint8_t)op;
    r->clen = (uint8_t)(clen > 255 ? 255 : clen);
    r->client = NULL;
    if (r->clen) {
        r->client = xmalloc(r->clen);
        memcpy(r->client, client, r->clen);
    }
}

void sp_hist_note(sp *s, sp_entry *e, int64_t time, int op, const char *client, size_t clen, size_t depth)
{
    sp_hist *h;

    if (depth == 0) {
        if (s->nhist)
            sp_hist_drop(s, e->name, e->nlen);
        return;
    }
    h = sp_hist_find(s, e->name, e->nlen);
    if (h && h->n && h->rec[h->n - 1].e->version >= e->version)
        return;
    sp_hist_push(s, sp_entry_share(e), time, op, client, clen);
    h = sp_hist_find(s, e->name, e->nlen);
    if (h->n > depth + 1) {
        size_t drop = h->n - (depth + 1), i;
        for (i = 0; i < drop; i++)
            rec_free(&h->rec[i]);
        memmove(&h->rec[0], &h->rec[drop], sizeof(sp_histrec) * (h->n - drop));
        h->n -= drop;
    }
}

void sp_hist_free_all(sp *s)
{
    size_t i;

    for (i = 0; i < s->nhist; i++)
        hist_free(s->hist[i]);
    xfree(s->hist);
    s->hist = NULL;
    s->nhist = 0;
}

size_t sp_hist_stored(const sp *s)
{
    size_t i, j, total = xmalloc_size(s->hist);

    for (i = 0; i < s->nhist; i++) {
        const sp_hist *h = s->hist[i];
        const sp_entry *live = sp_find(s, h->name, h->nlen);
        total += xmalloc_size(h) + xmalloc_size(h->rec);
        for (j = 0; j < h->n; j++)
            total += sp_entry_stored_beside(h->rec[j].e, live, j + 1 < h->n ? h->rec[j + 1].e : NULL) +
                     xmalloc_size(h->rec[j].client);
    }
    return total;
}
