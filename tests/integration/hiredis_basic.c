/* hiredis_basic.c -- the string commands, binary and large values, pipelines,
 * transactions, databases and error replies, through hiredis as a C program
 * would use the server (sync API, and the async API on libevent).
 *
 * One server with the default configuration serves every case; each case uses
 * its own keys. Expected replies are Redis 7.0's, byte for byte (the same
 * program passes against redis-server 7.0 with SERVER=/usr/bin/redis-server). */
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>

#include "itest.h"

static it_server server;
static int port;

/* Current wall-clock time in ms (the server's clock: same machine). */
static long long wall_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* ---- strings ---- */

static void test_set_get(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SET str:a hello");
    EXPECT_STR(c, "hello", "GET str:a");
    EXPECT_NIL(c, "GET str:missing");
    EXPECT_OK(c, "SET str:a %s", "");
    EXPECT_STR(c, "", "GET str:a");
    EXPECT_OK(c, "sEt str:a Mixed");
    EXPECT_STR(c, "Mixed", "gEt str:a");
    redisFree(c);
}

static void test_set_nx_xx_get(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_NIL(c, "SET nx:a v1 XX");
    EXPECT_NIL(c, "GET nx:a");
    EXPECT_OK(c, "SET nx:a v1 NX");
    EXPECT_NIL(c, "SET nx:a v2 NX");
    EXPECT_STR(c, "v1", "GET nx:a");
    EXPECT_OK(c, "SET nx:a v2 XX");
    EXPECT_STR(c, "v2", "GET nx:a");
    /* GET returns the old value and still sets. */
    EXPECT_STR(c, "v2", "SET nx:a v3 GET");
    EXPECT_STR(c, "v3", "GET nx:a");
    EXPECT_NIL(c, "SET nx:b v1 GET");
    EXPECT_STR(c, "v1", "GET nx:b");
    /* With NX the old value comes back and nothing is set. */
    EXPECT_STR(c, "v3", "SET nx:a v4 NX GET");
    EXPECT_STR(c, "v3", "GET nx:a");
    EXPECT_NIL(c, "SET nx:c v1 XX GET");
    EXPECT_NIL(c, "GET nx:c");
    EXPECT_OK(c, "SET nx:d v1 nx");
    redisFree(c);
}

static void test_set_expire(void)
{
    redisContext *c = it_redis(port);
    long long now = wall_ms();
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SET ex:px v PX 100");
    EXPECT_OK(c, "SET ex:ex v EX 100");
    EXPECT_OK(c, "SET ex:pxat v PXAT %lld", now + 150);
    EXPECT_OK(c, "SET ex:exat v EXAT %lld", now / 1000 + 100);
    EXPECT_OK(c, "SET ex:past v EXAT 1");
    EXPECT_OK(c, "SET ex:plain v PX 100");
    EXPECT_OK(c, "SET ex:plain v2");
    EXPECT_OK(c, "SET ex:keep v PX 150");
    EXPECT_OK(c, "SET ex:keep v2 KEEPTTL");
    EXPECT_STR(c, "v", "GET ex:px");
    EXPECT_STR(c, "v2", "GET ex:keep");
    EXPECT_NIL(c, "GET ex:past");
    it_sleep_ms(400);
    EXPECT_NIL(c, "GET ex:px");
    EXPECT_NIL(c, "GET ex:pxat");
    EXPECT_NIL(c, "GET ex:keep");
    EXPECT_STR(c, "v", "GET ex:ex");
    EXPECT_STR(c, "v", "GET ex:exat");
    EXPECT_STR(c, "v2", "GET ex:plain");
    redisFree(c);
}

static void test_set_errors(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_ERR(c, "ERR syntax error", "SET se:a v NX XX");
    EXPECT_ERR(c, "ERR syntax error", "SET se:a v XX NX");
    EXPECT_ERR(c, "ERR syntax error", "SET se:a v EX 10 PX 100");
    EXPECT_ERR(c, "ERR syntax error", "SET se:a v EX 10 KEEPTTL");
    EXPECT_ERR(c, "ERR syntax error", "SET se:a v KEEPTTL PX 10");
    EXPECT_ERR(c, "ERR syntax error", "SET se:a v EX");
    EXPECT_ERR(c, "ERR syntax error", "SET se:a v FOO");
    EXPECT_ERR(c, "ERR syntax error", "SET se:a v PERSIST");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET se:a v EX 0");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET se:a v PX -1");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET se:a v PXAT 0");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET se:a v EX 9223372036854775807");
    EXPECT_ERR(c, "ERR invalid expire time in 'set' command", "SET se:a v PX 9223372036854775807");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SET se:a v EX abc");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SET se:a v EX 1.5");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'set' command", "SET se:a");
    EXPECT_NIL(c, "GET se:a");
    redisFree(c);
}

static void test_set_option_order(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    /* Redis parses every option before it checks the expire value, and lets
     * the same expire option repeat (the last one wins). */
    EXPECT_ERR(c, "ERR syntax error", "SET so:a v EX 0 FOO");
    EXPECT_OK(c, "SET so:a v EX 10 EX 20");
    EXPECT_STR(c, "v", "GET so:a");
    redisFree(c);
}

