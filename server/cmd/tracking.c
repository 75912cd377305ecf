/* tracking.c -- client-side caching (see tracking.h). */
#include "cmd/tracking.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/ht.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"

#define TRK_OPTIN 1
#define TRK_OPTOUT 2
#define TRK_NOLOOP 4
#define TRK_CACHING 8 /* CLIENT CACHING YES|NO for the next command */

/* A remembered key: the ids of the clients that read it. */
typedef struct trk_key {
    ht_node node;
    uint64_t *ids;
    int n, cap;
    char key[];
} trk_key;

/* A BCAST prefix: its clients and the keys changed under it since the last
 * broadcast. */
typedef struct trk_prefix {
    char *p;
    size_t len;
    client **clients;
    int nclients, ccap;
    ht pending; /* trk_pend nodes */
} trk_prefix;

/* A key changed under a prefix, and who changed it (NULL: several, or an
 * expiry), for NOLOOP. */
typedef struct trk_pend {
    ht_node node;
    client *modifier;
    char key[];
} trk_pend;

typedef struct trk_state {
    int mode;        /* TRK_* */
    char **prefixes; /* BCAST prefixes of this client */
    size_t *plens;
    int nprefixes;
    char **self_keys; /* keys it changed itself, sent after its reply */
    size_t *self_lens;
    int nself, selfcap;
    int self_null; /* a flush during its command: a null invalidation after its reply */
} trk_state;

int tracking_clients;
static ht table;
static int table_ready;
static trk_prefix **prefixes;
static int nprefixes_all;
static long long items; /* (key, client) pairs in the table */

static const char *key_of(const ht_node *n)
{
    return ((const trk_key *)n)->key;
}

static const char *pend_key_of(const ht_node *n)
{
    return ((const trk_pend *)n)->key;
}

static ht *tab(void)
{
    if (!table_ready) {
        ht_init(&table, key_of, 0x7ac0);
        table_ready = 1;
    }
    return &table;
}

static client *client_by_id(uint64_t id)
{
    client *x;
    for (x = srv.clients; x; x = x->next)
        if (x->id == id && !(x->flags & (CLIENT_FAKE | CLIENT_CLOSE_ASAP)))
            return x;
    return NULL;
}

/* ---- sending ---- */

/* The header of an invalidation to c (its redirect target, or itself), then
 * the caller writes the keys. Returns the client written to, or NULL when
 * nothing can be sent (a RESP2 client without a redirect; a redirect to a
 * RESP2 client without subscriptions; a broken redirect). */
static client *invalidation_to(client *c)
{
    client *to = c;

    if (c->trk_redir > 0) {
        to = client_by_id((uint64_t)c->trk_redir);
        if (!to) {
            c->flags |= CLIENT_TRACKING_BROKEN;
            if (c->resp >= 3) {
                reply_push(c, 2);
                reply_bulk(c, "tracking-redir-broken", 21);
                reply_int(c, c->trk_redir);
            }
            return NULL;
        }
    }
    if (to->resp >= 3) {
        reply_push(to, 2);
        reply_bulk(to, "invalidate", 10);
        return to;
    }
    if (to != c && (to->flags & CLIENT_PUBSUB)) {
        static const char head[] = "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n";
        reply_raw(to, head, sizeof(head) - 1);
        return to;
    }
    return NULL;
}

static void send_keys(client *c, char **keys, const size_t *lens, int n)
{
    client *to = invalidation_to(c);
    int i;

    if (!to)
        return;
    reply_array(to, n);
    for (i = 0; i < n; i++)
        reply_bulk(to, keys[i], lens[i]);
}

static void send_key(client *c, const char *key, size_t klen)
{
    char *k = (char *)key;
    send_keys(c, &k, &klen, 1);
}

static void send_null(client *c)
{
    client *to = invalidation_to(c);
    if (!to)
        return;
    /* The null of the tracking client's protocol, as Redis. */
    if (c->resp >= 3)
        reply_raw(to, "_\r\n", 3);
    else
        reply_raw(to, "$-1\r\n", 5);
}

static void self_queue(client *c, const char *key, size_t klen)
{
    trk_state *t = c->trk;
    if (t->nself == t->selfcap) {
        t->selfcap = t->selfcap ? t->selfcap * 2 : 4;
        t->self_keys = xrealloc(t->self_keys, sizeof(char *) * (size_t)t->selfcap);
        t->self_lens = xrealloc(t->self_lens, sizeof(size_t) * (size_t)t->selfcap);
    }
    t->self_keys[t->nself] = xmalloc(klen ? klen : 1);
    memcpy(t->self_keys[t->nself], key, klen);
    t->self_lens[t->nself++] = klen;
}

