/* lzdict.c -- whether a compressed value should have a dictionary (see lzval.c).
 *
 * Why a module of its own: the dictionary mode (lzval.c's top comment) saves a
 * quarter of the memory of log text and costs on text that compresses well on
 * its own, so whether to use it is a decision made on the value's bytes. This
 * file is that decision and the measurements behind it, apart from the code that
 * lays the bytes out: it compresses a few samples both ways (through lzframe),
 * reads the bytes a value already holds through lzval_read, and changes nothing.
 * Its two questions, declared in lzval_int.h: lzv_dict_choose, for lzval_new,
 * and lzv_dict_wanted, for an append that grows a value past one of the sizes
 * at which it asks again.
 *
 * How: a value of LZ_DICT_MIN bytes or more (and sub-blocks of at most 8 KB)
 * takes a dictionary if it pays (lz_dict_pays): LZ_DICT_SAMPLES sub-blocks
 * spread over the value are compressed with and without it, the saving scaled
 * to the value's size is compared with the dictionary's cost (8 KB raw instead
 * of compressed). A value growing by appends asks the same question at
 * LZ_DICT_MIN, twice that, ... up to LZ_DICT_LAST, and is rebuilt by lzval.c,
 * once, when the answer is yes (so a growing log gets the saving too, at the
 * cost of one decoding and compression of at most LZ_DICT_LAST bytes).
 *
 * The dictionary's worth by value size (stored / raw; "auto" is
 * lz_dict_pays; 12 values per size):
 *     size                48K    64K    128K   256K   512K   1M
 *     gen_logs  none      0.441  0.438  0.435  0.434  0.434  0.434
 *               always    0.443  0.412  0.367  0.345  0.336  0.337
 *               auto      0.438  0.412  0.367  0.345  0.336  0.337
 *     C headers none      0.477  0.463  0.462  0.463  0.458  0.454
 *               always    0.528  0.493  0.462  0.457  0.436  0.430
 *               auto      0.477  0.464  0.454  0.453  0.436  0.430
 *     dpkg log  none      0.241  0.240  0.237  0.235  0.220  -
 *               always    0.358  0.322  0.273  0.250  0.221  -
 *               auto      0.241  0.240  0.237  0.235  0.220  -
 * A fixed threshold would lose on text that compresses well on its own (the
 * dictionary costs more raw bytes there and saves less); deciding on samples
 * costs four sub-block compressions per lzval_new of LZ_DICT_MIN bytes or more
 * (~60 us: as long again as compressing a 48 KB value, 3 % of a 1 MB one).
 *
 * Memory: the samples an append reads back take a plain-malloc buffer of three
 * sub-blocks for the call (working memory, as lzval.c's scratch); compressing
 * uses lzval.c's work area and lzframe's prefix buffer, under a fresh id. */
#include "lz/lzval.h"
#include "lz/lzval_int.h"
#include "lz/lzframe.h"

#include <stdlib.h>
#include <string.h>

#define LZ_DICT_MIN 49152u      /* raw bytes from which a dictionary is considered */
#define LZ_DICT_LAST (8u * LZ_DICT_MIN) /* raw bytes: the last size at which appends
                                           reconsider a dictionary */
#define LZ_DICT_SAMPLES 2u      /* sub-blocks compressed both ways to decide */

/* Whether a value of n raw bytes with v's geometry may be worth a dictionary
 * (lz_dict_pays decides): from LZ_DICT_MIN bytes, with sub-blocks of at most
 * LZ_SUB (a longer raw dictionary costs more than it can save, and LZ4 looks
 * back 64 KB at most). */
static int lz_dict_fits(const lzval *v, size_t n)
{
    return n >= LZ_DICT_MIN && v->sub_size <= LZ_SUB;
}

/* Whether a dictionary pays for a value of n raw bytes (n >= 2 sub-blocks of v's
 * geometry) whose first sub-block is dict[0..sub_size), smp[0..LZ_DICT_SAMPLES)
 * being sub_size bytes each from past it, spread over the value. Each sample is
 * compressed on its own and with the dictionary: the bytes the dictionary saves,
 * scaled to the n - sub_size bytes that would use it, are weighed against what
 * it costs, its bytes stored raw instead of compressed (as much as the samples
 * compress on their own). 2 LZ_DICT_SAMPLES sub-block compressions, whatever n;
 * measured as good a choice as three samples and the dictionary's own size. */
static int lz_dict_pays(const lzval *v, const char *dict, const char *const *smp, size_t n)
{
    size_t sub = v->sub_size, s;
    char *out = lzv_work_area(v) + 2 * sub, *pre = lzf_prefix_load(lzv_new_uid(), dict, sub);
    long long gain = 0, cost = 0;

    for (s = 0; s < LZ_DICT_SAMPLES; s++) {
        size_t a = lzf_encode(smp[s], sub, out, NULL, 0, 1), b = lzf_encode(smp[s], sub, out, pre, sub, 1);
        gain += (long long)(a ? a : sub) - (long long)(b ? b : sub);
        cost += (long long)sub - (long long)(a ? a : sub);
    }
    return gain * (long long)(n - sub) > cost * (long long)sub;
}

