/* script.c -- the Lua engine (see script.h).
 *
 * Invariants: two Lua states (LE, LF), one script client (sc), at most one script
 * running (run.active). Every Lua value a reply becomes is built from the
 * script client's output, which is emptied after each command; nothing of
 * the keyspace is ever held across a Lua call. A C function called from Lua
 * that may raise (lua_error longjmps) holds no allocation at that point: the
 * arguments of redis.call live in buffers owned by this module. */
#include "script/script.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <math.h>
#include <nettle/sha1.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/acl.h"
#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "core/mem.h"
#include "core/util.h"
#include "log.h"
#include "net/net.h"
#include "net/reply.h"
#include "script/lualibs.h"

#define HOOK_INSTRUCTIONS 100000 /* Lua instructions between two calls of the busy hook */
#define ERR_BUSY_EVAL "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
#define ERR_BUSY_FUNCTION "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."

static int gc_runs;   /* scripts run since the last collector step */
static lua_State *LE; /* EVAL scripts */
static lua_State *LF; /* libraries of functions (FUNCTION LOAD) */
static client *sc;    /* the script client: commands of scripts run on it */

/* The running script. */
static struct {
    int active;
    client *caller;
    const char *shown; /* sha1 or function name, for errors */
    int is_function;
    int flags; /* SCRIPT_* */
    int ro;    /* write commands refused */
    int wrote; /* a write command ran */
    int resp;  /* redis.setresp: 2 or 3 */
    int64_t start_ms;
    int timedout; /* past busy-reply-threshold: the loop serves others */
    int kill;     /* 1 SCRIPT/FUNCTION KILL, 2 SHUTDOWN NOSAVE */
} run;

/* Arguments of redis.call: owned buffers reused from call to call. */
static sarg *cargv;
static size_t *ccap;
static int cargc_cap;

/* ---- Redis's rand48 (math.random): the 48-bit linear congruential
 * generator of drand48, state seeded as drand48's default, continued from
 * script to script as Redis 7.0 does. ---- */

static uint64_t rand48_x = 0x1234ABCD330EULL;

static int32_t rand48_next(void)
{
    rand48_x = (rand48_x * 0x5DEECE66DULL + 0xB) & 0xFFFFFFFFFFFFULL;
    return (int32_t)(rand48_x >> 17);
}

static int l_math_random(lua_State *l)
{
    double r = (double)(rand48_next() % 2147483647) / 2147483647.0;

    switch (lua_gettop(l)) {
    case 0:
        lua_pushnumber(l, r);
        break;
    case 1: {
        int u = luaL_checkint(l, 1);
        luaL_argcheck(l, 1 <= u, 1, "interval is empty");
        lua_pushnumber(l, floor(r * u) + 1);
        break;
    }
    case 2: {
        int lo = luaL_checkint(l, 1), up = luaL_checkint(l, 2);
        luaL_argcheck(l, lo <= up, 2, "interval is empty");
        lua_pushnumber(l, floor(r * (up - lo + 1)) + lo);
        break;
    }
    default:
        return luaL_error(l, "wrong number of arguments");
    }
    return 1;
}

static int l_math_randomseed(lua_State *l)
{
    rand48_x = ((uint64_t)(uint32_t)luaL_checkint(l, 1) << 16) | 0x330E;
    return 0;
}

/* ---- errors ---- */

/* Raise the error table {err = "<code> <msg>"} from text as Redis's
 * error_reply words it: "-CODE msg" keeps its code, plain text gets ERR;
 * trailing CR/LF dropped. */
static void push_error_table(lua_State *l, const char *text, size_t n)
{
    luaL_Buffer b;
    const char *sp;

    while (n > 0 && (text[n - 1] == '\r' || text[n - 1] == '\n'))
        n--;
    lua_newtable(l);
    lua_pushliteral(l, "err");
    luaL_buffinit(l, &b);
    if (n > 0 && text[0] == '-') {
        sp = memchr(text, ' ', n);
        if (!sp) {
            luaL_addstring(&b, "ERR ");
            luaL_addlstring(&b, text + 1, n - 1);
        } else {
            luaL_addlstring(&b, text + 1, (size_t)(sp - text - 1));
            luaL_addchar(&b, ' ');
            luaL_addlstring(&b, sp + 1, n - (size_t)(sp + 1 - text));
        }
    } else {
        luaL_addstring(&b, "ERR ");
        luaL_addlstring(&b, text, n);
    }
    luaL_pushresult(&b);
    lua_rawset(l, -3);
}

static int raise_err(lua_State *l, const char *msg);

/* Mark the error table at the top as already counted by INFO errorstats
 * (Redis's field for it, visible to scripts too). */
static void mark_counted(lua_State *l)
{
    lua_pushliteral(l, "ignore_error_stats_update");
    lua_pushboolean(l, 1);
    lua_rawset(l, -3);
}

/* The error handler of every script call: the error becomes a table {err,
 * source, line}; a string error gets "ERR " before it; source and line are
 * those of the Lua code that raised it (past a C function such as
 * redis.call or error). */
static int l_err_handler(lua_State *l)
{
    lua_Debug ar;
    int have = 0;

    if (lua_getstack(l, 1, &ar) && lua_getinfo(l, "Sl", &ar)) {
        have = 1;
        if (strcmp(ar.what, "C") == 0)
            have = lua_getstack(l, 2, &ar) && lua_getinfo(l, "Sl", &ar);
    }
    if (!lua_istable(l, 1)) {
        /* "ERR " .. tostring(err), with the real globals' tostring (a
         * library's load sees none) */
        lua_getfield(l, LUA_REGISTRYINDEX, "sp_globals");
        lua_pushliteral(l, "tostring");
        lua_rawget(l, -2);
        lua_remove(l, -2);
        lua_pushvalue(l, 1);
        lua_call(l, 1, 1);
        lua_pushfstring(l, "ERR %s", lua_tostring(l, -1));
        lua_newtable(l);
        lua_pushliteral(l, "err");
        lua_pushvalue(l, -3);
        lua_rawset(l, -3);
        lua_replace(l, 1);
        lua_settop(l, 1);
    }
    if (have) {
        lua_pushliteral(l, "source");
        lua_pushstring(l, ar.source);
        lua_rawset(l, 1);
        lua_pushliteral(l, "line");
        lua_pushinteger(l, ar.currentline);
        lua_rawset(l, 1);
    }
    lua_settop(l, 1);
    return 1;
}

/* ---- the sandbox: read-only tables ----
 * A protected table is an empty proxy whose metatable reads through to the
 * real table and refuses every write; rawset/rawget know the proxies. The
 * registry's "sp_proxies" (weak keys) maps a proxy to its table. */

static int l_readonly_newindex(lua_State *l)
{
    luaL_where(l, 1);
    lua_pushliteral(l, "Attempt to modify a readonly table");
    lua_concat(l, 2);
    return lua_error(l);
}

