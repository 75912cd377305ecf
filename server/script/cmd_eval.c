/* cmd_eval.c -- EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT: the script
 * cache and the checks Redis 7.0 makes before a script runs.
 *
 * The cache is the engine's table of compiled functions ("f_<sha1>", with the
 * script's flags): EVAL compiles a body it has not seen, SCRIPT LOAD compiles
 * without running, SCRIPT FLUSH drops the Lua state with every script. The
 * cache is not persisted (as in Redis): the log holds what scripts wrote.
 *
 * A script that starts with a shebang ("#!lua flags=no-writes,...") follows
 * Redis 7's rules for flagged scripts (refused past maxmemory unless
 * allow-oom, refused by the *_RO commands unless no-writes); one without runs
 * in Redis 6's compatible mode. The shebang line is compiled as a comment, so
 * line numbers in errors are the body's. */
#include <ctype.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "script/script.h"

static const struct {
    const char *name;
    int flag;
} shebang_flags[] = {
    {"no-writes", SCRIPT_NO_WRITES},
    {"allow-oom", SCRIPT_ALLOW_OOM},
    {"allow-stale", SCRIPT_ALLOW_STALE},
    {"no-cluster", SCRIPT_NO_CLUSTER},
    {"allow-cross-slot-keys", SCRIPT_ALLOW_CROSS_SLOT},
};

/* The flags of body's shebang (SCRIPT_EVAL_COMPAT without one) into
 * *flags. 0, or -1 after replying Redis's error to c. */
static int parse_shebang(client *c, const char *body, size_t len, int *flags)
{
    const char *nl, *p, *end;
    int first = 1;

    *flags = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!') {
        *flags = SCRIPT_EVAL_COMPAT;
        return 0;
    }
    nl = memchr(body, '\n', len);
    if (!nl) {
        reply_error(c, "ERR Invalid script shebang");
        return -1;
    }
    for (p = body, end = nl; p < end;) {
        const char *w;
        size_t n;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == end)
            break;
        w = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        n = (size_t)(p - w);
        if (first) {
            first = 0;
            if (n != 5 || memcmp(w, "#!lua", 5) != 0) {
                reply_errorf(c, "ERR Unexpected engine in script shebang: %.*s", (int)n, w);
                return -1;
            }
        } else if (n >= 6 && memcmp(w, "flags=", 6) == 0) {
            const char *f = w + 6, *fe = w + n;
            while (f < fe) {
                const char *comma = memchr(f, ',', (size_t)(fe - f));
                size_t k = comma ? (size_t)(comma - f) : (size_t)(fe - f);
                size_t j;
                for (j = 0; j < sizeof(shebang_flags) / sizeof(shebang_flags[0]); j++)
                    if (strlen(shebang_flags[j].name) == k && memcmp(shebang_flags[j].name, f, k) == 0)
                        break;
                if (j == sizeof(shebang_flags) / sizeof(shebang_flags[0])) {
                    reply_errorf(c, "ERR Unexpected flag in script shebang: %.*s", (int)k, f);
                    return -1;
                }
                *flags |= shebang_flags[j].flag;
                f += k + (comma ? 1 : 0);
            }
        } else {
            reply_errorf(c, "ERR Unknown lua shebang option: %.*s", (int)n, w);
            return -1;
        }
    }
    return 0;
}

/* "f_<sha>", the name of a script in the engine's table, into name[43]
 * (written by hand: snprintf cost an EVAL some 300 instructions). */
static void script_name(char *name, const char *sha)
{
    name[0] = 'f';
    name[1] = '_';
    memcpy(name + 2, sha, 40);
    name[42] = '\0';
}

/* Compile body as "f_<sha>" unless cached; its flags into *flags. 0, or -1
 * after replying. */
static int load_script(client *c, const char *body, size_t len, char *sha, int *flags)
{
    char name[48], err[512];
    char *copy;
    int r;

    script_sha1_hex(body, len, sha);
    script_name(name, sha);
    if ((*flags = script_flags(name)) >= 0)
        return 0;
    if (parse_shebang(c, body, len, flags) < 0)
        return -1;
    copy = xmalloc(len + 1);
    memcpy(copy, body, len);
    if (!(*flags & SCRIPT_EVAL_COMPAT))
        copy[0] = copy[1] = '-'; /* the shebang line becomes a comment */
    r = script_compile(name, copy, len, *flags, err, sizeof(err));
    xfree(copy);
    if (r < 0) {
        reply_errorf(c, "ERR Error compiling script (new function): %s", err);
        return -1;
    }
    return 0;
}

