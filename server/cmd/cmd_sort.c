/* cmd_sort.c -- SORT and SORT_RO on lists, sets and sorted sets, with Redis
 * 7.0's options, ordering rules, replies and errors.
 *
 * Why here: SORT reads every collection type (the sorted value) and strings
 * and hashes (BY and GET patterns), and writes a list (STORE): a generic
 * family of the command layer, which reaches each type through its own API.
 *
 * Ordering, as Redis's: numeric by default (each element, or its BY value,
 * parsed whole by strtod; a missing BY key counts 0; a value that does not
 * parse fails the command with "One or more scores can't be converted into
 * double"), equal scores ordered by the elements' bytes; ALPHA compares bytes
 * (Redis's strcoll in the C locale), and with BY a missing value sorts first.
 * BY a pattern without '*' (e.g. "nosort") keeps the value's own order: a
 * list's (DESC: from the tail) and a sorted set's ranks (LIMIT taken there),
 * a set's iteration order, except with STORE, where a set is sorted ALPHA so
 * that the stored list does not depend on the encoding.
 *
 * Effects: SORT ... STORE dst replaces dst (whatever it held, its TTL gone)
 * with the result list, logged as its effect (DEL dst, then RPUSH dst and the
 * elements), since BY and GET read other keys; an empty result deletes dst.
 * Without STORE nothing changes and nothing is logged. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/acl.h"
#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/quicklist.h"
#include "core/util.h"
#include "keyspace/type.h"
#include "net/reply.h"
#include "types/hash/hash.h"
#include "types/list/list.h"
#include "types/set/set.h"
#include "types/string/value.h"
#include "types/zset/zset.h"

#define ERR_SCORES "ERR One or more scores can't be converted into double"

/* Bytes collected during one SORT: elements, BY values and GET values live in
 * one growing buffer and are named by offset (the buffer moves as it grows). */
typedef struct sbytes {
    char *p;
    size_t len, cap;
} sbytes;

typedef struct sitem {
    size_t off, len; /* the element, in the buffer */
    double score;    /* numeric sort */
    size_t cmp_off, cmp_len;
    int has_cmp; /* ALPHA BY: the BY value was found */
} sitem;

static size_t sb_add(sbytes *b, const char *p, size_t n)
{
    size_t off = b->len;

    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    if (n && p)
        memcpy(b->p + b->len, p, n); /* p NULL: room the caller fills */
    b->len += n;
    b->p[b->len++] = '\0'; /* each piece NUL-terminated, for strtod */
    return off;
}

/* The value a pattern names for element el, appended to b: 1 with *off / *n,
 * or 0 if there is none. "#" is the element itself; otherwise the first '*'
 * is replaced by the element to name a string key, or, when "->field" follows
 * the '*', a hash key and its field. A pattern without '*' names nothing. */
static int pattern_value(client *c, const sarg *pat, sbytes *b, size_t eloff, size_t elen, size_t *off, size_t *n)
{
    const char *star, *arrow = NULL, *v;
    size_t pre, post, flen = 0, klen, vlen;
    char *key;
    dbent *e;
    int found = 0;

    if (pat->len == 1 && pat->p[0] == '#') {
        *off = sb_add(b, NULL, elen);
        memcpy(b->p + *off, b->p + eloff, elen);
        *n = elen;
        return 1;
    }
    star = strchr(pat->p, '*');
    if (!star)
        return 0;
    arrow = strstr(star + 1, "->");
    if (arrow && arrow[2] != '\0')
        flen = strlen(arrow + 2);
    else
        arrow = NULL;
    pre = (size_t)(star - pat->p);
    post = strlen(pat->p) - pre - 1 - (arrow ? flen + 2 : 0);
    klen = pre + elen + post;
    key = xmalloc(klen + 1);
    memcpy(key, pat->p, pre);
    memcpy(key + pre, b->p + eloff, elen);
    memcpy(key + pre + elen, star + 1, post);
    e = db_lookup(c->db, key, klen);
    if (e && arrow && e->type == OBJ_HASH && hash_get(e, arrow + 2, flen, &v, &vlen)) {
        *off = sb_add(b, v, vlen);
        *n = vlen;
        found = 1;
    } else if (e && !arrow && e->type == OBJ_STRING) {
        vlen = sv_len(e);
        *off = sb_add(b, NULL, vlen);
        sv_read(e, 0, vlen, b->p + *off);
        *n = vlen;
        found = 1;
    }
    xfree(key);
    return found;
}

