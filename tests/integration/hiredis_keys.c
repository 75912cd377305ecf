/* hiredis_keys.c -- the key commands (DEL, EXISTS, RENAME, COPY, MOVE, SWAPDB,
 * EXPIRE and friends, KEYS, SCAN, OBJECT, ...) and the server commands (INFO,
 * CONFIG, COMMAND, DBSIZE, FLUSHDB/FLUSHALL, TIME, SLOWLOG, SHUTDOWN, ...)
 * through hiredis, with Redis 7.0's replies and errors.
 *
 * Keys are compared as sets where Redis gives no order (KEYS, SCAN). RESP3
 * forms (maps, verbatim strings) are read with itest.h's reply reader. */
#include <hiredis/hiredis.h>

#include "itest.h"

static it_server server;
static int port;

static long long wall_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static long long int_reply(redisContext *c, const char *cmd)
{
    redisReply *r = redisCommand(c, cmd);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : LLONG_MIN;
    if (!r || r->type != REDIS_REPLY_INTEGER)
        fprintf(stderr, "    %s: not an integer reply%s%s\n", cmd, r && r->str ? ": " : "", r && r->str ? r->str : "");
    if (r)
        freeReplyObject(r);
    return v;
}

/* 1 if array r holds exactly the strings of want (NULL-terminated), in any order. */
static int same_set(const redisReply *r, const char *const *want)
{
    size_t n = 0, i, j;
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return 0;
    while (want[n])
        n++;
    if (r->elements != n)
        return 0;
    for (i = 0; i < n; i++) {
        int found = 0;
        for (j = 0; j < r->elements && !found; j++)
            found = r->element[j]->type == REDIS_REPLY_STRING && strcmp(r->element[j]->str, want[i]) == 0;
        if (!found)
            return 0;
    }
    return 1;
}

#define CHECK_KEYS(c, pattern, ...)                                                   \
    do {                                                                              \
        const char *want_[] = {__VA_ARGS__, NULL};                                    \
        redisReply *r_ = redisCommand(c, "KEYS %s", pattern);                        \
        CHECKF(same_set(r_, want_), "KEYS %s returned another set", pattern);         \
        if (r_)                                                                       \
            freeReplyObject(r_);                                                      \
    } while (0)

/* The text of INFO [section] (caller frees), or NULL. */
static char *info(redisContext *c, const char *section)
{
    redisReply *r = section ? redisCommand(c, "INFO %s", section) : redisCommand(c, "INFO");
    char *s = NULL;
    if (r && r->type == REDIS_REPLY_STRING)
        s = strdup(r->str);
    if (r)
        freeReplyObject(r);
    return s;
}

/* The value of "field:" in INFO text as a number, or -1. */
static long long info_field(const char *text, const char *field)
{
    char pat[128];
    const char *p;
    snprintf(pat, sizeof(pat), "\r\n%s:", field);
    if (!text || !(p = strstr(text, pat)))
        return -1;
    return atoll(p + strlen(pat));
}

/* ---- keys ---- */

static void test_del_exists(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "MSET k:a 1 k:b 2 k:c 3");
    EXPECT_INT(c, 3, "EXISTS k:a k:a k:b");
    EXPECT_INT(c, 0, "EXISTS k:missing");
    EXPECT_INT(c, 2, "DEL k:a k:b k:missing");
    EXPECT_INT(c, 0, "DEL k:a");
    EXPECT_INT(c, 1, "UNLINK k:c");
    EXPECT_INT(c, 0, "EXISTS k:a k:b k:c");
    EXPECT_STATUS(c, "none", "TYPE k:a");
    EXPECT_OK(c, "SET k:d v");
    EXPECT_STATUS(c, "string", "TYPE k:d");
    EXPECT_INT(c, 1, "TOUCH k:d k:missing");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'del' command", "DEL");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'exists' command", "EXISTS");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'type' command", "TYPE");
    redisFree(c);
}

