/* spc_cmd.c -- SP commands as argument vectors.
 *
 * No I/O here: each builder turns a call and its options struct into the words
 * of one command (an spc_cmd) and says how its reply is to be read. The same
 * builders serve the synchronous, batched and asynchronous paths, so the three
 * agree on every option.
 *
 * Invariants: a builder validates only what cannot be expressed on the wire
 * (NULL pointers, conflicting flags, values outside a field's documented
 * range); everything else is the server's to judge, so the message a caller
 * sees is the server's. Words point at the caller's strings or at the
 * command's own number buffers; nothing is copied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spc_internal.h"

/* ---- building ---- */

static void cmd_init(spc_cmd *c, spc_conv conv)
{
    memset(c, 0, sizeof(*c));
    c->conv = conv;
    c->cap = SPC_INLINE_ARGS;
    c->argv = c->argv_s;
    c->lens = c->lens_s;
    c->status = SP_OK;
}

void spc_cmd_free(spc_cmd *c)
{
    if (c->argv != c->argv_s)
        free((void *)c->argv);
    if (c->lens != c->lens_s)
        free(c->lens);
    c->argv = c->argv_s;
    c->lens = c->lens_s;
    c->argc = 0;
}

static int fail(spc_cmd *c, int status, const char *why)
{
    if (c->status == SP_OK) {
        c->status = status;
        c->why = why;
    }
    return c->status;
}

/* Append one word (p, n); grows the arrays past the inline ones. */
static void add(spc_cmd *c, const void *p, size_t n)
{
    if (c->status != SP_OK)
        return;
    if (c->argc == c->cap) {
        int ncap = c->cap * 2;
        const char **nargv = malloc(sizeof(*nargv) * (size_t)ncap);
        size_t *nlens = malloc(sizeof(*nlens) * (size_t)ncap);
        if (!nargv || !nlens) {
            free((void *)nargv);
            free(nlens);
            fail(c, SP_ERR_OOM, "out of memory");
            return;
        }
        memcpy((void *)nargv, c->argv, sizeof(*nargv) * (size_t)c->argc);
        memcpy(nlens, c->lens, sizeof(*nlens) * (size_t)c->argc);
        if (c->argv != c->argv_s)
            free((void *)c->argv);
        if (c->lens != c->lens_s)
            free(c->lens);
        c->argv = nargv;
        c->lens = nlens;
        c->cap = ncap;
    }
    c->argv[c->argc] = p ? p : "";
    c->lens[c->argc] = n;
    c->argc++;
}

static void add_str(spc_cmd *c, const char *s)
{
    add(c, s, strlen(s));
}

static void add_ll(spc_cmd *c, long long v)
{
    int n;
    if (c->nnum == SPC_NUMS) {
        fail(c, SP_ERR_ARG, "too many numeric arguments");
        return;
    }
    n = snprintf(c->num[c->nnum], sizeof(c->num[0]), "%lld", v);
    add(c, c->num[c->nnum], (size_t)n);
    c->nnum++;
}

/* The command word, ns and (unless NULL) an entry name; checks the pointers. */
static int start(spc_cmd *c, spc_conv conv, const char *cmd, const char *ns, const char *name, int want_name)
{
    cmd_init(c, conv);
    if (!ns)
        return fail(c, SP_ERR_ARG, "the scratchpad name (ns) is NULL");
    if (want_name && !name)
        return fail(c, SP_ERR_ARG, "the entry name is NULL");
    add_str(c, cmd);
    add_str(c, ns);
    if (want_name)
        add_str(c, name);
    return c->status;
}

static int check_data(spc_cmd *c, const void *data, size_t len, const char *what)
{
    if (!data && len)
        return fail(c, SP_ERR_ARG, what);
    return SP_OK;
}

/* IFVERSION: 0 none, > 0 that version, SPC_MUST_NOT_EXIST 0. */
static void add_ifversion(spc_cmd *c, long long v)
{
    if (v == 0)
        return;
    if (v < 0 && v != SPC_MUST_NOT_EXIST) {
        fail(c, SP_ERR_ARG, "ifversion must be 0 (no check), a version, or SPC_MUST_NOT_EXIST");
        return;
    }
    add_str(c, "IFVERSION");
    add_ll(c, v < 0 ? 0 : v);
}

static void add_ull(spc_cmd *c, uint64_t v)
{
    if (v > (uint64_t)INT64_MAX) {
        fail(c, SP_ERR_ARG, "a number is out of range");
        return;
    }
    add_ll(c, (long long)v);
}

