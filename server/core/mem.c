/* mem.c -- accounting wrappers around malloc (see mem.h).
 *
 * glibc's malloc_usable_size gives the size each block really occupies, so the
 * counter tracks what the allocator hands out, not what callers asked for. */
#include "mem.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t mem_counter;         /* the loop's thread: plain updates */
static size_t mem_counter_threads; /* other threads' net bytes: atomic updates */
static __thread int mem_other;     /* 1 in a thread that called mem_thread_register */

static inline void mem_add(size_t n)
{
    if (__builtin_expect(mem_other, 0))
        __atomic_add_fetch(&mem_counter_threads, n, __ATOMIC_RELAXED);
    else
        mem_counter += n;
}

static inline void mem_sub(size_t n)
{
    if (__builtin_expect(mem_other, 0))
        __atomic_sub_fetch(&mem_counter_threads, n, __ATOMIC_RELAXED);
    else
        mem_counter -= n;
}

void mem_thread_register(void)
{
    mem_other = 1;
}

static void mem_oom(size_t n)
{
    fprintf(stderr, "scratchpad: out of memory allocating %zu bytes\n", n);
    fflush(stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        mem_oom(n);
    mem_add(malloc_usable_size(p));
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        mem_oom(count * size);
    mem_add(malloc_usable_size(p));
    return p;
}

void *xrealloc(void *p, size_t n)
{
    size_t old = p ? malloc_usable_size(p) : 0;
    void *q = realloc(p, n ? n : 1);
    if (!q)
        mem_oom(n);
    mem_sub(old);
    mem_add(malloc_usable_size(q));
    return q;
}

void xfree(void *p)
{
    if (!p)
        return;
    mem_sub(malloc_usable_size(p));
    free(p);
}

void *xmalloc_aligned(size_t align, size_t n)
{
    void *p = NULL;

    if (posix_memalign(&p, align, n ? n : 1) != 0 || !p)
        mem_oom(n);
    mem_add(malloc_usable_size(p));
    return p;
}

char *xstrndup(const char *p, size_t n)
{
    char *s = xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

size_t xmalloc_size(const void *p)
{
    return p ? malloc_usable_size((void *)p) : 0;
}

size_t mem_used(void)
{
    return mem_counter + __atomic_load_n(&mem_counter_threads, __ATOMIC_RELAXED);
}

void mem_merge_freed(void)
{
    /* Above the per-thread cache's largest size (1032 bytes) and below the
     * mmap threshold: served by the main heap, which merges its fastbins
     * first. Not counted: it is released at once. */
    void *volatile p = malloc(4096); /* volatile: the pair must not be optimised away */
    free(p);
}

size_t mem_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size, resident;
    size_t rss = 0;

    if (!f)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &resident) == 2)
        rss = (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
    fclose(f);
    return rss;
}
