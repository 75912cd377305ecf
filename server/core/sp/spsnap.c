/* spsnap.c -- a scratchpad's snapshots, restore and diff (see sp.h).
 *
 * Why: a harness freezes a scratchpad before an agent's cycle, compares after,
 * and goes back when the cycle went wrong; a sub-agent works in a fork. All of
 * it must cost what the entries' count costs, never their bytes.
 *
 * How: content is shared at the granularity of the whole entry. A snapshot is
 * an array of entry pointers, each holding one share of the entry (sp_entry's
 * `shares`); the live scratchpad copies an entry before changing it (sp_own),
 * and that copy shares the entry's compressed content (lzval_share), so
 * replacing an entry costs the same as without a snapshot. A change of a
 * shared compressed entry's content (append, edit, insert) takes a copy of the
 * value that shares its chunks (lzval_dup: the index, ~70 bytes a chunk) and
 * rebuilds only the chunks it touches, so memory grows by those chunks, not
 * by the entry (lzval.c, "sharing"); the snapshot of 10,000 entries in about
 * 80 KB (one pointer each) is what entry sharing gives, and an entry's copy is
 * its struct and its raw content, which is below the compression threshold.
 *
 * Invariants: a snapshot's entries are sorted by name and never change while
 * shared (every live change goes through sp_own); a snapshot label is 1..255
 * bytes. */
#include <string.h>

#include "mem.h"
#include "sp/sp.h"
#include "sp/spmeta.h"

sp_snap *sp_snap_find(const sp *s, const char *label, size_t llen)
{
    size_t i;

    for (i = 0; i < s->nsnaps; i++)
        if (s->snaps[i]->llen == llen && memcmp(s->snaps[i]->label, label, llen) == 0)
            return s->snaps[i];
    return NULL;
}

sp_snap *sp_snap_take(sp *s, const char *label, size_t llen, int64_t now)
{
    sp_snap *sn = xmalloc(sizeof(sp_snap) + llen + 1);
    size_t i;

    sn->n = s->n;
    sn->e = s->n ? xmalloc(sizeof(sp_entry *) * s->n) : NULL;
    for (i = 0; i < s->n; i++)
        sn->e[i] = sp_entry_share(s->e[i]);
    sn->time = now;
    sn->bytes = s->bytes;
    sn->llen = (uint8_t)llen;
    memcpy(sn->label, label, llen);
    sn->label[llen] = '\0';
    s->snaps = xrealloc(s->snaps, sizeof(sp_snap *) * (s->nsnaps + 1));
    s->snaps[s->nsnaps++] = sn;
    return sn;
}

void sp_snap_drop(sp *s, sp_snap *sn)
{
    size_t i, j;

    for (i = 0; i < s->nsnaps && s->snaps[i] != sn; i++)
        ;
    if (i == s->nsnaps)
        return;
    for (j = 0; j < sn->n; j++)
        sp_entry_release(sn->e[j]);
    xfree(sn->e);
    xfree(sn);
    memmove(&s->snaps[i], &s->snaps[i + 1], sizeof(sp_snap *) * (s->nsnaps - i - 1));
    if (--s->nsnaps == 0) {
        xfree(s->snaps);
        s->snaps = NULL;
    }
}

static int name_cmp2(const sp_entry *a, const sp_entry *b)
{
    return sp_name_cmp(a->name, a->nlen, b->name, b->nlen);
}

int sp_entry_same(const sp_entry *a, const sp_entry *b, const sp_params *pr)
{
    char bufa[4096], bufb[4096];
    size_t off;

    if (a == b)
        return 1;
    if (a->kind != b->kind || a->version != b->version || a->created != b->created || a->size != b->size ||
        !spmeta_equal(a->meta, b->meta))
        return 0;
    if (a->lz && a->lz == b->lz)
        return 1;
    for (off = 0; off < a->size; off += sizeof(bufa)) {
        size_t n = a->size - off < sizeof(bufa) ? a->size - off : sizeof(bufa);
        if (sp_entry_read(a, off, n, bufa, pr) < 0 || sp_entry_read(b, off, n, bufb, pr) < 0)
            return -1;
        if (memcmp(bufa, bufb, n) != 0)
            return 0;
    }
    return 1;
}

