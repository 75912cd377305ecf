/* types_hiredis.c -- hashes, sets, sorted sets and lists through hiredis: the
 * reply types each group answers, as a C application reads them.
 *
 * HGETALL and SMEMBERS are arrays of strings, ZRANGE WITHSCORES an array of
 * alternating member and score strings, ZSCORE a bulk string (nil when
 * missing), BLPOP a [key, element] array once another connection pushes (the
 * waiting command is sent with redisAppendCommand and read with
 * redisGetReply), and nil on timeout. Debian's hiredis (0.14) has no RESP3, so
 * the RESP3 forms after HELLO 3 (maps, sets, doubles, pairs of WITHSCORES) are
 * read with itest.h's reply reader on a raw connection. */
#include <hiredis/hiredis.h>

#include "itest.h"

static it_server server;
static int port;

/* The number of blocked clients INFO reports, or -1. */
static long long blocked_clients(redisContext *c)
{
    redisReply *r = redisCommand(c, "INFO clients");
    long long n = -1;
    const char *p;
    if (r && r->type == REDIS_REPLY_STRING && (p = strstr(r->str, "\r\nblocked_clients:")))
        n = atoll(p + strlen("\r\nblocked_clients:"));
    if (r)
        freeReplyObject(r);
    return n;
}

/* Wait up to 5 s for n blocked clients; 1 if reached. */
static int wait_blocked(redisContext *c, long long n)
{
    int64_t end = it_now_ms() + 5000;
    while (it_now_ms() < end) {
        if (blocked_clients(c) == n)
            return 1;
        it_sleep_ms(10);
    }
    return 0;
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

static void test_hashes(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    const char *pairs[] = {"name", "agent-1", "state", "idle", NULL};
    if (!c) {
        CHECK(0);
        return;
    }
    EXPECT_INT(c, 2, "HSET h:a name agent-1 state idle");
    EXPECT_INT(c, 0, "HSET h:a state %s", "idle");
    EXPECT_STR(c, "agent-1", "HGET h:a name");
    EXPECT_NIL(c, "HGET h:a none");
    if ((r = CMD_ARRAY(c, "HGETALL h:a"))) {
        /* field, value, field, value: the pairs in either order. */
        int order1 = r->elements == 4 && it_elem_is(r, 0, REDIS_REPLY_STRING, pairs[0]) &&
                     it_elem_is(r, 1, REDIS_REPLY_STRING, pairs[1]) && it_elem_is(r, 2, REDIS_REPLY_STRING, pairs[2]) &&
                     it_elem_is(r, 3, REDIS_REPLY_STRING, pairs[3]);
        int order2 = r->elements == 4 && it_elem_is(r, 0, REDIS_REPLY_STRING, pairs[2]) &&
                     it_elem_is(r, 1, REDIS_REPLY_STRING, pairs[3]) && it_elem_is(r, 2, REDIS_REPLY_STRING, pairs[0]) &&
                     it_elem_is(r, 3, REDIS_REPLY_STRING, pairs[1]);
        CHECKF(order1 || order2, "HGETALL is not the array of the two pairs");
        freeReplyObject(r);
    }
    if ((r = CMD_ARRAY(c, "HMGET h:a name none"))) {
        CHECK(r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "agent-1") &&
              r->element[1]->type == REDIS_REPLY_NIL);
        freeReplyObject(r);
    }
    EXPECT_INT(c, 5, "HINCRBY h:a tries 5");
    EXPECT_STR(c, "5.5", "HINCRBYFLOAT h:a tries 0.5");
    EXPECT_ERR(c, "ERR hash value is not an integer", "HINCRBY h:a name 1");
    if ((r = CMD_ARRAY(c, "HGETALL h:none"))) {
        CHECK(r->elements == 0);
        freeReplyObject(r);
    }
    EXPECT_OK(c, "SET h:str v");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "HGET h:str f");
    redisFree(c);
}

