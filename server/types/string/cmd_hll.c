/* cmd_hll.c -- PFADD, PFCOUNT and PFMERGE: HyperLogLogs kept in string values,
 * in Redis's representation (core/hll.h), so a value copied with GET and SET
 * between Redis and Scratchpad counts the same.
 *
 * A command works on a copy of the value (at most 12 KB for a dense HLL; a
 * sparse one is at most hll-sparse-max-bytes unless a user SET a longer one)
 * and stores it back whole when it changed, through the value layer, which may
 * keep it compressed; except PFADD on a dense HLL stored uncompressed, which
 * changes its registers in place (a dense HLL never changes length; copying
 * 12 KB per PFADD made it 0.63x redis-server at -P 16). A command that meets a corrupt HLL answers
 * "-INVALIDOBJ Corrupted HLL object detected"; as in Redis, a PFADD keeps the
 * registers it set before it met the damage.
 *
 * PFADD and PFMERGE are logged as typed (deterministic). PFCOUNT of one key
 * stores the count it computed as the value's cached cardinality, as Redis
 * does, and reports the key changed (WATCH), but it is a read: the log does not
 * record it, so after a restart the cache is stale again until the next PFCOUNT
 * (the count is the same; GET shows the stale flag, 8 bytes of the header). */
#include <string.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/hll.h"
#include "core/mem.h"
#include "net/reply.h"
#include "types/string/value.h"

#define ERR_NOTHLL "WRONGTYPE Key is not a valid HyperLogLog string value."
#define ERR_BADHLL "INVALIDOBJ Corrupted HLL object detected"
#define ERR_CORRUPT "ERR value is corrupt: a compressed chunk failed to decompress"

/* Copy the string e into b if it is an HLL; else reply the error and return -1. */
static int load_hll(client *c, const dbent *e, hll_buf *b)
{
    size_t n;
    const char *p;
    char *tmp;

    if (e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return -1;
    }
    n = sv_len(e);
    if ((p = sv_ptr(e)) != NULL) {
        if (!hll_valid((const unsigned char *)p, n))
            goto nothll;
        hll_buf_load(b, (const unsigned char *)p, n);
        return 0;
    }
    tmp = xmalloc(n);
    if (sv_read(e, 0, n, tmp) < 0) {
        xfree(tmp);
        reply_error(c, ERR_CORRUPT);
        return -1;
    }
    if (!hll_valid((unsigned char *)tmp, n)) {
        xfree(tmp);
        goto nothll;
    }
    hll_buf_load(b, (unsigned char *)tmp, n);
    xfree(tmp);
    return 0;
nothll:
    reply_error(c, ERR_NOTHLL);
    return -1;
}

/* Store b as the value of key (e its entry, or NULL to create it). */
static void store_hll(client *c, const sarg *key, dbent *e, const hll_buf *b)
{
    if (e)
        sv_replace(c->db, e, (const char *)b->p, b->len);
    else
        sv_set(c->db, key->p, key->len, (const char *)b->p, b->len, 0);
}

static void cmd_pfadd(client *c)
{
    const sarg *key = &c->argv[1];
    dbent *e = db_lookup_write(c->db, key->p, key->len);
    hll_buf b;
    int updated = 0, j, r;
    unsigned char *p;

    if (e && e->type == OBJ_STRING && sv_len(e) == HLL_DENSE_SIZE && (p = (unsigned char *)sv_ptr_mut(e)) != NULL &&
        hll_valid(p, HLL_DENSE_SIZE) && p[4] == HLL_ENC_DENSE) {
        for (j = 2; j < c->argc; j++)
            updated |= hll_dense_add(p, c->argv[j].p, c->argv[j].len);
        if (updated) {
            hll_invalidate(p);
            signal_key_changed(c->db, key->p, key->len);
            signal_event(c->db, NOTIFY_STRING, "pfadd", key->p, key->len);
        }
        reply_int(c, updated);
        return;
    }
    if (e) {
        if (load_hll(c, e, &b) < 0)
            return;
    } else {
        hll_buf_new(&b);
        updated = 1;
    }
    for (j = 2; j < c->argc; j++) {
        r = hll_add(&b, c->argv[j].p, c->argv[j].len, (size_t)hll_sparse_max_bytes);
        if (r < 0) {
            /* As Redis: the registers set before the damage stay set (and
             * the cache as it was); the command is logged as typed, and its
             * replay meets the damage at the same element. */
            if (updated) {
                store_hll(c, key, e, &b);
                signal_key_changed(c->db, key->p, key->len);
                signal_event(c->db, NOTIFY_STRING, "pfadd", key->p, key->len);
            }
            reply_error(c, ERR_BADHLL);
            goto done;
        }
        updated |= r;
    }
    if (updated) {
        hll_invalidate(b.p);
        store_hll(c, key, e, &b);
        signal_key_changed(c->db, key->p, key->len);
        signal_event(c->db, NOTIFY_STRING, "pfadd", key->p, key->len);
    }
    reply_int(c, updated);
done:
    hll_buf_free(&b);
}

