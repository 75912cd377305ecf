/* pubsub.c -- subscriptions and delivery (see pubsub.h). */
#include "cmd/pubsub.h"

#include <string.h>

#include "cmd/commands.h"
#include "core/ht.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"

/* A name with subscribers: a channel, a pattern or a shard channel. */
typedef struct ps_name {
    ht_node node;
    client **subs; /* subscribers, oldest first */
    int nsubs, cap;
    size_t len; /* bytes of name */
    char name[];
} ps_name;

/* One subscription of one client, in the client's own table. */
typedef struct ps_sub {
    ht_node node;               /* keyed by the name (in n->name) */
    struct ps_sub *prev, *next; /* the client's subscriptions of this kind, oldest first */
    ps_name *n;
} ps_sub;

typedef struct ps_client {
    ht tab[3];
    ps_sub *head[3], *tail[3];
} ps_client;

static ht tabs[3];
static int tabs_ready;
static char *scratch;      /* the encoded message of the current delivery */
static size_t scratch_cap; /* bytes */

static const char *const sub_word[3] = {"subscribe", "psubscribe", "ssubscribe"};
static const char *const unsub_word[3] = {"unsubscribe", "punsubscribe", "sunsubscribe"};

static const char *name_keyof(const ht_node *n)
{
    return ((const ps_name *)n)->name;
}

static const char *sub_keyof(const ht_node *n)
{
    return ((const ps_sub *)n)->n->name;
}

static ht *global(int kind)
{
    if (!tabs_ready) {
        int i;
        for (i = 0; i < 3; i++)
            ht_init(&tabs[i], name_keyof, 0x9b5c1e7 + (uint64_t)i);
        tabs_ready = 1;
    }
    return &tabs[kind];
}

static uint32_t hash_of(const ht *t, const char *p, size_t len)
{
    return (uint32_t)ht_hash(p, len, t->seed);
}

static ps_name *name_find(int kind, const char *p, size_t len)
{
    ht *t = global(kind);
    return (ps_name *)ht_find(t, p, (uint32_t)len, hash_of(t, p, len));
}

/* c's subscriptions to channels and patterns (Redis counts them together),
 * or to shard channels. */
static long long count_of(const client *c, int kind)
{
    return kind == PS_SHARD ? c->nssub : (long long)c->nsub + c->npsub;
}

static int *counter(client *c, int kind)
{
    return kind == PS_CHANNEL ? &c->nsub : kind == PS_PATTERN ? &c->npsub : &c->nssub;
}

static void update_flag(client *c)
{
    if (c->nsub + c->npsub + c->nssub > 0)
        c->flags |= CLIENT_PUBSUB;
    else
        c->flags &= ~CLIENT_PUBSUB;
}

static void reply_confirm(client *c, const char *word, const char *name, size_t len, long long count)
{
    reply_push(c, 3);
    reply_bulk_cstr(c, word);
    if (name)
        reply_bulk(c, name, len);
    else
        reply_null(c);
    reply_int(c, count);
}

static ps_sub *sub_find(client *c, int kind, const char *p, size_t len)
{
    ht *t;
    if (!c->ps)
        return NULL;
    t = &c->ps->tab[kind];
    return (ps_sub *)ht_find(t, p, (uint32_t)len, hash_of(t, p, len));
}

void ps_subscribe(client *c, int kind, const char *name, size_t len)
{
    ps_name *n;
    ps_sub *s;
    ps_client *pc;

    if (!sub_find(c, kind, name, len)) {
        if (!c->ps) {
            int i;
            c->ps = xcalloc(1, sizeof(ps_client));
            for (i = 0; i < 3; i++)
                ht_init(&c->ps->tab[i], sub_keyof, 0x51b5 + (uint64_t)i);
        }
        pc = c->ps;
        n = name_find(kind, name, len);
        if (!n) {
            ht *t = global(kind);
            n = xmalloc(sizeof(ps_name) + len + 1);
            memset(n, 0, sizeof(*n));
            memcpy(n->name, name, len);
            n->name[len] = '\0';
            n->len = len;
            n->node.klen = (uint32_t)len;
            n->node.hash = hash_of(t, name, len);
            ht_insert(t, &n->node);
        }
        if (n->nsubs == n->cap) {
            n->cap = n->cap ? n->cap * 2 : 4;
            n->subs = xrealloc(n->subs, sizeof(client *) * (size_t)n->cap);
        }
        n->subs[n->nsubs++] = c;
        s = xmalloc(sizeof(*s));
        s->n = n;
        s->node.klen = (uint32_t)len;
        s->node.hash = hash_of(&pc->tab[kind], name, len);
        s->next = NULL;
        s->prev = pc->tail[kind];
        if (pc->tail[kind])
            pc->tail[kind]->next = s;
        else
            pc->head[kind] = s;
        pc->tail[kind] = s;
        ht_insert(&pc->tab[kind], &s->node);
        (*counter(c, kind))++;
        update_flag(c);
    }
    reply_confirm(c, sub_word[kind], name, len, count_of(c, kind));
}