static void test_setnx_setex_psetex(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SETNX sx:a v1");
    EXPECT_INT(c, 0, "SETNX sx:a v2");
    EXPECT_STR(c, "v1", "GET sx:a");
    EXPECT_OK(c, "SETEX sx:b 100 v");
    EXPECT_STR(c, "v", "GET sx:b");
    EXPECT_OK(c, "PSETEX sx:c 100 v");
    EXPECT_ERR(c, "ERR invalid expire time in 'setex' command", "SETEX sx:d 0 v");
    EXPECT_ERR(c, "ERR invalid expire time in 'setex' command", "SETEX sx:d -5 v");
    EXPECT_ERR(c, "ERR invalid expire time in 'psetex' command", "PSETEX sx:d 0 v");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SETEX sx:d abc v");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'setex' command", "SETEX sx:d 10");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'setnx' command", "SETNX sx:d");
    it_sleep_ms(300);
    EXPECT_NIL(c, "GET sx:c");
    EXPECT_STR(c, "v", "GET sx:b");
    EXPECT_NIL(c, "GET sx:d");
    redisFree(c);
}

static void test_getset_getdel(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_NIL(c, "GETSET gs:a one");
    EXPECT_STR(c, "one", "GETSET gs:a two");
    EXPECT_STR(c, "two", "GET gs:a");
    EXPECT_STR(c, "two", "GETDEL gs:a");
    EXPECT_NIL(c, "GETDEL gs:a");
    EXPECT_NIL(c, "GET gs:a");
    EXPECT_OK(c, "SET gs:b v PX 100");
    EXPECT_STR(c, "v", "GETSET gs:b w");
    it_sleep_ms(250);
    EXPECT_STR(c, "w", "GET gs:b");
    redisFree(c);
}

static void test_getex(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_NIL(c, "GETEX gx:missing EX 10");
    EXPECT_OK(c, "SET gx:a v");
    EXPECT_STR(c, "v", "GETEX gx:a");
    EXPECT_STR(c, "v", "GETEX gx:a PX 100");
    EXPECT_OK(c, "SET gx:b v PX 100");
    EXPECT_STR(c, "v", "GETEX gx:b PERSIST");
    EXPECT_OK(c, "SET gx:c v");
    EXPECT_STR(c, "v", "GETEX gx:c PXAT %lld", wall_ms() + 100);
    EXPECT_OK(c, "SET gx:d v");
    EXPECT_STR(c, "v", "GETEX gx:d EXAT %lld", wall_ms() / 1000 + 100);
    EXPECT_STR(c, "v", "GETEX gx:d EX 100");
    EXPECT_ERR(c, "ERR syntax error", "GETEX gx:a NX");
    EXPECT_ERR(c, "ERR syntax error", "GETEX gx:a KEEPTTL");
    EXPECT_ERR(c, "ERR syntax error", "GETEX gx:a PERSIST EX 10");
    EXPECT_ERR(c, "ERR syntax error", "GETEX gx:a EX 10 PERSIST");
    EXPECT_ERR(c, "ERR syntax error", "GETEX gx:a EX 10 PX 10");
    EXPECT_ERR(c, "ERR syntax error", "GETEX gx:a EX");
    EXPECT_ERR(c, "ERR syntax error", "GETEX gx:a FOO");
    EXPECT_ERR(c, "ERR invalid expire time in 'getex' command", "GETEX gx:a EX 0");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "GETEX gx:a EX x");
    it_sleep_ms(300);
    EXPECT_NIL(c, "GET gx:a");
    EXPECT_STR(c, "v", "GET gx:b");
    EXPECT_NIL(c, "GET gx:c");
    EXPECT_STR(c, "v", "GET gx:d");
    redisFree(c);
}

static void test_mset_mget(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "MSET ms:a 1 ms:b 2");
    r = CMD_ARRAY(c, "MGET ms:a ms:b ms:missing ms:a");
    if (r) {
        CHECK(r->elements == 4);
        CHECK(it_elem_is(r, 0, REDIS_REPLY_STRING, "1"));
        CHECK(it_elem_is(r, 1, REDIS_REPLY_STRING, "2"));
        CHECK(r->elements == 4 && r->element[2]->type == REDIS_REPLY_NIL);
        CHECK(it_elem_is(r, 3, REDIS_REPLY_STRING, "1"));
        freeReplyObject(r);
    }
    EXPECT_ERR(c, "ERR wrong number of arguments for 'mset' command", "MSET ms:a 1 ms:b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'mset' command", "MSET ms:a");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'mget' command", "MGET");
    EXPECT_INT(c, 0, "MSETNX ms:a 9 ms:c 3");
    EXPECT_NIL(c, "GET ms:c");
    EXPECT_STR(c, "1", "GET ms:a");
    EXPECT_INT(c, 1, "MSETNX ms:c 3 ms:d 4");
    EXPECT_STR(c, "4", "GET ms:d");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'msetnx' command", "MSETNX ms:e 1 ms:f");
    /* The same key twice: the last value wins. */
    EXPECT_OK(c, "MSET ms:g 1 ms:g 2");
    EXPECT_STR(c, "2", "GET ms:g");
    redisFree(c);
}

static void test_append_strlen(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 0, "STRLEN ap:a");
    EXPECT_INT(c, 5, "APPEND ap:a hello");
    EXPECT_INT(c, 11, "APPEND ap:a %s", " world");
    EXPECT_INT(c, 11, "APPEND ap:a %s", "");
    EXPECT_STR(c, "hello world", "GET ap:a");
    EXPECT_INT(c, 11, "STRLEN ap:a");
    EXPECT_OK(c, "SET ap:n 12");
    EXPECT_INT(c, 3, "APPEND ap:n 3");
    EXPECT_INT(c, 124, "INCR ap:n");
    redisFree(c);
}

