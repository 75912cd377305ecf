/* loggen.h -- deterministic text for the benchmark: log-like tool output,
 * plans, log lines.
 *
 * Tool outputs must compress the way real logs do, not the way a repeated byte
 * does: lines with ISO timestamps that move forward, levels (mostly INFO, some
 * DEBUG/WARN, a few ERROR with stack traces), a few dozen templates whose ids,
 * durations, sizes and users vary. Generating 30 KB to 1 MB per operation would
 * make the load generator the bottleneck, so a corpus of such lines is built
 * once per run from the seed and every tool output is a line-aligned slice of
 * it at a random place: the same statistics, no cost per operation. The corpus
 * is read-only once built and shared by all threads.
 *
 * All text is ASCII, so characters and bytes coincide: a window of n characters
 * on scratchpad is the same bytes as GETRANGE on Redis.
 *
 * Functions return 0 / -1 (allocation failure) unless said otherwise. */
#ifndef BENCH_LOGGEN_H
#define BENCH_LOGGEN_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

typedef struct corpus {
    char *text;        /* len bytes of '\n'-terminated lines, NUL after */
    size_t len;        /* bytes */
    uint32_t *line;    /* nlines + 1 offsets: line i spans [line[i], line[i + 1]) */
    size_t nlines;
} corpus;

/* Build at least `bytes` bytes of log text from seed. Free with corpus_free. */
int corpus_build(corpus *c, uint64_t seed, size_t bytes);

/* Release what corpus_build allocated; c may be zeroed or never built. */
void corpus_free(corpus *c);

/* A line-aligned slice of about `want` bytes (at least want, at most want plus
 * one line, and never more than the corpus) at a place chosen with r: sets *off
 * and *len in bytes and returns the number of lines in it. */
size_t corpus_slice(const corpus *c, rng *r, size_t want, size_t *off, size_t *len);

/* Per-generator state of log lines: the clock moves forward. */
typedef struct loggen {
    uint64_t ms; /* current timestamp, ms since the epoch */
} loggen;

void loggen_init(loggen *g, rng *r);

/* Write one log line (with its '\n') into buf of cap bytes (cap >= 512) and
 * return its length. May write a few lines at once (a stack trace). */
size_t loggen_line(loggen *g, rng *r, char *buf, size_t cap);

/* A plan of `target` bytes or a little more, at most 63 steps, each step a line
 * "- [ ] step K: ...". Writes into buf (cap >= target + 256), returns the
 * length, and sets *steps. */
size_t loggen_plan(rng *r, size_t target, char *buf, size_t cap, int *steps);

/* The regular expressions the agents grep for; each matches some lines of the
 * corpus and none spans lines. */
extern const char *const loggen_patterns[];
extern const int loggen_npatterns;

#endif
