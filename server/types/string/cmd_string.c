/* cmd_string.c -- the string commands, with Redis 7's replies and errors. Values
 * go through the value layer (value.h), so every command works the same on
 * inline, heap and compressed values. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "cmd/propagate.h"
#include "net/reply.h"
#include "core/util.h"
#include "types/string/value.h"

#define ERR_STRLEN "ERR string exceeds maximum allowed size (proto-max-bulk-len)"

/* Reply bytes [off, off+n) of a string entry as a bulk string; a corrupt
 * compressed chunk is answered with an error. A compressed value is decoded
 * straight into the output (no intermediate buffer, one pass over the bytes,
 * as the copy of a raw value is); a decoding that fails takes its reply back. */
static void reply_value(client *c, const dbent *e, size_t off, size_t n)
{
    const char *p = sv_ptr(e);
    reply_place pos;
    char *dst;

    if (p) {
        reply_bulk(c, p + off, n);
        return;
    }
    reply_tell(c, &pos);
    dst = reply_bulk_reserve(c, n);
    if (dst && sv_read(e, off, n, dst) < 0) {
        reply_rollback(c, &pos);
        reply_error(c, "ERR value is corrupt: a compressed chunk failed to decompress");
    }
}

/* Look up key for reading; NULL with a reply sent if missing (nil) or of another
 * type (WRONGTYPE). */
static dbent *lookup_string_or_reply(client *c, const sarg *key)
{
    dbent *e = db_lookup(c->db, key->p, key->len);
    if (!e) {
        reply_null(c);
        return NULL;
    }
    if (e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return NULL;
    }
    return e;
}

static void cmd_get(client *c)
{
    dbent *e = lookup_string_or_reply(c, &c->argv[1]);
    if (e) {
        e = sv_read_hot(c->db, e);
        reply_value(c, e, 0, sv_len(e));
    }
}

/* ---- SET and its relatives ---- */

#define SET_NX (1 << 0)
#define SET_XX (1 << 1)
#define SET_GET (1 << 2)
#define SET_KEEPTTL (1 << 3)
#define SET_EXPIRE (1 << 4)
#define SET_PERSIST (1 << 5)

/* Parse SET/GETEX options from argv[start]. getex selects GETEX's option set.
 * As Redis: the options' syntax is checked first (the same expiry option may be
 * repeated, the last one counts; two different ones are a syntax error), then,
 * with check_values, the expiry's value. */
static int parse_set_opts(client *c, int start, int getex, int check_values, int *flags, int64_t *when)
{
    static const char *const units[] = {"ex", "px", "exat", "pxat"};
    int i, unit = -1, valpos = 0;

    for (i = start; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int has_next = i + 1 < c->argc, u;

        for (u = 0; u < 4 && !str_eq_ci(a->p, a->len, units[u]); u++)
            ;
        if (u < 4) {
            if (!has_next || (unit >= 0 && unit != u) || (*flags & (SET_KEEPTTL | SET_PERSIST))) {
                reply_error(c, ERR_SYNTAX);
                return -1;
            }
            unit = u;
            valpos = ++i;
        } else if (!getex && str_eq_ci(a->p, a->len, "nx") && !(*flags & SET_XX)) {
            *flags |= SET_NX;
        } else if (!getex && str_eq_ci(a->p, a->len, "xx") && !(*flags & SET_NX)) {
            *flags |= SET_XX;
        } else if (!getex && str_eq_ci(a->p, a->len, "get")) {
            *flags |= SET_GET;
        } else if (!getex && str_eq_ci(a->p, a->len, "keepttl") && unit < 0 && !(*flags & SET_PERSIST)) {
            *flags |= SET_KEEPTTL;
        } else if (getex && str_eq_ci(a->p, a->len, "persist") && unit < 0 && !(*flags & SET_KEEPTTL)) {
            *flags |= SET_PERSIST;
        } else {
            reply_error(c, ERR_SYNTAX);
            return -1;
        }
    }
    if (unit >= 0) {
        *flags |= SET_EXPIRE;
        if (check_values && arg_expire(c, valpos, unit == 0 || unit == 2, unit >= 2 ? 0 : db_now, 1, when) < 0)
            return -1;
    }
    return 0;
}