static void test_rename_copy_move(void)
{
    redisContext *c = it_redis(port);
    long long ttl;
    if (!c) { CHECK(0); return; }
    EXPECT_ERR(c, "ERR no such key", "RENAME rn:missing rn:x");
    EXPECT_ERR(c, "ERR no such key", "RENAMENX rn:missing rn:x");
    EXPECT_OK(c, "SET rn:a va PX 100000");
    EXPECT_OK(c, "RENAME rn:a rn:b");
    EXPECT_NIL(c, "GET rn:a");
    EXPECT_STR(c, "va", "GET rn:b");
    ttl = int_reply(c, "PTTL rn:b");
    CHECKF(ttl > 90000 && ttl <= 100000, "RENAME kept a TTL of %lld ms", ttl);
    EXPECT_OK(c, "RENAME rn:b rn:b");
    EXPECT_INT(c, 0, "RENAMENX rn:b rn:b");
    EXPECT_OK(c, "SET rn:c vc");
    EXPECT_INT(c, 0, "RENAMENX rn:b rn:c");
    EXPECT_INT(c, 1, "RENAMENX rn:b rn:d");
    EXPECT_OK(c, "RENAME rn:d rn:c");
    EXPECT_STR(c, "va", "GET rn:c");

    EXPECT_INT(c, 1, "COPY rn:c rn:copy");
    EXPECT_INT(c, 0, "COPY rn:c rn:copy");
    EXPECT_OK(c, "SET rn:other x");
    EXPECT_INT(c, 1, "COPY rn:other rn:copy REPLACE");
    EXPECT_STR(c, "x", "GET rn:copy");
    EXPECT_STR(c, "va", "GET rn:c");
    ttl = int_reply(c, "PTTL rn:c");
    CHECK(ttl > 0);
    EXPECT_INT(c, 1, "COPY rn:c rn:copy2 DB 1");
    EXPECT_INT(c, 0, "COPY rn:missing rn:copy3");
    EXPECT_ERR(c, "ERR DB index is out of range", "COPY rn:c rn:x DB 16");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "COPY rn:c rn:x DB abc");
    EXPECT_ERR(c, "ERR syntax error", "COPY rn:c rn:x FOO");

    EXPECT_INT(c, 1, "MOVE rn:c 2");
    EXPECT_INT(c, 0, "MOVE rn:c 2");
    EXPECT_OK(c, "SELECT 2");
    EXPECT_STR(c, "va", "GET rn:c");
    ttl = int_reply(c, "PTTL rn:c");
    CHECKF(ttl > 0, "MOVE kept the TTL: %lld", ttl);
    EXPECT_OK(c, "SELECT 1");
    EXPECT_STR(c, "va", "GET rn:copy2");
    EXPECT_OK(c, "SET rn:other in-db1");
    EXPECT_OK(c, "SELECT 0");
    EXPECT_INT(c, 0, "MOVE rn:other 1");
    EXPECT_STR(c, "x", "GET rn:other");
    EXPECT_ERR(c, "ERR source and destination objects are the same", "MOVE rn:other 0");
    EXPECT_ERR(c, "ERR DB index is out of range", "MOVE rn:other 16");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "MOVE rn:other abc");
    redisFree(c);
}

static void test_swapdb(void)
{
    redisContext *c = it_redis(port), *w = it_redis(port);
    if (!c || !w) { CHECK(0); goto done; }
    EXPECT_OK(c, "SELECT 5");
    EXPECT_OK(c, "SET sw:k five");
    EXPECT_OK(c, "SELECT 6");
    EXPECT_OK(c, "SET sw:k six");
    EXPECT_OK(w, "SELECT 5");
    EXPECT_OK(w, "WATCH sw:k");
    EXPECT_OK(c, "SWAPDB 5 6");
    EXPECT_STR(c, "five", "GET sw:k");
    EXPECT_STR(w, "six", "GET sw:k");
    /* A connection on database 5 now sees the other data; its WATCH fails. */
    EXPECT_OK(w, "MULTI");
    EXPECT_NIL(w, "EXEC");
    EXPECT_OK(c, "SWAPDB 6 5");
    EXPECT_STR(c, "six", "GET sw:k");
    EXPECT_ERR(c, "ERR DB index is out of range", "SWAPDB 0 16");
    EXPECT_ERR(c, "ERR invalid first DB index", "SWAPDB a 1");
    EXPECT_ERR(c, "ERR invalid second DB index", "SWAPDB 1 b");
done:
    if (c)
        redisFree(c);
    if (w)
        redisFree(w);
}

