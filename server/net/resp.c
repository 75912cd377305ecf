/* resp.c -- the RESP request parser (the contract is in resp.h).
 *
 * A request whose first byte is '*' is multibulk, anything else is inline, as in
 * Redis's processInputBuffer. The parser is a state machine over buf:
 *
 *   START -> COUNT -> (BULK_LEN -> BULK_DATA)* -> START      multibulk
 *   START -> INLINE -> INLINE_ARGS -> START                  inline
 *   any   -> ERROR, sticky until resp_reset
 *
 * Invariants: buf[0..p->pos) is parsed and never read again, except that a
 * complete bulk waiting for an argument slot is re-checked in O(1); the line in
 * progress starts at p->pos (offset 0 for the count and inline lines) and was
 * searched for its terminator up to p->scan, so a line or a bulk arriving in any
 * number of pieces is scanned once; p->args[0..p->argc) are filled. A request
 * therefore costs O(its length) in total, however it is split.
 *
 * For the caller: RESP_NEED_ARGS is returned only when an argument is complete
 * (a bulk with its "\r\n", or the start of an inline token) and p->argc ==
 * p->args_cap; p->argc_want is then always p->args_cap + 1, never the count the
 * client claimed, so grow geometrically and keep the entries already in p->args
 * (realloc). p->need on RESP_INCOMPLETE: the end of a bulk's "\r\n" while its
 * data arrives; len + 1 or len + 2 while a line's terminator is missing; 1 for an
 * empty buffer. A line with no quote or escape leaves buf untouched. len must
 * not shrink between calls for the same request.
 *
 * What is accepted and the error texts are Redis 7's (processMultibulkBuffer,
 * processInlineBuffer, sdssplitargs, string2ll), with deliberate differences:
 * - a bulk's data must be followed by "\r\n", and the '\r' ending a count or
 *   length line by '\n' (Redis skips both bytes unchecked);
 * - a line is too big when its first RESP_INLINE_MAX + 1 bytes hold no
 *   terminator, whatever the read sizes (Redis looks only at what is buffered
 *   when it finds no terminator, so its limit depends on how the bytes arrive);
 * - a NUL in an inline line is an ordinary byte (Redis's strchr stops at it, so
 *   such a request never completes there and ends as "too big inline request"). */
#include "net/resp.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum {
    RESP_ST_START = 0,   /* nothing of the next request parsed; 0 so a zeroed parser is ready */
    RESP_ST_COUNT,       /* multibulk: the "*<n>\r\n" line at offset 0 */
    RESP_ST_BULK_LEN,    /* multibulk: the "$<len>\r\n" line at p->pos */
    RESP_ST_BULK_DATA,   /* multibulk: p->bulk bytes and "\r\n" at p->pos */
    RESP_ST_INLINE,      /* inline: looking for the '\n' */
    RESP_ST_INLINE_ARGS, /* inline: splitting, reader at p->pos, writer at p->wpos */
    RESP_ST_ERROR,       /* a protocol error was returned; p->err still holds it */
};

#define RESP_UNAUTH_MAX_ARGS 10     /* Redis: multibulk count before AUTH */
#define RESP_UNAUTH_MAX_BULK 16384  /* bytes, Redis: bulk length before AUTH */
#define RESP_FAST_DIGITS 18         /* any decimal of this many digits fits a long long */
#define RESP_LONG_STR_SIZE 21       /* Redis's LONG_STR_SIZE: longer strings are no number */

static resp_status resp_fail(resp_parser *p, const char *err)
{
    p->err = err;
    p->state = RESP_ST_ERROR;
    return RESP_ERR;
}

/* "expected '$', got 'c'" as Redis words it: its error replies turn '\r' and
 * '\n' into spaces, and a NUL ends the text. */
static resp_status resp_fail_type(resp_parser *p, char c)
{
    if (c == '\r' || c == '\n')
        c = ' ';
    snprintf(p->errbuf, sizeof(p->errbuf), "expected '$', got '%c'", c);
    return resp_fail(p, p->errbuf);
}

