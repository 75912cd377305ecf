/* util.c -- string helpers (see util.h). */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

/* The value of the 8 ASCII digits at p (the first the most significant), or
 * -1 if a byte is not a digit: 8 bytes at once (a multiply per pair of
 * pairs), on a little-endian machine. */
static inline long long digits8(const char *p)
{
    uint64_t v, t;

    memcpy(&v, p, 8);
    /* each byte's high nibble is 3, and its low one at most 9 (adding 6 to
     * 0x3a..0x3f carries into the high nibble; no byte carries into the next) */
    if ((v & 0xf0f0f0f0f0f0f0f0ULL) != 0x3030303030303030ULL ||
        ((v + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) != 0x3030303030303030ULL)
        return -1;
    t = v - 0x3030303030303030ULL;
    t = t * 10 + (t >> 8); /* bytes 0, 2, 4, 6: pairs of digits, 0..99 */
    t = ((t & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32)) +
         ((t >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32))) >>
        32;
    return (long long)t;
}

int str_to_ll(const char *p, size_t n, long long *out)
{
    const char *end = p + n;
    unsigned long long v = 0;
    int neg = 0;

    if (n == 0 || n > 20)
        return -1;
    if (n == 1 && p[0] == '0') {
        *out = 0;
        return 0;
    }
    if (*p == '-') {
        neg = 1;
        p++;
        if (p == end)
            return -1;
    }
    if (*p < '1' || *p > '9')
        return -1;
    /* 19 digits never overflow an unsigned 64-bit value, and 20 (from 1e19)
     * are past any long long: so no check per digit (it was a division), only
     * the range at the end; and 8 digits at a time (a fencing token has 16:
     * ~290 instructions one by one with the check, ~60 now). */
    if (end - p > 19)
        return -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; end - p >= 8; p += 8) {
        long long d8 = digits8(p);
        if (d8 < 0)
            return -1;
        v = v * 100000000ULL + (unsigned long long)d8;
    }
#endif
    for (; p < end; p++) {
        unsigned d = (unsigned)(unsigned char)*p - (unsigned)'0';
        if (d > 9)
            return -1;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1)
            return -1;
        *out = (long long)(0 - v);
    } else {
        if (v > (unsigned long long)LLONG_MAX)
            return -1;
        *out = (long long)v;
    }
    return 0;
}

size_t ull_to_str(char *buf, unsigned long long v)
{
    char tmp[24];
    size_t n = 0, i = 0;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        buf[i++] = tmp[--n];
    buf[i] = '\0';
    return i;
}

size_t ll_to_str(char *buf, long long v)
{
    if (v >= 0)
        return ull_to_str(buf, (unsigned long long)v);
    buf[0] = '-';
    return 1 + ull_to_str(buf + 1, 0 - (unsigned long long)v);
}

int str_to_ld(const char *p, size_t n, long double *out)
{
    char buf[5 * 1024];
    char *eptr;
    long double v;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    if (isspace((unsigned char)buf[0]))
        return -1;
    errno = 0;
    v = strtold(buf, &eptr);
    if (eptr != buf + n || isnan(v) || (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || v == 0)))
        return -1;
    *out = v;
    return 0;
}

size_t ld_to_str(char *buf, size_t cap, long double v)
{
    int n;

    if (isinf(v))
        return (size_t)snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    n = snprintf(buf, cap, "%.17Lf", v);
    if (n < 0 || (size_t)n >= cap) {
        n = snprintf(buf, cap, "%.17Lg", v);
        return (size_t)(n < 0 ? 0 : n);
    }
    if (strchr(buf, '.')) {
        while (n > 0 && buf[n - 1] == '0')
            n--;
        if (n > 0 && buf[n - 1] == '.')
            n--;
        buf[n] = '\0';
    }
    if (n == 2 && buf[0] == '-' && buf[1] == '0') {
        buf[0] = '0';
        buf[1] = '\0';
        n = 1;
    }
    return (size_t)n;
}