static void test_expire_ttl(void)
{
    redisContext *c = it_redis(port);
    long long v, now = wall_ms();
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, -2, "TTL ex:missing");
    EXPECT_INT(c, -2, "PTTL ex:missing");
    EXPECT_OK(c, "SET ex:a v");
    EXPECT_INT(c, -1, "TTL ex:a");
    EXPECT_INT(c, -1, "EXPIRETIME ex:a");
    EXPECT_INT(c, -2, "PEXPIRETIME ex:missing");
    EXPECT_INT(c, 0, "EXPIRE ex:missing 100");
    EXPECT_INT(c, 1, "EXPIRE ex:a 100");
    v = int_reply(c, "TTL ex:a");
    CHECK(v >= 99 && v <= 100);
    v = int_reply(c, "PTTL ex:a");
    CHECK(v > 99000 && v <= 100000);
    v = int_reply(c, "EXPIRETIME ex:a");
    CHECKF(v >= now / 1000 + 99 && v <= now / 1000 + 101, "EXPIRETIME %lld", v);
    EXPECT_INT(c, 1, "PEXPIREAT ex:a %lld", now + 200000);
    EXPECT_INT(c, now + 200000, "PEXPIRETIME ex:a");
    EXPECT_INT(c, 1, "EXPIREAT ex:a %lld", now / 1000 + 300);
    EXPECT_INT(c, (now / 1000 + 300) * 1000, "PEXPIRETIME ex:a");
    EXPECT_INT(c, 1, "PEXPIRE ex:a 100000");

    /* NX, XX, GT, LT. */
    EXPECT_INT(c, 0, "EXPIRE ex:a 50 NX");
    EXPECT_INT(c, 1, "EXPIRE ex:a 200 XX");
    EXPECT_INT(c, 0, "EXPIRE ex:a 50 GT");
    EXPECT_INT(c, 1, "EXPIRE ex:a 500 GT");
    EXPECT_INT(c, 1, "EXPIRE ex:a 50 LT");
    EXPECT_INT(c, 0, "EXPIRE ex:a 500 LT");
    v = int_reply(c, "TTL ex:a");
    CHECK(v >= 49 && v <= 50);
    EXPECT_OK(c, "SET ex:p v");
    EXPECT_INT(c, 0, "EXPIRE ex:p 100 XX");
    EXPECT_INT(c, 0, "EXPIRE ex:p 100 GT");
    EXPECT_INT(c, 1, "EXPIRE ex:p 100 LT");
    EXPECT_ERR(c, "ERR NX and XX, GT or LT options at the same time are not compatible", "EXPIRE ex:a 100 NX XX");
    EXPECT_ERR(c, "ERR GT and LT options at the same time are not compatible", "EXPIRE ex:a 100 GT LT");
    EXPECT_ERR(c, "ERR Unsupported option FOO", "EXPIRE ex:a 100 FOO");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "EXPIRE ex:a abc");
    EXPECT_ERR(c, "ERR invalid expire time in 'expire' command", "EXPIRE ex:a 9223372036854775807");
    EXPECT_ERR(c, "ERR invalid expire time in 'pexpire' command", "PEXPIRE ex:a 9223372036854775807");
    EXPECT_ERR(c, "ERR invalid expire time in 'expireat' command", "EXPIREAT ex:a 9223372036854775807");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'expire' command", "EXPIRE ex:a");

    /* PERSIST. */
    EXPECT_INT(c, 1, "PERSIST ex:a");
    EXPECT_INT(c, 0, "PERSIST ex:a");
    EXPECT_INT(c, 0, "PERSIST ex:missing");
    EXPECT_INT(c, -1, "TTL ex:a");

    /* A time in the past deletes the key at once. */
    EXPECT_OK(c, "SET ex:b v");
    EXPECT_INT(c, 1, "EXPIRE ex:b 0");
    EXPECT_INT(c, 0, "EXISTS ex:b");
    EXPECT_OK(c, "SET ex:b v");
    EXPECT_INT(c, 1, "EXPIRE ex:b -5");
    EXPECT_INT(c, 0, "EXISTS ex:b");
    EXPECT_OK(c, "SET ex:b v");
    EXPECT_INT(c, 1, "EXPIREAT ex:b 1");
    EXPECT_INT(c, -2, "TTL ex:b");

    /* Lazily expired on access. */
    EXPECT_OK(c, "SET ex:c v");
    EXPECT_INT(c, 1, "PEXPIRE ex:c 100");
    it_sleep_ms(250);
    EXPECT_INT(c, 0, "EXISTS ex:c");
    EXPECT_INT(c, -2, "PTTL ex:c");
    redisFree(c);
}

static void test_active_expiry(void)
{
    redisContext *c = it_redis(port);
    char *text;
    long long before, after, n = -1;
    int64_t end;
    int i;

    if (!c) { CHECK(0); return; }
    text = info(c, "stats");
    before = info_field(text, "expired_keys");
    free(text);
    EXPECT_OK(c, "SELECT 7");
    for (i = 0; i < 1000; i++)
        redisAppendCommand(c, "SET act:%d v PX 100", i);
    for (i = 0; i < 1000; i++) {
        void *r = NULL;
        if (redisGetReply(c, &r) == REDIS_OK)
            freeReplyObject(r);
    }
    EXPECT_INT(c, 1000, "DBSIZE");
    /* Nobody touches the keys: the server must expire them by itself. */
    end = it_now_ms() + 10000;
    while (it_now_ms() < end && (n = int_reply(c, "DBSIZE")) != 0)
        it_sleep_ms(50);
    CHECKF(n == 0, "%lld keys still counted", n);
    text = info(c, "stats");
    after = info_field(text, "expired_keys");
    free(text);
    CHECKF(before >= 0 && after - before >= 1000, "expired_keys went from %lld to %lld", before, after);
    redisFree(c);
}

