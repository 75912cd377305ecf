/* cmd_conn.c -- connection commands: PING, ECHO, QUIT, AUTH, HELLO, SELECT,
 * RESET and CLIENT. Replies and errors as Redis 7. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/acl.h"
#include "cmd/block.h"
#include "cmd/commands.h"
#include "core/mem.h"
#include "cmd/multi.h"
#include "cmd/monitor.h"
#include "cmd/pubsub.h"
#include "cmd/tracking.h"
#include "cmd/pause.h"
#include "net/net.h"
#include "net/reply.h"
#include "core/util.h"

static void cmd_ping(client *c)
{
    if (c->argc > 2) {
        reply_arity_error(c);
        return;
    }
    if ((c->flags & CLIENT_PUBSUB) && c->resp == 2) {
        /* Subscribed mode: a message-shaped reply, as Redis gives. */
        reply_array(c, 2);
        reply_bulk(c, "pong", 4);
        reply_bulk(c, c->argc == 2 ? c->argv[1].p : "", c->argc == 2 ? c->argv[1].len : 0);
    } else if (c->argc == 2)
        reply_bulk(c, c->argv[1].p, c->argv[1].len);
    else
        reply_raw(c, "+PONG\r\n", 7);
}

static void cmd_echo(client *c)
{
    reply_bulk(c, c->argv[1].p, c->argv[1].len);
}

