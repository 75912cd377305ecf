/* spdiff.c -- a unified line diff of two texts (see spdiff.h).
 *
 * Steps: trim the common prefix and suffix (whole lines, keeping 3 lines of
 * each as context), split what is left in lines with a hash each, run
 * Myers's greedy search for the shortest edit script keeping the furthest
 * reaching x of every diagonal after each step d (so the script is traced
 * back from those rows: (D+1)^2 integers at most), then print the hunks. */
#include "sp/spdiff.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "mem.h"

#define CONTEXT 3
#define NO_NL "\n\\ No newline at end of file\n"

typedef struct line {
    const char *p;
    size_t len; /* bytes, with the '\n' if there is one */
    uint64_t h;
} line;

enum { OP_EQ = 0, OP_DEL = 1, OP_INS = 2 };

typedef struct op {
    uint8_t kind;
    size_t ai, bi; /* line indexes in a and b (the one that applies) */
} op;

typedef struct obuf {
    char *p;
    size_t n, cap;
    int over; /* past SPDIFF_MAX_OUT */
} obuf;

static void ob_add(obuf *o, const char *p, size_t n)
{
    if (o->over)
        return;
    if (o->n + n + 1 > SPDIFF_MAX_OUT) {
        o->over = 1;
        return;
    }
    if (o->n + n + 1 > o->cap) {
        o->cap = (o->n + n + 1) * 2;
        if (o->cap > SPDIFF_MAX_OUT)
            o->cap = SPDIFF_MAX_OUT;
        o->p = xrealloc(o->p, o->cap);
    }
    memcpy(o->p + o->n, p, n);
    o->n += n;
    o->p[o->n] = '\0';
}

/* Split p[0..n) into lines (*out xmalloc'd): their count, or SIZE_MAX past max. */
static size_t split(const char *p, size_t n, size_t max, line **out)
{
    size_t cnt = 0, i = 0, k = 0;
    const char *q;
    line *v;

    for (q = p; q < p + n; q++)
        cnt += *q == '\n';
    cnt += n > 0 && p[n - 1] != '\n';
    if (cnt > max) {
        *out = NULL;
        return SIZE_MAX;
    }
    v = cnt ? xmalloc(sizeof(line) * cnt) : NULL;
    while (i < n) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (p + i)) + 1 : n - i;
        v[k].p = p + i;
        v[k].len = len;
        v[k].h = XXH3_64bits(p + i, len);
        k++;
        i += len;
    }
    *out = v;
    return cnt;
}

static int line_eq(const line *x, const line *y)
{
    return x->h == y->h && x->len == y->len && memcmp(x->p, y->p, x->len) == 0;
}

/* Myers's search over A[0..N) and B[0..M): the edit script as ops (*ops
 * xmalloc'd, *nops of them), or -1 past SPDIFF_MAX_EDITS. */
static int myers(const line *A, size_t N, const line *B, size_t M, op **ops, size_t *nops)
{
    long n = (long)N, m = (long)M, maxd = n + m < SPDIFF_MAX_EDITS ? n + m : SPDIFF_MAX_EDITS;
    long *v = xmalloc(sizeof(long) * (size_t)(2 * maxd + 3)), off = maxd + 1, d, k, x, y, dfound = -1;
    long *trace = NULL; /* row d: V[-d..d] after step d, at trace + d * d */
    size_t tcap = 0, no = 0;
    op *o;

    v[off + 1] = 0;
    for (d = 0; d <= maxd && dfound < 0; d++) {
        size_t need = (size_t)((d + 1) * (d + 1));
        for (k = -d; k <= d; k += 2) {
            if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
                x = v[off + k + 1];
            else
                x = v[off + k - 1] + 1;
            y = x - k;
            while (x < n && y < m && line_eq(&A[x], &B[y])) {
                x++;
                y++;
            }
            v[off + k] = x;
            if (x >= n && y >= m) {
                dfound = d;
                break;
            }
        }
        if (need > tcap) {
            tcap = need * 2;
            trace = xrealloc(trace, sizeof(long) * tcap);
        }
        for (k = -d; k <= d; k++)
            trace[d * d + (k + d)] = v[off + k];
    }
    xfree(v);
    if (dfound < 0) {
        xfree(trace);
        return -1;
    }
    /* Trace back from (n, m): at most n + m ops. */
    o = xmalloc(sizeof(op) * (size_t)(n + m + 1));
    x = n;
    y = m;
    for (d = dfound; d > 0; d--) {
        const long *row = trace + (d - 1) * (d - 1) + (d - 1); /* row[k]: V[k] after step d - 1 */
        long pk, px, py, mx, my;
        k = x - y;
        pk = (k == -d || (k != d && row[k - 1] < row[k + 1])) ? k + 1 : k - 1;
        px = row[pk];
        py = px - pk;
        mx = pk == k + 1 ? px : px + 1; /* the point just after the edit */
        my = mx - k;
        while (x > mx && y > my) {
            x--;
            y--;
            o[no].kind = OP_EQ;
            o[no].ai = (size_t)x;
            o[no].bi = (size_t)y;
            no++;
        }
        if (pk == k + 1) { /* down: B[py] inserted before A[px] */
            y--;
            o[no].kind = OP_INS;
        } else { /* right: A[px] deleted */
            x--;
            o[no].kind = OP_DEL;
        }
        o[no].ai = (size_t)x;
        o[no].bi = (size_t)y;
        no++;
        (void)py;
    }
    while (x > 0 && y > 0) {
        x--;
        y--;
        o[no].kind = OP_EQ;
        o[no].ai = (size_t)x;
        o[no].bi = (size_t)y;
        no++;
    }
    xfree(trace);
    for (k = 0; k < (long)no / 2; k++) {
        op t = o[k];
        o[k] = o[no - 1 - (size_t)k];
        o[no - 1 - (size_t)k] = t;
    }
    *ops = o;
    *nops = no;
    return 0;
}