/* The core of SET/SETNX/SETEX/PSETEX. */
static void set_generic(client *c, const sarg *key, const sarg *val, int flags, int64_t when, int reply_int_mode)
{
    dbent *e = db_lookup_write(c->db, key->p, key->len);

    if (flags & SET_GET) {
        if (e && e->type != OBJ_STRING) {
            reply_error(c, ERR_WRONGTYPE);
            return;
        }
        if (e) {
            db_touch(e); /* Redis's GET reads the key once more: a second access */
            reply_value(c, e, 0, sv_len(e));
        } else
            reply_null(c);
    }
    if ((flags & SET_NX && e) || (flags & SET_XX && !e)) {
        if (reply_int_mode)
            reply_int(c, 0);
        else if (!(flags & SET_GET))
            reply_null(c);
        return;
    }
    db_touch_off++; /* the lookup above was this command's access */
    e = sv_set(c->db, key->p, key->len, val->p, val->len,
               ((flags & SET_KEEPTTL) ? SV_KEEPTTL : 0) | ((flags & SET_EXPIRE) ? SV_TTL : 0));
    db_touch_off--;
    if (flags & SET_EXPIRE)
        e = db_set_expire(c->db, e, when);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_STRING, "set", key->p, key->len);
    if (flags & SET_EXPIRE)
        signal_event(c->db, NOTIFY_GENERIC, "expire", key->p, key->len);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("SET");
        prop_arg(key);
        prop_arg(val);
        if (flags & SET_EXPIRE) {
            prop_str("PXAT");
            prop_ll(when);
        } else if (flags & SET_KEEPTTL) {
            prop_str("KEEPTTL");
        }
        prop_end();
    }
    if (reply_int_mode)
        reply_int(c, 1);
    else if (!(flags & SET_GET))
        reply_ok(c);
}

static void cmd_set(client *c)
{
    int flags = 0;
    int64_t when = 0;
    if (parse_set_opts(c, 3, 0, 1, &flags, &when) < 0)
        return;
    set_generic(c, &c->argv[1], &c->argv[2], flags, when, 0);
}

static void cmd_setnx(client *c)
{
    set_generic(c, &c->argv[1], &c->argv[2], SET_NX, 0, 1);
}

static void setex_generic(client *c, int seconds)
{
    int64_t when;
    if (arg_expire(c, 2, seconds, db_now, 1, &when) < 0)
        return;
    set_generic(c, &c->argv[1], &c->argv[3], SET_EXPIRE, when, 0);
}

static void cmd_setex(client *c)
{
    setex_generic(c, 1);
}

static void cmd_psetex(client *c)
{
    setex_generic(c, 0);
}

static void cmd_getset(client *c)
{
    set_generic(c, &c->argv[1], &c->argv[2], SET_GET, 0, 0);
}

static void cmd_getdel(client *c)
{
    dbent *e = lookup_string_or_reply(c, &c->argv[1]);
    if (!e)
        return;
    reply_value(c, e, 0, sv_len(e));
    db_delete_entry(c->db, e);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[1].p, c->argv[1].len);
}