static int l_global_missing(lua_State *l)
{
    const char *name = lua_tostring(l, 2);
    luaL_where(l, 1);
    lua_pushfstring(l, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
    lua_concat(l, 2);
    return lua_error(l);
}

/* The table a proxy stands for (pushed), or the value itself. */
static void push_target(lua_State *l, int idx)
{
    lua_getfield(l, LUA_REGISTRYINDEX, "sp_proxies");
    lua_pushvalue(l, idx);
    lua_rawget(l, -2);
    lua_remove(l, -2);
    if (lua_isnil(l, -1)) {
        lua_pop(l, 1);
        lua_pushvalue(l, idx);
    }
}

static int is_proxy(lua_State *l, int idx)
{
    int r;
    lua_getfield(l, LUA_REGISTRYINDEX, "sp_proxies");
    lua_pushvalue(l, idx);
    lua_rawget(l, -2);
    r = !lua_isnil(l, -1);
    lua_pop(l, 2);
    return r;
}

static int l_rawset(lua_State *l)
{
    luaL_checktype(l, 1, LUA_TTABLE);
    luaL_checkany(l, 2);
    luaL_checkany(l, 3);
    if (is_proxy(l, 1)) {
        lua_pushliteral(l, "Attempt to modify a readonly table");
        return lua_error(l);
    }
    lua_settop(l, 3);
    lua_rawset(l, 1);
    return 1;
}

/* setmetatable, refusing the read-only proxies as Redis refuses its
 * read-only tables (the original is the upvalue). */
static int l_setmetatable(lua_State *l)
{
    if (lua_istable(l, 1) && is_proxy(l, 1)) {
        lua_pushliteral(l, "Attempt to modify a readonly table");
        return lua_error(l);
    }
    lua_pushvalue(l, lua_upvalueindex(1));
    lua_insert(l, 1);
    lua_call(l, lua_gettop(l) - 1, LUA_MULTRET);
    return lua_gettop(l);
}

/* pcall as Redis 7.0 has it: an error table with an err field is caught as
 * that string (redis.call's errors, error({err=...})). */
static int l_lua_pcall(lua_State *l)
{
    int status;

    luaL_checkany(l, 1);
    status = lua_pcall(l, lua_gettop(l) - 1, LUA_MULTRET, 0);
    if (status != 0) {
        if (lua_istable(l, -1)) {
            lua_getfield(l, -1, "err");
            if (lua_isstring(l, -1))
                lua_replace(l, -2);
            else
                lua_pop(l, 1);
        }
        lua_pushboolean(l, 0);
        lua_insert(l, -2);
        return 2;
    }
    lua_pushboolean(l, 1);
    lua_insert(l, 1);
    return lua_gettop(l);
}

static int l_rawget(lua_State *l)
{
    luaL_checktype(l, 1, LUA_TTABLE);
    luaL_checkany(l, 2);
    push_target(l, 1);
    lua_pushvalue(l, 2);
    lua_rawget(l, -2);
    return 1;
}

/* Replace the table at the top of the stack by a read-only proxy of it. */
static void make_readonly(lua_State *l)
{
    int t = lua_gettop(l);

    lua_newtable(l); /* the proxy */
    lua_newtable(l); /* its metatable */
    lua_pushvalue(l, t);
    lua_setfield(l, -2, "__index");
    lua_pushcfunction(l, l_readonly_newindex);
    lua_setfield(l, -2, "__newindex");
    lua_pushboolean(l, 0);
    lua_setfield(l, -2, "__metatable");
    lua_setmetatable(l, -2);
    lua_getfield(l, LUA_REGISTRYINDEX, "sp_proxies");
    lua_pushvalue(l, -2);
    lua_pushvalue(l, t);
    lua_rawset(l, -3);
    lua_pop(l, 1);
    lua_replace(l, t);
}

/* ---- replies to Lua values ---- */

static const char *line_end(const char *p, const char *end)
{
    const char *q = memchr(p, '\r', (size_t)(end - p));
    return q ? q : end;
}

static long long hdr_num(const char *p, const char *e)
{
    long long v = 0;
    str_to_ll(p, (size_t)(e - p), &v);
    return v;
}

/* Push the Lua value of the reply at p (well formed: the server wrote it);
 * return the position after it. RESP2: integer number, bulk string (nil:
 * false), status {ok=}, error {err=}, array table (nil: false). RESP3 adds
 * map {map={k=v}}, set {set={m=true}}, null nil, double {double=n}, boolean,
 * big number {big_number=s}, verbatim {verbatim_string={format=, string=}};
 * attributes are skipped. */
static const char *reply_to_lua(lua_State *l, const char *p, const char *end)
{
    const char *e = line_end(p + 1, end);
    long long n;
    long long i;

    lua_checkstack(l, 8);
    switch (p[0]) {
    case ':':
        lua_pushnumber(l, (lua_Number)hdr_num(p + 1, e));
        return e + 2;
    case '$':
        n = hdr_num(p + 1, e);
        if (n < 0) {
            lua_pushboolean(l, 0);
            return e + 2;
        }
        lua_pushlstring(l, e + 2, (size_t)n);
        return e + 2 + n + 2;
    case '+':
        lua_newtable(l);
        lua_pushliteral(l, "ok");
        lua_pushlstring(l, p + 1, (size_t)(e - p - 1));
        lua_rawset(l, -3);
        return e + 2;
    case '-':
        push_error_table(l, p, (size_t)(e - p));
        mark_counted(l);
        return e + 2;
    case '*':
    case '>':
        n = hdr_num(p + 1, e);
        p = e + 2;
        if (n < 0) {
            lua_pushboolean(l, 0);
            return p;
        }
        lua_createtable(l, (int)n, 0);
        for (i = 1; i <= n; i++) {
            p = reply_to_lua(l, p, end);
            lua_rawseti(l, -2, (int)i);
        }
        return p;
    case '%':
    case '~': {
        int is_map = p[0] == '%';
        n = hdr_num(p + 1, e);
        p = e + 2;
        lua_newtable(l);
        lua_pushstring(l, is_map ? "map" : "set");
        lua_newtable(l);
        for (i = 0; i < n; i++) {
            p = reply_to_lua(l, p, end);
            if (is_map)
                p = reply_to_lua(l, p, end);
            else
                lua_pushboolean(l, 1);
            lua_rawset(l, -3);
        }
        lua_rawset(l, -3);
        return p;
    }
    case '|': /* an attribute: skipped, the value follows */
        n = hdr_num(p + 1, e);
        p = e + 2;
        for (i = 0; i < 2 * n; i++) {
            p = reply_to_lua(l, p, end);
            lua_pop(l, 1);
        }
        return reply_to_lua(l, p, end);
    case '_':
        lua_pushnil(l);
        return e + 2;
    case ',': {
        char tmp[64];
        size_t k = (size_t)(e - p - 1) < sizeof(tmp) - 1 ? (size_t)(e - p - 1) : sizeof(tmp) - 1;
        memcpy(tmp, p + 1, k);
        tmp[k] = '\0';
        lua_newtable(l);
        lua_pushliteral(l, "double");
        lua_pushnumber(l, strtod(tmp, NULL));
        lua_rawset(l, -3);
        return e + 2;
    }
    case '#':
        lua_pushboolean(l, p[1] == 't');
        return e + 2;
    case '(':
        lua_newtable(l);
        lua_pushliteral(l, "big_number");
        lua_pushlstring(l, p + 1, (size_t)(e - p - 1));
        lua_rawset(l, -3);
        return e + 2;
    case '=':
        n = hdr_num(p + 1, e);
        p = e + 2;
        lua_newtable(l);
        lua_pushliteral(l, "verbatim_string");
        lua_newtable(l);
        lua_pushliteral(l, "format");
        lua_pushlstring(l, p, 3);
        lua_rawset(l, -3);
        lua_pushliteral(l, "string");
        lua_pushlstring(l, p + 4, (size_t)(n - 4));
        lua_rawset(l, -3);
        lua_rawset(l, -3);
        return p + n + 2;
    default:
        lua_pushnil(l);
        return end;
    }
}

/* ---- Lua values to replies ---- */

static void reply_mapped(client *c, const char *p, size_t n, int status)
{
    char *s = xmalloc(n + 1);
    size_t i;
    for (i = 0; i < n; i++)
        s[i] = (p[i] == '\r' || p[i] == '\n') ? ' ' : p[i];
    s[n] = '\0';
    if (status)
        reply_status(c, s);
    else {
        /* a big number: RESP3 '(', else a bulk string */
        if (c->resp >= 3) {
            reply_raw(c, "(", 1);
            reply_raw(c, s, n);
            reply_raw(c, "\r\n", 2);
        } else
            reply_bulk(c, s, n);
    }
    xfree(s);
}

/* Reply the error of a script: text is "<code> <msg>" (from an {err=...}
 * table); with source and line, Redis's " script: <name>, on <source>:<line>."
 * follows. */
static void reply_script_error(client *c, const char *text, const char *source, long line, int counted)
{
    size_t n = strlen(text);
    char *s;

    while (n > 0 && (text[n - 1] == '\r' || text[n - 1] == '\n'))
        n--;
    s = xmalloc(n + strlen(run.shown) + (source ? strlen(source) : 0) + 64);
    memcpy(s, text, n);
    s[n] = '\0';
    if (source)
        sprintf(s + n, " script: %s, on %s:%ld.", run.shown, source, line);
    if (s[0] == '\0' || s[0] == ' ')
        reply_errorf(c, "ERR%s", s);
    else if (counted)
        reply_error_uncounted(c, s);
    else
        reply_error(c, s);
    xfree(s);
}

/* t[name] of the table at the top, pushed, if it has the Lua type type: 1;
 * else nothing is left pushed: 0. */
static int table_field(lua_State *l, const char *name, int type)
{
    lua_pushstring(l, name);
    lua_rawget(l, -2);
    if (lua_type(l, -1) == type)
        return 1;
    lua_pop(l, 1);
    return 0;
}

/* Reply the Lua value at the top of the stack to c, and pop it. */
static void lua_to_reply(client *c, lua_State *l)
{
    int t = lua_type(l, -1);

    if (!lua_checkstack(l, 8)) { /* a table nested in itself: as deep as the stack goes, then this error */
        reply_error(c, "ERR reached lua stack limit");
        lua_pop(l, 1);
        return;
    }
    switch (t) {
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(l, -1, &n);
        reply_bulk(c, s, n);
        break;
    }
    case LUA_TBOOLEAN:
        if (run.resp == 2) {
            if (lua_toboolean(l, -1))
                reply_int(c, 1);
            else
                reply_null(c);
        } else
            reply_bool(c, lua_toboolean(l, -1));
        break;
    case LUA_TNUMBER: /* out of range (1e300, inf, nan): LLONG_MIN, as redis-server */
        reply_int(c, dbl_to_ll_x86(lua_tonumber(l, -1)));
        break;
    case LUA_TTABLE: {
        void *slot;
        long n;
        int j;

        if (table_field(l, "err", LUA_TSTRING)) {
            int counted;
            lua_pushliteral(l, "ignore_error_stats_update");
            lua_rawget(l, -3);
            counted = lua_toboolean(l, -1);
            lua_pop(l, 1);
            reply_script_error(c, lua_tostring(l, -1), NULL, 0, counted);
            lua_pop(l, 2);
            return;
        }
        if (table_field(l, "ok", LUA_TSTRING)) {
            size_t k;
            const char *s = lua_tolstring(l, -1, &k);
            reply_mapped(c, s, k, 1);
            lua_pop(l, 2);
            return;
        }
        if (table_field(l, "double", LUA_TNUMBER)) {
            reply_double(c, lua_tonumber(l, -1));
            lua_pop(l, 2);
            return;
        }
        if (table_field(l, "big_number", LUA_TSTRING)) {
            size_t k;
            const char *s = lua_tolstring(l, -1, &k);
            reply_mapped(c, s, k, 0);
            lua_pop(l, 2);
            return;
        }
        if (table_field(l, "verbatim_string", LUA_TTABLE)) {
            lua_getfield(l, -1, "format");
            lua_getfield(l, -2, "string");
            if (lua_type(l, -2) == LUA_TSTRING && lua_type(l, -1) == LUA_TSTRING) {
                size_t fk, k;
                const char *f = lua_tolstring(l, -2, &fk);
                const char *s = lua_tolstring(l, -1, &k);
                if (c->resp >= 3) {
                    char hdr[32];
                    int h = snprintf(hdr, sizeof(hdr), "=%zu\r\n", k + 4);
                    reply_raw(c, hdr, (size_t)h);
                    reply_raw(c, f, fk < 3 ? fk : 3);
                    reply_raw(c, "   ", fk < 3 ? 3 - fk : 0);
                    reply_raw(c, ":", 1);
                    reply_raw(c, s, k);
                    reply_raw(c, "\r\n", 2);
                } else
                    reply_bulk(c, s, k);
                lua_pop(l, 4);
                return;
            }
            lua_pop(l, 3);
        }
        if (table_field(l, "map", LUA_TTABLE)) {
            slot = reply_defer(c);
            n = 0;
            lua_pushnil(l);
            while (lua_next(l, -2)) {
                lua_pushvalue(l, -2); /* table, key, value, key: the key first, the value next */
                lua_to_reply(c, l);
                lua_to_reply(c, l);
                n++;
            }
            reply_defer_map(c, slot, n);
            lua_pop(l, 2);
            return;
        }
        if (table_field(l, "set", LUA_TTABLE)) {
            slot = reply_defer(c);
            n = 0;
            lua_pushnil(l);
            while (lua_next(l, -2)) {
                lua_pop(l, 1);
                lua_pushvalue(l, -1);
                lua_to_reply(c, l);
                n++;
            }
            reply_defer_set(c, slot, n);
            lua_pop(l, 2);
            return;
        }
        slot = reply_defer(c);
        for (j = 1;; j++) {
            lua_rawgeti(l, -1, j);
            if (lua_isnil(l, -1)) {
                lua_pop(l, 1);
                break;
            }
            lua_to_reply(c, l);
        }
        reply_defer_array(c, slot, j - 1);
        break;
    }
    default:
        reply_null(c);
        break;
    }
    lua_pop(l, 1);
}

