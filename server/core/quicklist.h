/* quicklist.h -- a list of byte strings as a doubly linked list of compact nodes.
 *
 * Why: a list must push and pop at both ends in O(1) and hold millions of small
 * elements in little memory. A linked list of one element per node costs two
 * pointers and an allocation per element; one contiguous array costs a copy of
 * everything on a push at the head. Here each node packs a bounded number of
 * elements back to back in one buffer (a length prefix, then the bytes), so a
 * push or pop moves at most one node's bytes, and a node holds many elements.
 *
 * The fill (Redis's list-max-listpack-size) bounds a node: a negative value
 * -1..-5 caps its buffer at 4, 8, 16, 32 or 64 KB; a positive value caps its
 * element count (and its buffer at 8 KB, as Redis's safety limit). An element
 * larger than the cap sits alone in a node of its own.
 *
 * Compression (ql_set_compress): inner nodes may hold an LZ4 block instead of
 * their entries; every function that reads a node decompresses it first, and
 * only the functions that change the list compress nodes (never the node of a
 * position they return), so a position always points into a raw node.
 *
 * Positions: ql_at finds an element by index (walking from the nearer end);
 * a ql_pos stays valid until the list is changed other than through the
 * function it is passed to. Element pointers (ql_get) point into a node's
 * buffer and are valid until the next change of the list.
 *
 * Errors: functions returning int give 0, or -1 when the position does not
 * exist. Allocation failure aborts (mem.h). No globals: every function takes
 * the list. */
#ifndef SP_QUICKLIST_H
#define SP_QUICKLIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct qlnode {
    struct qlnode *prev, *next;
    uint32_t count;           /* elements in buf */
    uint32_t used;            /* bytes of buf in use */
    uint32_t cap;             /* bytes allocated for buf */
    uint32_t zlen;            /* 0: buf is raw; else the bytes of buf's LZ4 block (QL_TRIED: raw, did not compress) */
    unsigned char *buf;       /* count entries: prefix (1 or 5 bytes), then the bytes; or their LZ4 block */
} qlnode;

#define QL_TRIED 0x80000000u /* zlen of a raw node that compression did not shrink */

typedef struct quicklist {
    qlnode *head, *tail;
    size_t len;               /* elements */
    size_t nodes;
    size_t bytes;             /* bytes of the elements (logical size) */
    size_t alloc;             /* bytes the linked nodes and their buffers occupy (ql_mem) */
    int fill;                 /* list-max-listpack-size */
    int compress;             /* list-compress-depth: raw nodes at each end (0: none compressed) */
    qlnode *hand;             /* the next node the compression sweep looks at (NULL: the head) */
} quicklist;

/* A position: an element of a node. */
typedef struct ql_pos {
    struct quicklist *q; /* the list (set by ql_at): a node read raw is counted in its alloc */
    qlnode *node;
    uint32_t i;               /* index within node */
    uint32_t off;             /* byte offset of the entry in node->buf */
} ql_pos;

/* A new empty list whose nodes follow fill. Free with ql_free. */
quicklist *ql_new(int fill);
void ql_free(quicklist *q);
/* ql_free in bounded steps (a large list freed from the event loop): free up
 * to max nodes (max >= 1) from the head (a node is one buffer, whatever its
 * elements); q must not be used otherwise meanwhile. Returns 1 when q is
 * freed, else 0: call again. */
int ql_free_some(quicklist *q, size_t max);
/* An independent copy of q. */
quicklist *ql_dup(const quicklist *q);
/* Change the fill used for nodes created or grown from now on. */
void ql_set_fill(quicklist *q, int fill);
/* Keep depth nodes at each end raw and store the nodes between LZ4-compressed
 * (Redis's list-compress-depth; 0: compress none). A node is decompressed when
 * it is read or changed; the changes of the list compress the nodes that have
 * left the ends' windows and, sweeping, two more nodes each (so nodes read stay
 * raw until later changes of the list come round to them, unless read through
 * ql_next_settle). */
void ql_set_compress(quicklist *q, int depth);
static inline size_t ql_len(const quicklist *q) { return q->len; }
/* Bytes of memory q holds (its struct, nodes and buffers). */
size_t ql_mem(const quicklist *q);
/* The same sum, walked node by node (O(nodes)): for the tests, which check
 * that ql_mem's running count never drifts from it. */
size_t ql_mem_walk(const quicklist *q);

/* Push p[0..n) at the head (tail 0) or the tail (tail 1). */
void ql_push(quicklist *q, int tail, const void *p, size_t n);
/* The element at index idx (0 .. len-1; negative counts from the tail, -1 the
 * last) into *pos: 0, or -1 if out of range. */
int ql_at(const quicklist *q, long long idx, ql_pos *pos);
/* The bytes of the element at pos. */
void ql_get(const ql_pos *pos, const char **p, size_t *n);
/* Move pos to the next / previous element: 0, or -1 at the end. */
int ql_next(ql_pos *pos);
int ql_prev(ql_pos *pos);
/* ql_next for a reader of q that holds no other position or element pointer
 * into q (LRANGE, the log's rewrite): the node it leaves is compressed again
 * if it is an inner one, so reading a whole list leaves it compressed. */
int ql_next_settle(quicklist *q, ql_pos *pos);
/* Remove the element at pos. Afterwards pos is the element that followed it
 * (forward 1) or preceded it (forward 0): 0, or -1 if there is none. */
int ql_delete(quicklist *q, ql_pos *pos, int forward);
/* Insert p[0..n) before (after 0) or after (after 1) the element at pos; pos
 * is invalid afterwards. */
void ql_insert(quicklist *q, const ql_pos *pos, int after, const void *p, size_t n);
/* Replace the element at pos by p[0..n); pos is invalid afterwards. */
void ql_replace(quicklist *q, const ql_pos *pos, const void *p, size_t n);
/* Remove count elements from index start (0 <= start, start + count <= len). */
void ql_del_range(quicklist *q, size_t start, size_t count);

#endif