/* FENCE resource token, when f names a resource. */
static void add_fence(spc_cmd *c, const spc_fence *f)
{
    if (!f || !f->resource)
        return;
    if (f->token == 0) {
        fail(c, SP_ERR_ARG, "a fence token is a positive integer");
        return;
    }
    add_str(c, "FENCE");
    add_str(c, f->resource);
    add_ull(c, f->token);
}

/* keyword field value, for each of n metadata fields (META on writes, WHERE on lists). */
static void add_fields(spc_cmd *c, const char *keyword, const spc_meta_field *f, size_t n)
{
    if (n && !f) {
        fail(c, SP_ERR_ARG, "metadata fields are NULL with a non-zero count");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (!f[i].field || (!f[i].value && f[i].value_len)) {
            fail(c, SP_ERR_ARG, "a metadata field or value is NULL");
            return;
        }
        if (keyword)
            add_str(c, keyword);
        add_str(c, f[i].field);
        add(c, f[i].value, f[i].value_len);
    }
}

static void add_kind(spc_cmd *c, spc_kind k)
{
    if (k == SPC_KIND_TEXT) {
        add_str(c, "KIND");
        add_str(c, "text");
    } else if (k == SPC_KIND_BINARY) {
        add_str(c, "KIND");
        add_str(c, "binary");
    } else if (k != SPC_KIND_AUTO) {
        fail(c, SP_ERR_ARG, "kind must be SPC_KIND_AUTO, SPC_KIND_TEXT or SPC_KIND_BINARY");
    }
}

int spc_build_write(spc_cmd *c, const char *ns, const char *name, const void *data, size_t len,
                    const spc_write_opts *o)
{
    if (start(c, SPC_CV_VERSION, "SP.WRITE", ns, name, 1) != SP_OK)
        return c->status;
    check_data(c, data, len, "the content is NULL with a non-zero length");
    add(c, data, len);
    if (!o)
        return c->status;
    if (o->ttl_ms < 0)
        return fail(c, SP_ERR_ARG, "ttl_ms must not be negative");
    if (o->ttl_ms > 0 && o->keepttl)
        return fail(c, SP_ERR_ARG, "ttl_ms and keepttl exclude each other");
    if (o->nx && o->xx)
        return fail(c, SP_ERR_ARG, "nx and xx exclude each other");
    if (o->ttl_ms > 0) {
        add_str(c, "PX");
        add_ll(c, o->ttl_ms);
    }
    if (o->keepttl)
        add_str(c, "KEEPTTL");
    add_kind(c, o->kind);
    if (o->nx)
        add_str(c, "NX");
    if (o->xx)
        add_str(c, "XX");
    add_ifversion(c, o->ifversion);
    add_fields(c, "META", o->meta, o->nmeta);
    add_fence(c, &o->fence);
    return c->status;
}

int spc_build_append(spc_cmd *c, const char *ns, const char *name, const void *data, size_t len,
                     const spc_append_opts *o)
{
    if (start(c, SPC_CV_LENGTH, "SP.APPEND", ns, name, 1) != SP_OK)
        return c->status;
    check_data(c, data, len, "the content is NULL with a non-zero length");
    add(c, data, len);
    if (o) {
        add_ifversion(c, o->ifversion);
        add_fence(c, &o->fence);
    }
    return c->status;
}

int spc_build_read(spc_cmd *c, const char *ns, const char *name, const spc_read_opts *o)
{
    if (start(c, SPC_CV_CONTENT, "SP.READ", ns, name, 1) != SP_OK || !o)
        return c->status;
    switch (o->window) {
    case SPC_WHOLE:
        break;
    case SPC_OFFSET:
        add_str(c, "OFFSET");
        add_ll(c, (long long)o->offset);
        if (o->limit) {
            add_str(c, "LIMIT");
            add_ll(c, (long long)o->limit);
        }
        break;
    case SPC_HEAD:
    case SPC_TAIL:
        add_str(c, o->window == SPC_HEAD ? "HEAD" : "TAIL");
        add_ll(c, (long long)o->count);
        break;
    case SPC_LINES:
        add_str(c, "LINES");
        add_ll(c, o->from);
        add_ll(c, o->to);
        break;
    default:
        return fail(c, SP_ERR_ARG, "window must be one of SPC_WHOLE, SPC_OFFSET, SPC_HEAD, SPC_TAIL, SPC_LINES");
    }
    if (o->bytes)
        add_str(c, "BYTES");
    if (o->version) {
        add_str(c, "VERSION");
        add_ull(c, o->version);
    }
    if (o->withmeta) {
        add_str(c, "WITHMETA");
        c->withmeta = 1;
    }
    return c->status;
}