static void cmd_getex(client *c)
{
    int flags = 0;
    int64_t when = 0;
    dbent *e;

    /* As Redis: syntax first, then the key, then the expiry's value (so a
     * missing key answers nil even with a bad expiry). */
    if (parse_set_opts(c, 2, 1, 0, &flags, &when) < 0)
        return;
    e = lookup_string_or_reply(c, &c->argv[1]);
    if (!e)
        return;
    flags = 0;
    if (parse_set_opts(c, 2, 1, 1, &flags, &when) < 0)
        return;
    reply_value(c, e, 0, sv_len(e));
    if ((flags & SET_EXPIRE) && when <= db_now) {
        /* An EXAT/PXAT already past deletes the key, as Redis (logged as DEL). */
        db_delete_entry(c->db, e);
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[1].p, c->argv[1].len);
        if (prop_on)
            prop_del(c->dbid, c->argv[1].p, c->argv[1].len);
        return;
    }
    if (flags & SET_EXPIRE) {
        e = db_set_expire(c->db, e, when);
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_GENERIC, "expire", c->argv[1].p, c->argv[1].len);
    } else if ((flags & SET_PERSIST) && db_persist(c->db, e)) {
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_GENERIC, "persist", c->argv[1].p, c->argv[1].len);
    } else {
        return;
    }
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str(flags & SET_EXPIRE ? "PEXPIREAT" : "PERSIST");
        prop_arg(&c->argv[1]);
        if (flags & SET_EXPIRE)
            prop_ll(when);
        prop_end();
    }
}

static void cmd_mget(client *c)
{
    int i;
    reply_array(c, c->argc - 1);
    for (i = 1; i < c->argc; i++) {
        dbent *e = db_lookup(c->db, c->argv[i].p, c->argv[i].len);
        if (!e || e->type != OBJ_STRING)
            reply_null(c);
        else
            reply_value(c, e, 0, sv_len(e));
    }
}

static void mset_generic(client *c, int nx)
{
    int i;
    if (c->argc % 2 == 0) {
        reply_arity_error(c);
        return;
    }
    if (nx) {
        for (i = 1; i < c->argc; i += 2) {
            if (db_lookup_write(c->db, c->argv[i].p, c->argv[i].len)) {
                reply_int(c, 0);
                return;
            }
        }
    }
    for (i = 1; i < c->argc; i += 2) {
        sv_set(c->db, c->argv[i].p, c->argv[i].len, c->argv[i + 1].p, c->argv[i + 1].len, 0);
        signal_key_changed(c->db, c->argv[i].p, c->argv[i].len);
        signal_event(c->db, NOTIFY_STRING, "set", c->argv[i].p, c->argv[i].len);
    }
    if (nx)
        reply_int(c, 1);
    else
        reply_ok(c);
}

static void cmd_mset(client *c)
{
    mset_generic(c, 0);
}

static void cmd_msetnx(client *c)
{
    mset_generic(c, 1);
}

static void cmd_append(client *c)
{
    const sarg *key = &c->argv[1], *val = &c->argv[2];
    dbent *e = db_lookup_write(c->db, key->p, key->len);

    if (!e) {
        e = sv_set(c->db, key->p, key->len, val->p, val->len, 0);
    } else {
        if (e->type != OBJ_STRING) {
            reply_error(c, ERR_WRONGTYPE);
            return;
        }
        if ((long long)(sv_len(e) + val->len) > srv.cfg.proto_max_bulk_len) {
            reply_error(c, ERR_STRLEN);
            return;
        }
        if (sv_append(c->db, &e, val->p, val->len) < 0) {
            reply_error(c, "ERR value is corrupt: a compressed chunk failed to decompress");
            return;
        }
    }
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_STRING, "append", key->p, key->len);
    reply_int(c, (long long)sv_len(e));
}

static void cmd_strlen(client *c)
{
    dbent *e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);
    if (!e) {
        reply_int(c, 0);
        return;
    }
    if (e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    reply_int(c, (long long)sv_len(e));
}

