/* monitor.c -- MONITOR's clients and lines (see monitor.h). */
#include "cmd/monitor.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "core/mem.h"
#include "cmd/multi.h"
#include "core/util.h"
#include "net/reply.h"

int monitor_count;
static client **monitors; /* in the order they started */
static int monitors_cap;
static char *line;                /* the line being built */
static size_t line_len, line_cap; /* bytes */

void monitor_add(client *c)
{
    if (c->flags & CLIENT_MONITOR)
        return; /* as Redis: no reply at all */
    if (monitor_count == monitors_cap) {
        monitors_cap = monitors_cap ? monitors_cap * 2 : 4;
        monitors = xrealloc(monitors, sizeof(client *) * (size_t)monitors_cap);
    }
    monitors[monitor_count++] = c;
    c->flags |= CLIENT_MONITOR;
    reply_ok(c);
}

void monitor_remove(client *c)
{
    int i;

    if (!(c->flags & CLIENT_MONITOR))
        return;
    for (i = 0; i < monitor_count; i++)
        if (monitors[i] == c) {
            memmove(&monitors[i], &monitors[i + 1], sizeof(client *) * (size_t)(monitor_count - i - 1));
            monitor_count--;
            break;
        }
    c->flags &= ~CLIENT_MONITOR;
}

static void put(const char *p, size_t n)
{
    if (line_len + n > line_cap) {
        line_cap = (line_len + n) * 2 < 256 ? 256 : (line_len + n) * 2;
        line = xrealloc(line, line_cap);
    }
    memcpy(line + line_len, p, n);
    line_len += n;
}

/* An argument quoted as sdscatrepr quotes it. */
static void put_repr(const char *p, size_t n)
{
    size_t i;

    put("\"", 1);
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        char esc[8];
        switch (ch) {
        case '\\':
            put("\\\\", 2);
            break;
        case '"':
            put("\\\"", 2);
            break;
        case '\n':
            put("\\n", 2);
            break;
        case '\r':
            put("\\r", 2);
            break;
        case '\t':
            put("\\t", 2);
            break;
        case '\a':
            put("\\a", 2);
            break;
        case '\b':
            put("\\b", 2);
            break;
        default:
            if (ch >= 0x20 && ch < 0x7f) {
                put((const char *)&ch, 1);
            } else {
                snprintf(esc, sizeof(esc), "\\x%02x", ch);
                put(esc, 4);
            }
        }
    }
    put("\"", 1);
}

/* 1 if argument j of argv is a secret MONITOR shows as "(redacted)"
 * (commands.h: cmd_arg_secret). */
static int redacted(int argc, const sarg *argv, int j)
{
    return cmd_arg_secret(argc, argv, j);
}

static void feed(int dbid, const char *who, int argc, const sarg *argv)
{
    struct timeval tv;
    char head[128];
    int i, n;

    gettimeofday(&tv, NULL);
    line_len = 0;
    n = snprintf(head, sizeof(head), "+%ld.%06ld [%d ", (long)tv.tv_sec, (long)tv.tv_usec, dbid);
    put(head, (size_t)n);
    put(who, strlen(who));
    put("] ", 2);
    for (i = 0; i < argc; i++) {
        if (redacted(argc, argv, i))
            put("\"(redacted)\"", 12);
        else
            put_repr(argv[i].p, argv[i].len);
        if (i != argc - 1)
            put(" ", 1);
    }
    put("\r\n", 2);
    for (i = 0; i < monitor_count; i++)
        reply_raw(monitors[i], line, line_len);
}

static void feed_client(client *c, const cmd_def *cmd)
{
    const cmd_def *top = cmd_parent(cmd) ? cmd_parent(cmd) : cmd;
    char who[128];

    if ((cmd->flags & CMD_ADMIN) || (top->flags & CMD_ADMIN) || blk_rerunning(c))
        return;
    if (c->flags & CLIENT_SCRIPT) /* a command of a script: Redis's "lua" source */
        snprintf(who, sizeof(who), "lua");
    else if (c->flags & CLIENT_FAKE) /* the log's replay */
        return;
    else if (c->flags & CLIENT_UNIX)
        snprintf(who, sizeof(who), "unix:%s", srv.cfg.unixsocket ? srv.cfg.unixsocket : "");
    else
        snprintf(who, sizeof(who), "%s", c->addr);
    feed(c->dbid, who, c->argc, c->argv);
}

void monitor_feed_call(client *c, const cmd_def *cmd)
{
    if (!(cmd->flags & CMD_SKIP_MONITOR))
        feed_client(c, cmd);
}

void monitor_feed_start(client *c, const cmd_def *cmd)
{
    feed_client(c, cmd);
}

/* ---- MONITOR ---- */

static void cmd_monitor(client *c)
{
    if (multi_exec_depth > 0) {
        reply_error(c, "ERR MONITOR isn't allowed for DENY BLOCKING client");
        return;
    }
    monitor_add(c);
}

/* clang-format off */
const cmd_def cmd_table_monitor[] = {
    {.name = "monitor", .proc = cmd_monitor, .arity = 1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "server", .summary = "Lists in real-time all commands received by the server", .since = "1.0.0",
     .complexity = NULL, .acl = "admin slow dangerous"},
    {0},
};
/* clang-format on */
