/* cmd_stream_common.c -- the lookup, id parsing, entry replies and effects the
 * stream command files share.
 *
 * Why: the commands on entries (cmd_stream.c), the reads (cmd_xread.c) and the
 * consumer groups (cmd_xgroup.c) find a stream, parse ids, reply entries and
 * log what they did to a group in the same way; one copy keeps their answers
 * (WRONGTYPE, ERR_BADID, an entry as [id, [f, v, ...]]) and their log records
 * the same. Nothing here changes a stream or keeps any state. Contracts in
 * cmd_stream_int.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/propagate.h"
#include "core/util.h"
#include "net/reply.h"
#include "types/stream/cmd_stream_int.h"
#include "types/stream/stream.h"

#define ERR_BADID "ERR Invalid stream ID specified as stream command argument"

/* ---- helpers ---- */

int xc_lookup_stream(client *c, const sarg *key, int write, dbent **out)
{
    dbent *e = write ? db_lookup_write(c->db, key->p, key->len) : db_lookup(c->db, key->p, key->len);

    if (e && e->type != OBJ_STREAM) {
        reply_error(c, ERR_WRONGTYPE);
        return -1;
    }
    *out = e;
    return 0;
}

/* Redis's string2ull: digits, else what strtoull takes whole. */
static int parse_ull(const char *p, size_t n, uint64_t *out)
{
    char buf[128];
    char *end;
    unsigned long long v;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    if (strlen(buf) != n)
        return -1;
    errno = 0;
    v = strtoull(buf, &end, 10);
    if (errno == EINVAL || errno == ERANGE || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

/* Redis's streamGenericParseIDOrReply: strict refuses "-" and "+"; with
 * seq_given, "ms-*" is accepted. 0, or -1 with the error replied (if c). */
int xc_parse_id(client *c, const sarg *a, uint64_t missing_seq, int strict, int *seq_given, xs_id *id)
{
    const char *dash;
    size_t n = a->len;

    if (seq_given)
        *seq_given = 1;
    if (n > 127)
        goto invalid;
    if (n == 1 && (a->p[0] == '-' || a->p[0] == '+')) {
        if (strict)
            goto invalid;
        *id = a->p[0] == '-' ? ID_MIN : ID_MAX;
        return 0;
    }
    dash = memchr(a->p, '-', n);
    if (parse_ull(a->p, dash ? (size_t)(dash - a->p) : n, &id->ms) < 0)
        goto invalid;
    if (!dash) {
        id->seq = missing_seq;
        return 0;
    }
    if (seq_given && dash + 2 == a->p + n && dash[1] == '*') {
        id->seq = 0;
        *seq_given = 0;
        return 0;
    }
    if (parse_ull(dash + 1, (size_t)(a->p + n - dash - 1), &id->seq) < 0)
        goto invalid;
    return 0;
invalid:
    if (c)
        reply_error(c, ERR_BADID);
    return -1;
}

/* An interval bound: "(" id exclusive (strict), else "-", "+" or an id. */
int xc_parse_interval(client *c, const sarg *a, uint64_t missing_seq, int *exclude, xs_id *id)
{
    *exclude = a->len > 1 && a->p[0] == '(';
    if (*exclude) {
        sarg t = {a->p + 1, a->len - 1};
        return xc_parse_id(c, &t, missing_seq, 1, NULL, id);
    }
    return xc_parse_id(c, a, missing_seq, 0, NULL, id);
}

void xc_reply_id(client *c, const xs_id *id)
{
    char buf[48];
    reply_bulk(c, buf, stream_fmt_id(buf, id));
}

void xc_prop_id(const xs_id *id)
{
    char buf[48];
    prop_bytes(buf, stream_fmt_id(buf, id));
}

/* Reply the entry the iterator is on: [id, [f, v, ...]]. */
void xc_reply_entry(client *c, xs_iter *it, const xs_id *id, uint64_t nf)
{
    uint64_t k;

    reply_array(c, 2);
    xc_reply_id(c, id);
    reply_array(c, (long)(2 * nf));
    for (k = 0; k < nf; k++) {
        const char *f, *v;
        size_t fl, vl;
        xs_field(it, &f, &fl, &v, &vl);
        reply_bulk(c, f, fl);
        reply_bulk(c, v, vl);
    }
}

/* Reply entries in [start, end] (count 0: all) as an array; returns how many. */
size_t xc_reply_range(client *c, const stream *s, const xs_id *start, const xs_id *end, size_t count, int rev)
{
    void *slot = reply_defer(c);
    xs_iter it;
    xs_id id;
    uint64_t nf;
    size_t n = 0;

    xs_iter_init(&it, s->x, start, end, rev);
    while ((!count || n < count) && xs_next(&it, &id, &nf)) {
        xc_reply_entry(c, &it, &id, nf);
        n++;
    }
    reply_defer_array(c, slot, n);
    return n;
}

/* Reply the one entry id ([id, [f, v...]]) if live: 1, else 0 (nothing replied). */
int xc_reply_one(client *c, const stream *s, const xs_id *id)
{
    xs_iter it;
    xs_id got;
    uint64_t nf;

    xs_iter_init(&it, s->x, id, id, 0);
    if (!xs_next(&it, &got, &nf))
        return 0;
    xc_reply_entry(c, &it, &got, nf);
    return 1;
}

int xc_entry_exists(const stream *s, const xs_id *id)
{
    xs_iter it;
    xs_id got;
    uint64_t nf;

    xs_iter_init(&it, s->x, id, id, 0);
    return xs_next(&it, &got, &nf);
}

int xc_arg_is(const sarg *a, const char *w)
{
    return str_eq_ci(a->p, a->len, w);
}

/* ---- effects ---- */

void xc_prop_xclaim(client *c, const sarg *key, const xgroup *g, const xnack *n)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XCLAIM");
    prop_arg(key);
    prop_bytes(g->name, g->nlen);
    prop_bytes(n->consumer->name, n->consumer->nlen);
    prop_str("0");
    xc_prop_id(&n->id);
    prop_str("TIME");
    prop_ll(n->delivery_time);
    prop_str("RETRYCOUNT");
    prop_ll((long long)n->delivery_count);
    prop_str("FORCE");
    prop_str("JUSTID");
    prop_end();
}

void xc_prop_xack(client *c, const sarg *key, const xgroup *g, const xs_id *id)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XACK");
    prop_arg(key);
    prop_bytes(g->name, g->nlen);
    xc_prop_id(id);
    prop_end();
}

void xc_prop_setid(client *c, const sarg *key, const xgroup *g)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XGROUP");
    prop_str("SETID");
    prop_arg(key);
    prop_bytes(g->name, g->nlen);
    xc_prop_id(&g->last_id);
    prop_str("ENTRIESREAD");
    prop_ll(g->entries_read);
    prop_end();
}

void xc_prop_createconsumer(client *c, const sarg *key, const xgroup *g, const xconsumer *cons)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XGROUP");
    prop_str("CREATECONSUMER");
    prop_arg(key);
    prop_bytes(g->name, g->nlen);
    prop_bytes(cons->name, cons->nlen);
    prop_end();
}