/* ---- redis.call and redis.pcall ---- */

/* Copy the Lua arguments 1..argc into cargv (numbers as "%.17g"). 0, or -1
 * with the error table pushed. */
static int collect_args(lua_State *l, int argc)
{
    int i;

    if (argc == 0) {
        push_error_table(l, "Please specify at least one argument for this redis lib call", 60);
        return -1;
    }
    if (argc > cargc_cap) {
        int cap = argc > 2 * cargc_cap ? argc : 2 * cargc_cap;
        cargv = xrealloc(cargv, sizeof(sarg) * (size_t)cap);
        ccap = xrealloc(ccap, sizeof(size_t) * (size_t)cap);
        for (i = cargc_cap; i < cap; i++) {
            cargv[i].p = NULL;
            ccap[i] = 0;
        }
        cargc_cap = cap;
    }
    for (i = 0; i < argc; i++) {
        char num[64];
        const char *s;
        size_t n;
        int t = lua_type(l, i + 1);

        if (t == LUA_TNUMBER) {
            n = (size_t)snprintf(num, sizeof(num), "%.17g", (double)lua_tonumber(l, i + 1));
            s = num;
        } else if (t == LUA_TSTRING) {
            s = lua_tolstring(l, i + 1, &n);
        } else {
            static const char msg[] = "Lua redis lib command arguments must be strings or integers";
            push_error_table(l, msg, sizeof(msg) - 1);
            return -1;
        }
        if (ccap[i] < n + 1) {
            ccap[i] = n + 1 < 32 ? 32 : n + 1;
            cargv[i].p = xrealloc(cargv[i].p, ccap[i]);
        }
        memcpy(cargv[i].p, s, n);
        cargv[i].p[n] = '\0';
        cargv[i].len = n;
    }
    return 0;
}