static void cmd_quit(client *c)
{
    reply_ok(c);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* 0 if user (NULL: "default") and pass are right (cmd/acl.h), else -1
 * after replying. */
static int check_auth(client *c, const sarg *user, const sarg *pass)
{
    if (acl_authenticate(c, user, pass) < 0) {
        reply_error(c, "WRONGPASS invalid username-password pair or user is disabled.");
        return -1;
    }
    return 0;
}

static void cmd_auth(client *c)
{
    if (c->argc > 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (c->argc == 2 && acl_default_nopass()) {
        reply_error(c, "ERR AUTH <password> called without any password configured for the default user. "
                       "Are you sure your configuration is correct?");
        return;
    }
    if (check_auth(c, c->argc == 3 ? &c->argv[1] : NULL, &c->argv[c->argc - 1]) == 0)
        reply_ok(c);
}

static int valid_name(const sarg *a)
{
    size_t i;
    for (i = 0; i < a->len; i++)
        if (a->p[i] < '!' || a->p[i] > '~')
            return 0;
    return 1;
}

static int set_name(client *c, const sarg *a)
{
    if (!valid_name(a)) {
        reply_error(c, "ERR Client names cannot contain spaces, newlines or special characters.");
        return -1;
    }
    xfree(c->name);
    c->name = a->len ? xstrndup(a->p, a->len) : NULL;
    return 0;
}

static void cmd_hello(client *c)
{
    long long ver = c->resp;
    int i;

    if (c->argc >= 2) {
        if (str_to_ll(c->argv[1].p, c->argv[1].len, &ver) < 0) {
            reply_error(c, "ERR Protocol version is not an integer or out of range");
            return;
        }
        if (ver < 2 || ver > 3) {
            reply_error(c, "NOPROTO unsupported protocol version");
            return;
        }
    }
    for (i = 2; i < c->argc; i++) {
        int more = c->argc - i - 1;
        if (str_eq_ci(c->argv[i].p, c->argv[i].len, "auth") && more >= 2) {
            if (check_auth(c, &c->argv[i + 1], &c->argv[i + 2]) < 0)
                return;
            i += 2;
        } else if (str_eq_ci(c->argv[i].p, c->argv[i].len, "setname") && more >= 1) {
            if (!valid_name(&c->argv[i + 1])) {
                reply_error(c, "ERR Client names cannot contain spaces, newlines or special characters.");
                return;
            }
            i += 1;
        } else {
            reply_errorf(c, "ERR Syntax error in HELLO option '%s'", c->argv[i].p);
            return;
        }
    }
    if (acl_auth_required(c)) {
        reply_error(c, "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                       "HELLO AUTH <user> <pass> option can be used to authenticate the client and "
                       "select the RESP protocol version at the same time");
        return;
    }
    for (i = 2; i < c->argc; i++) {
        if (str_eq_ci(c->argv[i].p, c->argv[i].len, "setname")) {
            set_name(c, &c->argv[i + 1]);
            break;
        }
    }
    c->resp = (int)ver;
    reply_map(c, 7);
    reply_bulk_cstr(c, "server");
    reply_bulk_cstr(c, "redis");
    reply_bulk_cstr(c, "version");
    reply_bulk_cstr(c, SP_VERSION);
    reply_bulk_cstr(c, "proto");
    reply_int(c, c->resp);
    reply_bulk_cstr(c, "id");
    reply_int(c, (long long)c->id);
    reply_bulk_cstr(c, "mode");
    reply_bulk_cstr(c, "standalone");
    reply_bulk_cstr(c, "role");
    reply_bulk_cstr(c, "master");
    reply_bulk_cstr(c, "modules");
    reply_array(c, 0);
}

static void cmd_select(client *c)
{
    long long id;
    if (str_to_ll(c->argv[1].p, c->argv[1].len, &id) < 0) {
        reply_error(c, ERR_NOTINT);
        return;
    }
    if (id < 0 || id >= srv.cfg.databases) {
        reply_error(c, ERR_DBINDEX);
        return;
    }
    c->dbid = (int)id;
    c->db = &srv.dbs[id];
    reply_ok(c);
}

static void cmd_reset(client *c)
{
    multi_discard(c);
    multi_unwatch_all(c);
    ps_client_release(c);
    monitor_remove(c);
    tracking_client_release(c);
    c->dbid = 0;
    c->db = &srv.dbs[0];
    c->resp = 2;
    xfree(c->name);
    c->name = NULL;
    c->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_REPLY_SKIP_NEXT);
    acl_client_reset(c);
    reply_status(c, "RESET");
}

/* ---- CLIENT ---- */

static void client_id(client *c)
{
    reply_int(c, (long long)c->id);
}

static void client_setname(client *c)
{
    if (set_name(c, &c->argv[2]) == 0)
        reply_ok(c);
}

static void client_getname(client *c)
{
    if (c->name)
        reply_bulk_cstr(c, c->name);
    else
        reply_null(c);
}

static void client_info(client *c)
{
    size_t cap = client_describe_cap(c);
    char *buf = xmalloc(cap + 1);
    size_t n = client_describe(c, buf, cap);
    buf[n++] = '\n';
    reply_verbatim(c, buf, n);
    xfree(buf);
}

/* CLIENT LIST / KILL TYPE: the class of client_type (normal, pubsub, or
 * master/replica, of which none exist here), or -1 if unknown. */
enum { CTYPE_NORMAL, CTYPE_PUBSUB, CTYPE_REPLICA };

static int parse_client_type(const sarg *a)
{
    if (str_eq_ci(a->p, a->len, "normal"))
        return CTYPE_NORMAL;
    if (str_eq_ci(a->p, a->len, "pubsub"))
        return CTYPE_PUBSUB;
    if (str_eq_ci(a->p, a->len, "master") || str_eq_ci(a->p, a->len, "replica") || str_eq_ci(a->p, a->len, "slave"))
        return CTYPE_REPLICA;
    return -1;
}

static int client_type(const client *x)
{
    return (x->flags & CLIENT_PUBSUB) ? CTYPE_PUBSUB : CTYPE_NORMAL;
}

static void client_list(client *c)
{
    size_t cap = 4096, len = 0;
    char *out = xmalloc(cap);
    client *x;
    int i, ids = 0, type = -1;
    long long *idlist = NULL;

    for (i = 2; i < c->argc; i++) {
        if (str_eq_ci(c->argv[i].p, c->argv[i].len, "type") && i + 1 < c->argc) {
            type = parse_client_type(&c->argv[i + 1]);
            if (type < 0) {
                reply_errorf(c, "ERR Unknown client type '%s'", c->argv[i + 1].p);
                xfree(out);
                return;
            }
            i++;
        } else if (str_eq_ci(c->argv[i].p, c->argv[i].len, "id") && i + 1 < c->argc) {
            int j;
            idlist = xmalloc(sizeof(long long) * (size_t)(c->argc - i));
            for (j = i + 1; j < c->argc; j++) {
                if (str_to_ll(c->argv[j].p, c->argv[j].len, &idlist[ids]) < 0 || idlist[ids] <= 0) {
                    reply_error(c, "ERR Invalid client ID");
                    xfree(idlist);
                    xfree(out);
                    return;
                }
                ids++;
            }
            break;
        } else {
            reply_error(c, ERR_SYNTAX);
            xfree(out);
            return;
        }
    }
    for (x = srv.clients; x; x = x->next) {
        size_t n;
        if (x->flags & CLIENT_FAKE)
            continue;
        if (type >= 0 && client_type(x) != type)
            continue;
        if (ids) {
            int k, hit = 0;
            for (k = 0; k < ids; k++)
                if ((uint64_t)idlist[k] == x->id)
                    hit = 1;
            if (!hit)
                continue;
        }
        n = client_describe_cap(x);
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            out = xrealloc(out, cap);
        }
        n = client_describe(x, out + len, n);
        out[len + n] = '\n';
        len += n + 1;
    }
    reply_verbatim(c, out, len);
    xfree(out);
    xfree(idlist);
}

