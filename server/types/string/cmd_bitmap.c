/* cmd_bitmap.c -- the bitmap commands on string values: SETBIT GETBIT BITCOUNT
 * BITPOS BITOP BITFIELD BITFIELD_RO, with Redis 7.0's replies and errors.
 *
 * Values go through the value layer (value.h), so a bitmap may be inline, a heap
 * buffer or compressed. What a command costs on a compressed value:
 *  - GETBIT, SETBIT and each BITFIELD operation read one to nine bytes
 *    (lzval_read decodes the one 8 KB sub-block holding them, through the
 *    chunk cache) and a write re-compresses only that sub-block (sv_setrange);
 *  - BITCOUNT, BITPOS and BITOP read their range in windows of BM_WINDOW
 *    bytes, so a range of a compressed value is decoded a window at a time,
 *    never whole, and only the sub-blocks of the range are decoded. Their work
 *    is proportional to the range, as in Redis (a BITCOUNT of a 512 MB value
 *    takes the loop for as long as it takes to read it);
 *  - BITOP builds its result in a heap buffer (it is a new value, stored raw and
 *    queued for compression like any SET).
 *
 * Writes report to WATCH and the log only when the value changed (a bit set to
 * what it was, a field stored with its own value, change nothing: Redis 7.0.15's
 * rule); their effect is the command as typed, which is deterministic, so
 * cmd_call logs it. */
#include <string.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/bitops.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "types/string/value.h"

#define ERR_BITOFF "ERR bit offset is not an integer or out of range"
#define ERR_BITVAL "ERR bit is not an integer or out of range"
#define ERR_BFTYPE "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
#define ERR_CORRUPT "ERR value is corrupt: a compressed chunk failed to decompress"

#define BM_WINDOW 65536 /* bytes read at a time from a value */

static unsigned char bm_scratch[BM_WINDOW];

/* Bytes [off, off+n) of e (n <= BM_WINDOW): a pointer into the value, or into
 * bm_scratch for a compressed one (valid until the next call); NULL if a
 * compressed chunk is corrupt. */
static const unsigned char *bm_bytes(const dbent *e, size_t off, size_t n)
{
    const char *p = sv_ptr(e);

    if (p)
        return (const unsigned char *)p + off;
    if (sv_read(e, off, n, (char *)bm_scratch) < 0)
        return NULL;
    return bm_scratch;
}

/* One byte of e at off (0 past the end), or -1 if corrupt. */
static int bm_byte(const dbent *e, size_t off)
{
    const unsigned char *p;

    if (off >= sv_len(e))
        return 0;
    p = bm_bytes(e, off, 1);
    return p ? *p : -1;
}

/* Parse argv[i] as a bit offset as Redis does: an integer, or with hash_bits >
 * 0 "#N" meaning N * hash_bits (the multiplication wraps as Redis's does),
 * whose byte must lie below proto-max-bulk-len. 0, or -1 after replying. */
static int arg_bitoffset(client *c, int i, int hash_bits, uint64_t *out)
{
    const sarg *a = &c->argv[i];
    int usehash = a->len > 0 && a->p[0] == '#' && hash_bits > 0;
    long long v;

    if (str_to_ll(a->p + usehash, a->len - (size_t)usehash, &v) < 0)
        goto err;
    if (usehash)
        v = (long long)((unsigned long long)v * (unsigned long long)hash_bits);
    if (v < 0 || (v >> 3) >= srv.cfg.proto_max_bulk_len)
        goto err;
    *out = (uint64_t)v;
    return 0;
err:
    reply_error(c, ERR_BITOFF);
    return -1;
}

/* Make the string at key at least need bytes long (creating it if e is NULL),
 * zero-padded. *dirty is set if it was created or grew. 0, or -1 if a
 * compressed chunk is corrupt. */
static int bm_grow(client *c, const sarg *key, dbent **ep, size_t need, int *dirty)
{
    static const char zero = 0;

    *dirty = 0;
    if (!*ep) {
        *ep = sv_set(c->db, key->p, key->len, "", 0, 0);
        *dirty = 1;
    }
    if (sv_len(*ep) >= need)
        return 0;
    *dirty = 1;
    return sv_setrange(c->db, ep, need - 1, &zero, 1);
}

