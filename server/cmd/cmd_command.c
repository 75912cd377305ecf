/* cmd_command.c -- COMMAND and its subcommands (COUNT, LIST, INFO, DOCS, GETKEYS,
 * GETKEYSANDFLAGS, HELP), with Redis 7.0's reply shapes in RESP2 and RESP3.
 *
 * Why here: COMMAND describes the registry (commands.c) to clients, which use it
 * to learn arities, flags and key positions; the describing (flag and ACL names,
 * tips, key specs) is a job of its own and serves no other command.
 *
 * Everything it reports comes from the command's row (server.h, cmd_def): name,
 * arity, flags, key positions, ACL words, and Redis 7's request/response "tips"
 * and key specifications (for the Redis commands, as redis-server 7.0.15
 * reports them). A row without key specs gets one derived from its
 * first/last/step key positions and its read/write flags.
 *
 * Invariant: COMMAND, COMMAND LIST and COMMAND DOCS with no names list in the
 * registry's order (cmd_foreach), which follows the families in commands.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/acl.h"
#include "cmd/commands.h"
#include "core/mem.h"
#include "net/reply.h"
#include "core/util.h"

#define MAX_SPECS 8

typedef struct key_spec {
    const char *flags;  /* space-separated words, flags_len bytes */
    size_t flags_len;
    const char *notes;  /* NULL if none */
    size_t notes_len;
    int unknown;        /* begin_search/find_keys "unknown" */
    int explicit;       /* positions given in the row ('@') */
    int keynum;         /* find_keys "keynum": the key count is argument index + keynumidx */
    char keyword[16];   /* begin_search "keyword" (XREAD's STREAMS), "" if none */
    int limit;          /* find_keys range: the keys are 1/limit of what follows (keyword specs) */
    int index, lastkey, keystep;
    int keynumidx, firstkey; /* keynum only */
} key_spec;

/* The positions a spec's text gives after '@' (flags_len is cut there):
 * "@index,lastkey,keystep" (a range) or "@k:index,keynumidx,firstkey,keystep"
 * (the key count is an argument: SINTERCARD, ZUNIONSTORE, LMPOP ...). */
static void spec_positions(key_spec *s)
{
    const char *at = memchr(s->flags, '@', s->flags_len);

    if (!at)
        return;
    s->flags_len = (size_t)(at - s->flags);
    s->explicit = 1;
    if (at[1] == 'k' && at[2] == ':') {
        s->keynum = 1;
        sscanf(at + 3, "%d,%d,%d,%d", &s->index, &s->keynumidx, &s->firstkey, &s->keystep);
    } else if (at[1] == 'w' && at[2] == ':') {
        /* "@w:KEYWORD,startfrom,lastkey,keystep,limit": the keys follow a keyword */
        sscanf(at + 3, "%15[^,],%d,%d,%d,%d", s->keyword, &s->index, &s->lastkey, &s->keystep, &s->limit);
    } else {
        sscanf(at + 1, "%d,%d,%d", &s->index, &s->lastkey, &s->keystep);
    }
}

/* 1 if cmd has a key spec whose keys are counted by an argument or follow a
 * keyword (then COMMAND shows movablekeys). */
static int has_keynum_spec(const cmd_def *cmd)
{
    return cmd->key_specs && (strstr(cmd->key_specs, "@k:") != NULL || strstr(cmd->key_specs, "@w:") != NULL ||
                              strstr(cmd->key_specs, ";?") != NULL);
}