/* Finish the request: it used buf[0..used). p->argc stays for the caller. */
static resp_status resp_done(resp_parser *p, size_t used, size_t *consumed)
{
    *consumed = used;
    p->state = RESP_ST_START;
    p->pos = 0;
    p->scan = 0;
    p->mbulk = 0;
    p->bulk = -1;
    return RESP_OK;
}

void resp_reset(resp_parser *p)
{
    p->argc = 0;
    p->argc_want = 0;
    p->need = 0;
    p->err = NULL;
    p->errbuf[0] = '\0';
    p->state = RESP_ST_START;
    p->pos = 0;
    p->mbulk = 0;
    p->bulk = -1;
    p->scan = 0;
    p->eol = 0;
    p->wpos = 0;
}

/* Redis's string2ll: s[0..n) must be a decimal long long with an optional '-',
 * no '+', no spaces, no leading zero except "0" itself, and no "-0". Returns 1
 * and sets *v, or 0. */
static int resp_strtoll(const char *s, size_t n, long long *v)
{
    unsigned long long u;
    size_t i = 0;
    int neg = 0;

    if (n == 0 || n >= RESP_LONG_STR_SIZE)
        return 0;
    if (n == 1 && s[0] == '0') {
        *v = 0;
        return 1;
    }
    if (s[0] == '-') {
        neg = 1;
        if (++i == n)
            return 0;
    }
    if (s[i] < '1' || s[i] > '9')
        return 0;
    u = (unsigned long long)(s[i++] - '0');
    for (; i < n; i++) {
        unsigned d = (unsigned char)s[i] - (unsigned)'0';
        if (d > 9 || u > (ULLONG_MAX - d) / 10)
            return 0;
        u = u * 10 + d;
    }
    if (neg) {
        if (u > (unsigned long long)LLONG_MAX + 1)
            return 0;
        *v = u == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)u;
    } else {
        if (u > (unsigned long long)LLONG_MAX)
            return 0;
        *v = (long long)u;
    }
    return 1;
}

/* The common count or length line: s is just past the '*' or '$', e the end of
 * the buffered bytes. When s holds "<digits>\r\n", 1 to RESP_FAST_DIGITS digits
 * without a leading zero (or "0"), sets *v and returns the byte past "\r\n".
 * Otherwise returns NULL and the slow path decides (negative, too long,
 * incomplete, malformed). Reads at most RESP_FAST_DIGITS + 2 bytes. */
static inline const char *resp_fast_num(const char *s, const char *e, long long *v)
{
    const char *q = s, *lim;
    unsigned long long u;
    unsigned d;

    if (e - s < 3)
        return NULL;
    u = (unsigned char)*q++ - (unsigned)'0';
    if (u > 9)
        return NULL;
    if (u != 0) {
        lim = e - s > RESP_FAST_DIGITS ? s + RESP_FAST_DIGITS : e;
        while (q < lim && (d = (unsigned char)*q - (unsigned)'0') <= 9) {
            u = u * 10 + d;
            q++;
        }
    }
    if (e - q < 2 || q[0] != '\r' || q[1] != '\n')
        return NULL;
    *v = (long long)u;
    return q + 2;
}

/* Find the '\r' ending the count or length line that starts at buf[start]
 * (type byte included), resuming the search at p->scan. Returns 1 with *cr its
 * offset when the byte after it is buffered too; 0 when more bytes are needed
 * (p->need set); -1 when the first RESP_INLINE_MAX + 1 bytes of the line hold
 * no '\r' (Redis: more than 64 KB buffered without one). */