/* Drop the argument buffers grown past 4 KB (a large SET inside a script). */
static void trim_args(int argc)
{
    int i;
    for (i = 0; i < argc; i++)
        if (ccap[i] > 4096) {
            xfree(cargv[i].p);
            cargv[i].p = NULL;
            ccap[i] = 0;
        }
}

static int over_maxmemory(void)
{
    return srv.cfg.maxmemory > 0 && mem_used() > (size_t)srv.cfg.maxmemory;
}

/* The checks Redis 7.0 makes before a script's command; NULL if it may run,
 * else the error reply ("-CODE message"). */
static const char *refuse(const cmd_def *cmd, int argc)
{
    static char misconf[256];
    const char *why;

    if (!cmd)
        return "-ERR Unknown Redis command called from script";
    if (cmd->arity > 0 ? argc != cmd->arity : argc < -cmd->arity)
        return "-ERR Wrong number of args calling Redis command from script";
    if (cmd->flags & CMD_NOSCRIPT)
        return "-ERR This Redis command is not allowed from script";
    /* The script's commands run as the user who called it. */
    if ((why = acl_check_script(sc, run.caller, cmd, argc, cargv)) != NULL)
        return why;
    if (cmd->flags & CMD_WRITE) {
        if (run.ro)
            return "-ERR Write commands are not allowed from read-only scripts.";
        if ((why = prop_refusing()) != NULL) {
            snprintf(misconf, sizeof(misconf), "-MISCONF Errors writing to the AOF file: %s", why);
            return misconf;
        }
    }
    /* Past maxmemory a command that may grow the dataset is refused as
     * long as the script has not written (after a write, it must finish),
     * unless the script says allow-oom. */
    if ((cmd->flags & CMD_DENYOOM) && !(run.flags & SCRIPT_ALLOW_OOM) && !run.wrote && over_maxmemory())
        return "-OOM command not allowed when used memory > 'maxmemory'.";
    return NULL;
}

static int generic_call(lua_State *l, int raise)
{
    int argc = lua_gettop(l);
    const cmd_def *cmd;
    const char *why;
    client *saved = srv.current;
    char *out;
    size_t olen;
    int is_err;
    int64_t now;

    if (collect_args(l, argc) < 0)
        goto failed;
    cmd = cmd_lookup_argv(argc, cargv);
    if ((why = refuse(cmd, argc)) != NULL) {
        srv_note_error(NULL, why + 1); /* counted here, as Redis, and not again by the script's reply */
        push_error_table(l, why, strlen(why));
        mark_counted(l);
        goto failed;
    }
    if (cmd->flags & CMD_WRITE)
        run.wrote = 1;
    sc->argc = argc;
    sc->argv = cargv;
    sc->resp = run.resp;
    sc->flags |= CLIENT_AUTHENTICATED;
    now = db_now;
    cmd_call(sc, cmd);
    db_now = now; /* the script's clock stands still: no key expires between two of its commands (Redis 7) */
    srv.current = saved;
    sc->argv = NULL;
    sc->argc = 0;
    out = reply_flatten(sc, &olen);
    is_err = olen > 0 && out[0] == '-';
    lua_settop(l, 0);
    if (olen == 0)
        lua_pushboolean(l, 0);
    else
        reply_to_lua(l, out, out + olen);
    reply_discard(sc); /* out is gone from here on */
    trim_args(argc);
    if (raise && is_err)
        return lua_error(l);
    return 1;

failed:
    if (raise)
        return lua_error(l);
    return 1;
}

static int l_call(lua_State *l)
{
    return generic_call(l, 1);
}

static int l_pcall(lua_State *l)
{
    return generic_call(l, 0);
}

/* ---- the rest of the redis table ---- */