static void test_keys_pattern(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SELECT 8");
    EXPECT_OK(c, "MSET hello 1 hallo 1 hxllo 1 hllo 1 heeeello 1 h*llo 1 hbllo 1");
    CHECK_KEYS(c, "h?llo", "hello", "hallo", "hxllo", "h*llo", "hbllo");
    CHECK_KEYS(c, "h*llo", "hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "hbllo");
    CHECK_KEYS(c, "h[ae]llo", "hello", "hallo");
    CHECK_KEYS(c, "h[^e]llo", "hallo", "hxllo", "h*llo", "hbllo");
    CHECK_KEYS(c, "h[a-b]llo", "hallo", "hbllo");
    CHECK_KEYS(c, "h\\*llo", "h*llo");
    CHECK_KEYS(c, "*", "hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "hbllo");
    {
        redisReply *r = CMD_ARRAY(c, "KEYS nomatch*");
        if (r) {
            CHECK(r->elements == 0);
            freeReplyObject(r);
        }
    }
    EXPECT_ERR(c, "ERR wrong number of arguments for 'keys' command", "KEYS");
    redisFree(c);
}

/* Run a full SCAN with the given extra arguments; mark in seen[] each key
 * "scan:<i>" returned. Returns the number of calls, or -1 on a bad reply. */
static int scan_all(redisContext *c, const char *extra, char *seen, int n, int *others)
{
    char cursor[32] = "0";
    int calls = 0;
    do {
        char fmt[128];
        redisReply *r;
        snprintf(fmt, sizeof(fmt), "SCAN %%s %s", extra);
        r = redisCommand(c, fmt, cursor);
        size_t i;
        if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
            r->element[1]->type != REDIS_REPLY_ARRAY) {
            if (r)
                freeReplyObject(r);
            return -1;
        }
        snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
        for (i = 0; i < r->element[1]->elements; i++) {
            const char *k = r->element[1]->element[i]->str;
            int idx;
            if (strncmp(k, "scan:", 5) == 0 && (idx = atoi(k + 5)) >= 0 && idx < n)
                seen[idx] = 1;
            else
                (*others)++;
        }
        freeReplyObject(r);
        calls++;
    } while (strcmp(cursor, "0") != 0 && calls < 100000);
    return calls;
}

static void test_scan(void)
{
    redisContext *c = it_redis(port), *w = it_redis(port);
    enum { N = 5000 };
    char *seen = calloc(N, 1);
    int i, missing = 0, others = 0, calls;
    redisReply *r;

    if (!c || !w) { CHECK(0); goto done; }
    EXPECT_OK(c, "SELECT 9");
    EXPECT_OK(w, "SELECT 9");
    for (i = 0; i < N; i++)
        redisAppendCommand(c, "SET scan:%d v", i);
    for (i = 0; i < 200; i++)
        redisAppendCommand(c, "SET other:%d v", i);
    for (i = 0; i < N + 200; i++) {
        void *rep = NULL;
        if (redisGetReply(c, &rep) == REDIS_OK)
            freeReplyObject(rep);
    }
    calls = scan_all(c, "COUNT 10", seen, N, &others);
    CHECKF(calls > 1, "SCAN COUNT 10 took %d calls", calls);
    for (i = 0; i < N; i++)
        missing += !seen[i];
    CHECKF(missing == 0 && others >= 200, "%d keys never returned, %d others", missing, others);

    /* MATCH filters, TYPE filters. */
    memset(seen, 0, N);
    others = 0;
    CHECK(scan_all(c, "MATCH scan:* COUNT 100", seen, N, &others) > 0);
    for (i = 0, missing = 0; i < N; i++)
        missing += !seen[i];
    CHECK(missing == 0 && others == 0);
    memset(seen, 0, N);
    others = 0;
    CHECK(scan_all(c, "MATCH nomatch:* COUNT 1000", seen, N, &others) > 0);
    CHECK(others == 0);
    memset(seen, 0, N);
    others = 0;
    CHECK(scan_all(c, "TYPE string COUNT 1000", seen, N, &others) > 0);
    for (i = 0, missing = 0; i < N; i++)
        missing += !seen[i];
    CHECK(missing == 0 && others == 200);
    r = CMD_ARRAY(c, "SCAN 0 TYPE list COUNT 10000");
    if (r) {
        CHECK(r->elements == 2 && r->element[1]->elements == 0);
        freeReplyObject(r);
    }

    /* Keys present for the whole iteration are returned, while others come
     * and go (every SCAN call is followed by writes from another client). */
    {
        char cursor[32] = "0";
        int rounds = 0;
        memset(seen, 0, N);
        do {
            size_t k;
            r = redisCommand(c, "SCAN %s COUNT 20", cursor);
            if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
                CHECK(0);
                if (r)
                    freeReplyObject(r);
                break;
            }
            snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
            for (k = 0; k < r->element[1]->elements; k++) {
                const char *key = r->element[1]->element[k]->str;
                if (strncmp(key, "scan:", 5) == 0)
                    seen[atoi(key + 5)] = 1;
            }
            freeReplyObject(r);
            r = redisCommand(w, "SET churn:%d v", rounds);
            if (r)
                freeReplyObject(r);
            r = redisCommand(w, "DEL other:%d", rounds % 200);
            if (r)
                freeReplyObject(r);
            rounds++;
        } while (strcmp(cursor, "0") != 0 && rounds < 100000);
        for (i = 0, missing = 0; i < N; i++)
            missing += !seen[i];
        CHECKF(missing == 0, "%d stable keys missed while the keyspace changed", missing);
    }

    EXPECT_ERR(c, "ERR invalid cursor", "SCAN abc");
    EXPECT_ERR(c, "ERR syntax error", "SCAN 0 FOO");
    EXPECT_ERR(c, "ERR syntax error", "SCAN 0 COUNT 0");
    EXPECT_ERR(c, "ERR syntax error", "SCAN 0 COUNT -1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SCAN 0 COUNT x");
done:
    free(seen);
    if (c)
        redisFree(c);
    if (w)
        redisFree(w);
}

