/* cmd_sp_snap.c -- snapshots and forks of a scratchpad: SP.SNAPSHOT,
 * SP.SNAPSHOTS, SP.RESTORE, SP.DROPSNAPSHOT, SP.DIFF and SP.FORK.
 *
 * Why here: the structures and their sharing are core/sp's (spsnap.c: a
 * snapshot holds a share of each entry, the live scratchpad copies an entry
 * before changing it); this file is the commands, their log effects and their
 * changes in the feed. The records and their replay are sptype.c's.
 *
 * Log: SP.SNAPSHOT is logged as _SPSNAP ns label time, SP.RESTORE as
 * _SPRESTORE ns label time (both replayed on the state the log rebuilt, which
 * is the state they ran on), then one `restore` change per entry it changed,
 * in one record; SP.DROPSNAPSHOT and SP.FORK as typed, without FENCE. A
 * snapshot, like the leases and the feed, belongs to the value: DEL, RENAME,
 * MOVE, FLUSHDB and the key's expiry need nothing of their own; COPY and
 * SP.FORK copy the entries only; a key with snapshots and no entries stays. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/sp/sp.h"
#include "core/mem.h"
#include "core/sp/spco.h"
#include "core/sp/spdiff.h"
#include "net/reply.h"
#include "server.h"
#include "types/sp/cmd_sp_int.h"
#include "types/sp/sptype.h"

/* 0 if a is a valid snapshot label (the rule of entry names, and not NOW);
 * else replies the error and returns -1. */
static int check_label(client *c, const sarg *a)
{
    if (sp_name_valid(a->p, a->len) && !spc_arg_is(a, "now"))
        return 0;
    reply_errorf(c, "ERR invalid snapshot label: labels follow the rule of entry names (%s), and NOW is reserved",
                 NAME_RULE);
    return -1;
}

static void reply_no_snapshot(client *c, const sarg *a)
{
    reply_errorf(c, "ERR no such snapshot '%.*s'", (int)a->len, a->p);
}

/* SP.SNAPSHOT ns label [FENCE resource token] */
void cmd_sp_snapshot(client *c)
{
    const sarg *label = &c->argv[2];
    int replied, end;
    spc_fence f;
    dbent *ke;
    sp *s;

    if ((end = spc_fence_parse(c, 3, &f)) < 0)
        return;
    if (end != 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (check_label(c, label) < 0)
        return;
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        return;
    if (!s) {
        reply_error(c, "ERR no such scratchpad");
        return;
    }
    if (sp_snap_find(s, label->p, label->len)) {
        reply_errorf(c, "ERR snapshot '%.*s' exists", (int)label->len, label->p);
        return;
    }
    if (s->nsnaps >= SP_SNAP_MAX) {
        reply_errorf(c, "ERR too many snapshots (at most %d per scratchpad)", SP_SNAP_MAX);
        return;
    }
    sp_snap_take(s, label->p, label->len, db_now);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("_SPSNAP");
        prop_arg(&c->argv[1]);
        prop_arg(label);
        prop_ll(db_now);
        prop_end();
    }
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    reply_int(c, (long long)s->n);
}

/* SP.SNAPSHOTS ns: [label, time, entries, bytes] per snapshot, oldest first. */
void cmd_sp_snapshots(client *c)
{
    int replied;
    sp *s = spc_ns_read(c, NULL, &replied);
    size_t i;

    if (replied)
        return;
    reply_array(c, s ? (long)s->nsnaps : 0);
    for (i = 0; s && i < s->nsnaps; i++) {
        const sp_snap *sn = s->snaps[i];
        reply_array(c, 4);
        reply_bulk(c, sn->label, sn->llen);
        reply_int(c, sn->time);
        reply_int(c, (long long)sn->n);
        reply_int(c, (long long)sn->bytes);
    }
}

typedef struct restore_ctx {
    client *c;
    sp *s;
} restore_ctx;

static void note_restore(void *ctx, const char *name, size_t nlen, const sp_entry *e)
{
    restore_ctx *r = ctx;
    spc_note(r->c, r->s, SPCO_OP_RESTORE, name, nlen, e);
}

