/* lzidle.c -- values converted to dictionary mode once idle (see lzidle.h).
 *
 * The registry is an intrusive doubly linked list through the values
 * themselves (lzval_int.h: idle_prev / idle_next / idle_since), in the order of
 * their last change, so that registering, a change (move to the end) and a
 * free (unlink) are O(1) and the value idle the longest is the head. At most
 * one conversion is in progress: cur, the value, and w, the dictionary-mode
 * copy being built from cur's decoded sub-blocks (chunk ci, sub-block cj next).
 * A change or free of cur frees w (lzv_idle_changed / lzv_idle_forget), so w
 * always holds a prefix of cur's current bytes.
 *
 * Step cost, measured on the 2-core development VM (pinned, best of 5) with
 * a loop of lzidle_step(q, now, delay, 64 KB) over one value of
 * `gen_logs.py text SIZE --seed 3` (chunks of 64 KB), next to lzval_new and
 * lzval_new_nodict of the same bytes:
 *     value   lzval_new (dict)   lzval_new_nodict   conversion     64 KB steps
 *     1 MB    355 MB/s, 0.335    486 MB/s, 0.433    3.4 ms/MB      17, mean 211 us, max 269 us
 *     10 MB   405 MB/s, 0.331    618 MB/s, 0.435    2.8 ms/MB      161, mean 216 us, max 280 us
 * (the machine was slower than the one lzval.c's table was measured on). The
 * converted value's chunks are byte for byte those lzval_new writes (same
 * stored size), so a value converted late costs what it would have on the
 * write path, plus one plain compression; a value freed before its delay
 * saves ~1/3 of its compression time. The server steps 64 KB at a time, so
 * a step never holds the loop for long whatever the value's size.
 *
 * Invariants: listed values are exactly the registered candidates (lz_wants)
 * other than cur; npend / bpend count the listed values and their idle_len;
 * cur is registered in this registry and not listed; nreg counts every value
 * whose idle is this registry. */
#include "lz/lzidle.h"
#include "lz/lzval_int.h"

#include "mem.h"

struct lzidle {
    lzval *head, *tail;  /* listed values, oldest change first */
    size_t nlisted;      /* values listed */
    size_t blisted;      /* bytes, raw, of the listed values (their idle_len) */
    size_t nreg;         /* values registered */
    int64_t now;         /* ms, the clock of the last step or lzidle_clock */
    lzval *cur;          /* the value being converted, or NULL */
    lzval *w;            /* its dictionary-mode copy so far (when cur) */
    size_t ci, cj;       /* next chunk and sub-block of cur to put into w */
    lzidle_stats st;     /* counters (the pending fields are computed) */
};

lzidle *lzidle_new(void)
{
    return xcalloc(1, sizeof(lzidle));
}

int lzidle_free(lzidle *q)
{
    if (!q)
        return 0;
    if (q->nreg)
        return -1;
    xfree(q);
    return 0;
}

/* Whether v may get a dictionary: the samples are to be asked. */
static int lz_dict_candidate(const lzval *v)
{
    return !v->dict && lzv_dict_fits(v) && lzv_dict_retry(v);
}

/* Whether registered v should wait to be re-encoded (see lzidle.h): for a
 * dictionary, from a fast acceleration, or to fold a detached dictionary back
 * into its first sub-block (lzval.c, "changes"). */
static int lz_wants(const lzval *v)
{
    return v->accel > 1 || v->xdict || lz_dict_candidate(v);
}

static void lz_unlink(lzidle *q, lzval *v)
{
    if (!v->listed)
        return;
    if (v->idle_prev)
        v->idle_prev->idle_next = v->idle_next;
    else
        q->head = v->idle_next;
    if (v->idle_next)
        v->idle_next->idle_prev = v->idle_prev;
    else
        q->tail = v->idle_prev;
    v->idle_prev = v->idle_next = NULL;
    v->listed = 0;
    q->nlisted--;
    q->blisted -= v->idle_len;
}

/* List v at the end (the newest change), stamped now. */
static void lz_link(lzidle *q, lzval *v)
{
    v->idle_prev = q->tail;
    v->idle_next = NULL;
    if (q->tail)
        q->tail->idle_next = v;
    else
        q->head = v;
    q->tail = v;
    v->listed = 1;
    v->idle_since = q->now;
    v->idle_len = v->len;
    q->nlisted++;
    q->blisted += v->len;
}

/* Drop the conversion in progress (its value is left as it is). */
static void lz_drop(lzidle *q)
{
    lzval_free(q->w);
    q->w = NULL;
    q->cur = NULL;
    q->ci = q->cj = 0;
}

/* Re-list v (registered in q, not cur) after a change, if it qualifies. */
static void lz_relist(lzidle *q, lzval *v)
{
    lz_unlink(q, v);
    if (lz_wants(v))
        lz_link(q, v);
}

void lzidle_adopt(lzidle *q, lzval *v)
{
    if (v->idle)
        return;
    v->idle = q;
    q->nreg++;
    lz_relist(q, v);
}

int lzidle_registered(const lzval *v)
{
    return v->idle != NULL;
}