int str_to_d(const char *p, size_t n, double *out)
{
    char buf[256];
    char *eptr;
    double v;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    if (isspace((unsigned char)buf[0]))
        return -1;
    errno = 0;
    v = strtod(buf, &eptr);
    if (eptr != buf + n || isnan(v) || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

size_t d_to_str(char *buf, size_t cap, double v)
{
    int n;

    if (isinf(v))
        n = snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    else
        n = snprintf(buf, cap, "%.17g", v);
    return n < 0 ? 0 : (size_t)n;
}

static int fold(int c, int nocase)
{
    return nocase ? tolower(c) : c;
}

/* Recursive on '*' only; every other token consumes one byte. Consecutive stars
 * collapse, so the depth is bounded by the number of star groups. */
int glob_match(const char *p, size_t plen, const char *s, size_t slen, int nocase)
{
    while (plen > 0) {
        switch (p[0]) {
        case '*':
            while (plen > 1 && p[1] == '*') {
                p++;
                plen--;
            }
            if (plen == 1)
                return 1;
            while (1) {
                if (glob_match(p + 1, plen - 1, s, slen, nocase))
                    return 1;
                if (slen == 0)
                    return 0;
                s++;
                slen--;
            }
        case '?':
            if (slen == 0)
                return 0;
            s++;
            slen--;
            break;
        case '[': {
            int neg, match = 0;
            if (slen == 0)
                return 0;
            p++;
            plen--;
            neg = plen > 0 && p[0] == '^';
            if (neg) {
                p++;
                plen--;
            }
            while (plen > 0 && p[0] != ']') {
                if (p[0] == '\\' && plen >= 2) {
                    p++;
                    plen--;
                    if (fold((unsigned char)p[0], nocase) == fold((unsigned char)s[0], nocase))
                        match = 1;
                } else if (plen >= 3 && p[1] == '-' && p[2] != ']') {
                    int lo = fold((unsigned char)p[0], nocase);
                    int hi = fold((unsigned char)p[2], nocase);
                    int c = fold((unsigned char)s[0], nocase);
                    if (lo > hi) {
                        int t = lo;
                        lo = hi;
                        hi = t;
                    }
                    if (c >= lo && c <= hi)
                        match = 1;
                    p += 2;
                    plen -= 2;
                } else if (fold((unsigned char)p[0], nocase) == fold((unsigned char)s[0], nocase)) {
                    match = 1;
                }
                p++;
                plen--;
            }
            if (neg)
                match = !match;
            if (!match)
                return 0;
            s++;
            slen--;
            if (plen == 0)
                return slen == 0;
            break;
        }
        case '\\':
            if (plen >= 2) {
                p++;
                plen--;
            }
            /* fall through */
        default:
            if (slen == 0 || fold((unsigned char)p[0], nocase) != fold((unsigned char)s[0], nocase))
                return 0;
            s++;
            slen--;
            break;
        }
        p++;
        plen--;
    }
    return slen == 0;
}

int str_eq_ci(const char *p, size_t n, const char *w)
{
    size_t i;

    /* One pass, no strlen and no locale tables (strncasecmp's): options are
     * compared this way on every command that takes any. */
    for (i = 0; i < n; i++) {
        unsigned a = (unsigned char)p[i], b = (unsigned char)w[i];
        if (!b)
            return 0;
        if (a != b && ((a | 0x20) != (b | 0x20) || (a | 0x20) - 'a' > 'z' - 'a'))
            return 0;
    }
    return w[n] == '\0';
}

/* One unsigned decimal number at *p (advanced past it); -1 if none. */
static long cpulist_num(const char **p)
{
    long v = 0;

    if (!isdigit((unsigned char)**p))
        return -1;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        if (v > 1L << 20)
            return -1;
        (*p)++;
    }
    return v;
}

int cpulist_parse(const char *s, uint64_t *mask, size_t nwords)
{
    const char *p = s;
    long a, b, step, i;

    memset(mask, 0, nwords * sizeof(*mask));
    if (*p == '\0')
        return 0;
    for (;;) {
        if ((a = cpulist_num(&p)) < 0)
            return -1;
        b = a;
        step = 1;
        if (*p == '-') {
            p++;
            if ((b = cpulist_num(&p)) < 0 || b < a)
                return -1;
            if (*p == ':') {
                p++;
                if ((step = cpulist_num(&p)) <= 0)
                    return -1;
            }
        }
        if ((size_t)b >= nwords * 64)
            return -1;
        for (i = a; i <= b; i += step)
            mask[i / 64] |= 1ULL << (i % 64);
        if (*p == '\0')
            return 0;
        if (*p++ != ',')
            return -1;
    }
}

int str_to_memory(const char *s, long long *out)
{
    static const struct { const char *suffix; long long mul; } units[] = {
        {"b", 1}, {"k", 1000}, {"kb", 1024}, {"m", 1000 * 1000}, {"mb", 1024 * 1024},
        {"g", 1000LL * 1000 * 1000}, {"gb", 1024LL * 1024 * 1024},
    };
    size_t n = strlen(s), digits = 0, i;
    long long v, mul = 1;

    while (digits < n && (isdigit((unsigned char)s[digits]) || (digits == 0 && s[0] == '-')))
        digits++;
    if (digits < n) {
        const char *suf = s + digits;
        for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
            if (strcasecmp(suf, units[i].suffix) == 0)
                break;
        if (i == sizeof(units) / sizeof(units[0]))
            return -1;
        mul = units[i].mul;
    }
    if (str_to_ll(s, digits, &v) < 0 || v < 0)
        return -1;
    if (mul > 1 && v > LLONG_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

int64_t now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int64_t now_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

static int fast_tsc;          /* 1: fast_ticks reads the TSC */
static double fast_us_per_tick = 1.0;

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

void fast_clock_init(void)
{
#if defined(__x86_64__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int constant = 0, nonstop = 0;

    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    fclose(f);
    if (constant && nonstop) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        int64_t u0 = mono_us();
        uint64_t t0 = __rdtsc(), t1;
        int64_t u1;
        nanosleep(&ts, NULL);
        t1 = __rdtsc();
        u1 = mono_us();
        if (t1 > t0 && u1 > u0) {
            fast_us_per_tick = (double)(u1 - u0) / (double)(t1 - t0);
            fast_tsc = 1;
        }
    }
#endif
}

uint64_t fast_ticks(void)
{
#if defined(__x86_64__)
    if (fast_tsc)
        return __rdtsc();
#endif
    return (uint64_t)mono_us();
}

int64_t fast_ticks_to_us(uint64_t ticks)
{
    return fast_tsc ? (int64_t)((double)ticks * fast_us_per_tick) : (int64_t)ticks;
}

int64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int index_range(long long len, long long start, long long end, long long *s, long long *e)
{
    if (start < 0)
        start += len;
    if (end < 0)
        end += len;
    if (start < 0)
        start = 0;
    if (start > end || start >= len)
        return -1;
    if (end >= len)
        end = len - 1;
    *s = start;
    *e = end;
    return 0;
}

long long dbl_to_ll_x86(double d)
{
    const double two63 = 9223372036854775808.0;

    return d >= -two63 && d < two63 ? (long long)d : LLONG_MIN;
}

unsigned long long dbl_to_ull_x86(double d)
{
    const double two63 = 9223372036854775808.0;

    if (d >= two63)
        return (unsigned long long)dbl_to_ll_x86(d - two63) ^ (1ULL << 63);
    return (unsigned long long)dbl_to_ll_x86(d);
}