int spc_build_range(spc_cmd *c, const char *ns, const char *name, long long start_at, long long end,
                    const spc_range_opts *o)
{
    if (start(c, SPC_CV_CONTENT, "SP.RANGE", ns, name, 1) != SP_OK)
        return c->status;
    add_ll(c, start_at);
    if (end != SPC_END)
        add_ll(c, end);
    if (o && o->bytes)
        add_str(c, "BYTES");
    return c->status;
}

int spc_build_grep(spc_cmd *c, const char *ns, const char *name, const char *pattern, const spc_grep_opts *o)
{
    if (start(c, SPC_CV_GREP, "SP.GREP", ns, name, 1) != SP_OK)
        return c->status;
    if (!pattern)
        return fail(c, SP_ERR_ARG, "the pattern is NULL");
    add_str(c, pattern);
    if (!o)
        return c->status;
    if (o->max < SPC_GREP_COUNT_ONLY)
        return fail(c, SP_ERR_ARG, "max must be >= 0 or SPC_GREP_COUNT_ONLY");
    if (o->context < 0)
        return fail(c, SP_ERR_ARG, "context must not be negative");
    if (o->max) {
        add_str(c, "MAX");
        add_ll(c, o->max < 0 ? 0 : o->max);
    }
    if (o->context) {
        add_str(c, "CONTEXT");
        add_ll(c, o->context);
    }
    if (o->nocase)
        add_str(c, "NOCASE");
    if (o->literal)
        add_str(c, "LITERAL");
    if (o->withmeta || o->max == SPC_GREP_COUNT_ONLY) {
        add_str(c, "WITHMETA");
        c->withmeta = 1;
    }
    return c->status;
}

int spc_build_list(spc_cmd *c, const char *ns, const spc_list_opts *o)
{
    if (start(c, SPC_CV_LIST, "SP.LIST", ns, NULL, 0) != SP_OK || !o)
        return c->status;
    if (o->count < 0)
        return fail(c, SP_ERR_ARG, "count must not be negative");
    if (o->match) {
        add_str(c, "MATCH");
        add_str(c, o->match);
    }
    if (o->cursor) {
        add_str(c, "CURSOR");
        add_str(c, o->cursor);
    }
    if (o->count) {
        add_str(c, "COUNT");
        add_ll(c, o->count);
    }
    add_fields(c, "WHERE", o->where, o->nwhere);
    if (o->withmeta) {
        add_str(c, "WITHMETA");
        c->withmeta = 1;
    }
    return c->status;
}

int spc_build_edit(spc_cmd *c, const char *ns, const char *name, const void *old, size_t old_len,
                   const void *new_text, size_t new_len, const spc_edit_opts *o)
{
    if (start(c, SPC_CV_EDIT, "SP.EDIT", ns, name, 1) != SP_OK)
        return c->status;
    check_data(c, old, old_len, "the old text is NULL with a non-zero length");
    check_data(c, new_text, new_len, "the new text is NULL with a non-zero length");
    add(c, old, old_len);
    add(c, new_text, new_len);
    if (o && o->all)
        add_str(c, "ALL");
    if (o) {
        add_ifversion(c, o->ifversion);
        add_fence(c, &o->fence);
    }
    return c->status;
}

int spc_build_insert(spc_cmd *c, const char *ns, const char *name, long long line, const void *text, size_t len,
                     const spc_insert_opts *o)
{
    if (start(c, SPC_CV_VERSION, "SP.INSERT", ns, name, 1) != SP_OK)
        return c->status;
    check_data(c, text, len, "the text is NULL with a non-zero length");
    add_ll(c, line);
    add(c, text, len);
    if (o) {
        add_ifversion(c, o->ifversion);
        add_fence(c, &o->fence);
    }
    return c->status;
}

int spc_build_del(spc_cmd *c, const char *ns, const char *const *names, size_t n)
{
    size_t i;
    if (start(c, SPC_CV_COUNT, "SP.DEL", ns, NULL, 0) != SP_OK)
        return c->status;
    if (!names || n == 0)
        return fail(c, SP_ERR_ARG, "SP.DEL needs at least one name");
    if (n > 1000000)
        return fail(c, SP_ERR_ARG, "too many names for one SP.DEL");
    for (i = 0; i < n; i++) {
        if (!names[i])
            return fail(c, SP_ERR_ARG, "an entry name is NULL");
        add_str(c, names[i]);
    }
    return c->status;
}