/* qsort's context: one SORT at a time (the server has one thread). */
static const sbytes *cmp_bytes;
static int cmp_alpha, cmp_by, cmp_desc;

static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    if (r)
        return r;
    return alen < blen ? -1 : alen > blen;
}

static int item_cmp(const void *x, const void *y)
{
    const sitem *a = x, *b = y;
    const char *p = cmp_bytes->p;
    int r;

    if (!cmp_alpha) {
        r = a->score > b->score ? 1 : a->score < b->score ? -1 : bytes_cmp(p + a->off, a->len, p + b->off, b->len);
    } else if (cmp_by) {
        if (!a->has_cmp || !b->has_cmp)
            r = a->has_cmp == b->has_cmp ? 0 : a->has_cmp ? 1 : -1;
        else
            r = bytes_cmp(p + a->cmp_off, a->cmp_len, p + b->cmp_off, b->cmp_len);
    } else {
        r = bytes_cmp(p + a->off, a->len, p + b->off, b->len);
    }
    return cmp_desc ? -r : r;
}

/* Parse a score as Redis's SORT does: strtod over the NUL-terminated bytes,
 * which must all be used; 0 / -1. */
static int parse_score(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(s, &end);
    return (end[0] != '\0' || errno == ERANGE || isnan(*out)) ? -1 : 0;
}

static void add_item(sbytes *b, sitem **v, size_t *n, size_t *cap, const char *p, size_t len)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *v = xrealloc(*v, sizeof(sitem) * *cap);
    }
    memset(&(*v)[*n], 0, sizeof(sitem));
    (*v)[*n].off = sb_add(b, p, len);
    (*v)[*n].len = len;
    (*n)++;
}

/* Write the result (n values of the buffer, by offset; a missing GET value is
 * stored as an empty string, as in Redis) as the list dst, or delete dst when
 * there is nothing to store; reply the count. */
static void store_result(client *c, const sarg *dst, const sbytes *b, const size_t *offs, const size_t *lens, size_t n)
{
    size_t i;
    dbent *e;

    if (prop_on && prop_wants_keys())
        prop_key(c->dbid, dst->p, dst->len);
    if (n == 0) {
        if (db_delete(c->db, dst->p, dst->len)) {
            signal_key_changed(c->db, dst->p, dst->len);
            if (prop_on)
                prop_del(c->dbid, dst->p, dst->len);
        }
        reply_int(c, 0);
        return;
    }
    db_delete(c->db, dst->p, dst->len);
    e = list_create(c->db, dst->p, dst->len);
    for (i = 0; i < n; i++)
        ql_push(list_ql(e), 1, offs[i] == (size_t)-1 ? "" : b->p + offs[i], offs[i] == (size_t)-1 ? 0 : lens[i]);
    signal_key_changed(c->db, dst->p, dst->len);
    if (prop_on) {
        prop_del(c->dbid, dst->p, dst->len);
        prop_begin(c->dbid);
        prop_str("RPUSH");
        prop_arg(dst);
        for (i = 0; i < n; i++)
            prop_bytes(offs[i] == (size_t)-1 ? "" : b->p + offs[i], offs[i] == (size_t)-1 ? 0 : lens[i]);
        prop_end();
    }
    reply_int(c, (long long)n);
}