static void test_getrange(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SET gr:a %s", "hello world");
    EXPECT_STR(c, "hello", "GETRANGE gr:a 0 4");
    EXPECT_STR(c, "world", "GETRANGE gr:a -5 -1");
    EXPECT_STR(c, "hello world", "GETRANGE gr:a 0 -1");
    EXPECT_STR(c, "", "GETRANGE gr:a -1 -5");
    EXPECT_STR(c, "", "GETRANGE gr:a 5 1");
    EXPECT_STR(c, "hello world", "GETRANGE gr:a 0 1000");
    EXPECT_STR(c, "hel", "GETRANGE gr:a -1000 2");
    EXPECT_STR(c, "h", "GETRANGE gr:a -1000 -1000");
    EXPECT_STR(c, "", "GETRANGE gr:a 100 200");
    EXPECT_STR(c, "d", "GETRANGE gr:a 10 10");
    EXPECT_STR(c, "", "GETRANGE gr:a 11 11");
    EXPECT_STR(c, "hello world", "GETRANGE gr:a 0 9223372036854775807");
    EXPECT_STR(c, "hello world", "GETRANGE gr:a -9223372036854775808 -1");
    EXPECT_STR(c, "", "GETRANGE gr:missing 0 -1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "GETRANGE gr:a a 1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "GETRANGE gr:a 0 9223372036854775808");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'getrange' command", "GETRANGE gr:a 0");
    EXPECT_STR(c, "ell", "SUBSTR gr:a 1 3");
    EXPECT_OK(c, "SET gr:empty %s", "");
    EXPECT_STR(c, "", "GETRANGE gr:empty 0 -1");
    EXPECT_STR(c, "", "GETRANGE gr:empty 0 0");
    EXPECT_STR(c, "", "GETRANGE gr:empty -1 -1");
    redisFree(c);
}

static void test_setrange(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 7, "SETRANGE sr:a 5 hi");
    r = CMD_STRING(c, "GET sr:a");
    if (r) {
        CHECK(r->len == 7 && memcmp(r->str, "\0\0\0\0\0hi", 7) == 0);
        freeReplyObject(r);
    }
    EXPECT_INT(c, 7, "SETRANGE sr:a 1 XY");
    r = CMD_STRING(c, "GET sr:a");
    if (r) {
        CHECK(r->len == 7 && memcmp(r->str, "\0XY\0\0hi", 7) == 0);
        freeReplyObject(r);
    }
    EXPECT_OK(c, "SET sr:b %s", "Hello World");
    EXPECT_INT(c, 11, "SETRANGE sr:b 6 Redis");
    EXPECT_STR(c, "Hello Redis", "GET sr:b");
    EXPECT_INT(c, 13, "SETRANGE sr:b 11 !!");
    EXPECT_STR(c, "Hello Redis!!", "GET sr:b");
    EXPECT_INT(c, 13, "SETRANGE sr:b 0 %s", "");
    EXPECT_INT(c, 0, "SETRANGE sr:missing 0 %s", "");
    EXPECT_INT(c, 0, "SETRANGE sr:missing 100 %s", "");
    EXPECT_NIL(c, "GET sr:missing");
    EXPECT_ERR(c, "ERR offset is out of range", "SETRANGE sr:b -1 x");
    EXPECT_ERR(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)", "SETRANGE sr:b 536870912 x");
    EXPECT_ERR(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)", "SETRANGE sr:new 536870911 xy");
    EXPECT_NIL(c, "GET sr:new");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SETRANGE sr:b abc x");
    EXPECT_STR(c, "Hello Redis!!", "GET sr:b");
    redisFree(c);
}

static void test_setrange_huge_offset(void)
{
    it_server s;
    redisContext *c;
    struct timeval tv = {3, 0};

    /* A server of its own: if the offset check overflows, the server spends
     * forever padding a string towards 2^63 bytes. */
    if (it_server_start(&s, NULL) < 0) { CHECK(0); return; }
    c = it_redis(s.port);
    if (!c) { CHECK(0); it_server_stop(&s); return; }
    redisSetTimeout(c, tv);
    EXPECT_ERR(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)", "SETRANGE sr:huge 9223372036854775807 abc");
    EXPECT_ERR(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)", "SETRANGE sr:huge 9223372036854775806 ab");
    redisFree(c);
    c = it_redis(s.port);
    if (c) {
        redisSetTimeout(c, tv);
        EXPECT_NIL(c, "GET sr:huge");
        redisFree(c);
    } else {
        CHECK(0);
    }
    CHECK(it_server_stop(&s) == 0);
}

static void test_incr_family(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "INCR in:a");
    EXPECT_INT(c, 11, "INCRBY in:a 10");
    EXPECT_INT(c, 10, "DECR in:a");
    EXPECT_INT(c, 5, "DECRBY in:a 5");
    EXPECT_INT(c, -5, "INCRBY in:a -10");
    EXPECT_INT(c, 5, "DECRBY in:a -10");
    EXPECT_STR(c, "5", "GET in:a");
    EXPECT_INT(c, -1, "DECR in:b");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCRBY in:a abc");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCRBY in:a 1.5");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCRBY in:a 9223372036854775808");
    EXPECT_OK(c, "SET in:s abc");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCR in:s");
    EXPECT_OK(c, "SET in:s %s", " 1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCR in:s");
    EXPECT_OK(c, "SET in:s 1.5");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "DECR in:s");
    EXPECT_OK(c, "SET in:s 007");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCR in:s");
    EXPECT_OK(c, "SET in:s %s", "");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "INCR in:s");
    EXPECT_OK(c, "SET in:max 9223372036854775807");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "INCR in:max");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "INCRBY in:max 1");
    EXPECT_INT(c, 9223372036854775806LL, "DECR in:max");
    EXPECT_OK(c, "SET in:min -9223372036854775808");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "DECR in:min");
    EXPECT_ERR(c, "ERR increment or decrement would overflow", "DECRBY in:min 1");
    EXPECT_ERR(c, "ERR decrement would overflow", "DECRBY in:min -9223372036854775808");
    EXPECT_INT(c, -9223372036854775807LL, "INCR in:min");
    EXPECT_STR(c, "-9223372036854775807", "GET in:min");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'incr' command", "INCR");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'incrby' command", "INCRBY in:a");
    redisFree(c);
}

