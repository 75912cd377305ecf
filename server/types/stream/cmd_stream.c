/* cmd_stream.c -- the stream commands on entries and ids: XADD, XTRIM, XLEN,
 * XRANGE, XREVRANGE, XDEL and XSETID; and the family's command table (the rows
 * of every X command and of XGROUP's and XINFO's subcommands, whose handlers
 * are cmd_xread.c's and cmd_xgroup.c's).
 *
 * Why a file of its own: these commands work on a stream's entries and its
 * counters, never on its groups; XADD and XTRIM share the parsing of the trim
 * options (Redis's streamParseAddOrTrimArgsOrReply). Conventions and the
 * helpers shared with the other files: cmd_stream_int.h.
 *
 * Effects (docs/aof.md): XADD logs itself with its id made explicit (and an
 * exact XTRIM key MAXLEN n when it trimmed); XTRIM logs XTRIM key MAXLEN n
 * with the length it left. So a replay recreates the same ids. The other
 * writes here (XDEL, XSETID) are deterministic and logged as typed. */
#include <stdint.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "types/stream/cmd_stream_int.h"
#include "types/stream/stream.h"

/* ---- effects ---- */

static void prop_trim_to(client *c, const sarg *key, const stream *s)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XTRIM");
    prop_arg(key);
    prop_str("MAXLEN");
    prop_ll((long long)xs_len(s->x));
    prop_end();
}

/* ---- XADD, XTRIM ---- */

enum { TRIM_NONE, TRIM_MAXLEN, TRIM_MINID };

typedef struct trim_args {
    int strategy;
    int approx;
    long long maxlen;
    xs_id minid;
    long long limit;
    int nomkstream;
    int id_given, seq_given;
    xs_id id;
} trim_args;

/* Redis's streamParseAddOrTrimArgsOrReply: the index where XADD's id is, or
 * -1 with the error replied. */