/* ---- remembering reads ---- */

static void remember(client *c, const sarg *key)
{
    ht *t = tab();
    uint32_t h = (uint32_t)ht_hash(key->p, key->len, t->seed);
    trk_key *k = (trk_key *)ht_find(t, key->p, (uint32_t)key->len, h);
    int i;

    if (!k) {
        k = xmalloc(sizeof(*k) + key->len + 1);
        memset(k, 0, sizeof(*k));
        memcpy(k->key, key->p, key->len);
        k->node.hash = h;
        k->node.klen = (uint32_t)key->len;
        ht_insert(t, &k->node);
    }
    for (i = 0; i < k->n; i++)
        if (k->ids[i] == c->id)
            return;
    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 2;
        k->ids = xrealloc(k->ids, sizeof(uint64_t) * (size_t)k->cap);
    }
    k->ids[k->n++] = c->id;
    items++;
}

void tracking_after_read(client *c, const cmd_def *cmd)
{
    trk_state *t = c->trk;

    if (!(c->flags & CLIENT_TRACKING) || (c->flags & CLIENT_TRACKING_BCAST) || !(cmd->flags & CMD_READONLY))
        return;
    if ((t->mode & TRK_OPTIN) && !(t->mode & TRK_CACHING))
        return;
    if ((t->mode & TRK_OPTOUT) && (t->mode & TRK_CACHING))
        return;
    cmd_foreach_key(c, cmd, remember);
}

void tracking_after_command(client *c, const cmd_def *cmd)
{
    trk_state *t = c->trk;
    int i;

    if (!t)
        return;
    if (t->self_null) {
        t->self_null = 0;
        send_null(c);
    }
    if (t->nself > 0) {
        for (i = 0; i < t->nself; i++) {
            send_key(c, t->self_keys[i], t->self_lens[i]);
            xfree(t->self_keys[i]);
        }
        t->nself = 0;
    }
    if (!(c->flags & CLIENT_MULTI) && strncmp(cmd_fullname(cmd), "client|", 7) != 0)
        t->mode &= ~TRK_CACHING;
}

/* ---- invalidation ---- */

static void pend_add(trk_prefix *p, const char *key, size_t klen, client *modifier)
{
    uint32_t h = (uint32_t)ht_hash(key, klen, p->pending.seed);
    trk_pend *x = (trk_pend *)ht_find(&p->pending, key, (uint32_t)klen, h);

    if (x) {
        if (x->modifier != modifier)
            x->modifier = NULL;
        return;
    }
    x = xmalloc(sizeof(*x) + klen + 1);
    x->modifier = modifier;
    memcpy(x->key, key, klen);
    x->node.hash = h;
    x->node.klen = (uint32_t)klen;
    ht_insert(&p->pending, &x->node);
}

void tracking_invalidate(const char *key, size_t klen, client *modifier)
{
    trk_key *k;
    int i;

    for (i = 0; i < nprefixes_all; i++) {
        trk_prefix *p = prefixes[i];
        if (klen >= p->len && memcmp(key, p->p, p->len) == 0)
            pend_add(p, key, klen, modifier);
    }
    if (!table_ready || ht_count(&table) == 0)
        return;
    k = (trk_key *)ht_remove(&table, key, (uint32_t)klen, (uint32_t)ht_hash(key, klen, table.seed));
    if (!k)
        return;
    for (i = 0; i < k->n; i++) {
        client *c = client_by_id(k->ids[i]);
        if (!c || !(c->flags & CLIENT_TRACKING) || (c->flags & CLIENT_TRACKING_BCAST))
            continue;
        if (c == modifier && (c->trk->mode & TRK_NOLOOP))
            continue;
        if (c == modifier && c == srv.current)
            self_queue(c, key, klen); /* after its reply */
        else
            send_key(c, key, klen);
    }
    items -= k->n;
    xfree(k->ids);
    xfree(k);
}

static void free_key(void *ctx, ht_node *n)
{
    trk_key *k = (trk_key *)n;
    (void)ctx;
    xfree(k->ids);
    xfree(k);
}

void tracking_flush(void)
{
    client *c;

    for (c = srv.clients; c; c = c->next) {
        if (!(c->flags & CLIENT_TRACKING))
            continue;
        if (c == srv.current)
            c->trk->self_null = 1;
        else
            send_null(c);
    }
    if (table_ready)
        ht_clear(&table, free_key, NULL);
    items = 0;
}