/* Remove subscription s of c (of kind); frees s and, if it had no other
 * subscriber, its name. */
static void sub_drop(client *c, int kind, ps_sub *s)
{
    ps_client *pc = c->ps;
    ps_name *n = s->n;
    int i;

    ht_remove(&pc->tab[kind], n->name, (uint32_t)n->len, s->node.hash);
    if (s->prev)
        s->prev->next = s->next;
    else
        pc->head[kind] = s->next;
    if (s->next)
        s->next->prev = s->prev;
    else
        pc->tail[kind] = s->prev;
    xfree(s);
    for (i = 0; i < n->nsubs; i++)
        if (n->subs[i] == c) {
            memmove(&n->subs[i], &n->subs[i + 1], sizeof(client *) * (size_t)(n->nsubs - i - 1));
            n->nsubs--;
            break;
        }
    if (n->nsubs == 0) {
        ht_remove(global(kind), n->name, (uint32_t)n->len, n->node.hash);
        xfree(n->subs);
        xfree(n);
    }
    (*counter(c, kind))--;
    update_flag(c);
}

void ps_unsubscribe(client *c, int kind, const char *name, size_t len)
{
    ps_sub *s = sub_find(c, kind, name, len);
    if (s)
        sub_drop(c, kind, s);
    reply_confirm(c, unsub_word[kind], name, len, count_of(c, kind));
}

void ps_unsubscribe_all(client *c, int kind, int notify)
{
    int any = 0;

    while (c->ps && c->ps->head[kind]) {
        ps_sub *s = c->ps->head[kind];
        ps_name *n = s->n;
        any = 1;
        if (notify) {
            /* The name goes with the subscription: reply from a copy. */
            char small[256];
            size_t len = n->len;
            char *copy = len < sizeof(small) ? small : xmalloc(len);
            memcpy(copy, n->name, len);
            sub_drop(c, kind, s);
            reply_confirm(c, unsub_word[kind], copy, len, count_of(c, kind));
            if (copy != small)
                xfree(copy);
        } else {
            sub_drop(c, kind, s);
        }
    }
    if (notify && !any)
        reply_confirm(c, unsub_word[kind], NULL, 0, count_of(c, kind));
}

void ps_client_release(client *c)
{
    int k;
    if (!c->ps)
        return;
    for (k = 0; k < 3; k++) {
        ps_unsubscribe_all(c, k, 0);
        ht_release(&c->ps->tab[k]);
    }
    xfree(c->ps);
    c->ps = NULL;
}

int ps_client_any(const client *c, int kind, int (*fn)(void *ctx, const char *name, size_t len), void *ctx)
{
    const ps_sub *s;

    if (!c->ps)
        return 0;
    for (s = c->ps->head[kind]; s; s = s->next)
        if (fn(ctx, s->n->name, s->n->len))
            return 1;
    return 0;
}

/* ---- delivery ---- */

static char *scratch_room(size_t n)
{
    if (n > scratch_cap) {
        scratch_cap = n < 4096 ? 4096 : n;
        scratch = xrealloc(scratch, scratch_cap);
    }
    return scratch;
}

static size_t put_bulk(char *p, const char *s, size_t n)
{
    size_t k = 0;
    p[k++] = '$';
    k += ll_to_str(p + k, (long long)n);
    p[k++] = '\r';
    p[k++] = '\n';
    memcpy(p + k, s, n);
    k += n;
    p[k++] = '\r';
    p[k++] = '\n';
    return k;
}

/* Encode [word, (pattern,) channel, msg] as a RESP2 array into the scratch
 * buffer; a RESP3 receiver gets it with '>' for '*'. Returns its length. */
static size_t encode(const char *word, const char *pat, size_t plen, const char *chan, size_t clen, const char *msg,
                     size_t mlen)
{
    size_t wlen = strlen(word), k = 0;
    char *p = scratch_room(4 + 3 * 24 + wlen + plen + clen + mlen + 16);

    p[k++] = '*';
    p[k++] = pat ? '4' : '3';
    p[k++] = '\r';
    p[k++] = '\n';
    k += put_bulk(p + k, word, wlen);
    if (pat)
        k += put_bulk(p + k, pat, plen);
    k += put_bulk(p + k, chan, clen);
    k += put_bulk(p + k, msg, mlen);
    return k;
}

/* A message of SHARE_MIN bytes or more, for several receivers, is kept once
 * (net/reply.h's shared buffers: one copy per protocol, each receiver's output
 * references it); a smaller one is copied into each output, which costs less
 * than a block per receiver. */
#define SHARE_MIN (16 * 1024)

