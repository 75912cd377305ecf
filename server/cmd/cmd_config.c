/* cmd_config.c -- CONFIG GET, SET, RESETSTAT and HELP, with Redis 7.0's replies
 * and error strings.
 *
 * Why here: CONFIG reads and changes the server's directives through the one
 * configuration table (config.h), while the parsing, bounds and apply hooks of
 * each directive stay in config.c; RESETSTAT is here because Redis files it
 * under CONFIG, and it zeroes what INFO counts.
 *
 * Invariant: CONFIG SET changes either every directive it names or none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/commands.h"
#include "config.h"
#include "core/mem.h"
#include "net/net.h"
#include "net/reply.h"
#include "cmd/stats.h"
#include "keyspace/evict.h"
#include "core/util.h"

/* A copy of d's current value, as CONFIG GET shows it; caller frees. */
static char *cfg_value_dup(const cfg_def *d)
{
    size_t cap = 1024;
    char *buf;

    if (d->type == CFG_STRING && *(char **)d->field)
        cap = strlen(*(char **)d->field) + 1;
    buf = xmalloc(cap);
    cfg_format(d, buf, cap);
    return buf;
}

static int has_glob(const sarg *a)
{
    return memchr(a->p, '*', a->len) || memchr(a->p, '?', a->len) || memchr(a->p, '[', a->len);
}

/* Add (d, key) to the reply's pairs unless key is there already (names
 * compare case-insensitively: an alias and its directive are two names). */
static void get_add(const cfg_def **rows, const char **keys, int *n, const cfg_def *d, const char *key, size_t klen)
{
    int j;

    for (j = 0; j < *n; j++)
        if (strlen(keys[j]) == klen && str_eq_ci(key, klen, keys[j]))
            return;
    rows[*n] = d;
    keys[(*n)++] = key;
}

/* CONFIG GET pattern...: each matching name once, as a map; an alias (Redis
 * 7's *-ziplist-* names) is a name of its own, as in Redis. An argument
 * without glob characters is looked up directly and echoed as typed. */
static void config_get(client *c)
{
    int nnames = 0, i, n = 0;
    const cfg_def *d;
    const cfg_alias *al;
    const cfg_def **rows;
    const char **keys;

    for (d = cfg_table; d->name; d++)
        nnames++;
    for (al = cfg_aliases; al->alias; al++)
        nnames++;
    nnames *= c->argc; /* exact names typed may repeat a directive under other spellings */
    rows = xmalloc(sizeof(*rows) * (size_t)nnames);
    keys = xmalloc(sizeof(*keys) * (size_t)nnames);
    for (i = 2; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        if (!has_glob(a)) {
            d = cfg_find(a->p, a->len);
            if (d)
                get_add(rows, keys, &n, d, a->p, a->len);
            continue;
        }
        for (d = cfg_table; d->name; d++)
            if (glob_match(a->p, a->len, d->name, strlen(d->name), 1))
                get_add(rows, keys, &n, d, d->name, strlen(d->name));
        for (al = cfg_aliases; al->alias; al++)
            if (glob_match(a->p, a->len, al->alias, strlen(al->alias), 1))
                get_add(rows, keys, &n, cfg_find(al->name, strlen(al->name)), al->alias, strlen(al->alias));
    }
    reply_map(c, n);
    for (i = 0; i < n; i++) {
        char *v = cfg_value_dup(rows[i]);
        reply_bulk_cstr(c, keys[i]);
        reply_bulk_cstr(c, v);
        xfree(v);
    }
    xfree(keys);
    xfree(rows);
}

/* Set rows[0..n) back to the saved values (they parsed before, so they parse now). */
static void config_restore(const cfg_def **rows, char **old, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const char *err = NULL;
        char *v = old[i];
        cfg_set(rows[i], 1, &v, &err);
    }
}

/* CONFIG SET name value [name value ...]: check every name first (unknown,
 * immutable, duplicate), save the old values, set every new value, then run each
 * distinct apply() once. A failure at any step puts every value back (and re-runs
 * the apply functions if they had started), so the change is all or nothing. */