static int cmp_pend(const void *a, const void *b)
{
    const trk_pend *x = *(trk_pend *const *)a, *y = *(trk_pend *const *)b;
    size_t n = x->node.klen < y->node.klen ? x->node.klen : y->node.klen;
    int r = memcmp(x->key, y->key, n);
    return r ? r : (x->node.klen > y->node.klen) - (x->node.klen < y->node.klen);
}

typedef struct collect_ctx {
    trk_pend **v;
    int n;
} collect_ctx;

static int collect(void *ctx, ht_node *n)
{
    collect_ctx *x = ctx;
    x->v[x->n++] = (trk_pend *)n;
    return 0;
}

static void free_pend(void *ctx, ht_node *n)
{
    (void)ctx;
    xfree(n);
}

void tracking_broadcast(void)
{
    int i, j, k;

    for (i = 0; i < nprefixes_all; i++) {
        trk_prefix *p = prefixes[i];
        collect_ctx x;
        char **keys;
        size_t *lens;
        if (ht_count(&p->pending) == 0)
            continue;
        x.v = xmalloc(sizeof(trk_pend *) * ht_count(&p->pending));
        x.n = 0;
        ht_foreach(&p->pending, collect, &x);
        qsort(x.v, (size_t)x.n, sizeof(trk_pend *), cmp_pend);
        keys = xmalloc(sizeof(char *) * (size_t)x.n);
        lens = xmalloc(sizeof(size_t) * (size_t)x.n);
        for (j = 0; j < p->nclients; j++) {
            client *c = p->clients[j];
            int n = 0;
            for (k = 0; k < x.n; k++) {
                if (x.v[k]->modifier == c && (c->trk->mode & TRK_NOLOOP))
                    continue;
                keys[n] = x.v[k]->key;
                lens[n++] = x.v[k]->node.klen;
            }
            if (n > 0)
                send_keys(c, keys, lens, n);
        }
        xfree(keys);
        xfree(lens);
        xfree(x.v);
        ht_clear(&p->pending, free_pend, NULL);
    }
}

/* ---- turning tracking on and off ---- */

static trk_prefix *prefix_get(const char *s, size_t len)
{
    trk_prefix *p;
    int i;

    for (i = 0; i < nprefixes_all; i++)
        if (prefixes[i]->len == len && memcmp(prefixes[i]->p, s, len) == 0)
            return prefixes[i];
    p = xcalloc(1, sizeof(*p));
    p->p = xmalloc(len + 1);
    memcpy(p->p, s, len);
    p->p[len] = '\0';
    p->len = len;
    ht_init(&p->pending, pend_key_of, 0x9e37);
    prefixes = xrealloc(prefixes, sizeof(trk_prefix *) * (size_t)(nprefixes_all + 1));
    prefixes[nprefixes_all++] = p;
    return p;
}

static void prefix_drop_client(trk_prefix *p, client *c)
{
    int i;

    for (i = 0; i < p->nclients; i++)
        if (p->clients[i] == c) {
            memmove(&p->clients[i], &p->clients[i + 1], sizeof(client *) * (size_t)(p->nclients - i - 1));
            p->nclients--;
            break;
        }
    if (p->nclients == 0) {
        for (i = 0; i < nprefixes_all; i++)
            if (prefixes[i] == p) {
                memmove(&prefixes[i], &prefixes[i + 1], sizeof(trk_prefix *) * (size_t)(nprefixes_all - i - 1));
                nprefixes_all--;
                break;
            }
        ht_clear(&p->pending, free_pend, NULL);
        xfree(p->clients);
        xfree(p->p);
        xfree(p);
    }
}

static void tracking_off(client *c)
{
    trk_state *t = c->trk;
    int i;

    if (!(c->flags & CLIENT_TRACKING))
        return;
    for (i = 0; i < t->nprefixes; i++) {
        prefix_drop_client(prefix_get(t->prefixes[i], t->plens[i]), c);
        xfree(t->prefixes[i]);
    }
    xfree(t->prefixes);
    xfree(t->plens);
    t->prefixes = NULL;
    t->plens = NULL;
    t->nprefixes = 0;
    t->mode = 0;
    c->flags &= ~(CLIENT_TRACKING | CLIENT_TRACKING_BCAST | CLIENT_TRACKING_BROKEN);
    c->trk_redir = -1;
    tracking_clients--;
}

