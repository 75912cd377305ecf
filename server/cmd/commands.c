/* commands.c -- registry, dispatch, stats and slow log (see commands.h). */
#include "cmd/commands.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ht.h"
#include "log.h"
#include "core/mem.h"
#include "cmd/acl.h"
#include "cmd/block.h"
#include "cmd/multi.h"
#include "cmd/pause.h"
#include "keyspace/evict.h"
#include "cmd/propagate.h"
#include "cmd/monitor.h"
#include "cmd/pubsub.h"
#include "cmd/tracking.h"
#include "net/net.h"
#include "net/reply.h"
#include "cmd/stats.h"
#include "core/util.h"

#define REG_SIZE 1024 /* open-addressing slots; power of two, > 2x the commands */
#define NAME_MAX_LEN 64

/* In this order COMMAND, COMMAND DOCS and INFO commandstats list the commands. */
/* clang-format off */
static const cmd_def *table_list[] = {
    cmd_table_conn, cmd_table_string, cmd_table_list, cmd_table_keys, cmd_table_info, cmd_table_server, cmd_table_command,
    cmd_table_config, cmd_table_slowlog, cmd_table_multi, cmd_table_sp, cmd_table_lcs, cmd_table_memory,
    cmd_table_set,
    cmd_table_hash,
    cmd_table_zset,
    cmd_table_stream,
    cmd_table_pubsub,
    cmd_table_monitor,
    cmd_table_eval,
    cmd_table_function,
    cmd_table_sort,
    cmd_table_dump,
    cmd_table_bitmap,
    cmd_table_hll,
    cmd_table_geo,
    cmd_table_acl,
};
/* clang-format on */

typedef struct reg_slot {
    const cmd_def *cmd;
    char *fullname;
} reg_slot;

static reg_slot registry[REG_SIZE];
static int ncommands;

/* Extra per-command data kept beside the const tables, keyed by address. */
typedef struct cmd_extra {
    const cmd_def *cmd;
    const cmd_def *parent; /* the container of a subcommand, else NULL */
    cmd_stats stats;
    char fullname[NAME_MAX_LEN * 2];
} cmd_extra;
static cmd_extra *extras;
static int nextras, capextras;

static uint32_t name_hash(const char *lname, size_t len)
{
    return (uint32_t)ht_hash(lname, len, 0x5ca7c4);
}

static void reg_add(const cmd_def *cmd)
{
    uint32_t i = name_hash(cmd->name, strlen(cmd->name)) & (REG_SIZE - 1);
    while (registry[i].cmd)
        i = (i + 1) & (REG_SIZE - 1);
    registry[i].cmd = cmd;
    ncommands++;
}

static cmd_extra *extra_of(const cmd_def *cmd)
{
    /* Extras are sorted by address for binary search. */
    int lo = 0, hi = nextras - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (extras[mid].cmd == cmd)
            return &extras[mid];
        if ((uintptr_t)extras[mid].cmd < (uintptr_t)cmd)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static void extra_add(const cmd_def *cmd, const cmd_def *parent)
{
    cmd_extra *x;
    if (nextras == capextras) {
        capextras = capextras ? capextras * 2 : 256;
        extras = xrealloc(extras, sizeof(cmd_extra) * (size_t)capextras);
    }
    x = &extras[nextras++];
    memset(x, 0, sizeof(*x));
    x->cmd = cmd;
    x->parent = parent;
    if (parent)
        snprintf(x->fullname, sizeof(x->fullname), "%s|%s", parent->name, cmd->name);
    else
        snprintf(x->fullname, sizeof(x->fullname), "%s", cmd->name);
}

static int extra_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const cmd_extra *)a)->cmd, y = (uintptr_t)((const cmd_extra *)b)->cmd;
    return x < y ? -1 : x > y;
}

void cmd_init(void)
{
    size_t t;
    for (t = 0; t < sizeof(table_list) / sizeof(table_list[0]); t++) {
        const cmd_def *c;
        for (c = table_list[t]; c->name; c++) {
            reg_add(c);
            extra_add(c, NULL);
            if (c->subcommands) {
                const cmd_def *s;
                for (s = c->subcommands; s->name; s++)
                    extra_add(s, c);
            }
        }
    }
    qsort(extras, (size_t)nextras, sizeof(cmd_extra), extra_cmp);
    srv.cmd_multi = cmd_lookup("multi", 5);
    srv.cmd_exec = cmd_lookup("exec", 4);
    srv.cmd_discard = cmd_lookup("discard", 7);
    srv.cmd_quit = cmd_lookup("quit", 4);
    srv.cmd_reset = cmd_lookup("reset", 5);
    srv.cmd_watch = cmd_lookup("watch", 5);
}