static int over_maxmemory(void)
{
    return srv.cfg.maxmemory > 0 && mem_used() > (size_t)srv.cfg.maxmemory;
}

/* EVAL, EVALSHA and their _RO forms. */
static void eval_generic(client *c, int by_sha, int ro)
{
    char sha[41], name[48];
    long long numkeys;
    int flags;

    if (str_to_ll(c->argv[2].p, c->argv[2].len, &numkeys) < 0) {
        reply_error(c, ERR_NOTINT);
        return;
    }
    if (numkeys > c->argc - 3) {
        reply_error(c, "ERR Number of keys can't be greater than number of args");
        return;
    }
    if (numkeys < 0) {
        reply_error(c, "ERR Number of keys can't be negative");
        return;
    }
    if (by_sha) {
        size_t i;
        if (c->argv[1].len != 40) {
            reply_error(c, "NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
        for (i = 0; i < 40; i++) {
            char ch = c->argv[1].p[i];
            sha[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch + ('a' - 'A')) : ch;
        }
        sha[40] = '\0';
        script_name(name, sha);
        if ((flags = script_flags(name)) < 0) {
            reply_error(c, "NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
    } else if (load_script(c, c->argv[1].p, c->argv[1].len, sha, &flags) < 0) {
        return;
    } else {
        script_name(name, sha);
    }
    if (!(flags & SCRIPT_EVAL_COMPAT) && !(flags & SCRIPT_NO_WRITES)) {
        const char *why;
        if (!(flags & SCRIPT_ALLOW_OOM) && over_maxmemory()) {
            reply_error(c, "OOM allow-oom flag is not set on the script, can not run it when used memory > "
                           "'maxmemory'");
            return;
        }
        if ((why = prop_refusing()) != NULL) {
            reply_errorf(c, "MISCONF Errors writing to the AOF file: %s", why);
            return;
        }
        if (ro) {
            reply_error(c, "ERR Can not execute a script with write flag using *_ro command.");
            return;
        }
    }
    script_run(c, 0, name, flags, ro, (int)numkeys, c->argv + 3, c->argc - 3 - (int)numkeys, c->argv + 3 + numkeys);
}

static void cmd_eval(client *c)
{
    eval_generic(c, 0, 0);
}

static void cmd_evalsha(client *c)
{
    eval_generic(c, 1, 0);
}

static void cmd_eval_ro(client *c)
{
    eval_generic(c, 0, 1);
}

static void cmd_evalsha_ro(client *c)
{
    eval_generic(c, 1, 1);
}

/* ---- SCRIPT ---- */

static void script_load_cmd(client *c)
{
    char sha[41];
    int flags;
    if (load_script(c, c->argv[2].p, c->argv[2].len, sha, &flags) < 0)
        return;
    reply_bulk(c, sha, 40);
}

static void script_exists_cmd(client *c)
{
    int i;
    reply_array(c, c->argc - 2);
    for (i = 2; i < c->argc; i++) {
        char name[48];
        size_t k;
        int ok = c->argv[i].len == 40;
        if (ok) {
            memcpy(name, "f_", 2);
            for (k = 0; k < 40; k++)
                name[2 + k] = (char)tolower((unsigned char)c->argv[i].p[k]);
            name[42] = '\0';
            ok = script_flags(name) >= 0;
        }
        reply_int(c, ok);
    }
}

static void script_flush_cmd(client *c)
{
    if (c->argc == 3 && !str_eq_ci(c->argv[2].p, c->argv[2].len, "sync") &&
        !str_eq_ci(c->argv[2].p, c->argv[2].len, "async")) {
        reply_error(c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    if (c->argc > 3) {
        reply_error(c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    script_reset();
    reply_ok(c);
}

static void script_kill_cmd(client *c)
{
    script_kill(c, 0);
}

static void script_help_cmd(client *c)
{
    static const char *const lines[] = {
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        NULL,
    };
    reply_help(c, lines);
}

/* CMD_OWN_EFFECT: its commands log their effects; its reply is a write's (-IOERR after aof-hold-timeout) */
#define EVAL_FLAGS (CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_OWN_EFFECT)
#define RW_SPEC "RW access update@k:2,0,1,1"
#define RO_SPEC "RO access@k:2,0,1,1"
#define WORST_RW "#We cannot tell how the keys will be used so we assume the worst, RW and UPDATE"
#define WORST_RO "#We cannot tell how the keys will be used so we assume the worst, RO and ACCESS"

/* clang-format off */
static const cmd_def script_subcommands[] = {
    {.name = "load", .proc = script_load_cmd, .arity = 3, .flags = CMD_NOSCRIPT | CMD_STALE, .group = "scripting",
     .summary = "Load the specified Lua script into the script cache.", .since = "2.6.0",
     .complexity = "O(N) with N being the length in bytes of the script body.", .acl = "slow scripting",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "exists", .proc = script_exists_cmd, .arity = -3, .flags = CMD_NOSCRIPT, .group = "scripting",
     .summary = "Check existence of scripts in the script cache.", .since = "2.6.0",
     .complexity = "O(N) with N being the number of scripts to check (so checking a single script is an O(1) "
                   "operation).",
     .acl = "slow scripting", .tips = "request_policy:all_shards response_policy:agg_logical_and"},
    {.name = "flush", .proc = script_flush_cmd, .arity = -2, .flags = CMD_NOSCRIPT, .group = "scripting",
     .summary = "Remove all the scripts from the script cache.", .since = "2.6.0",
     .complexity = "O(N) with N being the number of scripts in cache", .acl = "slow scripting",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "kill", .proc = script_kill_cmd, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY,
     .group = "scripting", .summary = "Kill the script currently in execution.", .since = "2.6.0",
     .complexity = "O(1)", .acl = "slow scripting",
     .tips = "request_policy:all_shards response_policy:one_succeeded"},
    {.name = "help", .proc = script_help_cmd, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "scripting",
     .summary = "Show helpful text about the different subcommands", .since = "5.0.0", .complexity = "O(1)",
     .acl = "slow scripting"},
    {0},
};

const cmd_def cmd_table_eval[] = {
    {.name = "eval", .proc = cmd_eval, .arity = -3, .flags = EVAL_FLAGS | CMD_MAY_REPLICATE, .group = "scripting",
     .summary = "Execute a Lua script server side", .since = "2.6.0",
     .complexity = "Depends on the script that is executed.", .acl = "slow scripting",
     .key_specs = RW_SPEC WORST_RW},
    {.name = "evalsha", .proc = cmd_evalsha, .arity = -3, .flags = EVAL_FLAGS | CMD_MAY_REPLICATE, .group = "scripting",
     .summary = "Execute a Lua script server side", .since = "2.6.0",
     .complexity = "Depends on the script that is executed.", .acl = "slow scripting", .key_specs = RW_SPEC},
    {.name = "eval_ro", .proc = cmd_eval_ro, .arity = -3, .flags = CMD_READONLY | EVAL_FLAGS, .group = "scripting",
     .summary = "Execute a read-only Lua script server side", .since = "7.0.0",
     .complexity = "Depends on the script that is executed.", .acl = "slow scripting",
     .key_specs = RO_SPEC WORST_RO},
    {.name = "evalsha_ro", .proc = cmd_evalsha_ro, .arity = -3, .flags = CMD_READONLY | EVAL_FLAGS,
     .group = "scripting", .summary = "Execute a read-only Lua script server side", .since = "7.0.0",
     .complexity = "Depends on the script that is executed.", .acl = "slow scripting", .key_specs = RO_SPEC},
    {.name = "script", .proc = cmd_container, .arity = -2, .flags = 0, .group = "scripting",
     .summary = "A container for Lua scripts management commands", .since = "2.6.0",
     .complexity = "Depends on subcommand.", .acl = "slow", .subcommands = script_subcommands},
    {0},
};
/* clang-format on */
