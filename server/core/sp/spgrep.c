/* spgrep.c -- line-oriented PCRE2 search (see spgrep.h).
 *
 * The buffer is walked line by line with memchr; each line is matched with the
 * JIT-compiled pattern (falling back to the interpreter if JIT is unavailable).
 * Context lines before a match come from a ring of the last `context` line
 * positions, so nothing is scanned twice; lines after a match are emitted as the
 * walk reaches them. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "sp/spgrep.h"

#include <pcre2.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mem.h"

typedef struct slot {
    pcre2_code *code;
    char *pat;
    size_t plen;
    uint32_t flags;
    int jit;       /* JIT compilation succeeded */
    uint64_t used; /* LRU clock */
} slot;

struct spgrep_cache {
    slot *slots;
    size_t n;
    uint64_t clock;
    pcre2_match_context *mctx;
    pcre2_jit_stack *jstack;
};

spgrep_cache *spgrep_cache_new(size_t slots)
{
    spgrep_cache *c = xcalloc(1, sizeof(*c));
    c->n = slots ? slots : 1;
    c->slots = xcalloc(c->n, sizeof(slot));
    c->mctx = pcre2_match_context_create(NULL);
    c->jstack = pcre2_jit_stack_create(32 * 1024, 512 * 1024, NULL);
    if (c->jstack)
        pcre2_jit_stack_assign(c->mctx, NULL, c->jstack);
    return c;
}

void spgrep_cache_free(spgrep_cache *c)
{
    size_t i;
    if (!c)
        return;
    for (i = 0; i < c->n; i++) {
        pcre2_code_free(c->slots[i].code);
        xfree(c->slots[i].pat);
    }
    xfree(c->slots);
    pcre2_match_context_free(c->mctx);
    pcre2_jit_stack_free(c->jstack);
    xfree(c);
}

/* The compiled pattern for (pat, flags), compiling it into the least recently
 * used slot if needed. NULL on a compile error (err, *erroff set). */
static slot *get_code(spgrep_cache *c, const char *pat, size_t plen, uint32_t flags, char *err, size_t errcap,
                      size_t *erroff)
{
    size_t i, victim = 0;
    int errcode;
    PCRE2_SIZE off;
    pcre2_code *code;
    slot *s;

    for (i = 0; i < c->n; i++) {
        s = &c->slots[i];
        if (s->code && s->flags == flags && s->plen == plen && memcmp(s->pat, pat, plen) == 0) {
            s->used = ++c->clock;
            return s;
        }
        if (!s->code || s->used < c->slots[victim].used)
            victim = i;
    }
    code = pcre2_compile((PCRE2_SPTR)pat, plen, flags, &errcode, &off, NULL);
    if (!code) {
        pcre2_get_error_message(errcode, (PCRE2_UCHAR *)err, errcap);
        *erroff = off;
        return NULL;
    }
    s = &c->slots[victim];
    pcre2_code_free(s->code);
    xfree(s->pat);
    s->code = code;
    s->pat = xstrndup(pat, plen);
    s->plen = plen;
    s->flags = flags;
    s->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
    s->used = ++c->clock;
    return s;
}

int64_t spgrep_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

typedef struct line_pos {
    size_t lineno;
    const char *p;
    size_t len;
} line_pos;

int spgrep_run(spgrep_cache *c, const char *buf, size_t n, const char *pat, size_t plen, const spgrep_opts *o,
               spgrep_emit emit, void *ctx, spgrep_result *res, char *err, size_t errcap)
{
    uint32_t flags = (o->utf ? PCRE2_UTF | (o->literal ? 0 : PCRE2_UCP) | PCRE2_NO_UTF_CHECK : 0) | (o->nocase ? PCRE2_CASELESS : 0) |
                     (o->literal ? PCRE2_LITERAL : 0);
    uint32_t mflags = o->utf ? PCRE2_NO_UTF_CHECK : 0;
    const char *p = buf, *end = buf + n;
    size_t lineno = 0, last_emitted = 0, after = 0, erroff = 0;
    line_pos *ring = NULL;
    size_t ring_n = o->context, ring_head = 0, ring_count = 0;
    pcre2_match_data *md = NULL;
    slot *s;
    int rc = SPGREP_OK;
    int64_t t0 = o->max_us ? (o->started_us ? o->started_us : spgrep_now_us()) : 0;

    memset(res, 0, sizeof(*res));
    if (o->utf && plen > 0) {
        /* A pattern that is not valid UTF-8 cannot be used in UTF mode. */
        flags &= ~(uint32_t)PCRE2_NO_UTF_CHECK;
    }
    s = get_code(c, pat, plen, flags, err, errcap, &erroff);
    if (!s) {
        res->err_offset = erroff;
        return SPGREP_BADPATTERN;
    }
    pcre2_set_match_limit(c->mctx, o->match_limit);
    pcre2_set_depth_limit(c->mctx, o->depth_limit);
    md = pcre2_match_data_create(1, NULL);
    if (ring_n)
        ring = xmalloc(sizeof(line_pos) * ring_n);

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        int m, reporting = res->shown < o->max_matches;

        lineno++;
        if (!reporting && after == 0 && !o->count_all)
            break;
        if (o->max_us && (lineno & 15) == 0 && spgrep_now_us() - t0 > o->max_us) {
            res->err_line = lineno;
            snprintf(err, errcap, "time budget of %lld ms exceeded", (long long)(o->max_us / 1000));
            rc = SPGREP_LIMIT;
            break;
        }
        if (s->jit)
            m = pcre2_jit_match(s->code, (PCRE2_SPTR)p, len, 0, mflags, md, c->mctx);
        else
            m = pcre2_match(s->code, (PCRE2_SPTR)p, len, 0, mflags, md, c->mctx);
        if (m < 0 && m != PCRE2_ERROR_NOMATCH) {
            res->err_line = lineno;
            rc = SPGREP_LIMIT;
            if (m != PCRE2_ERROR_MATCHLIMIT && m != PCRE2_ERROR_DEPTHLIMIT && m != PCRE2_ERROR_JIT_STACKLIMIT &&
                m != PCRE2_ERROR_HEAPLIMIT)
                pcre2_get_error_message(m, (PCRE2_UCHAR *)err, errcap);
            else
                snprintf(err, errcap, "match limit exceeded");
            break;
        }
        if (m >= 0) {
            res->matched++;
            if (reporting) {
                /* Leading context from the ring, oldest first. */
                size_t k;
                for (k = 0; k < ring_count; k++) {
                    line_pos *lp = &ring[(ring_head + ring_n - ring_count + k) % ring_n];
                    if (lp->lineno > last_emitted) {
                        emit(ctx, lp->lineno, lp->p, lp->len, 0);
                        last_emitted = lp->lineno;
                    }
                }
                emit(ctx, lineno, p, len, 1);
                last_emitted = lineno;
                res->shown++;
                after = o->context;
            } else if (after > 0) {
                /* Past MAX, a matching line inside the last match's trailing
                 * context is shown as context. */
                emit(ctx, lineno, p, len, 0);
                last_emitted = lineno;
                after--;
            }
        } else if (after > 0) {
            emit(ctx, lineno, p, len, 0);
            last_emitted = lineno;
            after--;
        }
        if (ring_n) {
            ring[ring_head].lineno = lineno;
            ring[ring_head].p = p;
            ring[ring_head].len = len;
            ring_head = (ring_head + 1) % ring_n;
            if (ring_count < ring_n)
                ring_count++;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    res->lines = lineno;
    pcre2_match_data_free(md);
    xfree(ring);
    return rc;
}
