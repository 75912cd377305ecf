/* hist.c -- log-linear histogram (see hist.h for the layout and guarantees).
 *
 * Slot layout: slots [0, 256) hold the values 0..255 exactly. From 256 on, a
 * value v with its highest set bit at position m (m >= 8) has shift = m - 7, so
 * v >> shift lies in [128, 256); its slot is 256 + (shift - 1) * 128 +
 * ((v >> shift) - 128). Each slot therefore spans 2^shift values, 1/128 of
 * the values around it. */
#include "hist.h"

#include <string.h>

#define HIST_TOP ((UINT64_C(1) << (HIST_MAX_SHIFT + HIST_SUB_BITS + 1)) - 1)

void hist_init(hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

unsigned hist_slot_of(uint64_t v)
{
    unsigned msb, shift;

    if (v < 2 * HIST_SUB)
        return (unsigned)v;
    if (v > HIST_TOP)
        v = HIST_TOP;
    msb = 63u - (unsigned)__builtin_clzll(v);
    shift = msb - HIST_SUB_BITS;
    return 2 * HIST_SUB + (shift - 1) * HIST_SUB + (unsigned)((v >> shift) - HIST_SUB);
}

uint64_t hist_slot_low(unsigned i)
{
    unsigned shift;
    uint64_t sub;

    if (i < 2 * HIST_SUB)
        return i;
    shift = (i - 2 * HIST_SUB) / HIST_SUB + 1;
    sub = (i - 2 * HIST_SUB) % HIST_SUB + HIST_SUB;
    return sub << shift;
}

uint64_t hist_slot_high(unsigned i)
{
    unsigned shift;

    if (i < 2 * HIST_SUB)
        return i;
    shift = (i - 2 * HIST_SUB) / HIST_SUB + 1;
    return hist_slot_low(i) + (UINT64_C(1) << shift) - 1;
}

void hist_record(hist *h, uint64_t v)
{
    h->slot[hist_slot_of(v)]++;
    h->count++;
    h->sum += (double)v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}

void hist_merge(hist *dst, const hist *src)
{
    unsigned i;

    if (!src->count)
        return;
    for (i = 0; i < HIST_SLOTS; i++)
        dst->slot[i] += src->slot[i];
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t hist_percentile(const hist *h, double p)
{
    uint64_t rank, seen = 0, v;
    unsigned i;

    if (!h->count)
        return 0;
    if (p < 0)
        p = 0;
    if (p > 100)
        p = 100;
    /* ceil, computed so that 100 % of n is exactly n */
    rank = (uint64_t)((p / 100.0) * (double)h->count + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    for (i = 0; i < HIST_SLOTS; i++) {
        seen += h->slot[i];
        if (seen >= rank)
            break;
    }
    v = hist_slot_high(i < HIST_SLOTS ? i : HIST_SLOTS - 1);
    if (v > h->max)
        v = h->max;
    if (v < h->min)
        v = h->min;
    return v;
}

double hist_mean(const hist *h)
{
    return h->count ? h->sum / (double)h->count : 0.0;
}
