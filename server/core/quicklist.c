/* quicklist.c -- a linked list of packed nodes (see quicklist.h).
 *
 * An entry in a node's buffer is a length prefix, then the bytes: one byte
 * (the length, below 128) or five (0x80, then the length as 4 bytes, little
 * endian). Invariants: no node is empty; a node's used bytes stay within its
 * cap unless it holds a single element; q->len and q->bytes are the sums over
 * the nodes. A node that a change leaves over the cap with two or more
 * elements is split in two halves, so every change moves at most about two
 * nodes' bytes; one that a deletion leaves under a quarter of the cap joins
 * a neighbour when the two fit in one node. */
#include "quicklist.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

#define QL_SAFETY_BYTES 8192 /* the byte cap of a node under a positive fill */

static size_t node_cap_bytes(int fill)
{
    static const size_t caps[] = {4096, 8192, 16384, 32768, 65536};
    if (fill >= 0)
        return QL_SAFETY_BYTES;
    if (fill < -5)
        fill = -5;
    return caps[-fill - 1];
}

static size_t hdr_len(size_t n)
{
    return n < 128 ? 1 : 5;
}

static size_t entry_len(const unsigned char *e, size_t *n)
{
    size_t len;

    if (e[0] < 128) {
        len = e[0];
        if (n)
            *n = len;
        return 1 + len;
    }
    len = (size_t)e[1] | (size_t)e[2] << 8 | (size_t)e[3] << 16 | (size_t)e[4] << 24;
    if (n)
        *n = len;
    return 5 + len;
}

static void write_entry(unsigned char *dst, const void *p, size_t n)
{
    if (n < 128) {
        dst[0] = (unsigned char)n;
        memcpy(dst + 1, p, n);
        return;
    }
    dst[0] = 0x80;
    dst[1] = (unsigned char)n;
    dst[2] = (unsigned char)(n >> 8);
    dst[3] = (unsigned char)(n >> 16);
    dst[4] = (unsigned char)(n >> 24);
    memcpy(dst + 5, p, n);
}

/* 1 if node can take one more element of total entry bytes add. */
static int node_fits(const quicklist *q, const qlnode *node, size_t add)
{
    if (q->fill > 0 && node->count >= (uint32_t)q->fill)
        return 0;
    return node->used + add <= node_cap_bytes(q->fill);
}

/* Bytes a node's buffer occupies, as q->alloc counts it. */
static size_t buf_alloc(const qlnode *n)
{
    return n->buf ? xmalloc_size(n->buf) : 0;
}

/* q (NULL for a node not linked yet: link_after counts it whole) after node's
 * buffer went from old bytes to what it occupies now. */
static void buf_changed(quicklist *q, const qlnode *n, size_t old)
{
    if (q)
        q->alloc = q->alloc - old + buf_alloc(n);
}

/* Room for need bytes: doubling from 64 while entries are small (many share
 * a node), the exact need past 1 KB (a node of 4 KB elements holds one or
 * two: doubling gave a 4 KB element an 8 KB buffer). */
static void node_reserve(quicklist *q, qlnode *node, size_t need)
{
    size_t ncap, old;

    if (need <= node->cap)
        return;
    ncap = node->cap ? node->cap : 64;
    while (ncap < need)
        ncap *= 2;
    if (need > 1024)
        ncap = need;
    old = buf_alloc(node);
    node->buf = xrealloc(node->buf, ncap);
    node->cap = (uint32_t)ncap;
    buf_changed(q, node, old);
}

static qlnode *node_new(void)
{
    return xcalloc(1, sizeof(qlnode));
}

static int node_is_lz(const qlnode *n)
{
    return n->zlen != 0 && !(n->zlen & QL_TRIED);
}