static void test_randomkey_dbsize_flush(void)
{
    redisContext *c = it_redis(port);
    int i;
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SELECT 10");
    EXPECT_NIL(c, "RANDOMKEY");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "MSET rk:a 1 rk:b 2 rk:c 3");
    EXPECT_INT(c, 3, "DBSIZE");
    for (i = 0; i < 20; i++) {
        redisReply *r = CMD_STRING(c, "RANDOMKEY");
        if (r) {
            CHECK(!strcmp(r->str, "rk:a") || !strcmp(r->str, "rk:b") || !strcmp(r->str, "rk:c"));
            freeReplyObject(r);
        }
    }
    EXPECT_OK(c, "SELECT 11");
    EXPECT_OK(c, "SET rk:other 1");
    EXPECT_OK(c, "SELECT 10");
    EXPECT_ERR(c, "ERR syntax error", "FLUSHDB FOO");
    EXPECT_OK(c, "FLUSHDB");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "SET rk:a 1");
    EXPECT_OK(c, "FLUSHDB ASYNC");
    EXPECT_INT(c, 0, "DBSIZE");
    EXPECT_OK(c, "SELECT 11");
    EXPECT_INT(c, 1, "DBSIZE");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'dbsize' command", "DBSIZE x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'randomkey' command", "RANDOMKEY x");
    redisFree(c);
}

static void test_object(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SET ob:s short");
    EXPECT_STR(c, "embstr", "OBJECT ENCODING ob:s");
    EXPECT_OK(c, "SET ob:n 12345");
    EXPECT_STR(c, "int", "OBJECT ENCODING ob:n");
    EXPECT_OK(c, "SET ob:r aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    EXPECT_STR(c, "raw", "OBJECT ENCODING ob:r");
    EXPECT_NIL(c, "OBJECT ENCODING ob:missing");
    EXPECT_INT(c, 1, "OBJECT REFCOUNT ob:s");
    EXPECT_ERR(c,
               "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when "
               "switching between policies at runtime LRU and LFU data will take some time to adjust.",
               "OBJECT FREQ ob:s");
    EXPECT_ERR(c, "ERR unknown subcommand 'FOO'. Try OBJECT HELP.", "OBJECT FOO");
    redisFree(c);
}

static void test_watch_key_commands(void)
{
    static const char *const touches[] = {"DEL wk:k", "EXPIRE wk:k 100", "RENAME wk:k wk:k2", "FLUSHDB",
                                          "MOVE wk:k 13", "UNLINK wk:k", "PERSIST wk:k", NULL};
    int i;
    for (i = 0; touches[i]; i++) {
        redisContext *a = it_redis(port), *b = it_redis(port);
        if (!a || !b) {
            CHECK(0);
        } else {
            EXPECT_OK(a, "SELECT 12");
            EXPECT_OK(b, "SELECT 12");
            EXPECT_OK(a, "SET wk:k v PX 1000000");
            EXPECT_OK(a, "WATCH wk:k");
            {
                redisReply *r = redisCommand(b, touches[i]);
                if (r)
                    freeReplyObject(r);
            }
            EXPECT_OK(a, "MULTI");
            if (!EXPECT_NIL(a, "EXEC"))
                fprintf(stderr, "    after %s\n", touches[i]);
            EXPECT_OK(a, "FLUSHDB");
        }
        if (a)
            redisFree(a);
        if (b)
            redisFree(b);
    }
}

/* ---- server commands ---- */

static void test_info(void)
{
    redisContext *c = it_redis(port);
    char *text, want[64];
    long long hits, misses;
    if (!c) { CHECK(0); return; }
    text = info(c, NULL);
    CHECK(text && strncmp(text, "# Server\r\n", 10) == 0);
    CHECK(text && strstr(text, "\r\n# Clients\r\n") && strstr(text, "\r\n# Memory\r\n") &&
          strstr(text, "\r\n# Stats\r\n") && strstr(text, "\r\n# Keyspace\r\n"));
    CHECK(text && strstr(text, "\r\nredis_version:"));
    CHECK(info_field(text, "tcp_port") == port);
    CHECK(info_field(text, "process_id") == server.pid);
    CHECK(info_field(text, "connected_clients") >= 1);
    CHECK(info_field(text, "used_memory") > 0);
    free(text);

    text = info(c, "server");
    CHECK(text && strncmp(text, "# Server\r\n", 10) == 0 && !strstr(text, "# Clients"));
    free(text);
    text = info(c, "nosuchsection");
    CHECK(text && text[0] == '\0');
    free(text);

    text = info(c, "stats");
    hits = info_field(text, "keyspace_hits");
    misses = info_field(text, "keyspace_misses");
    free(text);
    EXPECT_OK(c, "SET info:k v");
    EXPECT_STR(c, "v", "GET info:k");
    EXPECT_NIL(c, "GET info:missing");
    text = info(c, "stats");
    CHECK(info_field(text, "keyspace_hits") == hits + 1);
    CHECK(info_field(text, "keyspace_misses") == misses + 1);
    CHECK(info_field(text, "total_commands_processed") > 0);
    CHECK(info_field(text, "total_connections_received") > 0);
    free(text);

    EXPECT_OK(c, "SELECT 14");
    EXPECT_OK(c, "MSET info:a 1 info:b 2");
    EXPECT_INT(c, 1, "EXPIRE info:a 1000");
    text = info(c, "keyspace");
    CHECK(text && strncmp(text, "# Keyspace\r\n", 12) == 0);
    snprintf(want, sizeof(want), "\r\ndb14:keys=2,expires=1,avg_ttl=");
    CHECKF(text && strstr(text, want), "INFO keyspace: %s", text ? text : "(none)");
    free(text);
    redisFree(c);
}

static void test_info_stats_sections(void)
{
    redisContext *c = it_redis(port);
    char *text;
    if (!c) { CHECK(0); return; }
    EXPECT_STR(c, "x", "ECHO x");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "GET");
    text = info(c, "commandstats");
    CHECKF(text && strstr(text, "\r\ncmdstat_echo:calls="), "INFO commandstats: %s", text ? text : "(none)");
    free(text);
    text = info(c, "errorstats");
    CHECKF(text && strstr(text, "\r\nerrorstat_ERR:count="), "INFO errorstats: %s", text ? text : "(none)");
    free(text);
    redisFree(c);
}

