/* cmd_sp_grep.c -- SP.GREP: the lines of a scratchpad entry, or of the entries
 * whose names match globs (the ENTRIES form), that match a pattern.
 *
 * Why a file of its own: the search is core/sp/spgrep.c (PCRE2, line by line,
 * no server); this is the command around it: its options, the limits from the
 * configuration (sp-grep-max-scan per entry, sp-grep-match-limit per line,
 * sp-grep-max-time per call), the lines shown kept until the search ends (so a
 * search stopped by a limit answers a plain error, never a partial array), and
 * the search of a compressed entry a part at a time, which stops decoding once
 * the first MAX matching lines are found (grep_compressed). The ENTRIES form
 * searches the selected entries in name order under one budget of each kind:
 * sp-grep-max-scan bounds their total size, one sp-grep-max-time clock runs
 * over all of them, MAX counts matching lines across them. Compiled patterns
 * are kept in one cache for the life of the process. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/mem.h"
#include "net/reply.h"
#include "core/sp/sp.h"
#include "core/sp/spgrep.h"
#include "core/util.h"
#include "types/sp/cmd_sp_int.h"
#include "types/sp/sptype.h"

#define GREP_MAX_DEFAULT 100
#define GREP_CONTEXT_MAX 1000

static spgrep_cache *grep_cache;

/* ---- SP.GREP ---- */

/* The lines a grep reports, kept until the search ends so that a search stopped
 * by a limit answers a plain error, not a partial array. */
typedef struct grep_out {
    char *buf;   /* "lineno:line" / "lineno-line", back to back */
    size_t len, cap;
    size_t *ends; /* ends[i]: end offset in buf of line i */
    size_t count, ncap;
    size_t line_base; /* lines before the buffer being searched (grep_compressed) */
    const char *name; /* ENTRIES form: the entry's name, put before each line; else NULL */
    size_t nlen;
} grep_out;

static void grep_emit(void *ctx, size_t lineno, const char *p, size_t len, int is_match)
{
    grep_out *g = ctx;
    char num[24];
    size_t nl = ll_to_str(num, (long long)(g->line_base + lineno)), need = nl + 1 + len;

    if (g->name)
        need += g->nlen + 1;
    if (g->len + need > g->cap) {
        g->cap = (g->len + need) * 2 > 4096 ? (g->len + need) * 2 : 4096;
        g->buf = xrealloc(g->buf, g->cap);
    }
    if (g->name) {
        memcpy(g->buf + g->len, g->name, g->nlen);
        g->buf[g->len + g->nlen] = is_match ? ':' : '-';
        g->len += g->nlen + 1;
        need -= g->nlen + 1;
    }
    memcpy(g->buf + g->len, num, nl);
    g->buf[g->len + nl] = is_match ? ':' : '-';
    memcpy(g->buf + g->len + nl + 1, p, len);
    g->len += need;
    if (g->count == g->ncap) {
        g->ncap = g->ncap ? g->ncap * 2 : 64;
        g->ends = xrealloc(g->ends, g->ncap * sizeof(size_t));
    }
    g->ends[g->count++] = g->len;
}

#define GREP_PREFIX_FIRST (16u << 10) /* bytes of the first part decoded and searched */
#define GREP_CORRUPT (-100)              /* grep_compressed: a chunk does not decode */

/* SP.GREP on a compressed entry. Without CONTEXT or WITHMETA the answer is the
 * first MAX matching lines, so the entry is decoded a part at a time and each
 * part searched as it comes: 16 KB, then as much again each time (16, 32, 64
 * KB ... of the entry: whole sub-blocks, none decoded twice), each search
 * taking the lines from where the previous one stopped to the part's last
 * newline, numbering them on, with MAX less what was shown, under the one time
 * budget; it stops at MAX matches (those are then the first MAX of the whole
 * entry) or the entry's end. A common pattern in a large tool output decodes a
 * few sub-blocks instead of all of them (the whole entry was 17 % of the
 * server's CPU on agent-mix; a 64 KB prefix rescanned at every x4 step, 7 %).
 * With CONTEXT or WITHMETA the whole entry is decoded and searched at once.
 * Each part is decoded into a new buffer that keeps only the line the last
 * part cut. *content gets the buffer (the caller frees); returns spgrep_run's code
 * (res and g as from one spgrep_run over the whole entry) or GREP_CORRUPT. */
