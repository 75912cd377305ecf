/* cmd_sp_read.c -- the SP.* commands that read a scratchpad: SP.READ, SP.RANGE,
 * SP.LIST, SP.STAT, SP.INFO, SP.PEEK, SP.TTL and SP.PTTL.
 *
 * Why a file of its own: these commands change no entry (their rows in
 * cmd_sp.c's table are read-only), so they never signal a change or log an
 * effect; what they share is windows over an entry's content (characters of a
 * text entry, or bytes, converted to byte offsets through the entry's counts)
 * and the replies of its metadata. A missing entry or scratchpad answers nil,
 * as GET does on a missing key (SP.LIST: an empty page; SP.TTL: -2). The
 * lookups and the replies shared with the writes are cmd_sp_common.c's. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/mem.h"
#include "net/reply.h"
#include "core/sp/sp.h"
#include "core/sp/spco.h"
#include "core/sp/spmeta.h"
#include "core/util.h"
#include "types/sp/cmd_sp_int.h"
#include "types/sp/sptype.h"

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

void cmd_sp_read(client *c)
{
    int mode = WIN_ALL, bytes = 0, withmeta = 0, i, has_limit = 0;
    long long a = 0, b = 0, limit = 0, version = -1;
    size_t len, u0, u1, b0, b1, lines = 0;
    long long meta_off, meta_next = -1;
    int truncated;
    sp_params pr = sp_server_params();
    sp_entry *e;

    for (i = 3; i < c->argc; i++) {
        const sarg *o = &c->argv[i];
        int more = i + 1 < c->argc;
        if (spc_arg_is(o, "offset") && more && (mode == WIN_ALL || (mode == WIN_OFFSET && !a && has_limit))) {
            if (spc_arg_nonneg(c, i + 1, "OFFSET", &a) < 0)
                return;
            mode = WIN_OFFSET;
            i++;
        } else if (spc_arg_is(o, "limit") && more && (mode == WIN_ALL || mode == WIN_OFFSET) && !has_limit) {
            if (spc_arg_nonneg(c, i + 1, "LIMIT", &limit) < 0)
                return;
            mode = WIN_OFFSET;
            has_limit = 1;
            i++;
        } else if ((spc_arg_is(o, "head") || spc_arg_is(o, "tail")) && more && mode == WIN_ALL) {
            if (spc_arg_nonneg(c, i + 1, spc_arg_is(o, "head") ? "HEAD" : "TAIL", &a) < 0)
                return;
            mode = spc_arg_is(o, "head") ? WIN_HEAD : WIN_TAIL;
            i++;
        } else if (spc_arg_is(o, "lines") && i + 2 < c->argc && mode == WIN_ALL) {
            if (arg_ll(c, i + 1, &a) < 0 || arg_ll(c, i + 2, &b) < 0)
                return;
            mode = WIN_LINES;
            i += 2;
        } else if (spc_arg_is(o, "bytes")) {
            bytes = 1;
        } else if (spc_arg_is(o, "withmeta")) {
            withmeta = 1;
        } else if (spc_arg_is(o, "version") && more && version < 0) {
            if (spc_arg_nonneg(c, i + 1, "VERSION", &version) < 0)
                return;
            i++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (!(e = spc_entry_for_read(c)))
        return;
    if (version >= 0 && (uint64_t)version != e->version) {
        /* An older version, from the entry's history (the lookup found the
         * scratchpad, so the key is there). */
        const sp_histrec *rec = sp_hist_version(
            sp_hist_find(dbent_ptr(db_find_raw(c->db, c->argv[1].p, c->argv[1].len)), e->name, e->nlen),
            (uint64_t)version);
        if (!rec) {
            reply_errorf(c, "ERR no version %lld of entry '%.*s' in its history", version, (int)e->nlen, e->name);
            return;
        }
        e = rec->e;
    }
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
    reply_bulk_cstr(c, spc_kind_name(e));
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

