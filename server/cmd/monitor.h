/* monitor.h -- MONITOR: every command run, as Redis prints it, to the clients
 * that asked.
 *
 * Why a module: cmd_call feeds every command it runs (the commands of EXEC
 * included, each when it runs, then EXEC itself; a script's command EVAL or
 * FCALL as it starts, then the commands the script runs, with the source
 * "lua"); the line is built here once and appended to each monitor.
 *
 * The line is Redis's: "+<seconds>.<microseconds> [<db> <addr>] "arg" ...",
 * each argument quoted as Redis's sdscatrepr does (\\ \" \n \r \t \a \b
 * escaped, other unprintable bytes as \xhh), the arguments of AUTH and the
 * user name and password of HELLO's AUTH shown as "(redacted)". Not fed, as
 * in Redis: commands refused before running (unknown, arity, ...), commands
 * flagged admin (CONFIG, DEBUG, CLIENT LIST, MONITOR, ...), a blocked
 * command's re-runs, and the log's replay. */
#ifndef SP_MONITOR_H
#define SP_MONITOR_H

#include "net/client.h"

/* MONITOR: make c a monitor (CLIENT_MONITOR; "+OK"), or nothing if it is one. */
void monitor_add(client *c);
/* c ran cmd with c->argv (called by cmd_call after the command): feed the
 * monitors unless the rules above say no. One test when nobody monitors. */
void monitor_feed_call(client *c, const cmd_def *cmd);
/* c starts cmd, a script's (CMD_SKIP_MONITOR: EVAL, FCALL, ...; called by
 * cmd_call before the command): feed the monitors now, before the commands
 * the script runs (a script's client shows as "lua"), as Redis 7.0 does. */
void monitor_feed_start(client *c, const cmd_def *cmd);
/* c is being freed or RESET: it stops being a monitor. */
void monitor_remove(client *c);

/* Clients monitoring now (the test cmd_call makes before feeding). */
extern int monitor_count;

#endif
