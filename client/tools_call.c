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

#define MAX_ARGV 160     /* SP.WRITE with 32 META fields and every option fits */
#define LINES_CAP 100000 /* bytes of a lines window (or a diff) shown at most */

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
    const char *s; /* the value as sent; NULL: not given ("" for an object or array given) */
    size_t len;
    char num[24]; /* an integer's decimal digits */
    int truth;    /* a boolean's value */
    int given;    /* given by the caller (not a default, not a false boolean) */
    json_t *j;    /* an object's or array's value (borrowed from the call's arguments) */
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
    static const char *const names[] = {"a string", "an integer", "a boolean", "an object", "an array"};
    return names[t];
}

/* The "invalid ..." message of a string that does not match its pattern. */
static void pattern_error(sbuf *err, const spt_arg *a, const char *what, const char *value)
{
    if (a->rule)
        sb_printf(err, "invalid %s '%s': %s", what, value, a->rule);
    else if (strcmp(a->name, "name") == 0)
        sb_printf(err,
                  "invalid entry name '%s': names are 1 to 255 characters of A-Z a-z 0-9 _ - . : / "
                  "with no empty, '.' or '..' path segment",
                  value);
    else
        sb_printf(err, "invalid %s '%s': printable characters without spaces", what, value);
}

/* Check an object (string fields) or array (strings) argument against a's bounds. Returns 0 or -1. */
static int check_collection(const spt_arg *a, json_t *j, sbuf *err)
{
    int obj = a->type == SPT_OBJECT;
    size_t n = obj ? json_object_size(j) : json_array_size(j), bytes = 0;
    if ((long long)n < a->min_len || (a->max_len && (long long)n > a->max_len)) {
        sb_printf(err, "argument '%s' must have %lld to %lld %s (got %zu)", a->name, a->min_len, a->max_len,
                  obj ? "fields" : "items", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *key = NULL;
        json_t *v;
        if (obj) {
            void *it = json_object_iter(j);
            for (size_t k = 0; k < i; k++)
                it = json_object_iter_next(j, it);
            key = json_object_iter_key(it);
            v = json_object_iter_value(it);
            if (!json_is_string(v)) {
                sb_printf(err, "argument '%s': the value of '%s' must be a string", a->name, key);
                return -1;
            }
            bytes += strlen(key) + json_string_length(v);
        } else {
            v = json_array_get(j, i);
            if (!json_is_string(v)) {
                sb_printf(err, "argument '%s': every item must be a string", a->name);
                return -1;
            }
            key = json_string_value(v);
            if (strlen(key) != json_string_length(v)) {
                sb_printf(err, "argument '%s': an item holds a NUL character", a->name);
                return -1;
            }
        }
        if (a->pattern && !matches(a->pattern, key)) {
            sb_printf(err, "argument '%s': ", a->name);
            pattern_error(err, a, obj ? "field name" : "item", key);
            return -1;
        }
    }
    if (a->max_bytes && (long long)bytes > a->max_bytes) {
        sb_printf(err, "argument '%s' must hold at most %lld bytes of field names and values together (got %zu)",
                  a->name, a->max_bytes, bytes);
        return -1;
    }
    return 0;
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
                 : a->type == SPT_BOOLEAN ? json_is_boolean(j)
                 : a->type == SPT_OBJECT  ? json_is_object(j)
                                          : json_is_array(j);
        if (!ok) {
            sb_printf(err, "argument '%s' must be %s", a->name, type_name(a->type));
            return -1;
        }
        if (a->type == SPT_BOOLEAN) {
            v[i].truth = json_is_true(j);
            v[i].s = v[i].truth ? "" : NULL;
            v[i].given = v[i].truth;
            continue;
        }
        v[i].given = 1;
        if (a->type == SPT_OBJECT || a->type == SPT_ARRAY) {
            if (check_collection(a, j, err) < 0)
                return -1;
            v[i].s = "";
            v[i].j = j;
            v[i].truth = 1;
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
            pattern_error(err, a, a->name, v[i].s);
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

/* -1 with err set when an argument the variant excludes was given. */
static int check_excludes(const spt_tool *t, const spt_variant *var, const argval *v, sbuf *err)
{
    for (const char *p = var->excludes; p && *p;) {
        size_t n = strcspn(p, " ");
        int i = arg_index(t, p, n);
        if (i >= 0 && v[i].given) {
            size_t w = strcspn(var->when, "=");
            sb_printf(err, "argument '%.*s' does not go with '%.*s'", (int)n, p, (int)w, var->when);
            return -1;
        }
        p += n;
        p += *p == ' ';
    }
    return 0;
}

/* Append one argument to argv. -1 when argv is full. */
static int emit(const char **argv, size_t *lens, int *argc, const char *p, size_t n)
{
    if (*argc == MAX_ARGV)
        return -1;
    argv[*argc] = p;
    lens[(*argc)++] = n;
    return 0;
}

/* Append element `elem` of an object (its field and value) or array (its item), or all of them when elem < 0. */
static int emit_collection(const spt_arg *a, json_t *j, long elem, const char **argv, size_t *lens, int *argc)
{
    long k = 0;
    if (a->type == SPT_ARRAY) {
        for (size_t i = 0; i < json_array_size(j); i++)
            if ((elem < 0 || (long)i == elem) && emit(argv, lens, argc, json_string_value(json_array_get(j, i)),
                                                      json_string_length(json_array_get(j, i))) < 0)
                return -1;
        return 0;
    }
    const char *key;
    json_t *val;
    json_object_foreach(j, key, val)
    {
        if (elem < 0 || k == elem) {
            if (emit(argv, lens, argc, key, strlen(key)) < 0 ||
                emit(argv, lens, argc, json_string_value(val), json_string_length(val)) < 0)
                return -1;
        }
        k++;
    }
    return 0;
}

/* Expand the tokens in [start, end) once (elem: which element of a collection argument, -1 all). Sets
 * *given / *missing (and the missing argument's name). Returns 0, or -1 when argv is full. */
static int expand_tokens(const spt_tool *t, const char *start, const char *end, const char *ns, const argval *v,
                         long elem, const char **argv, size_t *lens, int *argc, int *given, int *missing,
                         const char **missing_name, size_t *missing_len)
{
    for (const char *q = start; q < end;) {
        while (q < end && *q == ' ')
            q++;
        if (q >= end)
            break;
        const char *te = q;
        while (te < end && *te != ' ')
            te++;
        int rc = 0;
        if (*q == '{') {
            const char *nm = q + 1;
            size_t nl = (size_t)(te - q - 2);
            int i = nl == 2 && strncmp(nm, "ns", 2) == 0 ? -2 : arg_index(t, nm, nl);
            if (i == -2) {
                rc = emit(argv, lens, argc, ns, strlen(ns));
            } else if (i < 0 || !v[i].s || !v[i].truth) {
                (*missing)++;
                *missing_name = nm;
                *missing_len = nl;
            } else {
                (*given)++;
                if (v[i].j)
                    rc = emit_collection(&t->args[i], v[i].j, elem, argv, lens, argc);
                else if (t->args[i].type != SPT_BOOLEAN)
                    rc = emit(argv, lens, argc, v[i].s, v[i].len);
            }
        } else {
            rc = emit(argv, lens, argc, q, (size_t)(te - q));
        }
        if (rc < 0)
            return -1;
        q = te;
    }
    return 0;
}

/* The number of elements of the collection argument in the tokens [start, end): 0 when none is given. */
static size_t collection_size(const spt_tool *t, const char *start, const char *end, const argval *v)
{
    for (const char *q = strchr(start, '{'); q && q < end; q = strchr(q + 1, '{')) {
        int i = arg_index(t, q + 1, strcspn(q + 1, "}"));
        if (i >= 0 && v[i].j)
            return json_is_object(v[i].j) ? json_object_size(v[i].j) : json_array_size(v[i].j);
    }
    return 0;
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
        /* one group (or one lone token): [start, end); a group followed by '*' repeats per element */
        int group = *p == '[', repeat = 0;
        const char *start = p + group, *end;
        if (group) {
            end = strchr(start, ']');
            p = end + 1;
            repeat = *p == '*';
            p += repeat;
        } else {
            end = strchr(start, ' ');
            if (!end)
                end = start + strlen(start);
            p = end;
        }
        int before = argc, given = 0, missing = 0;
        const char *missing_name = NULL;
        size_t missing_len = 0;
        if (repeat) {
            size_t n = collection_size(t, start, end, v);
            for (size_t e = 0; e < n; e++)
                if (expand_tokens(t, start, end, ns, v, (long)e, argv, lens, &argc, &given, &missing, &missing_name,
                                  &missing_len) < 0)
                    goto full;
            continue;
        }
        if (expand_tokens(t, start, end, ns, v, -1, argv, lens, &argc, &given, &missing, &missing_name, &missing_len) <
            0)
            goto full;
        if (missing && (!group || given)) {
            sb_printf(err, "missing argument '%.*s'", (int)missing_len, missing_name);
            if (group)
                sb_printf(err, " (it goes with the others of: %.*s)", (int)(end - start), start);
            return -1;
        }
        if (missing)
            argc = before;
    }
    return argc;
full: /* the table's mistake, not the model's: the bounds keep every call below MAX_ARGV */
    sb_printf(err, "internal error: the template of %s has more than %d arguments", t->name, MAX_ARGV);
    return -1;
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
static void fmt_read(sbuf *b, const redisReply *r, const char *name, int by_lines, int want_b64, const char *version)
{
    char more[48] = ""; /* a read of an earlier version continues with the same version */
    if (version)
        snprintf(more, sizeof more, ", version=%s", version);
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
        sb_printf(b, "\n[cut after %lld lines (%zu bytes): ask for fewer lines; continue with start=%lld%s]", shown,
                  cut, off + shown, more);
        return;
    } else {
        sb_add(b, c->str, c->len);
    }
    if (!truncated)
        return;
    if (by_lines)
        sb_printf(b, "\n[%lld more lines after this; continue with start=%lld%s]", lines - next + 1, next, more);
    else
        sb_printf(b, "\n[truncated: %lld more %s after this; continue with offset=%lld%s]", length - next, unit, next,
                  more);
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

/* A metadata map (a flat array, or a RESP3 map) as compact JSON, fields in the server's order. */
static void fmt_meta(sbuf *b, const redisReply *m)
{
    json_t *o = json_object();
    for (size_t i = 0; i + 1 < m->elements; i += 2)
        json_object_setn_new_nocheck(o, m->element[i]->str, m->element[i]->len,
                                     json_stringn_nocheck(m->element[i + 1]->str, m->element[i + 1]->len));
    char *text = json_dumps(o, JSON_COMPACT | JSON_ENCODE_ANY);
    sb_printf(b, "%s", text ? text : "(not UTF-8)");
    free(text);
    json_decref(o);
}

static void fmt_list(sbuf *b, const redisReply *r, int with_meta)
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
        const redisReply *meta = map_get(e, "meta");
        if (with_meta && meta) {
            sb_printf(b, " ");
            fmt_meta(b, meta);
        }
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
        else if (v->type == REDIS_REPLY_ARRAY || v->type == 9 /* REDIS_REPLY_MAP */) {
            sb_printf(b, "%s: ", r->element[i]->str);
            fmt_meta(b, v);
        } else if (v->str)
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

static const char *plural(long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static void fmt_snapshots(sbuf *b, const redisReply *r)
{
    if (r->elements == 0)
        sb_printf(b, "No snapshots.");
    for (size_t i = 0; i < r->elements; i++) {
        const redisReply *s = r->element[i];
        char when[32];
        iso_time(when, sizeof when, s->element[1]->integer);
        sb_printf(b, "%s'%s': taken %s, %lld %s, %lld bytes", i ? "\n" : "", s->element[0]->str, when,
                  s->element[2]->integer, plural(s->element[2]->integer, "entry", "entries"), s->element[3]->integer);
    }
}

static void fmt_diff(sbuf *b, const redisReply *r, const char *from, const char *to)
{
    if (r->elements == 0) {
        sb_printf(b, "No entry differs between '%s' and '%s'.", from, to);
        return;
    }
    sb_printf(b, "%zu %s from '%s' to '%s':", r->elements, r->elements == 1 ? "entry differs" : "entries differ", from,
              to);
    for (size_t i = 0; i < r->elements; i++) {
        redisReply **e = r->element[i]->element;
        const char *status = e[0]->str;
        if (strcmp(status, "added") == 0)
            sb_printf(b, "\nadded '%s' (version %lld, %lld bytes)", e[1]->str, e[3]->integer, e[5]->integer);
        else if (strcmp(status, "removed") == 0)
            sb_printf(b, "\nremoved '%s' (was version %lld, %lld bytes)", e[1]->str, e[2]->integer, e[4]->integer);
        else
            sb_printf(b, "\n%s '%s' (version %lld -> %lld, %lld -> %lld bytes)", status, e[1]->str, e[2]->integer,
                      e[3]->integer, e[4]->integer, e[5]->integer);
    }
}

static void fmt_diff_entry(sbuf *b, const redisReply *r, const char *name, const char *from, const char *to)
{
    if (r->len == 0) {
        sb_printf(b, "'%s' is the same in '%s' and '%s'.", name, from, to);
        return;
    }
    if (r->len <= LINES_CAP) {
        sb_add(b, r->str, r->len);
        return;
    }
    size_t cut = LINES_CAP;
    while (cut > 0 && r->str[cut - 1] != '\n')
        cut--;
    if (cut == 0)
        cut = LINES_CAP;
    sb_add(b, r->str, cut);
    sb_printf(b, "[diff cut after %zu of its %zu bytes: read the entry around the later changes instead]", cut, r->len);
}

static void fmt_history(sbuf *b, const redisReply *r, const char *name)
{
    if (r->elements == 0) {
        sb_printf(b, "No version of '%s' is kept: the server keeps no history (sp-history-depth 0).", name);
        return;
    }
    sb_printf(b, "Versions of '%s' kept, oldest first:", name);
    for (size_t i = 0; i < r->elements; i++) {
        redisReply **e = r->element[i]->element;
        char when[32];
        iso_time(when, sizeof when, e[1]->integer);
        sb_printf(b, "\nversion %lld%s: %s, %s, %lld bytes, by %s", e[0]->integer,
                  i + 1 == r->elements ? " (current)" : "", when, e[2]->str, e[3]->integer,
                  e[4]->len ? e[4]->str : "(unnamed)");
    }
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
    int empty_ok = strcmp(fmt, "list") == 0 || strcmp(fmt, "snapshots") == 0 || strcmp(fmt, "diff") == 0 ||
                   strcmp(fmt, "history") == 0;
    if (r->type == REDIS_REPLY_NIL || (r->type == REDIS_REPLY_ARRAY && r->elements == 0 && !empty_ok)) {
        if (strcmp(fmt, "lease") == 0) {
            sb_printf(b, "the lease is still held by another agent: waited %s ms",
                      val(t, v, "wait_ms") ? val(t, v, "wait_ms") : "0");
            return -1;
        }
        if (strcmp(fmt, "changes") == 0) {
            sb_printf(b, "No change in %s ms.", val(t, v, "wait_ms") ? val(t, v, "wait_ms") : "0");
            return 0;
        }
        if (strcmp(fmt, "diff_entry") == 0) {
            sb_printf(b, "no entry '%s' in '%s' or in '%s'", name, val(t, v, "from"), val(t, v, "to"));
            return -1;
        }
        sb_printf(b, "no entry '%s' in the scratchpad", name);
        return -1;
    }
    if (strcmp(fmt, "version") == 0 && r->type == REDIS_REPLY_INTEGER)
        sb_printf(b, "OK: '%s' is at version %lld.", name, r->integer);
    else if (strcmp(fmt, "length") == 0 && r->type == REDIS_REPLY_INTEGER)
        sb_printf(b, "OK: '%s' is now %lld long.", name, r->integer);
    else if ((strcmp(fmt, "read") == 0 || strcmp(fmt, "lines") == 0) && is_pair(r))
        fmt_read(b, r, name, fmt[0] == 'l', v[arg_index(t, "base64", 6)].truth, val(t, v, "version"));
    else if ((strcmp(fmt, "grep") == 0 || strcmp(fmt, "grep_entries") == 0) && is_pair(r)) {
        char where[1100]; /* a name or glob: at most 255 characters of up to 4 bytes */
        if (fmt[4])
            snprintf(where, sizeof where, "the entries matching '%s'",
                     val(t, v, "entries") ? val(t, v, "entries") : "");
        else
            snprintf(where, sizeof where, "'%s'", name);
        fmt_grep(b, r, where);
    } else if (strcmp(fmt, "list") == 0 && is_pair(r))
        fmt_list(b, r, val(t, v, "with_metadata") != NULL);
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
    else if (strcmp(fmt, "snapshot") == 0 && r->type == REDIS_REPLY_INTEGER)
        sb_printf(b,
                  "Snapshot '%s' taken: %lld %s. scratchpad_diff from=\"%s\" shows what changes after it; "
                  "scratchpad_restore label=\"%s\" goes back to it.",
                  val(t, v, "label"), r->integer, plural(r->integer, "entry", "entries"), val(t, v, "label"),
                  val(t, v, "label"));
    else if (strcmp(fmt, "snapshots") == 0 && r->type == REDIS_REPLY_ARRAY)
        fmt_snapshots(b, r);
    else if (strcmp(fmt, "diff") == 0 && r->type == REDIS_REPLY_ARRAY)
        fmt_diff(b, r, val(t, v, "from"), val(t, v, "to"));
    else if (strcmp(fmt, "diff_entry") == 0 && r->type == REDIS_REPLY_STRING)
        fmt_diff_entry(b, r, name, val(t, v, "from"), val(t, v, "to"));
    else if (strcmp(fmt, "restored") == 0 && r->type == REDIS_REPLY_INTEGER)
        sb_printf(b, "Restored snapshot '%s': %lld %s changed, each at a new version.", val(t, v, "label"), r->integer,
                  plural(r->integer, "entry", "entries"));
    else if (strcmp(fmt, "dropped") == 0 && r->type == REDIS_REPLY_INTEGER) {
        if (!r->integer) {
            sb_printf(b, "no snapshot '%s' to drop", val(t, v, "label"));
            return -1;
        }
        sb_printf(b, "Dropped snapshot '%s'.", val(t, v, "label"));
    } else if (strcmp(fmt, "history") == 0 && r->type == REDIS_REPLY_ARRAY)
        fmt_history(b, r, name);
    else if (strcmp(fmt, "reverted") == 0 && r->type == REDIS_REPLY_INTEGER)
        sb_printf(b, "OK: '%s' has the content of version %s again, as version %lld.", name, val(t, v, "version"),
                  r->integer);
    else if (strcmp(fmt, "meta") == 0 && r->type == REDIS_REPLY_INTEGER) {
        size_t n = json_object_size(v[arg_index(t, "set", 3)].j);
        sb_printf(b, "OK: set %zu metadata %s of '%s', now at version %lld.", n,
                  plural((long long)n, "field", "fields"), name, r->integer);
    } else if (strcmp(fmt, "meta") == 0 && is_pair(r)) {
        long long removed = r->element[0]->integer;
        if (removed == 0)
            sb_printf(b, "No metadata field removed: '%s' stays at version %lld.", name, r->element[1]->integer);
        else
            sb_printf(b, "OK: removed %lld metadata %s of '%s', now at version %lld.", removed,
                      plural(removed, "field", "fields"), name, r->element[1]->integer);
    } else {
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
    if (check_excludes(t, var, v, &b) < 0)
        goto done;
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