/* Offset of sample s (s < LZ_DICT_SAMPLES) for lz_dict_pays in a value of n
 * raw bytes (n >= 2 sub): spread evenly between the first sub-block's end and
 * the last sub_size bytes. */
static size_t lz_sample_off(const lzval *v, size_t n, size_t s)
{
    return v->sub_size + (s + 1) * (n - 2 * v->sub_size) / (LZ_DICT_SAMPLES + 1);
}

/* Whether v, not in dictionary mode, should take one as the append of p[0..n)
 * grows it past one of the sizes LZ_DICT_MIN, 2 LZ_DICT_MIN, 4 LZ_DICT_MIN, ...
 * LZ_DICT_LAST: lz_dict_pays on the bytes v would then hold (read back from v
 * where they are v's). A dictionary pays off sooner or later depending on the
 * text, so a growing value asks again at each size, a few compressions each
 * time, and is rebuilt at most once (at most LZ_DICT_LAST bytes). Returns 1 or
 * 0, or -1 if a sub-block it reads is corrupt. */
int lzv_dict_wanted(const lzval *v, const char *p, size_t n)
{
    size_t sub = v->sub_size, total = v->len + n, s, k, step = 0;
    const char *smp[LZ_DICT_SAMPLES];
    char *buf;
    int r = 0;

    for (s = LZ_DICT_MIN; s <= LZ_DICT_LAST && !step; s *= 2)
        step = v->len < s && total >= s;
    if (v->dict || !step || !lz_dict_fits(v, total))
        return 0;
    buf = lzv_plain_alloc((LZ_DICT_SAMPLES + 1) * sub);

    for (s = 0; s <= LZ_DICT_SAMPLES && r == 0; s++) {
        size_t off = s ? lz_sample_off(v, total, s - 1) : 0;
        char *dst = buf + s * sub;
        k = off < v->len ? (v->len - off < sub ? v->len - off : sub) : 0;
        if (k && lzval_read(v, off, k, dst, NULL) < 0)
            r = -1;
        if (k < sub)
            memcpy(dst + k, p + (off + k - v->len), sub - k);
        if (s)
            smp[s - 1] = dst;
    }
    if (r == 0)
        r = lz_dict_pays(v, buf, smp, total);
    free(buf);
    return r;
}

/* (lzval_int.h) The samples are p's own bytes: the first sub-block as the
 * dictionary, LZ_DICT_SAMPLES more spread over the rest. */
int lzv_dict_choose(const lzval *v, const char *p, size_t n)
{
    const char *smp[LZ_DICT_SAMPLES];
    size_t s;

    if (!lz_dict_fits(v, n))
        return 0;
    for (s = 0; s < LZ_DICT_SAMPLES; s++)
        smp[s] = p + lz_sample_off(v, n, s);
    return lz_dict_pays(v, p, smp, n);
}

/* (lzval_int.h) */
int lzv_dict_fits(const lzval *v)
{
    return lz_dict_fits(v, v->len);
}

/* (lzval_int.h) The first sub-block and the samples lzv_dict_choose would take
 * from the same bytes, read back from v into a plain-malloc buffer. */
int lzv_dict_pays(const lzval *v)
{
    size_t sub = v->sub_size, s;
    const char *smp[LZ_DICT_SAMPLES];
    char *buf;
    int r = 0;

    if (v->dict || !lz_dict_fits(v, v->len))
        return 0;
    buf = lzv_plain_alloc((LZ_DICT_SAMPLES + 1) * sub);
    for (s = 0; s <= LZ_DICT_SAMPLES && r == 0; s++) {
        size_t off = s ? lz_sample_off(v, v->len, s - 1) : 0;
        if (lzval_read(v, off, sub, buf + s * sub, NULL) < 0)
            r = -1;
        if (s)
            smp[s - 1] = buf + s * sub;
    }
    if (r == 0)
        r = lz_dict_pays(v, buf, smp, v->len);
    free(buf);
    return r;
}

/* (lzval_int.h) The sizes at which appends ask again are LZ_DICT_MIN << k up to
 * LZ_DICT_LAST: a value refused at dict_no bytes is asked again once it has
 * passed the next of them. */
int lzv_dict_retry(const lzval *v)
{
    size_t s;

    if (v->dict_no == 0)
        return 1;
    for (s = LZ_DICT_MIN; s <= LZ_DICT_LAST; s *= 2)
        if (v->dict_no < s && v->len >= s)
            return 1;
    return 0;
}