int spc_build_stat(spc_cmd *c, const char *ns, const char *name)
{
    return start(c, SPC_CV_STAT, "SP.STAT", ns, name, 1);
}

int spc_build_peek(spc_cmd *c, const char *ns, const char *name, const spc_peek_opts *o)
{
    if (start(c, SPC_CV_CONTENT, "SP.PEEK", ns, name, 1) != SP_OK || !o)
        return c->status;
    if (o->head < SPC_PEEK_NONE || o->tail < SPC_PEEK_NONE)
        return fail(c, SP_ERR_ARG, "head and tail must be >= 0 or SPC_PEEK_NONE");
    if (o->head) {
        add_str(c, "HEAD");
        add_ll(c, o->head < 0 ? 0 : o->head);
    }
    if (o->tail) {
        add_str(c, "TAIL");
        add_ll(c, o->tail < 0 ? 0 : o->tail);
    }
    return c->status;
}

int spc_build_offload(spc_cmd *c, const char *ns, const void *data, size_t len, const spc_offload_opts *o)
{
    if (start(c, SPC_CV_OFFLOAD, "SP.OFFLOAD", ns, NULL, 0) != SP_OK)
        return c->status;
    check_data(c, data, len, "the content is NULL with a non-zero length");
    add(c, data, len);
    if (!o)
        return c->status;
    if (o->threshold < SPC_OFFLOAD_ALWAYS)
        return fail(c, SP_ERR_ARG, "threshold must be >= 0 or SPC_OFFLOAD_ALWAYS");
    if (o->ttl_ms < 0)
        return fail(c, SP_ERR_ARG, "ttl_ms must not be negative");
    if (o->threshold) {
        add_str(c, "THRESHOLD");
        add_ll(c, o->threshold < 0 ? 0 : o->threshold);
    }
    if (o->prefix) {
        add_str(c, "PREFIX");
        add_str(c, o->prefix);
    }
    if (o->separator && o->separator != '-' && o->separator != '_')
        return fail(c, SP_ERR_ARG, "separator must be '-' or '_'");
    if (o->separator == '_') {
        add_str(c, "SEPARATOR");
        add_str(c, "_");
    }
    if (o->ttl_ms) {
        add_str(c, "PX");
        add_ll(c, o->ttl_ms);
    }
    add_kind(c, o->kind);
    add_fields(c, "META", o->meta, o->nmeta);
    add_fence(c, &o->fence);
    return c->status;
}

int spc_build_expire(spc_cmd *c, const char *ns, const char *name, long long amount, int ms)
{
    if (start(c, SPC_CV_EXPIRE, ms ? "SP.PEXPIRE" : "SP.EXPIRE", ns, name, 1) != SP_OK)
        return c->status;
    add_ll(c, amount);
    return c->status;
}

int spc_build_entry_cmd(spc_cmd *c, const char *cmd, spc_conv conv, const char *ns, const char *name)
{
    return start(c, conv, cmd, ns, name, 1);
}

int spc_build_info(spc_cmd *c, const char *ns)
{
    return start(c, SPC_CV_INFO, "SP.INFO", ns, NULL, 0);
}

int spc_build_lease(spc_cmd *c, const char *ns, const char *resource, const char *holder, long long ttl_ms,
                    long long wait_ms)
{
    if (start(c, SPC_CV_LEASE, "SP.LEASE", ns, NULL, 0) != SP_OK)
        return c->status;
    if (!resource || !holder)
        return fail(c, SP_ERR_ARG, "the resource or the holder is NULL");
    if (wait_ms < SPC_WAIT_FOREVER)
        return fail(c, SP_ERR_ARG, "wait_ms must be >= 0 or SPC_WAIT_FOREVER");
    add_str(c, resource);
    add_str(c, holder);
    add_ll(c, ttl_ms);
    if (wait_ms) {
        add_str(c, "WAIT");
        add_ll(c, wait_ms < 0 ? 0 : wait_ms);
    }
    return c->status;
}

int spc_build_release(spc_cmd *c, const char *ns, const char *resource, const char *holder, uint64_t token)
{
    if (start(c, SPC_CV_PERSIST, "SP.RELEASE", ns, NULL, 0) != SP_OK)
        return c->status;
    if (!resource || !holder)
        return fail(c, SP_ERR_ARG, "the resource or the holder is NULL");
    add_str(c, resource);
    add_str(c, holder);
    add_ull(c, token);
    return c->status;
}