const cmd_def *cmd_lookup(const char *name, size_t len)
{
    char lname[NAME_MAX_LEN];
    uint32_t i;
    size_t k;

    if (len == 0 || len >= NAME_MAX_LEN)
        return NULL;
    for (k = 0; k < len; k++)
        lname[k] = (char)tolower((unsigned char)name[k]);
    lname[len] = '\0';
    i = name_hash(lname, len) & (REG_SIZE - 1);
    while (registry[i].cmd) {
        if (strcmp(registry[i].cmd->name, lname) == 0)
            return registry[i].cmd;
        i = (i + 1) & (REG_SIZE - 1);
    }
    return NULL;
}

static const cmd_def *sub_lookup(const cmd_def *parent, const char *name, size_t len)
{
    const cmd_def *s;
    for (s = parent->subcommands; s->name; s++)
        if (str_eq_ci(name, len, s->name))
            return s;
    return NULL;
}

const cmd_def *cmd_lookup_argv(int argc, const sarg *argv)
{
    const cmd_def *cmd = cmd_lookup(argv[0].p, argv[0].len);

    if (cmd && cmd->subcommands && argc >= 2)
        return sub_lookup(cmd, argv[1].p, argv[1].len);
    return cmd;
}

const char *cmd_fullname(const cmd_def *cmd)
{
    cmd_extra *x = extra_of(cmd);
    return x ? x->fullname : cmd->name;
}

const cmd_def *cmd_parent(const cmd_def *cmd)
{
    cmd_extra *x = extra_of(cmd);
    return x ? x->parent : NULL;
}

static cmd_stats *stats_of(const cmd_def *cmd)
{
    cmd_extra *x = extra_of(cmd);
    return x ? &x->stats : NULL;
}

void cmd_foreach(void (*fn)(const cmd_def *cmd, void *ctx), void *ctx)
{
    size_t t;
    for (t = 0; t < sizeof(table_list) / sizeof(table_list[0]); t++) {
        const cmd_def *c;
        for (c = table_list[t]; c->name; c++)
            fn(c, ctx);
    }
}

int cmd_count(void)
{
    return ncommands;
}

void cmd_reset_stats(void)
{
    int i;
    for (i = 0; i < nextras; i++)
        memset(&extras[i].stats, 0, sizeof(cmd_stats));
}

/* ---- errors ---- */

typedef struct err_count {
    char code[32];
    long long count;
} err_count;
static err_count errcounts[128];
static int nerrcodes;
static long long total_errors;
static int in_call;
const char *cmd_busy_error;

void srv_note_error(client *c, const char *msg)
{
    char code[32];
    size_t n = 0;
    int i;

    total_errors++;
    while (msg[n] && msg[n] != ' ' && n < sizeof(code) - 1) {
        code[n] = msg[n];
        n++;
    }
    code[n] = '\0';
    for (i = 0; i < nerrcodes; i++)
        if (strcmp(errcounts[i].code, code) == 0)
            break;
    if (i == nerrcodes && nerrcodes < 128) {
        snprintf(errcounts[i].code, sizeof(errcounts[i].code), "%s", code);
        nerrcodes++;
    }
    if (i < nerrcodes)
        errcounts[i].count++;
    if (c && c->cmd) {
        cmd_stats *st = stats_of(c->cmd);
        if (st) {
            if (in_call)
                st->failed++;
            else
                st->rejected++;
        }
    }
}

void cmd_foreach_error(void (*fn)(const char *code, long long count, void *ctx), void *ctx)
{
    int i;
    for (i = 0; i < nerrcodes; i++)
        fn(errcounts[i].code, errcounts[i].count, ctx);
}

long long cmd_total_errors(void)
{
    return total_errors;
}

const cmd_stats *cmd_get_stats(const cmd_def *cmd)
{
    return stats_of(cmd);
}

