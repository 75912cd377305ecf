/* mem.h -- allocation with accounting, for the server and its data structures.
 *
 * Every byte the dataset, the clients and the tables hold goes through these
 * wrappers, so mem_used() is the real figure INFO memory reports and maxmemory
 * is checked against (as Redis's used_memory: the allocator's usable size of each
 * live block). Allocation failure aborts the process with a message: in the
 * server an out-of-memory malloc is not recoverable; a configured limit
 * (maxmemory, client buffers) is checked before allocating and answered with an
 * error reply instead. The counter is process-wide; it is the one global the
 * data-structure modules share. The loop's thread updates it without atomics;
 * another thread that allocates or frees (the log's background writers) calls
 * mem_thread_register() first, and its updates go to an atomic counter that
 * mem_used() adds (a block may be freed by another thread than its allocator). */
#ifndef SP_MEM_H
#define SP_MEM_H

#include <stddef.h>

/* Return a block of at least n bytes (n may be 0). Never returns NULL. */
void *xmalloc(size_t n);
/* As xmalloc, zero-filled. */
void *xcalloc(size_t count, size_t size);
/* Resize p (may be NULL) to n bytes. Never returns NULL. */
void *xrealloc(void *p, size_t n);
/* Release p; xfree(NULL) does nothing. */
void xfree(void *p);
/* Return a block of at least n bytes aligned to align (a power of two, a
 * multiple of sizeof(void *)), counted like xmalloc. Never returns NULL.
 * Release it with xfree. */
void *xmalloc_aligned(size_t align, size_t n);
/* Copy of the n bytes at p plus a terminating NUL; caller frees with xfree. */
char *xstrndup(const char *p, size_t n);
char *xstrdup(const char *s);
/* Usable size of a block from xmalloc (what the accounting counted). */
size_t xmalloc_size(const void *p);

/* Declare the calling thread not the loop's: its allocations are counted
 * atomically from now on. Call once, first thing in the thread. */
void mem_thread_register(void);
/* Bytes currently held by live blocks. */
size_t mem_used(void);
/* Merge the small blocks freed since the last call with their neighbours now.
 * glibc keeps small freed blocks apart (its fastbins) and merges all of them
 * at the next allocation too large for its per-thread cache: after a million
 * small frees, that allocation (any client's) would pay for the million. A
 * caller that frees many small blocks in steps (keyspace/lazyfree.c) calls this
 * after each step, so each merge covers one step's blocks. */
void mem_merge_freed(void);
/* Resident set size of the process in bytes, from /proc (0 if unknown). */
size_t mem_rss(void);

#endif
