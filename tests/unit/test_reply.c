/* test_reply.c -- the reply encoder's pool of standard blocks (net/reply.c).
 *
 * Replies are built into a client that is never connected (a zeroed client
 * struct, so no output limit applies), then dropped with reply_discard, which
 * gives their blocks back as a write does. used_memory is mem_used(): pooled
 * blocks stay counted until reply_pool_cron frees them. */
#include "core/mem.h"
#include "net/client.h"
#include "net/reply.h"
#include "server.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static char value[4096];

static client *new_client(void)
{
    client *c = xcalloc(1, sizeof(client));
    c->fd = -1;
    return c;
}

static void free_client(client *c)
{
    reply_discard(c);
    srv.pending_writes = NULL; /* reply marks c pending; nothing is written here */
    xfree(c);
}

/* Append n GET-like replies of a 4 KB value to c. */
static void replies(client *c, int n)
{
    int i;
    for (i = 0; i < n; i++)
        reply_bulk(c, value, sizeof(value));
}

static size_t blocks_of(const client *c)
{
    size_t n = 0;
    const oblock *b;
    for (b = c->ohead; b; b = b->next)
        n++;
    return n;
}

static void empty_pool(void)
{
    reply_pool_cron();
    reply_pool_cron();
}

static void test_written_blocks_are_reused(void)
{
    client *c = new_client();
    size_t used, nb;

    empty_pool();
    replies(c, 16);
    nb = blocks_of(c);
    CHECK(nb >= 4);
    used = mem_used();
    reply_discard(c);
    CHECK(reply_pool_blocks() == nb);
    CHECK(mem_used() == used); /* still allocated, still counted */
    replies(c, 16);
    CHECK(reply_pool_blocks() == 0);
    CHECK(mem_used() == used); /* the same blocks again, nothing allocated */
    free_client(c);
    empty_pool();
}

static void test_pool_is_bounded(void)
{
    client *c = new_client();
    size_t before, nb;

    empty_pool();
    before = mem_used();
    replies(c, 1200); /* ~400 blocks of 16 KB */
    nb = blocks_of(c);
    CHECK(nb > 256);
    reply_discard(c);
    CHECK(reply_pool_blocks() == 256);
    CHECK(mem_used() > before);
    CHECK(mem_used() - before < 256 * (16 * 1024 + 256) + 64 * 1024);
    free_client(c);
    empty_pool();
}

static void test_cron_frees_idle_blocks(void)
{
    client *c = new_client();
    size_t before;

    empty_pool();
    before = mem_used();
    replies(c, 16);
    reply_discard(c);
    CHECK(reply_pool_blocks() > 0);
    reply_pool_cron(); /* they were drawn from the heap during this period: kept */
    CHECK(reply_pool_blocks() > 0);
    replies(c, 3 * 4); /* draws some of them: the rest stayed idle all period */
    reply_discard(c);
    reply_pool_cron();
    CHECK(reply_pool_blocks() > 0);
    reply_pool_cron(); /* nothing drew from the pool for a whole period */
    CHECK(reply_pool_blocks() == 0);
    CHECK(mem_used() == before);
    free_client(c);
}

static void test_odd_sizes_bypass_the_pool(void)
{
    client *c = new_client();
    static char big[100000];

    empty_pool();
    reply_bulk(c, big, sizeof(big)); /* a block of its own size */
    reply_discard(c);
    CHECK(reply_pool_blocks() == 0);
    free_client(c);
}

int main(void)
{
    memset(value, 'x', sizeof(value));
    RUN(test_written_blocks_are_reused,
        "written standard blocks wait in the pool, counted in used_memory, and the next replies reuse them");
    RUN(test_pool_is_bounded, "the pool keeps at most 256 blocks and frees the others");
    RUN(test_cron_frees_idle_blocks,
        "reply_pool_cron frees the blocks that no reply drew during a whole period, back to the memory before");
    RUN(test_odd_sizes_bypass_the_pool, "a block of another size is freed, not pooled");
    return TEST_DONE();
}
