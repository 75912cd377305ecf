/* test.h -- the smallest unit-test harness that does the job.
 *
 * Each case is a function run by RUN(fn, "a sentence saying what must hold").
 * A case fails when any CHECK inside it fails; the program prints one TAP-like
 * line per case ("ok - ..." / "not ok - ...") and ends with TEST_DONE(), which
 * prints "N passed, N failed" and returns the exit status. tests/run.sh adds up
 * the "ok"/"not ok" lines of every test program. */
#ifndef SP_TEST_H
#define SP_TEST_H

#include <stdio.h>

static int test_passed, test_failed, test_case_failed;

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "    %s:%d: CHECK(%s) failed\n", __FILE__,      \
                    __LINE__, #cond);                                       \
            test_case_failed = 1;                                           \
        }                                                                   \
    } while (0)

#define RUN(fn, desc)                                                       \
    do {                                                                    \
        test_case_failed = 0;                                               \
        fn();                                                               \
        if (test_case_failed) {                                             \
            test_failed++;                                                  \
            printf("not ok - %s\n", desc);                                  \
        } else {                                                            \
            test_passed++;                                                  \
            printf("ok - %s\n", desc);                                      \
        }                                                                   \
        fflush(stdout);                                                     \
    } while (0)

/* A seeded xorshift64 generator, so that every "random" case is the same run
 * after run: rng_seed(s), then rng() or rng_below(n) (0 for n == 0). The state
 * lives in a function so that a file using none of it gets no warning. */
#include <stddef.h>
#include <stdint.h>

static inline uint64_t *rng_statep(void)
{
    static uint64_t state;
    return &state;
}

static inline void rng_seed(uint64_t s)
{
    *rng_statep() = s * 0x9E3779B97F4A7C15ull + 0x1234567ull;
}

static inline uint64_t rng(void)
{
    uint64_t x = *rng_statep();
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *rng_statep() = x;
}

static inline size_t rng_below(size_t n)
{
    return n ? (size_t)(rng() % n) : 0;
}

#define TEST_DONE()                                                         \
    (printf("%d passed, %d failed\n", test_passed, test_failed),           \
     test_failed ? 1 : 0)

#endif