static void cmd_getrange(client *c)
{
    long long start, end, len;
    dbent *e;

    if (arg_ll(c, 2, &start) < 0 || arg_ll(c, 3, &end) < 0)
        return;
    e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);
    if (!e) {
        reply_bulk(c, "", 0);
        return;
    }
    if (e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    len = (long long)sv_len(e);
    if (start < 0 && end < 0 && start > end) {
        reply_bulk(c, "", 0);
        return;
    }
    if (start < 0)
        start += len;
    if (end < 0)
        end += len;
    if (start < 0)
        start = 0;
    if (end < 0)
        end = 0;
    if (end >= len)
        end = len - 1;
    if (start > end || len == 0) {
        reply_bulk(c, "", 0);
        return;
    }
    reply_value(c, e, (size_t)start, (size_t)(end - start + 1));
}

static void cmd_setrange(client *c)
{
    const sarg *key = &c->argv[1], *val = &c->argv[3];
    long long off;
    dbent *e;

    if (arg_ll(c, 2, &off) < 0)
        return;
    if (off < 0) {
        reply_error(c, "ERR offset is out of range");
        return;
    }
    e = db_lookup_write(c->db, key->p, key->len);
    if (e && e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    if (val->len == 0) {
        reply_int(c, e ? (long long)sv_len(e) : 0);
        return;
    }
    if (off > srv.cfg.proto_max_bulk_len - (long long)val->len) {
        reply_error(c, ERR_STRLEN);
        return;
    }
    if (!e)
        e = sv_set(c->db, key->p, key->len, "", 0, 0);
    if (sv_setrange(c->db, &e, (size_t)off, val->p, val->len) < 0) {
        reply_error(c, "ERR value is corrupt: a compressed chunk failed to decompress");
        return;
    }
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_STRING, "setrange", key->p, key->len);
    reply_int(c, (long long)sv_len(e));
}

/* Read an integer value of key (0 if missing). 0, or -1 after replying. */
static int get_int_value(client *c, dbent *e, long long *v)
{
    char buf[32];
    size_t n;

    *v = 0;
    if (!e)
        return 0;
    if (e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return -1;
    }
    n = sv_len(e);
    if (n > 20 || sv_read(e, 0, n, buf) < 0 || str_to_ll(buf, n, v) < 0) {
        reply_error(c, ERR_NOTINT);
        return -1;
    }
    return 0;
}

static void incr_generic(client *c, long long by)
{
    const sarg *key = &c->argv[1];
    dbent *e = db_lookup_write(c->db, key->p, key->len);
    long long v;
    char buf[24];
    size_t n;

    if (get_int_value(c, e, &v) < 0)
        return;
    if ((by < 0 && v < 0 && by < LLONG_MIN - v) || (by > 0 && v > 0 && by > LLONG_MAX - v)) {
        reply_error(c, ERR_OVERFLOW);
        return;
    }
    v += by;
    n = ll_to_str(buf, v);
    if (e)
        sv_replace(c->db, e, buf, n);
    else
        sv_set(c->db, key->p, key->len, buf, n, 0);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_STRING, "incrby", key->p, key->len);
    reply_int(c, v);
}

static void cmd_incr(client *c)
{
    incr_generic(c, 1);
}

static void cmd_decr(client *c)
{
    incr_generic(c, -1);
}

static void cmd_incrby(client *c)
{
    long long by;
    if (arg_ll(c, 2, &by) == 0)
        incr_generic(c, by);
}

static void cmd_decrby(client *c)
{
    long long by;
    if (arg_ll(c, 2, &by) < 0)
        return;
    if (by == LLONG_MIN) {
        reply_error(c, "ERR decrement would overflow");
        return;
    }
    incr_generic(c, -by);
}