static void test_incrbyfloat(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_STR(c, "10.5", "INCRBYFLOAT fl:a 10.5");
    EXPECT_STR(c, "10.6", "INCRBYFLOAT fl:a 0.1");
    EXPECT_STR(c, "-4989.39999999999999991", "INCRBYFLOAT fl:a -5.0e3");
    EXPECT_STR(c, "-4989.39999999999999991", "GET fl:a");
    EXPECT_STR(c, "0.00005", "INCRBYFLOAT fl:b 5e-5");
    EXPECT_OK(c, "SET fl:c 3.0e3");
    EXPECT_STR(c, "3000", "INCRBYFLOAT fl:c 0");
    EXPECT_OK(c, "SET fl:d 5");
    EXPECT_STR(c, "3.5", "INCRBYFLOAT fl:d -1.5");
    EXPECT_STR(c, "0", "INCRBYFLOAT fl:d -3.5");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT fl:a abc");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT fl:a nan");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT fl:a %s", " 1");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT fl:a %s", "");
    EXPECT_ERR(c, "ERR increment would produce NaN or Infinity", "INCRBYFLOAT fl:a inf");
    EXPECT_OK(c, "SET fl:s abc");
    EXPECT_ERR(c, "ERR value is not a valid float", "INCRBYFLOAT fl:s 1");
    EXPECT_STR(c, "abc", "GET fl:s");
    EXPECT_STR(c, "-4989.39999999999999991", "GET fl:a");
    redisFree(c);
}

static void test_incrbyfloat_large(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) { CHECK(0); return; }
    /* Redis prints results with "%.17Lf" (no exponent) up to 5 KB of digits. */
    r = CMD_STRING(c, "INCRBYFLOAT fl:big 1e100");
    if (r) {
        CHECKF(r->len >= 100 && strspn(r->str, "0123456789") == (size_t)r->len, "got %s", r->str);
        freeReplyObject(r);
    }
    redisFree(c);
}

static void test_lcs(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "MSET lcs:1 ohmytext lcs:2 mynewtext");
    EXPECT_STR(c, "mytext", "LCS lcs:1 lcs:2");
    EXPECT_INT(c, 6, "LCS lcs:1 lcs:2 LEN");
    EXPECT_STR(c, "", "LCS lcs:1 lcs:missing");
    EXPECT_INT(c, 0, "LCS lcs:missing lcs:missing2 LEN");
    r = CMD_ARRAY(c, "LCS lcs:1 lcs:2 IDX MINMATCHLEN 4 WITHMATCHLEN");
    if (r) {
        /* ["matches", [[[4, 7], [5, 8], 4]], "len", 6] */
        int ok = r->elements == 4 && it_elem_is(r, 0, REDIS_REPLY_STRING, "matches") &&
                 it_elem_is(r, 2, REDIS_REPLY_STRING, "len") && r->element[3]->integer == 6 &&
                 r->element[1]->type == REDIS_REPLY_ARRAY && r->element[1]->elements == 1;
        if (ok) {
            redisReply *m = r->element[1]->element[0];
            ok = m->type == REDIS_REPLY_ARRAY && m->elements == 3 && m->element[0]->elements == 2 &&
                 m->element[0]->element[0]->integer == 4 && m->element[0]->element[1]->integer == 7 &&
                 m->element[1]->element[0]->integer == 5 && m->element[1]->element[1]->integer == 8 &&
                 m->element[2]->integer == 4;
        }
        CHECKF(ok, "LCS IDX MINMATCHLEN 4 WITHMATCHLEN has another shape");
        freeReplyObject(r);
    }
    EXPECT_ERR(c, "ERR If you want both the length and indexes, please just use IDX.", "LCS lcs:1 lcs:2 LEN IDX");
    EXPECT_ERR(c, "ERR syntax error", "LCS lcs:1 lcs:2 FOO");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "LCS lcs:1 lcs:2 IDX MINMATCHLEN abc");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'lcs' command", "LCS lcs:1");
    redisFree(c);
}

/* ---- binary and large values ---- */

static void test_binary_values(void)
{
    redisContext *c = it_redis(port);
    char key[] = "bin:\0key\r\n\xff";
    char val[600];
    redisReply *r;
    size_t i;
    const char *argv[5];
    size_t lens[5];

    if (!c) { CHECK(0); return; }
    for (i = 0; i < 256; i++)
        val[i] = (char)i;
    for (i = 256; i < sizeof(val); i += 2) {
        val[i] = '\r';
        val[i + 1] = '\n';
    }
    val[300] = '$';
    val[301] = '*';
    EXPECT_OK(c, "SET %b %b", key, sizeof(key) - 1, val, sizeof(val));
    r = CMD_STRING(c, "GET %b", key, sizeof(key) - 1);
    if (r) {
        CHECK((size_t)r->len == sizeof(val) && memcmp(r->str, val, sizeof(val)) == 0);
        freeReplyObject(r);
    }
    EXPECT_INT(c, (long long)sizeof(val), "STRLEN %b", key, sizeof(key) - 1);
    EXPECT_NIL(c, "GET %b", key, sizeof(key) - 2);
    EXPECT_INT(c, (long long)sizeof(val) + 3, "APPEND %b %b", key, sizeof(key) - 1, "\0\r\n", (size_t)3);
    r = CMD_STRING(c, "GETRANGE %b -4 -1", key, sizeof(key) - 1);
    if (r) {
        CHECK(r->len == 4 && memcmp(r->str, "\n\0\r\n", 4) == 0);
        freeReplyObject(r);
    }
    r = CMD_STRING(c, "ECHO %b", val, sizeof(val));
    if (r) {
        CHECK((size_t)r->len == sizeof(val) && memcmp(r->str, val, sizeof(val)) == 0);
        freeReplyObject(r);
    }
    argv[0] = "MSET";
    argv[1] = "bin:a\0";
    lens[1] = 6;
    argv[2] = "\0\0";
    lens[2] = 2;
    argv[3] = "bin:a";
    lens[3] = 5;
    argv[4] = "\r\n";
    lens[4] = 2;
    lens[0] = 4;
    r = redisCommandArgv(c, 5, argv, lens);
    EXPECT_REPLY(r, REDIS_REPLY_STATUS, "OK", 0);
    r = CMD_ARRAY(c, "MGET bin:a %b", "bin:a\0", (size_t)6);
    if (r) {
        CHECK(r->elements == 2 && r->element[0]->len == 2 && memcmp(r->element[0]->str, "\r\n", 2) == 0);
        CHECK(r->elements == 2 && r->element[1]->len == 2 && memcmp(r->element[1]->str, "\0\0", 2) == 0);
        freeReplyObject(r);
    }
    redisFree(c);
}