static void out_line(obuf *ob, char mark, const line *l)
{
    ob_add(ob, &mark, 1);
    ob_add(ob, l->p, l->len);
    if (l->len == 0 || l->p[l->len - 1] != '\n')
        ob_add(ob, NO_NL, sizeof(NO_NL) - 1);
}

/* Print the hunks of ops (line numbers start after a0 lines of a, b0 of b). */
static void hunks(obuf *ob, const op *o, size_t no, const line *A, const line *B, size_t a0, size_t b0)
{
    size_t i = 0;

    while (i < no) {
        size_t s, e, j, al = 0, bl = 0, as, bs, last;
        char hdr[96];
        while (i < no && o[i].kind == OP_EQ)
            i++;
        if (i == no)
            break;
        s = i > CONTEXT ? i - CONTEXT : 0;
        /* Extend while the next change is within 2 x CONTEXT equal lines. */
        last = i;
        for (j = i; j < no; j++) {
            if (o[j].kind != OP_EQ)
                last = j;
            else if (j - last > 2 * CONTEXT)
                break;
        }
        e = last + CONTEXT + 1 < no ? last + CONTEXT + 1 : no;
        for (j = s; j < e; j++) {
            al += o[j].kind != OP_INS;
            bl += o[j].kind != OP_DEL;
        }
        as = a0 + o[s].ai + (al ? 1 : 0);
        bs = b0 + o[s].bi + (bl ? 1 : 0);
        snprintf(hdr, sizeof(hdr), "@@ -%zu,%zu +%zu,%zu @@\n", as, al, bs, bl);
        ob_add(ob, hdr, strlen(hdr));
        for (j = s; j < e; j++) {
            if (o[j].kind == OP_EQ)
                out_line(ob, ' ', &A[o[j].ai]);
            else if (o[j].kind == OP_DEL)
                out_line(ob, '-', &A[o[j].ai]);
            else
                out_line(ob, '+', &B[o[j].bi]);
        }
        i = e;
    }
}

static size_t count_nl(const char *p, size_t n)
{
    size_t c = 0;
    const char *q;
    for (q = p; q < p + n; q++)
        c += *q == '\n';
    return c;
}

int spdiff_unified(const char *a, size_t na, const char *b, size_t nb, const char *la, const char *lb, char **out,
                   size_t *outlen)
{
    size_t pre = 0, suf = 0, lim = na < nb ? na : nb, k, N, M, no = 0;
    line *A = NULL, *B = NULL;
    op *ops = NULL;
    obuf ob = {NULL, 0, 0, 0};
    int rc = SPDIFF_OK;

    *out = NULL;
    *outlen = 0;
    if (na == nb && memcmp(a, b, na) == 0) {
        *out = xmalloc(1);
        (*out)[0] = '\0';
        return SPDIFF_OK;
    }
    while (pre < lim && a[pre] == b[pre])
        pre++;
    while (pre > 0 && a[pre - 1] != '\n') /* back to a line start */
        pre--;
    while (suf < lim - pre && a[na - 1 - suf] == b[nb - 1 - suf])
        suf++;
    while (suf > 0 && !((na - suf == pre || a[na - suf - 1] == '\n') && (nb - suf == pre || b[nb - suf - 1] == '\n')))
        suf--;
    /* Keep CONTEXT lines of each as context. */
    for (k = 0; k < CONTEXT && pre > 0; k++)
        for (pre--; pre > 0 && a[pre - 1] != '\n'; pre--)
            ;
    for (k = 0; k < CONTEXT && suf > 0; k++) {
        const char *nl = memchr(a + na - suf, '\n', suf);
        suf = nl ? na - (size_t)(nl + 1 - a) : 0;
    }
    N = split(a + pre, na - pre - suf, SPDIFF_MAX_LINES + 2 * CONTEXT, &A);
    M = split(b + pre, nb - pre - suf, SPDIFF_MAX_LINES + 2 * CONTEXT, &B);
    if (N == SIZE_MAX || M == SIZE_MAX) {
        rc = SPDIFF_TOO_MANY_LINES;
        goto done;
    }
    if (myers(A, N, B, M, &ops, &no) < 0) {
        rc = SPDIFF_TOO_MANY_EDITS;
        goto done;
    }
    ob_add(&ob, "--- ", 4);
    ob_add(&ob, la, strlen(la));
    ob_add(&ob, "\n+++ ", 5);
    ob_add(&ob, lb, strlen(lb));
    ob_add(&ob, "\n", 1);
    k = count_nl(a, pre);
    hunks(&ob, ops, no, A, B, k, k);
    if (ob.over) {
        rc = SPDIFF_TOO_LONG;
        goto done;
    }
    *out = ob.p;
    *outlen = ob.n;
    ob.p = NULL;
done:
    xfree(ob.p);
    xfree(ops);
    xfree(A);
    xfree(B);
    return rc;
}