static void config_set(client *c)
{
    int npairs = (c->argc - 2) / 2, i, j, nset = 0, napply = 0;
    const cfg_def **rows = NULL;
    char **old = NULL;
    int (**applies)(const char **) = NULL;
    int *apply_row = NULL;
    const char *unknown = NULL, *err_arg = NULL, *err = NULL;

    if (c->argc % 2) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    rows = xcalloc((size_t)npairs, sizeof(*rows));
    old = xcalloc((size_t)npairs, sizeof(*old));
    applies = xcalloc((size_t)npairs, sizeof(*applies));
    apply_row = xcalloc((size_t)npairs, sizeof(*apply_row));
    for (i = 0; i < npairs; i++) {
        const sarg *name = &c->argv[2 + 2 * i];
        const cfg_def *d = cfg_find(name->p, name->len);
        if (!d) {
            if (!unknown && !err_arg)
                unknown = name->p;
            continue;
        }
        if (unknown || err_arg)
            continue;
        if (d->flags & CFG_IMMUTABLE) {
            err = "can't set immutable config";
            err_arg = name->p;
            continue;
        }
        if ((d->flags & CFG_PROTECTED) && !client_protected_allowed(c, srv.cfg.enable_protected_configs)) {
            err = "can't set protected config";
            err_arg = name->p;
            continue;
        }
        for (j = 0; j < i; j++) {
            const sarg *prev = &c->argv[2 + 2 * j];
            /* A name given twice; a directive and its alias are two names (the last one wins, as in Redis). */
            if (prev->len == name->len && strncasecmp(prev->p, name->p, name->len) == 0) {
                err = "duplicate parameter";
                err_arg = name->p;
                break;
            }
        }
        rows[i] = d;
    }
    if (unknown || err_arg)
        goto done;
    for (i = 0; i < npairs; i++)
        old[i] = cfg_value_dup(rows[i]);
    for (i = 0; i < npairs; i++) {
        char *v = c->argv[3 + 2 * i].p;
        if (cfg_set(rows[i], 1, &v, &err) < 0) {
            config_restore(rows, old, i + 1);
            err_arg = c->argv[2 + 2 * i].p; /* as typed: an alias is named as such */
            goto done;
        }
        nset++;
        if (rows[i]->apply) {
            for (j = 0; j < napply; j++)
                if (applies[j] == rows[i]->apply)
                    break;
            if (j == napply) {
                apply_row[napply] = i;
                applies[napply++] = rows[i]->apply;
            }
        }
    }
    for (i = 0; i < napply; i++) {
        if (applies[i](&err) < 0) {
            const char *ignored = NULL;
            err_arg = c->argv[2 + 2 * apply_row[i]].p;
            config_restore(rows, old, nset);
            for (j = 0; j < napply; j++)
                applies[j](&ignored);
            goto done;
        }
    }
done:
    if (unknown)
        reply_errorf(c, "ERR Unknown option or number of arguments for CONFIG SET - '%s'", unknown);
    else if (err_arg && err)
        reply_errorf(c, "ERR CONFIG SET failed (possibly related to argument '%s') - %s", err_arg, err);
    else if (err_arg)
        reply_errorf(c, "ERR CONFIG SET failed (possibly related to argument '%s')", err_arg);
    else
        reply_ok(c);
    for (i = 0; i < npairs; i++)
        xfree(old[i]);
    xfree(apply_row);
    xfree(applies);
    xfree(old);
    xfree(rows);
}

/* CONFIG RESETSTAT: zero what INFO counts. The peak memory, like Redis's, stays;
 * keyspace hits/misses are db.c's counters. */
static void config_resetstat(client *c)
{
    srv.stat_conns = 0;
    srv.stat_rejected_conns = 0;
    srv.stat_commands = 0;
    srv.stat_keyspace_hits = srv.stat_keyspace_misses = 0;
    srv.stat_expired_keys = 0;
    evict_count = 0;
    srv.stat_net_in = srv.stat_net_out = 0;
    srv.stat_proto_errors = 0;
    srv.stat_oom_rejections = 0;
    srv.stat_obuf_disconnects = 0;
    srv.stat_aof_unlogged_replies = 0;
    db_stat_hits = db_stat_misses = 0;
    cmd_reset_stats();
    cmd_reset_error_stats();
    stats_reset_samples();
    reply_ok(c);
}

static void config_help(client *c)
{
    static const char *const lines[] = {
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        NULL,
    };
    reply_help(c, lines);
}

/* ---- the table ---- */

#define LS (CMD_LOADING | CMD_STALE)
#define ADM (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

/* clang-format off */
static const cmd_def config_subcommands[] = {
    {.name = "get", .proc = config_get, .arity = -3, .flags = ADM, .group = "server",
     .summary = "Get the values of configuration parameters", .since = "2.0.0",
     .complexity = "O(N) when N is the number of configuration parameters provided", .acl = "admin slow dangerous"},
    {.name = "set", .proc = config_set, .arity = -4, .flags = ADM, .group = "server",
     .summary = "Set configuration parameters to the given values", .since = "2.0.0",
     .complexity = "O(N) when N is the number of configuration parameters provided", .acl = "admin slow dangerous",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "resetstat", .proc = config_resetstat, .arity = 2, .flags = ADM, .group = "server",
     .summary = "Reset the stats returned by INFO", .since = "2.0.0", .complexity = "O(1)",
     .acl = "admin slow dangerous"},
    {.name = "help", .proc = config_help, .arity = 2, .flags = LS, .group = "server",
     .summary = "Show helpful text about the different subcommands", .since = "5.0.0", .complexity = "O(1)",
     .acl = "slow"},
    {0},
};
/* clang-format on */

/* clang-format off */
const cmd_def cmd_table_config[] = {
    {.name = "config", .proc = cmd_container, .arity = -2, .flags = 0, .group = "server",
     .summary = "A container for server configuration commands", .since = "2.0.0",
     .complexity = "Depends on subcommand.", .acl = "slow", .subcommands = config_subcommands},
    {0},
};
/* clang-format on */
