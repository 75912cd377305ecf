/* cmd_sp.c -- the SP.* commands that change a scratchpad, and the family's table.
 *
 * A scratchpad is a key of type OBJ_SCRATCHPAD whose value is an sp (sp.h). The
 * namespace is the first key argument of every command, so the generic key
 * commands (DEL, EXPIRE, RENAME, SCAN TYPE scratchpad, ...) act on whole
 * sessions. The family is split by job: this file holds the writes (SP.WRITE,
 * SP.APPEND, SP.EDIT, SP.INSERT, SP.DEL, SP.OFFLOAD, SP.EXPIRE, SP.PEXPIRE,
 * SP.PERSIST) and the table of every SP.* command; the reads are in
 * cmd_sp_read.c, SP.GREP in cmd_sp_grep.c, and the lookups, checks and replies
 * they share in cmd_sp_common.c (contracts in cmd_sp_int.h).
 *
 * Invariants kept here: a scratchpad key never holds zero entries and zero
 * leases (the key is deleted with the last of them); the keyspace's sub-expiry
 * heap always holds the earliest entry or lease expiry of each scratchpad
 * (ns_changed after every change); every change bumps the entry's version,
 * is recorded in the feed after its effect is logged (spc_note), and calls
 * signal_key_changed. Every write takes FENCE resource token as its last three
 * arguments (spc_fence_parse), checked after the lookup and before anything
 * changes; the effect logged is the write's, never the fence. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "cmd/propagate.h"
#include "net/reply.h"
#include "core/sp/sp.h"
#include "core/sp/spmeta.h"
#include "core/util.h"
#include "types/sp/cmd_sp_int.h"
#include "types/sp/sptype.h"
#include "keyspace/type.h"
#include "keyspace/vcomp.h"

/* The effect of a change to entry e of s at key ns: its full state, _SPENTRY
 * (docs/aof.md), written by the type (sp_entry_effect_args) as the rewrite
 * writes it. */
static void prop_sp_entry(int dbid, const char *ns, size_t nslen, const sp *s, const sp_entry *e)
{
    prop_begin(dbid);
    prop_str("_SPENTRY");
    sp_entry_effect_args(&prop_effects, ns, nslen, s, e);
    prop_end();
}

static sp *ns_create(client *c, dbent **out)
{
    return sp_key_create(c->db, c->argv[1].p, c->argv[1].len, out);
}

/* After a change to scratchpad s at key e: keep the sub-expiry heap exact, drop
 * the key if it has neither entries nor leases left (s is freed then), and
 * signal the change and its keyspace event (class p: "sp.write", ...; then
 * "del" if the key went). */
static void ns_changed(client *c, dbent *e, sp *s, const char *event)
{
    int dropped = sp_key_settle(c->db, e, s);

    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    signal_event(c->db, NOTIFY_SCRATCHPAD, event, c->argv[1].p, c->argv[1].len);
    if (dropped)
        signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[1].p, c->argv[1].len);
}

/* Log the full state of entry e (WRITE, OFFLOAD, EDIT, INSERT, a new entry of
 * APPEND): _SPENTRY, its content in the chunks it is stored in. */
static void log_entry(client *c, const sp *s, const sp_entry *e)
{
    if (prop_on)
        prop_sp_entry(c->dbid, c->argv[1].p, c->argv[1].len, s, e);
}

/* A change's effects (the write's, then its _SPCHANGE records) as one log
 * record, as a transaction's are: a crash keeps both or neither. Opened just
 * before the first effect and closed after the last, with no lookup between
 * (a lazy expiry logs). 1 if a record was opened. */
static int group_begin(client *c)
{
    if (!prop_on)
        return 0;
    prop_begin(c->dbid);
    return 1;
}

static void group_end(int opened)
{
    if (opened && prop_on)
        prop_end();
}

/* Entry e of s has a new version made by op: its whole entry logged and the
 * change noted in the feed as one group, then the keyspace event fired. */
static void entry_written(client *c, dbent *ke, sp *s, sp_entry *e, int op, const char *event)
{
    int g = group_begin(c);

    log_entry(c, s, e);
    spc_note(c, s, op, e->name, e->nlen, e);
    group_end(g);
    ns_changed(c, ke, s, event);
}

/* Entry e of s has a new version made by op from splices of its previous one:
 * each replaced [at[k], at[k] + del) with p[0..n) (k from count - 1 down to
 * 0, the order they were made in; at[] are offsets in the previous version,
 * the same for every k when count is 1). Logged as one _SPSPLICE per splice
 * (docs/aof.md: the bytes that changed, not the entry, which the loader
 * replays through the same sp_entry_splice) and the change noted in the feed,
 * as one group; then the keyspace event. */
static void splices_written(client *c, dbent *ke, sp *s, sp_entry *e, int op, const char *event, const size_t *at,
                            size_t count, size_t del, const char *p, size_t n)
{
    int g = group_begin(c);
    size_t k;

    for (k = count; prop_on && k-- > 0;) {
        prop_begin(c->dbid);
        prop_str("_SPSPLICE");
        prop_arg(&c->argv[1]);
        prop_bytes(e->name, e->nlen);
        prop_ll((long long)e->version);
        prop_ll(e->updated);
        prop_ll((long long)at[k]);
        prop_ll((long long)del);
        prop_bytes(p, n);
        prop_end();
    }
    spc_note(c, s, op, e->name, e->nlen, e);
    group_end(g);
    ns_changed(c, ke, s, event);
}

/* SP.EDIT's end by splices (edit_in_place, edit_splice): logged as them,
 * [count, version] replied. */
static void edit_spliced(client *c, dbent *ke, sp *s, sp_entry *e, const size_t *at, size_t count)
{
    splices_written(c, ke, s, e, SPCO_OP_EDIT, "sp.edit", at, count, c->argv[3].len, c->argv[4].p, c->argv[4].len);
    reply_array(c, 2);
    reply_int(c, (long long)count);
    reply_int(c, (long long)e->version);
}

