/* arena.c -- a slab allocator of 64 KB pages for small objects (see arena.h).
 *
 * Why: the keyspace holds millions of small objects; carving them from
 * size-class pages saves malloc's per-block header and keeps them dense.
 *
 * Layout: a page is ARENA_PAGE_SIZE bytes aligned to ARENA_PAGE_SIZE, so the
 * page of an object is its address with the low bits cleared. The header sits
 * at the page's start; objects follow at ARENA_HDR_SIZE. A page hands out
 * objects first from its free list (objects freed, linked through their first
 * 8 bytes) and then by bumping an offset into never-used room, so a new page
 * costs no O(page) set-up.
 *
 * Invariants:
 *   - each page of a class is in exactly one place: the class's avail list
 *     (0 < live < capacity), its full list (live == capacity), or its spare
 *     slot (live == 0, at most one per class);
 *   - carved objects of a page = live + length of its free list;
 *   - large objects (> ARENA_SMALL_MAX) carry a 16-byte header linking them in
 *     the arena's large list, so arena_destroy can release them;
 *   - the stats counters are updated on every alloc/free, never recomputed. */
#include "arena.h"

#include "mem.h"

#include <assert.h>
#include <stdint.h>

#define ARENA_HDR_SIZE 64
#define ARENA_NCLASSES 40

typedef struct arena_page {
    struct arena_page *prev;  /* neighbours in the avail or full list */
    struct arena_page *next;
    void *free;               /* freed objects of this page, linked through their first word */
    uint32_t bump;            /* bytes from page start to the first never-used object */
    uint32_t live;            /* count of objects handed out and not freed */
    uint32_t cls;             /* index of the size class */
    uint32_t size;            /* bytes per object (the class's size, for arena_small_size) */
} arena_page;

_Static_assert(sizeof(arena_page) <= ARENA_HDR_SIZE, "page header too large");
_Static_assert(offsetof(arena_page, size) == ARENA_SIZE_OFFSET, "arena_small_size reads the size here");
_Static_assert((ARENA_PAGE_SIZE & (ARENA_PAGE_SIZE - 1)) == 0, "page size not a power of two");

typedef struct arena_large {
    struct arena_large *prev;
    struct arena_large *next;
} arena_large;

typedef struct arena_class {
    arena_page *avail;        /* pages with 0 < live < capacity */
    arena_page *full;         /* pages with live == capacity */
    arena_page *spare;        /* one empty page kept back, or NULL */
    uint32_t size;            /* bytes per object */
    uint32_t capacity;        /* objects per page */
} arena_class;

struct arena {
    arena_class cls[ARENA_NCLASSES];
    arena_large *large;       /* live large objects */
    size_t live_bytes;        /* bytes, class sizes of live objects */
    size_t live_objects;
    size_t large_bytes;       /* bytes, rounded sizes of live large objects */
    size_t pages;
};

/* Class index of a small size (1..ARENA_SMALL_MAX): 16 classes of 8 bytes up
 * to 128, then 8 classes each of 16, 32 and 64 bytes up to 256, 512, 1024. */
static inline unsigned arena_class_index(size_t size)
{
    if (size <= 128)
        return size ? (unsigned)((size - 1) >> 3) : 0;
    if (size <= 256)
        return 16 + (unsigned)((size - 129) >> 4);
    if (size <= 512)
        return 24 + (unsigned)((size - 257) >> 5);
    return 32 + (unsigned)((size - 513) >> 6);
}

static uint32_t arena_index_size(unsigned idx)
{
    if (idx < 16)
        return (idx + 1) * 8;
    if (idx < 24)
        return 128 + (idx - 15) * 16;
    if (idx < 32)
        return 256 + (idx - 23) * 32;
    return 512 + (idx - 31) * 64;
}

static inline size_t arena_round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

size_t arena_class_size(size_t size)
{
    if (size > ARENA_SMALL_MAX)
        return arena_round8(size);
    return arena_index_size(arena_class_index(size));
}

static inline void arena_list_push(arena_page **head, arena_page *pg)
{
    pg->prev = NULL;
    pg->next = *head;
    if (*head)
        (*head)->prev = pg;
    *head = pg;
}

static inline void arena_list_unlink(arena_page **head, arena_page *pg)
{
    if (pg->prev)
        pg->prev->next = pg->next;
    else
        *head = pg->next;
    if (pg->next)
        pg->next->prev = pg->prev;
}

arena *arena_new(void)
{
    arena *a = xcalloc(1, sizeof(*a));

    for (unsigned i = 0; i < ARENA_NCLASSES; i++) {
        a->cls[i].size = arena_index_size(i);
        a->cls[i].capacity = (ARENA_PAGE_SIZE - ARENA_HDR_SIZE) / a->cls[i].size;
    }
    return a;
}

