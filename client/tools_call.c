/* tools_call.c -- a tool call from a model becomes an SP command, its reply text.
 *
 * spt_call checks the arguments against the table (so a model's mistake is
 * answered with what it got wrong and the server is not asked), fills the
 * defaults, picks the variant, expands its argv template (tools.h), sends the
 * command on the library's hiredis connection and renders the reply with the
 * variant's result format. client/python/scratchpad/_tools.py does the same
 * from the generated tools_table.json and renders the same texts: a change of
 * wording here is a change there (tests/integration/mcp_stdio.py compares).
 */
#include <hiredis/hiredis.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools.h"

#define MAX_ARGV 32
#define MAX_GROUP 8      /* tokens in one [group] of a template */
#define LINES_CAP 100000 /* bytes of a lines window shown at most */

/* A growing string. On allocation failure `oom` is set and appends stop. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_add(sbuf *b, const char *p, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        sb_add(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_add(b, big, (size_t)n);
    free(big);
}

/* The value of each argument of a call, after defaults. */
typedef struct argval {
    const char *s; /* the value as sent; NULL: not given */
    size_t len;
    char num[24]; /* an integer's decimal digits */
    int truth;    /* a boolean's value */
} argval;

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

static int matches(const char *pattern, const char *s)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    int ok = regexec(&re, s, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

static const char *type_name(spt_type t)
{
    return t == SPT_STRING ? "a string" : t == SPT_INTEGER ? "an integer" : "a boolean";
}

/* Check args against t's table and fill v (one per table row). Returns 0, or
 * -1 with the reason in err. */
static int check_args(const spt_tool *t, json_t *args, argval *v, sbuf *err)
{
    const char *key;
    json_t *val;
    if (args && !json_is_object(args)) {
        sb_printf(err, "arguments must be an object");
        return -1;
    }
    json_object_foreach(args, key, val)
    {
        const spt_arg *a = t->args;
        while (a->name && strcmp(a->name, key) != 0)
            a++;
        if (!a->name) {
            sb_printf(err, "unknown argument '%s' (%s takes:", key, t->name);
            for (a = t->args; a->name; a++)
                sb_printf(err, " %s", a->name);
            sb_printf(err, ")");
            return -1;
        }
    }
    for (size_t i = 0; t->args[i].name; i++) {
        const spt_arg *a = &t->args[i];
        json_t *j = args ? json_object_get(args, a->name) : NULL;
        memset(&v[i], 0, sizeof v[i]);
        if (!j || json_is_null(j)) {
            if (a->required) {
                sb_printf(err, "missing required argument '%s'", a->name);
                return -1;
            }
            if (a->def) {
                v[i].s = a->def;
                v[i].len = strlen(a->def);
                v[i].truth = 1;
            }
            continue;
        }
        int ok = a->type == SPT_STRING    ? json_is_string(j)
                 : a->type == SPT_INTEGER ? json_is_integer(j)
                                          : json_is_boolean(j);
        if (!ok) {
            sb_printf(err, "argument '%s' must be %s", a->name, type_name(a->type));
            return -1;
        }
        if (a->type == SPT_BOOLEAN) {
            v[i].truth = json_is_true(j);
            v[i].s = v[i].truth ? "" : NULL;
            continue;
        }
        if (a->type == SPT_INTEGER) {
            long long n = json_integer_value(j);
            if (a->has_bounds && (n < a->min || n > a->max)) {
                sb_printf(err, "argument '%s' must be between %lld and %lld (got %lld)", a->name, a->min, a->max, n);
                return -1;
            }
            snprintf(v[i].num, sizeof v[i].num, "%lld", n);
            v[i].s = v[i].num;
            v[i].len = strlen(v[i].num);
            v[i].truth = 1;
            continue;
        }
        v[i].s = json_string_value(j);
        v[i].len = json_string_length(j);
        v[i].truth = 1;
        size_t chars = utf8_chars(v[i].s, v[i].len);
        if (chars < (size_t)a->min_len || (a->max_len && chars > (size_t)a->max_len)) {
            sb_printf(err, "argument '%s' must be %lld to %lld characters long (got %zu)", a->name, a->min_len,
                      a->max_len ? a->max_len : (long long)1 << 31, chars);
            return -1;
        }
        if (a->enumv) {
            const char *const *e = a->enumv;
            while (*e && strcmp(*e, v[i].s) != 0)
                e++;
            if (!*e) {
                sb_printf(err, "argument '%s' must be one of:", a->name);
                for (e = a->enumv; *e; e++)
                    sb_printf(err, " %s", *e);
                return -1;
            }
        }
        if (a->pattern && (strlen(v[i].s) != v[i].len || !matches(a->pattern, v[i].s))) {
            if (strcmp(a->name, "name") == 0)
                sb_printf(err,
                          "invalid entry name '%s': names are 1 to 255 characters of A-Z a-z 0-9 _ - . : / "
                          "with no empty, '.' or '..' path segment",
                          v[i].s);
            else
                sb_printf(err, "invalid %s '%s': printable characters without spaces", a->name, v[i].s);
            return -1;
        }
    }
    return 0;
}

static int arg_index(const spt_tool *t, const char *name, size_t n)
{
    for (int i = 0; t->args[i].name; i++)
        if (strlen(t->args[i].name) == n && strncmp(t->args[i].name, name, n) == 0)
            return i;
    return -1;
}

static const spt_variant *pick_variant(const spt_tool *t, const argval *v)
{
    const spt_variant *var = t->variants;
    for (; var[1].argv; var++) {
        const char *eq = strchr(var->when, '=');
        int i = arg_index(t, var->when, eq ? (size_t)(eq - var->when) : strlen(var->when));
        if (i < 0 || !v[i].s)
            continue;
        if (!eq || strcmp(v[i].s, eq + 1) == 0)
            break;
    }
    return var;
}

/* Expand the template into argv. Returns the count, or -1 with err set. */
static int expand(const spt_tool *t, const char *tmpl, const char *ns, const argval *v, const char **argv, size_t *lens,
                  sbuf *err)
{
    int argc = 0;
    const char *p = tmpl;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        /* one group (or one lone token): [start, end) */
        int group = *p == '[';
        const char *start = p + group, *end;
        if (group) {
            end = strchr(start, ']');
            p = end + 1;
        } else {
            end = strchr(start, ' ');
            if (!end)
                end = start + strlen(start);
            p = end;
        }
        const char *gargv[MAX_GROUP];
        size_t glens[MAX_GROUP];
        int gn = 0, given = 0, missing = 0;
        const char *missing_name = NULL;
        size_t missing_len = 0;
        for (const char *q = start; q < end;) {
            while (q < end && *q == ' ')
                q++;
            if (q >= end)
                break;
            const char *te = q;
            while (te < end && *te != ' ')
                te++;
            if (gn == MAX_GROUP) { /* the table's mistake, not the model's */
                sb_printf(err, "internal error: a group of %s has more than %d tokens", t->name, MAX_GROUP);
                return -1;
            }
            if (*q == '{') {
                const char *nm = q + 1;
                size_t nl = (size_t)(te - q - 2);
                if (nl == 2 && strncmp(nm, "ns", 2) == 0) {
                    gargv[gn] = ns;
                    glens[gn++] = strlen(ns);
                } else {
                    int i = arg_index(t, nm, nl);
                    if (i < 0 || !v[i].s || !v[i].truth) {
                        missing++;
                        missing_name = nm;
                        missing_len = nl;
                    } else {
                        given++;
                        if (t->args[i].type != SPT_BOOLEAN) {
                            gargv[gn] = v[i].s;
                            glens[gn++] = v[i].len;
                        }
                    }
                }
            } else {
                gargv[gn] = q;
                glens[gn++] = (size_t)(te - q);
            }
            q = te;
        }
        if (missing && (!group || given)) {
            sb_printf(err, "missing argument '%.*s'", (int)missing_len, missing_name);
            if (group)
                sb_printf(err, " (it goes with the others of: %.*s)", (int)(end - start), start);
            return -1;
        }
        if (missing)
            continue;
        if (argc + gn > MAX_ARGV) {
            sb_printf(err, "internal error: the template of %s has more than %d arguments", t->name, MAX_ARGV);
            return -1;
        }
        for (int k = 0; k < gn; k++) {
            argv[argc] = gargv[k];
            lens[argc++] = glens[k];
        }
    }
    return argc;
}

