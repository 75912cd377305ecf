/* test_spsnap.c -- snapshots, restore, diff and the sharing of entries and
 * their content between a scratchpad, its snapshots and its copies (spsnap.c,
 * sp.c's sp_own / sp_dup), alone.
 *
 * Contents are driven through a small compression threshold (64 bytes) and
 * 4 KB chunks, so both raw and compressed entries are shared. Each case checks
 * the counts of holders, that every holder still reads what it froze after the
 * others changed, and that memory comes back to its baseline once everything
 * is freed (no leak, and under ASan no double free). */
#include "lz/lzval.h"
#include "mem.h"
#include "sp/sp.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sp_params params(void)
{
    sp_params p;
    memset(&p, 0, sizeof(p));
    p.compress_threshold = 64;
    p.compress_chunk = 4096;
    return p;
}

/* A long, compressible content distinct for each seed. */
static char *big(int seed, size_t *n)
{
    size_t i, len = 50000;
    char *p = malloc(len);
    for (i = 0; i < len; i++)
        p[i] = (char)('a' + (int)((i / 7 + (size_t)seed) % 26));
    *n = len;
    return p;
}

static sp_entry *put(sp *s, const char *name, const char *p, size_t n, const sp_params *pr)
{
    sp_entry *e = sp_find_own(s, name, strlen(name));
    if (!e)
        e = sp_add(s, name, strlen(name), 1000);
    sp_entry_set(s, e, p, n, SP_TEXT, pr);
    e->version++;
    return e;
}

static int reads(const sp_entry *e, const char *p, size_t n, const sp_params *pr)
{
    char *got;
    int ok;
    if (e->size != n || sp_entry_copy(e, &got, pr) < 0)
        return 0;
    ok = memcmp(got, p, n) == 0;
    xfree(got);
    return ok;
}

static void test_snapshot_shares_entries(void)
{
    sp_params pr = params();
    size_t base = mem_used(), n1, after;
    char *b1 = big(1, &n1);
    sp *s = sp_new();
    sp_snap *sn;
    sp_entry *e;

    put(s, "small", "note", 4, &pr);
    put(s, "large", b1, n1, &pr);
    after = mem_used();
    sn = sp_snap_take(s, "one", 3, 5);
    CHECK(sn->n == 2 && sn->bytes == 4 + n1);
    CHECK(sp_find(s, "large", 5) == sp_snap_get(sn, "large", 5));
    CHECK(sp_find(s, "large", 5)->shares == 1);
    /* The snapshot holds an array of two pointers, not the contents. */
    CHECK(mem_used() - after < 256);
    CHECK(sp_snap_find(s, "one", 3) == sn && sp_snap_find(s, "two", 3) == NULL);
    e = sp_find_own(s, "large", 5);
    CHECK(e != sp_snap_get(sn, "large", 5));
    CHECK(e->shares == 0 && sp_snap_get(sn, "large", 5)->shares == 0);
    CHECK(e->lz == sp_snap_get(sn, "large", 5)->lz && lzval_holders(e->lz) == 2);
    sp_free(s);
    free(b1);
    CHECK(mem_used() == base);
}

static void test_changes_leave_the_snapshot_alone(void)
{
    sp_params pr = params();
    size_t base = mem_used(), n1, n2;
    char *b1 = big(1, &n1), *b2 = big(2, &n2);
    sp *s = sp_new();
    sp_snap *sn;
    sp_entry *e;

    put(s, "small", "note", 4, &pr);
    put(s, "large", b1, n1, &pr);
    put(s, "log", b1, n1, &pr);
    sn = sp_snap_take(s, "one", 3, 5);
    put(s, "small", "other", 5, &pr);
    put(s, "large", b2, n2, &pr);
    e = sp_find_own(s, "log", 3);
    CHECK(sp_entry_append(s, e, "tail\n", 5, &pr) == 0);
    CHECK(lzval_holders(e->lz) == 1 && lzval_holders(sp_snap_get(sn, "log", 3)->lz) == 1);
    sp_remove(s, sp_find(s, "small", 5));
    CHECK(reads(sp_snap_get(sn, "small", 5), "note", 4, &pr));
    CHECK(reads(sp_snap_get(sn, "large", 5), b1, n1, &pr));
    CHECK(reads(sp_snap_get(sn, "log", 3), b1, n1, &pr));
    CHECK(reads(sp_find(s, "large", 5), b2, n2, &pr));
    CHECK(sp_find(s, "log", 3)->size == n1 + 5);
    CHECK(s->vdead == 2);
    sp_snap_drop(s, sn);
    CHECK(s->nsnaps == 0 && s->snaps == NULL);
    sp_free(s);
    free(b1);
    free(b2);
    CHECK(mem_used() == base);
}