static void arena_free_list_pages(arena_page *pg)
{
    while (pg) {
        arena_page *next = pg->next;
        xfree(pg);
        pg = next;
    }
}

void arena_destroy(arena *a)
{
    arena_large *l;

    if (!a)
        return;
    for (unsigned i = 0; i < ARENA_NCLASSES; i++) {
        arena_free_list_pages(a->cls[i].avail);
        arena_free_list_pages(a->cls[i].full);
        xfree(a->cls[i].spare);
    }
    l = a->large;
    while (l) {
        arena_large *next = l->next;
        xfree(l);
        l = next;
    }
    xfree(a);
}

/* Give class idx a page with free room at the head of its avail list (which is
 * empty when this is called): the spare page if there is one, else a new page
 * from the system. Returns the page. */
static arena_page *arena_class_refill(arena *a, unsigned idx)
{
    arena_class *c = &a->cls[idx];
    arena_page *pg = c->spare;

    if (pg) {
        c->spare = NULL;
    } else {
        pg = xmalloc_aligned(ARENA_PAGE_SIZE, ARENA_PAGE_SIZE);
        pg->free = NULL;
        pg->bump = ARENA_HDR_SIZE;
        pg->live = 0;
        pg->cls = idx;
        pg->size = c->size;
        a->pages++;
    }
    arena_list_push(&c->avail, pg);
    return pg;
}

static void *arena_alloc_large(arena *a, size_t size)
{
    size_t n = arena_round8(size);
    arena_large *l = xmalloc(sizeof(*l) + n);

    l->prev = NULL;
    l->next = a->large;
    if (a->large)
        a->large->prev = l;
    a->large = l;
    a->large_bytes += n;
    a->live_bytes += n;
    a->live_objects++;
    return l + 1;
}

static void arena_free_large(arena *a, void *p, size_t size)
{
    arena_large *l = (arena_large *)p - 1;
    size_t n = arena_round8(size);

    if (l->prev)
        l->prev->next = l->next;
    else
        a->large = l->next;
    if (l->next)
        l->next->prev = l->prev;
    a->large_bytes -= n;
    a->live_bytes -= n;
    a->live_objects--;
    xfree(l);
}

void *arena_alloc(arena *a, size_t size)
{
    unsigned idx;
    arena_class *c;
    arena_page *pg;
    void *obj;

    if (size > ARENA_SMALL_MAX)
        return arena_alloc_large(a, size);
    idx = arena_class_index(size);
    c = &a->cls[idx];
    pg = c->avail;
    if (!pg)
        pg = arena_class_refill(a, idx);
    obj = pg->free;
    if (obj) {
        pg->free = *(void **)obj;
    } else {
        obj = (char *)pg + pg->bump;
        pg->bump += c->size;
    }
    if (++pg->live == c->capacity) {
        arena_list_unlink(&c->avail, pg);
        arena_list_push(&c->full, pg);
    }
    a->live_bytes += c->size;
    a->live_objects++;
    return obj;
}

void arena_free(arena *a, void *p, size_t size)
{
    arena_page *pg;
    arena_class *c;

    if (!p)
        return;
    if (size > ARENA_SMALL_MAX) {
        arena_free_large(a, p, size);
        return;
    }
    pg = (arena_page *)((uintptr_t)p & ~(uintptr_t)(ARENA_PAGE_SIZE - 1));
    assert(pg->cls == arena_class_index(size));
    c = &a->cls[pg->cls];
    *(void **)p = pg->free;
    pg->free = p;
    a->live_bytes -= c->size;
    a->live_objects--;
    if (pg->live-- == c->capacity) {
        arena_list_unlink(&c->full, pg);
        arena_list_push(&c->avail, pg);
    }
    if (pg->live == 0) {
        arena_list_unlink(&c->avail, pg);
        if (!c->spare) {
            c->spare = pg;
        } else {
            a->pages--;
            xfree(pg);
        }
    }
}

void arena_trim(arena *a)
{
    for (unsigned i = 0; i < ARENA_NCLASSES; i++) {
        if (a->cls[i].spare) {
            xfree(a->cls[i].spare);
            a->cls[i].spare = NULL;
            a->pages--;
        }
    }
}

void arena_get_stats(const arena *a, arena_stats *st)
{
    st->live_bytes = a->live_bytes;
    st->live_objects = a->live_objects;
    st->page_bytes = a->pages * (size_t)ARENA_PAGE_SIZE;
    st->large_bytes = a->large_bytes;
    st->pages = a->pages;
}