/* Fill buf with n bytes: random (seeded xorshift) or a compressible pattern. */
static void fill(char *buf, size_t n, int random, uint64_t seed)
{
    size_t i;
    uint64_t x = seed | 1;
    for (i = 0; i < n; i++) {
        if (random) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (char)(x >> 24);
        } else {
            buf[i] = "agent memory: the plan, the notes, the results\r\n\0"[(i / 3) % 50];
        }
    }
}

static void big_roundtrip(redisContext *c, const char *key, int random)
{
    size_t n = 10u * 1024 * 1024, extra = 1024 * 1024;
    char *val = malloc(n + extra), *patch = "PATCHED-IN-THE-MIDDLE\r\n";
    redisReply *r;

    fill(val, n + extra, random, 42);
    EXPECT_OK(c, "SET %s %b", key, val, n);
    r = CMD_STRING(c, "GET %s", key);
    if (r) {
        CHECKF((size_t)r->len == n && memcmp(r->str, val, n) == 0, "%s: %zu bytes back", key, (size_t)r->len);
        freeReplyObject(r);
    }
    EXPECT_INT(c, (long long)n, "STRLEN %s", key);
    r = CMD_STRING(c, "GETRANGE %s 5000000 5000999", key);
    if (r) {
        CHECK(r->len == 1000 && memcmp(r->str, val + 5000000, 1000) == 0);
        freeReplyObject(r);
    }
    memcpy(val + 7654321, patch, strlen(patch));
    EXPECT_INT(c, (long long)n, "SETRANGE %s 7654321 %s", key, patch);
    EXPECT_INT(c, (long long)(n + extra), "APPEND %s %b", key, val + n, extra);
    r = CMD_STRING(c, "GET %s", key);
    if (r) {
        CHECK((size_t)r->len == n + extra && memcmp(r->str, val, n + extra) == 0);
        freeReplyObject(r);
    }
    r = CMD_STRING(c, "GETRANGE %s -1048576 -1", key);
    if (r) {
        CHECK((size_t)r->len == extra && memcmp(r->str, val + n, extra) == 0);
        freeReplyObject(r);
    }
    free(val);
}

static void test_big_values(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    big_roundtrip(c, "big:random", 1);
    big_roundtrip(c, "big:pattern", 0);
    redisFree(c);
}

/* ---- pipelines ---- */

#define PIPE_N 10000

/* Check reply i of the pipeline: SET p:i (i even) answers OK, GET p:(i-1)
 * (i odd) answers its value. */
static int pipe_reply_ok(redisReply *r, int i)
{
    char want[32];
    if (!r)
        return 0;
    if (i % 2 == 0)
        return r->type == REDIS_REPLY_STATUS && strcmp(r->str, "OK") == 0;
    snprintf(want, sizeof(want), "value-%d", i - 1);
    return r->type == REDIS_REPLY_STRING && strcmp(r->str, want) == 0;
}

static void test_pipeline_one_write(void)
{
    size_t cap = PIPE_N * 64, len = 0;
    char *out = malloc(cap);
    redisReader *rd = redisReaderCreate();
    int fd = it_connect(port), i, got = 0, bad = 0;
    int64_t end = it_now_ms() + 30000;
    char buf[65536];

    CHECK(fd >= 0);
    for (i = 0; i < PIPE_N; i++) {
        char *cmd;
        int n = i % 2 == 0 ? redisFormatCommand(&cmd, "SET p:%d value-%d", i, i)
                           : redisFormatCommand(&cmd, "GET p:%d", i - 1);
        memcpy(out + len, cmd, (size_t)n);
        len += (size_t)n;
        redisFreeCommand(cmd);
    }
    /* The whole pipeline in one send() call. */
    CHECK(fd >= 0 && send(fd, out, len, MSG_NOSIGNAL) == (ssize_t)len);
    while (fd >= 0 && got < PIPE_N && it_now_ms() < end) {
        void *reply;
        ssize_t n;
        if (!it_wait_readable(fd, 5000))
            break;
        n = recv(fd, buf, sizeof(buf), 0);
        if (n <= 0)
            break;
        redisReaderFeed(rd, buf, (size_t)n);
        while (redisReaderGetReply(rd, &reply) == REDIS_OK && reply) {
            if (!pipe_reply_ok(reply, got))
                bad++;
            freeReplyObject(reply);
            got++;
        }
    }
    CHECKF(got == PIPE_N, "%d replies", got);
    CHECKF(bad == 0, "%d wrong replies", bad);
    redisReaderFree(rd);
    free(out);
    if (fd >= 0)
        close(fd);
}

