/* hll.c -- HyperLogLog in Redis's representation (see hll.h). */
#include "hll.h"

#include <math.h>
#include <string.h>

#include "mem.h"

#define HLL_P 14
#define HLL_Q (64 - HLL_P) /* bits of the hash that give the run length */
#define HLL_MASK (HLL_REGISTERS - 1)
#define SPARSE_VAL_MAX 32 /* the largest value a VAL opcode holds */
#define SPARSE_VAL_LEN_MAX 4
#define SPARSE_ZERO_LEN_MAX 64
#define SPARSE_XZERO_LEN_MAX 16384

/* Sparse opcodes. */
#define OP_IS_ZERO(p) ((*(p)&0xc0) == 0x00)
#define OP_IS_XZERO(p) ((*(p)&0xc0) == 0x40)
#define ZERO_LEN(p) ((*(p)&0x3f) + 1)
#define XZERO_LEN(p) ((((*(p)&0x3f) << 8) | (p)[1]) + 1)
#define VAL_VALUE(p) (((*(p) >> 2) & 0x1f) + 1)
#define VAL_LEN(p) ((*(p)&0x3) + 1)
#define VAL_BYTE(v, len) ((unsigned char)(0x80 | (((v)-1) << 2) | ((len)-1)))

uint64_t hll_hash(const void *key, size_t n)
{
    const uint64_t m = 0xc6a4a7935bd1e995ULL, seed = 0xadc83b19ULL;
    const unsigned char *p = key, *tail;
    uint64_t h = seed ^ ((uint64_t)n * m), k;
    size_t i;

    for (i = 0; i + 8 <= n; i += 8) {
        k = (uint64_t)p[i] | (uint64_t)p[i + 1] << 8 | (uint64_t)p[i + 2] << 16 | (uint64_t)p[i + 3] << 24 |
            (uint64_t)p[i + 4] << 32 | (uint64_t)p[i + 5] << 40 | (uint64_t)p[i + 6] << 48 | (uint64_t)p[i + 7] << 56;
        k *= m;
        k ^= k >> 47;
        k *= m;
        h ^= k;
        h *= m;
    }
    tail = p + i;
    if (n & 7) {
        size_t t;
        for (t = n & 7; t > 0; t--)
            h ^= (uint64_t)tail[t - 1] << (8 * (t - 1));
        h *= m;
    }
    h ^= h >> 47;
    h *= m;
    h ^= h >> 47;
    return h;
}

/* The register an element goes to, and the value it offers. */
static uint32_t element_slot(const void *ele, size_t n, int *val)
{
    uint64_t h = hll_hash(ele, n);
    uint32_t idx = (uint32_t)(h & HLL_MASK);
    int count = 1;

    h >>= HLL_P;
    h |= 1ULL << HLL_Q; /* so that the search stops at most HLL_Q + 1 */
    while (!(h & 1)) {
        count++;
        h >>= 1;
    }
    *val = count;
    return idx;
}

static int dense_get(const unsigned char *regs, uint32_t i)
{
    size_t byte = (size_t)i * 6 / 8;
    unsigned fb = (unsigned)(i * 6) & 7;
    unsigned v = (unsigned)regs[byte] >> fb;

    if (fb > 2)
        v |= (unsigned)regs[byte + 1] << (8 - fb);
    return (int)(v & 63);
}

static void dense_put(unsigned char *regs, uint32_t i, int v)
{
    size_t byte = (size_t)i * 6 / 8;
    unsigned fb = (unsigned)(i * 6) & 7;

    regs[byte] = (unsigned char)((regs[byte] & ~(63u << fb)) | ((unsigned)v << fb));
    if (fb > 2)
        regs[byte + 1] = (unsigned char)((regs[byte + 1] & ~(63u >> (8 - fb))) | ((unsigned)v >> (8 - fb)));
}

int hll_valid(const unsigned char *p, size_t n)
{
    if (n < HLL_HDR_SIZE || memcmp(p, "HYLL", 4) != 0 || p[4] > HLL_ENC_SPARSE)
        return 0;
    return p[4] != HLL_ENC_DENSE || n == HLL_DENSE_SIZE;
}

