/* rng.h -- the benchmark's deterministic random numbers (splitmix64).
 *
 * Every decision an agent makes (which operation, which entry, which sizes,
 * which bytes) comes from its own generator, seeded from the run's seed and the
 * agent's number. So two runs with the same seed issue the same sequence of
 * logical operations per agent, whatever the server answers, how the agents are
 * spread over threads, or which target (scratchpad or redis) is measured.
 * Header-only: the functions are small and on every path of the load generator. */
#ifndef BENCH_RNG_H
#define BENCH_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct rng {
    uint64_t s; /* the whole state */
} rng;

static inline void rng_seed(rng *r, uint64_t seed, uint64_t stream)
{
    r->s = seed * 0x9e3779b97f4a7c15ULL ^ (stream + 1) * 0xd1b54a32d192ed03ULL;
}

static inline uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n); 0 when n is 0. */
static inline uint64_t rng_below(rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Uniform in [lo, hi] (inclusive); lo when hi <= lo. */
static inline uint64_t rng_between(rng *r, uint64_t lo, uint64_t hi)
{
    return hi <= lo ? lo : lo + rng_below(r, hi - lo + 1);
}

/* Uniform in [0, 1). */
static inline double rng_double(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* Log-uniform in [lo, hi]: as many values between 30 KB and 100 KB as between
 * 300 KB and 1 MB, the way tool outputs are spread (many small, a few huge). */
static inline uint64_t rng_logu(rng *r, uint64_t lo, uint64_t hi)
{
    double v;
    if (hi <= lo || lo == 0)
        return rng_between(r, lo, hi);
    v = exp(log((double)lo) + rng_double(r) * (log((double)hi) - log((double)lo)));
    if (v < (double)lo)
        return lo;
    return v > (double)hi ? hi : (uint64_t)v;
}

/* Exponentially distributed with the given mean (think times). */
static inline double rng_exp(rng *r, double mean)
{
    return -mean * log(1.0 - rng_double(r));
}

#endif
