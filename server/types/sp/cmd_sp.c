/* cmd_sp.c -- the SP.* commands: scratchpads of named entries for AI agents.
 *
 * A scratchpad is a key of type OBJ_SCRATCHPAD whose value is an sp (sp.h). The
 * namespace is the first key argument of every command, so the generic key
 * commands (DEL, EXPIRE, RENAME, SCAN TYPE scratchpad, ...) act on whole
 * sessions. Reads of a missing entry or namespace answer nil, as GET does.
 *
 * Invariants kept here: a scratchpad key never holds zero entries (the key is
 * deleted with its last entry); the keyspace's sub-expiry heap always holds the
 * earliest entry expiry of each scratchpad (update_subexpire after every
 * change); every change bumps the entry's version and calls signal_key_changed. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "cmd/propagate.h"
#include "net/reply.h"
#include "core/sp/sp.h"
#include "core/sp/spgrep.h"
#include "core/util.h"
#include "types/sp/sptype.h"
#include "keyspace/vcomp.h"

#define NAME_RULE "names are 1 to 255 bytes of A-Z a-z 0-9 _ - . : / with no empty, '.' or '..' path segment"
#define ERR_CORRUPT "ERR entry is corrupt: a compressed chunk failed to decompress"
#define PEEK_DEFAULT 500
#define GREP_MAX_DEFAULT 100
#define GREP_CONTEXT_MAX 1000

static spgrep_cache *grep_cache;

/* The effect of a change to entry e of s at key ns: its full state, _SPENTRY
 * (docs/aof.md). */
static void prop_sp_entry(int dbid, const char *ns, size_t nslen, const sp *s, const sp_entry *e)
{
    prop_begin(dbid);
    prop_str("_SPENTRY");
    prop_bytes(ns, nslen);
    prop_bytes(e->name, e->nlen);
    prop_ll(e->kind);
    prop_ll((long long)e->version);
    prop_ll(e->created);
    prop_ll(e->updated);
    prop_ll(e->expire);
    prop_ll((long long)s->offload_seq);
    if (e->enc == SP_ENC_LZ4)
        prop_lzval(e->lz);
    else
        prop_bytes(e->raw, e->size);
    prop_end();
}

/* ---- lookups ---- */

/* The scratchpad at argv[1] for reading, or NULL if absent (nothing replied) or
 * of another type (*replied = 1, WRONGTYPE sent). Entries due to expire were
 * removed by the lookup (db_lookup applies the sub-expiry). */
static sp *ns_read(client *c, dbent **out, int *replied)
{
    dbent *e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);

    *replied = 0;
    if (out)
        *out = NULL;
    if (!e)
        return NULL;
    if (e->type != OBJ_SCRATCHPAD) {
        reply_error(c, ERR_WRONGTYPE);
        *replied = 1;
        return NULL;
    }
    if (out)
        *out = e;
    return dbent_ptr(e);
}

/* As ns_read, without counting a keyspace hit or miss (for writes). */
static sp *ns_write(client *c, dbent **out, int *replied)
{
    dbent *e = db_lookup_write(c->db, c->argv[1].p, c->argv[1].len);

    *replied = 0;
    *out = NULL;
    if (!e)
        return NULL;
    if (e->type != OBJ_SCRATCHPAD) {
        reply_error(c, ERR_WRONGTYPE);
        *replied = 1;
        return NULL;
    }
    *out = e;
    return dbent_ptr(e);
}

static sp *ns_create(client *c, dbent **out)
{
    return sp_key_create(c->db, c->argv[1].p, c->argv[1].len, out);
}

/* After a change to scratchpad s at key e: keep the sub-expiry heap exact, drop
 * the key if it has no entries left, and signal the change. */
static void ns_changed(client *c, dbent *e, sp *s)
{
    if (s->n == 0)
        db_delete_entry(c->db, e);
    else
        db_set_subexpire(c->db, e, sp_next_expire(s));
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
}

/* Log the full state of entry e (WRITE, OFFLOAD, EDIT, INSERT, a new entry of
 * APPEND): _SPENTRY, its content in the chunks it is stored in. */
static void log_entry(client *c, const sp *s, const sp_entry *e)
{
    if (prop_on)
        prop_sp_entry(c->dbid, c->argv[1].p, c->argv[1].len, s, e);
}

/* Check an entry name, replying the rule if it is invalid. 0 / -1. */
static int check_name(client *c, const sarg *name)
{
    char shown[2 * SP_NAME_MAX + 16];
    size_t i, o = 0;

    if (sp_name_valid(name->p, name->len))
        return 0;
    for (i = 0; i < name->len && o < sizeof(shown) - 8; i++) {
        unsigned char ch = (unsigned char)name->p[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\'')
            shown[o++] = (char)ch;
        else
            o += (size_t)snprintf(shown + o, sizeof(shown) - o, "\\x%02x", ch);
    }
    if (i < name->len)
        o += (size_t)snprintf(shown + o, sizeof(shown) - o, "...");
    shown[o] = '\0';
    reply_errorf(c, "ERR invalid entry name '%s' (%zu bytes): " NAME_RULE, shown, name->len);
    return -1;
}

/* IFVERSION check: want < 0 means not given. 0 / -1 after replying. */
static int check_version(client *c, const sp_entry *e, long long want)
{
    uint64_t cur = e ? e->version : 0;
    if (want < 0 || cur == (uint64_t)want)
        return 0;
    if (!e)
        reply_errorf(c, "VERSION entry does not exist, not at version %lld", want);
    else
        reply_errorf(c, "VERSION entry is at version %llu, not %lld", (unsigned long long)cur, want);
    return -1;
}

static int arg_is(const sarg *a, const char *w)
{
    return str_eq_ci(a->p, a->len, w);
}

/* Parse a non-negative integer option value. 0 / -1 after replying. */
static int arg_nonneg(client *c, int i, const char *what, long long *out)
{
    if (arg_ll(c, i, out) < 0)
        return -1;
    if (*out < 0) {
        reply_errorf(c, "ERR %s must not be negative", what);
        return -1;
    }
    return 0;
}

/* Bytes [b0, b1) of an entry: *out points at them (into the entry, or into *tmp,
 * an xmalloc'd copy the caller frees). 0, or -1 if a chunk is corrupt. Getting
 * the bytes before replying lets a corrupt chunk be a top-level error. */
static int entry_bytes(const sp_entry *e, size_t b0, size_t b1, const char **out, char **tmp)
{
    sp_params pr = sp_server_params();

    *tmp = NULL;
    if (e->enc == SP_ENC_RAW) {
        *out = e->raw + b0;
        return 0;
    }
    *tmp = xmalloc(b1 - b0 + 1);
    if (sp_entry_read(e, b0, b1 - b0, *tmp, &pr) < 0) {
        xfree(*tmp);
        *tmp = NULL;
        return -1;
    }
    *out = *tmp;
    return 0;
}