static void buf_reserve(hll_buf *b, size_t len)
{
    if (len + 1 > b->cap) {
        b->cap = len + 1 + (len >> 2);
        b->p = xrealloc(b->p, b->cap);
    }
}

void hll_buf_load(hll_buf *b, const unsigned char *p, size_t n)
{
    b->p = NULL;
    b->cap = 0;
    buf_reserve(b, n);
    memcpy(b->p, p, n);
    b->p[n] = 0;
    b->len = n;
}

void hll_buf_new(hll_buf *b)
{
    static const unsigned char empty[HLL_HDR_SIZE + 2] = {'H', 'Y', 'L', 'L', HLL_ENC_SPARSE, [16] = 0x7f, 0xff};

    hll_buf_load(b, empty, sizeof(empty));
}

void hll_buf_free(hll_buf *b)
{
    xfree(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void hll_invalidate(unsigned char *p)
{
    p[15] |= 0x80;
}

int hll_cached(const unsigned char *p, uint64_t *card)
{
    int i;

    if (p[15] & 0x80)
        return 0;
    *card = 0;
    for (i = 7; i >= 0; i--)
        *card = (*card << 8) | p[8 + i];
    return 1;
}

void hll_set_cache(unsigned char *p, uint64_t card)
{
    int i;

    for (i = 0; i < 8; i++)
        p[8 + i] = (unsigned char)(card >> (8 * i));
}

int hll_to_dense(hll_buf *b)
{
    unsigned char *d, *p, *end;
    uint32_t idx = 0;

    if (b->p[4] == HLL_ENC_DENSE)
        return 0;
    d = xcalloc(1, HLL_DENSE_SIZE + 1);
    memcpy(d, b->p, HLL_HDR_SIZE);
    d[4] = HLL_ENC_DENSE;
    p = b->p + HLL_HDR_SIZE;
    end = b->p + b->len;
    while (p < end) {
        if (OP_IS_ZERO(p) || OP_IS_XZERO(p)) {
            uint32_t run = (uint32_t)(OP_IS_ZERO(p) ? ZERO_LEN(p) : XZERO_LEN(p));
            if (idx + run > HLL_REGISTERS)
                goto corrupt;
            idx += run;
            p += OP_IS_ZERO(p) ? 1 : 2;
        } else {
            uint32_t run = (uint32_t)VAL_LEN(p);
            int v = VAL_VALUE(p);
            if (idx + run > HLL_REGISTERS)
                goto corrupt;
            while (run--)
                dense_put(d + HLL_HDR_SIZE, idx++, v);
            p++;
        }
    }
    if (idx != HLL_REGISTERS)
        goto corrupt;
    xfree(b->p);
    b->p = d;
    b->len = HLL_DENSE_SIZE;
    b->cap = HLL_DENSE_SIZE + 1;
    return 0;
corrupt:
    xfree(d);
    return -1;
}

/* Append the opcodes of a run of len zero registers at q; returns the end. */
static unsigned char *put_zeros(unsigned char *q, uint32_t len)
{
    if (len > SPARSE_ZERO_LEN_MAX) {
        *q++ = (unsigned char)(0x40 | ((len - 1) >> 8));
        *q++ = (unsigned char)((len - 1) & 0xff);
    } else {
        *q++ = (unsigned char)(len - 1);
    }
    return q;
}

static int dense_raise(unsigned char *regs, uint32_t i, int v)
{
    if (dense_get(regs, i) >= v)
        return 0;
    dense_put(regs, i, v);
    return 1;
}

/* Raise register idx of the sparse HLL b to v: Redis's opcode rewrite (see
 * the file comment), or a conversion to dense. */
static int sparse_raise(hll_buf *b, uint32_t idx, int v, size_t sparse_max)
{
    unsigned char *p, *end, *prev = NULL, seq[5], *q = seq;
    uint32_t first = 0, span = 0, last;
    int oplen = 1, scan, delta;
    size_t at;

    if (v > SPARSE_VAL_MAX)
        goto promote;
    p = b->p + HLL_HDR_SIZE;
    end = b->p + b->len;
    while (p < end) {
        oplen = 1;
        if (OP_IS_ZERO(p)) {
            span = (uint32_t)ZERO_LEN(p);
        } else if (OP_IS_XZERO(p)) {
            span = (uint32_t)XZERO_LEN(p);
            oplen = 2;
        } else {
            span = (uint32_t)VAL_LEN(p);
        }
        if (idx <= first + span - 1)
            break;
        prev = p;
        p += oplen;
        first += span;
    }
    if (p >= end)
        return -1;
    if (!OP_IS_ZERO(p) && !OP_IS_XZERO(p)) {
        if (VAL_VALUE(p) >= v)
            return 0;
        if (span == 1) {
            *p = VAL_BYTE(v, 1);
            goto updated;
        }
    }
    if (OP_IS_ZERO(p) && span == 1) {
        *p = VAL_BYTE(v, 1);
        goto updated;
    }
    last = first + span - 1;
    if (OP_IS_ZERO(p) || OP_IS_XZERO(p)) {
        if (idx != first)
            q = put_zeros(q, idx - first);
        *q++ = VAL_BYTE(v, 1);
        if (idx != last)
            q = put_zeros(q, last - idx);
    } else {
        int cur = VAL_VALUE(p);
        if (idx != first)
            *q++ = VAL_BYTE(cur, (int)(idx - first));
        *q++ = VAL_BYTE(v, 1);
        if (idx != last)
            *q++ = VAL_BYTE(cur, (int)(last - idx));
    }
    delta = (int)(q - seq) - oplen;
    if (delta > 0 && b->len + (size_t)delta > sparse_max)
        goto promote;
    at = (size_t)(p - b->p);
    if (delta > 0) {
        size_t prev_at = prev ? (size_t)(prev - b->p) : 0;
        buf_reserve(b, b->len + (size_t)delta);
        p = b->p + at;
        prev = prev ? b->p + prev_at : NULL;
    }
    memmove(p + (q - seq), p + oplen, b->len + 1 - at - (size_t)oplen);
    memcpy(p, seq, (size_t)(q - seq));
    b->len = (size_t)((long)b->len + delta);
updated:
    /* Adjacent VAL opcodes of one value whose runs fit in one are merged,
     * looking at up to five opcodes from the one before the change. */
    p = prev ? prev : b->p + HLL_HDR_SIZE;
    end = b->p + b->len;
    scan = 5;
    while (p < end && scan--) {
        if (OP_IS_XZERO(p)) {
            p += 2;
            continue;
        }
        if (OP_IS_ZERO(p)) {
            p++;
            continue;
        }
        if (p + 1 < end && !OP_IS_ZERO(p + 1) && !OP_IS_XZERO(p + 1) && VAL_VALUE(p) == VAL_VALUE(p + 1) &&
            VAL_LEN(p) + VAL_LEN(p + 1) <= SPARSE_VAL_LEN_MAX) {
            p[1] = VAL_BYTE(VAL_VALUE(p), VAL_LEN(p) + VAL_LEN(p + 1));
            memmove(p, p + 1, (size_t)(end - p));
            end--;
            b->len--;
            continue;
        }
        p++;
    }
    hll_invalidate(b->p); /* as Redis's sparse update (seen after an error) */
    return 1;
promote:
    if (hll_to_dense(b) < 0)
        return -1;
    return dense_raise(b->p + HLL_HDR_SIZE, idx, v);
}

int hll_set_register(hll_buf *b, uint32_t i, int v, size_t sparse_max)
{
    if (b->p[4] == HLL_ENC_DENSE)
        return dense_raise(b->p + HLL_HDR_SIZE, i, v);
    if (b->p[4] == HLL_ENC_SPARSE)
        return sparse_raise(b, i, v, sparse_max);
    return -1;
}

int hll_add(hll_buf *b, const void *ele, size_t n, size_t sparse_max)
{
    int v;
    uint32_t i = element_slot(ele, n, &v);

    return hll_set_register(b, i, v, sparse_max);
}

int hll_dense_add(unsigned char *p, const void *ele, size_t n)
{
    int v;
    uint32_t i = element_slot(ele, n, &v);

    return dense_raise(p + HLL_HDR_SIZE, i, v);
}

/* Visit the registers of p[0..n): fn(ctx, first, run, value) for each run of
 * equal registers the encoding gives. 0, or -1 if the runs do not cover
 * exactly HLL_REGISTERS (a run that would pass the end is corrupt even after
 * a complete cover, as Redis 7.0.15 checks every opcode). */
static int walk(const unsigned char *p, size_t n, void (*fn)(void *ctx, uint32_t first, uint32_t run, int v), void *ctx)
{
    const unsigned char *q = p + HLL_HDR_SIZE, *end = p + n;
    uint32_t idx = 0, i;

    if (p[4] == HLL_ENC_DENSE) {
        for (i = 0; i < HLL_REGISTERS; i++)
            fn(ctx, i, 1, dense_get(q, i));
        return 0;
    }
    while (q < end) {
        if (OP_IS_ZERO(q)) {
            uint32_t run = (uint32_t)ZERO_LEN(q);
            if (idx + run > HLL_REGISTERS)
                return -1;
            fn(ctx, idx, run, 0);
            idx += run;
            q++;
        } else if (OP_IS_XZERO(q)) {
            /* a truncated XZERO reads the value's terminating 0, as Redis's */
            uint32_t run = (uint32_t)((((*q & 0x3f) << 8) | (q + 1 < end ? q[1] : 0)) + 1);
            if (idx + run > HLL_REGISTERS)
                return -1;
            fn(ctx, idx, run, 0);
            idx += run;
            q += 2;
        } else {
            uint32_t run = (uint32_t)VAL_LEN(q);
            if (idx + run > HLL_REGISTERS)
                return -1;
            fn(ctx, idx, run, VAL_VALUE(q));
            idx += run;
            q++;
        }
    }
    return idx == HLL_REGISTERS ? 0 : -1;
}

static void merge_run(void *ctx, uint32_t first, uint32_t run, int v)
{
    uint8_t *max = ctx;
    uint32_t i;

    if (v == 0)
        return;
    for (i = first; i < first + run && i < HLL_REGISTERS; i++)
        if (v > max[i])
            max[i] = (uint8_t)v;
}

int hll_merge(uint8_t max[HLL_REGISTERS], const unsigned char *p, size_t n)
{
    return walk(p, n, merge_run, max);
}

static void histo_run(void *ctx, uint32_t first, uint32_t run, int v)
{
    (void)first;
    ((int *)ctx)[v] += (int)run;
}

/* sigma and tau of Ertl's "New cardinality estimation algorithms for
 * HyperLogLog sketches", summed until the sum stops changing. */
static double est_sigma(double x)
{
    double y = 1, z = x, before;

    if (x == 1.)
        return INFINITY;
    do {
        x *= x;
        before = z;
        z += x * y;
        y += y;
    } while (before != z);
    return z;
}

static double est_tau(double x)
{
    double y = 1.0, z = 1 - x, before;

    if (x == 0. || x == 1.)
        return 0.;
    do {
        x = sqrt(x);
        before = z;
        y *= 0.5;
        z -= pow(1 - x, 2) * y;
    } while (before != z);
    return z / 3;
}

static uint64_t estimate(const int histo[64])
{
    const double alpha_inf = 0.721347520444481703680; /* 1 / (2 ln 2) */
    double m = HLL_REGISTERS, z;
    int j;

    z = m * est_tau((m - histo[HLL_Q + 1]) / m);
    for (j = HLL_Q; j >= 1; --j) {
        z += histo[j];
        z *= 0.5;
    }
    z += m * est_sigma(histo[0] / m);
    return (uint64_t)llroundl(alpha_inf * m * m / z);
}

int hll_count(const unsigned char *p, size_t n, uint64_t *card)
{
    int histo[64] = {0};

    if (walk(p, n, histo_run, histo) < 0)
        return -1;
    *card = estimate(histo);
    return 0;
}

uint64_t hll_count_registers(const uint8_t regs[HLL_REGISTERS])
{
    int histo[64] = {0};
    uint32_t i;

    for (i = 0; i < HLL_REGISTERS; i++)
        histo[regs[i] & 63]++;
    return estimate(histo);
}
