/* cmd_geo.c -- the geo commands: GEOADD GEODIST GEOHASH GEOPOS GEOSEARCH
 * GEOSEARCHSTORE GEORADIUS GEORADIUSBYMEMBER and their _RO forms, with Redis
 * 7.0's replies, errors, precision and printing.
 *
 * A geo set is a sorted set whose scores are 52-bit geohashes (core/geohash.h),
 * so these commands are a view of the sorted set type and live in its folder:
 * they use its API (zset.h) and the helpers its commands share
 * (cmd_zset_int.h), and every sorted set command works on a geo set. A search
 * walks the score ranges of the nine cells geo_search_cells gives, in Redis's
 * order, keeps the members inside the shape, then sorts them by distance with
 * the C library's qsort as Redis does. When COUNT cuts a sorted result, Redis
 * sorts with a partial quicksort of its own: members at exactly the same
 * distance may then come in another order (docs/commands.md).
 *
 * Writes are logged as typed (GEOADD's scores are computed from the command,
 * deterministically; Redis logs the equivalent ZADD). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/geohash.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "types/zset/cmd_zset_int.h"

/* argv[i] and argv[i+1] as a longitude and a latitude in Redis's limits. 0, or
 * -1 after replying. */
static int arg_lonlat(client *c, int i, double xy[2])
{
    int j;

    for (j = 0; j < 2; j++)
        if (zs_parse_score(c->argv[i + j].p, c->argv[i + j].len, &xy[j]) < 0) {
            reply_error(c, ERR_NOTFLOAT);
            return -1;
        }
    if (xy[0] < GEO_LONG_MIN || xy[0] > GEO_LONG_MAX || xy[1] < GEO_LAT_MIN || xy[1] > GEO_LAT_MAX) {
        char msg[200];
        snprintf(msg, sizeof(msg), "ERR invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
        reply_error(c, msg);
        return -1;
    }
    return 0;
}

/* The metres in one unit named by argv[i], or -1 after replying. */
static double arg_unit(client *c, int i)
{
    static const char *const names[] = {"m", "km", "ft", "mi"};
    static const double metres[] = {1, 1000, 0.3048, 1609.34};
    int u;

    for (u = 0; u < 4; u++)
        if (str_eq_ci(c->argv[i].p, c->argv[i].len, names[u]))
            return metres[u];
    reply_error(c, "ERR unsupported unit provided. please use M, KM, FT, MI");
    return -1;
}

/* argv[i] as a non-negative number (msg if not a number), then a unit. */
static int arg_distance(client *c, int i, double *value, double *conversion)
{
    if (zs_parse_score(c->argv[i].p, c->argv[i].len, value) < 0) {
        reply_error(c, "ERR need numeric radius");
        return -1;
    }
    if (*value < 0) {
        reply_error(c, "ERR radius cannot be negative");
        return -1;
    }
    return (*conversion = arg_unit(c, i + 1)) < 0 ? -1 : 0;
}

static int arg_box(client *c, int i, double *w, double *h, double *conversion)
{
    if (zs_parse_score(c->argv[i].p, c->argv[i].len, w) < 0) {
        reply_error(c, "ERR need numeric width");
        return -1;
    }
    if (zs_parse_score(c->argv[i + 1].p, c->argv[i + 1].len, h) < 0) {
        reply_error(c, "ERR need numeric height");
        return -1;
    }
    if (*h < 0 || *w < 0) {
        reply_error(c, "ERR height or width cannot be negative");
        return -1;
    }
    return (*conversion = arg_unit(c, i + 2)) < 0 ? -1 : 0;
}

/* A coordinate as Redis prints it: "%.17Lf" without trailing zeros, a bulk
 * string in RESP2, a double in RESP3. */
static void reply_coord(client *c, double v)
{
    char buf[400];
    size_t n = ld_to_str(buf + 1, sizeof(buf) - 4, (long double)v);

    if (c->resp >= 3) {
        buf[0] = ',';
        memcpy(buf + 1 + n, "\r\n", 2);
        reply_raw(c, buf, n + 3);
    } else {
        reply_bulk(c, buf + 1, n);
    }
}

/* A distance as Redis prints it: "%.4f", a bulk string in both protocols. */
static void reply_distance(client *c, double d)
{
    char buf[400];
    int n = snprintf(buf, sizeof(buf), "%.4f", d);

    reply_bulk(c, buf, (size_t)n);
}

static void cmd_geoadd(client *c)
{
    int idx = 2, nx = 0, xx = 0, ch = 0, i, n, added = 0, updated = 0;
    double *scores, xy[2];
    geo_hash h;
    dbent *e;

    for (; idx < c->argc; idx++) {
        const sarg *a = &c->argv[idx];
        if (str_eq_ci(a->p, a->len, "nx"))
            nx = 1;
        else if (str_eq_ci(a->p, a->len, "xx"))
            xx = 1;
        else if (str_eq_ci(a->p, a->len, "ch"))
            ch = 1;
        else
            break;
    }
    if ((c->argc - idx) % 3 || (xx && nx) || c->argc == idx) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    n = (c->argc - idx) / 3;
    scores = xmalloc(sizeof(double) * (size_t)n);
    for (i = 0; i < n; i++) {
        if (arg_lonlat(c, idx + 3 * i, xy) < 0)
            goto done;
        geo_encode_wgs84(xy[0], xy[1], GEO_STEP_MAX, &h);
        scores[i] = (double)geo_align52(h);
    }
    if (zc_lookup(c, &c->argv[1], 1, &e) < 0)
        goto done;
    if (!e) {
        if (xx) {
            reply_int(c, 0);
            goto done;
        }
        e = zs_create(c->db, c->argv[1].p, c->argv[1].len);
    }
    for (i = 0; i < n; i++) {
        const sarg *m = &c->argv[idx + 3 * i + 2];
        double ns;
        int r = zs_add(e, m->p, m->len, scores[i], nx ? ZS_NX : xx ? ZS_XX : 0, &ns);
        added += r == ZS_ADDED;
        updated += r == ZS_UPDATED;
    }
    if (added || updated) {
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_ZSET, "zadd", c->argv[1].p, c->argv[1].len);
    }
    if (zs_len(e) == 0)
        db_delete_entry(c->db, e);
    reply_int(c, ch ? added + updated : added);
done:
    xfree(scores);
}