static void test_sets(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) {
        CHECK(0);
        return;
    }
    EXPECT_INT(c, 3, "SADD s:a x y z");
    EXPECT_INT(c, 3, "SADD s:i 3 1 2");
    if ((r = CMD_ARRAY(c, "SMEMBERS s:a"))) {
        const char *want[] = {"x", "y", "z", NULL};
        CHECKF(same_set(r, want), "SMEMBERS of strings");
        freeReplyObject(r);
    }
    if ((r = CMD_ARRAY(c, "SMEMBERS s:i"))) {
        const char *want[] = {"1", "2", "3", NULL};
        CHECKF(same_set(r, want), "SMEMBERS of an intset answers strings");
        freeReplyObject(r);
    }
    EXPECT_INT(c, 1, "SISMEMBER s:a x");
    if ((r = CMD_ARRAY(c, "SMISMEMBER s:a x w"))) {
        CHECK(r->elements == 2 && r->element[0]->type == REDIS_REPLY_INTEGER && r->element[0]->integer == 1 &&
              r->element[1]->type == REDIS_REPLY_INTEGER && r->element[1]->integer == 0);
        freeReplyObject(r);
    }
    EXPECT_NIL(c, "SPOP s:none");
    EXPECT_NIL(c, "SRANDMEMBER s:none");
    if ((r = CMD_ARRAY(c, "SMEMBERS s:none"))) {
        CHECK(r->elements == 0);
        freeReplyObject(r);
    }
    redisFree(c);
}

static void test_zsets(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) {
        CHECK(0);
        return;
    }
    EXPECT_INT(c, 4, "ZADD z:a 1.5 a 2 b inf c 0.1 d");
    EXPECT_STR(c, "1.5", "ZSCORE z:a a");
    EXPECT_STR(c, "inf", "ZSCORE z:a c");
    EXPECT_STR(c, "0.10000000000000001", "ZSCORE z:a d");
    EXPECT_NIL(c, "ZSCORE z:a none");
    EXPECT_STR(c, "3.5", "ZINCRBY z:a 2 a");
    if ((r = CMD_ARRAY(c, "ZRANGE z:a 0 -1 WITHSCORES"))) {
        CHECK(r->elements == 8 && it_elem_is(r, 0, REDIS_REPLY_STRING, "d") &&
              it_elem_is(r, 1, REDIS_REPLY_STRING, "0.10000000000000001") &&
              it_elem_is(r, 2, REDIS_REPLY_STRING, "b") && it_elem_is(r, 3, REDIS_REPLY_STRING, "2") &&
              it_elem_is(r, 4, REDIS_REPLY_STRING, "a") && it_elem_is(r, 5, REDIS_REPLY_STRING, "3.5") &&
              it_elem_is(r, 6, REDIS_REPLY_STRING, "c") && it_elem_is(r, 7, REDIS_REPLY_STRING, "inf"));
        freeReplyObject(r);
    }
    if ((r = CMD_ARRAY(c, "ZMSCORE z:a b none"))) {
        CHECK(r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "2") && r->element[1]->type == REDIS_REPLY_NIL);
        freeReplyObject(r);
    }
    EXPECT_INT(c, 2, "ZRANK z:a a");
    EXPECT_NIL(c, "ZRANK z:a none");
    if ((r = CMD_ARRAY(c, "ZPOPMIN z:a"))) {
        CHECK(r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "d") &&
              it_elem_is(r, 1, REDIS_REPLY_STRING, "0.10000000000000001"));
        freeReplyObject(r);
    }
    if ((r = CMD_ARRAY(c, "ZPOPMIN z:none"))) {
        CHECK(r->elements == 0);
        freeReplyObject(r);
    }
    EXPECT_ERR(c, "ERR value is not a valid float", "ZADD z:a abc x");
    redisFree(c);
}

static void test_blocking(void)
{
    redisContext *c = it_redis(port), *w = it_redis(port);
    redisReply *r = NULL;
    int64_t t0;
    if (!c || !w) {
        CHECK(0);
        goto out;
    }
    CHECK(redisAppendCommand(w, "BLPOP l:q1 l:q2 5") == REDIS_OK);
    /* Flush the command; the reply comes once something is pushed. */
    {
        int done = 0;
        while (!done && redisBufferWrite(w, &done) == REDIS_OK)
            ;
        CHECK(done);
    }
    CHECKF(wait_blocked(c, 1), "the BLPOP client never blocked");
    EXPECT_INT(c, 2, "RPUSH l:q2 task-1 task-2");
    CHECK(redisGetReply(w, (void **)&r) == REDIS_OK);
    CHECKF(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "l:q2") &&
               it_elem_is(r, 1, REDIS_REPLY_STRING, "task-1"),
           "BLPOP's reply is not [key, element]");
    if (r)
        freeReplyObject(r);
    t0 = it_now_ms();
    EXPECT_NIL(w, "BLPOP l:none 0.2");
    CHECKF(it_now_ms() - t0 >= 150, "BLPOP 0.2 answered after %lld ms", (long long)(it_now_ms() - t0));
    EXPECT_STR(w, "task-2", "BLMOVE l:q2 l:done RIGHT LEFT 1");
    EXPECT_NIL(w, "BZPOPMIN z:none z:none2 0.1"); /* a nil array reads as nil in hiredis */
    EXPECT_INT(c, 1, "ZADD z:b 7 job");
    if ((r = CMD_ARRAY(w, "BZPOPMIN z:b 1"))) {
        CHECK(r->elements == 3 && it_elem_is(r, 0, REDIS_REPLY_STRING, "z:b") &&
              it_elem_is(r, 1, REDIS_REPLY_STRING, "job") && it_elem_is(r, 2, REDIS_REPLY_STRING, "7"));
        freeReplyObject(r);
    }