void cmd_count_call(client *c, const cmd_def *cmd, int calls, int64_t usec, int failed)
{
    cmd_stats *st = stats_of(cmd);

    if (st) {
        st->calls += calls;
        st->usec += usec;
        st->failed += failed;
    }
    if (calls) {
        srv.stat_commands++;
        c->cmds++;
    }
}

void cmd_reset_error_stats(void)
{
    memset(errcounts, 0, sizeof(errcounts));
    nerrcodes = 0;
    total_errors = 0;
}

void reply_arity_error(client *c)
{
    reply_errorf(c, "ERR wrong number of arguments for '%s' command", cmd_fullname(c->cmd));
}

/* The command's name as typed (argv[0]), upper-cased into up[0..cap), cut to
 * cap - 1 bytes: "Try CONFIG HELP." */
static void upper_name(const client *c, char *up, size_t cap)
{
    size_t i;

    for (i = 0; i < c->argv[0].len && i < cap - 1; i++)
        up[i] = (char)toupper((unsigned char)c->argv[0].p[i]);
    up[i] = '\0';
}

void reply_unknown_subcommand(client *c)
{
    char up[NAME_MAX_LEN];

    upper_name(c, up, sizeof(up));
    reply_errorf(c, "ERR unknown subcommand '%.128s'. Try %s HELP.", c->argc > 1 ? c->argv[1].p : "", up);
}

void cmd_container(client *c)
{
    reply_unknown_subcommand(c);
}

void reply_subcommand_syntax(client *c)
{
    char up[NAME_MAX_LEN];

    upper_name(c, up, sizeof(up));
    reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.", c->argv[1].p,
                 up);
}

void reply_help(client *c, const char *const *lines)
{
    char up[NAME_MAX_LEN], first[128];
    size_t i, n = 0;

    upper_name(c, up, sizeof(up));
    while (lines[n])
        n++;
    reply_array(c, (long)n + 3);
    snprintf(first, sizeof(first), "%s <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", up);
    reply_status(c, first);
    for (i = 0; i < n; i++)
        reply_status(c, lines[i]);
    reply_status(c, "HELP");
    reply_status(c, "    Prints this help.");
}

/* ---- dispatch ---- */

static void reply_unknown_command(client *c)
{
    char args[512];
    size_t off = 0;
    int i;

    args[0] = '\0';
    for (i = 1; i < c->argc && off < 128; i++) {
        int room = 128 - (int)off;
        int n = snprintf(args + off, sizeof(args) - off, "'%.*s' ", room, c->argv[i].p);
        if (n < 0)
            break;
        off += (size_t)n;
        if (off >= sizeof(args))
            off = sizeof(args) - 1;
    }
    reply_errorf(c, "ERR unknown command '%.128s', with args beginning with: %s", c->argv[0].p, args);
}

/* 1 if argc arguments (the name included) fit cmd's arity: the one check that
 * dispatch and the log's replay share. */
static int arity_ok(const cmd_def *cmd, int argc)
{
    return cmd->arity > 0 ? argc == cmd->arity : argc >= -cmd->arity;
}

const cmd_def *cmd_resolve(client *c)
{
    const cmd_def *cmd = cmd_lookup(c->argv[0].p, c->argv[0].len);

    c->cmd = NULL;
    if (!cmd) {
        reply_unknown_command(c);
        return NULL;
    }
    c->cmd = cmd;
    if (cmd->subcommands && c->argc >= 2) {
        const cmd_def *sub = sub_lookup(cmd, c->argv[1].p, c->argv[1].len);
        if (!sub) {
            reply_unknown_subcommand(c);
            return NULL;
        }
        c->cmd = cmd = sub;
    }
    c->lastcmd = cmd;
    if (!arity_ok(cmd, c->argc)) {
        if (cmd == srv.cmd_exec && (c->flags & CLIENT_MULTI)) {
            char msg[256];
            snprintf(msg, sizeof(msg), "wrong number of arguments for '%s' command", cmd_fullname(cmd));
            multi_exec_abort(c, msg);
            c->cmd = NULL;
            return NULL;
        }
        reply_arity_error(c);
        return NULL;
    }
    return cmd;
}

static int is_multi_control(const cmd_def *cmd)
{
    return cmd == srv.cmd_exec || cmd == srv.cmd_discard || cmd == srv.cmd_multi || cmd == srv.cmd_watch ||
           cmd == srv.cmd_quit || cmd == srv.cmd_reset;
}