static void cmd_geodist(client *c)
{
    double conv = 1, s1, s2, a[2], b[2];
    dbent *e;

    if (c->argc == 5) {
        if ((conv = arg_unit(c, 4)) < 0)
            return;
    } else if (c->argc > 5) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e || !zs_score(e, c->argv[2].p, c->argv[2].len, &s1) || !zs_score(e, c->argv[3].p, c->argv[3].len, &s2)) {
        reply_null(c);
        return;
    }
    geo_decode_score(s1, a);
    geo_decode_score(s2, b);
    reply_distance(c, geo_distance(a[0], a[1], b[0], b[1]) / conv);
}

static void cmd_geohash(client *c)
{
    dbent *e;
    double score;
    char buf[11];
    int j;

    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_array(c, c->argc - 2);
    for (j = 2; j < c->argc; j++) {
        if (!e || !zs_score(e, c->argv[j].p, c->argv[j].len, &score)) {
            reply_null(c);
            continue;
        }
        geo_hash_string(score, buf);
        reply_bulk(c, buf, 11);
    }
}

static void cmd_geopos(client *c)
{
    dbent *e;
    double score, xy[2];
    int j;

    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_array(c, c->argc - 2);
    for (j = 2; j < c->argc; j++) {
        if (!e || !zs_score(e, c->argv[j].p, c->argv[j].len, &score)) {
            reply_null_array(c);
            continue;
        }
        geo_decode_score(score, xy);
        reply_array(c, 2);
        reply_coord(c, xy[0]);
        reply_coord(c, xy[1]);
    }
}

/* ---- the searches ---- */

typedef struct geo_point {
    double lon, lat, dist, score;
    const char *m; /* in the set: valid while the command runs */
    size_t len;
} geo_point;

typedef struct geo_found {
    geo_point *p;
    size_t used, cap;
} geo_found;

typedef struct lower_ctx {
    double min;
} lower_ctx;

static int score_below(const char *m, size_t len, double score, void *ctx)
{
    (void)m;
    (void)len;
    return score < ((lower_ctx *)ctx)->min;
}