typedef struct seen {
    int n;
    char names[8][16];
    int removed[8];
} seen;

static void on_restore(void *ctx, const char *name, size_t nlen, const sp_entry *e)
{
    seen *x = ctx;
    snprintf(x->names[x->n], sizeof(x->names[0]), "%.*s", (int)nlen, name);
    x->removed[x->n++] = e == NULL;
}

static void test_restore_gives_new_versions(void)
{
    sp_params pr = params();
    size_t base = mem_used(), n1;
    char *b1 = big(1, &n1);
    sp *s = sp_new();
    seen x = {0};
    sp_snap *sn;
    sp_entry *e;

    put(s, "a", "one", 3, &pr);
    put(s, "b", b1, n1, &pr);
    put(s, "keep", "same", 4, &pr);
    sn = sp_snap_take(s, "before", 6, 5);
    put(s, "a", "two", 3, &pr);       /* a at version 2 */
    sp_remove(s, sp_find(s, "b", 1)); /* b gone at version 1 */
    put(s, "c", "new", 3, &pr);       /* c added */
    CHECK(sp_restore(s, sn, 77, on_restore, &x) == 3);
    CHECK(x.n == 3 && strcmp(x.names[0], "a") == 0 && strcmp(x.names[1], "b") == 0 && strcmp(x.names[2], "c") == 0 &&
          x.removed[2] && !x.removed[0]);
    e = sp_find(s, "a", 1);
    CHECK(reads(e, "one", 3, &pr) && e->version == 3 && e->updated == 77);
    e = sp_find(s, "b", 1);
    CHECK(reads(e, b1, n1, &pr) && e->version > 2 && e->lz == sp_snap_get(sn, "b", 1)->lz);
    CHECK(sp_find(s, "c", 1) == NULL && s->n == 3 && s->bytes == 3 + n1 + 4);
    /* The entry that did not change is still the snapshot's. */
    CHECK(sp_find(s, "keep", 4) == sp_snap_get(sn, "keep", 4));
    sp_free(s);
    free(b1);
    CHECK(mem_used() == base);
}

typedef struct diffs {
    int added, removed, changed;
} diffs;

static int on_diff(void *ctx, const sp_entry *a, const sp_entry *b)
{
    diffs *d = ctx;
    if (!a)
        d->added++;
    else if (!b)
        d->removed++;
    else
        d->changed++;
    return 0;
}

static void test_diff_and_copies(void)
{
    sp_params pr = params();
    size_t base = mem_used(), n1;
    char *b1 = big(3, &n1);
    sp *s = sp_new(), *f, *g;
    diffs d = {0, 0, 0};
    sp_snap *sn;
    sp_entry *e;

    put(s, "a", "one", 3, &pr);
    put(s, "b", b1, n1, &pr);
    put(s, "c", "x", 1, &pr);
    sn = sp_snap_take(s, "s", 1, 5);
    /* Taken for a change that does not happen: still the same state. */
    sp_find_own(s, "a", 1);
    put(s, "b", "short", 5, &pr);
    sp_remove(s, sp_find(s, "c", 1));
    put(s, "d", "y", 1, &pr);
    CHECK(sp_diff(sn->e, sn->n, s->e, s->n, on_diff, &d, &pr) == 0);
    CHECK(d.added == 1 && d.removed == 1 && d.changed == 1);
    /* A copy and a copy of the snapshot share, and change on their own. */
    f = sp_dup(s);
    g = sp_dup_snap(sn);
    CHECK(f->n == 3 && g->n == 3 && g->bytes == sn->bytes);
    CHECK(sp_find(g, "b", 1) == sp_snap_get(sn, "b", 1) && sp_snap_get(sn, "b", 1)->shares == 1);
    e = sp_find_own(g, "b", 1);
    CHECK(sp_entry_append(g, e, "more", 4, &pr) == 0);
    CHECK(reads(sp_snap_get(sn, "b", 1), b1, n1, &pr) && sp_snap_get(sn, "b", 1)->shares == 0);
    sp_free(s); /* the snapshot goes with it; the copies keep what they share */
    CHECK(reads(sp_find(f, "b", 1), "short", 5, &pr) && sp_find(f, "a", 1)->shares == 0);
    CHECK(sp_find(g, "b", 1)->size == n1 + 4);
    sp_free(g);
    sp_free(f);
    free(b1);
    CHECK(mem_used() == base);
}