static void test_config(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) { CHECK(0); return; }
    r = CMD_ARRAY(c, "CONFIG GET maxclients");
    if (r) {
        CHECK(r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "maxclients") &&
              it_elem_is(r, 1, REDIS_REPLY_STRING, "10000"));
        freeReplyObject(r);
    }
    EXPECT_OK(c, "CONFIG SET maxclients 2000");
    r = CMD_ARRAY(c, "CONFIG GET maxclients");
    if (r) {
        CHECK(r->elements == 2 && it_elem_is(r, 1, REDIS_REPLY_STRING, "2000"));
        freeReplyObject(r);
    }
    EXPECT_OK(c, "CONFIG SET maxclients 3000 timeout 0");
    r = CMD_ARRAY(c, "CONFIG GET maxclients timeout");
    if (r) {
        CHECK(r->elements == 4);
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "CONFIG GET nosuchparameter");
    if (r) {
        CHECK(r->elements == 0);
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "CONFIG GET max*");
    if (r) {
        size_t i;
        int found = 0;
        for (i = 0; i + 1 < r->elements; i += 2)
            found |= !strcmp(r->element[i]->str, "maxclients") && !strcmp(r->element[i + 1]->str, "3000");
        CHECK(found && r->elements % 2 == 0);
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "CONFIG GET port");
    if (r) {
        CHECK(r->elements == 2 && r->element[1]->type == REDIS_REPLY_STRING && atoi(r->element[1]->str) == port);
        freeReplyObject(r);
    }
    EXPECT_OK(c, "CONFIG SET maxmemory 100mb");
    r = CMD_ARRAY(c, "CONFIG GET maxmemory");
    if (r) {
        CHECK(r->elements == 2 && it_elem_is(r, 1, REDIS_REPLY_STRING, "104857600"));
        freeReplyObject(r);
    }
    EXPECT_OK(c, "CONFIG SET maxmemory 0");
    EXPECT_ERR(c, "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'", "CONFIG SET nosuch 1");
    EXPECT_ERR(c, "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'",
               "CONFIG SET maxclients 100 nosuch 1");
    EXPECT_ERR(c,
               "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed "
               "into an integer",
               "CONFIG SET maxclients abc");
    EXPECT_ERR(c, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - duplicate parameter",
               "CONFIG SET maxclients 4000 maxclients 5000");
    r = CMD_ARRAY(c, "CONFIG GET maxclients");
    if (r) {
        CHECK(r->elements == 2 && it_elem_is(r, 1, REDIS_REPLY_STRING, "3000"));
        freeReplyObject(r);
    }
    EXPECT_ERR(c, "ERR wrong number of arguments for 'config|get' command", "CONFIG GET");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'config|set' command", "CONFIG SET maxclients");
    EXPECT_ERR(c, "ERR unknown subcommand 'FOO'. Try CONFIG HELP.", "CONFIG FOO");
    EXPECT_OK(c, "CONFIG RESETSTAT");
    EXPECT_OK(c, "CONFIG SET maxclients 10000");
    redisFree(c);
}

