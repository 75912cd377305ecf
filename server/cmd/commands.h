/* commands.h -- the command table, lookup and dispatch.
 *
 * Every command family (cmd_string.c, cmd_keys.c, ...) exports a table of
 * cmd_def rows ended by a NULL name; commands.c joins them into one registry that
 * serves lookups, COMMAND replies, INFO commandstats and the "is this a write?"
 * question of the log. cmd_dispatch applies, in Redis's order, the checks every
 * command goes through (unknown command, arity, authentication, MULTI queueing,
 * maxmemory) before running it through cmd_call. */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

#include "server.h"

typedef struct slowlog_entry {
    long long id;
    int64_t time;            /* s since epoch */
    long long duration;      /* microseconds */
    int argc;
    sarg *argv;              /* at most 32 args, each at most 128 bytes (as Redis) */
    char *peer, *cname;
} slowlog_entry;

extern const cmd_def cmd_table_conn[];
extern const cmd_def cmd_table_string[];
extern const cmd_def cmd_table_keys[];
extern const cmd_def cmd_table_list[];
extern const cmd_def cmd_table_info[];
extern const cmd_def cmd_table_server[];
extern const cmd_def cmd_table_command[];
extern const cmd_def cmd_table_config[];
extern const cmd_def cmd_table_slowlog[];
extern const cmd_def cmd_table_multi[];
extern const cmd_def cmd_table_sp[];
extern const cmd_def cmd_table_lcs[];
extern const cmd_def cmd_table_memory[];
extern const cmd_def cmd_table_set[];
extern const cmd_def cmd_table_hash[];
extern const cmd_def cmd_table_zset[];
extern const cmd_def cmd_table_stream[];
extern const cmd_def cmd_table_pubsub[];
extern const cmd_def cmd_table_monitor[];
extern const cmd_def cmd_table_eval[];
extern const cmd_def cmd_table_function[];
extern const cmd_def cmd_table_sort[];
extern const cmd_def cmd_table_dump[];
extern const cmd_def cmd_table_bitmap[];
extern const cmd_def cmd_table_hll[];
extern const cmd_def cmd_table_geo[];
extern const cmd_def cmd_table_acl[];

/* A client is being freed: leave its transaction and drop its watches (the
 * connection layer's release hook, net.h). */
void cmd_client_release(client *c);
/* Non-NULL while a script runs past busy-reply-threshold (set by
 * script/script.c): the -BUSY error of every command not flagged
 * CMD_ALLOW_BUSY. The cron waits meanwhile. */
extern const char *cmd_busy_error;
/* Build the registry (allocates the stats). Call once at start-up. */
void cmd_init(void);
/* The command or subcommand argv[0..argc) names (argv[1] for a container
 * with subcommands), or NULL: a script's lookup. */
const cmd_def *cmd_lookup_argv(int argc, const sarg *argv);
/* The command named name (any case), or NULL. */
const cmd_def *cmd_lookup(const char *name, size_t len);
/* The container of a subcommand ("config" for config|get), NULL for a command. */
const cmd_def *cmd_parent(const cmd_def *cmd);
/* "get", or "config|get" for a subcommand (static storage per command). */
const char *cmd_fullname(const cmd_def *cmd);
/* Check and run the command in c->argv (see the file comment). */
void cmd_dispatch(client *c);
/* Run cmd with c->argv now, with stats and slowlog. */
void cmd_call(client *c, const cmd_def *cmd);
/* Resolve c->argv to a command or subcommand; on failure reply the error and
 * return NULL. */
const cmd_def *cmd_resolve(client *c);

/* The log's replay: run argv[0..argc) (each argument NUL-terminated) in
 * database dbid on a client of its own, as a command from the log: it must be
 * a known write command with a valid arity. Its replies go nowhere. The
 * arguments stay the caller's. cmd_replay_end frees the replay's client. */
enum { CMD_REPLAY_OK = 0, CMD_REPLAY_UNKNOWN, CMD_REPLAY_ARITY, CMD_REPLAY_NOT_WRITE };
int cmd_replay(int dbid, int argc, sarg *argv);
void cmd_replay_end(void);