/* --------------------------------------------------------- result formats */

static const redisReply *map_get(const redisReply *r, const char *key)
{
    if (!r || (r->type != REDIS_REPLY_ARRAY && r->type != 9 /* REDIS_REPLY_MAP */))
        return NULL;
    for (size_t i = 0; i + 1 < r->elements; i += 2)
        if (r->element[i]->str && strcmp(r->element[i]->str, key) == 0)
            return r->element[i + 1];
    return NULL;
}

static long long map_int(const redisReply *r, const char *key)
{
    const redisReply *e = map_get(r, key);
    return e && e->type == REDIS_REPLY_INTEGER ? e->integer : 0;
}

static const char *map_str(const redisReply *r, const char *key)
{
    const redisReply *e = map_get(r, key);
    return e && e->str ? e->str : "";
}

static void base64(sbuf *b, const unsigned char *s, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned x = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
        char o[4] = {t[x >> 18 & 63], t[x >> 12 & 63], i + 1 < n ? t[x >> 6 & 63] : '=', i + 2 < n ? t[x & 63] : '='};
        sb_add(b, o, 4);
    }
}

static void iso_time(char *out, size_t n, long long ms)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* An SP.READ ... WITHMETA reply: the window, and where the entry continues. */
static void fmt_read(sbuf *b, const redisReply *r, const char *name, int by_lines, int want_b64)
{
    const redisReply *c = r->element[0], *m = r->element[1];
    long long length = map_int(m, "length"), lines = map_int(m, "lines"), off = map_int(m, "offset");
    long long next = map_int(m, "next_offset");
    int truncated = map_int(m, "truncated") != 0, binary = strcmp(map_str(m, "kind"), "binary") == 0;
    const char *unit = binary ? "bytes" : "characters";
    if (binary) {
        if (want_b64) {
            sb_printf(b, "[binary entry '%s', %lld bytes; %zu bytes from byte %lld in base64:]\n", name, length, c->len,
                      off);
            base64(b, (const unsigned char *)c->str, c->len);
        } else {
            sb_printf(b,
                      "[binary entry '%s': %lld bytes in all; this window is %zu bytes from byte %lld. "
                      "Pass base64: true to get them in base64, or use scratchpad_peek for a summary.]",
                      name, length, c->len, off);
        }
    } else if (c->len == 0) {
        if (length == 0)
            sb_printf(b, "[the entry '%s' is empty]", name);
        else
            sb_printf(b, "[nothing there: '%s' has %lld characters in %lld lines]", name, length, lines);
        return;
    } else if (by_lines && c->len > LINES_CAP) {
        size_t cut = LINES_CAP;
        while (cut > 0 && c->str[cut - 1] != '\n')
            cut--;
        if (cut == 0)
            cut = LINES_CAP;
        long long shown = 0;
        for (size_t i = 0; i < cut; i++)
            shown += c->str[i] == '\n';
        sb_add(b, c->str, cut);
        sb_printf(b, "\n[cut after %lld lines (%zu bytes): ask for fewer lines; continue with start=%lld]", shown, cut,
                  off + shown);
        return;
    } else {
        sb_add(b, c->str, c->len);
    }
    if (!truncated)
        return;
    if (by_lines)
        sb_printf(b, "\n[%lld more lines after this; continue with start=%lld]", lines - next + 1, next);
    else
        sb_printf(b, "\n[truncated: %lld more %s after this; continue with offset=%lld]", length - next, unit, next);
}