static void test_command(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    long long count;
    if (!c) { CHECK(0); return; }
    count = int_reply(c, "COMMAND COUNT");
    CHECK(count > 50);
    r = CMD_ARRAY(c, "COMMAND");
    if (r) {
        CHECKF((long long)r->elements == count, "COMMAND has %zu entries, COMMAND COUNT says %lld", r->elements, count);
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "COMMAND LIST");
    if (r) {
        size_t i;
        int get = 0, scan = 0;
        for (i = 0; i < r->elements; i++) {
            get |= !strcmp(r->element[i]->str, "get");
            scan |= !strcmp(r->element[i]->str, "scan");
        }
        CHECK((long long)r->elements >= count && get && scan);
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "COMMAND INFO get nosuchcommand");
    if (r) {
        CHECK(r->elements == 2 && r->element[1]->type == REDIS_REPLY_NIL);
        if (r->elements == 2 && r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements >= 6) {
            redisReply *g = r->element[0];
            size_t i;
            int ro = 0;
            CHECK(g->element[0]->type == REDIS_REPLY_STRING && !strcmp(g->element[0]->str, "get"));
            CHECK(g->element[1]->integer == 2);
            for (i = 0; g->element[2]->type == REDIS_REPLY_ARRAY && i < g->element[2]->elements; i++)
                ro |= !strcmp(g->element[2]->element[i]->str, "readonly");
            CHECK(ro);
            CHECK(g->element[3]->integer == 1 && g->element[4]->integer == 1 && g->element[5]->integer == 1);
        } else {
            CHECKF(0, "COMMAND INFO get is not an array of at least 6");
        }
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "COMMAND GETKEYS MSET a 1 b 2");
    if (r) {
        CHECK(r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "a") && it_elem_is(r, 1, REDIS_REPLY_STRING, "b"));
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "COMMAND GETKEYS SET k v EX 10");
    if (r) {
        CHECK(r->elements == 1 && it_elem_is(r, 0, REDIS_REPLY_STRING, "k"));
        freeReplyObject(r);
    }
    EXPECT_ERR(c, "ERR wrong number of arguments for 'command|getkeys' command", "COMMAND GETKEYS PING");
    EXPECT_ERR(c, "ERR unknown subcommand 'FOO'. Try COMMAND HELP.", "COMMAND FOO");
    r = CMD_ARRAY(c, "COMMAND DOCS get");
    if (r) {
        CHECK(r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "get") &&
              r->element[1]->type == REDIS_REPLY_ARRAY && r->element[1]->elements >= 8);
        freeReplyObject(r);
    }
    redisFree(c);
}

static void test_time_lastsave_slowlog(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) { CHECK(0); return; }
    r = CMD_ARRAY(c, "TIME");
    if (r) {
        long long now = wall_ms() / 1000;
        CHECK(r->elements == 2 && r->element[0]->type == REDIS_REPLY_STRING);
        CHECK(r->elements == 2 && llabs(atoll(r->element[0]->str) - now) <= 2 && atoll(r->element[1]->str) < 1000000);
        freeReplyObject(r);
    }
    CHECK(int_reply(c, "LASTSAVE") > 1600000000);
    EXPECT_ERR(c, "ERR wrong number of arguments for 'time' command", "TIME x");

    EXPECT_OK(c, "CONFIG SET slowlog-log-slower-than 0");
    EXPECT_OK(c, "SLOWLOG RESET");
    EXPECT_OK(c, "CLIENT SETNAME slowpoke");
    EXPECT_STR(c, "slow-marker", "ECHO slow-marker");
    r = CMD_ARRAY(c, "SLOWLOG GET 1");
    if (r) {
        CHECK(r->elements == 1);
        if (r->elements == 1 && r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements == 6) {
            redisReply *e = r->element[0];
            CHECK(e->element[0]->type == REDIS_REPLY_INTEGER && e->element[1]->type == REDIS_REPLY_INTEGER &&
                  e->element[2]->type == REDIS_REPLY_INTEGER);
            CHECK(e->element[3]->type == REDIS_REPLY_ARRAY && e->element[3]->elements == 2 &&
                  it_elem_is(e->element[3], 0, REDIS_REPLY_STRING, "ECHO") &&
                  it_elem_is(e->element[3], 1, REDIS_REPLY_STRING, "slow-marker"));
            CHECK(e->element[4]->type == REDIS_REPLY_STRING && !strncmp(e->element[4]->str, "127.0.0.1:", 10));
            CHECK(e->element[5]->type == REDIS_REPLY_STRING && !strcmp(e->element[5]->str, "slowpoke"));
        } else {
            CHECKF(0, "SLOWLOG GET 1 entry is not an array of 6");
        }
        freeReplyObject(r);
    }
    CHECK(int_reply(c, "SLOWLOG LEN") >= 2);
    EXPECT_OK(c, "CONFIG SET slowlog-log-slower-than 10000");
    EXPECT_OK(c, "SLOWLOG RESET");
    EXPECT_INT(c, 0, "SLOWLOG LEN");
    EXPECT_ERR(c, "ERR count should be greater than or equal to -1", "SLOWLOG GET abc");
    EXPECT_ERR(c, "ERR unknown subcommand 'FOO'. Try SLOWLOG HELP.", "SLOWLOG FOO");
    redisFree(c);
}

static void test_memory_usage(void)
{
    redisContext *c = it_redis(port);
    long long v;
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SET mem:k %s", "0123456789012345678901234567890123456789012345678901234567890123456789");
    v = int_reply(c, "MEMORY USAGE mem:k");
    CHECKF(v >= 70, "MEMORY USAGE %lld", v);
    EXPECT_NIL(c, "MEMORY USAGE mem:missing");
    redisFree(c);
}