void script_sha1_hex(const char *p, size_t n, char out[41])
{
    static const char hex[] = "0123456789abcdef";
    struct sha1_ctx ctx;
    uint8_t d[SHA1_DIGEST_SIZE];
    int i;

    sha1_init(&ctx);
    sha1_update(&ctx, n, (const uint8_t *)p);
    sha1_digest(&ctx, SHA1_DIGEST_SIZE, d);
    for (i = 0; i < SHA1_DIGEST_SIZE; i++) { /* nettle's base16 costs 370 instructions an EVAL */
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[40] = '\0';
}

static int l_sha1hex(lua_State *l)
{
    char hex[41];
    size_t n;
    const char *s;

    if (lua_gettop(l) != 1)
        return raise_err(l, "wrong number of arguments");
    s = lua_tolstring(l, 1, &n);
    script_sha1_hex(s ? s : "", s ? n : 0, hex);
    lua_pushlstring(l, hex, 40);
    return 1;
}

/* redis.error_reply / status_reply: a table {err=} / {ok=} from one string. */
static int l_error_reply(lua_State *l)
{
    size_t n;
    const char *s;
    if (lua_gettop(l) != 1 || lua_type(l, -1) != LUA_TSTRING) {
        push_error_table(l, "wrong number or type of arguments", 33); /* returned, not raised */
        return 1;
    }
    s = lua_tolstring(l, 1, &n);
    if (n > 0 && s[0] == '-')
        push_error_table(l, s, n);
    else {
        char *t = xmalloc(n + 2);
        t[0] = '-';
        memcpy(t + 1, s, n);
        push_error_table(l, t, n + 1);
        xfree(t);
    }
    return 1;
}

static int l_status_reply(lua_State *l)
{
    if (lua_gettop(l) != 1 || lua_type(l, -1) != LUA_TSTRING) {
        push_error_table(l, "wrong number or type of arguments", 33);
        return 1;
    }
    lua_newtable(l);
    lua_pushliteral(l, "ok");
    lua_pushvalue(l, 1);
    lua_rawset(l, -3);
    return 1;
}

/* Raise {err = "ERR <msg>"}: the errors of the redis.* helpers. */
static int raise_err(lua_State *l, const char *msg)
{
    push_error_table(l, msg, strlen(msg));
    return lua_error(l);
}

static int l_log(lua_State *l)
{
    int argc = lua_gettop(l), level, i;
    luaL_Buffer b;

    if (argc < 2)
        return raise_err(l, "redis.log() requires two arguments or more.");
    if (!lua_isnumber(l, 1))
        return raise_err(l, "First argument must be a number (log level).");
    level = (int)lua_tonumber(l, 1);
    if (level < LL_DEBUG || level > LL_WARNING)
        return raise_err(l, "Invalid debug level.");
    if (level < srv.cfg.loglevel)
        return 0;
    luaL_buffinit(l, &b);
    for (i = 2; i <= argc; i++) {
        size_t n;
        const char *s = lua_tolstring(l, i, &n);
        if (!s)
            continue;
        if (i > 2)
            luaL_addchar(&b, ' ');
        luaL_addlstring(&b, s, n);
    }
    luaL_pushresult(&b);
    log_msg(level, "%s", lua_tostring(l, -1));
    return 0;
}

static int l_setresp(lua_State *l)
{
    int v;
    if (lua_gettop(l) != 1)
        return raise_err(l, "redis.setresp() requires one argument.");
    v = (int)lua_tonumber(l, 1);
    if (v != 2 && v != 3)
        return raise_err(l, "RESP version must be 2 or 3.");
    run.resp = v;
    return 0;
}

/* redis.set_repl: the flags are checked as Redis checks them; the log always
 * gets a script's effects (docs/commands.md, Differences). */
static int l_set_repl(lua_State *l)
{
    lua_Number v;
    if (lua_gettop(l) != 1)
        return raise_err(l, "redis.set_repl() requires two arguments.");
    v = lua_tonumber(l, 1);
    if (v < 0 || v > 3 || v != floor(v))
        return raise_err(l, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    return 0;
}

static int l_replicate_commands(lua_State *l)
{
    lua_pushboolean(l, 1);
    return 1;
}

static int l_breakpoint(lua_State *l)
{
    lua_pushboolean(l, 0);
    return 1;
}

static int l_debug(lua_State *l)
{
    return 0;
}

/* redis.acl_check_cmd: whether the script's user may run the command with
 * these arguments (cmd/acl.h); an unknown command is an error as in Redis. */
static int l_acl_check_cmd(lua_State *l)
{
    int argc = lua_gettop(l), pos;
    const cmd_def *cmd;

    if (collect_args(l, argc) < 0)
        return lua_error(l);
    if (!(cmd = cmd_lookup_argv(argc, cargv)))
        return raise_err(l, "Invalid command passed to redis.acl_check_cmd()");
    lua_pushboolean(l, acl_check(run.caller ? run.caller->user : NULL, cmd, argc, cargv, &pos) == ACL_OK);
    return 1;
}

/* ---- the state ---- */

static void set_fn(lua_State *l, const char *name, lua_CFunction f)
{
    lua_pushcfunction(l, f);
    lua_setfield(l, -2, name);
}

static void set_num(lua_State *l, const char *name, lua_Number v)
{
    lua_pushnumber(l, v);
    lua_setfield(l, -2, name);
}

static void open_lib(lua_State *l, const char *name, lua_CFunction f)
{
    lua_pushcfunction(l, f);
    lua_pushstring(l, name);
    lua_call(l, 1, 1);
    if (name[0] && lua_istable(l, -1))
        lua_setglobal(l, name);
    else
        lua_pop(l, 1);
}

static void protect_global(lua_State *l, const char *name)
{
    lua_getglobal(l, name);
    if (lua_istable(l, -1)) {
        make_readonly(l);
        lua_setglobal(l, name);
    } else
        lua_pop(l, 1);
}

static void load_api_new(lua_State *L);
static void load_hook(lua_State *l, lua_Debug *ar);

/* What every run reads from the registry, also under integer keys: a
 * lua_rawgeti finds it without interning a string as lua_getfield does (some
 * 200 instructions each, six a script). luaL_ref takes 0 and up: these are
 * below. */
enum { REG_GLOBALS = -1, REG_ERR_HANDLER = -2, REG_FUNCTIONS = -3, REG_FLAGS = -4, REG_KEYS = -5, REG_ARGV = -6 };

/* A new Lua state with the sandbox and the redis table. */
static lua_State *state_new(void)
{
    lua_State *L;
    static const char *const removed[] = {"print",   "loadfile", "dofile", "setfenv",
                                          "getfenv", "newproxy", "debug",  NULL};
    static const char *const protected_libs[] = {"redis", "string", "math",     "table",     "cjson",
                                                 "bit",   "struct", "cmsgpack", "coroutine", NULL};
    int i, g;

    L = luaL_newstate();
    if (!L) {
        log_warning("Failed creating the Lua state");
        abort();
    }
    open_lib(L, "", luaopen_base);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_DBLIBNAME, luaopen_debug);
    open_lib(L, "cjson", luaopen_cjson);
    open_lib(L, "bit", luaopen_bit);
    open_lib(L, "struct", luaopen_struct);
    open_lib(L, "cmsgpack", luaopen_cmsgpack);

    lua_getglobal(L, "math");
    set_fn(L, "random", l_math_random);
    set_fn(L, "randomseed", l_math_randomseed);
    lua_pop(L, 1);

    lua_newtable(L);
    set_fn(L, "call", l_call);
    set_fn(L, "pcall", l_pcall);
    set_fn(L, "error_reply", l_error_reply);
    set_fn(L, "status_reply", l_status_reply);
    set_fn(L, "sha1hex", l_sha1hex);
    set_fn(L, "log", l_log);
    set_fn(L, "setresp", l_setresp);
    set_fn(L, "set_repl", l_set_repl);
    set_fn(L, "replicate_commands", l_replicate_commands);
    set_fn(L, "breakpoint", l_breakpoint);
    set_fn(L, "debug", l_debug);
    set_fn(L, "acl_check_cmd", l_acl_check_cmd);
    set_num(L, "LOG_DEBUG", LL_DEBUG);
    set_num(L, "LOG_VERBOSE", LL_VERBOSE);
    set_num(L, "LOG_NOTICE", LL_NOTICE);
    set_num(L, "LOG_WARNING", LL_WARNING);
    set_num(L, "REPL_NONE", 0);
    set_num(L, "REPL_AOF", 1);
    set_num(L, "REPL_SLAVE", 2);
    set_num(L, "REPL_REPLICA", 2);
    set_num(L, "REPL_ALL", 3);
    lua_pushstring(L, SP_VERSION);
    lua_setfield(L, -2, "REDIS_VERSION");
    {
        int a = 0, b = 0, c = 0;
        sscanf(SP_VERSION, "%d.%d.%d", &a, &b, &c);
        set_num(L, "REDIS_VERSION_NUM", (a << 16) | (b << 8) | c);
    }
    lua_setglobal(L, "redis");

    lua_pushcfunction(L, l_err_handler);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_err_handler"); /* one closure for every run */
    lua_setglobal(L, "__redis__err__handler");
    lua_pushcfunction(L, l_rawset);
    lua_setglobal(L, "rawset");
    lua_pushcfunction(L, l_rawget);
    lua_setglobal(L, "rawget");
    lua_pushcfunction(L, l_lua_pcall);
    lua_setglobal(L, "pcall");
    for (i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_functions");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_flags");
    lua_newtable(L); /* proxies, weak keys */
    lua_newtable(L);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_proxies");
    for (i = 0; protected_libs[i]; i++)
        protect_global(L, protected_libs[i]);
    /* Strings' methods read through the string library's proxy, and
     * getmetatable('') is a read-only proxy of their metatable: no script
     * changes string.* for the scripts after it. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_getglobal(L, "string");
    lua_setfield(L, -2, "__index");
    lua_pushvalue(L, -1);
    make_readonly(L);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, l_setmetatable, 1);
    lua_setglobal(L, "setmetatable");

    /* The globals: a missing one is an error; scripts see them through a
     * read-only proxy, which becomes the environment of every chunk
     * compiled from now on. KEYS and ARGV are set in the real table. */
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    g = lua_gettop(L);
    lua_newtable(L);
    lua_pushcfunction(L, l_global_missing);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, g);
    lua_pushvalue(L, g);
    make_readonly(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, g, "_G");
    lua_replace(L, LUA_GLOBALSINDEX);
    lua_pushvalue(L, g);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_globals");
    lua_getmetatable(L, LUA_GLOBALSINDEX);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_globals_mt");
    lua_settop(L, 0);
    load_api_new(L);
    {
        static const struct {
            const char *name;
            int key;
        } fast[] = {{"sp_globals", REG_GLOBALS},
                    {"sp_err_handler", REG_ERR_HANDLER},
                    {"sp_functions", REG_FUNCTIONS},
                    {"sp_flags", REG_FLAGS}};
        for (i = 0; i < (int)(sizeof(fast) / sizeof(fast[0])); i++) {
            lua_getfield(L, LUA_REGISTRYINDEX, fast[i].name);
            lua_rawseti(L, LUA_REGISTRYINDEX, fast[i].key);
        }
        lua_pushliteral(L, "KEYS");
        lua_rawseti(L, LUA_REGISTRYINDEX, REG_KEYS);
        lua_pushliteral(L, "ARGV");
        lua_rawseti(L, LUA_REGISTRYINDEX, REG_ARGV);
    }
    return L;
}

