/* aclrules.c -- ACL users and their rules (see aclrules.h). */
#include "cmd/aclrules.h"

#include <ctype.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/mem.h"
#include "core/util.h"

/* In Redis's order (ACL CAT), then ours. */
const char *const aclr_cat_names[ACLR_NCATS] = {
    "keyspace", "read",        "write",      "set",         "sortedset", "list",       "hash", "string",
    "bitmap",   "hyperloglog", "geo",        "stream",      "pubsub",    "admin",      "fast", "slow",
    "blocking", "dangerous",   "connection", "transaction", "scripting", "scratchpad",
};

static const aclr_cmd *cat_cmds;
static int cat_n;

void aclr_set_catalog(const aclr_cmd *cmds, int n)
{
    cat_cmds = cmds;
    cat_n = n > ACLR_MAX_CMDS ? ACLR_MAX_CMDS : n;
}

int aclr_lookup(const char *name, size_t len)
{
    int i;

    for (i = 0; i < cat_n; i++)
        if (str_eq_ci(name, len, cat_cmds[i].name))
            return i;
    return -1;
}

int aclr_cat_index(const char *name, size_t len)
{
    int i;

    for (i = 0; i < ACLR_NCATS; i++)
        if (str_eq_ci(name, len, aclr_cat_names[i]))
            return i;
    return -1;
}

/* ---- a growing string ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2 + 64;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static char *sb_done(sbuf *b)
{
    if (!b->p)
        return xstrdup("");
    if (b->len && b->p[b->len - 1] == ' ')
        b->p[--b->len] = '\0';
    return b->p;
}

/* ---- selectors ---- */

static void pats_clear(aclr_pat **pats, int *n)
{
    int i;

    for (i = 0; i < *n; i++)
        xfree((*pats)[i].p);
    xfree(*pats);
    *pats = NULL;
    *n = 0;
}

static void firstargs_reset(aclr_sel *s, int id)
{
    char **l;
    int i;

    if (!s->firstargs || !(l = s->firstargs[id]))
        return;
    for (i = 0; l[i]; i++)
        xfree(l[i]);
    xfree(l);
    s->firstargs[id] = NULL;
}

static void firstargs_free(aclr_sel *s)
{
    int i;

    if (!s->firstargs)
        return;
    for (i = 0; i < ACLR_MAX_CMDS; i++)
        firstargs_reset(s, i);
    xfree(s->firstargs);
    s->firstargs = NULL;
}

static void sel_free(aclr_sel *s)
{
    pats_clear(&s->keys, &s->nkeys);
    pats_clear(&s->chans, &s->nchans);
    firstargs_free(s);
}

static void sel_init(aclr_sel *s)
{
    memset(s, 0, sizeof(*s));
}

static void pats_copy(aclr_pat **dst, int *dn, const aclr_pat *src, int n)
{
    int i;

    *dst = n ? xmalloc(sizeof(aclr_pat) * (size_t)n) : NULL;
    for (i = 0; i < n; i++) {
        (*dst)[i].p = xstrndup(src[i].p, src[i].len);
        (*dst)[i].len = src[i].len;
        (*dst)[i].flags = src[i].flags;
    }
    *dn = n;
}

static void sel_copy(aclr_sel *d, const aclr_sel *s)
{
    int i, j;

    *d = *s;
    pats_copy(&d->keys, &d->nkeys, s->keys, s->nkeys);
    pats_copy(&d->chans, &d->nchans, s->chans, s->nchans);
    d->firstargs = NULL;
    if (!s->firstargs)
        return;
    d->firstargs = xcalloc(ACLR_MAX_CMDS, sizeof(char **));
    for (i = 0; i < ACLR_MAX_CMDS; i++) {
        char **l = s->firstargs[i];
        if (!l)
            continue;
        for (j = 0; l[j]; j++)
            ;
        d->firstargs[i] = xcalloc((size_t)j + 1, sizeof(char *));
        for (j = 0; l[j]; j++)
            d->firstargs[i][j] = xstrdup(l[j]);
    }
}

static int bit_get(const aclr_sel *s, int id)
{
    return (s->bits[id / 64] >> (id % 64)) & 1;
}