static void test_resp3_server_replies(void)
{
    it_conn c;
    it_reply *r;
    if (it_conn_open(&c, port) < 0) { CHECK(0); return; }
    it_reply_free(it_conn_cmd(&c, "HELLO 3"));
    r = it_conn_cmd(&c, "CONFIG GET maxclients");
    CHECKF(r && r->type == '%' && r->elements == 2 && it_reply_is(r->element[0], '$', "maxclients"),
           "CONFIG GET is not a RESP3 map");
    it_reply_free(r);
    r = it_conn_cmd(&c, "INFO server");
    CHECKF(r && r->type == '=' && r->len > 4 && !memcmp(r->str, "txt:# Server", 12), "INFO is not a verbatim string");
    it_reply_free(r);
    r = it_conn_cmd(&c, "COMMAND DOCS get");
    CHECKF(r && r->type == '%' && r->elements == 2 && r->element[1]->type == '%', "COMMAND DOCS is not a map of maps");
    it_reply_free(r);
    r = it_conn_cmd(&c, "TTL resp3:missing");
    CHECK(r && r->type == ':' && r->integer == -2);
    it_reply_free(r);
    r = it_conn_cmd(&c, "SCAN 0 COUNT 1");
    CHECK(r && r->type == '*' && r->elements == 2 && r->element[0]->type == '$' && r->element[1]->type == '*');
    it_reply_free(r);
    r = it_conn_cmd(&c, "RANDOMKEY");
    CHECK(r && (r->type == '$' || r->type == '_'));
    it_reply_free(r);
    it_conn_close(&c);
}

static void test_flushall(void)
{
    redisContext *c = it_redis(port);
    int i;
    if (!c) { CHECK(0); return; }
    for (i = 0; i < 16; i++) {
        EXPECT_OK(c, "SELECT %d", i);
        EXPECT_OK(c, "SET fa:k v");
    }
    EXPECT_OK(c, "FLUSHALL");
    for (i = 0; i < 16; i++) {
        EXPECT_OK(c, "SELECT %d", i);
        EXPECT_INT(c, 0, "DBSIZE");
    }
    EXPECT_OK(c, "FLUSHALL SYNC");
    EXPECT_ERR(c, "ERR syntax error", "FLUSHALL ASYNC SYNC");
    redisFree(c);
}

static void test_shutdown(void)
{
    it_server s;
    redisContext *c;
    redisReply *r;
    int st = -1;
    int64_t end;

    if (it_server_start(&s, NULL) < 0) { CHECK(0); return; }
    c = it_redis(s.port);
    if (!c) { CHECK(0); it_server_stop(&s); return; }
    EXPECT_OK(c, "SET sd:k v");
    r = redisCommand(c, "SHUTDOWN NOSAVE");
    CHECKF(r == NULL, "SHUTDOWN answered instead of closing");
    if (r)
        freeReplyObject(r);
    redisFree(c);
    end = it_now_ms() + 10000;
    while (it_now_ms() < end) {
        if (waitpid(s.pid, &st, WNOHANG) == s.pid) {
            s.pid = 0;
            break;
        }
        it_sleep_ms(10);
    }
    CHECKF(s.pid == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the server did not exit with status 0");
    CHECK(it_log_clean(&s));
    it_server_stop(&s);
}

int main(void)
{
    it_init(240);
    if (it_server_start(&server, NULL) < 0) {
        printf("not ok - the server starts and answers PING\n");
        return 1;
    }
    port = server.port;

    RUN(test_del_exists, "DEL, UNLINK, EXISTS, TYPE and TOUCH count and remove keys as Redis does");
    RUN(test_rename_copy_move, "RENAME, RENAMENX, COPY and MOVE move values with their TTL and refuse bad targets");
    RUN(test_swapdb, "SWAPDB exchanges two databases under their connections and fails their WATCH");
    RUN(test_expire_ttl, "EXPIRE, PEXPIRE, EXPIREAT, TTL, EXPIRETIME, PERSIST and NX/XX/GT/LT follow Redis 7");
    RUN(test_active_expiry, "keys nobody reads expire by themselves and INFO counts them in expired_keys");
    RUN(test_keys_pattern, "KEYS matches glob patterns with ?, *, [..], [^..], ranges and escapes");
    RUN(test_scan, "SCAN returns every key at least once, with MATCH, TYPE and COUNT, while the keyspace changes");
    RUN(test_randomkey_dbsize_flush, "RANDOMKEY, DBSIZE and FLUSHDB work on the selected database only");
    RUN(test_object, "OBJECT ENCODING, REFCOUNT and FREQ answer as Redis does");
    RUN(test_watch_key_commands, "DEL, EXPIRE, RENAME, FLUSHDB, MOVE, UNLINK and PERSIST of a WATCHed key fail EXEC");
    RUN(test_info, "INFO shows its sections, the port, the pid, hits, misses and the keyspace");
    RUN(test_info_stats_sections, "INFO commandstats and errorstats count the commands and errors");
    RUN(test_config, "CONFIG GET and SET read and change parameters, atomically, with Redis's errors");
    RUN(test_command, "COMMAND, COUNT, LIST, INFO, GETKEYS and DOCS describe the command table consistently");
    RUN(test_time_lastsave_slowlog, "TIME, LASTSAVE and SLOWLOG GET, LEN and RESET answer as Redis does");
    RUN(test_memory_usage, "MEMORY USAGE estimates a key's size and is nil for a missing key");
    RUN(test_resp3_server_replies, "after HELLO 3 CONFIG GET and COMMAND DOCS are maps, INFO is a verbatim string");
    RUN(test_flushall, "FLUSHALL empties all 16 databases");
    RUN(test_shutdown, "SHUTDOWN NOSAVE closes the connection and the server exits with status 0");
    it_server_finish(&server);
    return TEST_DONE();
}