/* Fill out[] with cmd's key specs; returns how many (0 for a command without keys). */
static int key_specs_of(const cmd_def *cmd, key_spec *out)
{
    const char *p;
    int n = 0, npos = 0, i, k;

    if (cmd->first_key <= 0 && !has_keynum_spec(cmd))
        return 0;
    if (cmd->key_specs) {
        p = cmd->key_specs;
        while (*p && n < MAX_SPECS) {
            key_spec *s = &out[n++];
            const char *end = strchr(p, ';'), *hash;
            if (!end)
                end = p + strlen(p);
            memset(s, 0, sizeof(*s));
            if (*p == '?') {
                s->unknown = 1;
                p++;
            } else if (*p == '@') {
                /* "@index,keynumidx,firstkey,keystep flags": a keynum spec */
                char *q;
                s->keynum = 1;
                s->index = (int)strtol(p + 1, &q, 10);
                s->keynumidx = (int)strtol(q + 1, &q, 10);
                s->firstkey = (int)strtol(q + 1, &q, 10);
                s->keystep = (int)strtol(q + 1, &q, 10);
                p = q + 1;
            }
            hash = memchr(p, '#', (size_t)(end - p));
            s->flags = p;
            s->flags_len = (size_t)((hash ? hash : end) - p);
            if (hash) {
                s->notes = hash + 1;
                s->notes_len = (size_t)(end - hash - 1);
            }
            spec_positions(s);
            p = *end ? end + 1 : end;
        }
    } else {
        memset(out, 0, sizeof(*out));
        out->flags = (cmd->flags & CMD_WRITE) ? "RW access update" : (cmd->flags & CMD_READONLY) ? "RO access" : "RO";
        out->flags_len = strlen(out->flags);
        n = 1;
    }
    for (i = 0; i < n; i++)
        npos += !out[i].unknown && !out[i].keynum;
    for (i = 0, k = 0; i < n; i++) {
        key_spec *s = &out[i];
        if (s->unknown || s->explicit)
            continue;
        if (npos == 1) {
            s->index = cmd->first_key;
            s->lastkey = cmd->last_key >= 0 ? cmd->last_key - cmd->first_key : cmd->last_key;
            s->keystep = cmd->key_step > 0 ? cmd->key_step : 1;
        } else {
            s->index = cmd->first_key + k * (cmd->key_step > 0 ? cmd->key_step : 1);
            s->lastkey = 0;
            s->keystep = 1;
        }
        k++;
    }
    return n;
}

/* Reply the space-separated words of p[0..n) as a set of status strings, or of
 * bulk strings if bulk (tips are bulk strings in Redis's reply). */
static void reply_word_set(client *c, const char *p, size_t n, int bulk)
{
    const char *end = p + n, *q;
    long count = 0;

    for (q = p; q < end;) {
        while (q < end && *q == ' ')
            q++;
        if (q < end)
            count++;
        while (q < end && *q != ' ')
            q++;
    }
    reply_set(c, count);
    for (q = p; q < end;) {
        const char *w;
        char word[128];
        size_t len;
        while (q < end && *q == ' ')
            q++;
        if (q == end)
            break;
        w = q;
        while (q < end && *q != ' ')
            q++;
        len = (size_t)(q - w) < sizeof(word) - 1 ? (size_t)(q - w) : sizeof(word) - 1;
        memcpy(word, w, len);
        word[len] = '\0';
        if (bulk)
            reply_bulk(c, word, len);
        else
            reply_status(c, word);
    }
}

static void reply_key_spec(client *c, const key_spec *s)
{
    reply_map(c, s->notes ? 4 : 3);
    if (s->notes) {
        reply_bulk_cstr(c, "notes");
        reply_bulk(c, s->notes, s->notes_len);
    }
    reply_bulk_cstr(c, "flags");
    reply_word_set(c, s->flags, s->flags_len, 0);
    reply_bulk_cstr(c, "begin_search");
    reply_map(c, 2);
    reply_bulk_cstr(c, "type");
    if (s->unknown) {
        reply_bulk_cstr(c, "unknown");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 0);
    } else if (s->keyword[0]) {
        reply_bulk_cstr(c, "keyword");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 2);
        reply_bulk_cstr(c, "keyword");
        reply_bulk_cstr(c, s->keyword);
        reply_bulk_cstr(c, "startfrom");
        reply_int(c, s->index);
    } else {
        reply_bulk_cstr(c, "index");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 1);
        reply_bulk_cstr(c, "index");
        reply_int(c, s->index);
    }
    reply_bulk_cstr(c, "find_keys");
    reply_map(c, 2);
    reply_bulk_cstr(c, "type");
    if (s->keynum) {
        reply_bulk_cstr(c, "keynum");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 3);
        reply_bulk_cstr(c, "keynumidx");
        reply_int(c, s->keynumidx);
        reply_bulk_cstr(c, "firstkey");
        reply_int(c, s->firstkey);
        reply_bulk_cstr(c, "keystep");
        reply_int(c, s->keystep);
    } else if (s->unknown) {
        reply_bulk_cstr(c, "unknown");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 0);
    } else if (s->keynum) {
        reply_bulk_cstr(c, "keynum");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 3);
        reply_bulk_cstr(c, "keynumidx");
        reply_int(c, s->keynumidx);
        reply_bulk_cstr(c, "firstkey");
        reply_int(c, s->firstkey);
        reply_bulk_cstr(c, "keystep");
        reply_int(c, s->keystep);
    } else {
        reply_bulk_cstr(c, "range");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 3);
        reply_bulk_cstr(c, "lastkey");
        reply_int(c, s->lastkey);
        reply_bulk_cstr(c, "keystep");
        reply_int(c, s->keystep);
        reply_bulk_cstr(c, "limit");
        reply_int(c, s->limit);
    }
}