static int grep_compressed(sp_entry *e, const sarg *pat, spgrep_opts *o, const sp_params *pr, grep_out *g,
                           spgrep_result *res, char **content, char *err, size_t errcap)
{
    int early = o->context == 0 && !o->count_all;
    size_t have = 0, done = 0, off = 0, cap = 0, want = early ? GREP_PREFIX_FIRST : e->size;
    spgrep_opts part = *o;
    spgrep_result r;
    char *buf = NULL;

    /* buf holds the entry's bytes [off, have); [done, have) is not searched yet
     * (the line the last part cut). */
    memset(res, 0, sizeof(*res));
    if (o->max_us && !o->started_us)
        part.started_us = spgrep_now_us();
    for (;;) {
        size_t end;
        int rc;

        if (want > e->size)
            want = e->size;
        if (want - off + 1 > cap) {
            /* A new buffer for the next part, keeping only the cut line: what
             * was searched is not copied again (lines shown are in g). */
            size_t keep = have - done;
            char *nb;
            cap = want - done + 1;
            nb = xmalloc(cap);
            if (keep)
                memcpy(nb, buf + (done - off), keep);
            xfree(buf);
            buf = nb;
            off = done;
            *content = buf;
        }
        if (want > have && sp_entry_read(e, have, want - have, buf + (have - off), pr) < 0)
            return GREP_CORRUPT;
        have = want;
        end = have;
        if (have < e->size) {
            const char *nl = memrchr(buf + (done - off), '\n', have - done);
            end = nl ? off + (size_t)(nl - buf) + 1 : done;
        }
        if (end > done || have == e->size) {
            part.max_matches = o->max_matches - res->shown;
            g->line_base = res->lines;
            rc = spgrep_run(grep_cache, buf + (done - off), end - done, pat->p, pat->len, &part, grep_emit, g, &r,
                            err, errcap);
            res->matched += r.matched;
            res->shown += r.shown;
            res->err_line = res->lines + r.err_line;
            res->err_offset = r.err_offset;
            res->lines += r.lines;
            done = end;
            if (rc != SPGREP_OK || have == e->size || res->shown >= o->max_matches)
                return rc;
        }
        want = have * 2;
    }
}

/* Whether a is one of SP.GREP's option words (it ends ENTRIES' list of globs). */
static int grep_is_option(const sarg *a)
{
    return spc_arg_is(a, "max") || spc_arg_is(a, "context") || spc_arg_is(a, "nocase") || spc_arg_is(a, "literal") ||
           spc_arg_is(a, "withmeta");
}

/* Parse SP.GREP's options from argv[from..]: *o set to the defaults and the
 * options, *withmeta to WITHMETA. 0, or -1 after replying an error. */
static int grep_parse_opts(client *c, int from, spgrep_opts *o, int *withmeta)
{
    long long v;
    int i;

    memset(o, 0, sizeof(*o));
    *withmeta = 0;
    o->max_matches = GREP_MAX_DEFAULT;
    o->match_limit = (uint32_t)srv.cfg.sp_grep_match_limit;
    o->depth_limit = 100000;
    for (i = from; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < c->argc;
        if (spc_arg_is(a, "max") && more) {
            if (spc_arg_nonneg(c, i + 1, "MAX", &v) < 0)
                return -1;
            o->max_matches = (size_t)v;
            i++;
        } else if (spc_arg_is(a, "context") && more) {
            if (spc_arg_nonneg(c, i + 1, "CONTEXT", &v) < 0)
                return -1;
            if (v > GREP_CONTEXT_MAX) {
                reply_errorf(c, "ERR CONTEXT must be at most %d", GREP_CONTEXT_MAX);
                return -1;
            }
            o->context = (size_t)v;
            i++;
        } else if (spc_arg_is(a, "nocase")) {
            o->nocase = 1;
        } else if (spc_arg_is(a, "literal")) {
            o->literal = 1;
        } else if (spc_arg_is(a, "withmeta")) {
            *withmeta = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return -1;
        }
    }
    o->count_all = *withmeta;
    o->max_us = srv.cfg.sp_grep_max_time * 1000LL;
    if (!grep_cache)
        grep_cache = spgrep_cache_new(16);
    return 0;
}