void tracking_client_release(client *c)
{
    trk_state *t = c->trk;
    int i;

    if (!t)
        return;
    tracking_off(c);
    for (i = 0; i < t->nself; i++)
        xfree(t->self_keys[i]);
    xfree(t->self_keys);
    xfree(t->self_lens);
    xfree(t);
    c->trk = NULL;
}

void tracking_stats(long long *keys, long long *nitems, long long *nprefixes)
{
    *keys = table_ready ? (long long)ht_count(&table) : 0;
    *nitems = items;
    *nprefixes = nprefixes_all;
}

/* ---- CLIENT subcommands ---- */

static int prefixes_overlap(const sarg *a, const char *b, size_t blen)
{
    size_t n = a->len < blen ? a->len : blen;
    return memcmp(a->p, b, n) == 0;
}

void client_tracking(client *c)
{
    int i, j, mode = 0, bcast = 0, np = 0;
    long long redir = 0;
    const sarg **ps = xmalloc(sizeof(sarg *) * (size_t)c->argc);
    trk_state *t;

    /* As Redis: the options first, then ON or OFF, then their consistency. */
    for (i = 3; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = c->argc - i - 1;
        if (str_eq_ci(a->p, a->len, "redirect") && more) {
            i++;
            if (redir) {
                reply_error(c, "ERR A client can only redirect to a single other client");
                goto done;
            }
            if (str_to_ll(c->argv[i].p, c->argv[i].len, &redir) < 0) {
                reply_error(c, ERR_NOTINT);
                goto done;
            }
            if (!client_by_id((uint64_t)redir)) {
                reply_error(c, "ERR The client ID you want redirect to does not exist");
                goto done;
            }
        } else if (str_eq_ci(a->p, a->len, "bcast")) {
            bcast = 1;
        } else if (str_eq_ci(a->p, a->len, "optin")) {
            mode |= TRK_OPTIN;
        } else if (str_eq_ci(a->p, a->len, "optout")) {
            mode |= TRK_OPTOUT;
        } else if (str_eq_ci(a->p, a->len, "noloop")) {
            mode |= TRK_NOLOOP;
        } else if (str_eq_ci(a->p, a->len, "prefix") && more) {
            ps[np++] = &c->argv[++i];
        } else {
            reply_error(c, ERR_SYNTAX);
            goto done;
        }
    }
    if (str_eq_ci(c->argv[2].p, c->argv[2].len, "off")) {
        tracking_off(c);
        reply_ok(c);
        goto done;
    }
    if (!str_eq_ci(c->argv[2].p, c->argv[2].len, "on")) {
        reply_error(c, ERR_SYNTAX);
        goto done;
    }
    if (np && !bcast) {
        reply_error(c, "ERR PREFIX option requires BCAST mode to be enabled");
        goto done;
    }
    if ((c->flags & CLIENT_TRACKING) && ((c->flags & CLIENT_TRACKING_BCAST) != 0) != bcast) {
        reply_error(c, "ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
                       "and then re-enabling it with a different mode.");
        goto done;
    }
    if (bcast && (mode & (TRK_OPTIN | TRK_OPTOUT))) {
        reply_error(c, "ERR OPTIN and OPTOUT are not compatible with BCAST");
        goto done;
    }
    if ((mode & TRK_OPTIN) && (mode & TRK_OPTOUT)) {
        reply_error(c, "ERR You can't specify both OPTIN mode and OPTOUT mode");
        goto done;
    }
    if ((c->flags & CLIENT_TRACKING) &&
        (((mode & TRK_OPTIN) && (c->trk->mode & TRK_OPTOUT)) || ((mode & TRK_OPTOUT) && (c->trk->mode & TRK_OPTIN)))) {
        reply_error(c, "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and "
                       "then re-enabling it with a different mode.");
        goto done;
    }
    /* No prefix may overlap one the client has, or another one given. */
    for (i = 0; bcast && i < np; i++) {
        if (c->trk && (c->flags & CLIENT_TRACKING))
            for (j = 0; j < c->trk->nprefixes; j++)
                if (prefixes_overlap(ps[i], c->trk->prefixes[j], c->trk->plens[j])) {
                    reply_errorf(c,
                                 "ERR Prefix '%s' overlaps with an existing prefix '%s'. Prefixes for a single "
                                 "client must not overlap.",
                                 ps[i]->p, c->trk->prefixes[j]);
                    goto done;
                }
        for (j = 0; j < np; j++)
            if (i != j && prefixes_overlap(ps[i], ps[j]->p, ps[j]->len)) {
                reply_errorf(c,
                             "ERR Prefix '%s' overlaps with another provided prefix '%s'. Prefixes for a single "
                             "client must not overlap.",
                             ps[i]->p, ps[j]->p);
                goto done;
            }
    }
    if (!c->trk)
        c->trk = xcalloc(1, sizeof(trk_state));
    t = c->trk;
    if (!(c->flags & CLIENT_TRACKING)) {
        c->flags |= CLIENT_TRACKING;
        tracking_clients++;
    }
    c->flags &= ~CLIENT_TRACKING_BROKEN;
    c->trk_redir = redir;
    t->mode = (t->mode & TRK_CACHING) | mode;
    if (bcast) {
        c->flags |= CLIENT_TRACKING_BCAST;
        if (np == 0 && t->nprefixes == 0) {
            static const sarg empty = {"", 0};
            ps[np++] = &empty;
        }
        for (i = 0; i < np; i++) {
            trk_prefix *p;
            for (j = 0; j < t->nprefixes; j++)
                if (t->plens[j] == ps[i]->len && memcmp(t->prefixes[j], ps[i]->p, ps[i]->len) == 0)
                    break;
            if (j < t->nprefixes)
                continue;
            t->prefixes = xrealloc(t->prefixes, sizeof(char *) * (size_t)(t->nprefixes + 1));
            t->plens = xrealloc(t->plens, sizeof(size_t) * (size_t)(t->nprefixes + 1));
            t->prefixes[t->nprefixes] = xmalloc(ps[i]->len + 1);
            memcpy(t->prefixes[t->nprefixes], ps[i]->p, ps[i]->len);
            t->prefixes[t->nprefixes][ps[i]->len] = '\0';
            t->plens[t->nprefixes++] = ps[i]->len;
            p = prefix_get(ps[i]->p, ps[i]->len);
            if (p->nclients == p->ccap) {
                p->ccap = p->ccap ? p->ccap * 2 : 4;
                p->clients = xrealloc(p->clients, sizeof(client *) * (size_t)p->ccap);
            }
            p->clients[p->nclients++] = c;
        }
    }
    reply_ok(c);
done:
    xfree(ps);
}