/* SP.EDIT's end: e's new version written, [count, version] replied. */
static void edit_done(client *c, dbent *ke, sp *s, sp_entry *e, size_t count)
{
    entry_written(c, ke, s, e, SPCO_OP_EDIT, "sp.edit");
    reply_array(c, 2);
    reply_int(c, (long long)count);
    reply_int(c, (long long)e->version);
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
    int nmeta;           /* META field value options given */
} wopts;

/* ---- metadata (SP.META, SP.WRITE ... META) ---- */

#define META_FIELD_RULE "fields are 1 to 64 bytes of A-Z a-z 0-9 _ - . : /"

/* 0 if argv[i] is a valid metadata field name, else -1 after replying. */
static int meta_field_check(client *c, int i)
{
    if (spmeta_field_valid(c->argv[i].p, c->argv[i].len))
        return 0;
    reply_error(c, "ERR invalid metadata field name: " META_FIELD_RULE);
    return -1;
}

/* A META field value option at argv[i]: its field's index noted in
 * meta_at[(*n)++]; 0, or -1 with the error replied. */
static int meta_option(client *c, int i, int *meta_at, int *n)
{
    if (*n == SPMETA_MAX_FIELDS) {
        reply_errorf(c, "ERR too many META options (at most %d)", SPMETA_MAX_FIELDS);
        return -1;
    }
    if (meta_field_check(c, i + 1) < 0)
        return -1;
    meta_at[(*n)++] = i + 1;
    return 0;
}

/* Reply the error of spmeta_edit's rc (not SPMETA_OK). */
static void meta_error(client *c, int rc)
{
    if (rc == SPMETA_TOO_MANY)
        reply_errorf(c, "ERR metadata would have more than %d fields", SPMETA_MAX_FIELDS);
    else
        reply_errorf(c, "ERR metadata would be over %d bytes (fields and values together)", SPMETA_MAX_BYTES);
}

/* The fields argv[fi[k]] = argv[fi[k] + 1] for k < n, a later one winning,
 * into kv[] (room for n) and then, put on old's fields (none if clear), in *out
 * (NULL if empty; the caller's). 0, or -1 after replying. */
static int meta_build(client *c, const int *fi, size_t n, spmeta_kv *kv, const spmeta *old, int clear, spmeta **out)
{
    size_t k;
    int rc;

    *out = NULL;
    for (k = 0; k < n; k++) {
        if (meta_field_check(c, fi[k]) < 0)
            return -1;
        kv[k].f = c->argv[fi[k]].p;
        kv[k].flen = c->argv[fi[k]].len;
        kv[k].v = c->argv[fi[k] + 1].p;
        kv[k].vlen = c->argv[fi[k] + 1].len;
    }
    if ((rc = spmeta_edit(old, clear, kv, n, NULL, 0, out)) != SPMETA_OK) {
        meta_error(c, rc);
        return -1;
    }
    return 0;
}

