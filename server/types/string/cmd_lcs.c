/* cmd_lcs.c -- LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]:
 * the longest common subsequence of two string values, as Redis 7.0 computes
 * and answers it.
 *
 * Why its own file: LCS is the one string command whose work is quadratic, with
 * a transient table of (len1 + 1) * (len2 + 1) 32-bit cells. As Redis, the
 * table is refused when it would exceed proto-max-bulk-len (so a client cannot
 * make the server allocate without bound), and the walk back through it is
 * Redis's step for step, so the match ranges IDX reports are the same ranges in
 * the same order (from the end of the strings to their start).
 *
 * Invariants: a missing key counts as an empty string; a key of another type is
 * refused with Redis's own message for LCS (not WRONGTYPE), before the options
 * are parsed. Values are read through the value layer (value.h): a compressed
 * value is decompressed into a temporary buffer, and only after every check
 * that can refuse the command has passed. Nothing is modified. */
#include <stdint.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/mem.h"
#include "net/reply.h"
#include "core/util.h"
#include "types/string/value.h"

#define ERR_LCS_TYPE "ERR The specified keys must contain string values"
#define ERR_LCS_BOTH "ERR If you want both the length and indexes, please just use IDX."
#define ERR_LCS_LONG "ERR String too long for LCS"
#define ERR_LCS_MEM "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
#define ERR_LCS_CORRUPT "ERR value is corrupt: a compressed chunk failed to decompress"

/* One operand: its bytes, and the buffer to free if they had to be copied. */
typedef struct lcs_str {
    const char *p;
    uint32_t len;            /* bytes */
    char *owned;             /* xmalloc'd copy of a compressed value, or NULL */
} lcs_str;

typedef struct lcs_opts {
    int getlen, getidx, withmatchlen;
    long long minmatchlen;   /* ranges shorter than this are not reported (0 = all) */
} lcs_opts;

/* Parse the options from argv[3] as Redis does (any order, repeats allowed, a
 * negative MINMATCHLEN is 0). 0, or -1 after replying. */
static int lcs_parse(client *c, lcs_opts *o)
{
    int j;

    memset(o, 0, sizeof(*o));
    for (j = 3; j < c->argc; j++) {
        const sarg *a = &c->argv[j];
        int moreargs = c->argc - 1 - j;

        if (str_eq_ci(a->p, a->len, "idx")) {
            o->getidx = 1;
        } else if (str_eq_ci(a->p, a->len, "len")) {
            o->getlen = 1;
        } else if (str_eq_ci(a->p, a->len, "withmatchlen")) {
            o->withmatchlen = 1;
        } else if (str_eq_ci(a->p, a->len, "minmatchlen") && moreargs) {
            if (arg_ll(c, j + 1, &o->minmatchlen) < 0)
                return -1;
            if (o->minmatchlen < 0)
                o->minmatchlen = 0;
            j++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return -1;
        }
    }
    if (o->getidx && o->getlen) {
        reply_error(c, ERR_LCS_BOTH);
        return -1;
    }
    return 0;
}

/* Point s at e's bytes (an empty string for NULL), copying a compressed value
 * into a buffer s owns. 0, or -1 if a compressed chunk is corrupt. */
static int lcs_load(const dbent *e, lcs_str *s)
{
    size_t n = e ? sv_len(e) : 0;

    s->owned = NULL;
    s->len = (uint32_t)n;
    s->p = e ? sv_ptr(e) : "";
    if (s->p)
        return 0;
    s->owned = xmalloc(n ? n : 1);
    s->p = s->owned;
    return sv_read(e, 0, n, s->owned);
}

/* Reply one IDX range: [[astart, aend], [bstart, bend]] and, with
 * WITHMATCHLEN, its length. */
static void lcs_reply_range(client *c, const lcs_opts *o, uint32_t as, uint32_t ae, uint32_t bs, uint32_t be)
{
    reply_array(c, 2 + o->withmatchlen);
    reply_array(c, 2);
    reply_int(c, as);
    reply_int(c, ae);
    reply_array(c, 2);
    reply_int(c, bs);
    reply_int(c, be);
    if (o->withmatchlen)
        reply_int(c, (long long)ae - as + 1);
}

/* Fill the table and reply. lcs[j + (blen + 1) * i] is the LCS length of
 * a[0..i) and b[0..j). The walk back from (alen, blen) rebuilds the string and
 * the contiguous ranges exactly as Redis's lcsCommand does. */
