/* loggen.c -- log-like text, plans and the shared corpus (see loggen.h).
 *
 * The line mix is chosen to look like a service log an agent would get back from
 * a tool (`kubectl logs`, a test run, a build): about 70 % INFO, 15 % DEBUG,
 * 10 % WARN, 5 % ERROR, some ERRORs followed by a short stack trace. LZ4 on such
 * text typically saves 60-75 %, as on real logs; gzip does better still. */
#include "loggen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const loggen_patterns[] = {
    "ERROR",
    "timeout after \\d+ ms",
    "user=4\\d\\d\\b",
    "(?i)connection reset",
    "status=5\\d\\d",
    "slow query took [0-9]{4,} ms",
};
const int loggen_npatterns = (int)(sizeof(loggen_patterns) / sizeof(loggen_patterns[0]));

static const char *const words_path[] = {
    "/api/v1/items", "/api/v1/orders", "/api/v1/users", "/api/v2/search", "/healthz", "/api/v1/carts",
    "/api/v1/payments", "/static/app.js",
};
static const char *const words_job[] = {
    "reindex", "compact", "export-csv", "send-digest", "rotate-keys", "gc-sessions", "warm-cache",
};
static const char *const words_test[] = {
    "parser", "scheduler", "cache", "http_client", "retry", "auth", "billing", "search",
};
static const char *const words_verb[] = {
    "read", "fix", "check", "profile", "rewrite", "test", "document", "bisect", "trace", "review",
};
static const char *const words_obj[] = {
    "the retry loop", "the cache eviction", "the flaky test", "the slow query", "the auth middleware",
    "the config loader", "the upstream timeout", "the memory leak", "the error handling", "the CSV export",
};
static const char *const words_file[] = {
    "src/http/client.c", "src/db/pool.c", "src/cache/lru.c", "tests/test_retry.py", "src/auth/jwt.go",
    "cmd/server/main.go", "lib/export.rb", "src/sched/queue.rs",
};

#define PICK(r, a) ((a)[rng_below((r), sizeof(a) / sizeof((a)[0]))])
/* From an already drawn value x: an element of array a, a number in [lo, hi]. */
#define PICKV(x, a) ((a)[(x) % (sizeof(a) / sizeof((a)[0]))])
#define U(x, lo, hi) ((unsigned)((lo) + (x) % ((uint64_t)(hi) - (lo) + 1)))

void loggen_init(loggen *g, rng *r)
{
    /* 2024-01-01 plus up to a year */
    g->ms = UINT64_C(1704067200000) + rng_below(r, UINT64_C(365) * 86400 * 1000);
}

static size_t stamp(loggen *g, char *buf, size_t cap)
{
    time_t s = (time_t)(g->ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    return (size_t)snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
                           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(g->ms % 1000));
}

