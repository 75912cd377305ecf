/* spco.h -- what several agents sharing one scratchpad coordinate through:
 * leases with fencing tokens, and the change feed.
 *
 * Why: a scratchpad written by many agents needs a way to take turns on a
 * resource (a lease, whose token fences out the writes of a holder that paused
 * past its turn) and a way to learn what changed while an agent was away (the
 * feed: numbered changes, resumable from the last number seen). Both belong to
 * one scratchpad and live and die with it, so they hang off its value (sp.h:
 * s->co, NULL until first used). This module is the data structure alone: no
 * clock, no configuration, no server; times and limits come as arguments.
 *
 * Numbers: tokens and change sequence numbers are two counters of the
 * scratchpad, each growing by one per grant / per change and never going back.
 * A new spco starts both at a base the caller chooses (the server picks one
 * above anything an earlier scratchpad of the same name could have issued:
 * types/sp/sptype.c). A lease renewed by its holder keeps its token.
 *
 * Leases: at most one per resource, sorted by resource; resource and holder are
 * 1..SPCO_NAME_MAX bytes. A lease whose expiry is <= now counts as absent for
 * every question asked with a `now` (acquire, fence), whether or not
 * spco_lease_expire_due has removed it yet.
 *
 * Feed: a ring of the last `max_len` changes, oldest first, sequence numbers
 * strictly increasing (not necessarily contiguous after a caller-chosen seq).
 *
 * Memory comes from the accounted allocator (mem.h); allocation failure
 * aborts. Pointers returned stay valid until the spco changes. */
#ifndef SP_SPCO_H
#define SP_SPCO_H

#include <stddef.h>
#include <stdint.h>

#define SPCO_NAME_MAX 255
#define SPCO_CLIENT_MAX 255 /* bytes of a client name a change keeps (longer ones are cut) */

/* The operations a change records (spco_op_name gives their names). */
enum {
    SPCO_OP_WRITE = 0,
    SPCO_OP_APPEND,
    SPCO_OP_EDIT,
    SPCO_OP_INSERT,
    SPCO_OP_OFFLOAD,
    SPCO_OP_DEL,
    SPCO_OP_EXPIRE,
    SPCO_OP_TTL,
    SPCO_OP_RESTORE,
    SPCO_OP_REVERT,
    SPCO_OP_META,
    SPCO_OP_COUNT
};

typedef struct sp_lease {
    uint64_t token; /* fencing token of this grant */
    int64_t expire; /* ms since epoch */
    uint8_t rlen;   /* bytes of resource */
    uint8_t hlen;   /* bytes of holder */
    char data[];    /* resource (rlen bytes), then holder (hlen bytes) */
} sp_lease;

static inline const char *sp_lease_holder(const sp_lease *l)
{
    return l->data + l->rlen;
}

typedef struct sp_change {
    uint64_t seq;     /* the scratchpad's change number */
    int64_t time;     /* ms since epoch */
    uint64_t version; /* the entry's version after the change (0: deleted) */
    uint64_t size;    /* bytes of the entry after the change (0: deleted) */
    uint8_t op;       /* SPCO_OP_* */
    uint8_t nlen;     /* bytes of the entry's name */
    uint8_t clen;     /* bytes of the client's name (0: none, or the server) */
    char data[];      /* name (nlen bytes), then client name (clen bytes) */
} sp_change;

static inline const char *sp_change_client(const sp_change *c)
{
    return c->data + c->nlen;
}

typedef struct spco {
    uint64_t last_token; /* the last token granted (the next is last_token + 1) */
    uint64_t last_seq;   /* the last change number given */
    sp_lease **leases;   /* sorted by resource */
    size_t nleases, lcap;
    sp_change **ring; /* the retained changes: ring[(head + i) % rcap], i < nchanges */
    size_t rcap, head, nchanges;
    size_t bytes; /* memory held by the leases and changes (not counting this struct) */
} spco;

/* A new, empty spco whose counters start at base (the first token and the
 * first change number are base + 1). */
spco *spco_new(uint64_t base);
/* Free co, its leases and changes. spco_free(NULL) does nothing. */
void spco_free(spco *co);
/* Bytes of memory held by co and everything in it. */
size_t spco_stored(const spco *co);

/* ---- leases ---- */

/* The lease on resource, expired or not, or NULL. */
sp_lease *spco_lease_find(const spco *co, const char *res, size_t rlen);

enum { SPCO_GRANTED = 0, SPCO_RENEWED = 1, SPCO_HELD = 2 };
/* Take resource for holder until now + ttl: SPCO_GRANTED (a new token) when it
 * is free or its lease has expired, SPCO_RENEWED (same token, new expiry) when
 * holder holds it, SPCO_HELD when another holder does (nothing changes). *out
 * gets the lease (the other holder's for SPCO_HELD). res, holder: 1 ..
 * SPCO_NAME_MAX bytes. */
int spco_lease_acquire(spco *co, const char *res, size_t rlen, const char *holder, size_t hlen, int64_t now,
                       int64_t ttl, sp_lease **out);
/* Set the lease on resource to exactly this state (the log's replay), replacing
 * any; last_token becomes at least token. */
sp_lease *spco_lease_set(spco *co, const char *res, size_t rlen, const char *holder, size_t hlen, uint64_t token,
                         int64_t expire);
/* Unlink and free l. */
void spco_lease_remove(spco *co, sp_lease *l);
/* Remove the leases expired by now; returns how many. */
size_t spco_lease_expire_due(spco *co, int64_t now);
/* The earliest lease expiry, or -1 without leases. O(leases). */
int64_t spco_lease_next_expire(const spco *co);

enum { SPCO_FENCE_OK = 0, SPCO_FENCE_NOLEASE, SPCO_FENCE_STALE };
/* Whether token is the current, unexpired grant on resource at now:
 * SPCO_FENCE_OK, SPCO_FENCE_NOLEASE (no lease, or it expired: *cur NULL), or
 * SPCO_FENCE_STALE (another grant is current: *cur is it). co may be NULL. */
int spco_fence(const spco *co, const char *res, size_t rlen, uint64_t token, int64_t now, const sp_lease **cur);

/* ---- the change feed ---- */

/* Record a change numbered seq (0: last_seq + 1; else the replay's number,
 * which must exceed the newest retained change's; last_seq becomes at least
 * seq), keeping at most max_len changes (older ones dropped; 0 keeps none,
 * the number still counts). Client names past SPCO_CLIENT_MAX bytes are cut.
 * Returns the change's number. */
uint64_t spco_change_add(spco *co, uint64_t seq, int64_t time, int op, const char *name, size_t nlen, uint64_t version,
                         uint64_t size, const char *client, size_t clen, size_t max_len);
/* The i-th retained change, oldest first (i < co->nchanges). */
const sp_change *spco_change_at(const spco *co, size_t i);
/* Index of the first retained change numbered > since (co->nchanges if none):
 * a binary search. */
size_t spco_change_after(const spco *co, uint64_t since);
/* Drop changes until at most max_len remain. */
void spco_change_trim(spco *co, size_t max_len);
/* Drop every retained change (the counters stay). */
void spco_change_clear(spco *co);

/* The name of op ("write", "append", ...), or "?" for an unknown one. */
const char *spco_op_name(int op);
/* The op named p[0..n), or -1. */
int spco_op_parse(const char *p, size_t n);

#endif
