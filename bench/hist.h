/* hist.h -- a log-linear latency histogram in the manner of HdrHistogram.
 *
 * Values (nanoseconds here, but the module does not care) below 256 have a slot
 * each; above, every power of two is split into 128 equal slots, so a value is
 * known to within 1/128 (0.8 %) of itself over the whole range, up to 2^38
 * (275 s in ns; larger values land in the last slot, the exact maximum is kept
 * aside). Recording is a few instructions and allocates nothing; percentiles
 * come from the counts, never from averages of averages, and histograms merge
 * by adding counts, so per-thread histograms can be summed after a run.
 *
 * No globals, no locking: one writer per histogram. */
#ifndef BENCH_HIST_H
#define BENCH_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS) /* slots per power of two */
#define HIST_MAX_SHIFT 30              /* values up to 2^(HIST_MAX_SHIFT + 8) - 1 */
#define HIST_SLOTS (2 * HIST_SUB + HIST_MAX_SHIFT * HIST_SUB)

typedef struct hist {
    uint64_t count;            /* values recorded */
    uint64_t min, max;         /* exact extremes; min is UINT64_MAX while empty */
    double sum;                /* of the values, for the mean */
    uint64_t slot[HIST_SLOTS]; /* counts per slot */
} hist;

/* Empty h. */
void hist_init(hist *h);

/* Count one value. */
void hist_record(hist *h, uint64_t v);

/* Add every count of src into dst. */
void hist_merge(hist *dst, const hist *src);

/* The value at percentile p (0 to 100) as HdrHistogram gives it: the highest
 * value of the slot holding the ceil(p% * count)-th smallest value, never more
 * than the exact maximum. 0 for an empty histogram. */
uint64_t hist_percentile(const hist *h, double p);

/* The mean of the values, 0 when empty. */
double hist_mean(const hist *h);

/* Slot arithmetic, exposed for the tests: the slot of v, and the lowest and
 * highest value that land in slot i. */
unsigned hist_slot_of(uint64_t v);
uint64_t hist_slot_low(unsigned i);
uint64_t hist_slot_high(unsigned i);

#endif
