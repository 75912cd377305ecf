/* spco.c -- leases with fencing tokens and the change feed of one scratchpad
 * (see spco.h).
 *
 * Leases are few per scratchpad (one per resource agents take turns on), so
 * they are a sorted array of pointers searched by bisection, and the earliest
 * expiry is found by a scan when asked. Changes are a ring of pointers that
 * grows by doubling up to the retention limit, each change one allocation
 * (name and client name inline), so dropping the oldest is O(1). */
#include "sp/spco.h"

#include <string.h>

#include "mem.h"

static const char *const op_names[SPCO_OP_COUNT] = {"write",  "append", "edit",    "insert", "offload", "del",
                                                    "expire", "ttl",    "restore", "revert", "meta"};

spco *spco_new(uint64_t base)
{
    spco *co = xcalloc(1, sizeof(*co));
    co->last_token = base;
    co->last_seq = base;
    return co;
}

void spco_free(spco *co)
{
    size_t i;

    if (!co)
        return;
    for (i = 0; i < co->nleases; i++)
        xfree(co->leases[i]);
    xfree(co->leases);
    spco_change_clear(co);
    xfree(co->ring);
    xfree(co);
}

size_t spco_stored(const spco *co)
{
    if (!co)
        return 0;
    return xmalloc_size((void *)co) + xmalloc_size(co->leases) + xmalloc_size(co->ring) + co->bytes;
}

/* ---- leases ---- */

static int res_cmp(const sp_lease *l, const char *res, size_t rlen)
{
    size_t m = l->rlen < rlen ? l->rlen : rlen;
    int r = memcmp(l->data, res, m);
    if (r)
        return r;
    return l->rlen < rlen ? -1 : l->rlen > rlen;
}