static void sort_generic(client *c, int readonly)
{
    const sarg *by = NULL, *dst = NULL;
    const sarg **gets = NULL;
    int ngets = 0, desc = 0, alpha = 0, dontsort = 0, bad = 0, j;
    long long offset = 0, count = -1, start, end, vlen;
    sbytes b = {0};
    sitem *v = NULL;
    size_t nv = 0, cap = 0, i, nout = 0, *offs = NULL, *lens = NULL;
    dbent *e;

    gets = xmalloc(sizeof(*gets) * (size_t)c->argc);
    for (j = 2; j < c->argc; j++) {
        const sarg *a = &c->argv[j];
        int left = c->argc - j - 1;
        if (str_eq_ci(a->p, a->len, "asc")) {
            desc = 0;
        } else if (str_eq_ci(a->p, a->len, "desc")) {
            desc = 1;
        } else if (str_eq_ci(a->p, a->len, "alpha")) {
            alpha = 1;
        } else if (str_eq_ci(a->p, a->len, "limit") && left >= 2) {
            if (str_to_ll(c->argv[j + 1].p, c->argv[j + 1].len, &offset) < 0 ||
                str_to_ll(c->argv[j + 2].p, c->argv[j + 2].len, &count) < 0) {
                reply_error(c, ERR_NOTINT);
                goto done;
            }
            j += 2;
        } else if (!readonly && str_eq_ci(a->p, a->len, "store") && left >= 1) {
            dst = &c->argv[++j];
        } else if (str_eq_ci(a->p, a->len, "by") && left >= 1) {
            by = &c->argv[++j];
            if (!strchr(by->p, '*'))
                dontsort = 1;
            else if (!acl_full_key_access(c, c->cmd)) {
                /* the pattern reads keys no key spec names (cmd/acl.h) */
                reply_error(c, "ERR BY option of SORT denied due to insufficient ACL permissions.");
                goto done;
            }
        } else if (str_eq_ci(a->p, a->len, "get") && left >= 1) {
            if (!acl_full_key_access(c, c->cmd)) {
                reply_error(c, "ERR GET option of SORT denied due to insufficient ACL permissions.");
                goto done;
            }
            gets[ngets++] = &c->argv[++j];
        } else {
            reply_error(c, ERR_SYNTAX);
            goto done;
        }
    }

    e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);
    if (e && e->type != OBJ_LIST && e->type != OBJ_SET && e->type != OBJ_ZSET) {
        reply_error(c, ERR_WRONGTYPE);
        goto done;
    }
    /* A set read in no order is sorted for STORE, so that what is stored
     * (and logged) does not depend on its encoding. */
    if (e && dontsort && e->type == OBJ_SET && dst) {
        dontsort = 0;
        alpha = 1;
        by = NULL;
    }
    vlen = !e                    ? 0
           : e->type == OBJ_LIST ? (long long)ql_len(list_ql(e))
           : e->type == OBJ_SET  ? (long long)set_card(e)
                                 : (long long)zs_len(e);
    start = offset < 0 ? 0 : offset;
    end = count < 0 ? vlen - 1 : start + count - 1;
    if (start >= vlen) {
        start = vlen - 1;
        end = vlen - 2;
    }
    if (end >= vlen)
        end = vlen - 1;

    if (e && dontsort && (e->type == OBJ_LIST || e->type == OBJ_ZSET)) {
        /* Native order: only the range is read, from the tail with DESC. */
        long long k;
        for (k = start; k <= end; k++) {
            long long idx = desc ? vlen - 1 - k : k;
            if (e->type == OBJ_LIST) {
                ql_pos pos;
                const char *p;
                size_t n;
                ql_at(list_ql(e), idx, &pos);
                ql_get(&pos, &p, &n);
                add_item(&b, &v, &nv, &cap, p, n);
            } else {
                zs_it it;
                const char *p;
                size_t n;
                double sc;
                zs_it_at(&it, e, (size_t)idx);
                p = zs_it_get(&it, &n, &sc);
                add_item(&b, &v, &nv, &cap, p, n);
            }
        }
        end -= start;
        start = 0;
    } else if (e) {
        if (e->type == OBJ_LIST) {
            ql_pos pos;
            if (ql_at(list_ql(e), 0, &pos) == 0) {
                do {
                    const char *p;
                    size_t n;
                    ql_get(&pos, &p, &n);
                    add_item(&b, &v, &nv, &cap, p, n);
                } while (ql_next(&pos) == 0);
            }
        } else if (e->type == OBJ_SET) {
            set_iter it;
            set_elem m;
            set_iter_init(&it, e);
            while (set_iter_next(&it, &m))
                add_item(&b, &v, &nv, &cap, m.p, m.len);
        } else {
            zs_it it;
            for (zs_it_at(&it, e, 0); it.valid; zs_it_next(&it)) {
                const char *p;
                size_t n;
                double sc;
                p = zs_it_get(&it, &n, &sc);
                add_item(&b, &v, &nv, &cap, p, n);
            }
        }
    }

    if (!dontsort) {
        for (i = 0; i < nv; i++) {
            size_t off, n;
            if (by) {
                if (!pattern_value(c, by, &b, v[i].off, v[i].len, &off, &n))
                    continue;
            } else {
                off = v[i].off;
                n = v[i].len;
            }
            if (alpha) {
                if (by) {
                    v[i].has_cmp = 1;
                    v[i].cmp_off = off;
                    v[i].cmp_len = n;
                }
            } else if (parse_score(b.p + off, &v[i].score) < 0) {
                bad = 1;
            }
        }
        if (bad) {
            reply_error(c, ERR_SCORES);
            goto done;
        }
        cmp_bytes = &b;
        cmp_alpha = alpha;
        cmp_by = by != NULL;
        cmp_desc = desc;
        if (nv > 1)
            qsort(v, nv, sizeof(sitem), item_cmp);
    }

    /* The output: elements start..end, each itself or its GET values. */
    if (end >= start && nv > 0) {
        size_t per = ngets ? (size_t)ngets : 1, k = 0;
        nout = (size_t)(end - start + 1) * per;
        offs = xmalloc(sizeof(size_t) * nout);
        lens = xmalloc(sizeof(size_t) * nout);
        for (i = (size_t)start; i <= (size_t)end; i++) {
            if (!ngets) {
                offs[k] = v[i].off;
                lens[k++] = v[i].len;
                continue;
            }
            for (j = 0; j < ngets; j++, k++)
                if (!pattern_value(c, gets[j], &b, v[i].off, v[i].len, &offs[k], &lens[k]))
                    offs[k] = (size_t)-1;
        }
    }
    if (dst) {
        store_result(c, dst, &b, offs, lens, nout);
        goto done;
    }
    reply_array(c, (long)nout);
    for (i = 0; i < nout; i++) {
        if (offs[i] == (size_t)-1)
            reply_null(c);
        else
            reply_bulk(c, b.p + offs[i], lens[i]);
    }

