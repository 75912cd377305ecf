/* cmd_sp_common.c -- the lookups, checks and replies the SP.* command files share.
 *
 * Why: the writes (cmd_sp.c), the reads (cmd_sp_read.c) and SP.GREP
 * (cmd_sp_grep.c) find a scratchpad and an entry, check a name, parse an option
 * and reply an entry's bytes in the same way; one copy keeps their answers
 * (WRONGTYPE, nil for a missing entry, the error texts) the same. Nothing here
 * changes a scratchpad (but a lookup removes the entries due to expire) or
 * keeps any state. Contracts in cmd_sp_int.h. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "core/sp/spco.h"
#include "server.h"
#include "core/mem.h"
#include "net/reply.h"
#include "core/sp/sp.h"
#include "core/util.h"
#include "types/sp/cmd_sp_int.h"
#include "types/sp/sptype.h"

/* ---- lookups ---- */

/* The scratchpad at argv[1] for reading, or NULL if absent (nothing replied) or
 * of another type (*replied = 1, WRONGTYPE sent). Entries due to expire were
 * removed by the lookup (db_lookup applies the sub-expiry). */
sp *spc_ns_read(client *c, dbent **out, int *replied)
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

/* As spc_ns_read, without counting a keyspace hit or miss (for writes). */
sp *spc_ns_write(client *c, dbent **out, int *replied)
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

/* The entry named by argv[2] of the scratchpad at argv[1], for reading; NULL
 * after a reply was sent: an invalid name, WRONGTYPE, or nil for a missing
 * entry or scratchpad (as GET on a missing key). */
sp_entry *spc_entry_for_read(client *c)
{
    const sarg *name = &c->argv[2];
    int replied;
    sp_entry *e;
    sp *s;

    if (spc_check_name(c, name) < 0)
        return NULL;
    s = spc_ns_read(c, NULL, &replied);
    if (replied)
        return NULL;
    e = s ? sp_find(s, name->p, name->len) : NULL;
    if (!e)
        reply_null(c);
    return e;
}

/* The entry named by argv[2] for the TTL commands; NULL if absent, with
 * *replied set when an error was sent. */
sp_entry *spc_ttl_target(client *c, dbent **ke, sp **sp_out, int write, int *replied)
{
    const sarg *name = &c->argv[2];
    sp *s;

    *sp_out = NULL;
    *replied = 0;
    if (spc_check_name(c, name) < 0) {
        *replied = 1;
        return NULL;
    }
    s = write ? spc_ns_write(c, ke, replied) : spc_ns_read(c, ke, replied);
    if (*replied)
        return NULL;
    *sp_out = s;
    if (!s)
        return NULL;
    return sp_find(s, name->p, name->len);
}

/* ---- checks and options ---- */

/* Check an entry name, replying the rule if it is invalid. 0 / -1. */
int spc_check_name(client *c, const sarg *name)
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

int spc_arg_is(const sarg *a, const char *w)
{
    return str_eq_ci(a->p, a->len, w);
}

/* Parse a non-negative integer option value. 0 / -1 after replying. */
int spc_arg_nonneg(client *c, int i, const char *what, long long *out)
{
    if (arg_ll(c, i, out) < 0)
        return -1;
    if (*out < 0) {
        reply_errorf(c, "ERR %s must not be negative", what);
        return -1;
    }
    return 0;
}

/* ---- fences, leases and the feed ---- */

int spc_check_lease_name(client *c, const sarg *a, const char *what)
{
    size_t i;

    if (a->len < 1 || a->len > SPCO_NAME_MAX)
        goto bad;
    for (i = 0; i < a->len; i++)
        if ((unsigned char)a->p[i] <= 0x20 || (unsigned char)a->p[i] >= 0x7f)
            goto bad;
    return 0;
bad:
    reply_errorf(c, "ERR invalid %s: 1 to %d bytes of printable ASCII without spaces", what, SPCO_NAME_MAX);
    return -1;
}

int spc_fence_parse(client *c, int min, spc_fence *f)
{
    long long t;

    f->given = 0;
    /* The log never holds a fence (the effect of a fenced write is the write):
     * replayed, "SP.DEL ns FENCE x 5" deletes three entries. */
    if (srv.loading || c->argc < min + 3 || !spc_arg_is(&c->argv[c->argc - 3], "fence"))
        return c->argc;
    if (spc_check_lease_name(c, &c->argv[c->argc - 2], "FENCE resource") < 0)
        return -1;
    if (str_to_ll(c->argv[c->argc - 1].p, c->argv[c->argc - 1].len, &t) < 0 || t < 1) {
        reply_error(c, "ERR FENCE token must be a positive integer");
        return -1;
    }
    f->given = 1;
    f->res = &c->argv[c->argc - 2];
    f->token = (uint64_t)t;
    return c->argc - 3;
}

int spc_fence_check(client *c, const sp *s, const spc_fence *f)
{
    const sp_lease *cur;
    int r;

    if (!f->given)
        return 0;
    r = spco_fence(s ? s->co : NULL, f->res->p, f->res->len, f->token, db_now, &cur);
    if (r == SPCO_FENCE_OK)
        return 0;
    if (r == SPCO_FENCE_NOLEASE)
        reply_errorf(c, "FENCED no current lease on '%.*s': token %llu is not valid", (int)f->res->len, f->res->p,
                     (unsigned long long)f->token);
    else
        reply_errorf(c, "FENCED token %llu of '%.*s' is stale: the current one is %llu, held by %.*s",
                     (unsigned long long)f->token, (int)f->res->len, f->res->p, (unsigned long long)cur->token,
                     (int)cur->hlen, sp_lease_holder(cur));
    return -1;
}

void spc_note(client *c, sp *s, int op, const char *name, size_t nlen, const sp_entry *e)
{
    if (srv.loading)
        return;
    sp_change_note(prop_on ? &prop_effects : NULL, c->dbid, c->argv[1].p, c->argv[1].len, s, op, name, nlen, e, c->name,
                   c->name ? strlen(c->name) : 0, db_now);
    sp_history_note(s, (sp_entry *)e, name, nlen, op, db_now, c->name, c->name ? strlen(c->name) : 0);
}

/* ---- replies ---- */

const char *spc_kind_name(const sp_entry *e)
{
    return e->kind == SP_TEXT ? "text" : "binary";
}

/* Reply bytes [b0, b1) of an entry as a bulk string. */
void spc_reply_entry_bytes(client *c, const sp_entry *e, size_t b0, size_t b1)
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

/* Reply the preview of e: text as head + marker + tail, binary as a summary. */
void spc_reply_preview(client *c, sp_entry *e, size_t head, size_t tail)
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
        spc_reply_entry_bytes(c, e, 0, e->size);
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