/* where: "'<name>'" or "the entries matching '<glob>'". */
static void fmt_grep(sbuf *b, const redisReply *r, const char *where)
{
    const redisReply *lines = r->element[0], *m = r->element[1];
    long long matched = map_int(m, "matched"), shown = map_int(m, "shown");
    if (matched == 0) {
        sb_printf(b, "No line of %s matches.", where);
        return;
    }
    sb_printf(b, "%lld matching line%s in %s", matched, matched == 1 ? "" : "s", where);
    if (map_int(m, "truncated"))
        sb_printf(b, " (the first %lld shown)", shown);
    sb_printf(b, ":");
    for (size_t i = 0; i < lines->elements; i++) {
        sb_add(b, "\n", 1);
        sb_add(b, lines->element[i]->str, lines->element[i]->len);
    }
}

static void fmt_list(sbuf *b, const redisReply *r)
{
    const redisReply *items = r->element[1];
    if (items->elements == 0)
        sb_printf(b, "No entries.");
    for (size_t i = 0; i < items->elements; i++) {
        const redisReply *e = items->element[i];
        int binary = strcmp(map_str(e, "kind"), "binary") == 0;
        char when[32];
        iso_time(when, sizeof when, map_int(e, "updated"));
        sb_printf(b, "%s%s (%s, %lld %s, version %lld, updated %s", i ? "\n" : "", map_str(e, "name"),
                  binary ? "binary" : "text", map_int(e, "length"), binary ? "bytes" : "characters",
                  map_int(e, "version"), when);
        long long ttl = map_int(e, "ttl");
        if (ttl >= 0)
            sb_printf(b, ", expires in %lld s", (ttl + 999) / 1000);
        sb_printf(b, ")");
    }
    if (strcmp(r->element[0]->str, "0") != 0)
        sb_printf(b, "\n[more entries: call again with cursor=\"%s\"]", r->element[0]->str);
}