/* Search entry e with *o (o->max_matches: what is left to show), the lines
 * reported appended to g. Returns spgrep_run's code or GREP_CORRUPT; *res as
 * from spgrep_run. */
static int grep_entry(sp_entry *e, const sarg *pat, spgrep_opts *o, grep_out *g, spgrep_result *res, char *err,
                      size_t errcap)
{
    sp_params pr = sp_server_params();
    char *content = NULL;
    int rc;

    o->utf = e->kind == SP_TEXT && sp_utf8_valid(pat->p, pat->len);
    g->line_base = 0;
    if (e->enc == SP_ENC_RAW)
        return spgrep_run(grep_cache, e->raw, e->size, pat->p, pat->len, o, grep_emit, g, res, err, errcap);
    rc = grep_compressed(e, pat, o, &pr, g, res, &content, err, errcap);
    xfree(content);
    return rc;
}

/* Reply the lines of g (and with withmeta the counts), or the error of rc.
 * at: where a limit stopped the search ("at line N", "at line N of 'name'",
 * "before 'name'"); multi: the ENTRIES form (entries: how many it searched). */
static void grep_reply(client *c, int rc, const grep_out *g, const spgrep_result *res, const char *err, const char *at,
                       int multi, int withmeta, size_t entries)
{
    size_t k, from = 0;

    if (rc == GREP_CORRUPT) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    if (rc == SPGREP_BADPATTERN) {
        reply_errorf(c, "ERR invalid pattern at offset %zu: %s", res->err_offset, err);
        return;
    }
    if (rc == SPGREP_LIMIT) {
        reply_errorf(c,
                     "ERR SP.GREP stopped %s: %s (sp-grep-match-limit per line, sp-grep-max-time per call); "
                     "simplify the pattern (catastrophic backtracking?), use LITERAL, or narrow the %s",
                     at, err, multi ? "globs" : "entry with SP.READ LINES");
        return;
    }
    if (withmeta)
        reply_array(c, 2);
    reply_array(c, (long)g->count);
    for (k = 0; k < g->count; k++) {
        reply_bulk(c, g->buf + from, g->ends[k] - from);
        from = g->ends[k];
    }
    if (withmeta) {
        reply_map(c, multi ? 4 : 3);
        reply_bulk_cstr(c, "matched");
        reply_int(c, (long long)res->matched);
        reply_bulk_cstr(c, "shown");
        reply_int(c, (long long)res->shown);
        reply_bulk_cstr(c, "truncated");
        reply_int(c, res->matched > res->shown);
        if (multi) {
            reply_bulk_cstr(c, "entries");
            reply_int(c, (long long)entries);
        }
    }
}

/* SP.GREP ns pattern ENTRIES glob [glob ...] [options]: argv[4..gend) are the
 * globs. The entries whose names match one of them are searched in name order,
 * each once, under one budget: their total size at most sp-grep-max-scan, one
 * time budget for the call, MAX matching lines in all. */