void script_init(void)
{
    if (!sc) {
        sc = client_new_fake();
        sc->flags |= CLIENT_SCRIPT;
        sc->db = &srv.dbs[0];
        sc->dbid = 0;
    }
    LE = state_new();
    LF = state_new();
}

void script_reset(void)
{
    lua_close(LE);
    LE = state_new();
}

int script_compile(const char *name, const char *body, size_t len, int flags, char *err, size_t errcap)
{
    lua_State *L = LE;

    if (luaL_loadbuffer(L, body, len, "@user_script") != 0) {
        snprintf(err, errcap, "%s", lua_tostring(L, -1));
        lua_settop(L, 0);
        return -1;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, "sp_functions");
    lua_pushstring(L, name);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_getfield(L, LUA_REGISTRYINDEX, "sp_flags");
    lua_pushstring(L, name);
    lua_pushinteger(L, flags);
    lua_rawset(L, -3);
    lua_settop(L, 0);
    return 0;
}

int script_flags(const char *name)
{
    lua_State *L = LE;
    int r = -1;

    lua_rawgeti(L, LUA_REGISTRYINDEX, REG_FLAGS);
    lua_getfield(L, -1, name);
    if (lua_isnumber(L, -1))
        r = (int)lua_tointeger(L, -1);
    lua_settop(L, 0);
    return r;
}

/* ---- libraries of functions ---- */

/* What redis.register_function collects while a library loads. */
static struct {
    int active;
    script_fn_info *fns;
    int n, cap;
} loading;

static const struct {
    const char *name;
    int flag;
} fn_flags[] = {
    {"no-writes", SCRIPT_NO_WRITES},
    {"allow-oom", SCRIPT_ALLOW_OOM},
    {"allow-stale", SCRIPT_ALLOW_STALE},
    {"no-cluster", SCRIPT_NO_CLUSTER},
    {"allow-cross-slot-keys", SCRIPT_ALLOW_CROSS_SLOT},
};

int script_name_ok(const char *p, size_t n)
{
    size_t i;
    if (n == 0)
        return 0;
    for (i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') ||
              p[i] == '_'))
            return 0;
    return 1;
}

/* redis.register_function(name, callback) or
 * redis.register_function{function_name=, callback=, flags=, description=}. */