static void bit_set(aclr_sel *s, int id, int on)
{
    if (on)
        s->bits[id / 64] |= 1ULL << (id % 64);
    else {
        s->bits[id / 64] &= ~(1ULL << (id % 64));
        s->flags &= ~ACLR_ALLCOMMANDS;
    }
}

/* +cmd / -cmd: the command, its first-argument rules, and all its
 * subcommands for a container. */
static void change_perm(aclr_sel *s, int id, int on)
{
    int k;

    bit_set(s, id, on);
    firstargs_reset(s, id);
    for (k = 0; k < cat_cmds[id].nsubs; k++)
        bit_set(s, cat_cmds[id].first_sub + k, on);
}

static void set_category(aclr_sel *s, int cat, int on)
{
    int i;

    for (i = 0; i < cat_n; i++)
        if (cat_cmds[i].cats & (1u << cat))
            change_perm(s, i, on);
}

static void add_firstarg(aclr_sel *s, int id, const char *arg, size_t len)
{
    char **l;
    int n = 0;

    if (!s->firstargs)
        s->firstargs = xcalloc(ACLR_MAX_CMDS, sizeof(char **));
    l = s->firstargs[id];
    if (l)
        for (n = 0; l[n]; n++)
            if (strlen(l[n]) == len && strncasecmp(l[n], arg, len) == 0)
                return;
    l = xrealloc(l, sizeof(char *) * (size_t)(n + 2));
    l[n] = xstrndup(arg, len);
    for (size_t i = 0; i < len; i++)
        l[n][i] = (char)tolower((unsigned char)l[n][i]);
    l[n + 1] = NULL;
    s->firstargs[id] = l;
}

static int pat_find(const aclr_pat *pats, int n, const char *p, size_t len)
{
    int i;

    for (i = 0; i < n; i++)
        if (pats[i].len == len && memcmp(pats[i].p, p, len) == 0)
            return i;
    return -1;
}

static void pat_add(aclr_pat **pats, int *n, const char *p, size_t len, int flags)
{
    int i = pat_find(*pats, *n, p, len);

    if (i >= 0) {
        (*pats)[i].flags |= flags;
        return;
    }
    *pats = xrealloc(*pats, sizeof(aclr_pat) * (size_t)(*n + 1));
    (*pats)[*n].p = xstrndup(p, len);
    (*pats)[*n].len = len;
    (*pats)[*n].flags = flags;
    (*n)++;
}

#define E_ENOENT "Unknown command or category name in ACL"
#define E_EINVAL "Syntax error"
#define E_EEXIST                                                                                                   \
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try " \
    "'resetkeys' to start with an empty list of patterns"
#define E_EISDIR                                                                                                       \
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try " \
    "'resetchannels' to start with an empty list of channels"
#define E_ENODEV "The password you are trying to remove from the user does not exist"
#define E_EBADMSG "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
#define E_ECHILD "Allowing first-arg of a subcommand is not supported"

static int is(const char *op, size_t len, const char *w)
{
    return str_eq_ci(op, len, w);
}

/* +cmd|arg: a subcommand of a container, or a first argument of a command
 * without subcommands (Redis's deprecated form: +select|0). */
static int plus_with_bar(aclr_sel *s, const char *op, size_t len, const char **err)
{
    const char *bar = NULL, *sub;
    size_t i, sublen;
    int id;

    for (i = 0; i < len; i++)
        if (op[i] == '|')
            bar = op + i; /* the last one */
    id = aclr_lookup(op, (size_t)(bar - op));
    if (id < 0) {
        *err = E_ENOENT;
        return -1;
    }
    if (cat_cmds[id].parent >= 0) {
        *err = E_ECHILD;
        return -1;
    }
    sub = bar + 1;
    sublen = len - (size_t)(sub - op);
    if (sublen == 0) {
        *err = E_EINVAL;
        return -1;
    }
    if (cat_cmds[id].nsubs) {
        int sid = aclr_lookup(op, len);
        if (sid < 0) {
            *err = E_ENOENT;
            return -1;
        }
        change_perm(s, sid, 1);
    } else {
        add_firstarg(s, id, sub, sublen);
    }
    return 0;
}

