/* cmd_slowlog.c -- SLOWLOG GET, LEN, RESET and HELP, with Redis 7.0's replies.
 *
 * Why here: the slow log itself is kept by commands.c, where cmd_call times every
 * command (slowlog_push); these are the commands that let clients read and clear
 * it, kept as their own small family beside the other server commands. */
#include "cmd/commands.h"
#include "net/reply.h"
#include "core/util.h"

static void slowlog_get(client *c)
{
    long long count = 10;
    int i, n;

    if (c->argc > 3) {
        reply_subcommand_syntax(c);
        return;
    }
    if (c->argc == 3 && (str_to_ll(c->argv[2].p, c->argv[2].len, &count) < 0 || count < -1)) {
        reply_error(c, "ERR count should be greater than or equal to -1");
        return;
    }
    n = (count == -1 || count > srv.slowlog_len) ? srv.slowlog_len : (int)count;
    reply_array(c, n);
    for (i = 0; i < n; i++) {
        const slowlog_entry *e = &srv.slowlog[i];
        int j;
        reply_array(c, 6);
        reply_int(c, e->id);
        reply_int(c, (long long)e->time);
        reply_int(c, e->duration);
        reply_array(c, e->argc);
        for (j = 0; j < e->argc; j++)
            reply_bulk(c, e->argv[j].p, e->argv[j].len);
        reply_bulk_cstr(c, e->peer ? e->peer : "");
        reply_bulk_cstr(c, e->cname ? e->cname : "");
    }
}

static void slowlog_len(client *c)
{
    reply_int(c, srv.slowlog_len);
}

static void slowlog_reset_cmd(client *c)
{
    slowlog_reset();
    reply_ok(c);
}

static void slowlog_help(client *c)
{
    static const char *const lines[] = {
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        NULL,
    };
    reply_help(c, lines);
}

/* ---- the table ---- */

#define LS (CMD_LOADING | CMD_STALE)

/* clang-format off */
static const cmd_def slowlog_subcommands[] = {
    {.name = "get", .proc = slowlog_get, .arity = -2, .flags = CMD_ADMIN | LS, .group = "server",
     .summary = "Get the slow log's entries", .since = "2.2.12",
     .complexity = "O(N) where N is the number of entries returned", .acl = "admin slow dangerous",
     .tips = "request_policy:all_nodes nondeterministic_output"},
    {.name = "len", .proc = slowlog_len, .arity = 2, .flags = CMD_ADMIN | LS, .group = "server",
     .summary = "Get the slow log's length", .since = "2.2.12", .complexity = "O(1)", .acl = "admin slow dangerous",
     .tips = "request_policy:all_nodes response_policy:agg_sum nondeterministic_output"},
    {.name = "reset", .proc = slowlog_reset_cmd, .arity = 2, .flags = CMD_ADMIN | LS, .group = "server",
     .summary = "Clear all entries from the slow log", .since = "2.2.12",
     .complexity = "O(N) where N is the number of entries in the slowlog", .acl = "admin slow dangerous",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "help", .proc = slowlog_help, .arity = 2, .flags = LS, .group = "server",
     .summary = "Show helpful text about the different subcommands", .since = "6.2.0", .complexity = "O(1)",
     .acl = "slow"},
    {0},
};
/* clang-format on */

/* clang-format off */
const cmd_def cmd_table_slowlog[] = {
    {.name = "slowlog", .proc = cmd_container, .arity = -2, .flags = 0, .group = "server",
     .summary = "A container for slow log commands", .since = "2.2.12", .complexity = "Depends on subcommand.",
     .acl = "slow", .subcommands = slowlog_subcommands},
    {0},
};
/* clang-format on */