static int l_register_function(lua_State *l)
{
    int argc = lua_gettop(l), flags = 0, i;
    const char *name = NULL, *desc = NULL;
    size_t nlen = 0;
    script_fn_info *f;

    if (!loading.active)
        return raise_err(l, "redis.register_function can only be called on FUNCTION LOAD command");
    if (argc == 1) {
        if (!lua_istable(l, 1))
            return raise_err(l, "calling redis.register_function with a single argument is only applicable to Lua "
                                "table (representing named arguments).");
        lua_pushnil(l);
        while (lua_next(l, 1)) {
            const char *k = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : "";
            if (strcmp(k, "function_name") == 0) {
                if (!lua_isstring(l, -1))
                    return raise_err(l, "function_name argument given to redis.register_function must be a string");
                name = lua_tolstring(l, -1, &nlen);
            } else if (strcmp(k, "description") == 0) {
                if (!lua_isstring(l, -1))
                    return raise_err(l, "description argument given to redis.register_function must be a string");
                desc = lua_tostring(l, -1);
            } else if (strcmp(k, "callback") == 0) {
                if (!lua_isfunction(l, -1))
                    return raise_err(l, "callback argument given to redis.register_function must be a function");
            } else if (strcmp(k, "flags") == 0) {
                if (!lua_istable(l, -1))
                    return raise_err(l, "flags argument to redis.register_function must be a table representing "
                                        "function flags");
                for (i = 1;; i++) {
                    size_t j;
                    const char *fl;
                    lua_rawgeti(l, -1, i);
                    if (lua_isnil(l, -1)) {
                        lua_pop(l, 1);
                        break;
                    }
                    fl = lua_type(l, -1) == LUA_TSTRING ? lua_tostring(l, -1) : "";
                    for (j = 0; j < sizeof(fn_flags) / sizeof(fn_flags[0]); j++)
                        if (strcmp(fl, fn_flags[j].name) == 0)
                            break;
                    if (j == sizeof(fn_flags) / sizeof(fn_flags[0]))
                        return raise_err(l, "unknown flag given");
                    flags |= fn_flags[j].flag;
                    lua_pop(l, 1);
                }
            } else {
                return raise_err(l, "unknown argument given to redis.register_function");
            }
            lua_pop(l, 1);
        }
        if (!name)
            return raise_err(l, "redis.register_function must get a function name argument");
        lua_getfield(l, 1, "callback");
        if (!lua_isfunction(l, -1))
            return raise_err(l, "redis.register_function must get a callback argument");
    } else if (argc == 2) {
        if (!lua_isstring(l, 1))
            return raise_err(l, "first argument to redis.register_function must be a string");
        if (!lua_isfunction(l, 2))
            return raise_err(l, "second argument to redis.register_function must be a function");
        name = lua_tolstring(l, 1, &nlen);
        lua_pushvalue(l, 2);
    } else {
        return raise_err(l, "wrong number of arguments to redis.register_function");
    }
    /* the callback is at the top */
    if (!script_name_ok(name, nlen))
        return raise_err(l, "Library names can only contain letters, numbers, or underscores(_) and must be at "
                            "least one character long");
    for (i = 0; i < loading.n; i++)
        if (strcmp(loading.fns[i].name, name) == 0)
            return raise_err(l, "Function already exists in the library");
    lua_getfield(l, LUA_REGISTRYINDEX, "sp_pending");
    lua_pushstring(l, name);
    lua_pushvalue(l, -3);
    lua_rawset(l, -3);
    lua_pop(l, 2);
    if (loading.n == loading.cap) {
        loading.cap = loading.cap ? loading.cap * 2 : 8;
        loading.fns = xrealloc(loading.fns, sizeof(script_fn_info) * (size_t)loading.cap);
    }
    f = &loading.fns[loading.n++];
    f->name = xstrdup(name);
    f->desc = desc ? xstrdup(desc) : NULL;
    f->flags = flags;
    return 0;
}

/* The globals a library sees while it loads: only redis.register_function,
 * redis.log, the LOG_* constants and the version (a missing name is an
 * error), as Redis 7.0. */
static void load_api_new(lua_State *L)
{
    lua_newtable(L); /* the api */
    lua_newtable(L);
    lua_pushcfunction(L, l_global_missing);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_newtable(L); /* its redis */
    set_fn(L, "register_function", l_register_function);
    set_fn(L, "log", l_log);
    set_num(L, "LOG_DEBUG", LL_DEBUG);
    set_num(L, "LOG_VERBOSE", LL_VERBOSE);
    set_num(L, "LOG_NOTICE", LL_NOTICE);
    set_num(L, "LOG_WARNING", LL_WARNING);
    lua_pushstring(L, SP_VERSION);
    lua_setfield(L, -2, "REDIS_VERSION");
    lua_getglobal(L, "redis");
    lua_getfield(L, -1, "REDIS_VERSION_NUM");
    lua_setfield(L, -3, "REDIS_VERSION_NUM");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, l_global_missing);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    make_readonly(L);
    lua_setfield(L, -2, "redis");
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_load_api");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_pending");
}

/* Point the globals' reads at the table the registry holds under which. */
static void globals_read_from(lua_State *L, const char *which)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "sp_globals_mt");
    lua_getfield(L, LUA_REGISTRYINDEX, which);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

void script_fn_info_free(script_fn_info *fns, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        xfree(fns[i].name);
        xfree(fns[i].desc);
    }
    xfree(fns);
}

int script_lib_run(const char *body, size_t len, script_fn_info **fns, int *n, char *err, size_t errcap)
{
    lua_State *L = LF;
    char *copy = xmalloc(len + 1);
    int status, r = -1;

    memcpy(copy, body, len);
    if (len >= 2 && copy[0] == '#' && copy[1] == '!')
        copy[0] = copy[1] = '-'; /* the shebang line becomes a comment */
    lua_settop(L, 0);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_pending");
    if (luaL_loadbuffer(L, copy, len, "@user_function") != 0) {
        snprintf(err, errcap, "Error compiling function: %s", lua_tostring(L, -1));
        goto done;
    }
    lua_pushcfunction(L, l_err_handler);
    lua_insert(L, 1);
    memset(&loading, 0, sizeof(loading));
    loading.active = 1;
    globals_read_from(L, "sp_load_api");
    lua_sethook(L, load_hook, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    run.start_ms = now_ms();
    status = lua_pcall(L, 0, 0, 1);
    lua_sethook(L, NULL, 0, 0);
    globals_read_from(L, "sp_globals");
    loading.active = 0;
    if (status != 0) {
        const char *m = NULL;
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            m = lua_tostring(L, -1);
        } else
            m = lua_tostring(L, -1);
        snprintf(err, errcap, "Error registering functions: %s", m ? m : "unknown error");
        script_fn_info_free(loading.fns, loading.n);
        goto done;
    }
    if (loading.n == 0) {
        snprintf(err, errcap, "No functions registered");
        xfree(loading.fns);
        goto done;
    }
    *fns = loading.fns;
    *n = loading.n;
    r = 0;
done:
    memset(&loading, 0, sizeof(loading));
    lua_settop(L, 0);
    xfree(copy);
    return r;
}

void script_lib_commit(void)
{
    lua_State *L = LF;
    lua_getfield(L, LUA_REGISTRYINDEX, "sp_functions");
    lua_getfield(L, LUA_REGISTRYINDEX, "sp_pending");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -5);
    }
    lua_settop(L, 0);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "sp_pending");
}