/* One selector rule (Redis's ACLSetSelector). */
static int sel_apply(aclr_sel *s, const char *op, size_t len, const char **err)
{
    if (is(op, len, "allkeys") || is(op, len, "~*")) {
        s->flags |= ACLR_ALLKEYS;
        pats_clear(&s->keys, &s->nkeys);
    } else if (is(op, len, "resetkeys")) {
        s->flags &= ~ACLR_ALLKEYS;
        pats_clear(&s->keys, &s->nkeys);
    } else if (is(op, len, "allchannels") || is(op, len, "&*")) {
        s->flags |= ACLR_ALLCHANNELS;
        pats_clear(&s->chans, &s->nchans);
    } else if (is(op, len, "resetchannels")) {
        s->flags &= ~ACLR_ALLCHANNELS;
        pats_clear(&s->chans, &s->nchans);
    } else if (is(op, len, "allcommands") || is(op, len, "+@all")) {
        s->flags |= ACLR_ALLCOMMANDS | ACLR_FUTURE;
        memset(s->bits, 0xff, sizeof(s->bits));
        firstargs_free(s);
    } else if (is(op, len, "nocommands") || is(op, len, "-@all")) {
        s->flags &= ~(ACLR_ALLCOMMANDS | ACLR_FUTURE);
        memset(s->bits, 0, sizeof(s->bits));
        firstargs_free(s);
    } else if (len > 0 && (op[0] == '~' || op[0] == '%')) {
        int flags = 0;
        size_t off = 1;
        if (s->flags & ACLR_ALLKEYS) {
            *err = E_EEXIST;
            return -1;
        }
        if (op[0] == '%') {
            for (; off < len; off++) {
                int ch = toupper((unsigned char)op[off]);
                if (ch == 'R' && !(flags & ACLR_READ))
                    flags |= ACLR_READ;
                else if (ch == 'W' && !(flags & ACLR_WRITE))
                    flags |= ACLR_WRITE;
                else if (op[off] == '~') {
                    off++;
                    break;
                } else {
                    *err = E_EINVAL;
                    return -1;
                }
            }
            if (!flags) {
                *err = E_EINVAL;
                return -1;
            }
        } else {
            flags = ACLR_RW;
        }
        pat_add(&s->keys, &s->nkeys, op + off, len - off, flags); /* "%RW~*" too: a pattern, not allkeys */
    } else if (len > 0 && op[0] == '&') {
        if (s->flags & ACLR_ALLCHANNELS) {
            *err = E_EISDIR;
            return -1;
        }
        pat_add(&s->chans, &s->nchans, op + 1, len - 1, 0);
    } else if (len > 1 && op[0] == '+' && op[1] != '@') {
        if (!memchr(op + 1, '|', len - 1)) {
            int id = aclr_lookup(op + 1, len - 1);
            if (id < 0) {
                *err = E_ENOENT;
                return -1;
            }
            change_perm(s, id, 1);
        } else if (plus_with_bar(s, op + 1, len - 1, err) < 0) {
            return -1;
        }
    } else if (len > 1 && op[0] == '-' && op[1] != '@') {
        int id = aclr_lookup(op + 1, len - 1);
        if (id < 0) {
            *err = E_ENOENT;
            return -1;
        }
        change_perm(s, id, 0);
    } else if (len > 1 && (op[0] == '+' || op[0] == '-') && op[1] == '@') {
        int cat = aclr_cat_index(op + 2, len - 2);
        if (cat < 0) {
            *err = E_ENOENT;
            return -1;
        }
        set_category(s, cat, op[0] == '+');
    } else {
        *err = E_EINVAL;
        return -1;
    }
    return 0;
}

/* ---- users ---- */

aclr_user *aclr_user_new(const char *name, size_t len)
{
    aclr_user *u = xcalloc(1, sizeof(*u));

    u->name = xstrndup(name, len);
    u->nlen = len;
    u->flags = ACLR_OFF;
    u->sels = xcalloc(1, sizeof(aclr_sel));
    u->nsels = 1;
    sel_init(&u->sels[0]);
    return u;
}