/* Command flags as COMMAND names them, in Redis's order. CMD_MAY_REPLICATE,
 * CMD_SENTINEL and CMD_NO_MULTI (ours: "runs at once inside MULTI") are not shown;
 * CMD_NOT_IN_MULTI is Redis's no_multi. */
/* clang-format off */
static const struct {
    uint32_t bit;
    const char *name;
} flag_names[] = {
    {CMD_WRITE, "write"},       {CMD_READONLY, "readonly"},   {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"},       {CMD_PUBSUB, "pubsub"},       {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"}, {CMD_LOADING, "loading"},   {CMD_STALE, "stale"},         {CMD_SKIP_MONITOR, "skip_monitor"},
    {CMD_SKIP_SLOWLOG, "skip_slowlog"},
    {CMD_FAST, "fast"},         {CMD_NO_AUTH, "no_auth"},     {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"},
    {CMD_NOT_IN_MULTI, "no_multi"}, {CMD_ALLOW_BUSY, "allow_busy"},
};
/* clang-format on */
#define NFLAGS ((int)(sizeof(flag_names) / sizeof(flag_names[0])))


static void reply_cmd_flags(client *c, const cmd_def *cmd)
{
    int i, n = 0;
    for (i = 0; i < NFLAGS; i++)
        n += (cmd->flags & flag_names[i].bit) != 0;
    reply_set(c, n + has_keynum_spec(cmd));
    for (i = 0; i < NFLAGS; i++) {
        if (flag_names[i].bit == CMD_ALLOW_BUSY && has_keynum_spec(cmd))
            reply_status(c, "movablekeys"); /* Redis's place for it: before allow_busy */
        if (cmd->flags & flag_names[i].bit)
            reply_status(c, flag_names[i].name);
    }
}

/* The row's categories (cmd/acl.c: its ACL words and those its flags imply),
 * in Redis's order, then ours (@scratchpad). */
static void reply_cmd_acl(client *c, const cmd_def *cmd)
{
    uint32_t cats = acl_categories(cmd);
    char buf[40];
    int i, n = 0;

    for (i = 0; i < ACLR_NCATS; i++)
        n += (cats >> i) & 1;
    reply_set(c, n);
    for (i = 0; i < ACLR_NCATS; i++) {
        if ((cats >> i) & 1) {
            snprintf(buf, sizeof(buf), "@%s", aclr_cat_names[i]);
            reply_status(c, buf);
        }
    }
}

/* One COMMAND INFO entry: the 10 fields of Redis 7. */
static void reply_cmd_info(client *c, const cmd_def *cmd)
{
    key_spec specs[MAX_SPECS];
    int n = key_specs_of(cmd, specs), i;

    reply_array(c, 10);
    reply_bulk_cstr(c, cmd_fullname(cmd));
    reply_int(c, cmd->arity);
    reply_cmd_flags(c, cmd);
    reply_int(c, cmd->first_key);
    reply_int(c, cmd->last_key);
    reply_int(c, cmd->key_step);
    reply_cmd_acl(c, cmd);
    if (cmd->tips)
        reply_word_set(c, cmd->tips, strlen(cmd->tips), 1);
    else
        reply_set(c, 0);
    reply_set(c, n);
    for (i = 0; i < n; i++)
        reply_key_spec(c, &specs[i]);
    if (cmd->subcommands) {
        const cmd_def *s;
        long k = 0;
        for (s = cmd->subcommands; s->name; s++)
            k++;
        reply_array(c, k);
        for (s = cmd->subcommands; s->name; s++)
            reply_cmd_info(c, s);
    } else {
        reply_set(c, 0);
    }
}

/* One COMMAND DOCS value: summary, since, group, complexity, subcommands. */
static void reply_cmd_docs(client *c, const cmd_def *cmd)
{
    long n = 1 + (cmd->summary != NULL) + (cmd->since != NULL) + (cmd->complexity != NULL) +
             (cmd->subcommands != NULL);

    reply_map(c, n);
    if (cmd->summary) {
        reply_bulk_cstr(c, "summary");
        reply_bulk_cstr(c, cmd->summary);
    }
    if (cmd->since) {
        reply_bulk_cstr(c, "since");
        reply_bulk_cstr(c, cmd->since);
    }
    reply_bulk_cstr(c, "group");
    reply_bulk_cstr(c, cmd->group ? cmd->group : "generic");
    if (cmd->complexity) {
        reply_bulk_cstr(c, "complexity");
        reply_bulk_cstr(c, cmd->complexity);
    }
    if (cmd->subcommands) {
        const cmd_def *s;
        long k = 0;
        for (s = cmd->subcommands; s->name; s++)
            k++;
        reply_bulk_cstr(c, "subcommands");
        reply_map(c, k);
        for (s = cmd->subcommands; s->name; s++) {
            reply_bulk_cstr(c, cmd_fullname(s));
            reply_cmd_docs(c, s);
        }
    }
}

/* The command or subcommand named p[0..n) ("get", "config|get"), or NULL. */
static const cmd_def *lookup_fullname(const char *p, size_t n)
{
    const char *bar = memchr(p, '|', n);
    const cmd_def *cmd, *s;

    if (!bar)
        return cmd_lookup(p, n);
    cmd = cmd_lookup(p, (size_t)(bar - p));
    if (!cmd || !cmd->subcommands)
        return NULL;
    for (s = cmd->subcommands; s->name; s++)
        if (str_eq_ci(bar + 1, n - (size_t)(bar - p) - 1, s->name))
            return s;
    return NULL;
}

static void visit_count(const cmd_def *cmd, void *ctx)
{
    (void)cmd;
    (*(long *)ctx)++;
}

typedef struct visit_ctx {
    client *c;
    long n;
    int filter;          /* 0 none, 1 acl category, 2 pattern */
    int acl;             /* index in aclr_cat_names, -1 if unknown */
    const sarg *pattern;
} visit_ctx;

static void visit_info(const cmd_def *cmd, void *ctx)
{
    reply_cmd_info(((visit_ctx *)ctx)->c, cmd);
}

static void visit_docs(const cmd_def *cmd, void *ctx)
{
    client *c = ((visit_ctx *)ctx)->c;
    reply_bulk_cstr(c, cmd_fullname(cmd));
    reply_cmd_docs(c, cmd);
}

static int list_match(const cmd_def *cmd, const visit_ctx *v)
{
    const char *name = cmd_fullname(cmd);

    switch (v->filter) {
    case 1:
        if (v->acl < 0)
            return 0;
        return (acl_categories(cmd) >> v->acl) & 1;
    case 2:
        return glob_match(v->pattern->p, v->pattern->len, name, strlen(name), 1);
    default:
        return 1;
    }
}

static void visit_list(const cmd_def *cmd, void *ctx)
{
    visit_ctx *v = ctx;
    const cmd_def *s;

    if (list_match(cmd, v)) {
        reply_bulk_cstr(v->c, cmd_fullname(cmd));
        v->n++;
    }
    if (cmd->subcommands) {
        for (s = cmd->subcommands; s->name; s++) {
            if (list_match(s, v)) {
                reply_bulk_cstr(v->c, cmd_fullname(s));
                v->n++;
            }
        }
    }
}

static void cmd_command(client *c)
{
    visit_ctx v = {c, 0, 0, -1, NULL};
    reply_array(c, cmd_count());
    cmd_foreach(visit_info, &v);
}

static void command_count(client *c)
{
    reply_int(c, cmd_count());
}

static void command_info(client *c)
{
    int i;

    if (c->argc == 2) {
        cmd_command(c);
        return;
    }
    reply_array(c, c->argc - 2);
    for (i = 2; i < c->argc; i++) {
        const cmd_def *cmd = lookup_fullname(c->argv[i].p, c->argv[i].len);
        if (cmd)
            reply_cmd_info(c, cmd);
        else
            reply_null(c);
    }
}

static void command_docs(client *c)
{
    visit_ctx v = {c, 0, 0, -1, NULL};
    long n = 0;
    int i;

    if (c->argc == 2) {
        cmd_foreach(visit_count, &n);
        reply_map(c, n);
        cmd_foreach(visit_docs, &v);
        return;
    }
    for (i = 2; i < c->argc; i++)
        n += lookup_fullname(c->argv[i].p, c->argv[i].len) != NULL;
    reply_map(c, n);
    for (i = 2; i < c->argc; i++) {
        const cmd_def *cmd = lookup_fullname(c->argv[i].p, c->argv[i].len);
        if (cmd)
            visit_docs(cmd, &v);
    }
}

static void command_list(client *c)
{
    visit_ctx v = {c, 0, 0, -1, NULL};
    void *slot;

    if (c->argc == 5 && str_eq_ci(c->argv[2].p, c->argv[2].len, "filterby")) {
        const sarg *kind = &c->argv[3], *arg = &c->argv[4];
        if (str_eq_ci(kind->p, kind->len, "module")) {
            reply_array(c, 0); /* no modules */
            return;
        } else if (str_eq_ci(kind->p, kind->len, "aclcat")) {
            v.filter = 1;
            v.acl = aclr_cat_index(arg->p, arg->len);
        } else if (str_eq_ci(kind->p, kind->len, "pattern")) {
            v.filter = 2;
            v.pattern = arg;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    } else if (c->argc != 2) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    slot = reply_defer(c);
    cmd_foreach(visit_list, &v);
    reply_defer_array(c, slot, v.n);
}

/* The keys spec s names in argv[0..argc): 1 with them at *first, *first +
 * step, ... up to *last (a last past the arguments is cut by the caller); 0
 * when s names none here (its key count or keyword is missing); -1 when its
 * key count is not a count of keys that fit (Redis's "Invalid arguments"). */
static int spec_range(const key_spec *s, int argc, const sarg *argv, int *first, int *last)
{
    int step = s->keystep > 0 ? s->keystep : 1;

    if (s->keynum) {
        const sarg *a;
        long long num;
        if (s->index + s->keynumidx >= argc)
            return 0;
        a = &argv[s->index + s->keynumidx];
        *first = s->index + s->firstkey;
        if (str_to_ll(a->p, a->len, &num) < 0 || num < 1 || num > (argc - *first) / step)
            return -1;
        *last = *first + (int)(num - 1) * step;
    } else if (s->keyword[0]) {
        /* The keys after the keyword: 1/limit of what follows it. */
        int kw = s->index;
        while (kw < argc && !str_eq_ci(argv[kw].p, argv[kw].len, s->keyword))
            kw++;
        if (kw >= argc)
            return 0;
        *first = kw + 1;
        *last = s->limit > 1 ? *first + (argc - *first) / s->limit - 1
                             : (s->lastkey >= 0 ? *first + s->lastkey : argc + s->lastkey);
    } else {
        *first = s->index;
        *last = s->lastkey >= 0 ? s->index + s->lastkey : argc + s->lastkey;
    }
    return 1;
}

/* SORT's STORE key, as Redis's sortGetKeys finds it (LIMIT skips 2
 * arguments, GET and BY 1; the last STORE wins): its position, 0 if none. */
static int sort_store_pos(int argc, const sarg *argv)
{
    int i, store = 0;

    for (i = 2; i < argc; i++) {
        if (str_eq_ci(argv[i].p, argv[i].len, "limit"))
            i += 2;
        else if (str_eq_ci(argv[i].p, argv[i].len, "get") || str_eq_ci(argv[i].p, argv[i].len, "by"))
            i += 1;
        else if (str_eq_ci(argv[i].p, argv[i].len, "store") && i + 1 < argc)
            store = i + 1;
    }
    return store;
}

/* GETKEYS of a command whose specs give their positions ('@'), such as one
 * whose key count is an argument: each spec's keys in order; a count below 1 or past the arguments gives no keys, as Redis's
 * key-count commands do (then "Invalid arguments"). */
static void getkeys_by_specs(client *c, const cmd_def *cmd, const sarg *argv, int argc, int with_flags)
{
    key_spec specs[MAX_SPECS];
    int n, i, j, k = 0, pos[64], spec_of[64];

    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        reply_error(c, "ERR Invalid number of arguments specified for command");
        return;
    }
    n = key_specs_of(cmd, specs);
    for (i = 0; i < n; i++) {
        const key_spec *s = &specs[i];
        int first, last, step = s->keystep > 0 ? s->keystep : 1, r;
        if (s->unknown)
            continue;
        r = spec_range(s, argc, argv, &first, &last);
        if (r < 0)
            k = 0;
        if (r <= 0)
            break;
        for (j = first; j <= last && j < argc && k < 64; j += step) {
            pos[k] = j;
            spec_of[k++] = i;
        }
    }
    if (k == 0) {
        if (cmd->flags & CMD_NO_MANDATORY_KEYS)
            reply_array(c, 0);
        else
            reply_error(c, "ERR Invalid arguments specified for command");
        return;
    }
    reply_array(c, k);
    for (i = 0; i < k; i++) {
        if (!with_flags) {
            reply_bulk(c, argv[pos[i]].p, argv[pos[i]].len);
            continue;
        }
        reply_array(c, 2);
        reply_bulk(c, argv[pos[i]].p, argv[pos[i]].len);
        reply_word_set(c, specs[spec_of[i]].flags, specs[spec_of[i]].flags_len, 0);
    }
}

/* The access a spec's flags declare: read for "access", write for "insert",
 * "delete" or "update" (what ACL's %R and %W patterns are checked against). */
static int spec_access(const key_spec *s)
{
    const char *p = s->flags, *end = s->flags + s->flags_len;
    int acc = 0;

    while (p < end) {
        const char *w;
        while (p < end && *p == ' ')
            p++;
        w = p;
        while (p < end && *p != ' ')
            p++;
        if (str_eq_ci(w, (size_t)(p - w), "access"))
            acc |= CMD_KEY_READ;
        else if (str_eq_ci(w, (size_t)(p - w), "insert") || str_eq_ci(w, (size_t)(p - w), "delete") ||
                 str_eq_ci(w, (size_t)(p - w), "update"))
            acc |= CMD_KEY_WRITE;
    }
    return acc;
}

/* The access of a spec flagged variable_flags, from the arguments (as
 * Redis's setGetKeys and bitfieldGetKeys): SET writes, and reads too with
 * GET; BITFIELD only reads when all it has are GET and OVERFLOW. */
static int variable_access(const cmd_def *cmd, int argc, const sarg *argv)
{
    int i;

    if (strcmp(cmd->name, "set") == 0) {
        for (i = 3; i < argc; i++)
            if (str_eq_ci(argv[i].p, argv[i].len, "get"))
                return CMD_KEY_READ | CMD_KEY_WRITE;
        return CMD_KEY_WRITE;
    }
    if (strcmp(cmd->name, "bitfield") == 0) {
        for (i = 2; i < argc; i++) {
            int rem = argc - i - 1;
            if (str_eq_ci(argv[i].p, argv[i].len, "get") && rem >= 2)
                i += 2;
            else if (str_eq_ci(argv[i].p, argv[i].len, "overflow") && rem >= 1)
                i += 1;
            else
                return CMD_KEY_READ | CMD_KEY_WRITE;
        }
        return CMD_KEY_READ;
    }
    return CMD_KEY_READ | CMD_KEY_WRITE;
}

/* A command's key specs parsed once (cmd_walk_keys runs for every command of
 * an ACL user: the row's text is not parsed again each time). Plans are
 * found by the row's address in a table that only grows (the registry is
 * fixed after start-up). */
typedef struct key_plan {
    const cmd_def *cmd;
    int n, sort;
    key_spec specs[MAX_SPECS];
    int acc[MAX_SPECS];      /* CMD_KEY_* of each spec */
    int variable[MAX_SPECS]; /* 1: the access depends on the arguments (variable_flags) */
} key_plan;

#define PLAN_SLOTS 4096 /* power of two, > 2x the commands and subcommands */
static key_plan *plans[PLAN_SLOTS];

static const key_plan *plan_of(const cmd_def *cmd)
{
    size_t i = ((uintptr_t)cmd >> 4) & (PLAN_SLOTS - 1);
    key_plan *p;
    int k;

    while (plans[i]) {
        if (plans[i]->cmd == cmd)
            return plans[i];
        i = (i + 1) & (PLAN_SLOTS - 1);
    }
    p = xcalloc(1, sizeof(*p));
    p->cmd = cmd;
    p->sort = strcmp(cmd->name, "sort") == 0 || strcmp(cmd->name, "sort_ro") == 0;
    p->n = key_specs_of(cmd, p->specs);
    for (k = 0; k < p->n; k++) {
        p->acc[k] = spec_access(&p->specs[k]);
        p->variable[k] = memmem(p->specs[k].flags, p->specs[k].flags_len, "variable_flags", 14) != NULL;
    }
    plans[i] = p;
    return p;
}

int cmd_walk_keys(const cmd_def *cmd, int argc, const sarg *argv, int (*fn)(void *ctx, int pos, int access), void *ctx)
{
    const key_plan *plan = plan_of(cmd);
    int n = plan->n, i, j, rc;

    if (plan->sort) {
        /* The sorted key, then the last STORE's (as Redis's sortGetKeys). */
        int store = sort_store_pos(argc, argv);
        if (argc > 1 && (rc = fn(ctx, 1, CMD_KEY_READ)) != 0)
            return rc;
        return store ? fn(ctx, store, CMD_KEY_WRITE) : 0;
    }
    for (i = 0; i < n; i++) {
        const key_spec *s = &plan->specs[i];
        int first, last, step = s->keystep > 0 ? s->keystep : 1, acc = plan->acc[i];
        if (s->unknown)
            continue;
        if (plan->variable[i])
            acc = variable_access(cmd, argc, argv);
        if (spec_range(s, argc, argv, &first, &last) <= 0)
            continue;
        for (j = first; j <= last && j < argc; j += step)
            if (j > 0 && (rc = fn(ctx, j, acc)) != 0)
                return rc;
    }
    return 0;
}

/* GETKEYS of SORT, whose STORE key may stand anywhere after its options (as
 * Redis's sortGetKeys: LIMIT skips 2, GET and BY 1; the last STORE wins). */
static void getkeys_sort(client *c, const sarg *argv, int argc, int with_flags)
{
    int i, store, n;

    if (argc < 2) {
        reply_error(c, "ERR Invalid number of arguments specified for command");
        return;
    }
    store = sort_store_pos(argc, argv);
    n = store ? 2 : 1;
    reply_array(c, n);
    for (i = 0; i < n; i++) {
        const sarg *k = &argv[i == 0 ? 1 : store];
        if (with_flags)
            reply_array(c, 2);
        reply_bulk(c, k->p, k->len);
        if (with_flags)
            reply_word_set(c, i == 0 ? "RO access" : "OW update", i == 0 ? 9 : 9, 0);
    }
}

/* COMMAND GETKEYS / GETKEYSANDFLAGS <command> [arg ...]: the keys (and their key
 * spec flags) at the command's key positions, with Redis's errors. */
static void command_getkeys_impl(client *c, int with_flags)
{
    const sarg *argv = c->argv + 2;
    int argc = c->argc - 2, first, last, step, i, n, k, nkeys, npos = 0;
    const cmd_def *cmd = cmd_lookup(argv[0].p, argv[0].len);
    key_spec specs[MAX_SPECS];

    if (cmd && cmd->subcommands && argc >= 2) {
        const cmd_def *s;
        for (s = cmd->subcommands; s->name; s++)
            if (str_eq_ci(argv[1].p, argv[1].len, s->name))
                break;
        cmd = s->name ? s : NULL;
    }
    if (!cmd) {
        reply_error(c, "ERR Invalid command specified");
        return;
    }
    if (strcmp(cmd->name, "sort") == 0) {
        getkeys_sort(c, argv, argc, with_flags);
        return;
    }
    if (cmd->key_specs && strchr(cmd->key_specs, '@')) {
        getkeys_by_specs(c, cmd, argv, argc, with_flags);
        return;
    }
    if (cmd->first_key <= 0) {
        reply_error(c, "ERR The command has no key arguments");
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        reply_error(c, "ERR Invalid number of arguments specified for command");
        return;
    }
    first = cmd->first_key;
    last = cmd->last_key >= 0 ? cmd->last_key : argc + cmd->last_key;
    step = cmd->key_step > 0 ? cmd->key_step : 1;
    if (last >= argc || last < first) {
        if (cmd->flags & CMD_NO_MANDATORY_KEYS)
            reply_array(c, 0);
        else
            reply_error(c, "ERR Invalid arguments specified for command");
        return;
    }
    nkeys = (last - first) / step + 1;
    n = key_specs_of(cmd, specs);
    for (i = 0; i < n; i++)
        npos += !specs[i].unknown;
    reply_array(c, nkeys);
    for (i = first, k = 0; i <= last; i += step, k++) {
        const key_spec *s = NULL;
        int j, seen = 0;
        if (!with_flags) {
            reply_bulk(c, argv[i].p, argv[i].len);
            continue;
        }
        for (j = 0; j < n; j++) {
            if (specs[j].unknown)
                continue;
            if (npos == 1 || seen == k) {
                s = &specs[j];
                break;
            }
            seen++;
        }
        reply_array(c, 2);
        reply_bulk(c, argv[i].p, argv[i].len);
        if (s)
            reply_word_set(c, s->flags, s->flags_len, 0);
        else
            reply_set(c, 0);
    }
}

static void command_getkeys(client *c)
{
    command_getkeys_impl(c, 0);
}

static void command_getkeysandflags(client *c)
{
    command_getkeys_impl(c, 1);
}

static void command_help(client *c)
{
    static const char *const lines[] = {
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
        NULL,
    };
    reply_help(c, lines);
}

/* ---- the table ---- */

#define LS (CMD_LOADING | CMD_STALE)

/* clang-format off */
static const cmd_def command_subcommands[] = {
    {.name = "count", .proc = command_count, .arity = 2, .flags = LS, .group = "server",
     .summary = "Get total number of Redis commands", .since = "2.8.13", .complexity = "O(1)",
     .acl = "slow connection"},
    {.name = "docs", .proc = command_docs, .arity = -2, .flags = LS, .group = "server",
     .summary = "Get array of specific Redis command documentation", .since = "7.0.0",
     .complexity = "O(N) where N is the number of commands to look up", .acl = "slow connection",
     .tips = "nondeterministic_output_order"},
    {.name = "getkeys", .proc = command_getkeys, .arity = -4, .flags = LS, .group = "server",
     .summary = "Extract keys given a full Redis command", .since = "2.8.13",
     .complexity = "O(N) where N is the number of arguments to the command", .acl = "slow connection"},
    {.name = "getkeysandflags", .proc = command_getkeysandflags, .arity = -4, .flags = LS, .group = "server",
     .summary = "Extract keys and access flags given a full Redis command", .since = "7.0.0",
     .complexity = "O(N) where N is the number of arguments to the command", .acl = "slow connection"},
    {.name = "help", .proc = command_help, .arity = 2, .flags = LS, .group = "server",
     .summary = "Show helpful text about the different subcommands", .since = "5.0.0", .complexity = "O(1)",
     .acl = "slow connection"},
    {.name = "info", .proc = command_info, .arity = -2, .flags = LS, .group = "server",
     .summary = "Get array of specific Redis command details, or all when no argument is given.", .since = "2.8.13",
     .complexity = "O(N) where N is the number of commands to look up", .acl = "slow connection",
     .tips = "nondeterministic_output_order"},
    {.name = "list", .proc = command_list, .arity = -2, .flags = LS, .group = "server",
     .summary = "Get an array of Redis command names", .since = "7.0.0",
     .complexity = "O(N) where N is the total number of Redis commands", .acl = "slow connection",
     .tips = "nondeterministic_output_order"},
    {0},
};
/* clang-format on */

/* clang-format off */
const cmd_def cmd_table_command[] = {
    {.name = "command", .proc = cmd_command, .arity = -1, .flags = LS | CMD_SENTINEL, .group = "server",
     .summary = "Get array of Redis command details", .since = "2.8.13",
     .complexity = "O(N) where N is the total number of Redis commands", .acl = "slow connection",
     .subcommands = command_subcommands, .tips = "nondeterministic_output_order"},
    {0},
};
/* clang-format on */