static int resp_find_cr(resp_parser *p, const char *buf, size_t len, size_t start, size_t *cr)
{
    size_t lim = len - start > RESP_INLINE_MAX ? start + RESP_INLINE_MAX + 1 : len;
    const char *q = NULL;

    if (p->scan < lim)
        q = memchr(buf + p->scan, '\r', lim - p->scan);
    if (!q) {
        if (len - start > RESP_INLINE_MAX)
            return -1;
        p->scan = len;
        /* The earliest '\r' is at len and needs its '\n', unless one more byte
         * without '\r' already makes the line too big. */
        p->need = len - start == RESP_INLINE_MAX ? len + 1 : len + 2;
        return 0;
    }
    p->scan = (size_t)(q - buf);
    *cr = p->scan;
    if (*cr + 1 >= len) {
        p->need = *cr + 2;
        return 0;
    }
    return 1;
}

/* The slow path of a count ('*') or length ('$') line at buf[start]: returns
 * RESP_OK with *n and *next (offset past "\r\n"), RESP_INCOMPLETE, or RESP_ERR
 * for an oversized line, a wrong type byte, a number string2ll refuses or a
 * '\r' not followed by '\n'. Range checks are the caller's. */
static resp_status resp_line_num(resp_parser *p, const char *buf, size_t len, size_t start,
                                 char type, long long *n, size_t *next)
{
    int bulk = type == '$';
    size_t cr = 0;
    int found = resp_find_cr(p, buf, len, start, &cr);

    if (found < 0)
        return resp_fail(p, bulk ? "too big bulk count string" : "too big mbulk count string");
    if (found == 0)
        return RESP_INCOMPLETE;
    if (buf[start] != type)
        return resp_fail_type(p, buf[start]);
    if (!resp_strtoll(buf + start + 1, cr - start - 1, n) || buf[cr + 1] != '\n')
        return resp_fail(p, bulk ? "invalid bulk length" : "invalid multibulk length");
    *next = cr + 2;
    return RESP_OK;
}

/* The "*<n>\r\n" line at buf[0]. Returns RESP_OK with the parser in BULK_LEN,
 * or RESP_OK with the request finished (state START, argc 0) for n <= 0. */
static resp_status resp_count(resp_parser *p, const char *buf, size_t len, size_t *consumed)
{
    const char *q = resp_fast_num(buf + 1, buf + len, &p->mbulk);
    size_t next;

    if (q) {
        next = (size_t)(q - buf);
    } else {
        resp_status st = resp_line_num(p, buf, len, 0, '*', &p->mbulk, &next);
        if (st != RESP_OK)
            return st;
    }
    if (p->mbulk > INT_MAX || p->mbulk > p->max_args)
        return resp_fail(p, "invalid multibulk length");
    if (p->unauth && p->mbulk > RESP_UNAUTH_MAX_ARGS)
        return resp_fail(p, "unauthenticated multibulk length");
    if (p->mbulk <= 0)
        return resp_done(p, next, consumed);
    p->pos = next;
    p->scan = next;
    p->state = RESP_ST_BULK_LEN;
    return RESP_OK;
}