static void clear_selectors(aclr_user *u)
{
    int i;

    for (i = 1; i < u->nsels; i++)
        sel_free(&u->sels[i]);
    u->nsels = 1;
}

void aclr_user_free(aclr_user *u)
{
    if (!u)
        return;
    clear_selectors(u);
    sel_free(&u->sels[0]);
    xfree(u->sels);
    xfree(u->pw);
    xfree(u->name);
    xfree(u);
}

aclr_user *aclr_user_dup(const aclr_user *u)
{
    aclr_user *d = xcalloc(1, sizeof(*d));
    int i;

    d->name = xstrndup(u->name, u->nlen);
    d->nlen = u->nlen;
    d->flags = u->flags;
    d->npw = u->npw;
    d->pw = u->npw ? xmalloc(32 * (size_t)u->npw) : NULL;
    if (u->npw)
        memcpy(d->pw, u->pw, 32 * (size_t)u->npw);
    d->nsels = u->nsels;
    d->allow_all = u->allow_all;
    d->sels = xcalloc((size_t)u->nsels, sizeof(aclr_sel));
    for (i = 0; i < u->nsels; i++)
        sel_copy(&d->sels[i], &u->sels[i]);
    return d;
}

static int pw_find(const aclr_user *u, const uint8_t d[32])
{
    int i;

    for (i = 0; i < u->npw; i++)
        if (memcmp(u->pw[i], d, 32) == 0)
            return i;
    return -1;
}

static void pw_add(aclr_user *u, const uint8_t d[32])
{
    if (pw_find(u, d) >= 0)
        return;
    u->pw = xrealloc(u->pw, 32 * (size_t)(u->npw + 1));
    memcpy(u->pw[u->npw++], d, 32);
}

static int pw_del(aclr_user *u, const uint8_t d[32])
{
    int i = pw_find(u, d);

    if (i < 0)
        return -1;
    memmove(u->pw[i], u->pw[i + 1], 32 * (size_t)(u->npw - i - 1));
    u->npw--;
    return 0;
}