/* Add the members with scores in [min, max) that are inside the shape. */
static void search_range(dbent *e, double min, double max, const geo_shape *s, geo_found *f, size_t limit)
{
    lower_ctx lc = {min};
    zs_it it;

    zs_it_at(&it, e, zs_lower_bound(e, score_below, &lc));
    for (; it.valid; zs_it_next(&it)) {
        geo_point *g;
        double score, xy[2], dist = 0;
        size_t len;
        const char *m = zs_it_get(&it, &len, &score);

        if (score >= max)
            break;
        geo_decode_score(score, xy);
        if (!geo_in_shape(s, xy[0], xy[1], &dist))
            continue;
        if (f->used == f->cap) {
            f->cap = f->cap ? f->cap * 2 : 64;
            f->p = xrealloc(f->p, f->cap * sizeof(geo_point));
        }
        g = &f->p[f->used++];
        g->lon = xy[0];
        g->lat = xy[1];
        g->dist = dist;
        g->score = score;
        g->m = m;
        g->len = len;
        if (limit && f->used >= limit)
            break;
    }
}

static void search(dbent *e, const geo_shape *s, geo_found *f, size_t limit)
{
    geo_hash cells[9];
    int i, last = 0;

    geo_search_cells(s, cells);
    for (i = 0; i < 9; i++) {
        geo_hash lo, hi;
        if (cells[i].bits == 0 && cells[i].step == 0)
            continue;
        /* Redis skips a cell equal to the last one searched (huge radii),
         * comparing with the centre cell never. */
        if (last && cells[i].bits == cells[last].bits && cells[i].step == cells[last].step)
            continue;
        if (f->used && limit && f->used >= limit)
            break;
        lo = hi = cells[i];
        hi.bits++;
        search_range(e, (double)geo_align52(lo), (double)geo_align52(hi), s, f, limit);
        last = i;
    }
}

static int by_dist_asc(const void *a, const void *b)
{
    double x = ((const geo_point *)a)->dist, y = ((const geo_point *)b)->dist;
    return x > y ? 1 : x == y ? 0 : -1;
}

static int by_dist_desc(const void *a, const void *b)
{
    return -by_dist_asc(a, b);
}

#define G_COORDS 1   /* GEORADIUS[_RO] */
#define G_MEMBER 2   /* GEORADIUSBYMEMBER[_RO] */
#define G_SEARCH 4   /* GEOSEARCH[STORE] */
#define G_STORE 8    /* GEOSEARCHSTORE */
#define G_NOSTORE 16 /* the _RO forms */

enum { SORT_NONE, SORT_ASC, SORT_DESC };

/* The searches, as Redis 7.0's georadiusGeneric: the source key, the center
 * and shape of the old forms, then the options in any order. */