static void cmd_pfcount(client *c)
{
    uint8_t *max;
    uint64_t card;
    hll_buf b;
    dbent *e;
    int j;

    if (c->argc > 2) {
        max = xcalloc(1, HLL_REGISTERS);
        for (j = 1; j < c->argc; j++) {
            e = db_lookup(c->db, c->argv[j].p, c->argv[j].len);
            if (!e)
                continue;
            if (load_hll(c, e, &b) < 0)
                goto out;
            if (hll_merge(max, b.p, b.len) < 0) {
                hll_buf_free(&b);
                reply_error(c, ERR_BADHLL);
                goto out;
            }
            hll_buf_free(&b);
        }
        reply_int(c, (long long)hll_count_registers(max));
    out:
        xfree(max);
        return;
    }
    e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);
    if (!e) {
        reply_int(c, 0);
        return;
    }
    if (e->type == OBJ_STRING && sv_len(e) >= HLL_HDR_SIZE) {
        /* A valid cached count needs the header alone: a compressed dense
         * HLL is not decoded for it. */
        unsigned char hdr[HLL_HDR_SIZE];
        if (sv_read(e, 0, HLL_HDR_SIZE, (char *)hdr) == 0 && hll_valid(hdr, sv_len(e)) && hll_cached(hdr, &card)) {
            reply_int(c, (long long)card);
            return;
        }
    }
    if (load_hll(c, e, &b) < 0)
        return;
    if (!hll_cached(b.p, &card)) {
        if (hll_count(b.p, b.len, &card) < 0) {
            reply_error(c, ERR_BADHLL);
            goto done;
        }
        hll_set_cache(b.p, card);
        if (sv_setrange(c->db, &e, 8, (const char *)b.p + 8, 8) < 0) {
            reply_error(c, ERR_CORRUPT);
            goto done;
        }
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    }
    reply_int(c, (long long)card);
done:
    hll_buf_free(&b);
}

static void cmd_pfmerge(client *c)
{
    const sarg *key = &c->argv[1];
    uint8_t *max = xcalloc(1, HLL_REGISTERS);
    int j, use_dense = 0, bad;
    hll_buf b;
    dbent *e;
    uint32_t i;

    for (j = 1; j < c->argc; j++) {
        e = db_lookup(c->db, c->argv[j].p, c->argv[j].len);
        if (!e)
            continue;
        if (load_hll(c, e, &b) < 0)
            goto out;
        if (b.p[4] == HLL_ENC_DENSE)
            use_dense = 1;
        bad = hll_merge(max, b.p, b.len) < 0;
        hll_buf_free(&b);
        if (bad) {
            reply_error(c, ERR_BADHLL);
            goto out;
        }
    }
    e = db_lookup_write(c->db, key->p, key->len);
    if (e) {
        if (load_hll(c, e, &b) < 0) /* checked above: cannot fail */
            goto out;
    } else {
        hll_buf_new(&b);
    }
    if (use_dense && hll_to_dense(&b) < 0) {
        reply_error(c, ERR_BADHLL);
        goto done;
    }
    for (i = 0; i < HLL_REGISTERS; i++)
        if (max[i] && hll_set_register(&b, i, max[i], (size_t)hll_sparse_max_bytes) < 0) {
            reply_error(c, ERR_BADHLL);
            goto done;
        }
    hll_invalidate(b.p);
    store_hll(c, key, e, &b);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_STRING, "pfadd", key->p, key->len);
    reply_ok(c);
done:
    hll_buf_free(&b);
out:
    xfree(max);
}

/* clang-format off */
const cmd_def cmd_table_hll[] = {
    {.name = "pfadd", .proc = cmd_pfadd, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, KEYS(1, 1, 1),
     .group = "hyperloglog", .summary = "Adds the specified elements to the specified HyperLogLog.",
     .since = "2.8.9", .complexity = "O(1) to add every element.", .acl = "write hyperloglog fast",
     .key_specs = "RW insert"},
    {.name = "pfcount", .proc = cmd_pfcount, .arity = -2, .flags = CMD_READONLY, KEYS(1, -1, 1),
     .group = "hyperloglog",
     .summary = "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).",
     .since = "2.8.9",
     .complexity = "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.",
     .acl = "read hyperloglog slow",
     .key_specs = "RW access#RW because it may change the internal representation of the key, and propagate to replicas"},
    {.name = "pfmerge", .proc = cmd_pfmerge, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(1, -1, 1),
     .group = "hyperloglog", .summary = "Merge N different HyperLogLogs into a single one.", .since = "2.8.9",
     .complexity = "O(N) to merge N HyperLogLogs, but with high constant times.", .acl = "write hyperloglog slow",
     .key_specs = "RW access insert@1,0,1;RO access@2,-1,1"},
    {0},
};
/* clang-format on */