static int over_maxmemory(void)
{
    return srv.cfg.maxmemory > 0 && mem_used() > (size_t)srv.cfg.maxmemory;
}

#define ERR_OOM "OOM command not allowed when used memory > 'maxmemory'."

static void dispatch(client *c);

/* Run one request, then advance CLIENT REPLY SKIP as Redis does: the command
 * after CLIENT REPLY SKIP has its reply dropped, whatever became of it. */
void cmd_dispatch(client *c)
{
    dispatch(c);
    if (c->flags & CLIENT_POSTPONED)
        return; /* runs again when the pause ends: CLIENT REPLY SKIP still ahead */
    if (blk_ready_pending)
        blk_handle_ready();
    if (c->flags & CLIENT_REPLY_SKIP)
        c->flags &= ~CLIENT_REPLY_SKIP;
    if (c->flags & CLIENT_REPLY_SKIP_NEXT) {
        c->flags &= ~CLIENT_REPLY_SKIP_NEXT;
        c->flags |= CLIENT_REPLY_SKIP;
    }
}

static void dispatch(client *c)
{
    const cmd_def *cmd;
    int oom = 0;

    cmd = cmd_resolve(c);
    if (!cmd) {
        multi_flag_error(c);
        return;
    }
    if (!(c->flags & CLIENT_AUTHENTICATED) && !(cmd->flags & CMD_NO_AUTH) && acl_auth_required(c)) {
        reply_error(c, "NOAUTH Authentication required.");
        multi_flag_error(c);
        return;
    }
    if ((cmd->flags & CMD_PROTECTED) && !client_protected_allowed(c, srv.cfg.enable_debug_command)) {
        /* DEBUG is the only protected command (no MODULE here), Redis's words. */
        reply_error(c, "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
                       "can run it from a local connection, otherwise you need to set this option in the "
                       "configuration file, and then restart the server.");
        multi_flag_error(c);
        return;
    }
    if ((c->flags & CLIENT_MULTI) && (cmd->flags & CMD_NOT_IN_MULTI) && !is_multi_control(cmd)) {
        reply_error(c, "ERR Command not allowed inside a transaction");
        multi_flag_error(c);
        return;
    }
    /* ACL: the default user (every command, key and channel) pays one test. */
    if (c->user && !c->user->allow_all && acl_check_dispatch(c, cmd) < 0) {
        multi_flag_error(c);
        return;
    }
    if ((c->flags & CLIENT_MONITOR) && (cmd->flags & (CMD_WRITE | CMD_READONLY | CMD_MAY_REPLICATE))) {
        /* A monitor is a replica to Redis, kept out of the keyspace. */
        reply_error(c, "ERR Replica can't interact with the keyspace");
        multi_flag_error(c);
        return;
    }
    if (srv.loading && !(cmd->flags & CMD_LOADING)) {
        reply_error(c, "LOADING Scratchpad is loading the dataset in memory");
        multi_flag_error(c);
        return;
    }
    if (cmd_busy_error && !(cmd->flags & CMD_ALLOW_BUSY)) {
        reply_error(c, cmd_busy_error);
        multi_flag_error(c);
        return;
    }
    /* Over maxmemory, every command first evicts what the policy allows (as
     * Redis's performEvictions); a command that may grow memory is refused
     * when that is not enough. */
    if (over_maxmemory() && !srv.loading)
        oom = evict_run(srv.dbs, srv.cfg.databases, (size_t)srv.cfg.maxmemory) < 0;
    if ((cmd->flags & CMD_DENYOOM) || (cmd == srv.cmd_exec && multi_has_denyoom(c))) {
        if (oom) {
            srv.stat_oom_rejections++;
            if (cmd == srv.cmd_exec && (c->flags & CLIENT_MULTI)) {
                multi_exec_abort(c, ERR_OOM);
                return;
            }
            reply_error(c, ERR_OOM);
            multi_flag_error(c);
            return;
        }
    }
    if ((cmd->flags & CMD_WRITE) || (cmd == srv.cmd_exec && multi_has_write(c))) {
        const char *why = prop_refusing();
        if (why) {
            char msg[256];
            snprintf(msg, sizeof(msg), "MISCONF Errors writing to the AOF file: %s", why);
            if (cmd == srv.cmd_exec && (c->flags & CLIENT_MULTI)) {
                multi_exec_abort(c, msg);
                return;
            }
            reply_error(c, msg);
            multi_flag_error(c);
            return;
        }
    }
    if (!ps_allowed_in_context(c, cmd)) {
        char msg[256];
        snprintf(msg, sizeof(msg),
                 "Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in "
                 "this context",
                 cmd_fullname(cmd));
        if (cmd == srv.cmd_exec) { /* EXECABORT even outside MULTI, as Redis */
            multi_exec_abort(c, msg);
            return;
        }
        reply_errorf(c, "ERR %s", msg);
        multi_flag_error(c);
        return;
    }
    if (pause_postpone(c, cmd))
        return;
    if ((c->flags & CLIENT_MULTI) && !is_multi_control(cmd)) {
        multi_queue(c, cmd);
        return;
    }
    cmd_call(c, cmd);
}