typedef struct delivery {
    const char *buf;  /* the RESP2 encoding (scratch) */
    size_t len;       /* bytes */
    int share;        /* use shared buffers */
    oshared *s2, *s3; /* the RESP2 and RESP3 copies, made on first use */
} delivery;

static void deliver(delivery *d, client *c)
{
    if (!d->share) {
        if (c->resp >= 3) {
            reply_raw(c, ">", 1);
            reply_raw(c, d->buf + 1, d->len - 1);
        } else {
            reply_raw(c, d->buf, d->len);
        }
        return;
    }
    if (c->resp >= 3) {
        if (!d->s3) {
            d->s3 = reply_shared_new(d->buf, d->len);
            d->s3->data[0] = '>';
        }
        reply_shared(c, d->s3);
    } else {
        if (!d->s2)
            d->s2 = reply_shared_new(d->buf, d->len);
        reply_shared(c, d->s2);
    }
}

static void delivery_start(delivery *d, size_t len, int receivers)
{
    d->buf = scratch;
    d->len = len;
    d->share = len >= SHARE_MIN && receivers > 1;
    d->s2 = d->s3 = NULL;
}

static void delivery_end(delivery *d)
{
    reply_shared_release(d->s2);
    reply_shared_release(d->s3);
}

typedef struct pat_ctx {
    const char *chan;
    size_t clen;
    ps_name **hits; /* matching patterns, collected before delivery */
    int nhits, cap;
} pat_ctx;

static int collect_pattern(void *ctx, ht_node *node)
{
    pat_ctx *x = ctx;
    ps_name *n = (ps_name *)node;
    if (glob_match(n->name, n->len, x->chan, x->clen, 0)) {
        if (x->nhits == x->cap) {
            x->cap = x->cap ? x->cap * 2 : 8;
            x->hits = xrealloc(x->hits, sizeof(ps_name *) * (size_t)x->cap);
        }
        x->hits[x->nhits++] = n;
    }
    return 0;
}

long long ps_publish(int kind, const char *chan, size_t clen, const char *msg, size_t mlen)
{
    long long receivers = 0;
    ps_name *n = name_find(kind, chan, clen);
    int i, j;

    if (n) {
        delivery d;
        delivery_start(&d, encode(kind == PS_SHARD ? "smessage" : "message", NULL, 0, chan, clen, msg, mlen), n->nsubs);
        for (i = 0; i < n->nsubs; i++)
            deliver(&d, n->subs[i]);
        delivery_end(&d);
        receivers += n->nsubs;
    }
    if (kind == PS_CHANNEL && ht_count(global(PS_PATTERN)) > 0) {
        pat_ctx x;
        memset(&x, 0, sizeof(x));
        x.chan = chan;
        x.clen = clen;
        ht_foreach(global(PS_PATTERN), collect_pattern, &x);
        for (i = 0; i < x.nhits; i++) {
            ps_name *p = x.hits[i];
            delivery d;
            delivery_start(&d, encode("pmessage", p->name, p->len, chan, clen, msg, mlen), p->nsubs);
            for (j = 0; j < p->nsubs; j++)
                deliver(&d, p->subs[j]);
            delivery_end(&d);
            receivers += p->nsubs;
        }
        xfree(x.hits);
    }
    return receivers;
}

int ps_allowed_in_context(const client *c, const cmd_def *cmd)
{
    static const char *const allowed[] = {"ping",       "subscribe",    "ssubscribe", "unsubscribe", "sunsubscribe",
                                          "psubscribe", "punsubscribe", "quit",       "reset",       NULL};
    int i;

    if (!(c->flags & CLIENT_PUBSUB) || c->resp >= 3)
        return 1;
    if (cmd_parent(cmd))
        return 0;
    for (i = 0; allowed[i]; i++)
        if (strcmp(cmd->name, allowed[i]) == 0)
            return 1;
    return 0;
}

/* ---- introspection ---- */

long long ps_count(int kind)
{
    return (long long)ht_count(global(kind));
}

long long ps_subscribers(int kind, const char *name, size_t len)
{
    ps_name *n = name_find(kind, name, len);
    return n ? n->nsubs : 0;
}

typedef struct each_ctx {
    void (*fn)(void *ctx, const char *name, size_t len);
    void *ctx;
} each_ctx;

static int each_name(void *ctx, ht_node *node)
{
    each_ctx *x = ctx;
    ps_name *n = (ps_name *)node;
    x->fn(x->ctx, n->name, n->len);
    return 0;
}

void ps_foreach(int kind, void (*fn)(void *ctx, const char *name, size_t len), void *ctx)
{
    each_ctx x = {fn, ctx};
    ht_foreach(global(kind), each_name, &x);
}

int ps_any_listener(void)
{
    return ht_count(global(PS_CHANNEL)) + ht_count(global(PS_PATTERN)) > 0;
}