void client_caching(client *c)
{
    trk_state *t = c->trk;

    if (!(c->flags & CLIENT_TRACKING)) {
        reply_error(c, "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
                       "OPTOUT mode enabled");
        return;
    }
    if (str_eq_ci(c->argv[2].p, c->argv[2].len, "yes")) {
        if (!(t->mode & TRK_OPTIN)) {
            reply_error(c, "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
            return;
        }
    } else if (str_eq_ci(c->argv[2].p, c->argv[2].len, "no")) {
        if (!(t->mode & TRK_OPTOUT)) {
            reply_error(c, "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
            return;
        }
    } else {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    t->mode |= TRK_CACHING;
    reply_ok(c);
}

void client_trackinginfo(client *c)
{
    trk_state *t = c->trk;
    int on = (c->flags & CLIENT_TRACKING) != 0, n = 0, i;
    const char *flags[8];

    if (!on) {
        flags[n++] = "off";
    } else {
        flags[n++] = "on";
        if (c->flags & CLIENT_TRACKING_BCAST)
            flags[n++] = "bcast";
        if (t->mode & TRK_OPTIN) {
            flags[n++] = "optin";
            if (t->mode & TRK_CACHING)
                flags[n++] = "caching-yes";
        }
        if (t->mode & TRK_OPTOUT) {
            flags[n++] = "optout";
            if (t->mode & TRK_CACHING)
                flags[n++] = "caching-no";
        }
        if (t->mode & TRK_NOLOOP)
            flags[n++] = "noloop";
        if (c->flags & CLIENT_TRACKING_BROKEN)
            flags[n++] = "broken_redirect";
    }
    reply_map(c, 3);
    reply_bulk_cstr(c, "flags");
    reply_set(c, n);
    for (i = 0; i < n; i++)
        reply_bulk_cstr(c, flags[i]);
    reply_bulk_cstr(c, "redirect");
    reply_int(c, on ? c->trk_redir : -1);
    reply_bulk_cstr(c, "prefixes");
    reply_array(c, on ? t->nprefixes : 0);
    for (i = 0; on && i < t->nprefixes; i++)
        reply_bulk(c, t->prefixes[i], t->plens[i]);
}

void client_getredir(client *c)
{
    reply_int(c, (c->flags & CLIENT_TRACKING) ? c->trk_redir : -1);
}
