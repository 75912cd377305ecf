/* cmd_function.c -- FUNCTION and FCALL: libraries of Lua functions, as Redis 7.0 keeps them.
 *
 * A library is its name, its code (the "#!lua name=<lib>" shebang and the
 * body) and the functions its code registered; the compiled functions live
 * in the engine's state for functions (script.h), the rest here. Function
 * names are unique across libraries. Libraries are kept in load order (Redis
 * lists them in its hash table's order).
 *
 * Persistence: FUNCTION LOAD, DELETE, FLUSH and RESTORE are write commands
 * logged as typed (they change srv.dirty), so the log's replay loads the same
 * libraries; a log rewrite writes one FUNCTION LOAD per library at the start
 * of its base (prop_rewrite_state). FUNCTION DUMP / RESTORE use Redis's
 * payload: the libraries' code as RDB strings after the FUNCTION2 opcode, the
 * RDB version and a CRC64 (core/dumpfmt.h). */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "core/dumpfmt.h"
#include "core/mem.h"
#include "core/util.h"
#include "keyspace/type.h"
#include "net/reply.h"
#include "script/script.h"

typedef struct slib {
    char *name;
    char *code;
    size_t len; /* bytes of code */
    script_fn_info *fns;
    int nfns;
    struct slib *next;
} slib;

static slib *libs, **libs_tail = &libs;
static int nlibs, nfuncs;

static slib *lib_find(const char *name, size_t n)
{
    slib *l;
    for (l = libs; l; l = l->next)
        if (strlen(l->name) == n && memcmp(l->name, name, n) == 0)
            return l;
    return NULL;
}

/* The function named p[0..n) and its library, or NULL. */
static script_fn_info *fn_find(const char *p, size_t n, slib **lib)
{
    slib *l;
    int i;
    for (l = libs; l; l = l->next)
        for (i = 0; i < l->nfns; i++)
            if (strlen(l->fns[i].name) == n && memcmp(l->fns[i].name, p, n) == 0) {
                if (lib)
                    *lib = l;
                return &l->fns[i];
            }
    return NULL;
}

static void lib_unlink(slib *lib)
{
    slib **pp;
    int i;

    for (pp = &libs; *pp != lib; pp = &(*pp)->next)
        ;
    *pp = lib->next;
    if (libs_tail == &lib->next)
        libs_tail = pp;
    for (i = 0; i < lib->nfns; i++)
        script_fn_remove(lib->fns[i].name);
    nlibs--;
    nfuncs -= lib->nfns;
}

static void lib_free(slib *lib)
{
    script_fn_info_free(lib->fns, lib->nfns);
    xfree(lib->name);
    xfree(lib->code);
    xfree(lib);
}

static void flush_all(void)
{
    while (libs) {
        slib *l = libs;
        libs = l->next;
        lib_free(l);
    }
    libs_tail = &libs;
    nlibs = nfuncs = 0;
    script_fn_reset();
}

/* The library name of code's shebang ("#!lua name=<lib>") into name (cap
 * bytes). 0, or -1 with Redis's error (without "ERR ") in err. */
static int lib_meta(const char *code, size_t len, char *name, size_t cap, char *err, size_t errcap)
{
    const char *nl, *p, *end;
    int first = 1, have = 0;

    if (len < 2 || code[0] != '#' || code[1] != '!') {
        snprintf(err, errcap, "Missing library metadata");
        return -1;
    }
    nl = memchr(code, '\n', len);
    end = nl ? nl : code + len;
    for (p = code + 2; p < end;) {
        const char *w;
        size_t n;
        while (p < end && (*p == ' ' || *p == '\r'))
            p++;
        if (p == end)
            break;
        w = p;
        while (p < end && *p != ' ' && *p != '\r')
            p++;
        n = (size_t)(p - w);
        if (first) {
            first = 0;
            if (n != 3 || memcmp(w, "lua", 3) != 0) {
                snprintf(err, errcap, "Engine '%.*s' not found", (int)n, w);
                return -1;
            }
        } else if (n >= 5 && memcmp(w, "name=", 5) == 0) {
            if (n - 5 >= cap) {
                snprintf(err, errcap,
                         "Library names can only contain letters, numbers, or underscores(_) and "
                         "must be at least one character long");
                return -1;
            }
            memcpy(name, w + 5, n - 5);
            name[n - 5] = '\0';
            have = 1;
        } else {
            snprintf(err, errcap, "Invalid metadata value given: %.*s", (int)n, w);
            return -1;
        }
    }
    if (!have) {
        snprintf(err, errcap, "Library name was not given");
        return -1;
    }
    if (!script_name_ok(name, strlen(name))) {
        snprintf(err, errcap,
                 "Library names can only contain letters, numbers, or underscores(_) and must be at "
                 "least one character long");
        return -1;
    }
    return 0;
}