static void geo_generic(client *c, int src, int flags)
{
    const sarg *store = NULL;
    int base, storedist = 0, withdist = 0, withhash = 0, withcoord = 0, frommember = 0, fromloc = 0;
    int byradius = 0, bybox = 0, sort = SORT_NONE, any = 0, i, rem;
    long long count = 0;
    geo_shape s = {0};
    geo_found f = {NULL, 0, 0};
    double score;
    size_t n, k;
    dbent *e;

    if (zc_lookup(c, &c->argv[src], 0, &e) < 0)
        return;
    if (flags & G_COORDS) {
        base = 6;
        if (arg_lonlat(c, 2, s.xy) < 0 || arg_distance(c, 4, &s.radius, &s.conversion) < 0)
            return;
    } else if (flags & G_MEMBER) {
        base = 5;
        if (e) {
            if (!zs_score(e, c->argv[2].p, c->argv[2].len, &score)) {
                reply_error(c, "ERR could not decode requested zset member");
                return;
            }
            geo_decode_score(score, s.xy);
            if (arg_distance(c, 3, &s.radius, &s.conversion) < 0)
                return;
        }
    } else {
        base = flags & G_STORE ? 3 : 2;
        if (flags & G_STORE)
            store = &c->argv[1];
    }
    rem = c->argc - base;
    for (i = 0; i < rem; i++) {
        const sarg *a = &c->argv[base + i];
        if (str_eq_ci(a->p, a->len, "withdist")) {
            withdist = 1;
        } else if (str_eq_ci(a->p, a->len, "withhash")) {
            withhash = 1;
        } else if (str_eq_ci(a->p, a->len, "withcoord")) {
            withcoord = 1;
        } else if (str_eq_ci(a->p, a->len, "any")) {
            any = 1;
        } else if (str_eq_ci(a->p, a->len, "asc")) {
            sort = SORT_ASC;
        } else if (str_eq_ci(a->p, a->len, "desc")) {
            sort = SORT_DESC;
        } else if (str_eq_ci(a->p, a->len, "count") && i + 1 < rem) {
            if (zc_arg_long(c, base + i + 1, &count, NULL) < 0)
                return;
            if (count <= 0) {
                reply_error(c, "ERR COUNT must be > 0");
                return;
            }
            i++;
        } else if ((str_eq_ci(a->p, a->len, "store") || str_eq_ci(a->p, a->len, "storedist")) && i + 1 < rem &&
                   !(flags & (G_NOSTORE | G_SEARCH))) {
            store = &c->argv[base + i + 1];
            storedist = str_eq_ci(a->p, a->len, "storedist");
            i++;
        } else if (str_eq_ci(a->p, a->len, "storedist") && (flags & G_STORE)) {
            storedist = 1;
        } else if (str_eq_ci(a->p, a->len, "frommember") && i + 1 < rem && (flags & G_SEARCH) && !fromloc) {
            const sarg *m = &c->argv[base + i + 1];
            if (e) {
                if (!zs_score(e, m->p, m->len, &score)) {
                    reply_error(c, "ERR could not decode requested zset member");
                    return;
                }
                geo_decode_score(score, s.xy);
            }
            frommember = 1;
            i++;
        } else if (str_eq_ci(a->p, a->len, "fromlonlat") && i + 2 < rem && (flags & G_SEARCH) && !frommember) {
            if (arg_lonlat(c, base + i + 1, s.xy) < 0)
                return;
            fromloc = 1;
            i += 2;
        } else if (str_eq_ci(a->p, a->len, "byradius") && i + 2 < rem && (flags & G_SEARCH) && !bybox) {
            if (arg_distance(c, base + i + 1, &s.radius, &s.conversion) < 0)
                return;
            s.box = 0;
            byradius = 1;
            i += 2;
        } else if (str_eq_ci(a->p, a->len, "bybox") && i + 3 < rem && (flags & G_SEARCH) && !byradius) {
            if (arg_box(c, base + i + 1, &s.width, &s.height, &s.conversion) < 0)
                return;
            s.box = 1;
            bybox = 1;
            i += 3;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (store && (withdist || withhash || withcoord)) {
        reply_error(
            c, flags & G_STORE
                   ? "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
                   : "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
        return;
    }
    if ((flags & G_SEARCH) && !(frommember || fromloc)) {
        char msg[128];
        snprintf(msg, sizeof(msg), "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %.*s",
                 (int)(c->argv[0].len > 40 ? 40 : c->argv[0].len), c->argv[0].p);
        reply_error(c, msg);
        return;
    }
    if ((flags & G_SEARCH) && !(byradius || bybox)) {
        char msg[128];
        snprintf(msg, sizeof(msg), "ERR exactly one of BYRADIUS and BYBOX can be specified for %.*s",
                 (int)(c->argv[0].len > 40 ? 40 : c->argv[0].len), c->argv[0].p);
        reply_error(c, msg);
        return;
    }
    if (any && !count) {
        reply_error(c, "ERR the ANY argument requires COUNT argument");
        return;
    }
    if (!e) {
        if (store) {
            if (db_delete(c->db, store->p, store->len)) {
                signal_key_changed(c->db, store->p, store->len);
                signal_event(c->db, NOTIFY_GENERIC, "del", store->p, store->len);
            }
            reply_int(c, 0);
        } else {
            reply_array(c, 0);
        }
        return;
    }
    if (count && sort == SORT_NONE && !any)
        sort = SORT_ASC;
    search(e, &s, &f, any ? (size_t)count : 0);
    if (f.used == 0 && !store) {
        reply_array(c, 0);
        goto done;
    }
    n = count == 0 || f.used < (size_t)count ? f.used : (size_t)count;
    if (sort != SORT_NONE && f.used > 1)
        qsort(f.p, f.used, sizeof(geo_point), sort == SORT_ASC ? by_dist_asc : by_dist_desc);
    if (store) {
        zs_acc *acc = zs_acc_new();
        for (k = 0; k < n; k++)
            zs_acc_add(acc, f.p[k].m, f.p[k].len, storedist ? f.p[k].dist / s.conversion : f.p[k].score, ZS_AGG_SUM);
        zc_store_result(c, store, acc,
                        strncmp(c->cmd->name, "geosearch", 9) == 0 ? "geosearchstore" : "georadiusstore");
        goto done;
    }
    reply_array(c, (long)n);
    for (k = 0; k < n; k++) {
        geo_point *g = &f.p[k];
        int opts = withdist + withhash + withcoord;
        if (opts)
            reply_array(c, 1 + opts);
        reply_bulk(c, g->m, g->len);
        if (withdist)
            reply_distance(c, g->dist / s.conversion);
        if (withhash)
            reply_int(c, (long long)g->score);
        if (withcoord) {
            reply_array(c, 2);
            reply_coord(c, g->lon);
            reply_coord(c, g->lat);
        }
    }
done:
    xfree(f.p);
}

static void cmd_georadius(client *c)
{
    geo_generic(c, 1, G_COORDS);
}

static void cmd_georadius_ro(client *c)
{
    geo_generic(c, 1, G_COORDS | G_NOSTORE);
}

static void cmd_georadiusbymember(client *c)
{
    geo_generic(c, 1, G_MEMBER);
}

static void cmd_georadiusbymember_ro(client *c)
{
    geo_generic(c, 1, G_MEMBER | G_NOSTORE);
}

static void cmd_geosearch(client *c)
{
    geo_generic(c, 1, G_SEARCH);
}

static void cmd_geosearchstore(client *c)
{
    geo_generic(c, 2, G_SEARCH | G_STORE);
}

/* clang-format off */
const cmd_def cmd_table_geo[] = {
    {.name = "geoadd", .proc = cmd_geoadd, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(1, 1, 1),
     .group = "geo", .summary = "Add one or more geospatial items in the geospatial index represented using a sorted set",
     .since = "3.2.0", .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
     .acl = "write geo slow", .key_specs = "RW update"},
    {.name = "geodist", .proc = cmd_geodist, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "geo",
     .summary = "Returns the distance between two members of a geospatial index", .since = "3.2.0",
     .complexity = "O(log(N))", .acl = "read geo slow", .key_specs = "RO access"},
    {.name = "geohash", .proc = cmd_geohash, .arity = -2, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "geo",
     .summary = "Returns members of a geospatial index as standard geohash strings", .since = "3.2.0",
     .complexity = "O(log(N)) for each member requested, where N is the number of elements in the sorted set.",
     .acl = "read geo slow", .key_specs = "RO access"},
    {.name = "geopos", .proc = cmd_geopos, .arity = -2, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "geo",
     .summary = "Returns longitude and latitude of members of a geospatial index", .since = "3.2.0",
     .complexity = "O(N) where N is the number of members requested.", .acl = "read geo slow",
     .key_specs = "RO access"},
    {.name = "georadius", .proc = cmd_georadius, .arity = -6, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(1, 1, 1),
     .group = "geo",
     .summary = "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point",
     .since = "3.2.0",
     .complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
     .acl = "write geo slow", .key_specs = "RO access@1,0,1;OW update@w:STORE,6,0,1,0;OW update@w:STOREDIST,6,0,1,0"},
    {.name = "georadius_ro", .proc = cmd_georadius_ro, .arity = -6, .flags = CMD_READONLY, KEYS(1, 1, 1),
     .group = "geo",
     .summary = "A read-only variant for GEORADIUS", .since = "3.2.10",
     .complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
     .acl = "read geo slow", .key_specs = "RO access"},
    {.name = "georadiusbymember", .proc = cmd_georadiusbymember, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM,
     KEYS(1, 1, 1), .group = "geo",
     .summary = "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member",
     .since = "3.2.0",
     .complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
     .acl = "write geo slow", .key_specs = "RO access@1,0,1;OW update@w:STORE,5,0,1,0;OW update@w:STOREDIST,5,0,1,0"},
    {.name = "georadiusbymember_ro", .proc = cmd_georadiusbymember_ro, .arity = -5, .flags = CMD_READONLY,
     KEYS(1, 1, 1), .group = "geo", .summary = "A read-only variant for GEORADIUSBYMEMBER", .since = "3.2.10",
     .complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
     .acl = "read geo slow", .key_specs = "RO access"},
    {.name = "geosearch", .proc = cmd_geosearch, .arity = -7, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "geo",
     .summary = "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.",
     .since = "6.2.0",
     .complexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
     .acl = "read geo slow", .key_specs = "RO access"},
    {.name = "geosearchstore", .proc = cmd_geosearchstore, .arity = -8, .flags = CMD_WRITE | CMD_DENYOOM,
     KEYS(1, 2, 1), .group = "geo",
     .summary = "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.",
     .since = "6.2.0",
     .complexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
     .acl = "write geo slow", .key_specs = "OW update;RO access"},
    {0},
};
/* clang-format on */