static void grep_entries(client *c, int gend)
{
    const sarg *pat = &c->argv[2];
    spgrep_opts o, one;
    spgrep_result res, r;
    grep_out g;
    char err[256], at[SP_NAME_MAX + 48] = "";
    size_t k, total = 0, nsel = 0, *sel = NULL;
    int withmeta, replied, rc = SPGREP_OK, j;
    sp *s;

    if (grep_parse_opts(c, gend, &o, &withmeta) < 0)
        return;
    s = spc_ns_read(c, NULL, &replied);
    if (replied)
        return;
    if (s && s->n) {
        sel = xmalloc(s->n * sizeof(size_t));
        for (k = 0; k < s->n; k++) {
            for (j = 4; j < gend; j++)
                if (glob_match(c->argv[j].p, c->argv[j].len, s->e[k]->name, s->e[k]->nlen, 0))
                    break;
            if (j < gend) {
                sel[nsel++] = k;
                total += s->e[k]->size;
            }
        }
    }
    if ((long long)total > srv.cfg.sp_grep_max_scan) {
        reply_errorf(c,
                     "ERR entries are %zu bytes in total, over sp-grep-max-scan (%lld): narrow the globs or raise "
                     "the limit",
                     total, srv.cfg.sp_grep_max_scan);
        xfree(sel);
        return;
    }
    memset(&g, 0, sizeof(g));
    memset(&res, 0, sizeof(res));
    if (o.max_us)
        o.started_us = spgrep_now_us();
    if (nsel == 0 || (o.max_matches == 0 && !o.count_all)) {
        /* Nothing to search (no entry, or MAX 0): the pattern is still
         * compiled, so a bad one is an error whatever the globs select. */
        o.utf = sp_utf8_valid(pat->p, pat->len);
        rc = spgrep_run(grep_cache, "", 0, pat->p, pat->len, &o, grep_emit, &g, &res, err, sizeof(err));
    }
    for (k = 0; k < nsel && rc == SPGREP_OK; k++) {
        sp_entry *e = s->e[sel[k]];
        if (res.shown >= o.max_matches && !o.count_all)
            break;
        if (o.max_us && k > 0 && spgrep_now_us() - o.started_us > o.max_us) {
            /* Entries of fewer lines than spgrep_run's clock check: the budget is also checked between them. */
            rc = SPGREP_LIMIT;
            snprintf(err, sizeof(err), "time budget of %lld ms exceeded", (long long)(o.max_us / 1000));
            snprintf(at, sizeof(at), "before '%.*s'", (int)e->nlen, e->name);
            break;
        }
        one = o;
        one.max_matches = o.max_matches > res.shown ? o.max_matches - res.shown : 0;
        g.name = e->name;
        g.nlen = e->nlen;
        rc = grep_entry(e, pat, &one, &g, &r, err, sizeof(err));
        res.matched += r.matched;
        res.shown += r.shown;
        res.err_offset = r.err_offset;
        if (rc == SPGREP_LIMIT)
            snprintf(at, sizeof(at), "at line %zu of '%.*s'", r.err_line, (int)e->nlen, e->name);
    }
    grep_reply(c, rc, &g, &res, err, at, 1, withmeta, nsel);
    xfree(g.buf);
    xfree(g.ends);
    xfree(sel);
}

void cmd_sp_grep(client *c)
{
    const sarg *pat = &c->argv[3];
    spgrep_opts o;
    spgrep_result res;
    grep_out g;
    char err[256], at[32];
    int withmeta, rc, gend;
    sp_entry *e;

    /* SP.GREP ns pattern ENTRIES glob ...: argv[3] is ENTRIES and argv[4] a
     * glob, not an option word, which no valid one-entry form can be (its
     * argv[4..] are options). */
    if (c->argc >= 5 && spc_arg_is(&c->argv[3], "entries") && !grep_is_option(&c->argv[4])) {
        for (gend = 5; gend < c->argc && !grep_is_option(&c->argv[gend]); gend++)
            ;
        grep_entries(c, gend);
        return;
    }
    if (grep_parse_opts(c, 4, &o, &withmeta) < 0)
        return;
    if (!(e = spc_entry_for_read(c)))
        return;
    if ((long long)e->size > srv.cfg.sp_grep_max_scan) {
        reply_errorf(c,
                     "ERR entry is %zu bytes, over sp-grep-max-scan (%lld): narrow the search with SP.READ LINES "
                     "or raise the limit",
                     e->size, srv.cfg.sp_grep_max_scan);
        return;
    }
    memset(&g, 0, sizeof(g));
    rc = grep_entry(e, pat, &o, &g, &res, err, sizeof(err));
    snprintf(at, sizeof(at), "at line %zu", res.err_line);
    grep_reply(c, rc, &g, &res, err, at, 0, withmeta, 0);
    xfree(g.buf);
    xfree(g.ends);
}
