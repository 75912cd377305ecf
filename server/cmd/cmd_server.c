/* cmd_server.c -- server commands that act on the process or the keyspace as a
 * whole: DBSIZE, FLUSHDB, FLUSHALL, TIME, LASTSAVE, BGREWRITEAOF, DEBUG and
 * SHUTDOWN, with Redis 7.0's replies and error strings.
 *
 * Why here: these commands take no key, so they are kept apart from the
 * data-type families; the other server commands have files of their own
 * (cmd_info.c, cmd_command.c, cmd_config.c, cmd_slowlog.c).
 *
 * Invariant: nothing here walks the keyspace except FLUSHDB and FLUSHALL, which
 * free it. */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "cmd/multi.h"
#include "cmd/propagate.h"
#include "net/reply.h"
#include "core/arena.h"
#include "keyspace/type.h"
#include "keyspace/vcomp.h"
#include "core/lz/lzval.h"
#include "core/util.h"

/* ---- keyspace-wide commands ---- */

static void cmd_dbsize(client *c)
{
    reply_int(c, (long long)db_size(c->db));
}

/* Check FLUSHDB/FLUSHALL's optional ASYNC|SYNC argument; 0, or -1 after replying.
 * Both flush at once: there is no background freeing thread. */
static int flush_args(client *c)
{
    if (c->argc > 2 || (c->argc == 2 && !str_eq_ci(c->argv[1].p, c->argv[1].len, "sync") &&
                        !str_eq_ci(c->argv[1].p, c->argv[1].len, "async"))) {
        reply_error(c, ERR_SYNTAX);
        return -1;
    }
    return 0;
}

static void cmd_flushdb(client *c)
{
    if (flush_args(c) < 0)
        return;
    signal_db_flushed(c->db);
    srv.dirty += db_flush(c->db);
    vc_drop_cache(); /* chunks of values that are gone, most of them */
    arena_trim(srv.arena);
    reply_ok(c);
}

static void cmd_flushall(client *c)
{
    int i;
    if (flush_args(c) < 0)
        return;
    for (i = 0; i < srv.cfg.databases; i++) {
        signal_db_flushed(&srv.dbs[i]);
        srv.dirty += db_flush(&srv.dbs[i]);
    }
    srv.dirty++; /* as Redis: a FLUSHALL of empty databases still counts as a change */
    vc_drop_cache(); /* chunks of values that are gone */
    arena_trim(srv.arena); /* the empty pages kept against thrashing */
    reply_ok(c);
}

static void cmd_time(client *c)
{
    int64_t us = now_us();
    reply_array(c, 2);
    reply_bulk_ll(c, us / 1000000);
    reply_bulk_ll(c, us % 1000000);
}

static void cmd_lastsave(client *c)
{
    reply_int(c, (long long)srv.last_save);
}

static void cmd_bgrewriteaof(client *c)
{
    const char *err = "ERR the log cannot be rewritten";
    if (!prop_admin.bgrewrite || prop_admin.bgrewrite(&err) < 0)
        reply_error(c, err);
    else
        reply_status(c, "Background append only file rewriting started");
}

/* DEBUG LZ4-CORRUPT key [entry] chunk: damage a stored chunk of a compressed
 * value in memory (the corruption tests): the value its type's debug_lz names
 * (a string's, compressed first if it waits for it; a scratchpad entry's). */
static void debug_lz4_corrupt(client *c)
{
    long long chunk;
    dbent *ke = db_lookup_write(c->db, c->argv[2].p, c->argv[2].len);
    const type_def *t;
    lzval *v = NULL;

    if (arg_ll(c, c->argc - 1, &chunk) < 0)
        return;
    if (!ke) {
        reply_error(c, ERR_NOKEY);
        return;
    }
    t = type_of(ke);
    if (!t->debug_lz || t->debug_lz(ke, c->argc == 5 ? c->argv[3].p : NULL, c->argc == 5 ? c->argv[3].len : 0,
                                    &v) < 0) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (!v) {
        reply_error(c, "ERR the value is not stored compressed");
        return;
    }
    if (chunk < 0 || lzval_debug_corrupt(v, (size_t)chunk) < 0) {
        reply_error(c, "ERR no such chunk");
        return;
    }
    reply_ok(c);
}

/* ---- DEBUG and SHUTDOWN ---- */

/* DEBUG SLEEP <seconds>: block the whole server, as Redis does (tests use it to
 * make a command slow). The seconds are parsed as strtod does: garbage is 0.
 * Redis puts no bound on the time: DEBUG is closed unless enable-debug-command
 * opens it; here it is cut at 1e9 s (the timespec's range) and, as in Redis
 * (one nanosleep), a signal ends the sleep: SIGTERM stops a server asleep. */
static void debug_sleep(client *c)
{
    double secs = strtod(c->argv[2].p, NULL);
    struct timespec ts;

    if (!(secs > 0))
        secs = 0;
    if (secs > 1e9)
        secs = 1e9;
    ts.tv_sec = (time_t)secs;
    ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
    reply_ok(c);
}

/* DEBUG ERROR <message>: reply <message> as an error, as Redis does (client
 * libraries' tests use it to see an error come back). */
static void debug_error(client *c)
{
    reply_error(c, c->argv[2].p);
}