static void test_pipeline_append(void)
{
    redisContext *c = it_redis(port);
    int i, bad = 0;
    if (!c) { CHECK(0); return; }
    for (i = 0; i < PIPE_N; i++) {
        if (i % 2 == 0)
            redisAppendCommand(c, "SET p:%d value-%d", i, i);
        else
            redisAppendCommand(c, "GET p:%d", i - 1);
    }
    redisAppendCommand(c, "INCRBY p:count %d", PIPE_N);
    for (i = 0; i < PIPE_N; i++) {
        void *reply = NULL;
        if (redisGetReply(c, &reply) != REDIS_OK) {
            bad = -1;
            break;
        }
        if (!pipe_reply_ok(reply, i))
            bad++;
        freeReplyObject(reply);
    }
    CHECKF(bad == 0, "%d wrong replies (-1: connection error %s)", bad, c->errstr);
    if (bad == 0) {
        void *reply = NULL;
        redisGetReply(c, &reply);
        EXPECT_REPLY(reply, REDIS_REPLY_INTEGER, NULL, PIPE_N);
    }
    redisFree(c);
}

/* ---- transactions ---- */

static void test_multi_exec(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SET tx:s abc");
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SET tx:a 1");
    EXPECT_STATUS(c, "QUEUED", "INCR tx:a");
    EXPECT_STATUS(c, "QUEUED", "INCR tx:s");
    EXPECT_STATUS(c, "QUEUED", "GET tx:a");
    EXPECT_STATUS(c, "QUEUED", "GET tx:missing");
    /* Nothing ran yet. */
    r = redisCommand(c, "EXEC");
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 5) {
        CHECK(it_elem_is(r, 0, REDIS_REPLY_STATUS, "OK"));
        CHECK(r->element[1]->type == REDIS_REPLY_INTEGER && r->element[1]->integer == 2);
        CHECK(it_elem_is(r, 2, REDIS_REPLY_ERROR, "ERR value is not an integer or out of range"));
        CHECK(it_elem_is(r, 3, REDIS_REPLY_STRING, "2"));
        CHECK(r->element[4]->type == REDIS_REPLY_NIL);
    } else {
        CHECKF(0, "EXEC did not return an array of 5");
    }
    freeReplyObject(r);
    redisFree(c);
    c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_ERR(c, "ERR EXEC without MULTI", "EXEC");
    EXPECT_OK(c, "MULTI");
    r = CMD_ARRAY(c, "EXEC");
    if (r) {
        CHECK(r->elements == 0);
        freeReplyObject(r);
    }
    redisFree(c);
}

static void test_multi_errors(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, "ERR MULTI calls can not be nested", "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SET txe:a 1");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'set' command", "SET txe:b");
    EXPECT_STATUS(c, "QUEUED", "SET txe:c 1");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_NIL(c, "GET txe:a");
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, "ERR unknown command 'NOSUCHCMD', with args beginning with: 'x' ", "NOSUCHCMD x");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    EXPECT_ERR(c, "ERR DISCARD without MULTI", "DISCARD");
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SET txe:d 1");
    EXPECT_OK(c, "DISCARD");
    EXPECT_NIL(c, "GET txe:d");
    EXPECT_ERR(c, "ERR EXEC without MULTI", "EXEC");
    redisFree(c);
}

static void test_exec_refused_aborts(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    /* Redis 7.0: an EXEC refused before it runs ends the transaction with
     * EXECABORT and the reason, instead of a plain error. */
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SET txa:a 1");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command",
               "EXEC extra");
    EXPECT_ERR(c, "ERR EXEC without MULTI", "EXEC");
    EXPECT_NIL(c, "GET txa:a");
    redisFree(c);
}

static void test_watch(void)
{
    redisContext *a = it_redis(port), *b = it_redis(port);
    redisReply *r;
    if (!a || !b) { CHECK(0); goto done; }

    /* A key changed by another connection makes EXEC return nil. */
    EXPECT_OK(a, "SET w:a 1");
    EXPECT_OK(a, "WATCH w:a");
    EXPECT_OK(b, "SET w:a 2");
    EXPECT_OK(a, "MULTI");
    EXPECT_STATUS(a, "QUEUED", "SET w:a 3");
    EXPECT_NIL(a, "EXEC");
    EXPECT_STR(a, "2", "GET w:a");

    /* Untouched: EXEC runs. */
    EXPECT_OK(a, "WATCH w:a");
    EXPECT_OK(a, "MULTI");
    EXPECT_STATUS(a, "QUEUED", "SET w:a 3");
    r = CMD_ARRAY(a, "EXEC");
    if (r) {
        CHECK(r->elements == 1 && it_elem_is(r, 0, REDIS_REPLY_STATUS, "OK"));
        freeReplyObject(r);
    }
    EXPECT_STR(a, "3", "GET w:a");

    /* A missing key created by another connection counts as a change. */
    EXPECT_OK(a, "WATCH w:new");
    EXPECT_OK(b, "SET w:new x");
    EXPECT_OK(a, "MULTI");
    EXPECT_NIL(a, "EXEC");

    /* The connection's own change counts too. */
    EXPECT_OK(a, "WATCH w:a");
    EXPECT_OK(a, "SET w:a 4");
    EXPECT_OK(a, "MULTI");
    EXPECT_NIL(a, "EXEC");

    /* The same key name in another database is another key. */
    EXPECT_OK(a, "WATCH w:a");
    EXPECT_OK(b, "SELECT 1");
    EXPECT_OK(b, "SET w:a other-db");
    EXPECT_OK(a, "MULTI");
    r = CMD_ARRAY(a, "EXEC");
    if (r)
        freeReplyObject(r);
    EXPECT_OK(b, "SELECT 0");

    /* UNWATCH and DISCARD forget the watched keys. */
    EXPECT_OK(a, "WATCH w:a");
    EXPECT_OK(b, "SET w:a 5");
    EXPECT_OK(a, "UNWATCH");
    EXPECT_OK(a, "MULTI");
    r = CMD_ARRAY(a, "EXEC");
    if (r)
        freeReplyObject(r);
    EXPECT_OK(a, "WATCH w:a");
    EXPECT_OK(a, "MULTI");
    EXPECT_OK(a, "DISCARD");
    EXPECT_OK(b, "SET w:a 6");
    EXPECT_OK(a, "MULTI");
    r = CMD_ARRAY(a, "EXEC");
    if (r)
        freeReplyObject(r);

    /* A watched key that expires before EXEC makes it fail. */
    EXPECT_OK(a, "SET w:exp v PX 100");
    EXPECT_OK(a, "WATCH w:exp");
    it_sleep_ms(250);
    EXPECT_OK(a, "MULTI");
    EXPECT_STATUS(a, "QUEUED", "SET w:exp again");
    EXPECT_NIL(a, "EXEC");

    EXPECT_OK(a, "MULTI");
    EXPECT_ERR(a, "ERR WATCH inside MULTI is not allowed", "WATCH w:a");
    EXPECT_OK(a, "DISCARD");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'watch' command", "WATCH");
done:
    if (a)
        redisFree(a);
    if (b)
        redisFree(b);
}