void cmd_sp_range(client *c)
{
    long long start, end = LLONG_MAX, len;
    int bytes = 0, has_end = 0, i;
    size_t b0, b1;
    sp_entry *e;

    if (arg_ll(c, 3, &start) < 0)
        return;
    for (i = 4; i < c->argc; i++) {
        if (spc_arg_is(&c->argv[i], "bytes")) {
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
    if (!(e = spc_entry_for_read(c)))
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
    spc_reply_entry_bytes(c, e, b0, b1);
}

/* ---- SP.LIST ---- */

static long long entry_ttl_ms(const sp_entry *e)
{
    if (e->expire < 0)
        return -1;
    return e->expire > db_now ? e->expire - db_now : 0;
}

/* An entry's map (SP.LIST WITHMETA: with its name; SP.STAT: extended), with
 * "meta", the map of its metadata fields, last when it has any. */
static void reply_entry_meta_map(client *c, const sp_entry *e, int with_name, int extended)
{
    sp_params pr = sp_server_params();
    int n = 7 + with_name + (extended ? 5 : 0) + (e->meta != NULL);
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
    reply_bulk_cstr(c, spc_kind_name(e));
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
    if (e->meta) {
        size_t i;
        reply_bulk_cstr(c, "meta");
        reply_map(c, (long)spmeta_count(e->meta));
        for (i = 0; i < spmeta_count(e->meta); i++) {
            spmeta_kv kv;
            spmeta_at(e->meta, i, &kv);
            reply_bulk(c, kv.f, kv.flen);
            reply_bulk(c, kv.v, kv.vlen);
        }
    }
}

/* Whether e passes SP.LIST's filters: the glob (NULL: any name) and each
 * WHERE field value of argv[where[k]] (k < nwhere). */
static int list_pass(const client *c, const sp_entry *e, const sarg *match, const int *where, int nwhere)
{
    int k;

    if (match && !glob_match(match->p, match->len, e->name, e->nlen, 0))
        return 0;
    for (k = 0; k < nwhere; k++) {
        const sarg *f = &c->argv[where[k]], *v = &c->argv[where[k] + 1];
        size_t vlen;
        const char *got = spmeta_get(e->meta, f->p, f->len, &vlen);
        if (!got || vlen != v->len || memcmp(got, v->p, vlen) != 0)
            return 0;
    }
    return 1;
}

void cmd_sp_list(client *c)
{
    const sarg *match = NULL, *cursor = NULL;
    long long count = 1000;
    int i, replied, withmeta = 0, nwhere = 0;
    int where[SPMETA_MAX_FIELDS];
    size_t start = 0, k, shown = 0;
    void *slot;
    sp *s;

    for (i = 2; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < c->argc;
        if (spc_arg_is(a, "match") && more) {
            match = &c->argv[++i];
        } else if (spc_arg_is(a, "cursor") && more) {
            cursor = &c->argv[++i];
        } else if (spc_arg_is(a, "count") && more) {
            if (arg_ll(c, i + 1, &count) < 0)
                return;
            if (count < 1) {
                reply_error(c, ERR_SYNTAX);
                return;
            }
            i++;
        } else if (spc_arg_is(a, "withmeta")) {
            withmeta = 1;
        } else if (spc_arg_is(a, "where") && i + 2 < c->argc) {
            if (nwhere == SPMETA_MAX_FIELDS) {
                reply_errorf(c, "ERR too many WHERE options (at most %d)", SPMETA_MAX_FIELDS);
                return;
            }
            where[nwhere++] = i + 1;
            i += 2;
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
    s = spc_ns_read(c, NULL, &replied);
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
        if (list_pass(c, s->e[k], match, where, nwhere))
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
        if (!list_pass(c, e, match, where, nwhere))
            continue;
        if (withmeta)
            reply_entry_meta_map(c, e, 1, 0);
        else
            reply_bulk(c, e->name, e->nlen);
        shown++;
    }
    reply_defer_array(c, slot, (long)shown);
}

/* ---- SP.STAT and SP.INFO ---- */

void cmd_sp_stat(client *c)
{
    sp_entry *e;

    if (!(e = spc_entry_for_read(c)))
        return;
    reply_entry_meta_map(c, e, 0, 1);
}

void cmd_sp_info(client *c)
{
    int replied;
    size_t i, stored = 0;
    int64_t oldest = -1, newest = -1;
    sp *s = spc_ns_read(c, NULL, &replied);

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
    reply_map(c, 11);
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
    reply_bulk_cstr(c, "leases");
    reply_int(c, s->co ? (long long)s->co->nleases : 0);
    reply_bulk_cstr(c, "changes");
    reply_int(c, s->co ? (long long)s->co->nchanges : 0);
    reply_bulk_cstr(c, "feed_bytes");
    reply_int(c, (long long)spco_stored(s->co));
    reply_bulk_cstr(c, "snapshots");
    reply_int(c, (long long)s->nsnaps);
    reply_bulk_cstr(c, "snapshot_bytes");
    reply_int(c, (long long)sp_snaps_stored(s));
}

/* ---- SP.PEEK ---- */

void cmd_sp_peek(client *c)
{
    long long head = PEEK_DEFAULT, tail = PEEK_DEFAULT;
    int i;
    sp_entry *e;

    for (i = 3; i < c->argc; i++) {
        if (spc_arg_is(&c->argv[i], "head") && i + 1 < c->argc) {
            if (spc_arg_nonneg(c, i + 1, "HEAD", &head) < 0)
                return;
            i++;
        } else if (spc_arg_is(&c->argv[i], "tail") && i + 1 < c->argc) {
            if (spc_arg_nonneg(c, i + 1, "TAIL", &tail) < 0)
                return;
            i++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (!(e = spc_entry_for_read(c)))
        return;
    spc_reply_preview(c, e, (size_t)head, (size_t)tail);
}

/* ---- SP.TTL and SP.PTTL ---- */

static void ttl_generic(client *c, int seconds)
{
    dbent *ke;
    sp *s;
    int replied;
    sp_entry *e = spc_ttl_target(c, &ke, &s, 0, &replied);
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

void cmd_sp_ttl(client *c)
{
    ttl_generic(c, 1);
}

void cmd_sp_pttl(client *c)
{
    ttl_generic(c, 0);
}