int cmd_foreach_key(client *c, const cmd_def *cmd, void (*fn)(client *c, const sarg *key))
{
    int i, last, step, index, numidx, first;
    const char *spec;

    if (cmd->key_specs && (spec = strstr(cmd->key_specs, "@k:")) &&
        sscanf(spec + 3, "%d,%d,%d,%d", &index, &numidx, &first, &step) == 4) {
        /* Keys counted by an argument (LMPOP, ZMPOP, ...): argv[index + numidx]
         * of them from argv[index + first], every step. */
        long long nk;
        numidx += index;
        if (numidx < c->argc && str_to_ll(c->argv[numidx].p, c->argv[numidx].len, &nk) == 0)
            for (i = index + first; nk > 0 && i < c->argc; i += step > 0 ? step : 1, nk--)
                fn(c, &c->argv[i]);
        return 1;
    }
    if (cmd->key_specs && (spec = strstr(cmd->key_specs, "@w:"))) {
        /* Keys after a keyword (XREADGROUP ... STREAMS k1 k2 id1 id2): the
         * first half of what follows it. */
        char kw[16];
        int start, lastkey, kstep, limit, n;
        if (sscanf(spec + 3, "%15[^,],%d,%d,%d,%d", kw, &start, &lastkey, &kstep, &limit) == 5) {
            for (i = start; i < c->argc && !str_eq_ci(c->argv[i].p, c->argv[i].len, kw); i++)
                ;
            n = (c->argc - i - 1) / (limit > 1 ? limit : 1);
            for (i = i + 1; n > 0 && i < c->argc; i++, n--)
                fn(c, &c->argv[i]);
        }
        return 1;
    }
    if (cmd->first_key <= 0)
        return 0;
    last = cmd->last_key < 0 ? c->argc + cmd->last_key : cmd->last_key;
    step = cmd->key_step > 0 ? cmd->key_step : 1;
    for (i = cmd->first_key; i <= last && i < c->argc; i += step)
        fn(c, &c->argv[i]);
    return 1;
}

static void announce_key(client *c, const sarg *key)
{
    prop_key(c->dbid, key->p, key->len);
}

/* Tell the sinks that want it which keys the write cmd is about to change
 * (its key positions from the table), or that it changes whole databases. */
static void announce_keys(client *c, const cmd_def *cmd)
{
    if (!cmd_foreach_key(c, cmd, announce_key))
        prop_keyless(cmd->name);
}