static void lcs_compute(client *c, const lcs_opts *o, const lcs_str *sa, const lcs_str *sb, uint32_t *lcs)
{
    const unsigned char *a = (const unsigned char *)sa->p, *b = (const unsigned char *)sb->p;
    uint32_t alen = sa->len, blen = sb->len, i, j, idx, total, arraylen = 0;
    uint32_t arange_start = alen, arange_end = 0, brange_start = 0, brange_end = 0; /* alen: no range open */
    int computelcs = o->getidx || !o->getlen;
    char *result = NULL;
    void *arraylenptr = NULL;

#define LCS(A, B) lcs[(B) + (size_t)(A) * (blen + 1)]
    for (i = 0; i <= alen; i++) {
        for (j = 0; j <= blen; j++) {
            if (i == 0 || j == 0) {
                LCS(i, j) = 0;
            } else if (a[i - 1] == b[j - 1]) {
                LCS(i, j) = LCS(i - 1, j - 1) + 1;
            } else {
                uint32_t lcs1 = LCS(i - 1, j), lcs2 = LCS(i, j - 1);
                LCS(i, j) = lcs1 > lcs2 ? lcs1 : lcs2;
            }
        }
    }

    total = idx = LCS(alen, blen);
    if (computelcs)
        result = xmalloc(total ? total : 1);
    if (o->getidx) {
        reply_map(c, 2);
        reply_bulk_cstr(c, "matches");
        arraylenptr = reply_defer(c);
    }

    i = alen;
    j = blen;
    while (computelcs && i > 0 && j > 0) {
        int emit_range = 0;
        if (a[i - 1] == b[j - 1]) {
            result[idx - 1] = (char)a[i - 1];
            if (arange_start == alen) {
                arange_start = arange_end = i - 1;
                brange_start = brange_end = j - 1;
            } else if (arange_start == i && brange_start == j) {
                arange_start--;
                brange_start--;
            } else {
                emit_range = 1;
            }
            /* A range touching the start of either string is complete. */
            if (arange_start == 0 || brange_start == 0)
                emit_range = 1;
            idx--;
            i--;
            j--;
        } else {
            if (LCS(i - 1, j) > LCS(i, j - 1))
                i--;
            else
                j--;
            if (arange_start != alen)
                emit_range = 1;
        }
        if (emit_range) {
            uint32_t match_len = arange_end - arange_start + 1;
            if ((o->minmatchlen == 0 || match_len >= o->minmatchlen) && o->getidx) {
                lcs_reply_range(c, o, arange_start, arange_end, brange_start, brange_end);
                arraylen++;
            }
            arange_start = alen;
        }
    }
#undef LCS

    if (o->getidx) {
        reply_bulk_cstr(c, "len");
        reply_int(c, total);
        reply_defer_array(c, arraylenptr, arraylen);
    } else if (o->getlen) {
        reply_int(c, idx);
    } else {
        reply_bulk(c, result, total);
    }
    xfree(result);
}

static void cmd_lcs(client *c)
{
    dbent *ea = db_lookup(c->db, c->argv[1].p, c->argv[1].len);
    dbent *eb = db_lookup(c->db, c->argv[2].p, c->argv[2].len);
    lcs_str sa = {NULL, 0, NULL}, sb = {NULL, 0, NULL};
    size_t alen, blen;
    unsigned long long cells, bytes;
    uint32_t *lcs;
    lcs_opts o;

    if ((ea && ea->type != OBJ_STRING) || (eb && eb->type != OBJ_STRING)) {
        reply_error(c, ERR_LCS_TYPE);
        return;
    }
    if (lcs_parse(c, &o) < 0)
        return;
    alen = ea ? sv_len(ea) : 0;
    blen = eb ? sv_len(eb) : 0;
    if (alen >= UINT32_MAX - 1 || blen >= UINT32_MAX - 1) {
        reply_error(c, ERR_LCS_LONG);
        return;
    }
    cells = (unsigned long long)(alen + 1) * (blen + 1);
    bytes = cells * sizeof(uint32_t);
    if (bytes > (unsigned long long)srv.cfg.proto_max_bulk_len) {
        reply_error(c, ERR_LCS_MEM);
        return;
    }
    if (lcs_load(ea, &sa) < 0 || lcs_load(eb, &sb) < 0) {
        reply_error(c, ERR_LCS_CORRUPT);
        goto done;
    }
    lcs = xmalloc((size_t)bytes);
    lcs_compute(c, &o, &sa, &sb, lcs);
    xfree(lcs);
done:
    xfree(sb.owned);
    xfree(sa.owned);
}

/* clang-format off */
const cmd_def cmd_table_lcs[] = {
    {.name = "lcs", .proc = cmd_lcs, .arity = -3, .flags = CMD_READONLY, KEYS(1, 2, 1), .group = "string",
     .summary = "Find longest common substring", .since = "7.0.0",
     .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively", .acl = "read string slow",
     .key_specs = "RO access"},
    {0},
};
/* clang-format on */