done:
    xfree(lens);
    xfree(offs);
    xfree(v);
    xfree(b.p);
    xfree(gets);
}

static void cmd_sort(client *c)
{
    sort_generic(c, 0);
}

static void cmd_sort_ro(client *c)
{
    sort_generic(c, 1);
}

#define SORT_SPECS_RO                                                                                                 \
    "RO access;?RO access#For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from " \
    "the content of the key we sort"
#define SORT_COMPLEXITY                                                                                         \
    "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned " \
    "elements. When the elements are not sorted, complexity is O(N)."
/* clang-format off */
const cmd_def cmd_table_sort[] = {
    {.name = "sort", .proc = cmd_sort, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "generic", .summary = "Sort the elements in a list, set or sorted set", .since = "1.0.0",
     .complexity = SORT_COMPLEXITY, .acl = "write set sortedset list slow dangerous",
     .key_specs = SORT_SPECS_RO ";?OW update#For the optional STORE keyword. It is marked 'unknown' because the "
                  "keyword can appear anywhere in the argument array"},
    {.name = "sort_ro", .proc = cmd_sort_ro, .arity = -2, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "generic",
     .summary = "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", .since = "7.0.0",
     .complexity = SORT_COMPLEXITY, .acl = "read set sortedset list slow dangerous", .key_specs = SORT_SPECS_RO},
    {0},
};
/* clang-format on */
