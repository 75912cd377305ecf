/* acl.h -- access control: users, the dispatch check, AUTH, ACL LOG and the
 * ACL command, as Redis 7.0.
 *
 * The rule language and the user model are in aclrules.h (pure, tested
 * alone); this module binds them to the server: the catalog of commands
 * (registry rows and their categories), the users by name and the `default`
 * user (which requirepass sets), each client's user (c->user), the check
 * that dispatch, MULTI, EXEC and scripts run before a command (command, keys
 * with the access each needs, channels), the denials log, the aclfile and
 * the `user` lines of the configuration.
 *
 * Fast path: a user whose only selector allows every command, key and
 * channel (the default user) has u->allow_all set; dispatch tests that one
 * field and skips everything else. A client without a user (the log's
 * replay) may run anything. */
#ifndef SP_ACL_H
#define SP_ACL_H

#include "cmd/aclrules.h"
#include "server.h"

/* Outcomes of a check, in Redis's order of precedence (a later one wins
 * when several selectors fail). */
enum { ACL_OK = 0, ACL_DENIED_CMD, ACL_DENIED_KEY, ACL_DENIED_AUTH, ACL_DENIED_CHANNEL };
/* Where a denial happened (ACL LOG's context). */
enum { ACL_CTX_TOPLEVEL, ACL_CTX_MULTI, ACL_CTX_LUA };

extern const cmd_def cmd_table_acl[];
extern char *acl_filename;  /* aclfile: users are loaded from and saved to it; "" for none */
extern int acl_log_max_len; /* acllog-max-len: ACL LOG entries kept */

/* Build the catalog and the default user (after cmd_init, before the
 * configuration is read). */
void acl_init(void);
/* After the configuration: apply the `user` lines or the aclfile. 0, or -1
 * after printing why (the server must not start). */
int acl_load_startup(void);
/* A `user <name> <rules...>` line of the configuration file or command
 * line: kept for acl_load_startup. 0 / -1 with *err. */
int acl_config_user(int argc, char **argv, const char **err);
/* requirepass changed: the default user gets that password ("" = nopass). */
int acl_apply_requirepass(const char **err);
/* The categories of a row: its ACL words plus those its flags imply (write,
 * read, admin and dangerous, pubsub, fast or else slow), as bits of
 * aclr_cat_names. */
uint32_t acl_categories(const cmd_def *cmd);

/* Connection hooks (net_up). A new client gets the default user, and is
 * authenticated when that user is on and needs no password. */
void acl_client_init(client *c);
/* 1 while the default user is on and has no password (protected mode). */
int acl_default_open(void);
/* 1 while the default user has no password (AUTH <password>'s error). */
int acl_default_nopass(void);
/* The name of c's user ("default"): CLIENT LIST's user=. */
const char *acl_user_name(const client *c);
/* RESET: back to the default user, authenticated as a new client is. */
void acl_client_reset(client *c);
/* 1 if c must authenticate before running commands. */
int acl_auth_required(const client *c);

/* AUTH and HELLO AUTH: authenticate c as user (NULL: default) with pass.
 * 0, or -1 after logging the failure in ACL LOG (the caller replies). */
int acl_authenticate(client *c, const sarg *user, const sarg *pass);

/* The check before c runs cmd with argv[0..argc): ACL_OK or a denial, with
 * *errpos the argument index of the key or channel refused. */
int acl_check(const struct aclr_user *u, const cmd_def *cmd, int argc, const sarg *argv, int *errpos);
/* Dispatch's check (after a fast-path test of c->user->allow_all by the
 * caller): 0, or -1 after replying -NOPERM and logging. */
int acl_check_dispatch(client *c, const cmd_def *cmd);
/* EXEC's check of a queued command (its permissions may have changed since
 * it was queued): 0, or -1 after replying -NOPERM ACL failure in transaction. */
int acl_check_exec(client *c, const cmd_def *cmd);
/* A script's check: the script client sc runs with caller's user. NULL if
 * allowed, else the error reply ("-ERR The user executing the script ..."),
 * logged with the caller's client info. */
const char *acl_check_script(client *sc, client *caller, const cmd_def *cmd, int argc, const sarg *argv);

/* SORT's BY and GET patterns read keys the key specs do not name: 1 if c's
 * user may run cmd on every key (a selector with the command and all keys,
 * or a "*" pattern with read access), as Redis requires for them. */
int acl_full_key_access(const client *c, const cmd_def *cmd);

/* CLIENT KILL USER: 1 if a user of that name exists; acl_client_is then
 * tells whether client x is authenticated as it. */
int acl_user_exists(const char *name, size_t len);
int acl_client_is(const client *x, const char *name, size_t len);

#endif
