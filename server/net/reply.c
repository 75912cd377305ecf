/* reply.c -- reply encoding into the per-client output buffer (see reply.h).
 *
 * Layout: a 16 KB static buffer inside the client, then a singly linked list of
 * blocks. Once a block exists everything goes to blocks, so order is kept. A
 * deferred length is a small placeholder block whose capacity is hidden (cap 0)
 * until it is filled.
 *
 * Blocks of the standard size (BLOCK_MIN) are recycled through a pool instead
 * of going back to malloc once written: with pipelined replies of a few KB
 * (GET -P 16 of 4 KB values: 5 blocks per batch and client), allocating and
 * freeing them made glibc grow and trim the top of its heap over and over (a
 * brk and some 0.1 page faults per request, against none for Redis with
 * jemalloc). The pool holds at most POOL_MAX blocks; they stay allocated, so
 * used_memory counts them, and reply_pool_cron frees those that no reply
 * needed during a whole cron period. */
#include "net/reply.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "net/net.h"
#include "core/util.h"

#define BLOCK_MIN (16 * 1024)
#define DEFER_ROOM 32
#define POOL_MAX 256 /* blocks of BLOCK_MIN kept for reuse: 4 MB at most */

static oblock *pool;    /* free standard blocks, linked by next */
static size_t pool_len; /* blocks in pool */
static size_t pool_low; /* the fewest blocks pool held since the last reply_pool_cron */