static void fmt_map(sbuf *b, const redisReply *r)
{
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        const redisReply *v = r->element[i + 1];
        if (i)
            sb_add(b, "\n", 1);
        if (v->type == REDIS_REPLY_INTEGER)
            sb_printf(b, "%s: %lld", r->element[i]->str, v->integer);
        else if (v->str)
            sb_printf(b, "%s: %s", r->element[i]->str, v->str);
        else
            sb_printf(b, "%s: (none)", r->element[i]->str);
    }
}

static void fmt_changes(sbuf *b, const redisReply *r, const char *since)
{
    long long last = map_int(r, "last");
    const redisReply *ch = map_get(r, "changes");
    if (map_int(r, "gap")) {
        sb_printf(b,
                  "[gap: the changes after %s are no longer all kept; re-read what you need. Latest sequence "
                  "number: %lld]",
                  since ? since : "0", last);
        return;
    }
    if (!ch || ch->elements == 0) {
        sb_printf(b, "No change since %s. Latest sequence number: %lld.", since ? since : "0", last);
        return;
    }
    for (size_t i = 0; i < ch->elements; i++) {
        const redisReply *c = ch->element[i];
        char when[32];
        iso_time(when, sizeof when, c->element[1]->integer);
        sb_printf(b, "%lld %s %s '%s' version %lld, %lld bytes, by %s\n", c->element[0]->integer, when,
                  c->element[2]->str, c->element[3]->str, c->element[4]->integer, c->element[5]->integer,
                  c->element[6]->len ? c->element[6]->str : "(unnamed)");
    }
    sb_printf(b, "Latest sequence number: %lld; pass since=%lld next time.",
              ch->element[ch->elements - 1]->element[0]->integer, ch->element[ch->elements - 1]->element[0]->integer);
}

static int is_pair(const redisReply *r)
{
    return r->type == REDIS_REPLY_ARRAY && r->elements == 2;
}

/* The value of argument `name` as sent, or NULL when not given. */
static const char *val(const spt_tool *t, const argval *v, const char *name)
{
    int i = arg_index(t, name, strlen(name));
    return i >= 0 ? v[i].s : NULL;
}