static void kill_client(client *c, client *x)
{
    if (x == c)
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    else
        client_close_async(x);
}

static void client_kill(client *c)
{
    client *x;
    long long killed = 0;
    int i, skipme = 1, type = -1;
    const char *addr = NULL, *laddr = NULL;
    const sarg *user = NULL;
    long long id = 0;

    if (c->argc == 3) {
        for (x = srv.clients; x; x = x->next) {
            if (!(x->flags & CLIENT_FAKE) && strcmp(x->addr, c->argv[2].p) == 0) {
                kill_client(c, x);
                reply_ok(c);
                return;
            }
        }
        reply_error(c, "ERR No such client");
        return;
    }
    if ((c->argc - 2) % 2 != 0) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    for (i = 2; i < c->argc; i += 2) {
        const sarg *k = &c->argv[i], *v = &c->argv[i + 1];
        if (str_eq_ci(k->p, k->len, "id")) {
            if (str_to_ll(v->p, v->len, &id) < 0 || id <= 0) {
                reply_error(c, "ERR client-id should be greater than 0");
                return;
            }
        } else if (str_eq_ci(k->p, k->len, "addr")) {
            addr = v->p;
        } else if (str_eq_ci(k->p, k->len, "laddr")) {
            laddr = v->p;
        } else if (str_eq_ci(k->p, k->len, "skipme")) {
            if (str_eq_ci(v->p, v->len, "yes"))
                skipme = 1;
            else if (str_eq_ci(v->p, v->len, "no"))
                skipme = 0;
            else {
                reply_error(c, ERR_SYNTAX);
                return;
            }
        } else if (str_eq_ci(k->p, k->len, "type")) {
            type = parse_client_type(v);
            if (type < 0) {
                reply_errorf(c, "ERR Unknown client type '%s'", v->p);
                return;
            }
        } else if (str_eq_ci(k->p, k->len, "user")) {
            if (!acl_user_exists(v->p, v->len)) {
                reply_errorf(c, "ERR No such user '%s'", v->p);
                return;
            }
            user = v;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    for (x = srv.clients; x; x = x->next) {
        if (x->flags & (CLIENT_FAKE | CLIENT_CLOSE_ASAP))
            continue;
        if (id && x->id != (uint64_t)id)
            continue;
        if (type >= 0 && client_type(x) != type)
            continue;
        if (addr && strcmp(x->addr, addr) != 0)
            continue;
        if (laddr && strcmp(x->laddr, laddr) != 0)
            continue;
        if (user && !acl_client_is(x, user->p, user->len))
            continue;
        if (x == c && skipme)
            continue;
        kill_client(c, x);
        killed++;
    }
    reply_int(c, killed);
}

/* CLIENT UNBLOCK id [TIMEOUT|ERROR]: wake a client blocked in a blocking
 * command (cmd/block.h); :1 if it was blocked, :0 otherwise. */
static void client_unblock(client *c)
{
    long long id;
    int error = 0;
    client *x;

    if (str_to_ll(c->argv[2].p, c->argv[2].len, &id) < 0) {
        reply_error(c, ERR_NOTINT);
        return;
    }
    if (c->argc == 4) {
        if (str_eq_ci(c->argv[3].p, c->argv[3].len, "error")) {
            error = 1;
        } else if (!str_eq_ci(c->argv[3].p, c->argv[3].len, "timeout")) {
            reply_error(c, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    for (x = srv.clients; x; x = x->next)
        if (x->id == (uint64_t)id && !(x->flags & CLIENT_FAKE))
            break;
    reply_int(c, x && blk_unblock(x, error));
}

/* CLIENT PAUSE timeout [WRITE|ALL]: the mode is checked before the timeout,
 * as in Redis; the timeout is ms from now (a sum past the clock's range wraps,
 * as Redis's does, and the pause is then over at once). */
static void client_pause(client *c)
{
    long long ms;
    int mode = PAUSE_ALL;

    if (c->argc == 4) {
        if (str_eq_ci(c->argv[3].p, c->argv[3].len, "write"))
            mode = PAUSE_WRITE;
        else if (!str_eq_ci(c->argv[3].p, c->argv[3].len, "all")) {
            reply_error(c, "ERR CLIENT PAUSE mode must be WRITE or ALL");
            return;
        }
    } else if (c->argc != 3) {
        reply_subcommand_syntax(c);
        return;
    }
    if (str_to_ll(c->argv[2].p, c->argv[2].len, &ms) < 0) {
        reply_error(c, "ERR timeout is not an integer or out of range");
        return;
    }
    if (ms < 0) {
        reply_error(c, "ERR timeout is negative");
        return;
    }
    pause_start(mode, (int64_t)((uint64_t)now_ms() + (uint64_t)ms));
    reply_ok(c);
}

static void client_unpause(client *c)
{
    pause_end();
    reply_ok(c);
}

/* CLIENT NO-EVICT ON|OFF: the flag CLIENT LIST shows ("e"). Scratchpad has no
 * client eviction (maxmemory-clients), so it protects from nothing else. */
static void client_no_evict(client *c)
{
    const sarg *m = &c->argv[2];
    if (str_eq_ci(m->p, m->len, "on"))
        c->flags |= CLIENT_NO_EVICT;
    else if (str_eq_ci(m->p, m->len, "off"))
        c->flags &= ~CLIENT_NO_EVICT;
    else {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    reply_ok(c);
}

static void client_setinfo(client *c)
{
    const sarg *attr = &c->argv[2], *val = &c->argv[3];
    char **field;

    if (str_eq_ci(attr->p, attr->len, "lib-name"))
        field = &c->lib_name;
    else if (str_eq_ci(attr->p, attr->len, "lib-ver"))
        field = &c->lib_ver;
    else {
        reply_errorf(c, "ERR Unrecognized option '%s'", attr->p);
        return;
    }
    if (!valid_name(val)) {
        reply_errorf(c, "ERR %s cannot contain spaces, newlines or special characters.", attr->p);
        return;
    }
    xfree(*field);
    *field = val->len ? xstrndup(val->p, val->len) : NULL;
    reply_ok(c);
}

static void client_reply(client *c)
{
    const sarg *m = &c->argv[2];
    if (str_eq_ci(m->p, m->len, "on")) {
        c->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_REPLY_SKIP_NEXT);
        reply_ok(c);
    } else if (str_eq_ci(m->p, m->len, "off")) {
        c->flags |= CLIENT_REPLY_OFF;
    } else if (str_eq_ci(m->p, m->len, "skip")) {
        if (!(c->flags & CLIENT_REPLY_OFF))
            c->flags |= CLIENT_REPLY_SKIP_NEXT;
    } else {
        reply_error(c, ERR_SYNTAX);
    }
}

static void client_help(client *c)
{
    static const char *const lines[] = {
        "CACHING (YES|NO)",
        "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR",
        "    Return the client ID we are redirecting to when tracking is enabled.",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "    * ID <client-id>",
        "      Kill connections by client id.",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "    * ID <client-id> [<client-id> ...]",
        "      Return clients of specified IDs only.",
        "UNPAUSE",
        "    Stop the current client pause, resuming traffic.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "SETINFO <option> <value>",
        "    Set client meta attr. Options are:",
        "    * LIB-NAME: the client lib name.",
        "    * LIB-VER: the client lib version.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "TRACKINGINFO",
        "    Report tracking status for the current connection.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction.",
        NULL,
    };
    reply_help(c, lines);
}

/* clang-format off */
static const cmd_def client_subcommands[] = {
    {.name = "id", .proc = client_id, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Returns the unique client ID of the connection.", .since = "5.0.0",
     .complexity = "O(1)", .acl = "slow connection"},
    {.name = "setname", .proc = client_setname, .arity = 3, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Sets the connection name.", .since = "2.6.9", .complexity = "O(1)",
     .acl = "slow connection"},
    {.name = "getname", .proc = client_getname, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Returns the name of the connection.", .since = "2.6.9", .complexity = "O(1)",
     .acl = "slow connection"},
    {.name = "list", .proc = client_list, .arity = -2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Lists open connections.", .since = "2.4.0",
     .complexity = "O(N) where N is the number of client connections", .acl = "admin slow dangerous connection",
     .tips = "nondeterministic_output"},
    {.name = "info", .proc = client_info, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Returns information about the connection.", .since = "6.2.0",
     .complexity = "O(1)", .acl = "slow connection", .tips = "nondeterministic_output"},
    {.name = "kill", .proc = client_kill, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Terminates open connections.", .since = "2.4.0",
     .complexity = "O(N) where N is the number of client connections", .acl = "admin slow dangerous connection"},
    {.name = "unblock", .proc = client_unblock, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Unblock a client blocked in a blocking command from a different connection",
     .since = "5.0.0", .complexity = "O(log N) where N is the number of client connections",
     .acl = "admin slow dangerous connection"},
    {.name = "setinfo", .proc = client_setinfo, .arity = 4, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Sets information specific to the client or connection.", .since = "7.2.0",
     .complexity = "O(1)", .acl = "slow connection"},
    {.name = "reply", .proc = client_reply, .arity = 3, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Instructs the server whether to reply to commands.", .since = "3.2.0",
     .complexity = "O(1)", .acl = "slow connection"},
    {.name = "tracking", .proc = client_tracking, .arity = -3, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Enable or disable server assisted client side caching support",
     .since = "6.0.0", .complexity = "O(1). Some options may introduce additional complexity.",
     .acl = "slow connection"},
    {.name = "caching", .proc = client_caching, .arity = 3, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Instruct the server about tracking or not keys in the next request",
     .since = "6.0.0", .complexity = "O(1)", .acl = "slow connection"},
    {.name = "trackinginfo", .proc = client_trackinginfo, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection",
     .summary = "Return information about server assisted client side caching for the current connection",
     .since = "6.2.0", .complexity = "O(1)", .acl = "slow connection"},
    {.name = "getredir", .proc = client_getredir, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Get tracking notifications redirection client ID if any", .since = "6.0.0",
     .complexity = "O(1)", .acl = "slow connection"},
    {.name = "pause", .proc = client_pause, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Stop processing commands from clients for some time", .since = "2.9.50",
     .complexity = "O(1)", .acl = "admin slow dangerous connection"},
    {.name = "unpause", .proc = client_unpause, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Resume processing of clients that were paused", .since = "6.2.0",
     .complexity = "O(N) Where N is the number of paused clients", .acl = "admin slow dangerous connection"},
    {.name = "no-evict", .proc = client_no_evict, .arity = 3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Set client eviction mode for the current connection", .since = "7.0.0",
     .complexity = "O(1)", .acl = "admin slow dangerous connection"},
    {.name = "help", .proc = client_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "connection",
     .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0", .complexity = "O(1)",
     .acl = "slow connection"},
    {0},
};
/* clang-format on */

#define CONN_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST)
/* clang-format off */
const cmd_def cmd_table_conn[] = {
    {.name = "ping", .proc = cmd_ping, .arity = -1, .flags = CMD_FAST | CMD_SENTINEL, .group = "connection",
     .summary = "Returns the server's liveliness response.", .since = "1.0.0", .complexity = "O(1)",
     .acl = "fast connection", .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "echo", .proc = cmd_echo, .arity = 2, .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .group = "connection", .summary = "Returns the given string.", .since = "1.0.0", .complexity = "O(1)",
     .acl = "fast connection"},
    {.name = "quit", .proc = cmd_quit, .arity = -1,
     .flags = CMD_ALLOW_BUSY | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH,
     .group = "connection", .summary = "Closes the connection.", .since = "1.0.0", .complexity = "O(1)",
     .acl = "fast connection"},
    {.name = "auth", .proc = cmd_auth, .arity = -2,
     .flags = CONN_FLAGS | CMD_NO_AUTH | CMD_SENTINEL | CMD_ALLOW_BUSY, .group = "connection",
     .summary = "Authenticates the connection.", .since = "1.0.0",
     .complexity = "O(N) where N is the number of passwords defined for the user", .acl = "fast connection"},
    {.name = "hello", .proc = cmd_hello, .arity = -1,
     .flags = CONN_FLAGS | CMD_NO_AUTH | CMD_SENTINEL | CMD_ALLOW_BUSY, .group = "connection",
     .summary = "Handshakes with the Redis server.", .since = "6.0.0", .complexity = "O(1)",
     .acl = "fast connection"},
    {.name = "select", .proc = cmd_select, .arity = 2, .flags = CMD_LOADING | CMD_STALE | CMD_FAST,
     .group = "connection", .summary = "Changes the selected database.", .since = "1.0.0", .complexity = "O(1)",
     .acl = "fast connection"},
    {.name = "reset", .proc = cmd_reset, .arity = 1, .flags = CONN_FLAGS | CMD_NO_AUTH | CMD_ALLOW_BUSY,
     .group = "connection", .summary = "Resets the connection.", .since = "6.2.0", .complexity = "O(1)",
     .acl = "fast connection"},
    {.name = "client", .proc = cmd_container, .arity = -2, .flags = CMD_SENTINEL, .group = "connection",
     .summary = "A container for client connection commands.", .since = "2.4.0",
     .complexity = "Depends on subcommand.", .acl = "slow", .subcommands = client_subcommands},
    {0},
};
/* clang-format on */