/* Index of the first lease whose resource is >= res. */
static size_t lease_lower(const spco *co, const char *res, size_t rlen)
{
    size_t lo = 0, hi = co->nleases;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (res_cmp(co->leases[mid], res, rlen) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

sp_lease *spco_lease_find(const spco *co, const char *res, size_t rlen)
{
    size_t lo = 0, hi = co->nleases;

    /* lease_lower's search, stopping at an equal name (a fenced write's
     * lookup: one comparison when the scratchpad has one lease) */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = res_cmp(co->leases[mid], res, rlen);
        if (r == 0)
            return co->leases[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static sp_lease *lease_make(spco *co, const char *res, size_t rlen, const char *holder, size_t hlen)
{
    sp_lease *l = xmalloc(sizeof(sp_lease) + rlen + hlen);
    l->rlen = (uint8_t)rlen;
    l->hlen = (uint8_t)hlen;
    memcpy(l->data, res, rlen);
    memcpy(l->data + rlen, holder, hlen);
    co->bytes += xmalloc_size(l);
    return l;
}

/* Put a lease for (res, holder) in place of the one at index i if it matches
 * res, or insert it there. */
static sp_lease *lease_put(spco *co, const char *res, size_t rlen, const char *holder, size_t hlen)
{
    size_t i = lease_lower(co, res, rlen);
    sp_lease *l = lease_make(co, res, rlen, holder, hlen);

    if (i < co->nleases && res_cmp(co->leases[i], res, rlen) == 0) {
        co->bytes -= xmalloc_size(co->leases[i]);
        xfree(co->leases[i]);
        co->leases[i] = l;
        return l;
    }
    if (co->nleases == co->lcap) {
        co->lcap = co->lcap ? co->lcap * 2 : 4;
        co->leases = xrealloc(co->leases, sizeof(sp_lease *) * co->lcap);
    }
    memmove(co->leases + i + 1, co->leases + i, sizeof(sp_lease *) * (co->nleases - i));
    co->leases[i] = l;
    co->nleases++;
    return l;
}

int spco_lease_acquire(spco *co, const char *res, size_t rlen, const char *holder, size_t hlen, int64_t now,
                       int64_t ttl, sp_lease **out)
{
    sp_lease *l = spco_lease_find(co, res, rlen);

    if (l && l->expire > now) {
        *out = l;
        if (l->hlen != hlen || memcmp(sp_lease_holder(l), holder, hlen) != 0)
            return SPCO_HELD;
        l->expire = now + ttl;
        return SPCO_RENEWED;
    }
    l = lease_put(co, res, rlen, holder, hlen);
    l->token = ++co->last_token;
    l->expire = now + ttl;
    *out = l;
    return SPCO_GRANTED;
}

sp_lease *spco_lease_set(spco *co, const char *res, size_t rlen, const char *holder, size_t hlen, uint64_t token,
                         int64_t expire)
{
    sp_lease *l = lease_put(co, res, rlen, holder, hlen);
    l->token = token;
    l->expire = expire;
    if (token > co->last_token)
        co->last_token = token;
    return l;
}

void spco_lease_remove(spco *co, sp_lease *l)
{
    size_t i = lease_lower(co, l->data, l->rlen);
    if (i >= co->nleases || co->leases[i] != l)
        return;
    memmove(co->leases + i, co->leases + i + 1, sizeof(sp_lease *) * (co->nleases - i - 1));
    co->nleases--;
    co->bytes -= xmalloc_size(l);
    xfree(l);
    if (co->nleases == 0) {
        xfree(co->leases);
        co->leases = NULL;
        co->lcap = 0;
    }
}

size_t spco_lease_expire_due(spco *co, int64_t now)
{
    size_t i, j, removed = 0;

    for (i = 0, j = 0; i < co->nleases; i++) {
        sp_lease *l = co->leases[i];
        if (l->expire <= now) {
            co->bytes -= xmalloc_size(l);
            xfree(l);
            removed++;
        } else {
            co->leases[j++] = l;
        }
    }
    co->nleases = j;
    if (j == 0 && co->leases) {
        xfree(co->leases);
        co->leases = NULL;
        co->lcap = 0;
    }
    return removed;
}

int64_t spco_lease_next_expire(const spco *co)
{
    int64_t m = -1;
    size_t i;

    for (i = 0; i < co->nleases; i++)
        if (m < 0 || co->leases[i]->expire < m)
            m = co->leases[i]->expire;
    return m;
}

int spco_fence(const spco *co, const char *res, size_t rlen, uint64_t token, int64_t now, const sp_lease **cur)
{
    const sp_lease *l = co ? spco_lease_find(co, res, rlen) : NULL;

    *cur = NULL;
    if (!l || l->expire <= now)
        return SPCO_FENCE_NOLEASE;
    if (l->token != token) {
        *cur = l;
        return SPCO_FENCE_STALE;
    }
    *cur = l;
    return SPCO_FENCE_OK;
}

/* ---- the change feed ---- */

static void drop_oldest(spco *co)
{
    sp_change *c = co->ring[co->head];
    co->bytes -= xmalloc_size(c);
    xfree(c);
    co->ring[co->head] = NULL;
    co->head = (co->head + 1) % co->rcap;
    co->nchanges--;
}

void spco_change_trim(spco *co, size_t max_len)
{
    while (co->nchanges > max_len)
        drop_oldest(co);
    if (co->nchanges == 0)
        co->head = 0;
}

void spco_change_clear(spco *co)
{
    spco_change_trim(co, 0);
}

/* Room for one more change in the ring (which grows by doubling). */
static void ring_grow(spco *co)
{
    size_t ncap = co->rcap ? co->rcap * 2 : 8, i;
    sp_change **r = xmalloc(sizeof(sp_change *) * ncap);

    for (i = 0; i < co->nchanges; i++)
        r[i] = co->ring[(co->head + i) % co->rcap];
    xfree(co->ring);
    co->ring = r;
    co->rcap = ncap;
    co->head = 0;
}

uint64_t spco_change_add(spco *co, uint64_t seq, int64_t time, int op, const char *name, size_t nlen, uint64_t version,
                         uint64_t size, const char *client, size_t clen, size_t max_len)
{
    sp_change *c;

    if (seq == 0)
        seq = co->last_seq + 1;
    if (seq > co->last_seq)
        co->last_seq = seq;
    if (max_len == 0) {
        spco_change_clear(co);
        return seq;
    }
    if (clen > SPCO_CLIENT_MAX)
        clen = SPCO_CLIENT_MAX;
    if (nlen > SPCO_NAME_MAX)
        nlen = SPCO_NAME_MAX;
    spco_change_trim(co, max_len - 1);
    if (co->nchanges == co->rcap)
        ring_grow(co);
    c = xmalloc(sizeof(sp_change) + nlen + clen);
    c->seq = seq;
    c->time = time;
    c->version = version;
    c->size = size;
    c->op = (uint8_t)op;
    c->nlen = (uint8_t)nlen;
    c->clen = (uint8_t)clen;
    memcpy(c->data, name, nlen);
    if (clen)
        memcpy(c->data + nlen, client, clen);
    co->bytes += xmalloc_size(c);
    co->ring[(co->head + co->nchanges) % co->rcap] = c;
    co->nchanges++;
    return seq;
}

const sp_change *spco_change_at(const spco *co, size_t i)
{
    return co->ring[(co->head + i) % co->rcap];
}

size_t spco_change_after(const spco *co, uint64_t since)
{
    size_t lo = 0, hi = co->nchanges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (spco_change_at(co, mid)->seq <= since)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const char *spco_op_name(int op)
{
    return op >= 0 && op < SPCO_OP_COUNT ? op_names[op] : "?";
}

int spco_op_parse(const char *p, size_t n)
{
    int i;
    for (i = 0; i < SPCO_OP_COUNT; i++)
        if (strlen(op_names[i]) == n && memcmp(op_names[i], p, n) == 0)
            return i;
    return -1;
}