out:
    if (c)
        redisFree(c);
    if (w)
        redisFree(w);
}

static void test_resp3(void)
{
    it_conn c;
    it_reply *r;
    if (it_conn_open(&c, port) < 0) {
        CHECK(0);
        return;
    }
    it_reply_free(it_conn_cmd(&c, "HELLO 3"));
    it_reply_free(it_conn_cmd(&c, "DEL r3:h r3:s r3:z"));
    it_reply_free(it_conn_cmd(&c, "HSET r3:h f v"));
    it_reply_free(it_conn_cmd(&c, "SADD r3:s m"));
    it_reply_free(it_conn_cmd(&c, "ZADD r3:z 1.5 a inf b"));
    r = it_conn_cmd(&c, "HGETALL r3:h");
    CHECKF(r && r->type == '%' && r->elements == 2 && it_reply_is(r->element[0], '$', "f") &&
               it_reply_is(r->element[1], '$', "v"),
           "HGETALL is not a map");
    it_reply_free(r);
    r = it_conn_cmd(&c, "SMEMBERS r3:s");
    CHECKF(r && r->type == '~' && r->elements == 1 && it_reply_is(r->element[0], '$', "m"), "SMEMBERS is not a set");
    it_reply_free(r);
    r = it_conn_cmd(&c, "ZSCORE r3:z a");
    CHECKF(it_reply_is(r, ',', "1.5"), "ZSCORE is not the double 1.5");
    it_reply_free(r);
    r = it_conn_cmd(&c, "ZSCORE r3:z b");
    CHECKF(it_reply_is(r, ',', "inf"), "ZSCORE is not the double inf");
    it_reply_free(r);
    r = it_conn_cmd(&c, "ZSCORE r3:z none");
    CHECKF(r && r->type == '_', "a missing ZSCORE is not the RESP3 null");
    it_reply_free(r);
    r = it_conn_cmd(&c, "ZRANGE r3:z 0 -1 WITHSCORES");
    CHECKF(r && r->type == '*' && r->elements == 2 && r->element[0]->type == '*' && r->element[0]->elements == 2 &&
               it_reply_is(r->element[0]->element[0], '$', "a") && it_reply_is(r->element[0]->element[1], ',', "1.5") &&
               it_reply_is(r->element[1]->element[1], ',', "inf"),
           "ZRANGE WITHSCORES is not pairs of member and double");
    it_reply_free(r);
    r = it_conn_cmd(&c, "BLPOP r3:none 0.1");
    CHECKF(r && r->type == '_', "a timed-out BLPOP is not the RESP3 null");
    it_reply_free(r);
    r = it_conn_cmd(&c, "BZPOPMIN r3:z 1");
    CHECKF(r && r->type == '*' && r->elements == 3 && it_reply_is(r->element[0], '$', "r3:z") &&
               it_reply_is(r->element[1], '$', "a") && it_reply_is(r->element[2], ',', "1.5"),
           "BZPOPMIN is not [key, member, double]");
    it_reply_free(r);
    it_conn_close(&c);
}

int main(void)
{
    it_init(120);
    if (it_server_start(&server, NULL) < 0) {
        printf("not ok - the server starts and answers PING\n");
        return 1;
    }
    port = server.port;

    RUN(test_hashes, "hashes through hiredis: HGETALL and HMGET are arrays, HGET a bulk string or nil");
    RUN(test_sets, "sets through hiredis: SMEMBERS is an array of strings, SISMEMBER an integer, SPOP nil");
    RUN(test_zsets, "sorted sets through hiredis: ZSCORE and WITHSCORES scores are strings as Redis formats them");
    RUN(test_blocking,
        "BLPOP sent by hiredis is answered [key, element] when another connection pushes, nil on timeout");
    RUN(test_resp3, "after HELLO 3 HGETALL is a map, SMEMBERS a set, scores doubles, WITHSCORES pairs");
    it_server_finish(&server);
    return TEST_DONE();
}