/* ---- databases and errors ---- */

static void test_select(void)
{
    redisContext *c = it_redis(port);
    int i;
    if (!c) { CHECK(0); return; }
    for (i = 0; i < 16; i++) {
        EXPECT_OK(c, "SELECT %d", i);
        EXPECT_OK(c, "SET db:k db%d", i);
    }
    for (i = 15; i >= 0; i--) {
        char want[16];
        snprintf(want, sizeof(want), "db%d", i);
        EXPECT_OK(c, "SELECT %d", i);
        EXPECT_STR(c, want, "GET db:k");
    }
    EXPECT_ERR(c, "ERR DB index is out of range", "SELECT 16");
    EXPECT_ERR(c, "ERR DB index is out of range", "SELECT -1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SELECT abc");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SELECT 99999999999999999999");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'select' command", "SELECT");
    EXPECT_STR(c, "db0", "GET db:k");
    redisFree(c);
    /* A new connection starts in database 0. */
    c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_STR(c, "db0", "GET db:k");
    redisFree(c);
}

static void test_error_strings(void)
{
    redisContext *c = it_redis(port);
    char longarg[300], want[512];
    if (!c) { CHECK(0); return; }
    EXPECT_ERR(c, "ERR unknown command 'FOOBAR', with args beginning with: ", "FOOBAR");
    EXPECT_ERR(c, "ERR unknown command 'foobar', with args beginning with: 'a' 'b c' ", "foobar a %s", "b c");
    memset(longarg, 'x', sizeof(longarg) - 1);
    longarg[sizeof(longarg) - 1] = '\0';
    snprintf(want, sizeof(want), "ERR unknown command 'NOPE', with args beginning with: '%.128s' ", longarg);
    EXPECT_ERR(c, want, "NOPE %s", longarg);
    snprintf(want, sizeof(want), "ERR unknown command '%.128s', with args beginning with: ", longarg);
    EXPECT_ERR(c, want, "%s", longarg);
    EXPECT_ERR(c, "ERR unknown command 'a  b', with args beginning with: ", "%s", "a\r\nb");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "GET");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "GET a b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'get' command", "gEt");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'echo' command", "ECHO");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'ping' command", "PING a b");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'getex' command", "GETEX");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'client' command", "CLIENT");
    EXPECT_ERR(c, "ERR unknown subcommand 'FOO'. Try CLIENT HELP.", "CLIENT FOO");
    EXPECT_ERR(c, "ERR unknown subcommand 'foo'. Try CLIENT HELP.", "client foo");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'client|setname' command", "CLIENT SETNAME");
    /* The connection is still fine after errors. */
    EXPECT_STATUS(c, "PONG", "PING");
    EXPECT_STR(c, "hi", "PING hi");
    EXPECT_STR(c, "hi there", "ECHO %s", "hi there");
    redisFree(c);
}

/* ---- the async API on libevent ---- */

typedef struct async_state {
    int incr_replies;      /* INCR replies seen, in order */
    int out_of_order;
    int error_ok;          /* the error reply arrived as REDIS_REPLY_ERROR */
    int get_ok;            /* the final GET saw every INCR */
    int connected, disconnected, disconnect_status;
    struct event_base *base;
} async_state;

static void async_incr_cb(redisAsyncContext *ac, void *reply, void *priv)
{
    async_state *st = ac->data;
    redisReply *r = reply;
    long expect = (long)(intptr_t)priv;
    if (!r || r->type != REDIS_REPLY_INTEGER || r->integer != expect)
        st->out_of_order++;
    st->incr_replies++;
}

static void async_err_cb(redisAsyncContext *ac, void *reply, void *priv)
{
    async_state *st = ac->data;
    redisReply *r = reply;
    (void)priv;
    st->error_ok = r && r->type == REDIS_REPLY_ERROR &&
                   strcmp(r->str, "ERR wrong number of arguments for 'get' command") == 0;
}

static void async_get_cb(redisAsyncContext *ac, void *reply, void *priv)
{
    async_state *st = ac->data;
    redisReply *r = reply;
    (void)priv;
    st->get_ok = r && r->type == REDIS_REPLY_STRING && strcmp(r->str, "1000") == 0;
    redisAsyncDisconnect(ac);
}