static int parse_add_trim(client *c, trim_args *t, int xadd)
{
    int i = 2, limit_given = 0;

    memset(t, 0, sizeof(*t));
    for (; i < c->argc; i++) {
        int more = c->argc - 1 - i;
        const sarg *o = &c->argv[i];
        if (xadd && o->len == 1 && o->p[0] == '*') {
            break;
        } else if ((xc_arg_is(o, "maxlen") || xc_arg_is(o, "minid")) && more) {
            int maxlen = xc_arg_is(o, "maxlen");
            const sarg *next = &c->argv[i + 1];
            if (t->strategy != TRIM_NONE) {
                reply_error(c, "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
                return -1;
            }
            t->approx = 0;
            if (more >= 2 && next->len == 1 && next->p[0] == '~') {
                t->approx = 1;
                i++;
            } else if (more >= 2 && next->len == 1 && next->p[0] == '=') {
                i++;
            }
            if (maxlen) {
                if (arg_ll(c, i + 1, &t->maxlen) < 0)
                    return -1;
                if (t->maxlen < 0) {
                    reply_error(c, "ERR The MAXLEN argument must be >= 0.");
                    return -1;
                }
            } else if (xc_parse_id(c, &c->argv[i + 1], 0, 1, NULL, &t->minid) < 0) {
                return -1;
            }
            i++;
            t->strategy = maxlen ? TRIM_MAXLEN : TRIM_MINID;
        } else if (xc_arg_is(o, "limit") && more) {
            if (arg_ll(c, i + 1, &t->limit) < 0)
                return -1;
            if (t->limit < 0) {
                reply_error(c, "ERR The LIMIT argument must be >= 0.");
                return -1;
            }
            limit_given = 1;
            i++;
        } else if (xadd && xc_arg_is(o, "nomkstream")) {
            t->nomkstream = 1;
        } else if (xadd) {
            if (xc_parse_id(c, o, 0, 1, &t->seq_given, &t->id) < 0)
                return -1;
            t->id_given = 1;
            break;
        } else {
            reply_error(c, ERR_SYNTAX);
            return -1;
        }
    }
    if (t->limit && t->strategy == TRIM_NONE) {
        reply_error(c, "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
        return -1;
    }
    if (!xadd && t->strategy == TRIM_NONE) {
        reply_error(c, "ERR syntax error, XTRIM must be called with a trimming strategy");
        return -1;
    }
    if (c->flags & CLIENT_FAKE) {
        t->limit = 0; /* the log's replay: trim as the command says */
    } else if (limit_given) {
        if (!t->approx) {
            reply_error(c, "ERR syntax error, LIMIT cannot be used without the special ~ option");
            return -1;
        }
    } else if (t->approx) {
        /* Redis's default: 100 blocks' worth, 10000 without a block bound,
         * at most a million. */
        if (stream_node_max_entries <= 0)
            t->limit = 10000;
        else if (stream_node_max_entries > 10000)
            t->limit = 1000000;
        else
            t->limit = 100LL * stream_node_max_entries;
    } else {
        t->limit = 0;
    }
    return i;
}

static uint64_t do_trim(stream *s, const trim_args *t)
{
    if (t->strategy == TRIM_NONE)
        return 0;
    return stream_trim(s, (uint64_t)t->maxlen, t->strategy == TRIM_MINID ? &t->minid : NULL, t->approx,
                       (uint64_t)t->limit);
}

static void cmd_xadd(client *c)
{
    trim_args t;
    int idpos = parse_add_trim(c, &t, 1), fpos, i;
    dbent *e;
    stream *s;
    xs_id id;
    xs_str fvs[32], *fv = fvs;
    uint64_t trimmed;

    if (idpos < 0)
        return;
    fpos = idpos + 1;
    if (c->argc - fpos < 2 || (c->argc - fpos) % 2 == 1) {
        reply_arity_error(c);
        return;
    }
    if (t.id_given && t.seq_given && t.id.ms == 0 && t.id.seq == 0) {
        reply_error(c, "ERR The ID specified in XADD must be greater than 0-0");
        return;
    }
    if (xc_lookup_stream(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        if (t.nomkstream) {
            reply_null(c);
            return;
        }
        e = stream_create(c->db, c->argv[1].p, c->argv[1].len);
    }
    s = stream_of(e);
    if (s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX) {
        reply_error(c, "ERR The stream has exhausted the last possible ID, unable to add more items");
        goto drop_if_new;
    }
    if (t.id_given) {
        id = t.id;
        if (!t.seq_given && s->last_id.ms == t.id.ms) {
            if (s->last_id.seq == UINT64_MAX) {
                reply_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item");
                goto drop_if_new;
            }
            id = s->last_id;
            id.seq++;
        }
    } else {
        uint64_t ms = (uint64_t)now_ms();
        if (ms > s->last_id.ms) {
            id.ms = ms;
            id.seq = 0;
        } else {
            id = s->last_id;
            stream_id_incr(&id);
        }
    }
    if (xs_id_cmp(&id, &s->last_id) <= 0) {
        reply_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item");
        goto drop_if_new;
    }
    {
        uint64_t raw = 0;
        for (i = fpos; i < c->argc; i++)
            raw += c->argv[i].len;
        if (raw > (1ULL << 30)) {
            reply_error(c, "ERR Elements are too large to be stored");
            goto drop_if_new;
        }
    }
    if (c->argc - fpos > 32)
        fv = xmalloc(sizeof(xs_str) * (size_t)(c->argc - fpos));
    for (i = fpos; i < c->argc; i++) {
        fv[i - fpos].p = c->argv[i].p;
        fv[i - fpos].len = c->argv[i].len;
    }
    stream_append(s, &id, fv, (size_t)(c->argc - fpos));
    if (fv != fvs)
        xfree(fv);
    xc_reply_id(c, &id);
    trimmed = do_trim(s, &t);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    signal_event(c->db, NOTIFY_STREAM, "xadd", c->argv[1].p, c->argv[1].len);
    if (trimmed)
        signal_event(c->db, NOTIFY_STREAM, "xtrim", c->argv[1].p, c->argv[1].len);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("XADD");
        prop_arg(&c->argv[1]);
        xc_prop_id(&id);
        for (i = fpos; i < c->argc; i++)
            prop_arg(&c->argv[i]);
        prop_end();
        if (trimmed)
            prop_trim_to(c, &c->argv[1], s);
    }
    return;
drop_if_new:
    if (xs_len(s->x) == 0 && s->entries_added == 0 && s->ngroups == 0 && s->last_id.ms == 0 && s->last_id.seq == 0)
        db_delete_entry(c->db, e);
}

static void cmd_xtrim(client *c)
{
    trim_args t;
    dbent *e;
    uint64_t n;

    if (parse_add_trim(c, &t, 0) < 0)
        return;
    if (xc_lookup_stream(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    n = do_trim(stream_of(e), &t);
    if (n) {
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_STREAM, "xtrim", c->argv[1].p, c->argv[1].len);
        prop_trim_to(c, &c->argv[1], stream_of(e));
    }
    reply_int(c, (long long)n);
}

/* ---- reads ---- */

static void cmd_xlen(client *c)
{
    dbent *e;

    if (xc_lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_int(c, e ? (long long)xs_len(stream_of(e)->x) : 0);
}

static void range_generic(client *c, int rev)
{
    const sarg *sa = rev ? &c->argv[3] : &c->argv[2], *ea = rev ? &c->argv[2] : &c->argv[3];
    xs_id start, end;
    int sx, ex, j;
    long long count = -1;
    dbent *e;

    if (xc_parse_interval(c, sa, 0, &sx, &start) < 0)
        return;
    if (sx && stream_id_incr(&start) < 0) {
        reply_error(c, "ERR invalid start ID for the interval");
        return;
    }
    if (xc_parse_interval(c, ea, UINT64_MAX, &ex, &end) < 0)
        return;
    if (ex && stream_id_decr(&end) < 0) {
        reply_error(c, "ERR invalid end ID for the interval");
        return;
    }
    for (j = 4; j < c->argc; j++) {
        if (xc_arg_is(&c->argv[j], "count") && c->argc - j - 1 >= 1) {
            if (arg_ll(c, j + 1, &count) < 0)
                return;
            if (count < 0)
                count = 0;
            j++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (xc_lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        reply_array(c, 0);
        return;
    }
    if (count == 0) {
        reply_null_array(c);
        return;
    }
    xc_reply_range(c, stream_of(e), &start, &end, count < 0 ? 0 : (size_t)count, rev);
}

static void cmd_xrange(client *c)
{
    range_generic(c, 0);
}

static void cmd_xrevrange(client *c)
{
    range_generic(c, 1);
}

static void cmd_xdel(client *c)
{
    xs_id ids[16], *v = ids;
    dbent *e;
    long long deleted = 0;
    int j, n = c->argc - 2;

    if (xc_lookup_stream(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    if (n > 16)
        v = xmalloc(sizeof(xs_id) * (size_t)n);
    for (j = 0; j < n; j++)
        if (xc_parse_id(c, &c->argv[2 + j], 0, 1, NULL, &v[j]) < 0)
            goto done;
    for (j = 0; j < n; j++)
        deleted += stream_delete(stream_of(e), &v[j]);
    if (deleted) {
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_STREAM, "xdel", c->argv[1].p, c->argv[1].len);
    }
    reply_int(c, deleted);
done:
    if (v != ids)
        xfree(v);
}

static void cmd_xsetid(client *c)
{
    xs_id id, maxdel = {0, 0};
    long long added = -1;
    int i = 3;
    dbent *e;
    stream *s;

    if (xc_parse_id(c, &c->argv[2], 0, 1, NULL, &id) < 0)
        return;
    while (i < c->argc) {
        int more = c->argc - 1 - i;
        if (xc_arg_is(&c->argv[i], "entriesadded") && more) {
            if (arg_ll(c, i + 1, &added) < 0)
                return;
            if (added < 0) {
                reply_error(c, "ERR entries_added must be positive");
                return;
            }
            i += 2;
        } else if (xc_arg_is(&c->argv[i], "maxdeletedid") && more) {
            if (xc_parse_id(c, &c->argv[i + 1], 0, 1, NULL, &maxdel) < 0)
                return;
            if (xs_id_cmp(&id, &maxdel) < 0) {
                reply_error(c, "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                return;
            }
            i += 2;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (xc_lookup_stream(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    s = stream_of(e);
    if (xs_len(s->x) > 0) {
        xs_id top;
        xs_last(s->x, &top);
        if (xs_id_cmp(&id, &top) < 0) {
            reply_error(c, "ERR The ID specified in XSETID is smaller than the target stream top item");
            return;
        }
        if (added != -1 && xs_len(s->x) > (uint64_t)added) {
            reply_error(c, "ERR The entries_added specified in XSETID is smaller than the target stream length");
            return;
        }
    }
    s->last_id = id;
    if (added != -1)
        s->entries_added = (uint64_t)added;
    if (maxdel.ms || maxdel.seq)
        s->max_deleted = maxdel;
    reply_ok(c);
    signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
    signal_event(c->db, NOTIFY_STREAM, "xsetid", c->argv[1].p, c->argv[1].len);
}

#define WS "write stream"
#define RS "read stream"
/* clang-format off */
static const cmd_def xgroup_subcommands[] = {
    {.name = "create", .proc = cmd_xgroup_create, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(2, 2, 1),
     .group = "stream", .summary = "Create a consumer group.", .since = "5.0.0", .complexity = "O(1)",
     .acl = WS " slow", .key_specs = "RW insert"},
    {.name = "help", .proc = cmd_xgroup_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "stream",
     .summary = "Show helpful text about the different subcommands", .since = "5.0.0", .complexity = "O(1)",
     .acl = "stream slow"},
    {.name = "destroy", .proc = cmd_xgroup_destroy, .arity = 4, .flags = CMD_WRITE, KEYS(2, 2, 1), .group = "stream",
     .summary = "Destroy a consumer group.", .since = "5.0.0",
     .complexity = "O(N) where N is the number of entries in the group's pending entries list (PEL).",
     .acl = WS " slow", .key_specs = "RW delete"},
    {.name = "createconsumer", .proc = cmd_xgroup_createconsumer, .arity = 5, .flags = CMD_WRITE | CMD_DENYOOM,
     KEYS(2, 2, 1), .group = "stream", .summary = "Create a consumer in a consumer group.", .since = "6.2.0",
     .complexity = "O(1)", .acl = WS " slow", .key_specs = "RW insert"},
    {.name = "delconsumer", .proc = cmd_xgroup_delconsumer, .arity = 5, .flags = CMD_WRITE, KEYS(2, 2, 1),
     .group = "stream", .summary = "Delete a consumer from a consumer group.", .since = "5.0.0",
     .complexity = "O(1)", .acl = WS " slow", .key_specs = "RW delete"},
    {.name = "setid", .proc = cmd_xgroup_setid, .arity = -5, .flags = CMD_WRITE, KEYS(2, 2, 1), .group = "stream",
     .summary = "Set a consumer group to an arbitrary last delivered ID value.", .since = "5.0.0",
     .complexity = "O(1)", .acl = WS " slow", .key_specs = "RW update"},
    {0},
};

static const cmd_def xinfo_subcommands[] = {
    {.name = "stream", .proc = cmd_xinfo_stream, .arity = -3, .flags = CMD_READONLY, KEYS(2, 2, 1), .group = "stream",
     .summary = "Get information about a stream", .since = "5.0.0", .complexity = "O(1)", .acl = RS " slow",
     .key_specs = "RO access"},
    {.name = "help", .proc = cmd_xinfo_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "stream",
     .summary = "Show helpful text about the different subcommands", .since = "5.0.0", .complexity = "O(1)",
     .acl = "stream slow"},
    {.name = "consumers", .proc = cmd_xinfo_consumers, .arity = 4, .flags = CMD_READONLY, KEYS(2, 2, 1),
     .group = "stream", .summary = "List the consumers in a consumer group", .since = "5.0.0",
     .complexity = "O(1)", .acl = RS " slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "groups", .proc = cmd_xinfo_groups, .arity = 3, .flags = CMD_READONLY, KEYS(2, 2, 1), .group = "stream",
     .summary = "List the consumer groups of a stream", .since = "5.0.0", .complexity = "O(1)", .acl = RS " slow",
     .key_specs = "RO access"},
    {0},
};

const cmd_def cmd_table_stream[] = {
    {.name = "xadd", .proc = cmd_xadd, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "stream", .summary = "Appends a new entry to a stream", .since = "5.0.0",
     .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
     .acl = WS " fast", .tips = "nondeterministic_output",
     .key_specs = "RW update#UPDATE instead of INSERT because of the optional trimming feature"},
    {.name = "xlen", .proc = cmd_xlen, .arity = 2, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1),
     .group = "stream", .summary = "Return the number of entries in a stream", .since = "5.0.0",
     .complexity = "O(1)", .acl = RS " fast", .key_specs = "RO"},
    {.name = "xrange", .proc = cmd_xrange, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "stream",
     .summary = "Return a range of elements in a stream, with IDs matching the specified IDs interval",
     .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .acl = RS " slow", .key_specs = "RO access"},
    {.name = "xrevrange", .proc = cmd_xrevrange, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1),
     .group = "stream",
     .summary = "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE",
     .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .acl = RS " slow", .key_specs = "RO access"},
    {.name = "xdel", .proc = cmd_xdel, .arity = -3, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "stream",
     .summary = "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.",
     .since = "5.0.0", .complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
     .acl = WS " fast", .key_specs = "RW delete"},
    {.name = "xtrim", .proc = cmd_xtrim, .arity = -4, .flags = CMD_WRITE | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "stream", .summary = "Trims the stream to (approximately if '~' is passed) a certain size",
     .since = "5.0.0",
     .complexity = "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
     .acl = WS " slow", .tips = "nondeterministic_output", .key_specs = "RW delete"},
    {.name = "xread", .proc = cmd_xread, .arity = -4, .flags = CMD_READONLY | CMD_BLOCKING, KEYS(0, 0, 0),
     .group = "stream",
     .summary = "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.",
     .since = "5.0.0",
     .complexity = "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
     .acl = RS " slow blocking", .key_specs = "RO access@w:STREAMS,1,-1,1,2"},
    {.name = "xreadgroup", .proc = cmd_xreadgroup, .arity = -7, .flags = CMD_WRITE | CMD_BLOCKING | CMD_OWN_EFFECT,
     KEYS(0, 0, 0), .group = "stream",
     .summary = "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.",
     .since = "5.0.0",
     .complexity = "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
     .acl = WS " slow blocking", .key_specs = "RO access@w:STREAMS,4,-1,1,2"},
    {.name = "xack", .proc = cmd_xack, .arity = -4, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "stream",
     .summary = "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.",
     .since = "5.0.0", .complexity = "O(1) for each message ID processed.", .acl = WS " fast",
     .key_specs = "RW update"},
    {.name = "xpending", .proc = cmd_xpending, .arity = -3, .flags = CMD_READONLY, KEYS(1, 1, 1),
     .group = "stream",
     .summary = "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.",
     .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
     .acl = RS " slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "xclaim", .proc = cmd_xclaim, .arity = -6, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "stream",
     .summary = "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.",
     .since = "5.0.0", .complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
     .acl = WS " fast", .tips = "nondeterministic_output", .key_specs = "RW update"},
    {.name = "xautoclaim", .proc = cmd_xautoclaim, .arity = -6, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "stream",
     .summary = "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.",
     .since = "6.2.0", .complexity = "O(1) if COUNT is small.", .acl = WS " fast",
     .tips = "nondeterministic_output", .key_specs = "RW delete"},
    {.name = "xsetid", .proc = cmd_xsetid, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, KEYS(1, 1, 1),
     .group = "stream", .summary = "An internal command for replicating stream values", .since = "5.0.0",
     .complexity = "O(1)", .acl = WS " fast", .key_specs = "RW update"},
    {.name = "xgroup", .proc = cmd_container, .arity = -2, .flags = 0, .group = "stream",
     .summary = "A container for consumer groups commands", .since = "5.0.0", .complexity = "Depends on subcommand.",
     .acl = "slow", .subcommands = xgroup_subcommands},
    {.name = "xinfo", .proc = cmd_container, .arity = -2, .flags = 0, .group = "stream",
     .summary = "A container for stream introspection commands", .since = "5.0.0",
     .complexity = "Depends on subcommand.", .acl = "slow", .subcommands = xinfo_subcommands},
    {0},
};
/* clang-format on */
