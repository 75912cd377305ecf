/* lazyfree.c -- the queue of values being freed in steps (see lazyfree.h).
 *
 * A ring of (type, value, encoding, cursor); the head is worked on until its
 * type's free_some says it is done. The cursor is the type's resumption point
 * (a bucket index for hash tables; lists and skiplists resume at their head). */
#include "keyspace/lazyfree.h"

#include "keyspace/type.h"

#include "core/mem.h"
#include "core/util.h"

#define LAZYFREE_BATCH 256 /* elements per free_some call: ~10-50 us */

typedef struct lf_item {
    const type_def *t;
    void *v;
    uint64_t cursor;
    uint8_t enc;
} lf_item;

static lf_item *ring;
static size_t ring_cap, ring_head, ring_len;
static unsigned long long freed_total;

void lazyfree_push(const type_def *t, void *v, uint8_t enc)
{
    lf_item *it;

    if (ring_len == ring_cap) {
        size_t ncap = ring_cap ? ring_cap * 2 : 16, i;
        lf_item *n = xmalloc(ncap * sizeof(*n));
        for (i = 0; i < ring_len; i++)
            n[i] = ring[(ring_head + i) % ring_cap];
        xfree(ring);
        ring = n;
        ring_cap = ncap;
        ring_head = 0;
    }
    it = &ring[(ring_head + ring_len) % ring_cap];
    it->t = t;
    it->v = v;
    it->cursor = 0;
    it->enc = enc;
    ring_len++;
}

/* One batch of the head value: 1 if it is now wholly freed (and dequeued). */
static int work_head(size_t batch)
{
    lf_item *it = &ring[ring_head];
    int done = it->t->free_some(it->v, it->enc, &it->cursor, batch);

    mem_merge_freed(); /* the batch's blocks, now, rather than all at a client's next allocation */
    if (!done)
        return 0;
    ring_head = (ring_head + 1) % ring_cap;
    freed_total++;
    if (--ring_len == 0) {
        xfree(ring); /* an idle server keeps no ring */
        ring = NULL;
        ring_cap = ring_head = 0;
    }
    return 1;
}

size_t lazyfree_step(int64_t budget_us)
{
    int64_t start;

    if (ring_len == 0)
        return 0;
    start = mono_us();
    do
        work_head(LAZYFREE_BATCH);
    while (ring_len > 0 && mono_us() - start < budget_us);
    return ring_len;
}

size_t lazyfree_pending(void)
{
    return ring_len;
}

unsigned long long lazyfree_freed(void)
{
    return freed_total;
}

void lazyfree_drain(void)
{
    while (ring_len > 0)
        work_head((size_t)-1);
}