void lzidle_clock(lzidle *q, int64_t now_ms)
{
    q->now = now_ms;
}

/* (lzval_int.h) */
void lzv_idle_changed(lzval *v)
{
    lzidle *q = v->idle;

    if (q->cur == v) {
        lz_drop(q);
        q->st.dropped++;
    }
    lz_relist(q, v);
}

/* (lzval_int.h) */
void lzv_idle_forget(lzval *v)
{
    lzidle *q = v->idle;

    if (q->cur == v) {
        lz_drop(q);
        q->st.dropped++;
    }
    lz_unlink(q, v);
    v->idle = NULL;
    q->nreg--;
}

/* Start on the head of the list: take it off and, if it may get a dictionary,
 * ask the samples; on a yes, for a value written fast, or for one with a
 * detached dictionary none of whose chunks is shared (lzval_dup: re-encoding
 * it would replace every chunk another value holds too, a copy of the value,
 * to save the detached sub-block; it waits for its next change), it becomes cur with an empty copy (in dictionary mode
 * on a yes, or for a detached dictionary while the value is large enough for
 * one: it had one; at acceleration 1 either way).
 * Returns the work done (bytes). */
static size_t lz_begin(lzidle *q)
{
    lzval *v = q->head;
    int r = 0, asked = lz_dict_candidate(v);

    lz_unlink(q, v);
    if (asked && (r = lzv_dict_pays(v)) <= 0) {
        v->dict_no = v->len;
        q->st.refused_values++;
    }
    if (r > 0 || (r == 0 && (v->accel > 1 || (v->xdict && !lzv_shares_chunks(v))))) {
        q->cur = v;
        q->w = lzv_shell(v, r > 0 || (v->xdict && lzv_dict_fits(v)));
        q->ci = q->cj = 0;
    }
    return asked ? 4 * v->sub_size : 0;
}

/* Whether w's chunks cover the same raw bytes as v's: the conversion puts
 * everything in full chunks, while splices leave chunks of any length, and a
 * cache keys a decoded chunk by (uid, index). */
static int lz_same_layout(const lzval *v, const lzval *w)
{
    size_t i;

    if (v->nchunks != w->nchunks)
        return 0;
    for (i = 0; i < v->nchunks; i++)
        if (v->chunks[i].raw_len != w->chunks[i].raw_len)
            return 0;
    return 1;
}

/* Put cur's sub-blocks into w until max_bytes of work is done or all are in;
 * then seal w and swap it in. Returns the work done (bytes). */
static size_t lz_convert(lzidle *q, size_t max_bytes)
{
    lzval *v = q->cur;
    char *raw = lzv_work_area(v);
    size_t done = 0, before;
    int same;

    while (done < max_bytes && q->ci < v->nchunks) {
        const lz_chunk *ck = &v->chunks[q->ci];
        size_t bn = lz_blen(v, ck->raw_len, q->cj);
        if (lzv_load(v, q->ci, q->cj, raw, NULL) < 0) {
            v->dict_no = v->len;
            q->st.refused_values++;
            lz_drop(q);
            return done;
        }
        lzv_put(q->w, raw, bn);
        done += bn;
        if (++q->cj == lz_nsub(v, ck->raw_len)) {
            q->cj = 0;
            q->ci++;
        }
    }
    if (q->ci < v->nchunks)
        return done;
    before = lzval_stored(v);
    lzval_seal(q->w);
    same = lz_same_layout(v, q->w);
    lzv_take(v, q->w); /* frees w; the raw bytes, so v's uid, are unchanged */
    if (!same)
        v->uid = lzv_new_uid(); /* but a cache slot (uid, chunk) would name other bytes */
    q->w = NULL;
    q->cur = NULL;
    if (v->dict) {
        q->st.converted_values++;
        q->st.converted_bytes += v->len;
    } else {
        q->st.recompressed_values++;
        q->st.recompressed_bytes += v->len;
    }
    if (before > lzval_stored(v))
        q->st.saved_bytes += before - lzval_stored(v);
    return done;
}

size_t lzidle_step(lzidle *q, int64_t now_ms, int64_t delay_ms, size_t max_bytes)
{
    size_t done = 0;

    q->now = now_ms;
    if (!q->cur) {
        if (!q->head || now_ms - q->head->idle_since < delay_ms)
            return 0;
        done = lz_begin(q);
        if (!q->cur || done >= max_bytes)
            return done;
    }
    return done + lz_convert(q, max_bytes - done);
}

int64_t lzidle_next_due(const lzidle *q, int64_t now_ms, int64_t delay_ms)
{
    if (q->cur)
        return now_ms;
    if (!q->head)
        return -1;
    return q->head->idle_since + (delay_ms > 0 ? delay_ms : 0);
}

void lzidle_get_stats(const lzidle *q, lzidle_stats *st)
{
    *st = q->st;
    st->registered = q->nreg;
    st->pending_values = q->nlisted + (q->cur ? 1 : 0);
    st->pending_bytes = q->blisted + (q->cur ? q->cur->len : 0);
}