static void async_connect_cb(const redisAsyncContext *ac, int status)
{
    async_state *st = ac->data;
    st->connected = status == REDIS_OK ? 1 : -1;
}

static void async_disconnect_cb(const redisAsyncContext *ac, int status)
{
    async_state *st = ac->data;
    st->disconnected = 1;
    st->disconnect_status = status;
    event_base_loopbreak(st->base);
}

static void async_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    event_base_loopbreak(arg);
}

static void test_async_libevent(void)
{
    async_state st;
    redisAsyncContext *ac;
    struct event *timer;
    struct timeval tv = {20, 0};
    long i;

    memset(&st, 0, sizeof(st));
    st.base = event_base_new();
    ac = redisAsyncConnect("127.0.0.1", port);
    if (!ac || ac->err) {
        CHECKF(0, "redisAsyncConnect: %s", ac ? ac->errstr : "NULL");
        event_base_free(st.base);
        return;
    }
    ac->data = &st;
    redisLibeventAttach(ac, st.base);
    redisAsyncSetConnectCallback(ac, async_connect_cb);
    redisAsyncSetDisconnectCallback(ac, async_disconnect_cb);
    redisAsyncCommand(ac, NULL, NULL, "DEL async:n");
    redisAsyncCommand(ac, NULL, NULL, "SET async:n 0");
    for (i = 1; i <= 1000; i++)
        redisAsyncCommand(ac, async_incr_cb, (void *)(intptr_t)i, "INCR async:n");
    redisAsyncCommand(ac, async_err_cb, NULL, "GET");
    redisAsyncCommand(ac, async_get_cb, NULL, "GET async:n");
    timer = evtimer_new(st.base, async_timeout_cb, st.base);
    evtimer_add(timer, &tv);
    event_base_dispatch(st.base);
    CHECK(st.connected == 1);
    CHECKF(st.incr_replies == 1000, "%d INCR replies", st.incr_replies);
    CHECKF(st.out_of_order == 0, "%d INCR replies out of order", st.out_of_order);
    CHECK(st.error_ok);
    CHECK(st.get_ok);
    CHECK(st.disconnected && st.disconnect_status == REDIS_OK);
    event_free(timer);
    event_base_free(st.base);
}

int main(void)
{
    it_init(240);
    if (it_server_start(&server, NULL) < 0) {
        printf("not ok - the server starts and answers PING\n");
        return 1;
    }
    port = server.port;

    RUN(test_set_get, "SET stores a value that GET returns, and GET of a missing key is nil");
    RUN(test_set_nx_xx_get, "SET NX, XX and GET set only when they should and return the old value");
    RUN(test_set_expire, "SET EX, PX, EXAT and PXAT expire the key, a plain SET clears the expiry, KEEPTTL keeps it");
    RUN(test_set_errors, "SET rejects conflicting, missing and invalid options with Redis's errors");
    RUN(test_set_option_order, "SET reports a syntax error before a bad expire time and accepts a repeated EX");
    RUN(test_setnx_setex_psetex, "SETNX, SETEX and PSETEX set, expire and reject bad times as Redis does");
    RUN(test_getset_getdel, "GETSET and GETDEL return the old value, and GETSET clears the expiry");
    RUN(test_getex, "GETEX returns the value and sets, changes or removes its expiry; bad options are errors");
    RUN(test_mset_mget, "MSET, MGET and MSETNX set and read many keys, MSETNX all or nothing");
    RUN(test_append_strlen, "APPEND creates or extends a value and STRLEN measures it");
    RUN(test_getrange, "GETRANGE and SUBSTR clamp negative and out-of-range indexes as Redis does");
    RUN(test_setrange, "SETRANGE pads with zero bytes, refuses negative and too large offsets, creates no key for empty values");
    RUN(test_setrange_huge_offset, "SETRANGE with an offset near 2^63 is refused, not padded towards it");
    RUN(test_incr_family, "INCR, DECR, INCRBY and DECRBY count, refuse non-integers and detect overflow");
    RUN(test_incrbyfloat, "INCRBYFLOAT adds long doubles, prints them as Redis does and refuses bad floats and infinity");
    RUN(test_incrbyfloat_large, "INCRBYFLOAT prints a large result in plain decimal digits as Redis does");
    RUN(test_lcs, "LCS finds the longest common subsequence, its length and its match indexes");
    RUN(test_binary_values, "keys and values with NUL, CR, LF and every byte value round-trip exactly");
    RUN(test_big_values, "10 MB values (random and compressible) round-trip, and GETRANGE, SETRANGE and APPEND work inside them");
    RUN(test_pipeline_one_write, "a pipeline of 10,000 commands sent in one write gets 10,000 replies in order");
    RUN(test_pipeline_append, "a pipeline of 10,000 commands queued with redisAppendCommand gets every reply in order");
    RUN(test_multi_exec, "MULTI queues commands and EXEC runs them, a failing command not stopping the others");
    RUN(test_multi_errors, "a command refused while queueing aborts EXEC; DISCARD drops the queue; misplaced EXEC/DISCARD/MULTI are errors");
    RUN(test_exec_refused_aborts, "EXEC with a wrong number of arguments inside MULTI aborts the transaction with EXECABORT");
    RUN(test_watch, "EXEC returns nil when a WATCHed key was changed, created or expired, and runs otherwise");
    RUN(test_select, "SELECT switches between 16 separate databases and refuses indexes out of range");
    RUN(test_error_strings, "unknown commands, unknown subcommands and wrong arity get Redis's exact error strings");
    RUN(test_async_libevent, "the async API on libevent gets 1,000 pipelined replies in order, an error reply, and a clean disconnect");

    it_server_finish(&server);
    return TEST_DONE();
}