/* Render reply r with format `fmt`. Returns 0, or -1 for a tool error (b says why). */
static int render(sbuf *b, const char *fmt, const redisReply *r, const spt_tool *t, const argval *v)
{
    int iname = arg_index(t, "name", 4);
    const char *name = iname >= 0 && v[iname].s ? v[iname].s : "";
    if (r->type == REDIS_REPLY_ERROR) { /* the server's message, without the generic "ERR " */
        size_t skip = r->len > 4 && strncmp(r->str, "ERR ", 4) == 0 ? 4 : 0;
        sb_add(b, r->str + skip, r->len - skip);
        return -1;
    }
    if (r->type == REDIS_REPLY_NIL || (r->type == REDIS_REPLY_ARRAY && r->elements == 0 && strcmp(fmt, "list"))) {
        if (strcmp(fmt, "lease") == 0) {
            sb_printf(b, "the lease is still held by another agent: waited %s ms",
                      val(t, v, "wait_ms") ? val(t, v, "wait_ms") : "0");
            return -1;
        }
        if (strcmp(fmt, "changes") == 0) {
            sb_printf(b, "No change in %s ms.", val(t, v, "wait_ms") ? val(t, v, "wait_ms") : "0");
            return 0;
        }
        sb_printf(b, "no entry '%s' in the scratchpad", name);
        return -1;
    }
    if (strcmp(fmt, "version") == 0 && r->type == REDIS_REPLY_INTEGER)
        sb_printf(b, "OK: '%s' is at version %lld.", name, r->integer);
    else if (strcmp(fmt, "length") == 0 && r->type == REDIS_REPLY_INTEGER)
        sb_printf(b, "OK: '%s' is now %lld long.", name, r->integer);
    else if ((strcmp(fmt, "read") == 0 || strcmp(fmt, "lines") == 0) && is_pair(r))
        fmt_read(b, r, name, fmt[0] == 'l', v[arg_index(t, "base64", 6)].truth);
    else if ((strcmp(fmt, "grep") == 0 || strcmp(fmt, "grep_entries") == 0) && is_pair(r)) {
        char where[1100]; /* a name or glob: at most 255 characters of up to 4 bytes */
        if (fmt[4])
            snprintf(where, sizeof where, "the entries matching '%s'",
                     val(t, v, "entries") ? val(t, v, "entries") : "");
        else
            snprintf(where, sizeof where, "'%s'", name);
        fmt_grep(b, r, where);
    } else if (strcmp(fmt, "list") == 0 && is_pair(r))
        fmt_list(b, r);
    else if (strcmp(fmt, "text") == 0 && r->type == REDIS_REPLY_STRING)
        sb_add(b, r->str, r->len);
    else if (strcmp(fmt, "map") == 0 && r->type == REDIS_REPLY_ARRAY)
        fmt_map(b, r);
    else if (strcmp(fmt, "edit") == 0 && is_pair(r))
        sb_printf(b, "OK: %lld replacement%s in '%s', now at version %lld.", r->element[0]->integer,
                  r->element[0]->integer == 1 ? "" : "s", name, r->element[1]->integer);
    else if (strcmp(fmt, "deleted") == 0 && r->type == REDIS_REPLY_INTEGER)
        sb_printf(b, r->integer ? "Deleted '%s'." : "No entry '%s': nothing deleted.", name);
    else if (strcmp(fmt, "lease") == 0 && is_pair(r)) {
        char when[32];
        iso_time(when, sizeof when, r->element[1]->integer);
        sb_printf(b,
                  "You hold the lease on '%s' until %s with token %lld: pass fence_resource=\"%s\" and "
                  "fence_token=%lld with your writes, and release it when done.",
                  val(t, v, "resource"), when, r->element[0]->integer, val(t, v, "resource"), r->element[0]->integer);
    } else if (strcmp(fmt, "released") == 0 && r->type == REDIS_REPLY_INTEGER) {
        if (!r->integer) {
            sb_printf(b, "not released: '%s' did not hold the lease on '%s' with token %s (it may have expired)",
                      val(t, v, "holder"), val(t, v, "resource"), val(t, v, "token"));
            return -1;
        }
        sb_printf(b, "Released the lease on '%s'.", val(t, v, "resource"));
    } else if (strcmp(fmt, "changes") == 0 && r->type == REDIS_REPLY_ARRAY)
        fmt_changes(b, r, val(t, v, "since"));
    else {
        sb_printf(b, "unexpected reply from the server for %s", t->name);
        return -1;
    }
    return 0;
}

char *spt_call(spc_ctx *c, const char *ns, const char *name, json_t *args, int *is_error)
{
    sbuf b = {0};
    argval v[16];
    const char *argv[MAX_ARGV];
    size_t lens[MAX_ARGV];
    redisReply *r = NULL;
    const spt_tool *t = spt_find(name);
    *is_error = 1;
    if (!t) {
        sb_printf(&b, "unknown tool '%s'", name ? name : "");
        goto done;
    }
    if (check_args(t, args, v, &b) < 0)
        goto done;
    const spt_variant *var = pick_variant(t, v);
    int argc = expand(t, var->argv, ns, v, argv, lens, &b);
    if (argc < 0)
        goto done;
    struct redisContext *rc = spc_redis(c);
    if (!rc || rc->err || spc_err(c) == SP_ERR_IO || spc_err(c) == SP_ERR_TIMEOUT) {
        sb_printf(&b, "the scratchpad server is unavailable: %s", rc && rc->err ? rc->errstr : spc_errstr(c));
        goto done;
    }
    r = redisCommandArgv(rc, argc, argv, lens);
    if (!r) {
        sb_printf(&b, "the connection to the scratchpad server was lost: %s", rc->errstr);
        goto done;
    }
    *is_error = render(&b, var->result, r, t, v) < 0;
done:
    if (r)
        freeReplyObject(r);
    if (b.oom || !b.s) {
        free(b.s);
        return b.oom ? NULL : strdup("");
    }
    return b.s;
}

int spt_ensure_connected(spc_ctx *c, int db)
{
    struct redisContext *rc = spc_redis(c);
    if (rc && !rc->err && spc_err(c) != SP_ERR_IO && spc_err(c) != SP_ERR_TIMEOUT && spc_err(c) != SP_ERR_AUTH)
        return 0;
    if (spc_reconnect(c) != SP_OK)
        return -1;
    if (db) {
        redisReply *r = redisCommand(spc_redis(c), "SELECT %d", db);
        int ok = r && r->type == REDIS_REPLY_STATUS;
        if (r)
            freeReplyObject(r);
        if (!ok)
            return -1;
    }
    return 0;
}