/* Reply bytes [b0, b1) of an entry as a bulk string. */
static void reply_entry_bytes(client *c, const sp_entry *e, size_t b0, size_t b1)
{
    sp_params pr = sp_server_params();
    char *tmp;

    if (e->enc == SP_ENC_RAW) {
        reply_bulk(c, e->raw + b0, b1 - b0);
        return;
    }
    tmp = xmalloc(b1 - b0 + 1);
    if (sp_entry_read(e, b0, b1 - b0, tmp, &pr) < 0)
        reply_error(c, ERR_CORRUPT);
    else
        reply_bulk(c, tmp, b1 - b0);
    xfree(tmp);
}

/* The entry named by argv[2] of the scratchpad at argv[1], for reading; NULL
 * after a reply was sent: an invalid name, WRONGTYPE, or nil for a missing
 * entry or scratchpad (as GET on a missing key). */
static sp_entry *entry_for_read(client *c)
{
    const sarg *name = &c->argv[2];
    int replied;
    sp_entry *e;
    sp *s;

    if (check_name(c, name) < 0)
        return NULL;
    s = ns_read(c, NULL, &replied);
    if (replied)
        return NULL;
    e = s ? sp_find(s, name->p, name->len) : NULL;
    if (!e)
        reply_null(c);
    return e;
}

static const char *kind_name(const sp_entry *e)
{
    return e->kind == SP_TEXT ? "text" : "binary";
}

static long long entry_ttl_ms(const sp_entry *e)
{
    if (e->expire < 0)
        return -1;
    return e->expire > db_now ? e->expire - db_now : 0;
}

static int64_t default_expire(void)
{
    return srv.cfg.sp_default_ttl > 0 ? db_now + srv.cfg.sp_default_ttl * 1000LL : -1;
}

/* ---- SP.WRITE ---- */

#define W_NX 1
#define W_XX 2
#define W_KEEPTTL 4

/* Options shared by WRITE and OFFLOAD: EX/PX/KEEPTTL, KIND. */
typedef struct wopts {
    int flags;
    int kind;            /* -1 = detect */
    int64_t expire;      /* absolute ms, -1 = none given */
    long long ifversion; /* -1 = not given */
} wopts;

/* Parse an expiry amount at argv[i] (seconds or ms) into an absolute time. */
static int parse_ttl(client *c, int i, int seconds, int64_t *when)
{
    long long v;
    if (arg_ll(c, i, &v) < 0)
        return -1;
    if (v <= 0 || (seconds && v > LLONG_MAX / 1000) || (seconds ? v * 1000 : v) > LLONG_MAX - db_now) {
        reply_errorf(c, "ERR invalid expire time in '%s' command", cmd_fullname(c->cmd));
        return -1;
    }
    *when = db_now + (seconds ? v * 1000 : v);
    return 0;
}

static int parse_kind(client *c, int i, int *kind)
{
    if (arg_is(&c->argv[i], "text"))
        *kind = SP_TEXT;
    else if (arg_is(&c->argv[i], "binary"))
        *kind = SP_BINARY;
    else {
        reply_error(c, "ERR KIND must be text or binary");
        return -1;
    }
    return 0;
}

/* Resolve the kind of content p[0..n): the requested one (text must be valid
 * UTF-8) or the detected one. -1 after replying. ti: the scan, for
 * sp_entry_set_info. */
static int resolve_kind(client *c, int want, const char *p, size_t n, sp_textinfo *ti)
{
    if (vc_threshold > 0 && n >= vc_threshold)
        sp_text_scan_sub(p, n, vc_chunk, ti); /* to be compressed: with sub-block counts */
    else
        sp_text_scan(p, n, ti);
    if (want == SP_TEXT && !ti->utf8) {
        reply_error(c, "ERR KIND text requires valid UTF-8 content");
        return -1;
    }
    return want >= 0 ? want : sp_kind_of(ti);
}

