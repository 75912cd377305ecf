/* util.h -- small string helpers shared by the server: Redis-exact integer and
 * float parsing and formatting, glob matching, case-insensitive compare.
 * No state; every function is pure. */
#ifndef SP_UTIL_H
#define SP_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Parse p[0..n) as a strict decimal long long (as Redis's string2ll: optional
 * '-', no '+', no spaces, no leading zeros, no overflow). 0 on success, -1 if not. */
int str_to_ll(const char *p, size_t n, long long *out);
/* Redis's index range over len elements (LRANGE, LTRIM, ZRANGE by rank, ...):
 * negative indexes count from the end, start is raised to 0 and end lowered to
 * len - 1. Returns 0 with [*s, *e] inside the range, or -1 when it is empty. */
int index_range(long long len, long long start, long long end, long long *s, long long *e);
/* Format v in decimal into buf (at least 21 bytes); returns the length. */
size_t ll_to_str(char *buf, long long v);
/* Format v in decimal into buf (at least 21 bytes); returns the length. */
size_t ull_to_str(char *buf, unsigned long long v);
/* Parse a long double as Redis's string2ld (no spaces, not NaN). 0 / -1. */
int str_to_ld(const char *p, size_t n, long double *out);
/* Format v as Redis formats INCRBYFLOAT results: "%.17Lf" without trailing zeros
 * (never an exponent while it fits in cap bytes; "%.17Lg" otherwise). Returns the
 * length. A cap of 5200 holds any finite long double in full. */
size_t ld_to_str(char *buf, size_t cap, long double v);
/* Parse a double (for RESP3 and config), 0 / -1. */
int str_to_d(const char *p, size_t n, double *out);
/* Format a double as Redis does in replies ("%.17g", "inf", "-inf"). */
size_t d_to_str(char *buf, size_t cap, double v);

/* C leaves a double to integer conversion undefined when the value does not
 * fit, and redis-server (gcc, x86-64) gets the processor's answer, which its
 * replies show (GEOPOS of any score, a script returning 1e300, struct.pack).
 * These give that answer without the undefined behaviour.
 * dbl_to_ll_x86: (long long)d, truncated toward zero; LLONG_MIN when d is out
 * of range or NaN. dbl_to_ull_x86: (unsigned long long)d: below 2^63 as
 * dbl_to_ll_x86 (so a negative d wraps); from 2^63 the same of d - 2^63 with
 * the top bit flipped (0 from 2^64 on). */
long long dbl_to_ll_x86(double d);
unsigned long long dbl_to_ull_x86(double d);

/* 1 if string s[0..slen) matches glob pattern p[0..plen) (Redis glob: * ? [abc]
 * [^a-z] and \ escapes); nocase folds ASCII case. */
int glob_match(const char *p, size_t plen, const char *s, size_t slen, int nocase);

/* 1 if p[0..n) equals the NUL-terminated word w ignoring ASCII case. */
int str_eq_ci(const char *p, size_t n, const char *w);

/* Parse a memory amount ("1gb", "64mb", "100k", "512") as redis.conf does.
 * 0 on success, -1 if malformed or negative. */
int str_to_memory(const char *s, long long *out);

/* Parse a CPU list as redis.conf's *-cpulist settings take it: comma-separated
 * items, each a CPU number, a range "a-b", or a range with a step "a-b:s" (every
 * s-th CPU from a). Sets bit i of mask[i / 64] for each CPU i; CPUs at or above
 * 64 * nwords are an error. 0 on success (an empty string is an empty list),
 * -1 if malformed. */
int cpulist_parse(const char *s, uint64_t *mask, size_t nwords);

/* Milliseconds / microseconds since the epoch (wall clock). */
int64_t now_ms(void);
int64_t now_us(void);
/* Monotonic microseconds. */
int64_t mono_us(void);

/* Cheap interval timing for the per-command durations (commandstats, slowlog):
 * the CPU's timestamp counter where it is invariant (x86-64 with constant_tsc
 * and nonstop_tsc), calibrated against CLOCK_MONOTONIC by fast_clock_init;
 * CLOCK_MONOTONIC in microseconds elsewhere. */
void fast_clock_init(void);
uint64_t fast_ticks(void);
int64_t fast_ticks_to_us(uint64_t ticks);

#endif
