/* cmd_sp_grep.c -- SP.GREP: the lines of a scratchpad entry that match a pattern.
 *
 * Why a file of its own: the search is core/sp/spgrep.c (PCRE2, line by line,
 * no server); this is the command around it: its options, the limits from the
 * configuration (sp-grep-max-scan per entry, sp-grep-match-limit per line,
 * sp-grep-max-time per call), the lines shown kept until the search ends (so a
 * search stopped by a limit answers a plain error, never a partial array), and
 * the search of a compressed entry a part at a time, which stops decoding once
 * the first MAX matching lines are found (grep_compressed). Compiled patterns
 * are kept in one cache for the life of the process. */
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
} grep_out;

static void grep_emit(void *ctx, size_t lineno, const char *p, size_t len, int is_match)
{
    grep_out *g = ctx;
    char num[24];
    size_t nl = ll_to_str(num, (long long)(g->line_base + lineno)), need = nl + 1 + len;

    if (g->len + need > g->cap) {
        g->cap = (g->len + need) * 2 > 4096 ? (g->len + need) * 2 : 4096;
        g->buf = xrealloc(g->buf, g->cap);
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
    if (o->max_us)
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

void cmd_sp_grep(client *c)
{
    const sarg *pat = &c->argv[3];
    spgrep_opts o;
    spgrep_result res;
    grep_out g;
    sp_params pr = sp_server_params();
    char err[256];
    char *content = NULL;
    const char *buf;
    long long v;
    int i, withmeta = 0, rc;
    sp_entry *e;

    memset(&o, 0, sizeof(o));
    o.max_matches = GREP_MAX_DEFAULT;
    o.match_limit = (uint32_t)srv.cfg.sp_grep_match_limit;
    o.depth_limit = 100000;
    for (i = 4; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < c->argc;
        if (spc_arg_is(a, "max") && more) {
            if (spc_arg_nonneg(c, i + 1, "MAX", &v) < 0)
                return;
            o.max_matches = (size_t)v;
            i++;
        } else if (spc_arg_is(a, "context") && more) {
            if (spc_arg_nonneg(c, i + 1, "CONTEXT", &v) < 0)
                return;
            if (v > GREP_CONTEXT_MAX) {
                reply_errorf(c, "ERR CONTEXT must be at most %d", GREP_CONTEXT_MAX);
                return;
            }
            o.context = (size_t)v;
            i++;
        } else if (spc_arg_is(a, "nocase")) {
            o.nocase = 1;
        } else if (spc_arg_is(a, "literal")) {
            o.literal = 1;
        } else if (spc_arg_is(a, "withmeta")) {
            withmeta = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (!(e = spc_entry_for_read(c)))
        return;
    if ((long long)e->size > srv.cfg.sp_grep_max_scan) {
        reply_errorf(c, "ERR entry is %zu bytes, over sp-grep-max-scan (%lld): narrow the search with SP.READ LINES "
                     "or raise the limit", e->size, srv.cfg.sp_grep_max_scan);
        return;
    }
    o.utf = e->kind == SP_TEXT && sp_utf8_valid(pat->p, pat->len);
    o.count_all = withmeta;
    if (!grep_cache)
        grep_cache = spgrep_cache_new(16);
    memset(&g, 0, sizeof(g));
    o.max_us = srv.cfg.sp_grep_max_time * 1000LL;
    if (e->enc == SP_ENC_RAW) {
        buf = e->raw;
        rc = spgrep_run(grep_cache, buf, e->size, pat->p, pat->len, &o, grep_emit, &g, &res, err, sizeof(err));
    } else if ((rc = grep_compressed(e, pat, &o, &pr, &g, &res, &content, err, sizeof(err))) == GREP_CORRUPT) {
        reply_error(c, ERR_CORRUPT);
        xfree(g.buf);
        xfree(g.ends);
        xfree(content);
        return;
    }
    if (rc == SPGREP_BADPATTERN) {
        reply_errorf(c, "ERR invalid pattern at offset %zu: %s", res.err_offset, err);
    } else if (rc == SPGREP_LIMIT) {
        reply_errorf(c, "ERR SP.GREP stopped at line %zu: %s (sp-grep-match-limit per line, sp-grep-max-time "
                     "per call); simplify the pattern (catastrophic backtracking?), use LITERAL, or narrow the "
                     "entry with SP.READ LINES", res.err_line, err);
    } else {
        size_t k, from = 0;
        if (withmeta)
            reply_array(c, 2);
        reply_array(c, (long)g.count);
        for (k = 0; k < g.count; k++) {
            reply_bulk(c, g.buf + from, g.ends[k] - from);
            from = g.ends[k];
        }
        if (withmeta) {
            reply_map(c, 3);
            reply_bulk_cstr(c, "matched");
            reply_int(c, (long long)res.matched);
            reply_bulk_cstr(c, "shown");
            reply_int(c, (long long)res.shown);
            reply_bulk_cstr(c, "truncated");
            reply_int(c, res.matched > res.shown);
        }
    }
    xfree(g.buf);
    xfree(g.ends);
    xfree(content);
}