size_t loggen_line(loggen *g, rng *r, char *buf, size_t cap)
{
    char ts[80];
    uint64_t v[8];
    unsigned w, roll, req, user, item;
    int i, n;

    /* Every random value is drawn here, in a fixed order: the order in which a
     * call's arguments are evaluated is unspecified, so draws inside a call's
     * arguments could differ between builds. */
    for (i = 0; i < 8; i++)
        v[i] = rng_next(r);
    w = (unsigned)(v[0] % 16);
    roll = (unsigned)(v[1] % 1000);
    req = (unsigned)v[2];
    user = (unsigned)U(v[3] >> 32, 100, 999);
    item = (unsigned)U(v[3], 1000, 99999);
    g->ms += U(v[4], 0, 40) + ((v[4] >> 32) % 50 == 0 ? (v[4] >> 40) % 3000 : 0);
    stamp(g, ts, sizeof(ts));
    if (roll < 300)
        n = snprintf(buf, cap, "%s INFO  [worker-%u] http: GET %s/%u status=200 bytes=%u dur=%ums req=%08x user=%u\n",
                     ts, w, PICKV(v[5], words_path), item, U(v[6], 120, 40000), U(v[7], 1, 180), req, user);
    else if (roll < 450)
        n = snprintf(buf, cap, "%s INFO  [worker-%u] http: POST %s status=%u bytes=%u dur=%ums req=%08x user=%u\n",
                     ts, w, PICKV(v[5], words_path), v[5] % 10 ? 201u : 400u, U(v[6], 80, 2000), U(v[7], 3, 400),
                     req, user);
    else if (roll < 550)
        n = snprintf(buf, cap, "%s INFO  [scheduler] job %u (%s) finished in %u ms, %u rows\n", ts, U(v[5], 1, 5000),
                     PICKV(v[6], words_job), U(v[6] >> 32, 5, 90000), U(v[7], 0, 999999));
    else if (roll < 620)
        n = snprintf(buf, cap, "%s INFO  [runner] PASSED tests/test_%s.py::test_%s_%u (%u ms)\n", ts,
                     PICKV(v[5], words_test), PICKV(v[6], words_test), U(v[7], 0, 59), U(v[7] >> 32, 1, 900));
    else if (roll < 700)
        n = snprintf(buf, cap, "%s DEBUG [worker-%u] cache: hit key=item:%u ttl=%us\n", ts, w, item,
                     U(v[5], 1, 3600));
    else if (roll < 770)
        n = snprintf(buf, cap, "%s DEBUG [worker-%u] cache: miss key=item:%u, loading from db (pool=%u)\n", ts, w,
                     item, U(v[5], 0, 31));
    else if (roll < 800)
        n = snprintf(buf, cap, "%s INFO  [gc] pause %u.%03u ms, heap %u MB -> %u MB\n", ts, U(v[5], 0, 39),
                     U(v[5] >> 32, 0, 999), U(v[6], 300, 900), U(v[7], 100, 300));
    else if (roll < 850)
        n = snprintf(buf, cap, "%s WARN  [worker-%u] db: slow query took %u ms: SELECT * FROM items WHERE id = %u\n",
                     ts, w, U(v[5], 200, 12000), item);
    else if (roll < 900)
        n = snprintf(buf, cap, "%s WARN  [worker-%u] http: retrying upstream request req=%08x attempt=%u\n", ts, w,
                     req, U(v[5], 1, 5));
    else if (roll < 920)
        n = snprintf(buf, cap,
                     "%s INFO  [runner] FAILED tests/test_%s.py::test_%s_%u - AssertionError: expected %u, got %u\n",
                     ts, PICKV(v[5], words_test), PICKV(v[6], words_test), U(v[7], 0, 59),
                     U(v[7] >> 20, 0, 99), U(v[7] >> 40, 0, 99));
    else if (roll < 960)
        n = snprintf(buf, cap, "%s ERROR [worker-%u] http: upstream timeout after %u ms req=%08x user=%u status=504\n",
                     ts, w, U(v[5], 1000, 30000), req, user);
    else if (roll < 985)
        n = snprintf(buf, cap, "%s ERROR [worker-%u] db: Connection reset by peer (pool=%u, in_use=%u) status=503\n",
                     ts, w, U(v[5], 0, 31), U(v[6], 0, 63));
    else
        n = snprintf(buf, cap,
                     "%s ERROR [worker-%u] panic: index out of range [%u] with length %u\n"
                     "    at com.example.service.ItemService.load(ItemService.java:%u)\n"
                     "    at com.example.http.Router.dispatch(Router.java:%u)\n"
                     "    at com.example.http.Server.handle(Server.java:%u)\n",
                     ts, w, U(v[5], 0, 63), U(v[5] >> 32, 0, 63), U(v[6], 10, 900), U(v[6] >> 32, 10, 400),
                     U(v[7], 10, 300));
    if (n < 0)
        return 0;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

int corpus_build(corpus *c, uint64_t seed, size_t bytes)
{
    size_t cap = bytes + 1024, ncap = bytes / 48 + 16;
    loggen g;
    rng r;

    memset(c, 0, sizeof(*c));
    c->text = malloc(cap + 1);
    c->line = malloc(ncap * sizeof(*c->line));
    if (!c->text || !c->line)
        goto err;
    rng_seed(&r, seed, UINT64_C(0xC0FFEE));
    loggen_init(&g, &r);
    c->line[0] = 0;
    while (c->len < bytes) {
        char *p = c->text + c->len, *nl;
        size_t n = loggen_line(&g, &r, p, cap - c->len + 1);
        /* index every line, including those of a stack trace */
        for (nl = memchr(p, '\n', n); nl; nl = memchr(nl + 1, '\n', (size_t)(p + n - nl - 1))) {
            if (c->nlines + 2 > ncap) {
                uint32_t *t = realloc(c->line, 2 * ncap * sizeof(*c->line));
                if (!t)
                    goto err;
                c->line = t;
                ncap *= 2;
            }
            c->line[++c->nlines] = (uint32_t)(nl + 1 - c->text);
        }
        c->len += n;
        if (c->len + 600 > cap) {
            char *t = realloc(c->text, 2 * cap + 1);
            if (!t)
                goto err;
            c->text = t;
            cap *= 2;
        }
    }
    c->text[c->len] = '\0';
    return 0;
err:
    corpus_free(c);
    return -1;
}

void corpus_free(corpus *c)
{
    free(c->text);
    free(c->line);
    memset(c, 0, sizeof(*c));
}

size_t corpus_slice(const corpus *c, rng *r, size_t want, size_t *off, size_t *len)
{
    size_t lo, hi, first, last, limit;

    if (want >= c->len) {
        *off = 0;
        *len = c->len;
        return c->nlines;
    }
    /* the last first-line that leaves `want` bytes after it */
    lo = 0;
    hi = c->nlines;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->line[mid] + want <= c->len)
            lo = mid + 1;
        else
            hi = mid;
    }
    limit = lo ? lo - 1 : 0;
    first = (size_t)rng_below(r, limit + 1);
    /* the first line boundary at or after line[first] + want */
    lo = first + 1;
    hi = c->nlines;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->line[mid] < c->line[first] + want)
            lo = mid + 1;
        else
            hi = mid;
    }
    last = lo;
    *off = c->line[first];
    *len = c->line[last] - c->line[first];
    return last - first;
}

size_t loggen_plan(rng *r, size_t target, char *buf, size_t cap, int *steps)
{
    const char *verb = PICK(r, words_verb), *obj = PICK(r, words_obj), *file = PICK(r, words_file);
    unsigned task = (unsigned)rng_between(r, 1000, 99999);
    size_t n;
    int k = 0;

    n = (size_t)snprintf(buf, cap, "# Plan for task %u\n\nGoal: %s %s in %s and leave the tests green.\n\n", task,
                         verb, obj, file);
    while ((n < target || k == 0) && k < 63 && n + 200 < cap) {
        unsigned ticket;
        verb = PICK(r, words_verb);
        obj = PICK(r, words_obj);
        file = PICK(r, words_file);
        ticket = (unsigned)rng_between(r, 100, 9999);
        k++;
        n += (size_t)snprintf(buf + n, cap - n, "- [ ] step %d: %s %s in %s (ticket #%u)\n", k, verb, obj, file,
                              ticket);
    }
    *steps = k;
    return n;
}
