/* cmd_sp_hist.c -- an entry's history: SP.HISTORY and SP.REVERT (SP.READ's
 * VERSION option is in cmd_sp_read.c).
 *
 * Why here: the history is kept by core/sp/sphist.c, fed by every change the
 * feed records (spc_note, and the log's replay of _SPCHANGE); this file is
 * the commands that read it and write an old version back. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/sp/sp.h"
#include "core/sp/spco.h"
#include "net/reply.h"
#include "server.h"
#include "types/sp/cmd_sp_int.h"
#include "types/sp/sptype.h"

/* SP.HISTORY ns name: [version, time, op, size, client] per version kept,
 * oldest first; empty for an entry without one, nil for a missing entry. */
void cmd_sp_history(client *c)
{
    const sp_hist *h;
    sp_entry *e;
    size_t i;

    if (!(e = spc_entry_for_read(c)))
        return;
    h = sp_hist_find(dbent_ptr(db_find_raw(c->db, c->argv[1].p, c->argv[1].len)), e->name, e->nlen);
    reply_array(c, h ? (long)h->n : 0);
    for (i = 0; h && i < h->n; i++) {
        const sp_histrec *r = &h->rec[i];
        reply_array(c, 5);
        reply_int(c, (long long)r->e->version);
        reply_int(c, r->time);
        reply_bulk_cstr(c, spco_op_name(r->op));
        reply_int(c, (long long)r->e->size);
        reply_bulk(c, r->client ? r->client : "", r->clen);
    }
}

/* SP.REVERT ns name version [FENCE resource token]: version's content, kind
 * and the entry's lifetime as a new version (sharing the old content). */
void cmd_sp_revert(client *c)
{
    const sarg *name = &c->argv[2];
    const sp_histrec *rec;
    sp_entry *e, *x;
    long long v;
    int replied, end;
    spc_fence f;
    dbent *ke;
    sp *s;

    if ((end = spc_fence_parse(c, 4, &f)) < 0)
        return;
    if (end != 4) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (spc_check_name(c, name) < 0 || spc_arg_nonneg(c, 3, "version", &v) < 0)
        return;
    s = spc_ns_write(c, &ke, &replied);
    if (replied || spc_fence_check(c, s, &f) < 0)
        return;
    e = s ? sp_find(s, name->p, name->len) : NULL;
    if (!e) {
        reply_errorf(c, "ERR no such entry '%.*s'", (int)name->len, name->p);
        return;
    }
    if (!(rec = sp_hist_version(sp_hist_find(s, e->name, e->nlen), (uint64_t)v))) {
        reply_errorf(c, "ERR no version %lld of entry '%.*s' in its history", v, (int)name->len, name->p);
        return;
    }
    x = sp_entry_clone(rec->e);
    x->version = e->version + 1;
    x->created = e->created;
    x->updated = db_now;
    x->expire = e->expire;
    {
        /* e is replaced, not deleted: the version floor of restores stays (the
         * log's replay of _SPENTRY does not move it either). */
        uint64_t vdead = s->vdead;
        sp_put(s, x); /* e is released; the history keeps its share */
        s->vdead = vdead;
    }
    if (prop_on) {
        prop_begin(c->dbid);
        prop_begin(c->dbid);
        prop_str("_SPENTRY");
        sp_entry_effect_args(&prop_effects, c->argv[1].p, c->argv[1].len, s, x);
        prop_end();
    }
    spc_note(c, s, SPCO_OP_REVERT, x->name, x->nlen, x);
    if (prop_on)
        prop_end();
    sp_key_settle(c->db, ke, s);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    reply_int(c, (long long)x->version);
}
