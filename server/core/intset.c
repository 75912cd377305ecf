/* intset.c -- the sorted integer array (see intset.h). */
#include "intset.h"

#include <string.h>

#include "mem.h"

static uint32_t width_of(int64_t v)
{
    if (v >= INT16_MIN && v <= INT16_MAX)
        return 2;
    if (v >= INT32_MIN && v <= INT32_MAX)
        return 4;
    return 8;
}

static int64_t get_w(const char *data, uint32_t width, uint32_t i)
{
    int16_t a;
    int32_t b;
    int64_t c;

    if (width == 2) {
        memcpy(&a, data + (size_t)i * 2, 2);
        return a;
    }
    if (width == 4) {
        memcpy(&b, data + (size_t)i * 4, 4);
        return b;
    }
    memcpy(&c, data + (size_t)i * 8, 8);
    return c;
}

static void set_w(char *data, uint32_t width, uint32_t i, int64_t v)
{
    int16_t a = (int16_t)v;
    int32_t b = (int32_t)v;

    if (width == 2)
        memcpy(data + (size_t)i * 2, &a, 2);
    else if (width == 4)
        memcpy(data + (size_t)i * 4, &b, 4);
    else
        memcpy(data + (size_t)i * 8, &v, 8);
}

intset *is_new(void)
{
    intset *s = xmalloc(sizeof(intset));
    s->width = 2;
    s->count = 0;
    return s;
}

void is_free(intset *s)
{
    xfree(s);
}

intset *is_dup(const intset *s)
{
    size_t n = sizeof(intset) + (size_t)s->count * s->width;
    intset *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}

int64_t is_get(const intset *s, uint32_t i)
{
    return get_w(s->data, s->width, i);
}

int is_find(const intset *s, int64_t v, uint32_t *pos)
{
    uint32_t lo = 0, hi = s->count;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int64_t m = get_w(s->data, s->width, mid);
        if (m == v) {
            if (pos)
                *pos = mid;
            return 1;
        }
        if (m < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (pos)
        *pos = lo;
    return 0;
}

/* Re-encode s in width w (> s->width) with room for one more member. A value
 * that needs a wider encoding is below or above every member, so the caller
 * then puts it first or last. */
static intset *upgrade(intset *s, uint32_t w)
{
    intset *d = xmalloc(sizeof(intset) + ((size_t)s->count + 1) * w);
    uint32_t i;

    d->width = w;
    d->count = s->count;
    for (i = 0; i < s->count; i++)
        set_w(d->data, w, i, get_w(s->data, s->width, i));
    xfree(s);
    return d;
}

int is_add(intset **sp, int64_t v)
{
    intset *s = *sp;
    uint32_t w = width_of(v), pos;

    if (w > s->width) {
        /* Out of the current range: below every member if negative, above if not. */
        s = upgrade(s, w);
        pos = v < 0 ? 0 : s->count;
    } else {
        if (is_find(s, v, &pos))
            return 0;
        s = xrealloc(s, sizeof(intset) + ((size_t)s->count + 1) * s->width);
    }
    memmove(s->data + ((size_t)pos + 1) * s->width, s->data + (size_t)pos * s->width,
            ((size_t)s->count - pos) * s->width);
    set_w(s->data, s->width, pos, v);
    s->count++;
    *sp = s;
    return 1;
}

void is_remove_at(intset **sp, uint32_t i)
{
    intset *s = *sp;

    memmove(s->data + (size_t)i * s->width, s->data + ((size_t)i + 1) * s->width,
            ((size_t)s->count - i - 1) * s->width);
    s->count--;
    *sp = xrealloc(s, sizeof(intset) + (size_t)s->count * s->width);
}

int is_remove(intset **sp, int64_t v)
{
    uint32_t pos;

    if (width_of(v) > (*sp)->width || !is_find(*sp, v, &pos))
        return 0;
    is_remove_at(sp, pos);
    return 1;
}

size_t is_bytes(const intset *s)
{
    return xmalloc_size(s);
}