/* Load code as a library, replacing the one of the same name if replace.
 * 0 (libname set), or -1 with the error (without "ERR ") in err. */
static int lib_load(const char *code, size_t len, int replace, char *libname, size_t namecap, char *err, size_t errcap)
{
    script_fn_info *fns = NULL;
    slib *old, *lib;
    int n = 0, i;

    if (lib_meta(code, len, libname, namecap, err, errcap) < 0)
        return -1;
    old = lib_find(libname, strlen(libname));
    if (old && !replace) {
        snprintf(err, errcap, "Library '%s' already exists", libname);
        return -1;
    }
    if (script_lib_run(code, len, &fns, &n, err, errcap) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        slib *owner;
        if (fn_find(fns[i].name, strlen(fns[i].name), &owner) && owner != old) {
            snprintf(err, errcap, "Function %s already exists", fns[i].name);
            script_fn_info_free(fns, n);
            return -1;
        }
    }
    if (old) {
        lib_unlink(old);
        lib_free(old);
    }
    script_lib_commit();
    lib = xcalloc(1, sizeof(*lib));
    lib->name = xstrdup(libname);
    lib->code = xmalloc(len + 1);
    memcpy(lib->code, code, len);
    lib->code[len] = '\0';
    lib->len = len;
    lib->fns = fns;
    lib->nfns = n;
    *libs_tail = lib;
    libs_tail = &lib->next;
    nlibs++;
    nfuncs += n;
    return 0;
}

/* ---- FCALL ---- */