/* Make n's buffer raw entries again (a no-op for a raw node). */
static void node_raw(quicklist *q, qlnode *n)
{
    unsigned char *r;
    size_t old;

    if (!node_is_lz(n))
        return;
    old = buf_alloc(n);
    r = xmalloc(n->used);
    if (LZ4_decompress_safe((const char *)n->buf, (char *)r, (int)n->zlen, (int)n->used) != (int)n->used)
        abort(); /* our own block, checked when written: memory is corrupt */
    xfree(n->buf);
    n->buf = r;
    n->cap = n->used;
    n->zlen = 0;
    buf_changed(q, n, old);
}

/* Store n's entries as one LZ4 block if that saves an eighth or more; a node
 * that does not shrink is marked so it is not tried again until it changes. */
static void node_compress(quicklist *q, qlnode *n)
{
    int bound, zl;
    char *z;
    size_t old;

    if (n->zlen != 0 || n->used < 64)
        return;
    bound = LZ4_compressBound((int)n->used);
    z = xmalloc((size_t)bound);
    zl = LZ4_compress_default((const char *)n->buf, z, (int)n->used, bound);
    if (zl <= 0 || (uint32_t)zl > n->used - n->used / 8) {
        xfree(z);
        n->zlen = QL_TRIED;
        return;
    }
    old = buf_alloc(n);
    xfree(n->buf);
    n->buf = xrealloc(z, (size_t)zl);
    n->cap = (uint32_t)zl;
    n->zlen = (uint32_t)zl;
    buf_changed(q, n, old);
}

/* 1 if n is more than q->compress nodes from either end. */
static int node_inner(const quicklist *q, const qlnode *n)
{
    const qlnode *p;
    int k;

    if (q->compress <= 0)
        return 0;
    for (p = n, k = 0; k < q->compress; k++)
        if (!(p = p->prev))
            return 0;
    for (p = n, k = 0; k < q->compress; k++)
        if (!(p = p->next))
            return 0;
    return 1;
}

/* After a change of q: compress the nodes just past each end's window (a
 * push may have moved one out of it), and sweep two more nodes; never keep
 * (the node of a position handed back). O(depth). */
static void settle(quicklist *q, const qlnode *keep)
{
    qlnode *ends[2] = {q->head, q->tail}, *n;
    int e, k;

    if (q->compress <= 0)
        return;
    for (e = 0; e < 2; e++) {
        for (n = ends[e], k = 0; n && k < q->compress; k++)
            n = e ? n->prev : n->next;
        if (n && n != keep && node_inner(q, n))
            node_compress(q, n);
    }
    for (k = 0; k < 2; k++) {
        n = q->hand ? q->hand : q->head;
        if (!n)
            return;
        q->hand = n->next;
        if (n != keep && node_inner(q, n))
            node_compress(q, n);
    }
}

static void node_free(qlnode *node)
{
    xfree(node->buf);
    xfree(node);
}

/* Link node after prev (NULL: at the head). */
static void link_after(quicklist *q, qlnode *prev, qlnode *node)
{
    node->prev = prev;
    node->next = prev ? prev->next : q->head;
    if (node->next)
        node->next->prev = node;
    else
        q->tail = node;
    if (prev)
        prev->next = node;
    else
        q->head = node;
    q->nodes++;
    q->alloc += xmalloc_size(node) + buf_alloc(node);
}

static void unlink_node(quicklist *q, qlnode *node)
{
    if (q->hand == node)
        q->hand = node->next;
    if (node->prev)
        node->prev->next = node->next;
    else
        q->head = node->next;
    if (node->next)
        node->next->prev = node->prev;
    else
        q->tail = node->prev;
    q->nodes--;
    q->alloc -= xmalloc_size(node) + buf_alloc(node);
    node_free(node);
}

/* Byte offset of entry i of node. */
static uint32_t node_offset(const qlnode *node, uint32_t i)
{
    uint32_t off = 0, k;

    for (k = 0; k < i; k++)
        off += (uint32_t)entry_len(node->buf + off, NULL);
    return off;
}