static void cmd_debug(client *c)
{
    static const char *const help[] = {
        "ERROR <string>",
        "    Return a Redis protocol error with <string> as message. Useful for clients",
        "    unit tests to simulate Redis errors.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "LZ4-CORRUPT <key> [<entry>] <chunk>",
        "    Test hook: damage compressed chunk <chunk> of a string value, or of entry",
        "    <entry> of a scratchpad, so that tests can check corruption is detected.",
        NULL,
    };
    if (c->argc == 2 && str_eq_ci(c->argv[1].p, c->argv[1].len, "help"))
        reply_help(c, help);
    else if (c->argc == 3 && str_eq_ci(c->argv[1].p, c->argv[1].len, "sleep"))
        debug_sleep(c);
    else if (c->argc == 3 && str_eq_ci(c->argv[1].p, c->argv[1].len, "error"))
        debug_error(c);
    else if ((c->argc == 4 || c->argc == 5) && str_eq_ci(c->argv[1].p, c->argv[1].len, "lz4-corrupt"))
        debug_lz4_corrupt(c);
    else
        reply_subcommand_syntax(c);
}

/* LOLWUT [VERSION v] [...]: the version line Redis 7.0 prints for its own
 * version, a verbatim string. VERSION must be an integer, as in Redis; Redis's
 * drawings for VERSION 5 and 6 are not made (the line is printed whatever v). */
static void cmd_lolwut(client *c)
{
    static const char line[] = "Redis ver. " SP_VERSION "\n";
    long long v;

    if (c->argc >= 3 && str_eq_ci(c->argv[1].p, c->argv[1].len, "version") &&
        str_to_ll(c->argv[2].p, c->argv[2].len, &v) < 0) {
        reply_error(c, "ERR value is not an integer or out of range");
        return;
    }
    reply_verbatim(c, line, sizeof(line) - 1);
}

/* SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. Nothing is saved (the log, when
 * there is one, is flushed by server_shutdown); the loop stops after this
 * callback and the client is closed without a reply, as Redis does. */
static void cmd_shutdown(client *c)
{
    int nosave = 0, save = 0, other = 0, abort_req = 0, i;

    for (i = 1; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        if (str_eq_ci(a->p, a->len, "nosave"))
            nosave = 1;
        else if (str_eq_ci(a->p, a->len, "save"))
            save = 1;
        else if (str_eq_ci(a->p, a->len, "now") || str_eq_ci(a->p, a->len, "force"))
            other = 1;
        else if (str_eq_ci(a->p, a->len, "abort"))
            abort_req = 1;
        else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if ((abort_req && (nosave || save || other)) || (nosave && save)) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (abort_req) {
        reply_error(c, "ERR No shutdown in progress.");
        return;
    }
    if (cmd_busy_error && !nosave) { /* a busy script: only SHUTDOWN NOSAVE ends it */
        reply_error(c, cmd_busy_error);
        return;
    }
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    srv.shutdown_asap = 1;
    if (srv.base)
        event_base_loopbreak(srv.base);
}

/* ---- the table ---- */

#define LS (CMD_LOADING | CMD_STALE)
#define ADM (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

/* clang-format off */
const cmd_def cmd_table_server[] = {
    {.name = "dbsize", .proc = cmd_dbsize, .arity = 1, .flags = CMD_READONLY | CMD_FAST, .group = "server",
     .summary = "Return the number of keys in the selected database", .since = "1.0.0", .complexity = "O(1)",
     .acl = "keyspace read fast", .tips = "request_policy:all_shards response_policy:agg_sum"},
    {.name = "flushdb", .proc = cmd_flushdb, .arity = -1, .flags = CMD_WRITE, .group = "server",
     .summary = "Remove all keys from the current database", .since = "1.0.0",
     .complexity = "O(N) where N is the number of keys in the selected database",
     .acl = "keyspace write slow dangerous", .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "flushall", .proc = cmd_flushall, .arity = -1, .flags = CMD_WRITE, .group = "server",
     .summary = "Remove all keys from all databases", .since = "1.0.0",
     .complexity = "O(N) where N is the total number of keys in all databases",
     .acl = "keyspace write slow dangerous", .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "time", .proc = cmd_time, .arity = 1, .flags = LS | CMD_FAST, .group = "server",
     .summary = "Return the current server time", .since = "2.6.0", .complexity = "O(1)", .acl = "fast",
     .tips = "nondeterministic_output"},
    {.name = "bgrewriteaof", .proc = cmd_bgrewriteaof, .arity = 1, .flags = ADM | CMD_NOSCRIPT, .group = "server",
     .summary = "Asynchronously rewrite the append-only file", .since = "1.0.0", .complexity = "O(1)",
     .acl = "admin slow dangerous"},
    {.name = "lastsave", .proc = cmd_lastsave, .arity = 1, .flags = LS | CMD_FAST, .group = "server",
     .summary = "Get the UNIX time stamp of the last successful save to disk", .since = "1.0.0",
     .complexity = "O(1)", .acl = "admin fast dangerous", .tips = "nondeterministic_output"},
    {.name = "debug", .proc = cmd_debug, .arity = -2, .flags = ADM | CMD_PROTECTED, .group = "server",
     .summary = "A container for debugging commands", .since = "1.0.0", .complexity = "Depends on subcommand.",
     .acl = "admin slow dangerous"},
    {.name = "lolwut", .proc = cmd_lolwut, .arity = -1, .flags = CMD_READONLY | CMD_FAST, .group = "server",
     .summary = "Display some computer art and the Redis version", .since = "5.0.0", .acl = "read fast"},
    {.name = "shutdown", .proc = cmd_shutdown, .arity = -1,
     .flags = ADM | CMD_NOT_IN_MULTI | CMD_ALLOW_BUSY | CMD_SENTINEL, .group = "server",
     .summary = "Synchronously save the dataset to disk and then shut down the server", .since = "1.0.0",
     .complexity = "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
     .acl = "admin slow dangerous"},
    {0},
};
/* clang-format on */