void cmd_call(client *c, const cmd_def *cmd)
{
    uint64_t start;
    int64_t dur;
    cmd_stats *st;
    long long dirty = srv.dirty;
    uint64_t mark = prop_mark();
    uint64_t ostart = prop_on ? net_out_position(c) : 0;

    c->cmd = cmd;
    srv.current = c;
    in_call++;
    if ((cmd->flags & CMD_WRITE) && prop_wants_keys())
        announce_keys(c, cmd);
    /* MONITOR shows a command once it has run (SELECT with its new database,
     * EXEC after the commands it ran), except a script's (CMD_SKIP_MONITOR:
     * EVAL, FCALL), shown as it starts, before its commands, as Redis 7.0. */
    if (monitor_count > 0 && (cmd->flags & CMD_SKIP_MONITOR))
        monitor_feed_start(c, cmd);
    start = fast_ticks();
    cmd->proc(c);
    if (prop_on) {
        /* A write that changed the dataset and does not propagate its own
         * effect is propagated as typed; the reply waits for what was. */
        if ((cmd->flags & (CMD_WRITE | CMD_OWN_EFFECT)) == CMD_WRITE && srv.dirty != dirty)
            prop_argv(c->dbid, c->argc, c->argv);
        if (prop_mark() != mark) {
            c->aof_need = prop_mark();
            if (cmd->flags & (CMD_WRITE | CMD_OWN_EFFECT)) /* not a read that expired a key (EVAL: its writes) */
                net_note_logged_reply(c, ostart, c->aof_need);
        }
    }
    dur = fast_ticks_to_us(fast_ticks() - start);
    if (dur >= 1000)
        db_now = now_ms(); /* a slow command: later commands of the batch see the time move on */
    in_call--;
    if (monitor_count > 0)
        monitor_feed_call(c, cmd);
    if (c->trk) {
        tracking_after_read(c, cmd);
        if (in_call == 0)
            tracking_after_command(c, cmd);
    }
    if (blk_call_waits(c, dur))
        return; /* counted once, when the wait ends (blk_call_waits) */
    st = stats_of(cmd);
    if (st) {
        st->calls++;
        st->usec += dur;
    }
    srv.stat_commands++;
    c->cmds++;
    if (srv.cfg.slowlog_slower_than >= 0 && dur >= srv.cfg.slowlog_slower_than &&
        !(cmd->flags & CMD_SKIP_SLOWLOG))
        slowlog_push(c, dur);
}

/* ---- helpers for the command families ---- */

int arg_expire(client *c, int i, int seconds, int64_t base, int positive, int64_t *when)
{
    long long v;

    if (arg_ll(c, i, &v) < 0)
        return -1;
    if ((positive && v <= 0) || (seconds && (v > LLONG_MAX / 1000 || v < LLONG_MIN / 1000)))
        goto invalid;
    if (seconds)
        v *= 1000;
    if (v > LLONG_MAX - base)
        goto invalid;
    *when = v + base;
    return 0;

invalid:
    reply_errorf(c, "ERR invalid expire time in '%s' command", cmd_fullname(c->cmd));
    return -1;
}

int arg_ll(client *c, int i, long long *out)
{
    if (str_to_ll(c->argv[i].p, c->argv[i].len, out) < 0) {
        reply_error(c, ERR_NOTINT);
        return -1;
    }
    return 0;
}

/* ---- slow log ---- */

int cmd_arg_secret(int argc, const sarg *argv, int j)
{
    int i;

    if (j < 1 || j >= argc)
        return 0;
    if (str_eq_ci(argv[0].p, argv[0].len, "auth"))
        return 1;
    if (str_eq_ci(argv[0].p, argv[0].len, "acl"))
        return j >= 2 && str_eq_ci(argv[1].p, argv[1].len, "setuser");
    if (str_eq_ci(argv[0].p, argv[0].len, "config"))
        return j >= 3 && (j - 3) % 2 == 0 && str_eq_ci(argv[1].p, argv[1].len, "set") &&
               str_eq_ci(argv[j - 1].p, argv[j - 1].len, "requirepass");
    if (str_eq_ci(argv[0].p, argv[0].len, "hello")) {
        for (i = 2; i < argc; i++) {
            if (str_eq_ci(argv[i].p, argv[i].len, "auth") && i + 2 < argc) {
                if (j == i + 1 || j == i + 2)
                    return 1;
                i += 2;
            } else if (str_eq_ci(argv[i].p, argv[i].len, "setname")) {
                i++;
            }
        }
    }
    return 0;
}

static void slowlog_entry_free(slowlog_entry *e)
{
    int i;
    for (i = 0; i < e->argc; i++)
        xfree(e->argv[i].p);
    xfree(e->argv);
    xfree(e->peer);
    xfree(e->cname);
    memset(e, 0, sizeof(*e));
}

/* The slow log is an array, newest entry first; it holds at most
 * slowlog-max-len entries (small), so a push moves the others down by one. */
void slowlog_reset(void)
{
    int i;
    for (i = 0; i < srv.slowlog_len; i++)
        slowlog_entry_free(&srv.slowlog[i]);
    srv.slowlog_len = 0;
}