/* Split node in two halves when it is over its cap with two or more elements. */
static void maybe_split(quicklist *q, qlnode *node)
{
    uint32_t half, off;
    qlnode *n2;

    if (node->count < 2)
        return;
    if (node->used <= node_cap_bytes(q->fill) && (q->fill <= 0 || node->count <= (uint32_t)q->fill))
        return;
    half = node->count / 2;
    node->zlen = 0;
    off = node_offset(node, half);
    n2 = node_new();
    node_reserve(NULL, n2, node->used - off);
    memcpy(n2->buf, node->buf + off, node->used - off);
    n2->used = node->used - off;
    n2->count = node->count - half;
    node->used = off;
    node->count = half;
    link_after(q, node, n2);
}

quicklist *ql_new(int fill)
{
    quicklist *q = xcalloc(1, sizeof(quicklist));
    q->fill = fill == 0 ? -2 : fill;
    return q;
}

void ql_free(quicklist *q)
{
    qlnode *node, *next;

    if (!q)
        return;
    for (node = q->head; node; node = next) {
        next = node->next;
        node_free(node);
    }
    xfree(q);
}

int ql_free_some(quicklist *q, size_t max)
{
    qlnode *node;

    while ((node = q->head) != NULL) {
        if (max-- == 0)
            return 0;
        q->head = node->next;
        q->alloc -= xmalloc_size(node) + buf_alloc(node);
        node_free(node);
        q->nodes--;
    }
    xfree(q);
    return 1;
}

quicklist *ql_dup(const quicklist *q)
{
    quicklist *d = ql_new(q->fill);
    const qlnode *node;

    d->compress = q->compress;
    for (node = q->head; node; node = node->next) {
        qlnode *n = node_new();
        size_t bytes = node_is_lz(node) ? node->zlen : node->used; /* a compressed node is copied as it is */
        node_reserve(NULL, n, bytes);
        memcpy(n->buf, node->buf, bytes);
        n->used = node->used;
        n->count = node->count;
        n->zlen = node->zlen;
        link_after(d, d->tail, n);
    }
    d->len = q->len;
    d->bytes = q->bytes;
    return d;
}

void ql_set_fill(quicklist *q, int fill)
{
    q->fill = fill == 0 ? -2 : fill;
}

void ql_set_compress(quicklist *q, int depth)
{
    q->compress = depth < 0 ? 0 : depth;
}

size_t ql_mem(const quicklist *q)
{
    return xmalloc_size(q) + q->alloc;
}

size_t ql_mem_walk(const quicklist *q)
{
    size_t total = xmalloc_size(q);
    const qlnode *node;

    for (node = q->head; node; node = node->next)
        total += xmalloc_size(node) + buf_alloc(node);
    return total;
}

void ql_push(quicklist *q, int tail, const void *p, size_t n)
{
    size_t add = hdr_len(n) + n;
    qlnode *node = tail ? q->tail : q->head;

    if (node)
        node_raw(q, node);
    if (!node || !node_fits(q, node, add)) {
        qlnode *nn = node_new();
        link_after(q, tail ? q->tail : NULL, nn);
        node = nn;
    }
    node->zlen = 0;
    node_reserve(q, node, node->used + add);
    if (tail) {
        write_entry(node->buf + node->used, p, n);
    } else {
        memmove(node->buf + add, node->buf, node->used);
        write_entry(node->buf, p, n);
    }
    node->used += (uint32_t)add;
    node->count++;
    q->len++;
    q->bytes += n;
    settle(q, NULL);
}

int ql_at(const quicklist *q, long long idx, ql_pos *pos)
{
    qlnode *node;
    size_t k;

    if (idx < 0)
        idx += (long long)q->len;
    if (idx < 0 || (size_t)idx >= q->len)
        return -1;
    k = (size_t)idx;
    if (k < q->len / 2) {
        for (node = q->head; k >= node->count; node = node->next)
            k -= node->count;
    } else {
        size_t back = q->len - 1 - k; /* elements after the wanted one */
        for (node = q->tail; back >= node->count; node = node->prev)
            back -= node->count;
        k = node->count - 1 - back;
    }
    node_raw((quicklist *)q, node); /* q's elements are unchanged: only their encoding */
    pos->q = (quicklist *)q;
    pos->node = node;
    pos->i = (uint32_t)k;
    pos->off = node_offset(node, (uint32_t)k);
    return 0;
}

