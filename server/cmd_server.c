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

#include "arena.h"
#include "commands.h"
#include "multi.h"
#include "persist.h"
#include "reply.h"
#include "value.h"
#include "util.h"

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
    multi_touch_db(c->db);
    srv.dirty += db_flush(c->db);
    sv_drop_cache(); /* chunks of values that are gone, most of them */
    arena_trim(srv.arena);
    reply_ok(c);
}

static void cmd_flushall(client *c)
{
    int i;
    if (flush_args(c) < 0)
        return;
    for (i = 0; i < srv.cfg.databases; i++) {
        multi_touch_db(&srv.dbs[i]);
        srv.dirty += db_flush(&srv.dbs[i]);
    }
    srv.dirty++; /* as Redis: a FLUSHALL of empty databases still counts as a change */
    sv_drop_cache(); /* chunks of values that are gone */
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
    const char *err;
    if (persist_bgrewrite(&err) < 0)
        reply_error(c, err);
    else
        reply_status(c, "Background append only file rewriting started");
}

/* ---- DEBUG and SHUTDOWN ---- */

/* DEBUG SLEEP <seconds>: block the whole server, as Redis does (tests use it to
 * make a command slow). The seconds are parsed as strtod does: garbage is 0. */
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
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    reply_ok(c);
}

static void cmd_debug(client *c)
{
    static const char *const help[] = {
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
    else if ((c->argc == 4 || c->argc == 5) && str_eq_ci(c->argv[1].p, c->argv[1].len, "lz4-corrupt"))
        debug_lz4_corrupt(c);
    else
        reply_subcommand_syntax(c);
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
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    srv.shutdown_asap = 1;
    if (srv.base)
        event_base_loopbreak(srv.base);
}

/* ---- the table ---- */

#define LS (CMD_LOADING | CMD_STALE)
#define ADM (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

const cmd_def cmd_table_server[] = {
    {"dbsize", cmd_dbsize, 1, CMD_READONLY | CMD_FAST, 0, 0, 0, "server",
     "Return the number of keys in the selected database", "1.0.0", "O(1)", "keyspace read fast", NULL, NULL,
     NULL},
    {"flushdb", cmd_flushdb, -1, CMD_WRITE, 0, 0, 0, "server", "Remove all keys from the current database", "1.0.0",
     "O(N) where N is the number of keys in the selected database", "keyspace write slow dangerous", NULL, NULL,
     NULL},
    {"flushall", cmd_flushall, -1, CMD_WRITE, 0, 0, 0, "server", "Remove all keys from all databases", "1.0.0",
     "O(N) where N is the total number of keys in all databases", "keyspace write slow dangerous", NULL, NULL,
     NULL},
    {"time", cmd_time, 1, LS | CMD_FAST, 0, 0, 0, "server", "Return the current server time", "2.6.0", "O(1)",
     "fast", NULL, NULL, NULL},
    {"bgrewriteaof", cmd_bgrewriteaof, 1, ADM | CMD_NOSCRIPT, 0, 0, 0, "server",
     "Asynchronously rewrite the append-only file", "1.0.0", "O(1)", "admin slow dangerous", NULL, NULL, NULL},
    {"lastsave", cmd_lastsave, 1, LS | CMD_FAST, 0, 0, 0, "server",
     "Get the UNIX time stamp of the last successful save to disk", "1.0.0", "O(1)", "admin fast dangerous", NULL,
     NULL, NULL},
    {"debug", cmd_debug, -2, ADM, 0, 0, 0, "server", "A container for debugging commands", "1.0.0",
     "Depends on subcommand.", "admin slow dangerous", NULL, NULL, NULL},
    {"shutdown", cmd_shutdown, -1, ADM | CMD_NOT_IN_MULTI | CMD_ALLOW_BUSY | CMD_SENTINEL, 0, 0, 0, "server",
     "Synchronously save the dataset to disk and then shut down the server", "1.0.0",
     "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
     "admin slow dangerous", NULL, NULL, NULL},
    {0},
};