/* The arguments of a multibulk request, from state BULK_LEN or BULK_DATA. */
static resp_status resp_bulks(resp_parser *p, const char *buf, size_t len, size_t *consumed)
{
    /* Whole arguments first: each "$<digits>\r\n<data>\r\n" already buffered,
     * with a slot free, is taken with the position and the count in locals
     * (the loop below stores six fields through p per argument). Anything else
     * -- a partial argument, a long or odd length line, a length over a limit,
     * bad bytes after the data, no slot -- stops here with p as the loop
     * expects it at the start of that argument, and the loop decides. */
    if (p->state == RESP_ST_BULK_LEN) {
        size_t pos = p->pos, argc = p->argc, cap = p->args_cap;
        resp_arg *args = p->args;
        long long want = p->mbulk;
        long long max = p->unauth && p->max_bulk > RESP_UNAUTH_MAX_BULK ? RESP_UNAUTH_MAX_BULK : p->max_bulk;

        while (argc < cap && pos < len && buf[pos] == '$') {
            long long n;
            const char *q = resp_fast_num(buf + pos + 1, buf + len, &n);
            size_t start, end;

            if (!q || n > max || (unsigned long long)n > SIZE_MAX - 2 - (size_t)(q - buf))
                break;
            start = (size_t)(q - buf);
            end = start + (size_t)n;
            if (len < end + 2 || buf[end] != '\r' || buf[end + 1] != '\n')
                break;
            args[argc].off = start;
            args[argc].len = (size_t)n;
            argc++;
            pos = end + 2;
            if ((long long)argc == want) {
                p->argc = argc;
                return resp_done(p, pos, consumed);
            }
        }
        if (pos != p->pos) {
            p->argc = argc;
            p->pos = pos;
            p->scan = pos;
            p->bulk = -1;
        }
    }
    for (;;) {
        size_t end;

        if (p->state == RESP_ST_BULK_LEN) {
            const char *q = NULL;
            long long n = 0;
            size_t next = 0;

            if (p->pos < len && buf[p->pos] == '$')
                q = resp_fast_num(buf + p->pos + 1, buf + len, &n);
            if (q) {
                next = (size_t)(q - buf);
            } else {
                resp_status st = resp_line_num(p, buf, len, p->pos, '$', &n, &next);
                if (st != RESP_OK)
                    return st;
            }
            if (n < 0 || n > p->max_bulk || (unsigned long long)n > SIZE_MAX - 2 - next)
                return resp_fail(p, "invalid bulk length");
            if (p->unauth && n > RESP_UNAUTH_MAX_BULK)
                return resp_fail(p, "unauthenticated bulk length");
            p->bulk = n;
            p->pos = next;
            p->state = RESP_ST_BULK_DATA;
        }

        end = p->pos + (size_t)p->bulk;
        if (len < end + 2) {
            p->need = end + 2;
            return RESP_INCOMPLETE;
        }
        if (buf[end] != '\r' || buf[end + 1] != '\n')
            return resp_fail(p, "expected '\\r\\n' after bulk data");
        if (p->argc == p->args_cap) {
            p->argc_want = p->args_cap + 1;
            return RESP_NEED_ARGS;
        }
        p->args[p->argc].off = p->pos;
        p->args[p->argc].len = (size_t)p->bulk;
        p->argc++;
        p->pos = end + 2;
        if ((long long)p->argc == p->mbulk)
            return resp_done(p, p->pos, consumed);
        p->scan = p->pos;
        p->bulk = -1;
        p->state = RESP_ST_BULK_LEN;
    }
}

/* isspace() in the C locale: what sdssplitargs skips between arguments. */
static inline int resp_is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* A byte that neither ends an unquoted argument nor opens a quote. */
static inline int resp_is_plain(char c)
{
    return c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '"' && c != '\'';
}

static int resp_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Split the inline line buf[0..p->eol) (its '\n' at p->eol, one '\r' before it
 * dropped) as sdssplitargs does, unescaping each argument in place: the writer
 * w never passes the reader r, so unread bytes are intact. Resumes at p->pos /
 * p->wpos after RESP_NEED_ARGS, which is returned before an argument's first
 * byte is read. */