static void fcall_generic(client *c, int ro)
{
    script_fn_info *f = fn_find(c->argv[1].p, c->argv[1].len, NULL);
    long long numkeys;

    if (!f) {
        reply_error(c, "ERR Function not found");
        return;
    }
    if (str_to_ll(c->argv[2].p, c->argv[2].len, &numkeys) < 0) {
        reply_error(c, "ERR Bad number of keys provided");
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
    if (!(f->flags & SCRIPT_NO_WRITES)) {
        const char *why;
        if (!(f->flags & SCRIPT_ALLOW_OOM) && srv.cfg.maxmemory > 0 && mem_used() > (size_t)srv.cfg.maxmemory) {
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
    script_run(c, 1, f->name, f->flags, ro, (int)numkeys, c->argv + 3, c->argc - 3 - (int)numkeys,
               c->argv + 3 + numkeys);
}

static void cmd_fcall(client *c)
{
    fcall_generic(c, 0);
}

static void cmd_fcall_ro(client *c)
{
    fcall_generic(c, 1);
}

/* ---- FUNCTION ---- */

static void function_load(client *c)
{
    char name[256], err[1024];
    int replace = 0;

    if (c->argc == 4) {
        if (!str_eq_ci(c->argv[2].p, c->argv[2].len, "replace")) {
            reply_errorf(c, "ERR Unknown option given: %s", c->argv[2].p);
            return;
        }
        replace = 1;
    } else if (c->argc > 4) {
        reply_arity_error(c);
        return;
    }
    if (lib_load(c->argv[c->argc - 1].p, c->argv[c->argc - 1].len, replace, name, sizeof(name), err, sizeof(err)) < 0) {
        reply_errorf(c, "ERR %s", err);
        return;
    }
    srv.dirty++;
    reply_bulk_cstr(c, name);
}

static void function_delete(client *c)
{
    slib *lib = lib_find(c->argv[2].p, c->argv[2].len);
    if (!lib) {
        reply_error(c, "ERR Library not found");
        return;
    }
    lib_unlink(lib);
    lib_free(lib);
    srv.dirty++;
    reply_ok(c);
}

static void function_flush(client *c)
{
    if (c->argc > 3 || (c->argc == 3 && !str_eq_ci(c->argv[2].p, c->argv[2].len, "sync") &&
                        !str_eq_ci(c->argv[2].p, c->argv[2].len, "async"))) {
        reply_error(c, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    flush_all();
    srv.dirty++;
    reply_ok(c);
}

static void function_list(client *c)
{
    const sarg *pattern = NULL;
    int withcode = 0, i, n = 0;
    void *slot;
    slib *l;

    for (i = 2; i < c->argc; i++) {
        if (!withcode && str_eq_ci(c->argv[i].p, c->argv[i].len, "withcode")) {
            withcode = 1;
        } else if (!pattern && str_eq_ci(c->argv[i].p, c->argv[i].len, "libraryname")) {
            if (i + 1 >= c->argc) {
                reply_error(c, "ERR library name argument was not given");
                return;
            }
            pattern = &c->argv[++i];
        } else {
            reply_errorf(c, "ERR Unknown argument %s", c->argv[i].p);
            return;
        }
    }
    slot = reply_defer(c);
    for (l = libs; l; l = l->next) {
        int j;
        if (pattern && !glob_match(pattern->p, pattern->len, l->name, strlen(l->name), 1))
            continue;
        n++;
        reply_map(c, withcode ? 4 : 3);
        reply_bulk_cstr(c, "library_name");
        reply_bulk_cstr(c, l->name);
        reply_bulk_cstr(c, "engine");
        reply_bulk_cstr(c, "LUA");
        reply_bulk_cstr(c, "functions");
        reply_array(c, l->nfns);
        for (j = 0; j < l->nfns; j++) {
            const script_fn_info *f = &l->fns[j];
            static const struct {
                int flag;
                const char *name;
            } names[] = {{SCRIPT_NO_WRITES, "no-writes"},
                         {SCRIPT_ALLOW_OOM, "allow-oom"},
                         {SCRIPT_ALLOW_STALE, "allow-stale"},
                         {SCRIPT_NO_CLUSTER, "no-cluster"},
                         {SCRIPT_ALLOW_CROSS_SLOT, "allow-cross-slot-keys"}};
            int k, nf = 0;
            reply_map(c, 3);
            reply_bulk_cstr(c, "name");
            reply_bulk_cstr(c, f->name);
            reply_bulk_cstr(c, "description");
            if (f->desc)
                reply_bulk_cstr(c, f->desc);
            else
                reply_null(c);
            reply_bulk_cstr(c, "flags");
            for (k = 0; k < 5; k++)
                nf += (f->flags & names[k].flag) != 0;
            reply_set(c, nf);
            for (k = 0; k < 5; k++)
                if (f->flags & names[k].flag)
                    reply_status(c, names[k].name);
        }
        if (withcode) {
            reply_bulk_cstr(c, "library_code");
            reply_bulk(c, l->code, l->len);
        }
    }
    reply_defer_array(c, slot, n);
}

static void function_stats(client *c)
{
    const char *fname;
    int64_t ms;
    client *caller;

    reply_map(c, 2);
    reply_bulk_cstr(c, "running_script");
    if ((fname = script_running_function(&ms, &caller)) != NULL) {
        int i;
        reply_map(c, 3);
        reply_bulk_cstr(c, "name");
        reply_bulk_cstr(c, fname);
        reply_bulk_cstr(c, "command");
        reply_array(c, caller->argc);
        for (i = 0; i < caller->argc; i++)
            reply_bulk(c, caller->argv[i].p, caller->argv[i].len);
        reply_bulk_cstr(c, "duration_ms");
        reply_int(c, (long long)ms);
    } else {
        reply_null(c);
    }
    reply_bulk_cstr(c, "engines");
    reply_map(c, 1);
    reply_bulk_cstr(c, "LUA");
    reply_map(c, 2);
    reply_bulk_cstr(c, "libraries_count");
    reply_int(c, nlibs);
    reply_bulk_cstr(c, "functions_count");
    reply_int(c, nfuncs);
}

static void function_kill(client *c)
{
    script_kill(c, 1);
}

#define FUNCTION2_OPCODE 245 /* RDB_OPCODE_FUNCTION2 */
#define DUMP_RDB_VERSION 10  /* Redis 7.0's RDB version */

static void function_dump(client *c)
{
    size_t cap = 16, len = 0;
    char *buf;
    slib *l;
    uint64_t crc;
    int i;

    for (l = libs; l; l = l->next)
        cap += l->len + 16;
    buf = xmalloc(cap);
    for (l = libs; l; l = l->next) {
        buf[len++] = (char)FUNCTION2_OPCODE;
        len += dump_put_len((unsigned char *)buf + len, l->len);
        memcpy(buf + len, l->code, l->len);
        len += l->len;
    }
    buf[len++] = (char)(DUMP_RDB_VERSION & 0xff);
    buf[len++] = (char)(DUMP_RDB_VERSION >> 8);
    crc = crc64_jones(0, (const unsigned char *)buf, len);
    for (i = 0; i < 8; i++)
        buf[len++] = (char)(crc >> (8 * i));
    reply_bulk(c, buf, len);
    xfree(buf);
}

/* The libraries' code in payload p[0..n) into codes (each xmalloc'd; *count
 * of them, the array xmalloc'd). 0, or -1 with the error reply's text. */
static int parse_payload(const unsigned char *p, size_t n, char ***codes, size_t **lens, int *count, const char **why)
{
    const unsigned char *end;
    uint64_t crc = 0;
    int i, cap = 0;

    *codes = NULL;
    *lens = NULL;
    *count = 0;
    if (n < 10) {
        *why = "ERR DUMP payload version or checksum are wrong";
        return -1;
    }
    for (i = 0; i < 8; i++)
        crc |= (uint64_t)p[n - 8 + i] << (8 * i);
    if ((p[n - 10] | (p[n - 9] << 8)) > DUMP_RDB_VERSION || crc != crc64_jones(0, p, n - 8)) {
        *why = "ERR DUMP payload version or checksum are wrong";
        return -1;
    }
    end = p + n - 10;
    while (p < end) {
        char *code;
        size_t clen;
        if (*p != FUNCTION2_OPCODE) {
            *why = "ERR given type is not a function";
            goto bad;
        }
        p++;
        if (dump_get_string(&p, end, &code, &clen) < 0) {
            *why = "ERR payload is corrupted";
            goto bad;
        }
        if (*count == cap) {
            cap = cap ? cap * 2 : 8;
            *codes = xrealloc(*codes, sizeof(char *) * (size_t)cap);
            *lens = xrealloc(*lens, sizeof(size_t) * (size_t)cap);
        }
        (*codes)[*count] = code;
        (*lens)[(*count)++] = clen;
    }
    return 0;
bad:
    for (i = 0; i < *count; i++)
        xfree((*codes)[i]);
    xfree(*codes);
    xfree(*lens);
    *codes = NULL;
    *lens = NULL;
    *count = 0;
    return -1;
}

/* FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]: all or nothing. The
 * libraries before it are kept aside and put back if one of the payload's
 * fails to load. */
static void function_restore(client *c)
{
    enum { APPEND, FLUSH, REPLACE } policy = APPEND;
    char **codes = NULL;
    size_t *lens = NULL;
    const char *why;
    int count = 0, i;
    char name[256], err[1024];

    if (c->argc == 4) {
        const sarg *a = &c->argv[3];
        if (str_eq_ci(a->p, a->len, "flush"))
            policy = FLUSH;
        else if (str_eq_ci(a->p, a->len, "append"))
            policy = APPEND;
        else if (str_eq_ci(a->p, a->len, "replace"))
            policy = REPLACE;
        else {
            reply_error(c, "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            return;
        }
    } else if (c->argc > 4) {
        reply_arity_error(c);
        return;
    }
    if (parse_payload((const unsigned char *)c->argv[2].p, c->argv[2].len, &codes, &lens, &count, &why) < 0) {
        reply_error(c, why);
        return;
    }
    /* Before changing anything: each library's metadata, and APPEND's
     * collisions. Then the libraries as they are now are kept aside (their
     * code), so that a payload library that fails to load puts them back:
     * all or nothing, as Redis. */
    for (i = 0; i < count; i++) {
        if (lib_meta(codes[i], lens[i], name, sizeof(name), err, sizeof(err)) < 0)
            goto fail;
        if (policy == APPEND && lib_find(name, strlen(name))) {
            snprintf(err, sizeof(err), "Library %s already exists", name);
            goto fail;
        }
    }
    {
        slib *saved = libs, *l;
        int ok = 1;
        libs = NULL; /* detach the current libraries (their compiled functions stay until put back or flushed) */
        libs_tail = &libs;
        nlibs = nfuncs = 0;
        if (policy != FLUSH)
            for (l = saved; l; l = l->next) /* reload them into the fresh list */
                if (lib_load(l->code, l->len, 1, name, sizeof(name), err, sizeof(err)) < 0)
                    ok = 0;
        if (policy == FLUSH || !ok)
            flush_all();
        for (i = 0; ok && i < count; i++)
            if (lib_load(codes[i], lens[i], 1, name, sizeof(name), err, sizeof(err)) < 0)
                ok = 0;
        if (!ok) {
            char err2[1024];
            flush_all();
            for (l = saved; l; l = l->next)
                lib_load(l->code, l->len, 1, name, sizeof(name), err2, sizeof(err2));
        }
        while (saved) {
            l = saved;
            saved = l->next;
            lib_free(l);
        }
        if (!ok)
            goto fail;
    }
    srv.dirty++;
    reply_ok(c);
    goto done;
fail:
    reply_errorf(c, "ERR %s", err);
done:
    for (i = 0; i < count; i++)
        xfree(codes[i]);
    xfree(codes);
    xfree(lens);
}

static void function_help(client *c)
{
    static const char *const lines[] = {
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION "
        "RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
        NULL,
    };
    reply_help(c, lines);
}

/* A log rewrite's base starts with one FUNCTION LOAD per library. */
static void rewrite_functions(const effect_out *o)
{
    slib *l;
    for (l = libs; l; l = l->next) {
        eo_begin(o, 0);
        eo_str(o, "FUNCTION");
        eo_str(o, "LOAD");
        eo_bytes(o, l->code, l->len);
        eo_end(o);
    }
}

void function_init(void)
{
    prop_rewrite_state = rewrite_functions;
}

#define WR (CMD_WRITE | CMD_NOSCRIPT)
#define FC_FLAGS (CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_OWN_EFFECT)
#define ALL_OK "request_policy:all_shards response_policy:all_succeeded"

/* clang-format off */
static const cmd_def function_subcommands[] = {
    {.name = "load", .proc = function_load, .arity = -3, .flags = WR | CMD_DENYOOM, .group = "scripting",
     .summary = "Create a function with the given arguments (name, code, description)", .since = "7.0.0",
     .complexity = "O(1) (considering compilation time is redundant)", .acl = "slow scripting", .tips = ALL_OK},
    {.name = "list", .proc = function_list, .arity = -2, .flags = CMD_NOSCRIPT, .group = "scripting",
     .summary = "List information about all the functions", .since = "7.0.0",
     .complexity = "O(N) where N is the number of functions", .acl = "slow scripting",
     .tips = "nondeterministic_output_order"},
    {.name = "delete", .proc = function_delete, .arity = 3, .flags = WR, .group = "scripting",
     .summary = "Delete a function by name", .since = "7.0.0", .complexity = "O(1)", .acl = "slow scripting",
     .tips = ALL_OK},
    {.name = "flush", .proc = function_flush, .arity = -2, .flags = WR, .group = "scripting",
     .summary = "Deleting all functions", .since = "7.0.0",
     .complexity = "O(N) where N is the number of functions deleted", .acl = "slow scripting", .tips = ALL_OK},
    {.name = "dump", .proc = function_dump, .arity = 2, .flags = CMD_NOSCRIPT, .group = "scripting",
     .summary = "Dump all functions into a serialized binary payload", .since = "7.0.0",
     .complexity = "O(N) where N is the number of functions", .acl = "slow scripting"},
    {.name = "restore", .proc = function_restore, .arity = -3, .flags = WR | CMD_DENYOOM, .group = "scripting",
     .summary = "Restore all the functions on the given payload", .since = "7.0.0",
     .complexity = "O(N) where N is the number of functions on the payload", .acl = "slow scripting",
     .tips = ALL_OK},
    {.name = "stats", .proc = function_stats, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY,
     .group = "scripting",
     .summary = "Return information about the function currently running (name, description, duration)",
     .since = "7.0.0", .complexity = "O(1)", .acl = "slow scripting",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "kill", .proc = function_kill, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY,
     .group = "scripting", .summary = "Kill the function currently in execution.", .since = "7.0.0",
     .complexity = "O(1)", .acl = "slow scripting",
     .tips = "request_policy:all_shards response_policy:one_succeeded"},
    {.name = "help", .proc = function_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "scripting",
     .summary = "Show helpful text about the different subcommands", .since = "7.0.0", .complexity = "O(1)",
     .acl = "slow scripting"},
    {0},
};

const cmd_def cmd_table_function[] = {
    {.name = "fcall", .proc = cmd_fcall, .arity = -3, .flags = FC_FLAGS | CMD_MAY_REPLICATE, .group = "scripting",
     .summary = "Invoke a function", .since = "7.0.0", .complexity = "Depends on the function that is executed.",
     .acl = "slow scripting",
     .key_specs = "RW access update@k:2,0,1,1#We cannot tell how the keys will be used so we assume the worst, "
                  "RW and UPDATE"},
    {.name = "fcall_ro", .proc = cmd_fcall_ro, .arity = -3, .flags = CMD_READONLY | FC_FLAGS, .group = "scripting",
     .summary = "Invoke a read-only function", .since = "7.0.0",
     .complexity = "Depends on the function that is executed.", .acl = "slow scripting",
     .key_specs = "RO access@k:2,0,1,1#We cannot tell how the keys will be used so we assume the worst, RO and "
                  "ACCESS"},
    {.name = "function", .proc = cmd_container, .arity = -2, .flags = 0, .group = "scripting",
     .summary = "A container for function commands", .since = "7.0.0", .complexity = "Depends on subcommand.",
     .acl = "slow", .subcommands = function_subcommands},
    {0},
};
/* clang-format on */