void ql_get(const ql_pos *pos, const char **p, size_t *n)
{
    const unsigned char *e = pos->node->buf + pos->off;
    entry_len(e, n);
    *p = (const char *)e + (e[0] < 128 ? 1 : 5);
}

int ql_next(ql_pos *pos)
{
    if (pos->i + 1 < pos->node->count) {
        pos->off += (uint32_t)entry_len(pos->node->buf + pos->off, NULL);
        pos->i++;
        return 0;
    }
    if (!pos->node->next)
        return -1;
    pos->node = pos->node->next;
    node_raw(pos->q, pos->node);
    pos->i = 0;
    pos->off = 0;
    return 0;
}

int ql_next_settle(quicklist *q, ql_pos *pos)
{
    qlnode *left = pos->node;
    int r = ql_next(pos);

    if (r == 0 && pos->node != left && node_inner(q, left))
        node_compress(q, left);
    return r;
}

int ql_prev(ql_pos *pos)
{
    if (pos->i > 0) {
        pos->i--;
        pos->off = node_offset(pos->node, pos->i);
        return 0;
    }
    if (!pos->node->prev)
        return -1;
    pos->node = pos->node->prev;
    node_raw(pos->q, pos->node);
    pos->i = pos->node->count - 1;
    pos->off = node_offset(pos->node, pos->i);
    return 0;
}

/* 1 if a and b (a's next) fit in one node. */
static int pair_fits(const quicklist *q, const qlnode *a, const qlnode *b)
{
    if (q->fill > 0 && a->count + b->count > (uint32_t)q->fill)
        return 0;
    return a->used + b->used <= node_cap_bytes(q->fill);
}

/* After a deletion from node: a node left below a quarter of the cap joins a
 * neighbour when the two fit in one node, so deletions in the middle (LREM,
 * LTRIM) leave no trail of tiny nodes (a quarter, so a node is not merged and
 * split back by every other change); a node whose buffer is more than twice
 * what it holds gets a smaller one. pos (NULL: none) stays on its element. */
static void maybe_merge(quicklist *q, qlnode *node, ql_pos *pos)
{
    qlnode *a, *b;

    if (node->used >= node_cap_bytes(q->fill) / 4 ||
        !((node->prev && pair_fits(q, node->prev, node)) || (node->next && pair_fits(q, node, node->next)))) {
        if (node->cap > 256 && node->cap / 2 > node->used) {
            size_t old = buf_alloc(node);
            node->cap = node->used + node->used / 4 + 16;
            node->buf = xrealloc(node->buf, node->cap);
            buf_changed(q, node, old);
        }
        return;
    }
    if (node->prev && pair_fits(q, node->prev, node)) {
        a = node->prev;
        b = node;
    } else if (node->next && pair_fits(q, node, node->next)) {
        a = node;
        b = node->next;
    } else {
        return;
    }
    node_raw(q, a);
    node_raw(q, b);
    a->zlen = 0;
    node_reserve(q, a, a->used + b->used);
    memcpy(a->buf + a->used, b->buf, b->used);
    if (pos && pos->node == b) {
        pos->node = a;
        pos->i += a->count;
        pos->off += a->used;
    }
    a->used += b->used;
    a->count += b->count;
    unlink_node(q, b);
}

static int delete_at(quicklist *q, ql_pos *pos, int forward);

int ql_delete(quicklist *q, ql_pos *pos, int forward)
{
    qlnode *node = pos->node, *prev = node->prev;
    int emptied = node->count == 1, r = delete_at(q, pos, forward);
    qlnode *left = emptied ? prev : node; /* the node that shrank, or the one before the node that went */

    if (left)
        maybe_merge(q, left, r == 0 ? pos : NULL);
    if (r == 0)
        node_raw(q, pos->node); /* it may have moved to a compressed neighbour */
    settle(q, r == 0 ? pos->node : NULL);
    return r;
}