static void cmd_setbit(client *c)
{
    const sarg *key = &c->argv[1];
    uint64_t off;
    long long on;
    int dirty, old, bit;
    dbent *e;
    unsigned char nb;

    if (arg_bitoffset(c, 2, 0, &off) < 0)
        return;
    if (str_to_ll(c->argv[3].p, c->argv[3].len, &on) < 0 || (on & ~1LL)) {
        reply_error(c, ERR_BITVAL);
        return;
    }
    e = db_lookup_write(c->db, key->p, key->len);
    if (e && e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    old = e ? bm_byte(e, off >> 3) : 0;
    if (old < 0 || bm_grow(c, key, &e, (off >> 3) + 1, &dirty) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    bit = (old >> (7 - (off & 7))) & 1;
    if (dirty || bit != on) {
        nb = (unsigned char)((old & ~(1 << (7 - (off & 7)))) | (on << (7 - (off & 7))));
        if (sv_setrange(c->db, &e, off >> 3, (const char *)&nb, 1) < 0) {
            reply_error(c, ERR_CORRUPT);
            return;
        }
        signal_key_changed(c->db, key->p, key->len);
        signal_event(c->db, NOTIFY_STRING, "setbit", key->p, key->len);
    }
    reply_int(c, bit);
}

static void cmd_getbit(client *c)
{
    uint64_t off;
    dbent *e;
    int b;

    if (arg_bitoffset(c, 2, 0, &off) < 0)
        return;
    e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);
    if (!e) {
        reply_int(c, 0);
        return;
    }
    if (e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    b = bm_byte(e, off >> 3);
    if (b < 0)
        reply_error(c, ERR_CORRUPT);
    else
        reply_int(c, (b >> (7 - (off & 7))) & 1);
}

/* Parse BYTE or BIT at argv[i] into *isbit. 0, or -1 after a syntax error. */
static int arg_unit(client *c, int i, int *isbit)
{
    if (str_eq_ci(c->argv[i].p, c->argv[i].len, "bit"))
        *isbit = 1;
    else if (str_eq_ci(c->argv[i].p, c->argv[i].len, "byte"))
        *isbit = 0;
    else {
        reply_error(c, ERR_SYNTAX);
        return -1;
    }
    return 0;
}

/* Clamp a Redis range [*start, *end] to [0, total-1] (negative counts from the
 * end). */
static void clamp_range(long long total, long long *start, long long *end)
{
    if (*start < 0)
        *start += total;
    if (*end < 0)
        *end += total;
    if (*start < 0)
        *start = 0;
    if (*end < 0)
        *end = 0;
    if (*end >= total)
        *end = total - 1;
}

/* The bits of byte b at positions [from, to] (0 = most significant), others 0. */
static unsigned char byte_mask(int from, int to)
{
    return (unsigned char)((0xffu >> from) & (0xffu << (7 - to)));
}

static void cmd_bitcount(client *c)
{
    long long start = 0, end = 0, len, sb, eb, off;
    uint64_t count = 0;
    int isbit = 0, first, last;
    dbent *e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);

    if (!e) {
        reply_int(c, 0);
        return;
    }
    if (e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    e = sv_read_hot(c->db, e); /* a count reads the value whole, as GET does */
    len = (long long)sv_len(e);
    if (c->argc == 4 || c->argc == 5) {
        if (arg_ll(c, 2, &start) < 0 || arg_ll(c, 3, &end) < 0)
            return;
        if (start < 0 && end < 0 && start > end) {
            reply_int(c, 0);
            return;
        }
        if (c->argc == 5 && arg_unit(c, 4, &isbit) < 0)
            return;
        clamp_range(isbit ? len * 8 : len, &start, &end);
        if (!isbit && start <= end) {
            start *= 8;
            end = end * 8 + 7;
        }
    } else if (c->argc == 2) {
        start = 0;
        end = len * 8 - 1;
    } else {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (start > end) {
        reply_int(c, 0);
        return;
    }
    sb = start >> 3;
    eb = end >> 3;
    for (off = sb; off <= eb; off += BM_WINDOW) {
        size_t n = (size_t)(eb - off + 1 < BM_WINDOW ? eb - off + 1 : BM_WINDOW);
        const unsigned char *p = bm_bytes(e, (size_t)off, n);
        if (!p)
            goto corrupt;
        count += bit_popcount(p, n);
    }
    first = bm_byte(e, (size_t)sb);
    last = bm_byte(e, (size_t)eb);
    if (first < 0 || last < 0)
        goto corrupt;
    count -= (uint64_t)__builtin_popcount((unsigned)first & ~(0xffu >> (start & 7)) & 0xff);
    count -= (uint64_t)__builtin_popcount((unsigned)last & ((1u << (7 - (end & 7))) - 1));
    reply_int(c, (long long)count);
    return;
corrupt:
    reply_error(c, ERR_CORRUPT);
}

/* The first bit equal to bit among the bits [from, to] of e's byte at (the
 * others forced to !bit): its position in the byte, -1 if none, -2 if corrupt. */
static int edge_find(const dbent *e, long long at, int from, int to, int bit)
{
    unsigned char m = byte_mask(from, to), v;
    int b = bm_byte(e, (size_t)at);

    if (b < 0)
        return -2;
    v = bit ? (unsigned char)(b & m) : (unsigned char)(b | (unsigned char)~m);
    return (int)bit_find(&v, 1, bit);
}

/* First bit equal to bit in bits [start, end] of e, as an absolute bit
 * position, -1 if none, -2 if corrupt. */
static long long find_bit(const dbent *e, long long start, long long end, int bit)
{
    long long sb = start >> 3, eb = end >> 3, off;
    int64_t pos;
    int b;

    b = edge_find(e, sb, (int)(start & 7), sb == eb ? (int)(end & 7) : 7, bit);
    if (b != -1)
        return b < 0 ? b : sb * 8 + b;
    if (sb == eb)
        return -1;
    for (off = sb + 1; off < eb; off += BM_WINDOW) {
        size_t n = (size_t)(eb - off < BM_WINDOW ? eb - off : BM_WINDOW);
        const unsigned char *p = bm_bytes(e, (size_t)off, n);
        if (!p)
            return -2;
        if ((pos = bit_find(p, n, bit)) >= 0)
            return off * 8 + pos;
    }
    b = edge_find(e, eb, 0, (int)(end & 7), bit);
    return b < 0 ? b : eb * 8 + b;
}

static void cmd_bitpos(client *c)
{
    long long bit, start, end, len, pos;
    int isbit = 0, end_given = 0;
    dbent *e;

    if (str_to_ll(c->argv[2].p, c->argv[2].len, &bit) < 0) {
        reply_error(c, ERR_NOTINT);
        return;
    }
    if (bit != 0 && bit != 1) {
        reply_error(c, "ERR The bit argument must be 1 or 0.");
        return;
    }
    e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);
    if (!e) {
        reply_int(c, bit ? -1 : 0);
        return;
    }
    if (e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    e = sv_read_hot(c->db, e); /* a search may read the value whole, as GET does */
    len = (long long)sv_len(e);
    if (c->argc >= 4 && c->argc <= 6) {
        if (arg_ll(c, 3, &start) < 0)
            return;
        if (c->argc == 6 && arg_unit(c, 5, &isbit) < 0)
            return;
        if (c->argc >= 5) {
            if (arg_ll(c, 4, &end) < 0)
                return;
            end_given = 1;
        } else {
            end = len - 1;
        }
        clamp_range(isbit ? len * 8 : len, &start, &end);
        if (!isbit && start <= end) {
            start *= 8;
            end = end * 8 + 7;
        }
    } else if (c->argc == 3) {
        start = 0;
        end = len * 8 - 1;
    } else {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (start > end) {
        reply_int(c, -1);
        return;
    }
    pos = find_bit(e, start, end, (int)bit);
    if (pos == -2) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    if (pos == -1 && bit == 0 && !end_given)
        pos = end + 1; /* the string is taken as padded with zeros on the right */
    reply_int(c, pos);
}

enum { BITOP_AND, BITOP_OR, BITOP_XOR, BITOP_NOT };

static void cmd_bitop(client *c)
{
    static const char *const names[] = {"and", "or", "xor", "not"};
    const sarg *dst = &c->argv[2];
    int op, j, nsrc = c->argc - 3;
    size_t maxlen = 0, off, i;
    unsigned char *res = NULL;

    for (op = 0; op < 4 && !str_eq_ci(c->argv[1].p, c->argv[1].len, names[op]); op++)
        ;
    if (op == 4) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (op == BITOP_NOT && c->argc != 4) {
        reply_error(c, "ERR BITOP NOT must be called with a single source key.");
        return;
    }
    for (j = 0; j < nsrc; j++) {
        dbent *e = db_lookup(c->db, c->argv[3 + j].p, c->argv[3 + j].len);
        if (e && e->type != OBJ_STRING) {
            reply_error(c, ERR_WRONGTYPE);
            return;
        }
        if (e && sv_len(e) > maxlen)
            maxlen = sv_len(e);
    }
    if (maxlen == 0) {
        if (db_delete(c->db, dst->p, dst->len)) {
            signal_key_changed(c->db, dst->p, dst->len);
            signal_event(c->db, NOTIFY_GENERIC, "del", dst->p, dst->len);
        }
        reply_int(c, 0);
        return;
    }
    res = xmalloc(maxlen);
    for (j = 0; j < nsrc; j++) {
        /* Looked up again: nothing ran since the checks, so the same entries. */
        dbent *e = db_lookup(c->db, c->argv[3 + j].p, c->argv[3 + j].len);
        size_t len = e ? sv_len(e) : 0;
        for (off = 0; off < maxlen; off += BM_WINDOW) {
            size_t n = maxlen - off < BM_WINDOW ? maxlen - off : BM_WINDOW;
            size_t have = off < len ? (len - off < n ? len - off : n) : 0;
            const unsigned char *p = have ? bm_bytes(e, off, have) : NULL;
            unsigned char *r = res + off;
            if (have && !p) {
                xfree(res);
                reply_error(c, ERR_CORRUPT);
                return;
            }
            if (j == 0) {
                if (have)
                    memcpy(r, p, have);
                memset(r + have, 0, n - have);
                if (op == BITOP_NOT)
                    for (i = 0; i < n; i++)
                        r[i] = (unsigned char)~r[i];
                continue;
            }
            switch (op) {
            case BITOP_AND:
                for (i = 0; i < have; i++)
                    r[i] &= p[i];
                memset(r + have, 0, n - have);
                break;
            case BITOP_OR:
                for (i = 0; i < have; i++)
                    r[i] |= p[i];
                break;
            default:
                for (i = 0; i < have; i++)
                    r[i] ^= p[i];
                break;
            }
        }
    }
    sv_set(c->db, dst->p, dst->len, (const char *)res, maxlen, 0);
    xfree(res);
    signal_key_changed(c->db, dst->p, dst->len);
    signal_event(c->db, NOTIFY_STRING, "set", dst->p, dst->len);
    reply_int(c, (long long)maxlen);
}

/* ---- BITFIELD ---- */

enum { BF_GET, BF_SET, BF_INCRBY };

typedef struct bf_op {
    uint64_t off; /* bits */
    long long v;  /* SET's value or INCRBY's increment */
    int op, bits, sign, ovf;
} bf_op;

/* Parse "i16" / "u8" at argv[i]. 0, or -1 after replying. */
static int arg_bftype(client *c, int i, int *sign, int *bits)
{
    const sarg *a = &c->argv[i];
    const char *nul;
    long long n;
    size_t len;

    if (a->len == 0 || (a->p[0] != 'i' && a->p[0] != 'u'))
        goto err;
    *sign = a->p[0] == 'i';
    nul = memchr(a->p + 1, 0, a->len - 1); /* Redis reads the width as a C string */
    len = nul ? (size_t)(nul - (a->p + 1)) : a->len - 1;
    if (str_to_ll(a->p + 1, len, &n) < 0 || n < 1 || n > (*sign ? 64 : 63))
        goto err;
    *bits = (int)n;
    return 0;
err:
    reply_error(c, ERR_BFTYPE);
    return -1;
}

/* Run one operation on the bytes of e it touches; reply its result. *changed is
 * set if the stored field changed. 0, or -1 if corrupt (nothing replied). */
static int bf_run(client *c, dbent **ep, const bf_op *o, int *changed)
{
    unsigned char buf[9] = {0};
    uint64_t byte = o->off >> 3, rel = o->off & 7;
    size_t len = *ep ? sv_len(*ep) : 0, have, touched;
    uint64_t old;
    int64_t nv;
    __int128 r;
    const unsigned char *p;

    have = byte < len ? (len - byte < 9 ? (size_t)(len - byte) : 9) : 0;
    if (have) {
        if (!(p = bm_bytes(*ep, (size_t)byte, have)))
            return -1;
        memcpy(buf, p, have);
    }
    old = o->sign ? (uint64_t)bit_field_get_signed(buf, rel, o->bits) : bit_field_get(buf, rel, o->bits);
    if (o->op == BF_GET) {
        reply_int(c, (long long)old);
        return 0;
    }
    if (o->op == BF_SET) {
        r = o->sign ? (__int128)o->v : (__int128)(unsigned long long)o->v;
        /* Redis 7.0 checks a signed SET as the value plus 0 against max minus
         * the value, computed in 64 bits: for a value so low that this passes
         * 2^63 it reads as past max, and OVERFLOW SAT stores max, not min. */
        if (o->sign && o->bits < 64 && o->ovf == BIT_OVF_SAT &&
            (int64_t)((uint64_t)(((int64_t)1 << (o->bits - 1)) - 1) - (uint64_t)o->v) < 0)
            r = ((__int128)1 << (o->bits - 1)); /* max + 1: saturates to max */
    } else
        r = (o->sign ? (__int128)(int64_t)old : (__int128)old) + o->v;
    if (bit_field_fit(r, o->bits, o->sign, o->ovf, &nv) && o->ovf == BIT_OVF_FAIL) {
        reply_null(c);
        return 0;
    }
    reply_int(c, o->op == BF_SET ? (long long)old : (long long)nv);
    if ((uint64_t)nv == old)
        return 0;
    bit_field_set(buf, rel, o->bits, (uint64_t)nv);
    touched = (size_t)((rel + (uint64_t)o->bits + 7) / 8);
    if (sv_setrange(c->db, ep, (size_t)byte, (const char *)buf, touched) < 0)
        return -1;
    *changed = 1;
    return 0;
}

static void bitfield_generic(client *c, int ro)
{
    const sarg *key = &c->argv[1];
    bf_op small[16], *ops = small;
    int nops = 0, j, ovf = BIT_OVF_WRAP, readonly = 1, changed = 0, dirty = 0;
    uint64_t highest = 0;
    dbent *e;

    if (c->argc > 2 + 16 * 2)
        ops = xmalloc(sizeof(bf_op) * (size_t)c->argc);
    for (j = 2; j < c->argc; j++) {
        const sarg *a = &c->argv[j];
        int rem = c->argc - j - 1;
        bf_op *o = &ops[nops];

        if (str_eq_ci(a->p, a->len, "get") && rem >= 2) {
            o->op = BF_GET;
        } else if (str_eq_ci(a->p, a->len, "set") && rem >= 3) {
            o->op = BF_SET;
        } else if (str_eq_ci(a->p, a->len, "incrby") && rem >= 3) {
            o->op = BF_INCRBY;
        } else if (str_eq_ci(a->p, a->len, "overflow") && rem >= 1) {
            const sarg *t = &c->argv[++j];
            if (str_eq_ci(t->p, t->len, "wrap"))
                ovf = BIT_OVF_WRAP;
            else if (str_eq_ci(t->p, t->len, "sat"))
                ovf = BIT_OVF_SAT;
            else if (str_eq_ci(t->p, t->len, "fail"))
                ovf = BIT_OVF_FAIL;
            else {
                reply_error(c, "ERR Invalid OVERFLOW type specified");
                goto done;
            }
            continue;
        } else {
            reply_error(c, ERR_SYNTAX);
            goto done;
        }
        if (arg_bftype(c, j + 1, &o->sign, &o->bits) < 0 || arg_bitoffset(c, j + 2, o->bits, &o->off) < 0)
            goto done;
        o->v = 0;
        if (o->op != BF_GET) {
            readonly = 0;
            if (highest < o->off + (uint64_t)o->bits - 1)
                highest = o->off + (uint64_t)o->bits - 1;
            if (arg_ll(c, j + 3, &o->v) < 0)
                goto done;
        }
        o->ovf = ovf;
        nops++;
        j += o->op == BF_GET ? 2 : 3;
    }
    if (readonly) {
        e = db_lookup(c->db, key->p, key->len);
        if (e && e->type != OBJ_STRING) {
            reply_error(c, ERR_WRONGTYPE);
            goto done;
        }
    } else {
        if (ro) {
            reply_error(c, "ERR BITFIELD_RO only supports the GET subcommand");
            goto done;
        }
        e = db_lookup_write(c->db, key->p, key->len);
        if (e && e->type != OBJ_STRING) {
            reply_error(c, ERR_WRONGTYPE);
            goto done;
        }
        if (bm_grow(c, key, &e, (size_t)(highest >> 3) + 1, &dirty) < 0) {
            reply_error(c, ERR_CORRUPT);
            goto done;
        }
    }
    reply_array(c, nops);
    for (j = 0; j < nops; j++) {
        if (bf_run(c, &e, &ops[j], &changed) < 0) {
            /* The array's length is sent: the element becomes the error. */
            reply_error(c, ERR_CORRUPT);
        }
    }
    if (changed || dirty) {
        signal_key_changed(c->db, key->p, key->len);
        signal_event(c->db, NOTIFY_STRING, "setbit", key->p, key->len);
    }
done:
    if (ops != small)
        xfree(ops);
}

static void cmd_bitfield(client *c)
{
    bitfield_generic(c, 0);
}

static void cmd_bitfield_ro(client *c)
{
    bitfield_generic(c, 1);
}

#define W (CMD_WRITE | CMD_DENYOOM)
#define R (CMD_READONLY)
/* clang-format off */
const cmd_def cmd_table_bitmap[] = {
    {.name = "setbit", .proc = cmd_setbit, .arity = 4, .flags = W, KEYS(1, 1, 1), .group = "bitmap",
     .summary = "Sets or clears the bit at offset in the string value stored at key", .since = "2.2.0",
     .complexity = "O(1)", .acl = "write bitmap slow", .key_specs = "RW access update"},
    {.name = "getbit", .proc = cmd_getbit, .arity = 3, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "bitmap",
     .summary = "Returns the bit value at offset in the string value stored at key", .since = "2.2.0",
     .complexity = "O(1)", .acl = "read bitmap fast", .key_specs = "RO access"},
    {.name = "bitcount", .proc = cmd_bitcount, .arity = -2, .flags = R, KEYS(1, 1, 1), .group = "bitmap",
     .summary = "Count set bits in a string", .since = "2.6.0", .complexity = "O(N)", .acl = "read bitmap slow",
     .key_specs = "RO access"},
    {.name = "bitpos", .proc = cmd_bitpos, .arity = -3, .flags = R, KEYS(1, 1, 1), .group = "bitmap",
     .summary = "Find first bit set or clear in a string", .since = "2.8.7", .complexity = "O(N)",
     .acl = "read bitmap slow", .key_specs = "RO access"},
    {.name = "bitop", .proc = cmd_bitop, .arity = -4, .flags = W, KEYS(2, -1, 1), .group = "bitmap",
     .summary = "Perform bitwise operations between strings", .since = "2.6.0", .complexity = "O(N)",
     .acl = "write bitmap slow", .key_specs = "OW update@2,0,1;RO access@3,-1,1"},
    {.name = "bitfield", .proc = cmd_bitfield, .arity = -2, .flags = W, KEYS(1, 1, 1), .group = "bitmap",
     .summary = "Perform arbitrary bitfield integer operations on strings", .since = "3.2.0",
     .complexity = "O(1) for each subcommand specified", .acl = "write bitmap slow",
     .key_specs = "RW access update variable_flags#This command allows both access and modification of the key"},
    {.name = "bitfield_ro", .proc = cmd_bitfield_ro, .arity = -2, .flags = R | CMD_FAST, KEYS(1, 1, 1),
     .group = "bitmap",
     .summary = "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD",
     .since = "6.0.0", .complexity = "O(1) for each subcommand specified", .acl = "read bitmap fast",
     .key_specs = "RO access"},
    {0},
};
/* clang-format on */