static void sha256_of(const char *p, size_t n, uint8_t out[32])
{
    struct sha256_ctx ctx;

    sha256_init(&ctx);
    sha256_update(&ctx, n, (const uint8_t *)p);
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

static int unhex(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

/* "#<64 lower-case hex>" into d; -1 if malformed. */
static int parse_hash(const char *h, size_t n, uint8_t d[32])
{
    size_t i;

    if (n != 64)
        return -1;
    for (i = 0; i < 32; i++) {
        int hi = unhex((unsigned char)h[2 * i]), lo = unhex((unsigned char)h[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        d[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

void aclr_hex(const uint8_t digest[32], char out[65])
{
    static const char hx[] = "0123456789abcdef";
    int i;

    for (i = 0; i < 32; i++) {
        out[2 * i] = hx[digest[i] >> 4];
        out[2 * i + 1] = hx[digest[i] & 15];
    }
    out[64] = '\0';
}

/* "(rule rule ...)": a new selector. */
static int add_selector(aclr_user *u, const char *op, size_t len, const char **err)
{
    aclr_sel s;
    size_t i = 1, end = len - 1;

    sel_init(&s);
    while (i < end) {
        size_t j;
        while (i < end && op[i] == ' ')
            i++;
        if (i >= end)
            break;
        for (j = i; j < end && op[j] != ' '; j++)
            ;
        if (sel_apply(&s, op + i, j - i, err) < 0) {
            sel_free(&s);
            return -1;
        }
        i = j;
    }
    u->sels = xrealloc(u->sels, sizeof(aclr_sel) * (size_t)(u->nsels + 1));
    u->sels[u->nsels++] = s;
    return 0;
}

static int apply_one(aclr_user *u, const char *op, size_t len, const char **err)
{
    uint8_t d[32];

    if (is(op, len, "on")) {
        u->flags = (u->flags & ~ACLR_OFF) | ACLR_ON;
    } else if (is(op, len, "off")) {
        u->flags = (u->flags & ~ACLR_ON) | ACLR_OFF;
    } else if (is(op, len, "skip-sanitize-payload")) {
        u->flags = (u->flags & ~ACLR_SANITIZE) | ACLR_SKIP_SANITIZE;
    } else if (is(op, len, "sanitize-payload")) {
        u->flags = (u->flags & ~ACLR_SKIP_SANITIZE) | ACLR_SANITIZE;
    } else if (is(op, len, "nopass")) {
        u->flags |= ACLR_NOPASS;
        u->npw = 0;
    } else if (is(op, len, "resetpass")) {
        u->flags &= ~ACLR_NOPASS;
        u->npw = 0;
    } else if (len > 0 && (op[0] == '>' || op[0] == '#')) {
        if (op[0] == '>')
            sha256_of(op + 1, len - 1, d);
        else if (parse_hash(op + 1, len - 1, d) < 0) {
            *err = E_EBADMSG;
            return -1;
        }
        pw_add(u, d);
        u->flags &= ~ACLR_NOPASS;
    } else if (len > 0 && (op[0] == '<' || op[0] == '!')) {
        if (op[0] == '<')
            sha256_of(op + 1, len - 1, d);
        else if (parse_hash(op + 1, len - 1, d) < 0) {
            *err = E_EBADMSG;
            return -1;
        }
        if (pw_del(u, d) < 0) {
            *err = E_ENODEV;
            return -1;
        }
    } else if (len >= 2 && op[0] == '(' && op[len - 1] == ')') {
        return add_selector(u, op, len, err);
    } else if (is(op, len, "clearselectors")) {
        clear_selectors(u);
    } else if (is(op, len, "reset")) {
        u->flags &= ~ACLR_NOPASS;
        u->npw = 0;
        sel_apply(&u->sels[0], "resetkeys", 9, err);
        sel_apply(&u->sels[0], "resetchannels", 13, err);
        u->flags = (u->flags & ~(ACLR_ON | ACLR_SKIP_SANITIZE)) | ACLR_OFF | ACLR_SANITIZE;
        clear_selectors(u);
        sel_apply(&u->sels[0], "-@all", 5, err);
    } else {
        return sel_apply(&u->sels[0], op, len, err);
    }
    return 0;
}

int aclr_apply(aclr_user *u, const char *op, size_t len, const char **err)
{
    int rc = apply_one(u, op, len, err);
    int all = ACLR_ALLKEYS | ACLR_ALLCHANNELS | ACLR_ALLCOMMANDS;

    u->allow_all = u->nsels == 1 && (u->sels[0].flags & all) == all;
    return rc;
}

int aclr_apply_args(aclr_user *u, int argc, const char *const *argv, const size_t *lens, char *errbuf, size_t errcap)
{
    const char **ops = xmalloc(sizeof(char *) * (size_t)(argc + 1));
    size_t *oplens = xmalloc(sizeof(size_t) * (size_t)(argc + 1));
    char **joined = xmalloc(sizeof(char *) * (size_t)(argc + 1));
    int i, open = -1, n = 0, nj = 0, rc = 0;
    sbuf sel = {0};

    /* First join the selectors spread over several arguments: an unclosed
     * one is the error, whatever the rules before it; a '(' inside an open
     * selector starts it again, dropping what it had (both as Redis). */
    for (i = 0; i < argc; i++) {
        const char *op = argv[i];
        size_t len = lens[i];
        if (len > 0 && op[0] == '(' && op[len - 1] != ')') {
            if (open >= 0)
                xfree(sel.p);
            open = i;
            sel.p = NULL;
            sel.len = sel.cap = 0;
            sb_add(&sel, op, len);
            continue;
        }
        if (open >= 0) {
            sb_add(&sel, " ", 1);
            sb_add(&sel, op, len);
            if (len == 0 || op[len - 1] != ')')
                continue;
            open = -1;
            joined[nj++] = sel.p;
            op = sel.p;
            len = sel.len;
        }
        ops[n] = op;
        oplens[n++] = len;
    }
    if (open >= 0) {
        xfree(sel.p);
        snprintf(errbuf, errcap, "Unmatched parenthesis in acl selector starting at '%.*s'.",
                 (int)(lens[open] > 512 ? 512 : lens[open]), argv[open]);
        rc = -1;
    }
    for (i = 0; rc == 0 && i < n; i++) {
        const char *err = NULL;
        if (aclr_apply(u, ops[i], oplens[i], &err) < 0) {
            snprintf(errbuf, errcap, "Error in ACL SETUSER modifier '%.*s': %s",
                     (int)(oplens[i] > 512 ? 512 : oplens[i]), ops[i], err);
            rc = -1;
        }
    }
    for (i = 0; i < nj; i++)
        xfree(joined[i]);
    xfree(joined);
    xfree(ops);
    xfree(oplens);
    return rc;
}

/* ---- descriptions ---- */

static void cat_pattern(sbuf *b, const aclr_pat *p)
{
    if (p->flags == ACLR_READ)
        sb_str(b, "%R~");
    else if (p->flags == ACLR_WRITE)
        sb_str(b, "%W~");
    else
        sb_str(b, "~");
    sb_add(b, p->p, p->len);
}

char *aclr_describe_keys(const aclr_sel *s)
{
    sbuf b = {0};
    int i;

    if (s->flags & ACLR_ALLKEYS)
        sb_str(&b, "~*");
    else
        for (i = 0; i < s->nkeys; i++) {
            cat_pattern(&b, &s->keys[i]);
            sb_str(&b, " ");
        }
    return sb_done(&b);
}

char *aclr_describe_chans(const aclr_sel *s)
{
    sbuf b = {0};
    int i;

    if (s->flags & ACLR_ALLCHANNELS)
        sb_str(&b, "&*");
    else
        for (i = 0; i < s->nchans; i++) {
            sb_str(&b, "&");
            sb_add(&b, s->chans[i].p, s->chans[i].len);
            sb_str(&b, " ");
        }
    return sb_done(&b);
}

/* Commands of category cat that s allows (on) and does not (off), over
 * commands and subcommands alike. */
static void count_cat(const aclr_sel *s, int cat, unsigned long *on, unsigned long *off)
{
    int i;

    *on = *off = 0;
    for (i = 0; i < cat_n; i++)
        if (cat_cmds[i].cats & (1u << cat)) {
            if (bit_get(s, i))
                (*on)++;
            else
                (*off)++;
        }
}

/* The single-command differences between s and fake, for commands and then
 * each one's subcommands, applying each to fake as it is written. */
static void describe_singles(const aclr_sel *s, aclr_sel *fake, sbuf *b, int id)
{
    int ub = bit_get(s, id), j;

    if (ub != bit_get(fake, id)) {
        sb_str(b, ub ? "+" : "-");
        sb_str(b, cat_cmds[id].name);
        sb_str(b, " ");
        change_perm(fake, id, ub);
    }
    for (j = 0; j < cat_cmds[id].nsubs; j++)
        describe_singles(s, fake, b, cat_cmds[id].first_sub + j);
    if (!ub && s->firstargs && s->firstargs[id]) {
        char **l = s->firstargs[id];
        for (j = 0; l[j]; j++) {
            sb_str(b, "+");
            sb_str(b, cat_cmds[id].name);
            sb_str(b, "|");
            sb_str(b, l[j]);
            sb_str(b, " ");
        }
    }
}

char *aclr_describe_cmds(const aclr_sel *s)
{
    sbuf b = {0};
    aclr_sel fake, temp;
    int additive = !(s->flags & ACLR_FUTURE), applied[ACLR_NCATS] = {0}, i;
    const char *err;

    sel_init(&fake);
    sel_init(&temp);
    sb_str(&b, additive ? "-@all " : "+@all ");
    sel_apply(&fake, additive ? "-@all" : "+@all", 5, &err);
    memcpy(temp.bits, s->bits, sizeof(temp.bits));
    /* Greedy: the category with the fewest differences (and then the most in
     * common) as long as it has more in common than different. */
    for (;;) {
        int best = -1;
        unsigned long mindiff = (unsigned long)-1, maxsame = 0;
        for (i = 0; i < ACLR_NCATS; i++) {
            unsigned long on, off, diff, same;
            if (applied[i])
                continue;
            count_cat(&temp, i, &on, &off);
            diff = additive ? off : on;
            same = additive ? on : off;
            if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
                best = i;
                mindiff = diff;
                maxsame = same;
            }
        }
        if (best < 0)
            break;
        set_category(&fake, best, additive);
        set_category(&temp, best, !additive);
        sb_str(&b, additive ? "+@" : "-@");
        sb_str(&b, aclr_cat_names[best]);
        sb_str(&b, " ");
        applied[best] = 1;
    }
    for (i = 0; i < cat_n; i++)
        if (cat_cmds[i].parent < 0)
            describe_singles(s, &fake, &b, i);
    sel_free(&fake);
    sel_free(&temp);
    return sb_done(&b);
}

static void describe_sel(sbuf *b, const aclr_sel *s)
{
    char *k = aclr_describe_keys(s), *c = aclr_describe_cmds(s);
    int i;

    if (k[0]) {
        sb_str(b, k);
        sb_str(b, " ");
    }
    if (s->flags & ACLR_ALLCHANNELS)
        sb_str(b, "&* ");
    else {
        sb_str(b, "resetchannels ");
        for (i = 0; i < s->nchans; i++) {
            sb_str(b, "&");
            sb_add(b, s->chans[i].p, s->chans[i].len);
            sb_str(b, " ");
        }
    }
    sb_str(b, c);
    xfree(k);
    xfree(c);
}

const aclr_flag_name aclr_flag_names[] = {{ACLR_ON, "on"},
                                          {ACLR_OFF, "off"},
                                          {ACLR_NOPASS, "nopass"},
                                          {ACLR_SKIP_SANITIZE, "skip-sanitize-payload"},
                                          {ACLR_SANITIZE, "sanitize-payload"},
                                          {0, NULL}};

char *aclr_describe_user(const aclr_user *u)
{
    const aclr_flag_name *f;
    sbuf b = {0};
    char hex[65];
    int j;

    for (f = aclr_flag_names; f->name; f++)
        if (u->flags & f->flag) {
            sb_str(&b, f->name);
            sb_str(&b, " ");
        }
    for (j = 0; j < u->npw; j++) {
        aclr_hex(u->pw[j], hex);
        sb_str(&b, "#");
        sb_str(&b, hex);
        sb_str(&b, " ");
    }
    describe_sel(&b, &u->sels[0]);
    for (j = 1; j < u->nsels; j++) {
        sb_str(&b, " (");
        describe_sel(&b, &u->sels[j]);
        sb_str(&b, ")");
    }
    return sb_done(&b);
}

/* ---- checks ---- */

int aclr_check_password(const aclr_user *u, const char *pass, size_t len)
{
    uint8_t d[32];
    int i, ok = 0;

    if (u->flags & ACLR_NOPASS)
        return 1;
    sha256_of(pass, len, d);
    for (i = 0; i < u->npw; i++)
        ok |= memeql_sec(u->pw[i], d, 32);
    return ok != 0;
}

int aclr_sel_cmd(const aclr_sel *s, int id, const char *arg, size_t len)
{
    char **l;
    int j;

    if ((s->flags & ACLR_ALLCOMMANDS) || bit_get(s, id))
        return 1;
    if (!arg || !s->firstargs || !(l = s->firstargs[id]))
        return 0;
    for (j = 0; l[j]; j++)
        if (str_eq_ci(arg, len, l[j]))
            return 1;
    return 0;
}

int aclr_sel_key(const aclr_sel *s, const char *key, size_t len, int need)
{
    int i;

    if (s->flags & ACLR_ALLKEYS)
        return 1;
    for (i = 0; i < s->nkeys; i++)
        if ((s->keys[i].flags & need) == need && glob_match(s->keys[i].p, s->keys[i].len, key, len, 0))
            return 1;
    return 0;
}

int aclr_sel_chan(const aclr_sel *s, const char *ch, size_t len, int is_pattern)
{
    int i;

    if (s->flags & ACLR_ALLCHANNELS)
        return 1;
    for (i = 0; i < s->nchans; i++) {
        const aclr_pat *p = &s->chans[i];
        if (is_pattern ? (p->len == len && memcmp(p->p, ch, len) == 0) : glob_match(p->p, p->len, ch, len, 0))
            return 1;
    }
    return 0;
}