static void cmd_sp_write(client *c)
{
    const sarg *name = &c->argv[2], *val = &c->argv[3];
    wopts o = {0, -1, -1, -1};
    sp_params pr = sp_server_params();
    sp_textinfo ti;
    dbent *ke;
    sp_entry *e;
    sp *s;
    int i, replied, kind, ttl_given = 0;

    for (i = 4; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < c->argc;
        if ((arg_is(a, "ex") || arg_is(a, "px")) && more && !ttl_given) {
            if (parse_ttl(c, i + 1, arg_is(a, "ex"), &o.expire) < 0)
                return;
            ttl_given = 1;
            i++;
        } else if (arg_is(a, "keepttl") && !ttl_given) {
            o.flags |= W_KEEPTTL;
            ttl_given = 1;
        } else if (arg_is(a, "kind") && more) {
            if (parse_kind(c, i + 1, &o.kind) < 0)
                return;
            i++;
        } else if (arg_is(a, "nx") && !(o.flags & W_XX)) {
            o.flags |= W_NX;
        } else if (arg_is(a, "xx") && !(o.flags & W_NX)) {
            o.flags |= W_XX;
        } else if (arg_is(a, "ifversion") && more) {
            if (arg_nonneg(c, i + 1, "IFVERSION", &o.ifversion) < 0)
                return;
            i++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (check_name(c, name) < 0)
        return;
    if ((kind = resolve_kind(c, o.kind, val->p, val->len, &ti)) < 0)
        return;
    s = ns_write(c, &ke, &replied);
    if (replied)
        return;
    e = s ? sp_find(s, name->p, name->len) : NULL;
    if ((o.flags & W_NX && e) || (o.flags & W_XX && !e)) {
        reply_null(c);
        return;
    }
    if (check_version(c, e, o.ifversion) < 0)
        return;
    if (!s)
        s = ns_create(c, &ke);
    if (!e)
        e = sp_add(s, name->p, name->len, db_now);
    sp_entry_set_info(s, e, val->p, val->len, kind, &ti, &pr);
    e->version++;
    e->updated = db_now;
    if (o.expire >= 0)
        sp_set_expire(s, e, o.expire);
    else if (!(o.flags & W_KEEPTTL))
        sp_set_expire(s, e, default_expire());
    ns_changed(c, ke, s);
    log_entry(c, s, e);
    reply_int(c, (long long)e->version);
}

/* ---- SP.APPEND ---- */

static void cmd_sp_append(client *c)
{
    const sarg *name = &c->argv[2], *val = &c->argv[3];
    long long ifversion = -1;
    sp_params pr = sp_server_params();
    sp_textinfo ti;
    dbent *ke;
    sp_entry *e;
    sp *s;
    int replied, created = 0;

    if (c->argc == 6 && arg_is(&c->argv[4], "ifversion")) {
        if (arg_nonneg(c, 5, "IFVERSION", &ifversion) < 0)
            return;
    } else if (c->argc != 4) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (check_name(c, name) < 0)
        return;
    s = ns_write(c, &ke, &replied);
    if (replied)
        return;
    e = s ? sp_find(s, name->p, name->len) : NULL;
    if (check_version(c, e, ifversion) < 0)
        return;
    sp_text_scan(val->p, val->len, &ti);
    if (e && e->kind == SP_TEXT && !ti.utf8) {
        reply_error(c, "ERR cannot append invalid UTF-8 to a text entry");
        return;
    }
    if (e && (long long)(e->size + val->len) > srv.cfg.proto_max_bulk_len) {
        reply_error(c, "ERR entry would exceed the maximum allowed size (proto-max-bulk-len)");
        return;
    }
    if (!e) {
        if (!s)
            s = ns_create(c, &ke);
        e = sp_add(s, name->p, name->len, db_now);
        sp_entry_set_info(s, e, val->p, val->len, sp_kind_of(&ti), &ti, &pr);
        sp_set_expire(s, e, default_expire());
        created = 1;
    } else if (sp_entry_append_info(s, e, val->p, val->len, &ti, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    e->version++;
    e->updated = db_now;
    ns_changed(c, ke, s);
    if (created) {
        log_entry(c, s, e);
    } else if (prop_on) {
        prop_begin(c->dbid);
        prop_str("_SPAPPEND");
        prop_arg(&c->argv[1]);
        prop_arg(name);
        prop_ll((long long)e->version);
        prop_ll(e->updated);
        prop_arg(val);
        prop_end();
    }
    reply_int(c, (long long)sp_entry_length(e));
}

/* ---- windows: SP.READ and SP.RANGE ---- */

enum { WIN_ALL, WIN_OFFSET, WIN_HEAD, WIN_TAIL, WIN_LINES };

/* Convert the unit range [u0, u1) of e to bytes. */
static int units_to_bytes(const sp_entry *e, int bytes, size_t u0, size_t u1, size_t *b0, size_t *b1)
{
    sp_params pr = sp_server_params();
    if (bytes || e->kind != SP_TEXT) {
        *b0 = u0;
        *b1 = u1;
        return 0;
    }
    if (sp_entry_char_to_byte(e, u0, b0, &pr) < 0 || sp_entry_char_to_byte(e, u1, b1, &pr) < 0)
        return -1;
    return 0;
}

static void cmd_sp_read(client *c)
{
    int mode = WIN_ALL, bytes = 0, withmeta = 0, i, has_limit = 0;
    long long a = 0, b = 0, limit = 0;
    size_t len, u0, u1, b0, b1, lines = 0;
    long long meta_off, meta_next = -1;
    int truncated;
    sp_params pr = sp_server_params();
    sp_entry *e;

    for (i = 3; i < c->argc; i++) {
        const sarg *o = &c->argv[i];
        int more = i + 1 < c->argc;
        if (arg_is(o, "offset") && more && (mode == WIN_ALL || (mode == WIN_OFFSET && !a && has_limit))) {
            if (arg_nonneg(c, i + 1, "OFFSET", &a) < 0)
                return;
            mode = WIN_OFFSET;
            i++;
        } else if (arg_is(o, "limit") && more && (mode == WIN_ALL || mode == WIN_OFFSET) && !has_limit) {
            if (arg_nonneg(c, i + 1, "LIMIT", &limit) < 0)
                return;
            mode = WIN_OFFSET;
            has_limit = 1;
            i++;
        } else if ((arg_is(o, "head") || arg_is(o, "tail")) && more && mode == WIN_ALL) {
            if (arg_nonneg(c, i + 1, arg_is(o, "head") ? "HEAD" : "TAIL", &a) < 0)
                return;
            mode = arg_is(o, "head") ? WIN_HEAD : WIN_TAIL;
            i++;
        } else if (arg_is(o, "lines") && i + 2 < c->argc && mode == WIN_ALL) {
            if (arg_ll(c, i + 1, &a) < 0 || arg_ll(c, i + 2, &b) < 0)
                return;
            mode = WIN_LINES;
            i += 2;
        } else if (arg_is(o, "bytes")) {
            bytes = 1;
        } else if (arg_is(o, "withmeta")) {
            withmeta = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (!(e = entry_for_read(c)))
        return;
    len = bytes ? e->size : sp_entry_length(e);
    if (mode == WIN_LINES) {
        long long L = (long long)sp_entry_lines(e);
        lines = (size_t)L;
        if (a < 0)
            a = L + 1 + a;
        if (b < 0)
            b = L + 1 + b;
        if (a < 1)
            a = 1;
        if (b > L)
            b = L;
        meta_off = a;
        if (a > b || a > L) {
            b0 = b1 = 0;
            truncated = 0;
        } else {
            if (sp_entry_line_start(e, (size_t)a, &b0, &pr) < 0 || sp_entry_line_start(e, (size_t)b + 1, &b1, &pr) < 0) {
                reply_error(c, ERR_CORRUPT);
                return;
            }
            truncated = b < L;
            if (truncated)
                meta_next = b + 1;
        }
    } else {
        switch (mode) {
        case WIN_OFFSET:
            u0 = (size_t)a < len ? (size_t)a : len;
            u1 = has_limit && (size_t)limit < len - u0 ? u0 + (size_t)limit : len;
            break;
        case WIN_HEAD:
            u0 = 0;
            u1 = (size_t)a < len ? (size_t)a : len;
            break;
        case WIN_TAIL:
            u0 = (size_t)a < len ? len - (size_t)a : 0;
            u1 = len;
            break;
        default:
            u0 = 0;
            u1 = len;
            break;
        }
        if (units_to_bytes(e, bytes, u0, u1, &b0, &b1) < 0) {
            reply_error(c, ERR_CORRUPT);
            return;
        }
        meta_off = (long long)u0;
        truncated = u1 < len;
        if (truncated)
            meta_next = (long long)u1;
    }
    {
        const char *win;
        char *tmp;
        if (entry_bytes(e, b0, b1, &win, &tmp) < 0) {
            reply_error(c, ERR_CORRUPT);
            return;
        }
        if (withmeta)
            reply_array(c, 2);
        reply_bulk(c, win, b1 - b0);
        xfree(tmp);
    }
    if (!withmeta)
        return;
    reply_map(c, 8);
    reply_bulk_cstr(c, "version");
    reply_int(c, (long long)e->version);
    reply_bulk_cstr(c, "size");
    reply_int(c, (long long)e->size);
    reply_bulk_cstr(c, "length");
    reply_int(c, (long long)sp_entry_length(e));
    reply_bulk_cstr(c, "lines");
    reply_int(c, (long long)(mode == WIN_LINES ? lines : sp_entry_lines(e)));
    reply_bulk_cstr(c, "kind");
    reply_bulk_cstr(c, kind_name(e));
    reply_bulk_cstr(c, "offset");
    reply_int(c, meta_off);
    reply_bulk_cstr(c, "truncated");
    reply_int(c, truncated);
    reply_bulk_cstr(c, "next_offset");
    if (meta_next >= 0)
        reply_int(c, meta_next);
    else
        reply_null(c);
}

static void cmd_sp_range(client *c)
{
    long long start, end = LLONG_MAX, len;
    int bytes = 0, has_end = 0, i;
    size_t b0, b1;
    sp_entry *e;

    if (arg_ll(c, 3, &start) < 0)
        return;
    for (i = 4; i < c->argc; i++) {
        if (arg_is(&c->argv[i], "bytes")) {
            bytes = 1;
        } else if (i == 4 && !has_end) {
            if (arg_ll(c, i, &end) < 0)
                return;
            has_end = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (!(e = entry_for_read(c)))
        return;
    len = (long long)(bytes ? e->size : sp_entry_length(e));
    if (!has_end)
        end = len;
    if (start < 0)
        start = start + len < 0 ? 0 : start + len;
    if (end < 0)
        end = end + len < 0 ? 0 : end + len;
    if (start > len)
        start = len;
    if (end > len)
        end = len;
    if (start >= end) {
        reply_bulk(c, "", 0);
        return;
    }
    if (units_to_bytes(e, bytes, (size_t)start, (size_t)end, &b0, &b1) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    reply_entry_bytes(c, e, b0, b1);
}

/* ---- SP.GREP ---- */

/* The lines a grep reports, kept until the search ends so that a search stopped
 * by a limit answers a plain error, not a partial array. */
typedef struct grep_out {
    char *buf;   /* "lineno:line" / "lineno-line", back to back */
    size_t len, cap;
    size_t *ends; /* ends[i]: end offset in buf of line i */
    size_t count, ncap;
    size_t line_base; /* lines before the buffer being searched (grep_compressed) */
} grep_out;

static void grep_emit(void *ctx, size_t lineno, const char *p, size_t len, int is_match)
{
    grep_out *g = ctx;
    char num[24];
    size_t nl = ll_to_str(num, (long long)(g->line_base + lineno)), need = nl + 1 + len;

    if (g->len + need > g->cap) {
        g->cap = (g->len + need) * 2 > 4096 ? (g->len + need) * 2 : 4096;
        g->buf = xrealloc(g->buf, g->cap);
    }
    memcpy(g->buf + g->len, num, nl);
    g->buf[g->len + nl] = is_match ? ':' : '-';
    memcpy(g->buf + g->len + nl + 1, p, len);
    g->len += need;
    if (g->count == g->ncap) {
        g->ncap = g->ncap ? g->ncap * 2 : 64;
        g->ends = xrealloc(g->ends, g->ncap * sizeof(size_t));
    }
    g->ends[g->count++] = g->len;
}

#define GREP_PREFIX_FIRST (16u << 10) /* bytes of the first part decoded and searched */
#define GREP_CORRUPT (-100)              /* grep_compressed: a chunk does not decode */

/* SP.GREP on a compressed entry. Without CONTEXT or WITHMETA the answer is the
 * first MAX matching lines, so the entry is decoded a part at a time and each
 * part searched as it comes: 16 KB, then as much again each time (16, 32, 64
 * KB ... of the entry: whole sub-blocks, none decoded twice), each search
 * taking the lines from where the previous one stopped to the part's last
 * newline, numbering them on, with MAX less what was shown, under the one time
 * budget; it stops at MAX matches (those are then the first MAX of the whole
 * entry) or the entry's end. A common pattern in a large tool output decodes a
 * few sub-blocks instead of all of them (the whole entry was 17 % of the
 * server's CPU on agent-mix; a 64 KB prefix rescanned at every x4 step, 7 %).
 * With CONTEXT or WITHMETA the whole entry is decoded and searched at once.
 * Each part is decoded into a new buffer that keeps only the line the last
 * part cut. *content gets the buffer (the caller frees); returns spgrep_run's code
 * (res and g as from one spgrep_run over the whole entry) or GREP_CORRUPT. */
static int grep_compressed(sp_entry *e, const sarg *pat, spgrep_opts *o, const sp_params *pr, grep_out *g,
                           spgrep_result *res, char **content, char *err, size_t errcap)
{
    int early = o->context == 0 && !o->count_all;
    size_t have = 0, done = 0, off = 0, cap = 0, want = early ? GREP_PREFIX_FIRST : e->size;
    spgrep_opts part = *o;
    spgrep_result r;
    char *buf = NULL;

    /* buf holds the entry's bytes [off, have); [done, have) is not searched yet
     * (the line the last part cut). */
    memset(res, 0, sizeof(*res));
    if (o->max_us)
        part.started_us = spgrep_now_us();
    for (;;) {
        size_t end;
        int rc;

        if (want > e->size)
            want = e->size;
        if (want - off + 1 > cap) {
            /* A new buffer for the next part, keeping only the cut line: what
             * was searched is not copied again (lines shown are in g). */
            size_t keep = have - done;
            char *nb;
            cap = want - done + 1;
            nb = xmalloc(cap);
            if (keep)
                memcpy(nb, buf + (done - off), keep);
            xfree(buf);
            buf = nb;
            off = done;
            *content = buf;
        }
        if (want > have && sp_entry_read(e, have, want - have, buf + (have - off), pr) < 0)
            return GREP_CORRUPT;
        have = want;
        end = have;
        if (have < e->size) {
            const char *nl = memrchr(buf + (done - off), '\n', have - done);
            end = nl ? off + (size_t)(nl - buf) + 1 : done;
        }
        if (end > done || have == e->size) {
            part.max_matches = o->max_matches - res->shown;
            g->line_base = res->lines;
            rc = spgrep_run(grep_cache, buf + (done - off), end - done, pat->p, pat->len, &part, grep_emit, g, &r,
                            err, errcap);
            res->matched += r.matched;
            res->shown += r.shown;
            res->err_line = res->lines + r.err_line;
            res->err_offset = r.err_offset;
            res->lines += r.lines;
            done = end;
            if (rc != SPGREP_OK || have == e->size || res->shown >= o->max_matches)
                return rc;
        }
        want = have * 2;
    }
}

static void cmd_sp_grep(client *c)
{
    const sarg *pat = &c->argv[3];
    spgrep_opts o;
    spgrep_result res;
    grep_out g;
    sp_params pr = sp_server_params();
    char err[256];
    char *content = NULL;
    const char *buf;
    long long v;
    int i, withmeta = 0, rc;
    sp_entry *e;

    memset(&o, 0, sizeof(o));
    o.max_matches = GREP_MAX_DEFAULT;
    o.match_limit = (uint32_t)srv.cfg.sp_grep_match_limit;
    o.depth_limit = 100000;
    for (i = 4; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < c->argc;
        if (arg_is(a, "max") && more) {
            if (arg_nonneg(c, i + 1, "MAX", &v) < 0)
                return;
            o.max_matches = (size_t)v;
            i++;
        } else if (arg_is(a, "context") && more) {
            if (arg_nonneg(c, i + 1, "CONTEXT", &v) < 0)
                return;
            if (v > GREP_CONTEXT_MAX) {
                reply_errorf(c, "ERR CONTEXT must be at most %d", GREP_CONTEXT_MAX);
                return;
            }
            o.context = (size_t)v;
            i++;
        } else if (arg_is(a, "nocase")) {
            o.nocase = 1;
        } else if (arg_is(a, "literal")) {
            o.literal = 1;
        } else if (arg_is(a, "withmeta")) {
            withmeta = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (!(e = entry_for_read(c)))
        return;
    if ((long long)e->size > srv.cfg.sp_grep_max_scan) {
        reply_errorf(c, "ERR entry is %zu bytes, over sp-grep-max-scan (%lld): narrow the search with SP.READ LINES "
                     "or raise the limit", e->size, srv.cfg.sp_grep_max_scan);
        return;
    }
    o.utf = e->kind == SP_TEXT && sp_utf8_valid(pat->p, pat->len);
    o.count_all = withmeta;
    if (!grep_cache)
        grep_cache = spgrep_cache_new(16);
    memset(&g, 0, sizeof(g));
    o.max_us = srv.cfg.sp_grep_max_time * 1000LL;
    if (e->enc == SP_ENC_RAW) {
        buf = e->raw;
        rc = spgrep_run(grep_cache, buf, e->size, pat->p, pat->len, &o, grep_emit, &g, &res, err, sizeof(err));
    } else if ((rc = grep_compressed(e, pat, &o, &pr, &g, &res, &content, err, sizeof(err))) == GREP_CORRUPT) {
        reply_error(c, ERR_CORRUPT);
        xfree(g.buf);
        xfree(g.ends);
        xfree(content);
        return;
    }
    if (rc == SPGREP_BADPATTERN) {
        reply_errorf(c, "ERR invalid pattern at offset %zu: %s", res.err_offset, err);
    } else if (rc == SPGREP_LIMIT) {
        reply_errorf(c, "ERR SP.GREP stopped at line %zu: %s (sp-grep-match-limit per line, sp-grep-max-time "
                     "per call); simplify the pattern (catastrophic backtracking?), use LITERAL, or narrow the "
                     "entry with SP.READ LINES", res.err_line, err);
    } else {
        size_t k, from = 0;
        if (withmeta)
            reply_array(c, 2);
        reply_array(c, (long)g.count);
        for (k = 0; k < g.count; k++) {
            reply_bulk(c, g.buf + from, g.ends[k] - from);
            from = g.ends[k];
        }
        if (withmeta) {
            reply_map(c, 3);
            reply_bulk_cstr(c, "matched");
            reply_int(c, (long long)res.matched);
            reply_bulk_cstr(c, "shown");
            reply_int(c, (long long)res.shown);
            reply_bulk_cstr(c, "truncated");
            reply_int(c, res.matched > res.shown);
        }
    }
    xfree(g.buf);
    xfree(g.ends);
    xfree(content);
}

/* ---- SP.LIST ---- */

static void reply_entry_meta_map(client *c, const sp_entry *e, int with_name, int extended)
{
    sp_params pr = sp_server_params();
    int n = 7 + with_name + (extended ? 5 : 0);
    uint8_t sha[32];

    if (extended && sp_entry_sha256((sp_entry *)e, sha, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    reply_map(c, n);
    if (with_name) {
        reply_bulk_cstr(c, "name");
        reply_bulk(c, e->name, e->nlen);
    }
    reply_bulk_cstr(c, "kind");
    reply_bulk_cstr(c, kind_name(e));
    reply_bulk_cstr(c, "size");
    reply_int(c, (long long)e->size);
    reply_bulk_cstr(c, "length");
    reply_int(c, (long long)sp_entry_length(e));
    if (extended) {
        reply_bulk_cstr(c, "lines");
        reply_int(c, (long long)sp_entry_lines(e));
    }
    reply_bulk_cstr(c, "version");
    reply_int(c, (long long)e->version);
    reply_bulk_cstr(c, "created");
    reply_int(c, e->created);
    reply_bulk_cstr(c, "updated");
    reply_int(c, e->updated);
    reply_bulk_cstr(c, "ttl");
    reply_int(c, entry_ttl_ms(e));
    if (extended) {
        char hex[65];
        int k;
        reply_bulk_cstr(c, "encoding");
        reply_bulk_cstr(c, e->enc == SP_ENC_LZ4 ? "lz4" : "raw");
        reply_bulk_cstr(c, "stored");
        reply_int(c, (long long)sp_entry_stored(e));
        reply_bulk_cstr(c, "chunks");
        reply_int(c, (long long)sp_entry_chunks(e));
        reply_bulk_cstr(c, "sha256");
        for (k = 0; k < 32; k++)
            snprintf(hex + 2 * k, 3, "%02x", sha[k]);
        reply_bulk(c, hex, 64);
    }
}

static void cmd_sp_list(client *c)
{
    const sarg *match = NULL, *cursor = NULL;
    long long count = 1000;
    int i, replied, withmeta = 0;
    size_t start = 0, k, shown = 0;
    void *slot;
    sp *s;

    for (i = 2; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < c->argc;
        if (arg_is(a, "match") && more) {
            match = &c->argv[++i];
        } else if (arg_is(a, "cursor") && more) {
            cursor = &c->argv[++i];
        } else if (arg_is(a, "count") && more) {
            if (arg_ll(c, i + 1, &count) < 0)
                return;
            if (count < 1) {
                reply_error(c, ERR_SYNTAX);
                return;
            }
            i++;
        } else if (arg_is(a, "withmeta")) {
            withmeta = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (cursor && !(cursor->len == 1 && cursor->p[0] == '0') &&
        (cursor->len < 2 || cursor->p[0] != '>' || !sp_name_valid(cursor->p + 1, cursor->len - 1))) {
        reply_error(c, "ERR invalid cursor");
        return;
    }
    s = ns_read(c, NULL, &replied);
    if (replied)
        return;
    if (s && cursor && cursor->len > 1)
        start = sp_upper_bound(s, cursor->p + 1, cursor->len - 1);
    reply_array(c, 2);
    if (!s) {
        reply_bulk(c, "0", 1);
        reply_array(c, 0);
        return;
    }
    /* Find where this page ends first, to reply the cursor before the items. */
    for (k = start; k < s->n && shown < (size_t)count; k++)
        if (!match || glob_match(match->p, match->len, s->e[k]->name, s->e[k]->nlen, 0))
            shown++;
    if (k < s->n) {
        char cur[SP_NAME_MAX + 2];
        cur[0] = '>';
        memcpy(cur + 1, s->e[k - 1]->name, s->e[k - 1]->nlen);
        reply_bulk(c, cur, (size_t)s->e[k - 1]->nlen + 1);
    } else {
        reply_bulk(c, "0", 1);
    }
    slot = reply_defer(c);
    shown = 0;
    for (; start < k; start++) {
        const sp_entry *e = s->e[start];
        if (match && !glob_match(match->p, match->len, e->name, e->nlen, 0))
            continue;
        if (withmeta)
            reply_entry_meta_map(c, e, 1, 0);
        else
            reply_bulk(c, e->name, e->nlen);
        shown++;
    }
    reply_defer_array(c, slot, (long)shown);
}

/* ---- SP.EDIT and SP.INSERT ---- */

/* Write new content for e built from the pieces (the caller holds the old bytes).
 * The result of a text entry must stay valid UTF-8. */
static int commit_content(client *c, sp *s, sp_entry *e, const char *p, size_t n)
{
    sp_params pr = sp_server_params();
    if (e->kind == SP_TEXT && !sp_utf8_valid(p, n)) {
        reply_error(c, "ERR the edit would make a text entry invalid UTF-8");
        return -1;
    }
    sp_entry_set(s, e, p, n, e->kind, &pr);
    e->version++;
    e->updated = db_now;
    return 0;
}

/* Lookup for EDIT/INSERT: the entry, or NULL after replying. */
static sp_entry *edit_target(client *c, long long ifversion, dbent **ke, sp **sp_out)
{
    const sarg *name = &c->argv[2];
    int replied;
    sp_entry *e;
    sp *s;

    if (check_name(c, name) < 0)
        return NULL;
    s = ns_write(c, ke, &replied);
    if (replied)
        return NULL;
    e = s ? sp_find(s, name->p, name->len) : NULL;
    if (check_version(c, e, ifversion) < 0)
        return NULL;
    if (!e) {
        reply_errorf(c, "ERR no such entry '%.*s'", (int)name->len, name->p);
        return NULL;
    }
    *sp_out = s;
    return e;
}

static void cmd_sp_edit(client *c)
{
    const sarg *old = &c->argv[3], *new = &c->argv[4];
    long long ifversion = -1;
    int all = 0, i;
    size_t count = 0, outlen, pos;
    sp_params pr = sp_server_params();
    char *content, *out;
    const char *p;
    dbent *ke;
    sp_entry *e;
    sp *s;

    for (i = 5; i < c->argc; i++) {
        if (arg_is(&c->argv[i], "all")) {
            all = 1;
        } else if (arg_is(&c->argv[i], "ifversion") && i + 1 < c->argc) {
            if (arg_nonneg(c, i + 1, "IFVERSION", &ifversion) < 0)
                return;
            i++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (old->len == 0) {
        reply_error(c, "ERR the text to replace must not be empty");
        return;
    }
    if (!(e = edit_target(c, ifversion, &ke, &s)))
        return;
    if (sp_entry_copy(e, &content, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    for (p = content; (p = memmem(p, e->size - (size_t)(p - content), old->p, old->len)) != NULL; p += old->len)
        count++;
    if (count == 0) {
        reply_errorf(c, "ERR old text not found in entry '%s' (the match is byte-exact, whitespace included)",
                     e->name);
        xfree(content);
        return;
    }
    if (count > 1 && !all) {
        char lines[512];
        size_t lo = 0, line = 1, shown = 0;
        const char *scan = content, *hit;
        for (hit = content; (hit = memmem(hit, e->size - (size_t)(hit - content), old->p, old->len)) != NULL;
             hit += old->len) {
            while (scan < hit) {
                const char *nl = memchr(scan, '\n', (size_t)(hit - scan));
                if (!nl)
                    break;
                line++;
                scan = nl + 1;
            }
            if (shown < 20 && lo < sizeof(lines) - 24)
                lo += (size_t)snprintf(lines + lo, sizeof(lines) - lo, "%s%zu", shown ? ", " : "", line);
            shown++;
        }
        if (shown > 20 && lo < sizeof(lines) - 8)
            snprintf(lines + lo, sizeof(lines) - lo, ", ...");
        reply_errorf(c, "ERR old text occurs %zu times in entry '%s' (at lines %s): include more context to make "
                     "it unique, or use ALL",
                     count, e->name, lines);
        xfree(content);
        return;
    }
    outlen = e->size - count * old->len + count * new->len;
    out = xmalloc(outlen + 1);
    pos = 0;
    {
        const char *from = content, *hit;
        while ((hit = memmem(from, e->size - (size_t)(from - content), old->p, old->len)) != NULL) {
            memcpy(out + pos, from, (size_t)(hit - from));
            pos += (size_t)(hit - from);
            memcpy(out + pos, new->p, new->len);
            pos += new->len;
            from = hit + old->len;
        }
        memcpy(out + pos, from, e->size - (size_t)(from - content));
    }
    if (commit_content(c, s, e, out, outlen) == 0) {
        ns_changed(c, ke, s);
        log_entry(c, s, e);
        reply_array(c, 2);
        reply_int(c, (long long)count);
        reply_int(c, (long long)e->version);
    }
    xfree(out);
    xfree(content);
}

static void cmd_sp_insert(client *c)
{
    const sarg *text = &c->argv[4];
    long long line, ifversion = -1;
    size_t at, lines, outlen, pos = 0;
    int lead_nl, trail_nl;
    sp_params pr = sp_server_params();
    char *content, *out;
    dbent *ke;
    sp_entry *e;
    sp *s;

    if (arg_ll(c, 3, &line) < 0)
        return;
    if (c->argc == 7 && arg_is(&c->argv[5], "ifversion")) {
        if (arg_nonneg(c, 6, "IFVERSION", &ifversion) < 0)
            return;
    } else if (c->argc != 5) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (line < -1) {
        reply_error(c, "ERR line must be -1 (the end), 0 (the top) or a line number");
        return;
    }
    if (!(e = edit_target(c, ifversion, &ke, &s)))
        return;
    lines = sp_entry_lines(e);
    if (line == -1 || (size_t)line > lines)
        line = (long long)lines;
    if (sp_entry_line_start(e, (size_t)line + 1, &at, &pr) < 0 || sp_entry_copy(e, &content, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    /* The text becomes whole lines: a newline is added after it if something
     * follows, and before it when appending to content without a final newline. */
    lead_nl = at == e->size && e->size > 0 && !e->ends_nl;
    trail_nl = at < e->size && (text->len == 0 || text->p[text->len - 1] != '\n');
    outlen = e->size + text->len + (size_t)lead_nl + (size_t)trail_nl;
    out = xmalloc(outlen + 1);
    memcpy(out, content, at);
    pos = at;
    if (lead_nl)
        out[pos++] = '\n';
    memcpy(out + pos, text->p, text->len);
    pos += text->len;
    if (trail_nl)
        out[pos++] = '\n';
    memcpy(out + pos, content + at, e->size - at);
    if (commit_content(c, s, e, out, outlen) == 0) {
        ns_changed(c, ke, s);
        log_entry(c, s, e);
        reply_int(c, (long long)e->version);
    }
    xfree(out);
    xfree(content);
}

/* ---- SP.DEL, SP.STAT, SP.INFO ---- */

static void cmd_sp_del(client *c)
{
    long long deleted = 0;
    int i, replied;
    dbent *ke;
    sp *s;

    for (i = 2; i < c->argc; i++)
        if (check_name(c, &c->argv[i]) < 0)
            return;
    s = ns_write(c, &ke, &replied);
    if (replied)
        return;
    if (s) {
        for (i = 2; i < c->argc; i++) {
            sp_entry *e = sp_find(s, c->argv[i].p, c->argv[i].len);
            if (e) {
                sp_remove(s, e);
                deleted++;
            }
        }
        if (deleted)
            ns_changed(c, ke, s);
    }
    reply_int(c, deleted);
}

static void cmd_sp_stat(client *c)
{
    sp_entry *e;

    if (!(e = entry_for_read(c)))
        return;
    reply_entry_meta_map(c, e, 0, 1);
}

static void cmd_sp_info(client *c)
{
    int replied;
    size_t i, stored = 0;
    int64_t oldest = -1, newest = -1;
    sp *s = ns_read(c, NULL, &replied);

    if (replied)
        return;
    if (!s) {
        reply_null(c);
        return;
    }
    for (i = 0; i < s->n; i++) {
        const sp_entry *e = s->e[i];
        stored += sp_entry_stored(e);
        if (oldest < 0 || e->updated < oldest)
            oldest = e->updated;
        if (newest < 0 || e->updated > newest)
            newest = e->updated;
    }
    reply_map(c, 6);
    reply_bulk_cstr(c, "entries");
    reply_int(c, (long long)s->n);
    reply_bulk_cstr(c, "bytes");
    reply_int(c, (long long)s->bytes);
    reply_bulk_cstr(c, "stored_bytes");
    reply_int(c, (long long)stored);
    reply_bulk_cstr(c, "compression_ratio");
    reply_double(c, stored ? (double)s->bytes / (double)stored : 0.0);
    reply_bulk_cstr(c, "oldest_update");
    reply_int(c, oldest);
    reply_bulk_cstr(c, "newest_update");
    reply_int(c, newest);
}

/* ---- SP.PEEK and SP.OFFLOAD ---- */

/* Reply the preview of e: text as head + marker + tail, binary as a summary. */
static void reply_preview(client *c, sp_entry *e, size_t head, size_t tail)
{
    sp_params pr = sp_server_params();
    char marker[96];
    size_t len = sp_entry_length(e), hb, tb, ml, total;
    char *buf;

    if (e->kind == SP_BINARY) {
        uint8_t sha[32];
        char out[160];
        int k, n;
        if (sp_entry_sha256(e, sha, &pr) < 0) {
            reply_error(c, ERR_CORRUPT);
            return;
        }
        n = snprintf(out, sizeof(out), "[BINARY: %zu bytes, sha256=", e->size);
        for (k = 0; k < 32; k++)
            n += snprintf(out + n, sizeof(out) - (size_t)n, "%02x", sha[k]);
        n += snprintf(out + n, sizeof(out) - (size_t)n, "]");
        reply_bulk(c, out, (size_t)n);
        return;
    }
    if (head + tail >= len) {
        reply_entry_bytes(c, e, 0, e->size);
        return;
    }
    if (sp_entry_char_to_byte(e, head, &hb, &pr) < 0 || sp_entry_char_to_byte(e, len - tail, &tb, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    ml = (size_t)snprintf(marker, sizeof(marker), "\n[... %zu characters omitted ...]\n", len - head - tail);
    total = hb + ml + (e->size - tb);
    buf = xmalloc(total);
    if (sp_entry_read(e, 0, hb, buf, &pr) < 0 || sp_entry_read(e, tb, e->size - tb, buf + hb + ml, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
    } else {
        memcpy(buf + hb, marker, ml);
        reply_bulk(c, buf, total);
    }
    xfree(buf);
}

static void cmd_sp_peek(client *c)
{
    long long head = PEEK_DEFAULT, tail = PEEK_DEFAULT;
    int i;
    sp_entry *e;

    for (i = 3; i < c->argc; i++) {
        if (arg_is(&c->argv[i], "head") && i + 1 < c->argc) {
            if (arg_nonneg(c, i + 1, "HEAD", &head) < 0)
                return;
            i++;
        } else if (arg_is(&c->argv[i], "tail") && i + 1 < c->argc) {
            if (arg_nonneg(c, i + 1, "TAIL", &tail) < 0)
                return;
            i++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (!(e = entry_for_read(c)))
        return;
    reply_preview(c, e, (size_t)head, (size_t)tail);
}

static void cmd_sp_offload(client *c)
{
    const sarg *val = &c->argv[2];
    long long threshold = srv.cfg.sp_offload_threshold;
    const char *prefix = "obs";
    size_t plen = 3;
    wopts o = {0, -1, -1, -1};
    sp_params pr = sp_server_params();
    char name[SP_NAME_MAX + 32];
    sp_textinfo ti;
    size_t nlen;
    int i, replied, kind, ttl_given = 0;
    dbent *ke;
    sp_entry *e;
    sp *s;

    for (i = 3; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < c->argc;
        if (arg_is(a, "threshold") && more) {
            if (arg_nonneg(c, i + 1, "THRESHOLD", &threshold) < 0)
                return;
            i++;
        } else if (arg_is(a, "prefix") && more) {
            prefix = c->argv[i + 1].p;
            plen = c->argv[i + 1].len;
            if (plen == 0 || plen > SP_NAME_MAX - 21 || !sp_name_valid(prefix, plen)) {
                reply_errorf(c, "ERR invalid PREFIX: it must be a valid entry name of at most %d bytes (" NAME_RULE
                             ")", SP_NAME_MAX - 21);
                return;
            }
            i++;
        } else if ((arg_is(a, "ex") || arg_is(a, "px")) && more && !ttl_given) {
            if (parse_ttl(c, i + 1, arg_is(a, "ex"), &o.expire) < 0)
                return;
            ttl_given = 1;
            i++;
        } else if (arg_is(a, "kind") && more) {
            if (parse_kind(c, i + 1, &o.kind) < 0)
                return;
            i++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if ((kind = resolve_kind(c, o.kind, val->p, val->len, &ti)) < 0)
        return;
    s = ns_write(c, &ke, &replied);
    if (replied)
        return;
    if ((long long)val->len <= threshold) {
        reply_map(c, 2);
        reply_bulk_cstr(c, "stored");
        reply_int(c, 0);
        reply_bulk_cstr(c, "content");
        reply_bulk(c, val->p, val->len);
        return;
    }
    if (!s)
        s = ns_create(c, &ke);
    do {
        s->offload_seq++;
        nlen = (size_t)snprintf(name, sizeof(name), "%.*s-%llu", (int)plen, prefix,
                                (unsigned long long)s->offload_seq);
    } while (sp_find(s, name, nlen));
    e = sp_add(s, name, nlen, db_now);
    sp_entry_set_info(s, e, val->p, val->len, kind, &ti, &pr);
    e->version = 1;
    sp_set_expire(s, e, o.expire >= 0 ? o.expire : default_expire());
    ns_changed(c, ke, s);
    log_entry(c, s, e);
    reply_map(c, 6);
    reply_bulk_cstr(c, "stored");
    reply_int(c, 1);
    reply_bulk_cstr(c, "name");
    reply_bulk(c, name, nlen);
    reply_bulk_cstr(c, "size");
    reply_int(c, (long long)e->size);
    reply_bulk_cstr(c, "length");
    reply_int(c, (long long)sp_entry_length(e));
    reply_bulk_cstr(c, "kind");
    reply_bulk_cstr(c, kind_name(e));
    reply_bulk_cstr(c, "preview");
    reply_preview(c, e, PEEK_DEFAULT, PEEK_DEFAULT);
}

/* ---- per-entry lifetimes ---- */

/* The entry named by argv[2] for the TTL commands; NULL if absent, with
 * *replied set when an error was sent. */
static sp_entry *ttl_target(client *c, dbent **ke, sp **sp_out, int write, int *replied)
{
    const sarg *name = &c->argv[2];
    sp *s;

    *sp_out = NULL;
    *replied = 0;
    if (check_name(c, name) < 0) {
        *replied = 1;
        return NULL;
    }
    s = write ? ns_write(c, ke, replied) : ns_read(c, ke, replied);
    if (*replied)
        return NULL;
    *sp_out = s;
    return s ? sp_find(s, name->p, name->len) : NULL;
}

static void expire_generic(client *c, int seconds)
{
    long long v;
    int replied;
    dbent *ke;
    sp_entry *e;
    sp *s;

    if (arg_ll(c, 3, &v) < 0)
        return;
    if ((seconds && (v > LLONG_MAX / 1000 || v < LLONG_MIN / 1000)) ||
        ((seconds ? v * 1000 : v) > 0 && (seconds ? v * 1000 : v) > LLONG_MAX - db_now)) {
        reply_errorf(c, "ERR invalid expire time in '%s' command", cmd_fullname(c->cmd));
        return;
    }
    if (seconds)
        v *= 1000;
    e = ttl_target(c, &ke, &s, 1, &replied);
    if (replied)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str(v <= 0 ? "SP.DEL" : "_SPEXPIREAT");
        prop_arg(&c->argv[1]);
        prop_arg(&c->argv[2]);
        if (v > 0)
            prop_ll(db_now + v);
        prop_end();
    }
    if (v <= 0)
        sp_remove(s, e);
    else
        sp_set_expire(s, e, db_now + v);
    ns_changed(c, ke, s);
    reply_int(c, 1);
}

static void cmd_sp_expire(client *c)
{
    expire_generic(c, 1);
}

static void cmd_sp_pexpire(client *c)
{
    expire_generic(c, 0);
}

static void ttl_generic(client *c, int seconds)
{
    dbent *ke;
    sp *s;
    int replied;
    sp_entry *e = ttl_target(c, &ke, &s, 0, &replied);
    long long ms;

    if (replied)
        return;
    if (!e) {
        reply_int(c, -2);
        return;
    }
    ms = entry_ttl_ms(e);
    if (ms < 0)
        reply_int(c, -1);
    else
        reply_int(c, seconds ? (ms + 500) / 1000 : ms);
}

static void cmd_sp_ttl(client *c)
{
    ttl_generic(c, 1);
}

static void cmd_sp_pttl(client *c)
{
    ttl_generic(c, 0);
}

static void cmd_sp_persist(client *c)
{
    dbent *ke;
    sp *s;
    int replied;
    sp_entry *e = ttl_target(c, &ke, &s, 1, &replied);

    if (replied)
        return;
    if (!e || e->expire < 0) {
        reply_int(c, 0);
        return;
    }
    sp_set_expire(s, e, -1);
    ns_changed(c, ke, s);
    reply_int(c, 1);
}

#define SPW (CMD_WRITE | CMD_DENYOOM | CMD_OWN_EFFECT)
#define SPR (CMD_READONLY)
const cmd_def cmd_table_sp[] = {
    {.name = "sp.write", .proc = cmd_sp_write, .arity = -4, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Creates or overwrites an entry of a scratchpad; replies the new version.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the content", .acl = "write scratchpad slow"},
    {.name = "sp.append", .proc = cmd_sp_append, .arity = -4, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Appends to an entry (creating it); replies the new length in the entry's unit.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the appended content", .acl = "write scratchpad fast"},
    {.name = "sp.read", .proc = cmd_sp_read, .arity = -3, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Reads an entry whole or a window of it: OFFSET/LIMIT, HEAD, TAIL or LINES.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the window", .acl = "read scratchpad slow"},
    {.name = "sp.range", .proc = cmd_sp_range, .arity = -4, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Reads characters [start, end) of an entry, with Python-style negative indexes.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the range", .acl = "read scratchpad slow"},
    {.name = "sp.grep", .proc = cmd_sp_grep, .arity = -4, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Finds the lines of an entry matching a Perl-compatible regular expression.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the entry", .acl = "read scratchpad slow"},
    {.name = "sp.list", .proc = cmd_sp_list, .arity = -2, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Lists the entries of a scratchpad by name, paginated.", .since = "0.1.0",
     .complexity = "O(log(N)+M) where M is the number of entries examined", .acl = "read scratchpad slow"},
    {.name = "sp.edit", .proc = cmd_sp_edit, .arity = -5, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Replaces an exact, unique string in an entry (or every occurrence with ALL).", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the entry", .acl = "write scratchpad slow"},
    {.name = "sp.insert", .proc = cmd_sp_insert, .arity = -5, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Inserts text after a line of an entry.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the entry", .acl = "write scratchpad slow"},
    {.name = "sp.del", .proc = cmd_sp_del, .arity = -3, .flags = CMD_WRITE, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Deletes entries; replies the number deleted.", .since = "0.1.0",
     .complexity = "O(N log(M)) for N names in a scratchpad of M entries", .acl = "write scratchpad fast"},
    {.name = "sp.stat", .proc = cmd_sp_stat, .arity = 3, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Returns an entry's metadata.", .since = "0.1.0",
     .complexity = "O(1), O(N) the first time the sha256 is computed", .acl = "read scratchpad fast"},
    {.name = "sp.peek", .proc = cmd_sp_peek, .arity = -3, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Returns a preview of an entry: its head and tail with the count of characters omitted.",
     .since = "0.1.0", .complexity = "O(H+T)", .acl = "read scratchpad fast"},
    {.name = "sp.offload", .proc = cmd_sp_offload, .arity = -3, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Stores content above a threshold under a generated name and replies a preview; returns it as is otherwise.",
     .since = "0.1.0", .complexity = "O(N) where N is the size of the content", .acl = "write scratchpad slow"},
    {.name = "sp.expire", .proc = cmd_sp_expire, .arity = 4, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "scratchpad", .summary = "Sets an entry's time to live in seconds.", .since = "0.1.0",
     .complexity = "O(log(N))", .acl = "write scratchpad fast"},
    {.name = "sp.pexpire", .proc = cmd_sp_pexpire, .arity = 4, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "scratchpad", .summary = "Sets an entry's time to live in milliseconds.",
     .since = "0.1.0", .complexity = "O(log(N))", .acl = "write scratchpad fast"},
    {.name = "sp.ttl", .proc = cmd_sp_ttl, .arity = 3, .flags = SPR | CMD_FAST, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Returns an entry's time to live in seconds.", .since = "0.1.0", .complexity = "O(log(N))",
     .acl = "read scratchpad fast"},
    {.name = "sp.pttl", .proc = cmd_sp_pttl, .arity = 3, .flags = SPR | CMD_FAST, KEYS(1, 1, 1),
     .group = "scratchpad", .summary = "Returns an entry's time to live in milliseconds.", .since = "0.1.0",
     .complexity = "O(log(N))", .acl = "read scratchpad fast"},
    {.name = "sp.persist", .proc = cmd_sp_persist, .arity = 3, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1),
     .group = "scratchpad", .summary = "Removes an entry's expiry.", .since = "0.1.0", .complexity = "O(log(N))",
     .acl = "write scratchpad fast"},
    {.name = "sp.info", .proc = cmd_sp_info, .arity = 2, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Returns a scratchpad's entry count, logical and stored bytes, and update times.", .since = "0.1.0",
     .complexity = "O(N) where N is the number of entries", .acl = "read scratchpad slow"},
    {0},
};