static resp_status resp_split(resp_parser *p, char *buf, size_t *consumed)
{
    size_t end = p->eol, r = p->pos, w = p->wpos;

    if (end > 0 && buf[end - 1] == '\r')
        end--;
    for (;;) {
        size_t start = w;
        int inq = 0, insq = 0;

        while (r < end && resp_is_space(buf[r]))
            r++;
        if (r == end)
            break;
        if (p->argc == p->args_cap) {
            p->pos = r;
            p->wpos = w;
            p->argc_want = p->args_cap + 1;
            return RESP_NEED_ARGS;
        }
        if (w == r) {
            /* Nothing unescaped yet on this line: plain bytes stay in place. */
            while (r < end && resp_is_plain(buf[r]))
                r++;
            w = r;
        }
        for (;;) {
            char c;

            if (r == end) {
                if (inq || insq)
                    return resp_fail(p, "unbalanced quotes in request");
                break;
            }
            c = buf[r];
            if (inq) {
                if (c == '\\' && end - r > 3 && buf[r + 1] == 'x' &&
                    resp_hex(buf[r + 2]) >= 0 && resp_hex(buf[r + 3]) >= 0) {
                    buf[w++] = (char)(resp_hex(buf[r + 2]) * 16 + resp_hex(buf[r + 3]));
                    r += 4;
                } else if (c == '\\' && end - r > 1) {
                    switch (buf[r + 1]) {
                    case 'n': c = '\n'; break;
                    case 'r': c = '\r'; break;
                    case 't': c = '\t'; break;
                    case 'b': c = '\b'; break;
                    case 'a': c = '\a'; break;
                    default: c = buf[r + 1]; break;
                    }
                    buf[w++] = c;
                    r += 2;
                } else if (c == '"') {
                    if (end - r > 1 && !resp_is_space(buf[r + 1]))
                        return resp_fail(p, "unbalanced quotes in request");
                    r++;
                    break;
                } else {
                    buf[w++] = c;
                    r++;
                }
            } else if (insq) {
                if (c == '\\' && end - r > 1 && buf[r + 1] == '\'') {
                    buf[w++] = '\'';
                    r += 2;
                } else if (c == '\'') {
                    if (end - r > 1 && !resp_is_space(buf[r + 1]))
                        return resp_fail(p, "unbalanced quotes in request");
                    r++;
                    break;
                } else {
                    buf[w++] = c;
                    r++;
                }
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                r++;
                break;
            } else if (c == '"') {
                inq = 1;
                r++;
            } else if (c == '\'') {
                insq = 1;
                r++;
            } else {
                buf[w++] = c;
                r++;
            }
        }
        p->args[p->argc].off = start;
        p->args[p->argc].len = w - start;
        p->argc++;
        /* Keep one byte after each argument free: the caller writes a NUL there
         * (never past r, since a separator or closing quote was consumed). */
        w++;
    }
    p->wpos = 0;
    return resp_done(p, p->eol + 1, consumed);
}

/* Find the inline line's '\n' (resuming at p->scan), then split it. */
static resp_status resp_inline(resp_parser *p, char *buf, size_t len, size_t *consumed)
{
    if (p->state == RESP_ST_INLINE) {
        size_t lim = len > RESP_INLINE_MAX ? RESP_INLINE_MAX + 1 : len;
        const char *nl = NULL;

        if (p->scan < lim)
            nl = memchr(buf + p->scan, '\n', lim - p->scan);
        if (!nl) {
            if (len > RESP_INLINE_MAX)
                return resp_fail(p, "too big inline request");
            p->scan = len;
            p->need = len + 1;
            return RESP_INCOMPLETE;
        }
        p->eol = (size_t)(nl - buf);
        p->pos = 0;
        p->wpos = 0;
        p->state = RESP_ST_INLINE_ARGS;
    }
    return resp_split(p, buf, consumed);
}

resp_status resp_parse(resp_parser *p, char *buf, size_t len, size_t *consumed)
{
    switch (p->state) {
    case RESP_ST_START:
        if (len == 0) {
            p->need = 1;
            return RESP_INCOMPLETE;
        }
        p->argc = 0;
        p->pos = 0;
        p->scan = 0;
        p->bulk = -1;
        if (buf[0] != '*') {
            p->state = RESP_ST_INLINE;
            return resp_inline(p, buf, len, consumed);
        }
        p->state = RESP_ST_COUNT;
        /* fall through */
    case RESP_ST_COUNT: {
        resp_status st = resp_count(p, buf, len, consumed);
        if (st != RESP_OK || p->state == RESP_ST_START)
            return st;
        return resp_bulks(p, buf, len, consumed);
    }
    case RESP_ST_BULK_LEN:
    case RESP_ST_BULK_DATA:
        return resp_bulks(p, buf, len, consumed);
    case RESP_ST_INLINE:
    case RESP_ST_INLINE_ARGS:
        return resp_inline(p, buf, len, consumed);
    default:
        return RESP_ERR;
    }
}