/* Visit every top-level command. */
void cmd_foreach(void (*fn)(const cmd_def *cmd, void *ctx), void *ctx);
int cmd_count(void);
/* Reset every command's stats (CONFIG RESETSTAT). */
void cmd_reset_stats(void);

/* The statistics of cmd (a command or a subcommand row of the
 * registry), or NULL if cmd is not registered. The pointer stays valid for the
 * life of the process. */
const cmd_stats *cmd_get_stats(const cmd_def *cmd);
/* Count for c's command cmd, outside cmd_call, what a blocking command's wait
 * adds to INFO commandstats when it ends (Redis 7.0 counts such a command once,
 * when it is served, times out or is unblocked): calls (0 or 1; also the
 * server's and c's command totals), usec and failed calls. */
void cmd_count_call(client *c, const cmd_def *cmd, int calls, int64_t usec, int failed);

/* Zero the per-error-code counts and the total of error replies
 * (INFO errorstats, total_error_replies), for CONFIG RESETSTAT. */
void cmd_reset_error_stats(void);

/* Count an error reply for INFO errorstats and commandstats. */
void srv_note_error(client *c, const char *msg);
/* Visit error codes and counts (INFO errorstats). */
void cmd_foreach_error(void (*fn)(const char *code, long long count, void *ctx), void *ctx);
long long cmd_total_errors(void);

/* Call fn on each key argument of cmd in c->argv (its key positions, or its
 * counted-keys spec); 0 if cmd names no keys (fn never called), else 1. */
int cmd_foreach_key(client *c, const cmd_def *cmd, void (*fn)(client *c, const sarg *key));

/* Visit each key argument of cmd called with argv[0..argc) (its key specs,
 * or SORT's keys) with the access its spec declares: CMD_KEY_READ for
 * "access", CMD_KEY_WRITE for "insert", "delete" or "update" (ACL's %R and
 * %W). fn returning non-zero stops the walk and is returned; 0 once every
 * key was visited. */
#define CMD_KEY_READ 1
#define CMD_KEY_WRITE 2
int cmd_walk_keys(const cmd_def *cmd, int argc, const sarg *argv, int (*fn)(void *ctx, int pos, int access), void *ctx);

/* Reply the standard arity error for c's command. */
void reply_arity_error(client *c);
/* Reply a "-ERR unknown subcommand" error as Redis does. */
void reply_unknown_subcommand(client *c);
/* The procedure of a container command's own row (CONFIG, CLIENT, OBJECT,
 * MEMORY, SLOWLOG): the dispatcher resolves valid subcommands to their rows,
 * so this only answers an unknown one. */
void cmd_container(client *c);
/* Reply Redis's "-ERR unknown subcommand or wrong number of arguments" error for
 * c->argv[1] (DEBUG, SLOWLOG GET); c->argc must be at least 2. */
void reply_subcommand_syntax(client *c);
/* Reply a HELP listing: lines ended by NULL, prefixed by the command's usage line. */
void reply_help(client *c, const char *const *lines);

/* 1 if argument j of argv is a secret that the slow log and MONITOR show as
 * "(redacted)", as Redis 7.0: AUTH's user and password, HELLO AUTH's, every
 * rule of ACL SETUSER (passwords among them), CONFIG SET requirepass's value. */
int cmd_arg_secret(int argc, const sarg *argv, int j);

/* Slow log. */
void slowlog_resize(void);
void slowlog_push(client *c, long long duration);
void slowlog_reset(void);

/* ---- helpers shared by the command families ---- */

/* Parse argv[i] as a long long, replying ERR_NOTINT on failure. 0 / -1. */
int arg_ll(client *c, int i, long long *out);
/* The one expiry-argument parser: argv[i] as an integer in seconds (seconds)
 * or ms, plus base (ms: db_now for a relative time, 0 for an absolute one),
 * into *when (ms since the epoch). With positive, a value <= 0 is invalid (SET
 * EX, SP.WRITE EX); without, any value is (EXPIRE: a past time deletes). An
 * overflow of the unit or of the addition is invalid. On error replies
 * ERR_NOTINT or Redis's "invalid expire time in '<cmd>' command" and returns
 * -1; else 0. */
int arg_expire(client *c, int i, int seconds, int64_t base, int positive, int64_t *when);

#endif