int sp_diff(sp_entry *const *a, size_t na, sp_entry *const *b, size_t nb, sp_diff_fn *fn, void *ctx,
            const sp_params *pr)
{
    size_t i = 0, j = 0;

    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : name_cmp2(a[i], b[j]);
        if (c < 0) {
            if (fn(ctx, a[i++], NULL) < 0)
                return -1;
        } else if (c > 0) {
            if (fn(ctx, NULL, b[j++]) < 0)
                return -1;
        } else {
            int same = sp_entry_same(a[i], b[j], pr);
            if (same < 0 || (!same && fn(ctx, a[i], b[j]) < 0))
                return -1;
            i++;
            j++;
        }
    }
    return 0;
}

size_t sp_restore(sp *s, const sp_snap *sn, int64_t now, sp_restore_fn *fn, void *ctx)
{
    size_t i = 0, j = 0, changes = 0;

    /* The live array changes under the walk: i indexes it and moves past each
     * entry kept or put. */
    while (i < s->n || j < sn->n) {
        int c = i == s->n ? 1 : j == sn->n ? -1 : name_cmp2(s->e[i], sn->e[j]);
        sp_entry *old = c <= 0 ? s->e[i] : NULL, *e;
        if (c < 0) {
            char name[SP_NAME_MAX + 1];
            size_t nlen = old->nlen;
            memcpy(name, old->name, nlen);
            sp_remove(s, old);
            changes++;
            if (fn)
                fn(ctx, name, nlen, NULL);
            continue;
        }
        if (c == 0 && (old == sn->e[j] || (old->kind == sn->e[j]->kind && old->version == sn->e[j]->version &&
                                           old->created == sn->e[j]->created && old->size == sn->e[j]->size &&
                                           old->expire == sn->e[j]->expire))) {
            i++;
            j++;
            continue;
        }
        e = sp_entry_clone(sn->e[j]);
        e->version = (old && old->version > e->version ? old->version : e->version);
        if (s->vdead > e->version)
            e->version = s->vdead;
        e->version++;
        e->updated = now;
        sp_put(s, e);
        changes++;
        if (fn)
            fn(ctx, e->name, e->nlen, e);
        i++;
        j++;
    }
    return changes;
}

/* Index of the first entry of sn whose name is >= name. */
static size_t snap_lower(const sp_snap *sn, const char *name, size_t nlen)
{
    size_t lo = 0, hi = sn->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sp_name_cmp(sn->e[mid]->name, sn->e[mid]->nlen, name, nlen) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

sp_entry *sp_snap_get(const sp_snap *sn, const char *name, size_t nlen)
{
    size_t i = snap_lower(sn, name, nlen);

    return i < sn->n && sp_name_cmp(sn->e[i]->name, sn->e[i]->nlen, name, nlen) == 0 ? sn->e[i] : NULL;
}

void sp_snap_put(sp_snap *sn, sp_entry *e)
{
    size_t i = snap_lower(sn, e->name, e->nlen);

    if (i < sn->n && sp_name_cmp(sn->e[i]->name, sn->e[i]->nlen, e->name, e->nlen) == 0) {
        sn->bytes -= sn->e[i]->size;
        sp_entry_release(sn->e[i]);
    } else {
        sn->e = xrealloc(sn->e, sizeof(sp_entry *) * (sn->n + 1));
        memmove(&sn->e[i + 1], &sn->e[i], sizeof(sp_entry *) * (sn->n - i));
        sn->n++;
    }
    sn->e[i] = e;
    sn->bytes += e->size;
}

void sp_snap_remove(sp_snap *sn, const char *name, size_t nlen)
{
    size_t i = snap_lower(sn, name, nlen);

    if (i == sn->n || sp_name_cmp(sn->e[i]->name, sn->e[i]->nlen, name, nlen) != 0)
        return;
    sn->bytes -= sn->e[i]->size;
    sp_entry_release(sn->e[i]);
    memmove(&sn->e[i], &sn->e[i + 1], sizeof(sp_entry *) * (sn->n - i - 1));
    sn->n--;
}
