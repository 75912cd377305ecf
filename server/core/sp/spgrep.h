/* spgrep.h -- line-oriented search of a buffer with PCRE2 (JIT), for SP.GREP.
 *
 * Matches are found line by line ('\n'-separated, the terminator not part of the
 * line), so a pattern never matches across lines, as grep. Patterns are
 * Perl-compatible (\d, \w, (?i), lookarounds), compiled once and kept in a small
 * cache of recent patterns (the caller's spgrep_cache). Work is bounded: PCRE2's
 * match and depth limits stop catastrophic backtracking on a line, and the
 * caller bounds the bytes scanned per call.
 *
 * No server types and no globals. Errors: see spgrep_run. */
#ifndef SP_SPGREP_H
#define SP_SPGREP_H

#include <stddef.h>
#include <stdint.h>

typedef struct spgrep_cache spgrep_cache;

typedef struct spgrep_opts {
    int nocase;           /* case-insensitive */
    int literal;          /* the pattern is a plain string */
    int utf;              /* the subject is valid UTF-8: match by code points */
    size_t max_matches;   /* matching lines to report */
    size_t context;       /* lines of context before and after each match */
    int count_all;        /* keep scanning after max_matches to count every match */
    uint32_t match_limit; /* PCRE2 match limit per line */
    uint32_t depth_limit; /* PCRE2 depth limit per line */
    int64_t max_us;       /* time budget of one call in microseconds (0 = none): past it, SPGREP_LIMIT */
    int64_t started_us;   /* 0, or when the budget started (spgrep_now_us): one search
                             continued over several calls shares one budget */
} spgrep_opts;

typedef struct spgrep_result {
    size_t matched;       /* matching lines seen (all of them if count_all) */
    size_t shown;         /* matching lines reported */
    size_t lines;         /* lines scanned */
    size_t err_line;      /* with SPGREP_LIMIT: the line where the limit hit */
    size_t err_offset;    /* with SPGREP_BADPATTERN: offset in the pattern */
} spgrep_result;

enum { SPGREP_OK = 0, SPGREP_BADPATTERN = -1, SPGREP_LIMIT = -2 };

/* Called for each reported line, in line order: lineno is 1-based, is_match is 1
 * for a matching line and 0 for a context line; p[0..len) is the line. */
typedef void (*spgrep_emit)(void *ctx, size_t lineno, const char *p, size_t len, int is_match);

/* The monotonic clock the time budget is measured on, in microseconds. */
int64_t spgrep_now_us(void);

spgrep_cache *spgrep_cache_new(size_t slots);
void spgrep_cache_free(spgrep_cache *c);

/* Search buf[0..n). Returns SPGREP_OK; SPGREP_BADPATTERN with err holding
 * PCRE2's message and res->err_offset; or SPGREP_LIMIT when a line exhausts the
 * match or depth limit (res->err_line; lines reported before it stay reported). */
int spgrep_run(spgrep_cache *cache, const char *buf, size_t n, const char *pat, size_t plen,
               const spgrep_opts *o, spgrep_emit emit, void *ctx, spgrep_result *res, char *err, size_t errcap);

#endif