static void test_stored_counts_once(void)
{
    sp_params pr = params();
    size_t n1, alone, shared, ob;
    char *b1 = big(4, &n1);
    sp *s = sp_new(), *f;

    put(s, "b", b1, n1, &pr);
    put(s, "a", "one", 3, &pr);
    alone = sp_stored(s);
    /* Two snapshots of the same entries add their arrays only. */
    sp_snap_take(s, "one", 3, 1);
    sp_snap_take(s, "two", 3, 2);
    shared = sp_stored(s);
    CHECK(shared > alone && shared < alone + 512);
    /* An entry rewritten: the snapshots' old state counts once, beside the new one. */
    put(s, "b", "short", 5, &pr);
    ob = sp_entry_stored(sp_snap_get(s->snaps[0], "b", 1));
    CHECK(sp_snap_get(s->snaps[1], "b", 1) == sp_snap_get(s->snaps[0], "b", 1));
    CHECK(sp_snaps_stored(s) >= ob && sp_snaps_stored(s) < ob + (shared - alone) + 64);
    /* A copy counts the entries it shares as its own. */
    f = sp_dup(s);
    CHECK(sp_stored(f) > 0);
    sp_free(f);
    sp_free(s);
    free(b1);
}

static void test_history_keeps_last_versions(void)
{
    sp_params pr = params();
    size_t base = mem_used(), n1, n2;
    char *b1 = big(5, &n1), *b2 = big(6, &n2);
    sp *s = sp_new();
    sp_hist *h;
    sp_entry *e;
    int i;

    for (i = 0; i < 5; i++) {
        e = put(s, "e", i % 2 ? b2 : b1, i % 2 ? n2 : n1, &pr);
        sp_hist_note(s, e, 100 + i, 0, "agent", 5, 2);
        /* Noted twice (the log's replay sees some changes twice): kept once. */
        sp_hist_note(s, e, 100 + i, 0, "agent", 5, 2);
    }
    h = sp_hist_find(s, "e", 1);
    CHECK(h && h->n == 3 && h->rec[0].e->version == 3 && h->rec[2].e->version == 5);
    CHECK(h && h->rec[2].e == sp_find(s, "e", 1) && h->rec[2].e->shares == 1);
    CHECK(h && h->rec[0].time == 102 && h->rec[0].clen == 5 && memcmp(h->rec[0].client, "agent", 5) == 0);
    CHECK(h && reads(sp_hist_version(h, 4)->e, b2, n2, &pr) && reads(sp_hist_version(h, 3)->e, b1, n1, &pr));
    CHECK(sp_hist_version(h, 2) == NULL);
    /* An append to the live entry leaves the kept version alone. */
    e = sp_find_own(s, "e", 1);
    CHECK(sp_entry_append(s, e, "x", 1, &pr) == 0);
    CHECK(reads(sp_hist_version(h, 5)->e, b1, n1, &pr));
    /* Depth 0 drops the history; a deleted entry's history is dropped. */
    sp_hist_note(s, e, 200, 0, NULL, 0, 0);
    CHECK(sp_hist_find(s, "e", 1) == NULL && s->nhist == 0);
    e->version++;
    sp_hist_note(s, e, 201, 0, NULL, 0, 2);
    CHECK(sp_hist_find(s, "e", 1) != NULL && sp_hist_stored(s) > 0);
    sp_hist_drop(s, "e", 1);
    CHECK(s->nhist == 0 && e->shares == 0);
    sp_hist_note(s, e, 202, 0, NULL, 0, 2);
    sp_free(s); /* with its history */
    free(b1);
    free(b2);
    CHECK(mem_used() == base);
}

int main(void)
{
    RUN(test_snapshot_shares_entries, "a snapshot shares the live entries and their content, adding one pointer each");
    RUN(test_changes_leave_the_snapshot_alone,
        "writes, appends and deletions after a snapshot leave it reading what it froze");
    RUN(test_restore_gives_new_versions,
        "a restore brings back what changed with versions above any seen, leaves the rest, and reports each change");
    RUN(test_diff_and_copies,
        "the diff finds added, removed and changed entries; copies share and change on their own; nothing leaks");
    RUN(test_history_keeps_last_versions,
        "an entry's history keeps its last depth + 1 versions, shared, each once, unchanged by later appends; "
        "dropped and freed");
    RUN(test_stored_counts_once,
        "a scratchpad's memory counts what its snapshots share with the live entries, or with each other, once");
    return TEST_DONE();
}