/* SP.RESTORE ns label [FENCE resource token]: replies the entries changed. */
void cmd_sp_restore(client *c)
{
    const sarg *label = &c->argv[2];
    int replied, end, g = 0;
    restore_ctx rc;
    spc_fence f;
    sp_snap *sn;
    size_t changed;
    dbent *ke;
    sp *s;

    if ((end = spc_fence_parse(c, 3, &f)) < 0)
        return;
    if (end != 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        return;
    if (!s || !(sn = sp_snap_find(s, label->p, label->len))) {
        reply_no_snapshot(c, label);
        return;
    }
    if (prop_on) {
        g = 1;
        prop_begin(c->dbid);
        prop_begin(c->dbid);
        prop_str("_SPRESTORE");
        prop_arg(&c->argv[1]);
        prop_arg(label);
        prop_ll(db_now);
        prop_end();
    }
    rc.c = c;
    rc.s = s;
    changed = sp_restore(s, sn, db_now, note_restore, &rc);
    if (g && prop_on)
        prop_end();
    sp_key_settle(c->db, ke, s);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    reply_int(c, (long long)changed);
}

/* SP.DROPSNAPSHOT ns label [FENCE resource token]: 1 if dropped, 0 if none. */
void cmd_sp_dropsnapshot(client *c)
{
    const sarg *label = &c->argv[2];
    int replied, end;
    spc_fence f;
    sp_snap *sn;
    dbent *ke;
    sp *s;

    if ((end = spc_fence_parse(c, 3, &f)) < 0)
        return;
    if (end != 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        return;
    if (!s || !(sn = sp_snap_find(s, label->p, label->len))) {
        reply_int(c, 0);
        return;
    }
    sp_snap_drop(s, sn);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("SP.DROPSNAPSHOT");
        prop_arg(&c->argv[1]);
        prop_arg(label);
        prop_end();
    }
    sp_key_settle(c->db, ke, s);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    reply_int(c, 1);
}

/* The entries of side a of scratchpad s (NULL: none): NOW (the live ones) or a
 * label. 0, or -1 after replying that the snapshot does not exist. */
static int diff_side(client *c, sp *s, const sarg *a, sp_entry *const **e, size_t *n)
{
    const sp_snap *sn;

    if (spc_arg_is(a, "now")) {
        *e = s ? s->e : NULL;
        *n = s ? s->n : 0;
        return 0;
    }
    if (!s || !(sn = sp_snap_find(s, a->p, a->len))) {
        reply_no_snapshot(c, a);
        return -1;
    }
    *e = sn->e;
    *n = sn->n;
    return 0;
}

/* The entry named name among e[0..n) (sorted), or NULL. */
static const sp_entry *side_entry(sp_entry *const *e, size_t n, const sarg *name)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = sp_name_cmp(e[mid]->name, e[mid]->nlen, name->p, name->len);
        if (r == 0)
            return e[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The content of x (NULL: none, empty) in *buf (xmalloc'd, or NULL), *n bytes.
 * 0, or -1 after replying an error. */
static int diff_text(client *c, const sp_entry *x, char **buf, size_t *n)
{
    sp_params pr = sp_server_params();

    *buf = NULL;
    *n = 0;
    if (!x)
        return 0;
    if (x->kind != SP_TEXT) {
        reply_error(c, "ERR binary entries are not diffed");
        return -1;
    }
    if (x->size > SPDIFF_MAX_BYTES) {
        reply_errorf(c, "ERR diff too large: an entry of more than %d bytes", SPDIFF_MAX_BYTES);
        return -1;
    }
    if (sp_entry_copy(x, buf, &pr) < 0) {
        reply_error(c, ERR_CORRUPT);
        return -1;
    }
    *n = x->size;
    return 0;
}

/* SP.DIFF ns from to name: the unified diff of the entry between the two
 * states (spdiff.h's bounds), "" if the same, nil if in neither. */
static void diff_entry(client *c, sp_entry *const *a, size_t na, sp_entry *const *b, size_t nb)
{
    const sarg *name = &c->argv[4];
    const sp_entry *x = side_entry(a, na, name), *y = side_entry(b, nb, name);
    char *ta = NULL, *tb = NULL, *out = NULL, la[SP_NAME_MAX * 2 + 8], lb[SP_NAME_MAX * 2 + 8];
    size_t lena, lenb, outlen;
    int rc;

    if (!x && !y) {
        reply_null(c);
        return;
    }
    if (diff_text(c, x, &ta, &lena) < 0 || diff_text(c, y, &tb, &lenb) < 0)
        goto done;
    snprintf(la, sizeof(la), "%.*s@%.*s", (int)name->len, name->p, (int)c->argv[2].len, c->argv[2].p);
    snprintf(lb, sizeof(lb), "%.*s@%.*s", (int)name->len, name->p, (int)c->argv[3].len, c->argv[3].p);
    rc = spdiff_unified(ta ? ta : "", lena, tb ? tb : "", lenb, la, lb, &out, &outlen);
    if (rc == SPDIFF_TOO_MANY_LINES)
        reply_errorf(c, "ERR diff too large: more than %d changed lines on a side", SPDIFF_MAX_LINES);
    else if (rc == SPDIFF_TOO_MANY_EDITS)
        reply_errorf(c, "ERR diff too large: more than %d lines removed and added", SPDIFF_MAX_EDITS);
    else if (rc == SPDIFF_TOO_LONG)
        reply_errorf(c, "ERR diff too large: more than %d bytes", SPDIFF_MAX_OUT);
    else
        reply_bulk(c, out, outlen);
done:
    xfree(out);
    xfree(ta);
    xfree(tb);
}

typedef struct diff_ctx {
    client *c;
    long count;
} diff_ctx;

static int diff_one(void *ctx, const sp_entry *a, const sp_entry *b)
{
    diff_ctx *d = ctx;
    const sp_entry *x = a ? a : b;

    reply_array(d->c, 6);
    reply_bulk_cstr(d->c, !a ? "added" : !b ? "removed" : "changed");
    reply_bulk(d->c, x->name, x->nlen);
    if (a)
        reply_int(d->c, (long long)a->version);
    else
        reply_null(d->c);
    if (b)
        reply_int(d->c, (long long)b->version);
    else
        reply_null(d->c);
    if (a)
        reply_int(d->c, (long long)a->size);
    else
        reply_null(d->c);
    if (b)
        reply_int(d->c, (long long)b->size);
    else
        reply_null(d->c);
    d->count++;
    return 0;
}

/* SP.DIFF ns from to [name]: [added|removed|changed, name, old version, new
 * version, old size, new size] per entry that differs, in name order; with a
 * name, that entry's unified line diff. */
void cmd_sp_diff(client *c)
{
    sp_params pr = sp_server_params();
    sp_entry *const *a, *const *b;
    size_t na, nb;
    diff_ctx d;
    void *slot;
    int replied;
    sp *s;

    if (c->argc != 4 && c->argc != 5) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (c->argc == 5 && spc_check_name(c, &c->argv[4]) < 0)
        return;
    s = spc_ns_read(c, NULL, &replied);
    if (replied || diff_side(c, s, &c->argv[2], &a, &na) < 0 || diff_side(c, s, &c->argv[3], &b, &nb) < 0)
        return;
    if (c->argc == 5) {
        diff_entry(c, a, na, b, nb);
        return;
    }
    d.c = c;
    d.count = 0;
    slot = reply_defer(c);
    if (sp_diff(a, na, b, nb, diff_one, &d, &pr) < 0) {
        /* A corrupt chunk: the elements sent so far are closed by an error one. */
        reply_error(c, ERR_CORRUPT);
        d.count++;
    }
    reply_defer_array(c, slot, d.count);
}

/* SP.FORK src dst [FROM label] [FENCE resource token]: dst (which must not
 * exist) gets src's live entries, or those of its snapshot label, shared.
 * Replies the number of entries. */
void cmd_sp_fork(client *c)
{
    const sarg *from = NULL;
    int replied, end;
    spc_fence f;
    dbent *ke, *de;
    sp *s, *d;

    if ((end = spc_fence_parse(c, 3, &f)) < 0)
        return;
    if (end == 5 && spc_arg_is(&c->argv[3], "from")) {
        from = &c->argv[4];
    } else if (end != 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        return;
    if (!s) {
        reply_error(c, "ERR no such scratchpad");
        return;
    }
    if (c->argv[1].len == c->argv[2].len && memcmp(c->argv[1].p, c->argv[2].p, c->argv[1].len) == 0) {
        reply_error(c, "ERR source and destination are the same scratchpad");
        return;
    }
    if (db_lookup_write(c->db, c->argv[2].p, c->argv[2].len)) {
        reply_error(c, "ERR target key exists");
        return;
    }
    if (from) {
        const sp_snap *sn = sp_snap_find(s, from->p, from->len);
        if (!sn) {
            reply_no_snapshot(c, from);
            return;
        }
        d = sp_dup_snap(sn);
    } else {
        d = sp_dup(s);
    }
    if (d->n == 0) {
        sp_free(d);
        reply_int(c, 0); /* an empty scratchpad is no key */
        return;
    }
    de = db_add(c->db, c->argv[2].p, c->argv[2].len, OBJ_SCRATCHPAD, sizeof(void *));
    de->enc = ENC_PTR;
    dbent_set_ptr(de, d);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("SP.FORK");
        prop_arg(&c->argv[1]);
        prop_arg(&c->argv[2]);
        if (from) {
            prop_str("FROM");
            prop_arg(from);
        }
        prop_end();
    }
    sp_key_settle(c->db, de, d);
    signal_key_changed(c->db, c->argv[2].p, c->argv[2].len);
    reply_int(c, (long long)d->n);
}