static int delete_at(quicklist *q, ql_pos *pos, int forward)
{
    qlnode *node = pos->node;
    size_t n, elen = entry_len(node->buf + pos->off, &n);

    node->zlen = 0;
    memmove(node->buf + pos->off, node->buf + pos->off + elen, node->used - pos->off - elen);
    node->used -= (uint32_t)elen;
    node->count--;
    q->len--;
    q->bytes -= n;
    if (node->count == 0) {
        qlnode *prev = node->prev, *next = node->next;
        unlink_node(q, node);
        if (forward) {
            if (!next)
                return -1;
            pos->node = next;
            pos->i = 0;
            pos->off = 0;
            return 0;
        }
        if (!prev)
            return -1;
        node_raw(q, prev);
        pos->node = prev;
        pos->i = prev->count - 1;
        pos->off = node_offset(prev, pos->i);
        return 0;
    }
    if (forward) {
        if (pos->i < node->count)
            return 0;
        if (!node->next)
            return -1;
        pos->node = node->next;
        pos->i = 0;
        pos->off = 0;
        return 0;
    }
    if (pos->i > 0) {
        pos->i--;
        pos->off = node_offset(node, pos->i);
        return 0;
    }
    if (!node->prev)
        return -1;
    pos->node = node->prev;
    node_raw(q, pos->node);
    pos->i = pos->node->count - 1;
    pos->off = node_offset(pos->node, pos->i);
    return 0;
}

void ql_insert(quicklist *q, const ql_pos *pos, int after, const void *p, size_t n)
{
    qlnode *node = pos->node;
    size_t add = hdr_len(n) + n;
    uint32_t off = pos->off;

    if (after)
        off += (uint32_t)entry_len(node->buf + off, NULL);
    node->zlen = 0;
    node_reserve(q, node, node->used + add);
    memmove(node->buf + off + add, node->buf + off, node->used - off);
    write_entry(node->buf + off, p, n);
    node->used += (uint32_t)add;
    node->count++;
    q->len++;
    q->bytes += n;
    maybe_split(q, node);
    settle(q, NULL);
}

void ql_replace(quicklist *q, const ql_pos *pos, const void *p, size_t n)
{
    qlnode *node = pos->node;
    size_t oldn, olde = entry_len(node->buf + pos->off, &oldn);
    size_t add = hdr_len(n) + n;

    node->zlen = 0;
    if (add > olde)
        node_reserve(q, node, node->used - olde + add);
    memmove(node->buf + pos->off + add, node->buf + pos->off + olde, node->used - pos->off - olde);
    write_entry(node->buf + pos->off, p, n);
    node->used = (uint32_t)(node->used - olde + add);
    q->bytes = q->bytes - oldn + n;
    maybe_split(q, node);
    settle(q, NULL);
}

void ql_del_range(quicklist *q, size_t start, size_t count)
{
    ql_pos pos;

    if (count == 0 || ql_at(q, (long long)start, &pos) < 0)
        return;
    while (count > 0) {
        qlnode *node = pos.node;
        node_raw(q, node);
        if (pos.i == 0 && count >= node->count) {
            /* The whole node goes. */
            qlnode *next = node->next;
            size_t k, off = 0;
            for (k = 0; k < node->count; k++) {
                size_t n;
                off += entry_len(node->buf + off, &n);
                q->bytes -= n;
            }
            q->len -= node->count;
            count -= node->count;
            unlink_node(q, node);
            if (!next) {
                settle(q, NULL);
                return;
            }
            pos.node = next;
            pos.i = 0;
            pos.off = 0;
            continue;
        }
        if (ql_delete(q, &pos, 1) < 0)
            return;
        count--;
    }
    if (pos.node->prev)
        maybe_merge(q, pos.node->prev, NULL); /* the nodes on either side of whole nodes gone */
    settle(q, NULL);
}