void script_fn_remove(const char *name)
{
    lua_State *L = LF;
    lua_getfield(L, LUA_REGISTRYINDEX, "sp_functions");
    lua_pushstring(L, name);
    lua_pushnil(L);
    lua_rawset(L, -3);
    lua_settop(L, 0);
}

void script_fn_reset(void)
{
    lua_close(LF);
    LF = state_new();
}

const char *script_running_function(int64_t *ms, client **caller)
{
    if (!run.active || !run.is_function)
        return NULL;
    *ms = now_ms() - run.start_ms;
    *caller = run.caller;
    return run.shown;
}

/* ---- busy scripts ---- */

/* The -BUSY error for the running script (EVAL's or FCALL's words). */
static const char *script_busy_error(void)
{
    return run.is_function ? ERR_BUSY_FUNCTION : ERR_BUSY_EVAL;
}

void script_kill(client *c, int is_function)
{
    if (!run.active) {
        reply_error(c, "NOTBUSY No scripts in execution right now.");
        return;
    }
    if (run.wrote) {
        reply_error(c, "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
                       "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
                       "NOSAVE command.");
        return;
    }
    if (run.is_function != is_function) { /* SCRIPT KILL of a function, FUNCTION KILL of an EVAL script */
        reply_error(c, script_busy_error());
        return;
    }
    run.kill = 1;
    reply_ok(c);
}

/* Every HOOK_INSTRUCTIONS instructions: past the threshold, serve the other
 * clients once (they get -BUSY but for the kill commands), then end the
 * script if it was killed. */
static void hook(lua_State *l, lua_Debug *ar)
{
    int64_t now = now_ms();

    (void)ar;
    if (!run.timedout) {
        if (srv.cfg.busy_reply_threshold <= 0 || now - run.start_ms < srv.cfg.busy_reply_threshold)
            return;
        run.timedout = 1;
        log_warning("Slow script detected: still in execution after %lld milliseconds. You can try killing the "
                    "script using the %s command.",
                    (long long)(now - run.start_ms), run.is_function ? "FUNCTION KILL" : "SCRIPT KILL");
        net_busy_begin(run.caller);
        cmd_busy_error = run.is_function ? ERR_BUSY_FUNCTION : ERR_BUSY_EVAL;
    }
    {
        int64_t frozen = db_now; /* the other clients' requests read the clock anew */
        net_serve_while_busy();
        db_now = frozen;
    }
    if (run.kill || srv.shutdown_asap) {
        lua_sethook(l, hook, LUA_MASKLINE, 0); /* the error below may be caught by pcall: raise it again */
        raise_err(l, run.kill == 1 || !srv.shutdown_asap ? "Script killed by user with SCRIPT KILL..."
                                                         : "Script killed by user with SHUTDOWN NOSAVE...");
    }
}

/* A library's code runs at most 500 ms while it loads (as Redis 7.0). */
static void load_hook(lua_State *l, lua_Debug *ar)
{
    (void)ar;
    if (now_ms() - run.start_ms > 500) {
        lua_sethook(l, load_hook, LUA_MASKLINE, 0);
        raise_err(l, "FUNCTION LOAD timeout");
    }
}

/* ---- running ---- */

static void push_array(lua_State *l, int n, const sarg *a)
{
    int i;
    lua_createtable(l, n, 0);
    for (i = 0; i < n; i++) {
        lua_pushlstring(l, a[i].p, a[i].len);
        lua_rawseti(l, -2, i + 1);
    }
}

/* g[name] = {a...}, name the string at REG_KEYS or REG_ARGV (g, the real
 * globals, has no __newindex: a raw set is what lua_setfield would do). */
static void set_array(lua_State *l, int g, int name, int n, const sarg *a)
{
    lua_rawgeti(l, LUA_REGISTRYINDEX, name);
    push_array(l, n, a);
    lua_rawset(l, g);
}

void script_run(client *c, int is_function, const char *name, int flags, int ro, int nkeys, const sarg *keys, int nargs,
                const sarg *args)
{
    lua_State *L = is_function ? LF : LE;
    int rec, g, status, nparams = 0;
    unsigned gen;

    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, REG_GLOBALS);
    g = lua_gettop(L);
    if (!is_function) {
        set_array(L, g, REG_KEYS, nkeys, keys);
        set_array(L, g, REG_ARGV, nargs, args);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, REG_ERR_HANDLER);
    lua_rawgeti(L, LUA_REGISTRYINDEX, REG_FUNCTIONS);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    if (is_function) { /* a function takes its keys and arguments as parameters */
        push_array(L, nkeys, keys);
        push_array(L, nargs, args);
        nparams = 2;
    }

    memset(&run, 0, sizeof(run));
    run.active = 1;
    run.caller = c;
    run.shown = is_function ? name : name + 2;
    run.is_function = is_function;
    run.flags = flags;
    run.ro = ro || (flags & SCRIPT_NO_WRITES);
    run.resp = 2;
    run.start_ms = now_ms();
    sc->db = c->db;
    sc->dbid = c->dbid;

    rec = prop_on;
    gen = prop_gen;
    if (rec)
        prop_begin(c->dbid);
    lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    status = lua_pcall(L, nparams, 1, g + 1);
    lua_sethook(L, NULL, 0, 0);
    if (rec && prop_on && prop_gen == gen)
        prop_end();

    if (status == 0) {
        lua_to_reply(c, L);
    } else if (lua_istable(L, -1)) {
        const char *source = NULL, *text;
        long line = 0;
        lua_getfield(L, -1, "err");
        lua_getfield(L, -2, "source");
        lua_getfield(L, -3, "line");
        lua_getfield(L, -4, "ignore_error_stats_update");
        text = lua_tostring(L, -4);
        if (lua_type(L, -3) == LUA_TSTRING && lua_type(L, -2) == LUA_TNUMBER) {
            source = lua_tostring(L, -3);
            line = (long)lua_tonumber(L, -2);
        }
        reply_script_error(c, text ? text : "ERR unknown error", source, line, lua_toboolean(L, -1));
    } else {
        const char *msg = lua_tostring(L, -1);
        reply_errorf(c, "ERR Error running script %s, %.100s", run.shown, msg ? msg : "execution failure");
    }
    if (run.timedout) {
        cmd_busy_error = NULL;
        net_busy_end();
        log_warning("Slow script finished running after %lld milliseconds.", (long long)(now_ms() - run.start_ms));
    }
    run.active = 0;
    srv.current = c;
    lua_settop(L, 0);
    /* the script's tables of keys and arguments are garbage now: a step of
     * the collector every 50 runs (as Redis) keeps a loop of EVALs from
     * growing the state without paying for it on every call */
    if (++gc_runs >= 50) {
        gc_runs = 0;
        lua_gc(L, LUA_GCSTEP, 50);
    }
}