static int dropped(const client *c)
{
    return (c->flags & (CLIENT_CLOSE_ASAP | CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) != 0 ||
           (c->flags & (CLIENT_FAKE | CLIENT_SCRIPT)) == CLIENT_FAKE;
}

size_t reply_pending(const client *c)
{
    return (c->olen - c->osent) + c->olist_bytes;
}

void reply_check_limits(client *c)
{
    size_t pending = reply_pending(c);
    int pubsub = (c->flags & CLIENT_PUBSUB) != 0;
    long long hard = pubsub ? srv.cfg.obuf_pubsub_hard : srv.cfg.obuf_hard;
    long long soft = pubsub ? srv.cfg.obuf_pubsub_soft : srv.cfg.obuf_soft;
    int soft_seconds = pubsub ? srv.cfg.obuf_pubsub_soft_seconds : srv.cfg.obuf_soft_seconds;

    if (c->flags & (CLIENT_CLOSE_ASAP | CLIENT_FAKE))
        return;
    if (hard > 0 && pending > (size_t)hard) {
        srv.stat_obuf_disconnects++;
        log_client_limit(c, "hard", pending);
        client_close_async(c);
        return;
    }
    if (soft > 0 && pending > (size_t)soft) {
        int64_t now = now_ms();
        if (!c->soft_limit_since)
            c->soft_limit_since = now;
        else if (now - c->soft_limit_since > (int64_t)soft_seconds * 1000) {
            srv.stat_obuf_disconnects++;
            log_client_limit(c, "soft", pending);
            client_close_async(c);
        }
    } else {
        c->soft_limit_since = 0;
    }
}

static oblock *block_new(client *c, size_t cap)
{
    oblock *b;

    if (cap == BLOCK_MIN && pool) {
        b = pool;
        pool = b->next;
        if (--pool_len < pool_low)
            pool_low = pool_len;
        b->cap = BLOCK_MIN; /* it has at least that (oblock_free) */
    } else {
        b = xmalloc(sizeof(oblock) + cap);
        b->cap = xmalloc_size(b) - sizeof(oblock);
    }
    b->next = NULL;
    b->shared = NULL;
    b->len = 0;
    if (c->otail)
        c->otail->next = b;
    else
        c->ohead = b;
    c->otail = b;
    return b;
}

/* Return room for n contiguous bytes at the end of the output (and count them). */
static char *out_room(client *c, size_t n)
{
    char *p;

    net_mark_pending(c);
    if (!c->ohead && c->olen + n <= CLIENT_STATIC_OBUF) {
        p = c->obuf + c->olen;
        c->olen += n;
        return p;
    }
    if (!c->otail || c->otail->cap - c->otail->len < n)
        block_new(c, n > BLOCK_MIN ? n : BLOCK_MIN);
    p = c->otail->buf + c->otail->len;
    c->otail->len += n;
    c->olist_bytes += n;
    return p;
}

void reply_raw(client *c, const char *p, size_t n)
{
    if (dropped(c))
        return;
    net_mark_pending(c);
    if (!c->ohead) {
        size_t room = CLIENT_STATIC_OBUF - c->olen;
        if (n <= room) {
            memcpy(c->obuf + c->olen, p, n);
            c->olen += n;
            return;
        }
    }
    while (n > 0) {
        oblock *t = c->otail;
        size_t room = t ? t->cap - t->len : 0, k;
        if (room == 0) {
            t = block_new(c, n > BLOCK_MIN ? (n < 1024 * 1024 ? n : 1024 * 1024) : BLOCK_MIN);
            room = t->cap;
        }
        k = n < room ? n : room;
        memcpy(t->buf + t->len, p, k);
        t->len += k;
        c->olist_bytes += k;
        p += k;
        n -= k;
    }
    reply_check_limits(c);
}

static void reply_hdr(client *c, char type, long long n)
{
    char buf[32];
    size_t len;
    buf[0] = type;
    len = 1 + ll_to_str(buf + 1, n);
    buf[len++] = '\r';
    buf[len++] = '\n';
    reply_raw(c, buf, len);
}

void reply_ok(client *c)
{
    reply_raw(c, "+OK\r\n", 5);
}

void reply_status(client *c, const char *s)
{
    size_t n = strlen(s);
    char *p;
    if (dropped(c))
        return;
    p = out_room(c, n + 3);
    p[0] = '+';
    memcpy(p + 1, s, n);
    p[n + 1] = '\r';
    p[n + 2] = '\n';
}

static void error_out(client *c, const char *msg, int count)
{
    size_t n = strlen(msg), i;
    char *p;

    if (count)
        net_up.note_error(c, msg);
    if (dropped(c))
        return;
    p = out_room(c, n + 3);
    p[0] = '-';
    for (i = 0; i < n; i++)
        p[i + 1] = (msg[i] == '\r' || msg[i] == '\n') ? ' ' : msg[i];
    p[n + 1] = '\r';
    p[n + 2] = '\n';
}

void reply_error(client *c, const char *msg)
{
    error_out(c, msg, 1);
}

void reply_error_uncounted(client *c, const char *msg)
{
    error_out(c, msg, 0);
}

void reply_errorf(client *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    reply_error(c, buf);
}

void reply_int(client *c, long long v)
{
    if (v == 0) {
        reply_raw(c, ":0\r\n", 4);
        return;
    }
    if (v == 1) {
        reply_raw(c, ":1\r\n", 4);
        return;
    }
    reply_hdr(c, ':', v);
}

void reply_bulk(client *c, const char *p, size_t n)
{
    char *dst = reply_bulk_reserve(c, n);
    if (dst)
        memcpy(dst, p, n);
}

char *reply_bulk_reserve(client *c, size_t n)
{
    char hdr[32];
    size_t hl;
    char *p;

    if (dropped(c))
        return NULL;
    hdr[0] = '$';
    hl = 1 + ll_to_str(hdr + 1, (long long)n);
    hdr[hl++] = '\r';
    hdr[hl++] = '\n';
    if (n + hl + 2 <= 4096 || (!c->ohead && c->olen + n + hl + 2 <= CLIENT_STATIC_OBUF)) {
        p = out_room(c, hl + n + 2);
        memcpy(p, hdr, hl);
        p[hl + n] = '\r';
        p[hl + n + 1] = '\n';
        if (c->ohead)
            reply_check_limits(c);
        return p + hl;
    }
    reply_raw(c, hdr, hl);
    if (dropped(c))
        return NULL;
    p = out_room(c, n + 2);
    p[n] = '\r';
    p[n + 1] = '\n';
    reply_check_limits(c);
    return dropped(c) ? NULL : p;
}

void reply_tell(const client *c, reply_place *pos)
{
    pos->olen = c->olen;
    pos->olist_bytes = c->olist_bytes;
    pos->tail = c->otail;
    pos->tail_len = c->otail ? c->otail->len : 0;
}

void reply_rollback(client *c, const reply_place *pos)
{
    oblock *b;

    if (dropped(c))
        return;
    b = pos->tail ? pos->tail->next : c->ohead;
    while (b) {
        oblock *next = b->next;
        oblock_free(b);
        b = next;
    }
    if (pos->tail) {
        pos->tail->next = NULL;
        pos->tail->len = pos->tail_len;
    } else {
        c->ohead = NULL;
    }
    c->otail = pos->tail;
    c->olen = pos->olen;
    c->olist_bytes = pos->olist_bytes;
}

void reply_bulk_cstr(client *c, const char *s)
{
    reply_bulk(c, s, strlen(s));
}

void reply_bulk_ll(client *c, long long v)
{
    char buf[24];
    size_t n = ll_to_str(buf, v);
    reply_bulk(c, buf, n);
}

void reply_bulk_fmt(client *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    reply_bulk(c, buf, n < 0 ? 0 : (size_t)(n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1));
}

void reply_null(client *c)
{
    if (c->resp >= 3)
        reply_raw(c, "_\r\n", 3);
    else
        reply_raw(c, "$-1\r\n", 5);
}

void reply_null_array(client *c)
{
    if (c->resp >= 3)
        reply_raw(c, "_\r\n", 3);
    else
        reply_raw(c, "*-1\r\n", 5);
}

void reply_array(client *c, long n)
{
    reply_hdr(c, '*', n);
}

void reply_map(client *c, long n)
{
    if (c->resp >= 3)
        reply_hdr(c, '%', n);
    else
        reply_hdr(c, '*', 2 * n);
}

void reply_set(client *c, long n)
{
    reply_hdr(c, c->resp >= 3 ? '~' : '*', n);
}

void reply_push(client *c, long n)
{
    reply_hdr(c, c->resp >= 3 ? '>' : '*', n);
}

void reply_double(client *c, double d)
{
    char buf[64];
    size_t n = d_to_str(buf, sizeof(buf), d);
    if (c->resp >= 3) {
        char out[80];
        out[0] = ',';
        memcpy(out + 1, buf, n);
        out[n + 1] = '\r';
        out[n + 2] = '\n';
        reply_raw(c, out, n + 3);
    } else {
        reply_bulk(c, buf, n);
    }
}

void reply_bool(client *c, int b)
{
    if (c->resp >= 3)
        reply_raw(c, b ? "#t\r\n" : "#f\r\n", 4);
    else
        reply_int(c, b ? 1 : 0);
}

void reply_verbatim(client *c, const char *p, size_t n)
{
    if (c->resp >= 3) {
        reply_hdr(c, '=', (long long)n + 4);
        reply_raw(c, "txt:", 4);
        reply_raw(c, p, n);
        reply_raw(c, "\r\n", 2);
    } else {
        reply_bulk(c, p, n);
    }
}

void *reply_defer(client *c)
{
    oblock *b;
    if (dropped(c))
        return NULL;
    net_mark_pending(c);
    b = block_new(c, DEFER_ROOM);
    b->cap = 0; /* hidden until filled, so later replies go to a new block */
    return b;
}

static void defer_fill(client *c, void *slot, char type, long long n)
{
    oblock *b = slot;
    size_t len;
    if (!b || dropped(c))
        return;
    b->buf[0] = type;
    len = 1 + ll_to_str(b->buf + 1, n);
    b->buf[len++] = '\r';
    b->buf[len++] = '\n';
    b->len = len;
    b->cap = len;
    c->olist_bytes += len;
}

void reply_defer_array(client *c, void *slot, long n)
{
    defer_fill(c, slot, '*', n);
}

void reply_defer_map(client *c, void *slot, long n)
{
    if (c->resp >= 3)
        defer_fill(c, slot, '%', n);
    else
        defer_fill(c, slot, '*', 2 * (long long)n);
}

void reply_defer_set(client *c, void *slot, long n)
{
    defer_fill(c, slot, c->resp >= 3 ? '~' : '*', n);
}

oshared *reply_shared_new(const char *p, size_t n)
{
    oshared *s = xmalloc(sizeof(oshared) + n);
    s->refs = 1;
    s->len = n;
    memcpy(s->data, p, n);
    return s;
}

void reply_shared_release(oshared *s)
{
    if (s && --s->refs == 0)
        xfree(s);
}

void oblock_free(oblock *b)
{
    if (!b)
        return;
    reply_shared_release(b->shared);
    /* A standard block's cap is BLOCK_MIN plus malloc's rounding (which varies
     * with the chunk malloc found: so a range, and a reused block gets
     * BLOCK_MIN); a block of another size whose cap falls in the range has at
     * least BLOCK_MIN bytes too, and may serve as a standard one. */
    if (!b->shared && b->cap >= BLOCK_MIN && b->cap <= BLOCK_MIN + 256 && pool_len < POOL_MAX) {
        b->next = pool;
        pool = b;
        pool_len++;
        return;
    }
    xfree(b);
}

void reply_pool_cron(void)
{
    while (pool_low > 0 && pool) {
        oblock *b = pool;
        pool = b->next;
        xfree(b);
        pool_len--;
        pool_low--;
    }
    pool_low = pool_len;
}

size_t reply_pool_blocks(void)
{
    return pool_len;
}

void reply_shared(client *c, oshared *s)
{
    oblock *b;

    if (dropped(c))
        return;
    net_mark_pending(c);
    b = xmalloc(sizeof(oblock));
    b->next = NULL;
    b->shared = s;
    s->refs++;
    b->len = b->cap = s->len;
    if (c->otail)
        c->otail->next = b;
    else
        c->ohead = b;
    c->otail = b;
    c->olist_bytes += s->len;
    reply_check_limits(c);
}

char *reply_flatten(client *c, size_t *len)
{
    oblock *b;
    size_t need = c->olen + c->olist_bytes;

    *len = need;
    if (!c->ohead)
        return c->obuf;
    /* Gather everything into one block at the head. */
    b = xmalloc(sizeof(oblock) + need);
    b->next = NULL;
    b->shared = NULL;
    b->cap = b->len = need;
    memcpy(b->buf, c->obuf, c->olen);
    need = c->olen;
    while (c->ohead) {
        oblock *n = c->ohead->next;
        memcpy(b->buf + need, oblock_data(c->ohead), c->ohead->len);
        need += c->ohead->len;
        oblock_free(c->ohead);
        c->ohead = n;
    }
    c->ohead = c->otail = b;
    c->olist_bytes = b->len;
    c->olen = 0;
    return b->buf;
}

void reply_discard(client *c)
{
    c->osent_total += c->olen + c->olist_bytes;
    while (c->ohead) {
        oblock *n = c->ohead->next;
        oblock_free(c->ohead);
        c->ohead = n;
    }
    c->otail = NULL;
    c->olist_bytes = 0;
    c->olen = c->osent = 0;
    c->odeferred = 0;
    c->nomarks = 0;
}
