/* script.h -- the Lua engine: two Lua 5.1 states, one for EVAL scripts and one
 * for libraries of functions, that run them as Redis 7.0 does.
 *
 * Why a module of its own: a script is a client of the server. Its commands go
 * through the same lookup, checks and cmd_call as a connection's, on a client
 * of the engine's (CLIENT_SCRIPT: fake, but its replies are kept so that they
 * can be turned into Lua values). The rest of the server sees a script only as
 * the command that ran it (EVAL, FCALL), whose effects it wraps in one log
 * record as EXEC does: the log holds the writes, never the Lua, so replaying
 * it runs no script and a script with random output replays as it ran.
 *
 * What lives here: the states and their sandbox (Redis 7's libraries: base less
 * print/loadfile/dofile/setfenv/getfenv, table, string, math with Redis's
 * rand48, cjson and bit from Debian's lua-cjson and lua-bitop, struct and
 * cmsgpack from script/lualibs.c; read-only globals and library tables), the
 * `redis` table (call, pcall, error_reply, status_reply, sha1hex, log,
 * setresp, set_repl, replicate_commands, breakpoint, debug, acl_check_cmd and
 * the constants), the conversions between replies and Lua values both ways in
 * RESP2 and RESP3, the error replies of a failing script, and the busy-script
 * hook: past busy-reply-threshold the hook lets the event loop serve other
 * clients (cmd_busy_error set: they get -BUSY, SCRIPT KILL / FUNCTION KILL /
 * SHUTDOWN NOSAVE run). Errors: 0 / -1, the message in the caller's buffer.
 *
 * Compiled bodies are kept in each state's registry, by name: an EVAL script
 * as "f_<sha1>", a library's function by its own name.
 * Nothing here replies to a client except script_run. */
#ifndef SP_SCRIPT_H
#define SP_SCRIPT_H

#include <stddef.h>

#include "server.h"

/* A script's flags (the shebang's flags=, or a function's). */
#define SCRIPT_NO_WRITES (1 << 0)
#define SCRIPT_ALLOW_OOM (1 << 1)
#define SCRIPT_ALLOW_STALE (1 << 2)
#define SCRIPT_NO_CLUSTER (1 << 3)
#define SCRIPT_ALLOW_CROSS_SLOT (1 << 4)
#define SCRIPT_EVAL_COMPAT (1 << 5) /* an EVAL script without shebang: Redis 6's rules */

/* The lower-case hex SHA1 of p[0..n) into out, NUL-terminated (a script's
 * name in the cache, redis.sha1hex). */
void script_sha1_hex(const char *p, size_t n, char out[41]);
/* Create both Lua states and the script client (start-up) / drop the EVAL
 * scripts' state with every script and create a new one (SCRIPT FLUSH). */
void script_init(void);
void script_reset(void);

/* Compile body[0..len) as the function `name` ("f_<sha1>") with the chunk
 * name "@user_script", keeping flags (SCRIPT_*) beside it. 0, or -1 with the
 * compile error (Lua's message, e.g. "user_script:1: unexpected symbol near
 * '<eof>'") copied into err. */
int script_compile(const char *name, const char *body, size_t len, int flags, char *err, size_t errcap);
/* The flags of the function `name`, or -1 if none was compiled under that
 * name since the last reset. */
int script_flags(const char *name);

/* Run the function `name` for c and reply its result (or its error, as Redis
 * 7.0 words it) to c. An EVAL script (is_function 0, name "f_<sha1>") gets
 * KEYS = keys[0..nkeys) and ARGV = args[0..nargs) as globals; a library's
 * function (is_function 1) gets them as its two parameters. Errors name the
 * sha1 or the function ("script: <name>, on @user_script:1."). ro: refuse
 * write commands (EVAL_RO, FCALL_RO, no-writes). The writes it runs are one
 * log record. */
void script_run(client *c, int is_function, const char *name, int flags, int ro, int nkeys, const sarg *keys, int nargs,
                const sarg *args);

/* ---- libraries of functions (script/cmd_function.c keeps the libraries) ----
 * They live in a Lua state of their own, which SCRIPT FLUSH leaves alone. */

typedef struct script_fn_info {
    char *name; /* xmalloc'd */
    char *desc; /* xmalloc'd, NULL if none */
    int flags;  /* SCRIPT_* */
} script_fn_info;

/* 1 if p[0..n) is a valid library or function name (letters, digits, '_'). */
int script_name_ok(const char *p, size_t n);
/* Run a library's code (its shebang line compiled as a comment) with only
 * the loading API (redis.register_function, redis.log, the LOG_* and version
 * constants). 0: *fns (n entries, freed with script_fn_info_free) are the
 * functions it registered, compiled and waiting for script_lib_commit (the
 * next script_lib_run forgets them). -1: err holds Redis's error after "ERR "
 * ("Error compiling function: ...", "Error registering functions: ...", "No
 * functions registered"). */
int script_lib_run(const char *body, size_t len, script_fn_info **fns, int *n, char *err, size_t errcap);
void script_fn_info_free(script_fn_info *fns, int n);
/* Make the functions of the last successful script_lib_run callable. */
void script_lib_commit(void);
/* Forget one function / every function (a new state: FUNCTION FLUSH). */
void script_fn_remove(const char *name);
void script_fn_reset(void);
/* The name of the function running now (NULL if none, or an EVAL script
 * runs), with its time so far (ms) and the client that runs it. */
const char *script_running_function(int64_t *ms, client **caller);

/* cmd_function.c: register the libraries' part of log rewrites (start-up). */
void function_init(void);

/* ---- the running script, as other clients see it while it is busy ---- */

/* SCRIPT KILL (is_function 0) / FUNCTION KILL (1): stop the running script
 * at its next hook. Replies to c: OK, -NOTBUSY, -UNKILLABLE (it wrote), or
 * the -BUSY error for the wrong kind of script. SHUTDOWN NOSAVE ends a busy
 * script too (the hook sees srv.shutdown_asap). */
void script_kill(client *c, int is_function);

#endif
