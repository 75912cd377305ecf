/* arena.h -- a slab allocator for the keyspace's many small objects.
 *
 * Why: one malloc per key costs a 16-byte header and scatters entries over the
 * heap. The arena carves objects of a few size classes (8-byte steps up to 128,
 * 16 up to 256, 32 up to 512, 64 up to ARENA_SMALL_MAX) out of 64 KB pages
 * aligned to their size, so an object's page is found from its address, and a
 * page whose objects are all freed is given back (one spare page per class is
 * kept to avoid thrashing). Requests above ARENA_SMALL_MAX go to xmalloc.
 *
 * Invariants: every page holds objects of one class; a page's header (at the
 * page's start) records its class, its live count and its own free list; each
 * class keeps a list of pages with free room, so alloc and free are O(1).
 * No globals: every call takes the arena; pages come from the accounted
 * allocator (mem.h), so mem_used() includes them.
 *
 * Errors: allocation failure aborts (as xmalloc). */
#ifndef SP_ARENA_H
#define SP_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define ARENA_PAGE_SIZE (64 * 1024)
#define ARENA_SMALL_MAX 1024

typedef struct arena arena;

typedef struct arena_stats {
    size_t live_bytes;     /* bytes, sum of the class sizes of live objects (small and large) */
    size_t live_objects;   /* count of live objects */
    size_t page_bytes;     /* bytes, pages currently held (including free room in them) */
    size_t large_bytes;    /* bytes, usable size of live large (xmalloc) objects */
    size_t pages;          /* count of pages held */
} arena_stats;

/* Create an empty arena. Free it with arena_destroy. */
arena *arena_new(void);

/* Release every page and every large object of the arena, then the arena.
 * Pointers it returned become invalid. arena_destroy(NULL) does nothing. */
void arena_destroy(arena *a);

/* Return an object of at least size bytes (size >= 1), aligned to 8 bytes.
 * The caller must remember size (or any size of the same class, see
 * arena_class_size) to free it. Never returns NULL. */
void *arena_alloc(arena *a, size_t size);

/* Free an object from arena_alloc; size is the size it was allocated with (or any
 * size mapping to the same class). arena_free(a, NULL, n) does nothing. */
void arena_free(arena *a, void *p, size_t size);

/* The usable size an allocation of size bytes yields: its class size for small
 * objects, size itself (rounded to 8) for large ones. Callers may use the slack. */
size_t arena_class_size(size_t size);

/* The class size of p, an object of at most ARENA_SMALL_MAX bytes from
 * arena_alloc (read from its page's header, at ARENA_SIZE_OFFSET: the caller
 * need not remember it). */
#define ARENA_SIZE_OFFSET 36
static inline size_t arena_small_size(const void *p)
{
    const char *page = (const char *)((uintptr_t)p & ~(uintptr_t)(ARENA_PAGE_SIZE - 1));
    return *(const uint32_t *)(const void *)(page + ARENA_SIZE_OFFSET);
}

/* Fill st with the arena's current figures. */
void arena_get_stats(const arena *a, arena_stats *st);

/* Give back the spare page of every class (each class keeps one empty page
 * against thrashing): after FLUSHALL / FLUSHDB an emptied arena holds nothing
 * but these, up to 40 pages of 64 KB. */
void arena_trim(arena *a);

#endif