void slowlog_resize(void)
{
    int cap = srv.cfg.slowlog_max_len;

    while (srv.slowlog_len > cap)
        slowlog_entry_free(&srv.slowlog[--srv.slowlog_len]);
    srv.slowlog = xrealloc(srv.slowlog, sizeof(slowlog_entry) * (size_t)(cap > 0 ? cap : 1));
    srv.slowlog_cap = cap;
}

void slowlog_push(client *c, long long duration)
{
    slowlog_entry *e;
    int i, argc;

    if (srv.slowlog_cap != srv.cfg.slowlog_max_len)
        slowlog_resize();
    if (srv.slowlog_cap <= 0)
        return;
    if (srv.slowlog_len == srv.slowlog_cap)
        slowlog_entry_free(&srv.slowlog[--srv.slowlog_len]);
    memmove(&srv.slowlog[1], &srv.slowlog[0], sizeof(slowlog_entry) * (size_t)srv.slowlog_len);
    srv.slowlog_len++;
    e = &srv.slowlog[0];
    argc = c->argc > 32 ? 32 : c->argc;
    e->argv = xmalloc(sizeof(sarg) * (size_t)argc);
    for (i = 0; i < argc; i++) {
        char tmp[64];
        if (cmd_arg_secret(c->argc, c->argv, i)) {
            e->argv[i].p = xstrndup("(redacted)", 10);
            e->argv[i].len = 10;
        } else if (i == 31 && c->argc > 32) {
            int n = snprintf(tmp, sizeof(tmp), "... (%d more arguments)", c->argc - 31);
            e->argv[i].p = xstrndup(tmp, (size_t)n);
            e->argv[i].len = (size_t)n;
        } else if (c->argv[i].len > 128) {
            int n = snprintf(tmp, sizeof(tmp), "... (%zu more bytes)", c->argv[i].len - 128);
            e->argv[i].p = xmalloc(128 + (size_t)n + 1);
            memcpy(e->argv[i].p, c->argv[i].p, 128);
            memcpy(e->argv[i].p + 128, tmp, (size_t)n + 1);
            e->argv[i].len = 128 + (size_t)n;
        } else {
            e->argv[i].p = xstrndup(c->argv[i].p, c->argv[i].len);
            e->argv[i].len = c->argv[i].len;
        }
    }
    e->argc = argc;
    e->id = srv.slowlog_next_id++;
    e->time = now_ms() / 1000;
    e->duration = duration;
    e->peer = xstrdup(c->addr);
    e->cname = xstrdup(c->name ? c->name : "");
}

void cmd_client_release(client *c)
{
    blk_client_release(c);
    pause_release(c);
    multi_unwatch_all(c);
    multi_discard(c);
    ps_client_release(c);
    monitor_remove(c);
    tracking_client_release(c);
}

/* ---- the log's replay ---- */

static client *replay_client;

int cmd_replay(int dbid, int argc, sarg *argv)
{
    const cmd_def *cmd;
    client *c;

    if (!replay_client)
        replay_client = client_new_fake();
    c = replay_client;
    if (!(cmd = cmd_lookup_argv(argc, argv))) /* FUNCTION LOAD: the subcommand's row */
        return CMD_REPLAY_UNKNOWN;
    if (cmd->subcommands && argc >= 2) {
        /* A container's write subcommand (XGROUP CREATE, ...). */
        const cmd_def *sub;
        for (sub = cmd->subcommands; sub->name; sub++)
            if (str_eq_ci(argv[1].p, argv[1].len, sub->name))
                break;
        if (!sub->name)
            return CMD_REPLAY_UNKNOWN;
        cmd = sub;
    }
    if (!arity_ok(cmd, argc))
        return CMD_REPLAY_ARITY;
    if (!(cmd->flags & CMD_WRITE))
        return CMD_REPLAY_NOT_WRITE;
    c->argc = argc;
    c->argv = argv;
    c->db = &srv.dbs[dbid];
    c->dbid = dbid;
    c->cmd = c->lastcmd = cmd;
    srv.current = c;
    cmd->proc(c);
    c->argv = NULL;
    c->argc = 0;
    return CMD_REPLAY_OK;
}

void cmd_replay_end(void)
{
    if (replay_client) {
        client_free(replay_client);
        replay_client = NULL;
    }
}