int spc_build_changes(spc_cmd *c, const char *ns, const spc_changes_opts *o)
{
    if (start(c, SPC_CV_CHANGES, "SP.CHANGES", ns, NULL, 0) != SP_OK || !o)
        return c->status;
    if (o->count < 0)
        return fail(c, SP_ERR_ARG, "count must not be negative");
    if (o->block_ms < SPC_BLOCK_FOREVER)
        return fail(c, SP_ERR_ARG, "block_ms must be >= 0 or SPC_BLOCK_FOREVER");
    if (o->since) {
        add_str(c, "SINCE");
        add_ull(c, o->since);
    }
    if (o->count) {
        add_str(c, "COUNT");
        add_ll(c, o->count);
    }
    if (o->block_ms) {
        add_str(c, "BLOCK");
        add_ll(c, o->block_ms < 0 ? 0 : o->block_ms);
    }
    return c->status;
}

int spc_build_meta(spc_cmd *c, const char *ns, const char *name, int op, const spc_meta_field *fields,
                   const char *const *names, size_t n, const spc_fence *fence)
{
    if (start(c, op == 'S' ? SPC_CV_VERSION : SPC_CV_EDIT, "SP.META", ns, name, 1) != SP_OK)
        return c->status;
    if (op == 'S') {
        if (n == 0)
            return fail(c, SP_ERR_ARG, "SP.META SET needs at least one field");
        add_str(c, "SET");
        add_fields(c, NULL, fields, n);
    } else if (op == 'D') {
        if (n == 0 || !names)
            return fail(c, SP_ERR_ARG, "SP.META DEL needs at least one field name");
        add_str(c, "DEL");
        for (size_t i = 0; i < n; i++) {
            if (!names[i])
                return fail(c, SP_ERR_ARG, "a field name is NULL");
            add_str(c, names[i]);
        }
    } else {
        add_str(c, "CLEAR");
    }
    add_fence(c, fence);
    return c->status;
}

int spc_build_label_cmd(spc_cmd *c, const char *cmd, spc_conv conv, const char *ns, const char *label,
                        const spc_fence *fence)
{
    if (start(c, conv, cmd, ns, NULL, 0) != SP_OK)
        return c->status;
    if (!label)
        return fail(c, SP_ERR_ARG, "the snapshot label is NULL");
    add_str(c, label);
    add_fence(c, fence);
    return c->status;
}

int spc_build_ns_cmd(spc_cmd *c, const char *cmd, spc_conv conv, const char *ns)
{
    return start(c, conv, cmd, ns, NULL, 0);
}

int spc_build_diff(spc_cmd *c, const char *ns, const char *from, const char *to, const char *name)
{
    if (start(c, name ? SPC_CV_CONTENT : SPC_CV_DIFF, "SP.DIFF", ns, NULL, 0) != SP_OK)
        return c->status;
    if (!from || !to)
        return fail(c, SP_ERR_ARG, "from or to is NULL (a label, or SPC_NOW)");
    add_str(c, from);
    add_str(c, to);
    if (name)
        add_str(c, name);
    return c->status;
}

int spc_build_fork(spc_cmd *c, const char *src, const char *dst, const char *from_label, const spc_fence *fence)
{
    if (start(c, SPC_CV_COUNT, "SP.FORK", src, NULL, 0) != SP_OK)
        return c->status;
    if (!dst)
        return fail(c, SP_ERR_ARG, "the destination scratchpad is NULL");
    add_str(c, dst);
    if (from_label) {
        add_str(c, "FROM");
        add_str(c, from_label);
    }
    add_fence(c, fence);
    return c->status;
}

int spc_build_revert(spc_cmd *c, const char *ns, const char *name, uint64_t version, const spc_fence *fence)
{
    if (start(c, SPC_CV_VERSION, "SP.REVERT", ns, name, 1) != SP_OK)
        return c->status;
    add_ull(c, version);
    add_fence(c, fence);
    return c->status;
}

int spc_build_auth(spc_cmd *c, const char *username, const char *password)
{
    cmd_init(c, SPC_CV_STATUS);
    if (!password)
        return fail(c, SP_ERR_ARG, "no password");
    add_str(c, "AUTH");
    if (username)
        add_str(c, username);
    add_str(c, password);
    return c->status;
}