static int parse_kind(client *c, int i, int *kind)
{
    if (spc_arg_is(&c->argv[i], "text"))
        *kind = SP_TEXT;
    else if (spc_arg_is(&c->argv[i], "binary"))
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
    wopts o = {0, -1, -1, -1, 0};
    int meta_at[SPMETA_MAX_FIELDS];
    spmeta_kv kv[SPMETA_MAX_FIELDS];
    spmeta *meta = NULL;
    sp_params pr = sp_server_params();
    sp_textinfo ti;
    dbent *ke;
    sp_entry *e;
    sp *s;
    spc_fence f;
    int i, replied, kind, end, ttl_given = 0;

    if ((end = spc_fence_parse(c, 4, &f)) < 0)
        return;
    for (i = 4; i < end; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < end;
        if ((spc_arg_is(a, "ex") || spc_arg_is(a, "px")) && more && !ttl_given) {
            if (arg_expire(c, i + 1, spc_arg_is(a, "ex"), db_now, 1, &o.expire) < 0)
                return;
            ttl_given = 1;
            i++;
        } else if (spc_arg_is(a, "keepttl") && !ttl_given) {
            o.flags |= W_KEEPTTL;
            ttl_given = 1;
        } else if (spc_arg_is(a, "kind") && more && o.kind < 0) {
            if (parse_kind(c, i + 1, &o.kind) < 0)
                return;
            i++;
        } else if (spc_arg_is(a, "nx") && !(o.flags & (W_NX | W_XX))) {
            o.flags |= W_NX;
        } else if (spc_arg_is(a, "xx") && !(o.flags & (W_NX | W_XX))) {
            o.flags |= W_XX;
        } else if (spc_arg_is(a, "ifversion") && more && o.ifversion < 0) {
            if (spc_arg_nonneg(c, i + 1, "IFVERSION", &o.ifversion) < 0)
                return;
            i++;
        } else if (spc_arg_is(a, "meta") && i + 2 < end) {
            if (meta_option(c, i, meta_at, &o.nmeta) < 0)
                return;
            i += 2;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (spc_check_name(c, name) < 0)
        return;
    if ((kind = resolve_kind(c, o.kind, val->p, val->len, &ti)) < 0)
        return;
    if (o.nmeta && meta_build(c, meta_at, (size_t)o.nmeta, kv, NULL, 1, &meta) < 0)
        return;
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        goto done;
    e = s ? sp_find(s, name->p, name->len) : NULL;
    if ((o.flags & W_NX && e) || (o.flags & W_XX && !e)) {
        reply_null(c);
        goto done;
    }
    if (check_version(c, e, o.ifversion) < 0)
        goto done;
    e = s ? sp_own(s, e) : NULL; /* a snapshot or the history may hold it */
    if (!s)
        s = ns_create(c, &ke);
    if (!e)
        e = sp_add(s, name->p, name->len, db_now);
    sp_entry_set_info(s, e, val->p, val->len, kind, &ti, &pr);
    if (o.nmeta) {
        /* META replaces the metadata; without it an overwrite keeps it. */
        spmeta_free(e->meta);
        e->meta = meta;
        meta = NULL;
    }
    e->version++;
    e->updated = db_now;
    if (o.expire >= 0)
        sp_set_expire(s, e, o.expire);
    else if (!(o.flags & W_KEEPTTL))
        sp_set_expire(s, e, default_expire());
    entry_written(c, ke, s, e, SPCO_OP_WRITE, "sp.write");
    reply_int(c, (long long)e->version);
done:
    spmeta_free(meta);
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
    spc_fence f;
    int replied, end, g, created = 0;

    if ((end = spc_fence_parse(c, 4, &f)) < 0)
        return;
    if (end == 6 && spc_arg_is(&c->argv[4], "ifversion")) {
        if (spc_arg_nonneg(c, 5, "IFVERSION", &ifversion) < 0)
            return;
    } else if (end != 4) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (spc_check_name(c, name) < 0)
        return;
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
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
    } else if (sp_entry_append_info(s, e = sp_own(s, e), val->p, val->len, &ti, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    e->version++;
    e->updated = db_now;
    g = group_begin(c);
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
    spc_note(c, s, SPCO_OP_APPEND, e->name, e->nlen, e);
    group_end(g);
    ns_changed(c, ke, s, "sp.append");
    reply_int(c, (long long)sp_entry_length(e));
}

/* ---- SP.EDIT and SP.INSERT ---- */

/* Write new content for e built from the pieces (the caller holds the old bytes).
 * The result of a text entry must stay valid UTF-8. */
static int commit_content(client *c, sp *s, sp_entry *e, const char *p, size_t n)
{
    sp_params pr = sp_server_params();
    sp_textinfo ti;

    /* One pass: the UTF-8 check and the counts the new content is set with. */
    if (vc_threshold > 0 && n >= vc_threshold)
        sp_text_scan_sub(p, n, vc_chunk, &ti);
    else
        sp_text_scan(p, n, &ti);
    if (e->kind == SP_TEXT && !ti.utf8) {
        reply_error(c, "ERR the edit would make a text entry invalid UTF-8");
        return -1;
    }
    sp_entry_set_info(s, e, p, n, e->kind, &ti, &pr);
    e->version++;
    e->updated = db_now;
    return 0;
}

/* Lookup for EDIT/INSERT: the entry, or NULL after replying. */
static sp_entry *edit_target(client *c, long long ifversion, const spc_fence *f, dbent **ke, sp **sp_out)
{
    const sarg *name = &c->argv[2];
    int replied;
    sp_entry *e;
    sp *s;

    if (spc_check_name(c, name) < 0)
        return NULL;
    s = spc_ns_write(c, ke, &replied);
    if (replied || spc_fence_check(c, s, f) < 0)
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

/* SP.EDIT replacing with text of the same length overwrites at most this many
 * occurrences in place; more are rebuilt whole (each one recompresses its
 * sub-blocks). */
#define EDIT_INPLACE_MAX 64

#define EDIT_WINDOW (1u << 20) /* bytes of a compressed entry searched at a time */

/* Find the occurrences of old[0..olen) in e, left to right and not
 * overlapping, without decoding the whole entry at once (a compressed entry is
 * read EDIT_WINDOW bytes at a time): *count gets how many there are, at[] the
 * offsets of the first max of them. 0, or -1 if a chunk is corrupt. */
static int edit_find(const sp_entry *e, const char *old, size_t olen, size_t *at, size_t max, size_t *count,
                     const sp_params *pr)
{
    size_t next = 0, wlen;
    char *buf = NULL;
    int rc = 0;

    *count = 0;
    while (next + olen <= e->size) {
        const char *w, *q, *hit;
        wlen = e->enc == SP_ENC_RAW ? e->size - next : e->size - next < EDIT_WINDOW ? e->size - next : EDIT_WINDOW;
        if (e->enc == SP_ENC_RAW) {
            w = e->raw + next;
        } else {
            if (!buf)
                buf = xmalloc(EDIT_WINDOW);
            if (sp_entry_read(e, next, wlen, buf, pr) < 0) {
                rc = -1;
                break;
            }
            w = buf;
        }
        for (q = w; (hit = memmem(q, wlen - (size_t)(q - w), old, olen)) != NULL; q = hit + olen) {
            if (*count < max)
                at[*count] = next + (size_t)(hit - w);
            (*count)++;
        }
        if (next + wlen == e->size || wlen < olen)
            break;
        /* A match starting before wlen - (olen - 1) was wholly in the window. */
        next += (size_t)(q - w) > wlen - (olen - 1) ? (size_t)(q - w) : wlen - (olen - 1);
    }
    xfree(buf);
    return rc;
}

/* SP.EDIT's same-length case: argv[3] -> argv[4] at the count offsets at[]
 * (edit_find's), in place, each recompressing only the sub-blocks it touches.
 * An overwrite that fails (a corrupt sub-block) puts back those done before
 * it. */
static void edit_in_place(client *c, dbent *ke, sp *s, sp_entry *e, const size_t *at, size_t count)
{
    const sarg *old = &c->argv[3], *new = &c->argv[4];
    sp_params pr = sp_server_params();
    size_t k;

    e = sp_own(s, e); /* a snapshot or the history may hold it */
    for (k = 0; k < count; k++) {
        if (sp_entry_overwrite(e, at[k], new->p, new->len, &pr) < 0) {
            while (k-- > 0)
                sp_entry_overwrite(e, at[k], old->p, old->len, &pr);
            reply_error(c, ERR_CORRUPT);
            return;
        }
    }
    e->version++;
    e->updated = db_now;
    edit_spliced(c, ke, s, e, at, count);
}

/* Whether a compressed entry e changed into new_size bytes by replacing old
 * text with new text (valid UTF-8, or e binary) can be spliced in place: it
 * stays above the compression threshold (so it keeps its encoding), and a text
 * entry stays valid UTF-8 (valid text replacing valid text that starts and ends
 * on character boundaries, as a match of valid text or a line start does). */
static int splice_fits(const sp_entry *e, size_t new_size, const char *old, size_t olen, const char *new, size_t nlen,
                       const sp_params *pr)
{
    if (e->enc != SP_ENC_LZ4 || pr->compress_threshold == 0 || new_size < pr->compress_threshold)
        return 0;
    return e->kind == SP_BINARY || (sp_utf8_valid(old, olen) && sp_utf8_valid(new, nlen));
}

/* SP.EDIT with new text of another length in a compressed entry: argv[3] ->
 * argv[4] at the count offsets at[] (edit_find's), each a splice rebuilding
 * only the chunks it touches, from the last (so the earlier offsets stay
 * right). A splice that fails (a corrupt chunk) takes back those done before
 * it, first to last. */
static void edit_splice(client *c, dbent *ke, sp *s, sp_entry *e, const size_t *at, size_t count)
{
    const sarg *old = &c->argv[3], *new = &c->argv[4];
    sp_params pr = sp_server_params();
    size_t k;

    e = sp_own(s, e); /* a snapshot or the history may hold it */
    for (k = count; k-- > 0;) {
        if (sp_entry_splice(s, e, at[k], old->len, new->p, new->len, &pr) < 0) {
            while (++k < count)
                sp_entry_splice(s, e, at[k], new->len, old->p, old->len, &pr);
            reply_error(c, ERR_CORRUPT);
            return;
        }
    }
    e->version++;
    e->updated = db_now;
    edit_spliced(c, ke, s, e, at, count);
}

/* SP.EDIT's other case: argv[3] -> argv[4] at the count offsets at[] into a
 * new content, the entry's bytes between them decoded straight into it (no
 * copy of the whole entry first), then set whole. */
static void edit_rebuild(client *c, dbent *ke, sp *s, sp_entry *e, const size_t *at, size_t count)
{
    const sarg *old = &c->argv[3], *new = &c->argv[4];
    sp_params pr = sp_server_params();
    size_t outlen = e->size - count * old->len + count * new->len, pos = 0, from = 0, k;
    char *out = xmalloc(outlen + 1);

    for (k = 0; k <= count; k++) {
        size_t to = k < count ? at[k] : e->size;
        if (sp_entry_read(e, from, to - from, out + pos, &pr) < 0) {
            reply_error(c, ERR_CORRUPT);
            goto done;
        }
        pos += to - from;
        if (k < count) {
            memcpy(out + pos, new->p, new->len);
            pos += new->len;
            from = to + old->len;
        }
    }
    e = sp_own(s, e); /* a snapshot or the history may hold it */
    if (commit_content(c, s, e, out, outlen) < 0)
        goto done;
    edit_done(c, ke, s, e, count);
done:
    xfree(out);
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
    spc_fence f;
    int end;

    if ((end = spc_fence_parse(c, 5, &f)) < 0)
        return;
    for (i = 5; i < end; i++) {
        if (spc_arg_is(&c->argv[i], "all")) {
            all = 1;
        } else if (spc_arg_is(&c->argv[i], "ifversion") && i + 1 < end) {
            if (spc_arg_nonneg(c, i + 1, "IFVERSION", &ifversion) < 0)
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
    if (!(e = edit_target(c, ifversion, &f, &ke, &s)))
        return;
    if (old->len <= EDIT_WINDOW / 2) {
        /* The occurrences are found without decoding the whole entry at once.
         * With new text of the same length they are overwritten in place
         * (valid UTF-8 for valid UTF-8 keeps a text entry valid: a match of
         * valid UTF-8 starts and ends on character boundaries); otherwise the
         * new content is built with the entry's bytes decoded straight into
         * it. Several occurrences without ALL, or more than EDIT_INPLACE_MAX,
         * go on below (the error that lists their lines; the whole copy). */
        size_t at[EDIT_INPLACE_MAX];
        if (edit_find(e, old->p, old->len, at, EDIT_INPLACE_MAX, &count, &pr) < 0) {
            reply_error(c, ERR_CORRUPT);
            return;
        }
        if (count == 0) {
            reply_errorf(c, "ERR old text not found in entry '%s' (the match is byte-exact, whitespace included)",
                         e->name);
            return;
        }
        if ((count == 1 || all) && count <= EDIT_INPLACE_MAX) {
            if (new->len == old->len &&
                (e->kind == SP_BINARY || (sp_utf8_valid(old->p, old->len) && sp_utf8_valid(new->p, new->len))))
                edit_in_place(c, ke, s, e, at, count);
            else if (splice_fits(e, e->size - count * old->len + count * new->len, old->p, old->len, new->p, new->len,
                                 &pr))
                edit_splice(c, ke, s, e, at, count);
            else
                edit_rebuild(c, ke, s, e, at, count);
            return;
        }
        count = 0;
    }
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
    e = sp_own(s, e); /* a snapshot or the history may hold it */
    if (commit_content(c, s, e, out, outlen) == 0) {
        edit_done(c, ke, s, e, count);
    }
    xfree(out);
    xfree(content);
}

/* SP.INSERT's new version is in e: logged, noted, replied. */
static void insert_done(client *c, dbent *ke, sp *s, sp_entry *e)
{
    entry_written(c, ke, s, e, SPCO_OP_INSERT, "sp.insert");
    reply_int(c, (long long)e->version);
}

static void cmd_sp_insert(client *c)
{
    const sarg *text = &c->argv[4];
    long long line, ifversion = -1;
    size_t at, lines, outlen, pos = 0;
    int lead_nl, trail_nl;
    sp_params pr = sp_server_params();
    char *out;
    dbent *ke;
    sp_entry *e;
    sp *s;
    spc_fence f;
    int end;

    if ((end = spc_fence_parse(c, 5, &f)) < 0)
        return;
    if (arg_ll(c, 3, &line) < 0)
        return;
    if (end == 7 && spc_arg_is(&c->argv[5], "ifversion")) {
        if (spc_arg_nonneg(c, 6, "IFVERSION", &ifversion) < 0)
            return;
    } else if (end != 5) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (line < -1) {
        reply_error(c, "ERR line must be -1 (the end), 0 (the top) or a line number");
        return;
    }
    if (!(e = edit_target(c, ifversion, &f, &ke, &s)))
        return;
    lines = sp_entry_lines(e);
    if (line == -1 || (size_t)line > lines)
        line = (long long)lines;
    if (sp_entry_line_start(e, (size_t)line + 1, &at, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        return;
    }
    if (at == e->size && text->len > 0) {
        /* At the end: an append (only the last sub-block is recompressed),
         * after a '\n' if the last line has none. */
        int lead = e->size > 0 && !e->ends_nl, rc;
        size_t end_at = e->size;
        char *buf;
        if (e->kind == SP_TEXT && !sp_utf8_valid(text->p, text->len)) {
            reply_error(c, "ERR the edit would make a text entry invalid UTF-8");
            return;
        }
        buf = lead ? xmalloc(text->len + 1) : NULL;
        if (lead) {
            buf[0] = '\n';
            memcpy(buf + 1, text->p, text->len);
        }
        e = sp_own(s, e); /* a snapshot or the history may hold it */
        rc = sp_entry_append(s, e, lead ? buf : text->p, text->len + (size_t)lead, &pr);
        if (rc == 0) {
            e->version++;
            e->updated = db_now;
            splices_written(c, ke, s, e, SPCO_OP_INSERT, "sp.insert", &end_at, 1, 0, lead ? buf : text->p,
                            text->len + (size_t)lead);
            reply_int(c, (long long)e->version);
        } else {
            reply_error(c, ERR_CORRUPT);
        }
        xfree(buf);
        return;
    }
    /* The text becomes whole lines: a newline is added after it if something
     * follows, and before it when appending to content without a final newline. */
    lead_nl = at == e->size && e->size > 0 && !e->ends_nl;
    trail_nl = at < e->size && (text->len == 0 || text->p[text->len - 1] != '\n');
    outlen = e->size + text->len + (size_t)lead_nl + (size_t)trail_nl;
    if (at < e->size && splice_fits(e, outlen, "", 0, text->p, text->len, &pr)) {
        /* Before a line of a compressed entry: a splice at its start (a
         * character boundary) rebuilds only the chunk it falls in. */
        char *ins = xmalloc(text->len + 1);
        int rc;
        memcpy(ins, text->p, text->len);
        if (trail_nl)
            ins[text->len] = '\n';
        e = sp_own(s, e); /* a snapshot or the history may hold it */
        rc = sp_entry_splice(s, e, at, 0, ins, text->len + (size_t)trail_nl, &pr);
        if (rc == 0) {
            e->version++;
            e->updated = db_now;
            splices_written(c, ke, s, e, SPCO_OP_INSERT, "sp.insert", &at, 1, 0, ins, text->len + (size_t)trail_nl);
            reply_int(c, (long long)e->version);
        } else {
            reply_error(c, ERR_CORRUPT);
        }
        xfree(ins);
        return;
    }
    out = xmalloc(outlen + 1);
    /* The entry's bytes are decoded straight into their places in out. */
    if (sp_entry_read(e, 0, at, out, &pr) < 0 ||
        sp_entry_read(e, at, e->size - at, out + outlen - (e->size - at), &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        xfree(out);
        return;
    }
    pos = at;
    if (lead_nl)
        out[pos++] = '\n';
    memcpy(out + pos, text->p, text->len);
    pos += text->len;
    if (trail_nl)
        out[pos++] = '\n';
    e = sp_own(s, e); /* a snapshot or the history may hold it */
    if (commit_content(c, s, e, out, outlen) == 0)
        insert_done(c, ke, s, e);
    xfree(out);
}

/* ---- SP.DEL ---- */

/* Logged as SP.DEL ns <the names it deleted> (never the fence), then one
 * change per name. */
static void cmd_sp_del(client *c)
{
    long long deleted = 0;
    int i, replied, end;
    int *gone = NULL;
    spc_fence f;
    dbent *ke;
    sp *s;

    if ((end = spc_fence_parse(c, 3, &f)) < 0)
        return;
    for (i = 2; i < end; i++)
        if (spc_check_name(c, &c->argv[i]) < 0)
            return;
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        return;
    if (s) {
        for (i = 2; i < end; i++) {
            sp_entry *e = sp_find(s, c->argv[i].p, c->argv[i].len);
            if (e) {
                if (!gone)
                    gone = xmalloc(sizeof(int) * (size_t)(end - 2));
                sp_remove(s, e);
                gone[deleted++] = i;
            }
        }
        if (deleted) {
            int g = group_begin(c);
            if (prop_on) {
                prop_begin(c->dbid);
                prop_str("SP.DEL");
                prop_arg(&c->argv[1]);
                for (i = 0; i < deleted; i++)
                    prop_arg(&c->argv[gone[i]]);
                prop_end();
            }
            for (i = 0; i < deleted; i++)
                spc_note(c, s, SPCO_OP_DEL, c->argv[gone[i]].p, c->argv[gone[i]].len, NULL);
            group_end(g);
            ns_changed(c, ke, s, "sp.del");
        }
    }
    xfree(gone);
    reply_int(c, deleted);
}

/* ---- SP.OFFLOAD ---- */

static void cmd_sp_offload(client *c)
{
    const sarg *val = &c->argv[2];
    long long threshold = srv.cfg.sp_offload_threshold;
    const char *prefix = "obs";
    size_t plen = 3;
    char sep = '-', ckey[SP_NAME_MAX + 2]; /* the counter's key: the prefix, + "_" with SEPARATOR _ */
    size_t cklen;
    wopts o = {0, -1, -1, -1, 0};
    int meta_at[SPMETA_MAX_FIELDS];
    spmeta_kv kv[SPMETA_MAX_FIELDS];
    spmeta *meta = NULL;
    sp_params pr = sp_server_params();
    char name[SP_NAME_MAX + 32];
    sp_textinfo ti;
    size_t nlen;
    int i, replied, kind, ttl_given = 0;
    dbent *ke;
    sp_entry *e;
    sp *s;
    spc_fence f;
    int end, g, chars = 0;
    uint64_t *counter;

    if ((end = spc_fence_parse(c, 3, &f)) < 0)
        return;
    for (i = 3; i < end; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < end;
        if (spc_arg_is(a, "chars")) {
            chars = 1;
        } else if (spc_arg_is(a, "threshold") && more) {
            if (spc_arg_nonneg(c, i + 1, "THRESHOLD", &threshold) < 0)
                return;
            i++;
        } else if (spc_arg_is(a, "prefix") && more) {
            prefix = c->argv[i + 1].p;
            plen = c->argv[i + 1].len;
            if (plen == 0 || plen > SP_NAME_MAX - 21 || !sp_name_valid(prefix, plen)) {
                reply_errorf(c, "ERR invalid PREFIX: it must be a valid entry name of at most %d bytes (" NAME_RULE
                             ")", SP_NAME_MAX - 21);
                return;
            }
            i++;
        } else if (spc_arg_is(a, "separator") && more) {
            const sarg *v = &c->argv[i + 1];
            if (v->len != 1 || (v->p[0] != '-' && v->p[0] != '_')) {
                reply_error(c, "ERR SEPARATOR must be - or _");
                return;
            }
            sep = v->p[0];
            i++;
        } else if ((spc_arg_is(a, "ex") || spc_arg_is(a, "px")) && more && !ttl_given) {
            if (arg_expire(c, i + 1, spc_arg_is(a, "ex"), db_now, 1, &o.expire) < 0)
                return;
            ttl_given = 1;
            i++;
        } else if (spc_arg_is(a, "kind") && more) {
            if (parse_kind(c, i + 1, &o.kind) < 0)
                return;
            i++;
        } else if (spc_arg_is(a, "meta") && i + 2 < end) {
            if (meta_option(c, i, meta_at, &o.nmeta) < 0)
                return;
            i += 2;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    /* "-" keeps the counters of before SEPARATOR existed (keyed by the prefix alone) */
    memcpy(ckey, prefix, plen);
    cklen = plen;
    if (sep != '-')
        ckey[cklen++] = sep;
    if ((kind = resolve_kind(c, o.kind, val->p, val->len, &ti)) < 0)
        return;
    if (o.nmeta && meta_build(c, meta_at, (size_t)o.nmeta, kv, NULL, 1, &meta) < 0)
        return;
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        goto done;
    if ((long long)(chars && kind == SP_TEXT ? ti.chars : val->len) <= threshold) {
        reply_map(c, 2);
        reply_bulk_cstr(c, "stored");
        reply_int(c, 0);
        reply_bulk_cstr(c, "content");
        reply_bulk(c, val->p, val->len);
        goto done;
    }
    if (!s)
        s = ns_create(c, &ke);
    counter = sp_offload_counter(s, ckey, cklen);
    do {
        (*counter)++;
        nlen = (size_t)snprintf(name, sizeof(name), "%.*s%c%llu", (int)plen, prefix, sep, (unsigned long long)*counter);
    } while (sp_find(s, name, nlen));
    e = sp_add(s, name, nlen, db_now);
    sp_entry_set_info(s, e, val->p, val->len, kind, &ti, &pr);
    e->meta = meta;
    meta = NULL;
    e->version = 1;
    sp_set_expire(s, e, o.expire >= 0 ? o.expire : default_expire());
    g = group_begin(c);
    log_entry(c, s, e);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("_SPOFFSEQ");
        prop_arg(&c->argv[1]);
        prop_bytes(ckey, cklen);
        prop_ll((long long)*counter);
        prop_end();
    }
    spc_note(c, s, SPCO_OP_OFFLOAD, e->name, e->nlen, e);
    group_end(g);
    ns_changed(c, ke, s, "sp.offload");
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
    reply_bulk_cstr(c, spc_kind_name(e));
    reply_bulk_cstr(c, "preview");
    spc_reply_preview(c, e, PEEK_DEFAULT, PEEK_DEFAULT);
done:
    spmeta_free(meta);
}

/* ---- per-entry lifetimes: SP.EXPIRE, SP.PEXPIRE, SP.PERSIST ---- */

static void expire_generic(client *c, int seconds)
{
    int64_t when;
    long long v;
    int replied;
    dbent *ke;
    sp_entry *e;
    sp *s;
    spc_fence f;
    int end, g;

    if ((end = spc_fence_parse(c, 4, &f)) < 0)
        return;
    if (end != 4) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (arg_expire(c, 3, seconds, db_now, 0, &when) < 0)
        return;
    v = when - db_now; /* ms from now: not in the future deletes the entry */
    e = spc_ttl_target(c, &ke, &s, 1, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    e = sp_own(s, e);
    g = group_begin(c);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str(v <= 0 ? "SP.DEL" : "_SPEXPIREAT");
        prop_arg(&c->argv[1]);
        prop_arg(&c->argv[2]);
        if (v > 0)
            prop_ll(db_now + v);
        prop_end();
    }
    if (v <= 0) {
        spc_note(c, s, SPCO_OP_DEL, e->name, e->nlen, NULL);
        sp_remove(s, e);
    } else {
        sp_set_expire(s, e, db_now + v);
        spc_note(c, s, SPCO_OP_TTL, e->name, e->nlen, e);
    }
    group_end(g);
    ns_changed(c, ke, s, v <= 0 ? "sp.del" : "sp.expire");
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

/* Logged as SP.PERSIST ns name (never the fence). */
static void cmd_sp_persist(client *c)
{
    dbent *ke;
    sp *s;
    int replied, end, g;
    spc_fence f;
    sp_entry *e;

    if ((end = spc_fence_parse(c, 3, &f)) < 0)
        return;
    if (end != 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    e = spc_ttl_target(c, &ke, &s, 1, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        return;
    if (!e || e->expire < 0) {
        reply_int(c, 0);
        return;
    }
    e = sp_own(s, e);
    sp_set_expire(s, e, -1);
    g = group_begin(c);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("SP.PERSIST");
        prop_arg(&c->argv[1]);
        prop_arg(&c->argv[2]);
        prop_end();
    }
    spc_note(c, s, SPCO_OP_TTL, e->name, e->nlen, e);
    group_end(g);
    ns_changed(c, ke, s, "sp.persist");
    reply_int(c, 1);
}

/* ---- SP.META ---- */

/* SP.META ns name SET field value [field value ...] | DEL field [field ...] |
 * CLEAR [FENCE resource token]: change the entry's metadata without touching
 * its content. A change is a new version, logged as _SPMETA (the whole new
 * map) and recorded in the feed as "meta"; a DEL or CLEAR that removes nothing
 * changes nothing. */
static void cmd_sp_meta(client *c)
{
    const sarg *name = &c->argv[2], *sub = &c->argv[3];
    spmeta_kv *kv = NULL;
    spmeta *meta = NULL;
    int *fi = NULL;
    int i, end, replied, g, set = 0, clear = 0;
    size_t n = 0, removed = 0;
    spc_fence f;
    dbent *ke;
    sp_entry *e;
    sp *s;

    if ((end = spc_fence_parse(c, 4, &f)) < 0)
        return;
    if (spc_arg_is(sub, "set") && end >= 6 && (end - 4) % 2 == 0) {
        set = 1;
        n = (size_t)(end - 4) / 2;
    } else if (spc_arg_is(sub, "del") && end >= 5) {
        n = (size_t)(end - 4);
    } else if (spc_arg_is(sub, "clear") && end == 4) {
        clear = 1;
    } else {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    kv = xmalloc(sizeof(spmeta_kv) * (n ? n : 1));
    fi = xmalloc(sizeof(int) * (n ? n : 1));
    for (i = 0; i < (int)n; i++) {
        fi[i] = set ? 4 + 2 * i : 4 + i;
        if (meta_field_check(c, fi[i]) < 0)
            goto done;
    }
    if (spc_check_name(c, name) < 0)
        goto done;
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        goto done;
    if (!(e = s ? sp_find(s, name->p, name->len) : NULL)) {
        reply_errorf(c, "ERR no such entry '%.*s'", (int)name->len, name->p);
        goto done;
    }
    if (set) {
        if (meta_build(c, fi, n, kv, e->meta, 0, &meta) < 0)
            goto done;
    } else {
        size_t k;
        for (k = 0; k < n; k++) {
            kv[k].f = c->argv[fi[k]].p;
            kv[k].flen = c->argv[fi[k]].len;
            kv[k].v = NULL;
            kv[k].vlen = 0;
        }
        spmeta_edit(e->meta, clear, NULL, 0, kv, n, &meta); /* removing never passes a bound */
        removed = spmeta_count(e->meta) - spmeta_count(meta);
        if (removed == 0) {
            reply_array(c, 2);
            reply_int(c, 0);
            reply_int(c, (long long)e->version);
            goto done;
        }
    }
    e = sp_own(s, e); /* a snapshot or the history may hold it */
    spmeta_free(e->meta);
    e->meta = meta;
    meta = NULL;
    e->version++;
    e->updated = db_now;
    g = group_begin(c);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("_SPMETA");
        prop_arg(&c->argv[1]);
        prop_arg(name);
        prop_ll((long long)e->version);
        prop_ll(e->updated);
        sp_meta_effect_args(&prop_effects, e);
        prop_end();
    }
    spc_note(c, s, SPCO_OP_META, e->name, e->nlen, e);
    group_end(g);
    ns_changed(c, ke, s, "sp.meta");
    if (set) {
        reply_int(c, (long long)e->version);
    } else {
        reply_array(c, 2);
        reply_int(c, (long long)removed);
        reply_int(c, (long long)e->version);
    }
done:
    spmeta_free(meta);
    xfree(fi);
    xfree(kv);
}

#define SPW (CMD_WRITE | CMD_DENYOOM | CMD_OWN_EFFECT)
#define SPR (CMD_READONLY)
/* clang-format off */
const cmd_def cmd_table_sp[] = {
    {.name = "sp.write", .proc = cmd_sp_write, .arity = -4, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Creates or overwrites an entry of a scratchpad; replies the new version.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the content", .acl = "write scratchpad slow"},
    {.name = "sp.meta", .proc = cmd_sp_meta, .arity = -4, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Sets, deletes or clears metadata fields of an entry without rewriting its content.", .since = "0.1.0",
     .complexity = "O(N) where N is the number of fields", .acl = "write scratchpad fast"},
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
     .summary = "Finds the lines of an entry, or of the entries matching globs, that match a Perl-compatible regular expression.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the entries searched", .acl = "read scratchpad slow"},
    {.name = "sp.list", .proc = cmd_sp_list, .arity = -2, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Lists the entries of a scratchpad by name, paginated.", .since = "0.1.0",
     .complexity = "O(log(N)+M) where M is the number of entries examined", .acl = "read scratchpad slow"},
    {.name = "sp.edit", .proc = cmd_sp_edit, .arity = -5, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Replaces an exact, unique string in an entry (or every occurrence with ALL).", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the entry", .acl = "write scratchpad slow"},
    {.name = "sp.insert", .proc = cmd_sp_insert, .arity = -5, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Inserts text after a line of an entry.", .since = "0.1.0",
     .complexity = "O(N) where N is the size of the entry", .acl = "write scratchpad slow"},
    {.name = "sp.del", .proc = cmd_sp_del, .arity = -3, .flags = CMD_WRITE | CMD_OWN_EFFECT, KEYS(1, 1, 1), .group = "scratchpad",
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
    {.name = "sp.expire", .proc = cmd_sp_expire, .arity = -4, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "scratchpad", .summary = "Sets an entry's time to live in seconds.", .since = "0.1.0",
     .complexity = "O(log(N))", .acl = "write scratchpad fast"},
    {.name = "sp.pexpire", .proc = cmd_sp_pexpire, .arity = -4, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "scratchpad", .summary = "Sets an entry's time to live in milliseconds.",
     .since = "0.1.0", .complexity = "O(log(N))", .acl = "write scratchpad fast"},
    {.name = "sp.ttl", .proc = cmd_sp_ttl, .arity = 3, .flags = SPR | CMD_FAST, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Returns an entry's time to live in seconds.", .since = "0.1.0", .complexity = "O(log(N))",
     .acl = "read scratchpad fast"},
    {.name = "sp.pttl", .proc = cmd_sp_pttl, .arity = 3, .flags = SPR | CMD_FAST, KEYS(1, 1, 1),
     .group = "scratchpad", .summary = "Returns an entry's time to live in milliseconds.", .since = "0.1.0",
     .complexity = "O(log(N))", .acl = "read scratchpad fast"},
    {.name = "sp.persist", .proc = cmd_sp_persist, .arity = -3, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "scratchpad", .summary = "Removes an entry's expiry.", .since = "0.1.0", .complexity = "O(log(N))",
     .acl = "write scratchpad fast"},
    {.name = "sp.info", .proc = cmd_sp_info, .arity = 2, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Returns a scratchpad's entry count, logical and stored bytes, and update times.", .since = "0.1.0",
     .complexity = "O(N) where N is the number of entries", .acl = "read scratchpad slow"},
    {.name = "sp.lease", .proc = cmd_sp_lease, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM | CMD_OWN_EFFECT | CMD_BLOCKING,
     KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Takes or renews a lease on a resource of a scratchpad; replies its fencing token and expiry time.",
     .since = "0.1.0", .complexity = "O(log(N)) for N leases of the scratchpad", .acl = "write scratchpad fast blocking"},
    {.name = "sp.release", .proc = cmd_sp_release, .arity = 5, .flags = CMD_WRITE | CMD_OWN_EFFECT | CMD_FAST,
     KEYS(1, 1, 1), .group = "scratchpad", .summary = "Releases a lease held with the given token.",
     .since = "0.1.0", .complexity = "O(N) for N leases of the scratchpad", .acl = "write scratchpad fast"},
    {.name = "sp.leases", .proc = cmd_sp_leases, .arity = 2, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Lists the live leases of a scratchpad: resource, holder, token, ms left.", .since = "0.1.0",
     .complexity = "O(N) for N leases of the scratchpad", .acl = "read scratchpad fast"},
    {.name = "sp.changes", .proc = cmd_sp_changes, .arity = -2, .flags = SPR | CMD_BLOCKING, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Returns the changes of a scratchpad after a sequence number, optionally waiting for the next.",
     .since = "0.1.0", .complexity = "O(log(N)+M) for N retained changes, M returned", .acl = "read scratchpad slow blocking"},
    {.name = "sp.snapshot", .proc = cmd_sp_snapshot, .arity = -3, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Freezes a scratchpad's entries under a label, sharing their content; replies the number of entries.",
     .since = "0.1.0", .complexity = "O(N) where N is the number of entries", .acl = "write scratchpad slow"},
    {.name = "sp.snapshots", .proc = cmd_sp_snapshots, .arity = 2, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Lists a scratchpad's snapshots: label, time, entries, bytes.", .since = "0.1.0",
     .complexity = "O(N) where N is the number of snapshots", .acl = "read scratchpad fast"},
    {.name = "sp.restore", .proc = cmd_sp_restore, .arity = -3, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Makes a scratchpad's entries those of a snapshot, with new versions; replies the entries changed.",
     .since = "0.1.0", .complexity = "O(N) where N is the number of entries", .acl = "write scratchpad slow"},
    {.name = "sp.dropsnapshot", .proc = cmd_sp_dropsnapshot, .arity = -3, .flags = CMD_WRITE | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "scratchpad", .summary = "Drops a snapshot; replies 1, or 0 if there was none.", .since = "0.1.0",
     .complexity = "O(N) where N is the number of entries of the snapshot", .acl = "write scratchpad slow"},
    {.name = "sp.diff", .proc = cmd_sp_diff, .arity = -4, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Lists the entries added, removed and changed between two snapshots or NOW, or one entry's line diff.",
     .since = "0.1.0", .complexity = "O(N) where N is the number of entries; O((L+M)D) for an entry's diff", .acl = "read scratchpad slow"},
    {.name = "sp.fork", .proc = cmd_sp_fork, .arity = -3, .flags = SPW, KEYS(1, 2, 1), .key_specs = "RO access;OW update", .group = "scratchpad",
     .summary = "Creates a scratchpad sharing the entries of another (or of its snapshot); replies the number of entries.",
     .since = "0.1.0", .complexity = "O(N) where N is the number of entries", .acl = "write scratchpad slow"},
    {.name = "sp.history", .proc = cmd_sp_history, .arity = 3, .flags = SPR, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Lists the versions of an entry kept in its history: version, time, op, size, client.",
     .since = "0.1.0", .complexity = "O(N) where N is sp-history-depth", .acl = "read scratchpad fast"},
    {.name = "sp.revert", .proc = cmd_sp_revert, .arity = -4, .flags = SPW, KEYS(1, 1, 1), .group = "scratchpad",
     .summary = "Writes an older version of an entry, from its history, as a new version; replies the version.",
     .since = "0.1.0", .complexity = "O(1), O(N) for raw content of N bytes", .acl = "write scratchpad fast"},
    {0},
};
/* clang-format on */