static void cmd_incrbyfloat(client *c)
{
    const sarg *key = &c->argv[1];
    dbent *e = db_lookup_write(c->db, key->p, key->len);
    long double v = 0, by;
    char buf[5200];
    size_t n;

    if (e && e->type != OBJ_STRING) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    if (e) {
        n = sv_len(e);
        if (n >= sizeof(buf) || sv_read(e, 0, n, buf) < 0 || str_to_ld(buf, n, &v) < 0) {
            reply_error(c, ERR_NOTFLOAT);
            return;
        }
    }
    if (str_to_ld(c->argv[2].p, c->argv[2].len, &by) < 0) {
        reply_error(c, ERR_NOTFLOAT);
        return;
    }
    v += by;
    if (isnan(v) || isinf(v)) {
        reply_error(c, "ERR increment would produce NaN or Infinity");
        return;
    }
    n = ld_to_str(buf, sizeof(buf), v);
    if (e)
        sv_replace(c->db, e, buf, n);
    else
        sv_set(c->db, key->p, key->len, buf, n, 0);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_STRING, "incrbyfloat", key->p, key->len);
    if (prop_on) {
        /* The result, not the increment: float arithmetic is not replayed. */
        prop_begin(c->dbid);
        prop_str("SET");
        prop_arg(key);
        prop_bytes(buf, n);
        prop_str("KEEPTTL");
        prop_end();
    }
    reply_bulk(c, buf, n);
}

#define W (CMD_WRITE | CMD_DENYOOM)
#define R (CMD_READONLY)
/* clang-format off */
const cmd_def cmd_table_string[] = {
    {.name = "get", .proc = cmd_get, .arity = 2, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "string",
     .summary = "Returns the string value of a key.", .since = "1.0.0", .complexity = "O(1)",
     .acl = "read string fast", .key_specs = "RO access"},
    {.name = "set", .proc = cmd_set, .arity = -3, .flags = W | CMD_OWN_EFFECT, KEYS(1, 1, 1), .group = "string",
     .summary = "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
     .since = "1.0.0", .complexity = "O(1)", .acl = "write string slow",
     .key_specs = "RW access update variable_flags#RW and ACCESS due to the optional `GET` argument"},
    {.name = "setnx", .proc = cmd_setnx, .arity = 3, .flags = W | CMD_OWN_EFFECT | CMD_FAST, KEYS(1, 1, 1),
     .group = "string", .summary = "Set the string value of a key only when the key doesn't exist.",
     .since = "1.0.0", .complexity = "O(1)", .acl = "write string fast", .key_specs = "OW insert"},
    {.name = "setex", .proc = cmd_setex, .arity = 4, .flags = W | CMD_OWN_EFFECT, KEYS(1, 1, 1), .group = "string",
     .summary = "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
     .since = "2.0.0", .complexity = "O(1)", .acl = "write string slow", .key_specs = "OW update"},
    {.name = "psetex", .proc = cmd_psetex, .arity = 4, .flags = W | CMD_OWN_EFFECT, KEYS(1, 1, 1), .group = "string",
     .summary = "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.",
     .since = "2.6.0", .complexity = "O(1)", .acl = "write string slow", .key_specs = "OW update"},
    {.name = "getset", .proc = cmd_getset, .arity = 3, .flags = W | CMD_OWN_EFFECT | CMD_FAST, KEYS(1, 1, 1),
     .group = "string", .summary = "Returns the previous string value of a key after setting it to a new value.",
     .since = "1.0.0", .complexity = "O(1)", .acl = "write string fast", .key_specs = "RW access update"},
    {.name = "getdel", .proc = cmd_getdel, .arity = 2, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1),
     .group = "string", .summary = "Returns the string value of a key after deleting the key.", .since = "6.2.0",
     .complexity = "O(1)", .acl = "write string fast", .key_specs = "RW access delete"},
    {.name = "getex", .proc = cmd_getex, .arity = -2, .flags = CMD_WRITE | CMD_OWN_EFFECT | CMD_FAST, KEYS(1, 1, 1),
     .group = "string", .summary = "Returns the string value of a key after setting its expiration time.",
     .since = "6.2.0", .complexity = "O(1)", .acl = "write string fast",
     .key_specs = "RW access update#RW and UPDATE because it changes the TTL"},
    {.name = "mget", .proc = cmd_mget, .arity = -2, .flags = R | CMD_FAST, KEYS(1, -1, 1), .group = "string",
     .summary = "Atomically returns the string values of one or more keys.", .since = "1.0.0",
     .complexity = "O(N) where N is the number of keys to retrieve.", .acl = "read string fast",
     .tips = "request_policy:multi_shard", .key_specs = "RO access"},
    {.name = "mset", .proc = cmd_mset, .arity = -3, .flags = W, KEYS(1, -1, 2), .group = "string",
     .summary = "Atomically creates or modifies the string values of one or more keys.", .since = "1.0.1",
     .complexity = "O(N) where N is the number of keys to set.", .acl = "write string slow",
     .tips = "request_policy:multi_shard response_policy:all_succeeded", .key_specs = "OW update"},
    {.name = "msetnx", .proc = cmd_msetnx, .arity = -3, .flags = W, KEYS(1, -1, 2), .group = "string",
     .summary = "Atomically modifies the string values of one or more keys only when all keys don't exist.",
     .since = "1.0.1", .complexity = "O(N) where N is the number of keys to set.", .acl = "write string slow",
     .tips = "request_policy:multi_shard response_policy:agg_min", .key_specs = "OW insert"},
    {.name = "append", .proc = cmd_append, .arity = 3, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "string",
     .summary = "Appends a string to the value of a key. Creates the key if it doesn't exist.", .since = "2.0.0",
     .complexity = "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.",
     .acl = "write string fast", .key_specs = "RW insert"},
    {.name = "strlen", .proc = cmd_strlen, .arity = 2, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "string",
     .summary = "Returns the length of a string value.", .since = "2.2.0", .complexity = "O(1)",
     .acl = "read string fast", .key_specs = "RO"},
    {.name = "getrange", .proc = cmd_getrange, .arity = 4, .flags = R, KEYS(1, 1, 1), .group = "string",
     .summary = "Returns a substring of the string stored at a key.", .since = "2.4.0",
     .complexity = "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
     .acl = "read string slow", .key_specs = "RO access"},
    {.name = "substr", .proc = cmd_getrange, .arity = 4, .flags = R, KEYS(1, 1, 1), .group = "string",
     .summary = "Returns a substring from a string value.", .since = "1.0.0",
     .complexity = "O(N) where N is the length of the returned string.", .acl = "read string slow",
     .key_specs = "RO access"},
    {.name = "setrange", .proc = cmd_setrange, .arity = 4, .flags = W, KEYS(1, 1, 1), .group = "string",
     .summary = "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.",
     .since = "2.2.0", .complexity = "O(1), not counting the time taken to copy the new string in place.",
     .acl = "write string slow", .key_specs = "RW update"},
    {.name = "incr", .proc = cmd_incr, .arity = 2, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "string",
     .summary = "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
     .since = "1.0.0", .complexity = "O(1)", .acl = "write string fast", .key_specs = "RW access update"},
    {.name = "decr", .proc = cmd_decr, .arity = 2, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "string",
     .summary = "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
     .since = "1.0.0", .complexity = "O(1)", .acl = "write string fast", .key_specs = "RW access update"},
    {.name = "incrby", .proc = cmd_incrby, .arity = 3, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "string",
     .summary = "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
     .since = "1.0.0", .complexity = "O(1)", .acl = "write string fast", .key_specs = "RW access update"},
    {.name = "decrby", .proc = cmd_decrby, .arity = 3, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "string",
     .summary = "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.",
     .since = "1.0.0", .complexity = "O(1)", .acl = "write string fast", .key_specs = "RW access update"},
    {.name = "incrbyfloat", .proc = cmd_incrbyfloat, .arity = 3, .flags = W | CMD_OWN_EFFECT | CMD_FAST,
     KEYS(1, 1, 1), .group = "string",
     .summary = "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
     .since = "2.6.0", .complexity = "O(1)", .acl = "write string fast", .key_specs = "RW access update"},
    {0},
};
/* clang-format on */
