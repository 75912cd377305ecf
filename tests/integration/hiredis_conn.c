/* hiredis_conn.c -- connections: RESP3 after HELLO 3, AUTH with requirepass,
 * maxclients, 200 concurrent clients, the CLIENT subcommands, and the output
 * buffer limit that disconnects a client which does not read its replies.
 *
 * Several servers are started one after the other, each with the options its
 * cases need. RESP3 is read with itest.h's reply reader, because Debian's
 * hiredis (0.14) predates RESP3. Expected replies are Redis 7.0's. */
#include <hiredis/hiredis.h>
#include <pthread.h>

#include "itest.h"

static it_server server;
static int port;

/* The value of "name=" in a CLIENT LIST/INFO line, copied into out ("" if none). */
static void field_of(const char *line, const char *name, char *out, size_t cap)
{
    char pat[64];
    const char *p;
    size_t n = 0;
    snprintf(pat, sizeof(pat), " %s=", name);
    out[0] = '\0';
    if (strncmp(line, pat + 1, strlen(pat) - 1) == 0)
        p = line + strlen(pat) - 1;
    else if ((p = strstr(line, pat)) != NULL)
        p += strlen(pat);
    else
        return;
    while (p[n] && p[n] != ' ' && p[n] != '\n' && n + 1 < cap) {
        out[n] = p[n];
        n++;
    }
    out[n] = '\0';
}

/* Number of lines of CLIENT LIST (seen by c) that contain needle. -1 on error. */
static int client_list_count(redisContext *c, const char *needle)
{
    redisReply *r = redisCommand(c, "CLIENT LIST");
    const char *p;
    int n = 0;
    if (!r || r->type != REDIS_REPLY_STRING) {
        if (r)
            freeReplyObject(r);
        return -1;
    }
    for (p = r->str; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
        if (!needle || strstr(line, needle))
            n++;
        p = nl ? nl + 1 : NULL;
    }
    freeReplyObject(r);
    return n;
}

/* Wait (at most 5 s) until CLIENT LIST seen by c has exactly n lines. */
static int wait_clients(redisContext *c, int n)
{
    int64_t end = it_now_ms() + 5000;
    while (it_now_ms() < end) {
        if (client_list_count(c, NULL) == n)
            return 1;
        it_sleep_ms(10);
    }
    return 0;
}

/* The next reply of a pipeline, or NULL on a connection error or timeout. */
static redisReply *next_reply(redisContext *c)
{
    void *reply = NULL;
    if (redisGetReply(c, &reply) != REDIS_OK)
        return NULL;
    return reply;
}

static long long client_id(redisContext *c)
{
    redisReply *r = redisCommand(c, "CLIENT ID");
    long long id = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    return id;
}

/* ---- RESP3 ---- */

static void test_resp3_hello(void)
{
    it_conn c;
    it_reply *r;
    const it_reply *v;

    if (it_conn_open(&c, port) < 0) { CHECK(0); return; }
    r = it_conn_cmd(&c, "HELLO 3");
    CHECKF(r && r->type == '%' && r->elements == 14, "HELLO 3 is not a map of 7");
    CHECK(it_reply_is(it_reply_map_get(r, "server"), '$', "redis"));
    v = it_reply_map_get(r, "version");
    CHECK(v && v->type == '$' && v->len > 0);
    v = it_reply_map_get(r, "proto");
    CHECK(v && v->type == ':' && v->integer == 3);
    v = it_reply_map_get(r, "id");
    CHECK(v && v->type == ':' && v->integer > 0);
    CHECK(it_reply_is(it_reply_map_get(r, "mode"), '$', "standalone"));
    CHECK(it_reply_is(it_reply_map_get(r, "role"), '$', "master"));
    v = it_reply_map_get(r, "modules");
    CHECK(v && v->type == '*' && v->elements == 0);
    it_reply_free(r);

    /* HELLO with no version reports the current one. */
    r = it_conn_cmd(&c, "HELLO");
    v = it_reply_map_get(r, "proto");
    CHECK(r && r->type == '%' && v && v->integer == 3);
    it_reply_free(r);

    /* Back to RESP2: a flat array, and nulls as $-1. */
    r = it_conn_cmd(&c, "HELLO 2");
    CHECK(r && r->type == '*' && r->elements == 14);
    v = it_reply_map_get(r, "proto");
    CHECK(v && v->type == ':' && v->integer == 2);
    it_reply_free(r);
    r = it_conn_cmd(&c, "GET resp3:missing");
    CHECK(r && r->type == '$' && r->is_null);
    it_reply_free(r);

    r = it_conn_cmd(&c, "HELLO 4");
    CHECK(it_reply_is(r, '-', "NOPROTO unsupported protocol version"));
    it_reply_free(r);
    r = it_conn_cmd(&c, "HELLO abc");
    CHECK(it_reply_is(r, '-', "ERR Protocol version is not an integer or out of range"));
    it_reply_free(r);
    r = it_conn_cmd(&c, "HELLO 3 FOO");
    CHECK(it_reply_is(r, '-', "ERR Syntax error in HELLO option 'FOO'"));
    it_reply_free(r);
    /* A failed HELLO changes nothing. */
    r = it_conn_cmd(&c, "GET resp3:missing");
    CHECK(r && r->type == '$' && r->is_null);
    it_reply_free(r);

    r = it_conn_cmd(&c, "HELLO 3 SETNAME resp3-client");
    CHECK(r && r->type == '%');
    it_reply_free(r);
    r = it_conn_cmd(&c, "CLIENT GETNAME");
    CHECK(it_reply_is(r, '$', "resp3-client"));
    it_reply_free(r);
    it_conn_close(&c);
}

static void test_resp3_types(void)
{
    it_conn c;
    it_reply *r;

    if (it_conn_open(&c, port) < 0) { CHECK(0); return; }
    it_reply_free(it_conn_cmd(&c, "HELLO 3"));
    r = it_conn_cmd(&c, "GET resp3:missing");
    CHECK(r && r->type == '_' && r->is_null);
    it_reply_free(r);
    r = it_conn_cmd(&c, "SET resp3:k v");
    CHECK(it_reply_is(r, '+', "OK"));
    it_reply_free(r);
    r = it_conn_cmd(&c, "GET resp3:k");
    CHECK(it_reply_is(r, '$', "v"));
    it_reply_free(r);
    r = it_conn_cmd(&c, "MGET resp3:k resp3:missing");
    CHECK(r && r->type == '*' && r->elements == 2);
    CHECK(r && r->elements == 2 && it_reply_is(r->element[0], '$', "v") && r->element[1]->type == '_');
    it_reply_free(r);
    r = it_conn_cmd(&c, "INCR resp3:n");
    CHECK(r && r->type == ':' && r->integer == 1);
    it_reply_free(r);
    r = it_conn_cmd(&c, "INCRBYFLOAT resp3:f 1.5");
    CHECK(it_reply_is(r, '$', "1.5"));
    it_reply_free(r);
    r = it_conn_cmd(&c, "CLIENT GETNAME");
    CHECK(r && r->type == '_');
    it_reply_free(r);
    r = it_conn_cmd(&c, "CLIENT INFO");
    CHECKF(r && r->type == '=' && r->len > 4 && memcmp(r->str, "txt:", 4) == 0 && strstr(r->str, " resp=3"),
           "CLIENT INFO is not a verbatim string with resp=3");
    it_reply_free(r);
    r = it_conn_cmd(&c, "CLIENT LIST");
    CHECK(r && r->type == '=' && r->len > 4 && memcmp(r->str, "txt:", 4) == 0);
    it_reply_free(r);
    r = it_conn_cmd(&c, "GETRANGE resp3:k 5 1");
    CHECK(it_reply_is(r, '$', ""));
    it_reply_free(r);
    r = it_conn_cmd(&c, "NOSUCH");
    CHECK(r && r->type == '-');
    it_reply_free(r);

    /* An EXEC aborted by WATCH is a RESP3 null. */
    r = it_conn_cmd(&c, "WATCH resp3:k");
    it_reply_free(r);
    r = it_conn_cmd(&c, "SET resp3:k changed");
    it_reply_free(r);
    r = it_conn_cmd(&c, "MULTI");
    it_reply_free(r);
    r = it_conn_cmd(&c, "EXEC");
    CHECK(r && r->type == '_');
    it_reply_free(r);
    r = it_conn_cmd(&c, "MULTI");
    it_reply_free(r);
    r = it_conn_cmd(&c, "GET resp3:missing");
    CHECK(it_reply_is(r, '+', "QUEUED"));
    it_reply_free(r);
    r = it_conn_cmd(&c, "EXEC");
    CHECK(r && r->type == '*' && r->elements == 1 && r->element[0]->type == '_');
    it_reply_free(r);

    /* RESET goes back to RESP2. */
    r = it_conn_cmd(&c, "RESET");
    CHECK(it_reply_is(r, '+', "RESET"));
    it_reply_free(r);
    r = it_conn_cmd(&c, "GET resp3:missing");
    CHECK(r && r->type == '$' && r->is_null);
    it_reply_free(r);
    it_conn_close(&c);
}

/* ---- CLIENT ---- */

static void test_client_name_id(void)
{
    redisContext *a = it_redis(port), *b = it_redis(port);
    long long ida, idb;
    if (!a || !b) { CHECK(0); goto done; }
    ida = client_id(a);
    idb = client_id(b);
    CHECK(ida > 0 && idb > ida);
    CHECK(client_id(a) == ida);
    EXPECT_NIL(a, "CLIENT GETNAME");
    EXPECT_OK(a, "CLIENT SETNAME agent-1");
    EXPECT_STR(a, "agent-1", "CLIENT GETNAME");
    EXPECT_NIL(b, "CLIENT GETNAME");
    EXPECT_ERR(a, "ERR Client names cannot contain spaces, newlines or special characters.", "CLIENT SETNAME %s",
               "a b");
    EXPECT_ERR(a, "ERR Client names cannot contain spaces, newlines or special characters.", "CLIENT SETNAME %s",
               "a\nb");
    EXPECT_STR(a, "agent-1", "CLIENT GETNAME");
    EXPECT_OK(a, "CLIENT SETNAME %s", "");
    EXPECT_NIL(a, "CLIENT GETNAME");
    EXPECT_ERR(a, "ERR wrong number of arguments for 'client|getname' command", "CLIENT GETNAME x");
done:
    if (a)
        redisFree(a);
    if (b)
        redisFree(b);
}

static void test_client_list_info(void)
{
    redisContext *a = it_redis(port), *b = it_redis(port);
    redisReply *r;
    char want[64], field[128];
    long long ida, idb;

    if (!a || !b) { CHECK(0); goto done; }
    ida = client_id(a);
    idb = client_id(b);
    EXPECT_OK(a, "CLIENT SETNAME lister");
    EXPECT_OK(b, "SELECT 3");
    snprintf(want, sizeof(want), "id=%lld ", ida);
    CHECK(client_list_count(a, want) == 1);
    CHECK(client_list_count(a, "name=lister ") == 1);
    r = CMD_STRING(a, "CLIENT LIST ID %lld", idb);
    if (r) {
        CHECK(strncmp(r->str, "id=", 3) == 0 && r->str[r->len - 1] == '\n' && strchr(r->str, '\n') == r->str + r->len - 1);
        field_of(r->str, "id", field, sizeof(field));
        CHECK(atoll(field) == idb);
        field_of(r->str, "db", field, sizeof(field));
        CHECK(strcmp(field, "3") == 0);
        field_of(r->str, "addr", field, sizeof(field));
        CHECK(strncmp(field, "127.0.0.1:", 10) == 0);
        field_of(r->str, "cmd", field, sizeof(field));
        CHECKF(strcmp(field, "select") == 0, "cmd=%s", field);
        field_of(r->str, "resp", field, sizeof(field));
        CHECK(strcmp(field, "2") == 0);
        freeReplyObject(r);
    }
    r = CMD_STRING(a, "CLIENT LIST ID %lld %lld", ida, idb);
    if (r) {
        const char *nl = strchr(r->str, '\n');
        CHECK(nl && strchr(nl + 1, '\n') == r->str + r->len - 1);
        freeReplyObject(r);
    }
    r = CMD_STRING(a, "CLIENT INFO");
    if (r) {
        field_of(r->str, "id", field, sizeof(field));
        CHECK(atoll(field) == ida);
        field_of(r->str, "name", field, sizeof(field));
        CHECK(strcmp(field, "lister") == 0);
        field_of(r->str, "cmd", field, sizeof(field));
        CHECKF(strcmp(field, "client|info") == 0, "cmd=%s", field);
        CHECK(r->str[r->len - 1] == '\n');
        freeReplyObject(r);
    }
    r = CMD_STRING(a, "CLIENT LIST TYPE normal");
    if (r)
        freeReplyObject(r);
    EXPECT_ERR(a, "ERR Unknown client type 'foo'", "CLIENT LIST TYPE foo");
    EXPECT_ERR(a, "ERR Invalid client ID", "CLIENT LIST ID abc");
    EXPECT_ERR(a, "ERR syntax error", "CLIENT LIST FOO");
done:
    if (a)
        redisFree(a);
    if (b)
        redisFree(b);
}

static void test_client_long_name(void)
{
    redisContext *c = it_redis(port);
    char name[1501], field[2048];
    redisReply *r;

    if (!c) { CHECK(0); return; }
    memset(name, 'n', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    EXPECT_OK(c, "CLIENT SETNAME %s", name);
    EXPECT_STR(c, name, "CLIENT GETNAME");
    r = CMD_STRING(c, "CLIENT INFO");
    if (r) {
        field_of(r->str, "name", field, sizeof(field));
        CHECKF(strcmp(field, name) == 0, "name= holds %zu bytes", strlen(field));
        CHECKF(strstr(r->str, " resp=2") != NULL, "the line was cut: ...%s", r->str + (r->len > 80 ? r->len - 80 : 0));
        freeReplyObject(r);
    }
    CHECK(client_list_count(c, " resp=2") >= 1 && client_list_count(c, name) == 1);
    redisFree(c);
}

static void test_client_kill(void)
{
    redisContext *a = it_redis(port), *b = it_redis(port), *c = it_redis(port), *d = it_redis(port);
    redisReply *r;
    char addr[128] = "";
    long long idb;

    if (!a || !b || !c || !d) { CHECK(0); goto done; }
    idb = client_id(b);
    EXPECT_INT(a, 1, "CLIENT KILL ID %lld", idb);
    r = redisCommand(b, "PING");
    CHECKF(r == NULL, "a killed connection still answered");
    if (r)
        freeReplyObject(r);
    EXPECT_INT(a, 0, "CLIENT KILL ID %lld", idb);
    EXPECT_INT(a, 0, "CLIENT KILL ID 999999999");

    r = CMD_STRING(c, "CLIENT INFO");
    if (r) {
        field_of(r->str, "addr", addr, sizeof(addr));
        freeReplyObject(r);
    }
    EXPECT_INT(a, 1, "CLIENT KILL ADDR %s", addr);
    r = redisCommand(c, "PING");
    CHECK(r == NULL);
    if (r)
        freeReplyObject(r);

    r = CMD_STRING(d, "CLIENT INFO");
    if (r) {
        field_of(r->str, "addr", addr, sizeof(addr));
        freeReplyObject(r);
    }
    EXPECT_OK(a, "CLIENT KILL %s", addr);
    r = redisCommand(d, "PING");
    CHECK(r == NULL);
    if (r)
        freeReplyObject(r);

    EXPECT_ERR(a, "ERR No such client", "CLIENT KILL 1.2.3.4:5");
    EXPECT_ERR(a, "ERR client-id should be greater than 0", "CLIENT KILL ID 0");
    EXPECT_ERR(a, "ERR syntax error", "CLIENT KILL FOO bar");
    EXPECT_ERR(a, "ERR No such client", "CLIENT KILL ID");
    /* SKIPME yes (the default) spares the caller, SKIPME no does not. */
    r = CMD_STRING(a, "CLIENT INFO");
    if (r) {
        field_of(r->str, "addr", addr, sizeof(addr));
        freeReplyObject(r);
    }
    EXPECT_INT(a, 0, "CLIENT KILL ADDR %s", addr);
    EXPECT_STATUS(a, "PONG", "PING");
    EXPECT_INT(a, 1, "CLIENT KILL ADDR %s SKIPME no", addr);
    r = redisCommand(a, "PING");
    CHECK(r == NULL);
    if (r)
        freeReplyObject(r);
done:
    if (a)
        redisFree(a);
    if (b)
        redisFree(b);
    if (c)
        redisFree(c);
    if (d)
        redisFree(d);
}

static void test_client_reply(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    redisAppendCommand(c, "CLIENT REPLY OFF");
    redisAppendCommand(c, "SET rep:a 1");
    redisAppendCommand(c, "GET rep:a");
    redisAppendCommand(c, "CLIENT REPLY ON");
    redisAppendCommand(c, "GET rep:a");
    EXPECT_REPLY(next_reply(c), REDIS_REPLY_STATUS, "OK", 0);
    EXPECT_REPLY(next_reply(c), REDIS_REPLY_STRING, "1", 0);

    redisAppendCommand(c, "CLIENT REPLY SKIP");
    redisAppendCommand(c, "SET rep:b 2");
    redisAppendCommand(c, "GET rep:b");
    EXPECT_REPLY(next_reply(c), REDIS_REPLY_STRING, "2", 0);
    EXPECT_ERR(c, "ERR syntax error", "CLIENT REPLY MAYBE");
    EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);
}

/* Send the three commands on a new connection and check that the first reply
 * that comes back is `want` of type `type` (and, with want2, the second). */
static void skip_case(const char *c1, const char *c2, const char *c3, int type, const char *want, const char *want2)
{
    redisContext *c = it_redis(port);
    struct timeval tv = {2, 0};
    if (!c) { CHECK(0); return; }
    redisSetTimeout(c, tv);
    redisAppendCommand(c, c1);
    redisAppendCommand(c, c2);
    redisAppendCommand(c, c3);
    EXPECT_REPLY(next_reply(c), type, want, 0);
    if (want2)
        EXPECT_REPLY(next_reply(c), REDIS_REPLY_STRING, want2, 0);
    redisFree(c);
}

static void test_client_reply_skip_edges(void)
{
    /* The skipped reply is the next command's, even when that command is
     * refused before it runs (Redis 7.0). */
    skip_case("CLIENT REPLY SKIP", "NOSUCHCOMMAND", "ECHO after-refused", REDIS_REPLY_STRING, "after-refused", NULL);
    skip_case("CLIENT REPLY SKIP", "GET", "ECHO after-arity", REDIS_REPLY_STRING, "after-arity", NULL);
    /* CLIENT REPLY ON right after SKIP cancels the skip and answers OK. */
    skip_case("CLIENT REPLY SKIP", "CLIENT REPLY ON", "ECHO after-on", REDIS_REPLY_STATUS, "OK", "after-on");
}

/* ---- unix socket and idle timeout ---- */

static void test_unix_socket(void)
{
    char path[400];
    struct timeval tv = {5, 0};
    redisContext *c;
    redisReply *r;

    snprintf(path, sizeof(path), "%s/sp.sock", server.dir);
    c = redisConnectUnixWithTimeout(path, tv);
    if (!c || c->err) {
        CHECKF(0, "connect to %s: %s", path, c ? c->errstr : "NULL");
        if (c)
            redisFree(c);
        return;
    }
    redisSetTimeout(c, tv);
    EXPECT_STATUS(c, "PONG", "PING");
    EXPECT_OK(c, "SET unix:k v");
    EXPECT_STR(c, "v", "GET unix:k");
    r = CMD_STRING(c, "CLIENT INFO");
    if (r) {
        char flags[32];
        field_of(r->str, "flags", flags, sizeof(flags));
        CHECKF(strchr(flags, 'U') != NULL, "flags=%s", flags);
        freeReplyObject(r);
    }
    redisFree(c);
}

static void test_idle_timeout(void)
{
    int fd = it_connect(port), closed, i;
    redisContext *c = it_redis(port);
    int64_t t0 = it_now_ms();
    if (fd < 0 || !c) {
        CHECK(0);
        goto done;
    }
    /* c talks every 300 ms for 2.4 s while fd says nothing. */
    for (i = 0; i < 8; i++) {
        EXPECT_STATUS(c, "PONG", "PING");
        it_sleep_ms(300);
    }
    EXPECT_STATUS(c, "PONG", "PING");
    closed = it_read_until_close(fd, NULL, 0, NULL, 3000);
    CHECKF(closed, "an idle client stayed connected past timeout 1");
    CHECKF(it_now_ms() - t0 >= 900, "closed after only %lld ms", (long long)(it_now_ms() - t0));
done:
    if (fd >= 0)
        close(fd);
    if (c)
        redisFree(c);
}

/* ---- 200 concurrent clients ---- */

#define WORKERS 200
#define WORK_ROUNDS 100

static pthread_barrier_t barrier;

typedef struct worker {
    int id;
    int errors;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    redisContext *c = it_redis(port);
    redisReply *r;
    int j;

    if (!c) {
        w->errors++;
        pthread_barrier_wait(&barrier);
        pthread_barrier_wait(&barrier);
        return NULL;
    }
    r = redisCommand(c, "CLIENT SETNAME worker-%d", w->id);
    if (!r || r->type != REDIS_REPLY_STATUS)
        w->errors++;
    if (r)
        freeReplyObject(r);
    pthread_barrier_wait(&barrier); /* every worker is connected */
    pthread_barrier_wait(&barrier); /* the main thread has counted them */
    for (j = 0; j < WORK_ROUNDS; j++) {
        r = redisCommand(c, "INCR conc:shared");
        if (!r || r->type != REDIS_REPLY_INTEGER)
            w->errors++;
        if (r)
            freeReplyObject(r);
        r = redisCommand(c, "SET conc:%d:%d v%d-%d", w->id, j, w->id, j);
        if (r)
            freeReplyObject(r);
        r = redisCommand(c, "GET conc:%d:%d", w->id, j);
        {
            char want[32];
            snprintf(want, sizeof(want), "v%d-%d", w->id, j);
            if (!r || r->type != REDIS_REPLY_STRING || strcmp(r->str, want) != 0)
                w->errors++;
        }
        if (r)
            freeReplyObject(r);
        redisAppendCommand(c, "MULTI");
        redisAppendCommand(c, "INCR conc:own:%d", w->id);
        redisAppendCommand(c, "APPEND conc:log:%d x", w->id);
        redisAppendCommand(c, "EXEC");
        {
            int k;
            for (k = 0; k < 4; k++) {
                void *rep = NULL;
                if (redisGetReply(c, &rep) != REDIS_OK) {
                    w->errors++;
                    break;
                }
                if (k == 3) {
                    redisReply *e = rep;
                    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->integer != j + 1 ||
                        e->element[1]->integer != j + 1)
                        w->errors++;
                }
                freeReplyObject(rep);
            }
        }
    }
    redisFree(c);
    return NULL;
}

static void test_concurrent_clients(void)
{
    pthread_t th[WORKERS];
    worker ws[WORKERS];
    redisContext *c = it_redis(port);
    int i, errors = 0, started = 0, named;

    if (!c) { CHECK(0); return; }
    pthread_barrier_init(&barrier, NULL, WORKERS + 1);
    for (i = 0; i < WORKERS; i++) {
        pthread_attr_t attr;
        ws[i].id = i;
        ws[i].errors = 0;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        if (pthread_create(&th[i], &attr, worker_main, &ws[i]) == 0)
            started++;
        pthread_attr_destroy(&attr);
    }
    CHECK(started == WORKERS);
    if (started != WORKERS) {
        /* Without every thread the barrier would never open. */
        fprintf(stderr, "    could not start %d threads\n", WORKERS);
        exit(1);
    }
    pthread_barrier_wait(&barrier);
    named = client_list_count(c, "name=worker-");
    CHECKF(named == WORKERS, "%d named workers in CLIENT LIST", named);
    pthread_barrier_wait(&barrier);
    for (i = 0; i < WORKERS; i++) {
        pthread_join(th[i], NULL);
        errors += ws[i].errors;
    }
    pthread_barrier_destroy(&barrier);
    CHECKF(errors == 0, "%d errors in the workers", errors);
    EXPECT_STR(c, "20000", "GET conc:shared");
    EXPECT_STR(c, "100", "GET conc:own:199");
    EXPECT_INT(c, 100, "STRLEN conc:log:0");
    CHECK(wait_clients(c, 1));
    redisFree(c);
}

/* ---- AUTH ---- */

static void test_auth(void)
{
    redisContext *c = it_redis(port);
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_ERR(c, "NOAUTH Authentication required.", "PING");
    EXPECT_ERR(c, "NOAUTH Authentication required.", "GET auth:a");
    EXPECT_ERR(c, "NOAUTH Authentication required.", "CLIENT ID");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH wrong");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH default wrong");
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH nobody s3cret");
    EXPECT_ERR(c, "ERR syntax error", "AUTH a b c");
    EXPECT_ERR(c, "NOAUTH Authentication required.", "PING");
    EXPECT_OK(c, "AUTH s3cret");
    EXPECT_STATUS(c, "PONG", "PING");
    EXPECT_OK(c, "SET auth:a 1");
    EXPECT_STR(c, "1", "GET auth:a");
    /* RESET logs the connection out again. */
    EXPECT_STATUS(c, "RESET", "RESET");
    EXPECT_ERR(c, "NOAUTH Authentication required.", "GET auth:a");
    EXPECT_OK(c, "AUTH default s3cret");
    EXPECT_STR(c, "1", "GET auth:a");
    redisFree(c);

    c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_ERR(c, "WRONGPASS invalid username-password pair or user is disabled.", "HELLO 2 AUTH default nope");
    r = CMD_ARRAY(c, "HELLO 2 AUTH default s3cret SETNAME authed");
    if (r)
        freeReplyObject(r);
    EXPECT_STR(c, "authed", "CLIENT GETNAME");
    EXPECT_STR(c, "1", "GET auth:a");
    redisFree(c);

    c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "QUIT");
    redisFree(c);
}

static void test_auth_hello_noauth(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_ERR(c,
               "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH "
               "<user> <pass> option can be used to authenticate the client and select the RESP protocol "
               "version at the same time",
               "HELLO 3");
    redisFree(c);
}

static void test_auth_limits(void)
{
    char line[256], req[64];
    int fd = it_connect(port);
    /* Before AUTH, Redis accepts at most 10 arguments and 16 KB bulks. */
    CHECK(fd >= 0 && it_send_str(fd, "*11\r\n") == 0);
    CHECK(fd >= 0 && it_read_line(fd, line, sizeof(line), 5000) >= 0 &&
          strcmp(line, "-ERR Protocol error: unauthenticated multibulk length") == 0);
    CHECK(fd >= 0 && it_read_until_close(fd, NULL, 0, NULL, 5000) == 1);
    if (fd >= 0)
        close(fd);
    fd = it_connect(port);
    snprintf(req, sizeof(req), "*2\r\n$4\r\nAUTH\r\n$%d\r\n", 16 * 1024 + 1);
    CHECK(fd >= 0 && it_send_str(fd, req) == 0);
    CHECK(fd >= 0 && it_read_line(fd, line, sizeof(line), 5000) >= 0 &&
          strcmp(line, "-ERR Protocol error: unauthenticated bulk length") == 0);
    CHECK(fd >= 0 && it_read_until_close(fd, NULL, 0, NULL, 5000) == 1);
    if (fd >= 0)
        close(fd);
}

static void test_auth_without_password(void)
{
    redisContext *c = it_redis(port);
    if (!c) { CHECK(0); return; }
    EXPECT_ERR(c,
               "ERR AUTH <password> called without any password configured for the default user. Are you sure "
               "your configuration is correct?",
               "AUTH foo");
    EXPECT_OK(c, "AUTH default anything");
    EXPECT_STATUS(c, "PONG", "PING");
    redisFree(c);
}

/* ---- maxclients ---- */

static void test_maxclients(void)
{
    redisContext *cs[5] = {0};
    char line[256];
    int i, fd;
    int64_t end;

    cs[0] = it_redis(port);
    /* The readiness probe's connection must be gone before counting. */
    CHECK(cs[0] && wait_clients(cs[0], 1));
    for (i = 1; i < 5; i++)
        cs[i] = it_redis(port);
    for (i = 0; i < 5; i++) {
        CHECKF(cs[i] != NULL, "connection %d", i);
        if (cs[i])
            EXPECT_STATUS(cs[i], "PONG", "PING");
    }
    fd = it_connect(port);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(it_read_line(fd, line, sizeof(line), 5000) >= 0 &&
              strcmp(line, "-ERR max number of clients reached") == 0);
        CHECK(it_read_until_close(fd, NULL, 0, NULL, 5000) == 1);
        close(fd);
    }
    /* The five still work, and a freed slot can be taken again. */
    for (i = 0; i < 5; i++)
        if (cs[i])
            EXPECT_STATUS(cs[i], "PONG", "PING");
    if (cs[4]) {
        redisFree(cs[4]);
        cs[4] = NULL;
    }
    if (cs[0])
        CHECK(wait_clients(cs[0], 4));
    end = it_now_ms() + 5000;
    while (!cs[4] && it_now_ms() < end) {
        redisContext *n = it_redis(port);
        redisReply *r = n ? redisCommand(n, "PING") : NULL;
        if (r && r->type == REDIS_REPLY_STATUS)
            cs[4] = n;
        else if (n)
            redisFree(n);
        if (r)
            freeReplyObject(r);
    }
    CHECK(cs[4] != NULL);
    for (i = 0; i < 5; i++)
        if (cs[i])
            redisFree(cs[i]);
}

/* With ulimit -n 64 and maxclients 1000, Redis lowers maxclients to fit the
 * limit (64 - 32 reserved descriptors), so extra clients are refused with the
 * usual error instead of piling up unaccepted. */
static void test_low_fd_limit(void)
{
    enum { N = 100 };
    int fds[N], i, answered = 0, refused = 0, hung = 0;
    char line[256];
    long long end;

    for (i = 0; i < N; i++) {
        fds[i] = it_connect(port);
        if (fds[i] >= 0)
            it_send_str(fds[i], "*1\r\n$4\r\nPING\r\n");
    }
    /* Every connection is answered or refused within 5 s in all (on a busy
     * machine the server may take a while to come back to its listener). */
    end = it_now_ms() + 5000;
    for (i = 0; i < N; i++) {
        long long left = end - it_now_ms();
        if (fds[i] < 0 || it_read_line(fds[i], line, sizeof(line), left > 20 ? (int)left : 20) < 0)
            hung++;
        else if (strcmp(line, "+PONG") == 0)
            answered++;
        else if (strcmp(line, "-ERR max number of clients reached") == 0)
            refused++;
    }
    CHECKF(hung == 0 && answered + refused == N, "%d answered, %d refused, %d got nothing", answered, refused, hung);
    CHECK(answered >= 16);
    for (i = 0; i < N; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    it_sleep_ms(200);
    CHECK(it_ping_port(port, 2000));
    {
        struct stat st;
        CHECKF(stat(server.log, &st) == 0 && st.st_size < 64 * 1024, "the log grew to %lld bytes",
               (long long)st.st_size);
    }
}

/* ---- client-output-buffer-limit ---- */

static void test_output_limit(void)
{
    redisContext *c = it_redis(port);
    size_t vlen = 100 * 1024, total = 0, i;
    char *val = malloc(vlen), *req = NULL;
    size_t reqlen = 0;
    int fd, closed;
    redisReply *r;

    if (!c) { CHECK(0); free(val); return; }
    memset(val, 'v', vlen);
    EXPECT_OK(c, "SET obuf:big %b", val, vlen);
    /* 300 GETs of 100 KB in one write, never read: 30 MB of replies against
     * a hard limit of 1 MB. */
    req = malloc(300 * 64);
    for (i = 0; i < 300; i++)
        reqlen += (size_t)sprintf(req + reqlen, "*2\r\n$3\r\nGET\r\n$8\r\nobuf:big\r\n");
    fd = it_connect(port);
    CHECK(fd >= 0 && it_send_all(fd, req, reqlen) == 0);
    it_sleep_ms(300);
    /* The server keeps serving the others meanwhile. */
    EXPECT_STATUS(c, "PONG", "PING");
    r = CMD_STRING(c, "GET obuf:big");
    if (r) {
        CHECK((size_t)r->len == vlen && memcmp(r->str, val, vlen) == 0);
        freeReplyObject(r);
    }
    closed = fd >= 0 && it_read_until_close(fd, NULL, 0, &total, 10000);
    CHECKF(closed, "the non-reading client was not disconnected");
    CHECKF(total < 300 * vlen, "it received all %zu bytes", total);
    CHECK(it_log_contains(&server, "output buffer limits"));
    if (fd >= 0)
        close(fd);
    EXPECT_STATUS(c, "PONG", "PING");
    /* A client reading as it goes gets everything. */
    for (i = 0; i < 5; i++) {
        r = CMD_STRING(c, "GET obuf:big");
        if (r) {
            CHECK((size_t)r->len == vlen);
            freeReplyObject(r);
        }
    }
    redisFree(c);
    free(req);
    free(val);
}

static int start(const char *const *extra)
{
    if (it_server_start(&server, extra) < 0) {
        printf("not ok - the server starts with its options and answers PING\n");
        it_failed++;
        return -1;
    }
    port = server.port;
    return 0;
}

int main(void)
{
    static const char *const auth_args[] = {"--requirepass", "s3cret", NULL};
    static const char *const unix_args[] = {"--unixsocket", "sp.sock", "--timeout", "1", NULL};
    static const char *const maxc_args[] = {"--maxclients", "5", NULL};
    static const char *const lowfd_args[] = {"--maxclients", "1000", NULL};
    static const char *const obuf_args[] = {"--client-output-buffer-limit", "normal 1mb 512kb 1", NULL};

    it_init(240);
    if (start(NULL) == 0) {
        RUN(test_resp3_hello, "HELLO 3 answers a RESP3 map, HELLO 2 goes back, bad versions and options are refused");
        RUN(test_resp3_types, "after HELLO 3 nulls are '_', CLIENT INFO/LIST are verbatim strings, RESET returns to RESP2");
        RUN(test_client_name_id, "CLIENT ID is unique and stable, CLIENT SETNAME/GETNAME set, validate and clear the name");
        RUN(test_client_list_info, "CLIENT LIST and CLIENT INFO describe each connection with Redis's fields");
        RUN(test_client_long_name, "CLIENT INFO and CLIENT LIST show a 1,500-byte client name in full");
        RUN(test_client_kill, "CLIENT KILL by ID, ADDR and the old address form closes the right connections");
        RUN(test_client_reply, "CLIENT REPLY OFF, ON and SKIP silence replies as asked");
        RUN(test_client_reply_skip_edges, "CLIENT REPLY SKIP also skips a refused command's error, and ON right after it answers");
        RUN(test_concurrent_clients, "200 concurrent connections each doing 100 rounds of work all get correct answers");
        RUN(test_auth_without_password, "AUTH without a configured password is refused as Redis does, AUTH default works");
        it_server_finish(&server);
    }
    if (start(unix_args) == 0) {
        RUN(test_unix_socket, "with unixsocket, clients connect through the socket file and are flagged U");
        RUN(test_idle_timeout, "with timeout 1, an idle client is closed after a second and an active one is not");
        it_server_finish(&server);
    }
    if (start(auth_args) == 0) {
        RUN(test_auth, "with requirepass, commands get NOAUTH, wrong passwords WRONGPASS, and AUTH or HELLO AUTH log in");
        RUN(test_auth_hello_noauth, "HELLO before AUTH gets Redis 7.0's NOAUTH message");
        RUN(test_auth_limits, "before AUTH a request of 11 arguments or a 16 KB bulk is a protocol error");
        it_server_finish(&server);
    }
    if (start(maxc_args) == 0) {
        RUN(test_maxclients, "with maxclients 5 the sixth connection gets -ERR max number of clients reached");
        it_server_finish(&server);
    }
    it_child_nofile = 64;
    if (start(lowfd_args) == 0) {
        RUN(test_low_fd_limit, "with ulimit -n 64 and maxclients 1000, clients beyond the limit are refused, not left hanging");
        it_server_finish(&server);
    }
    it_child_nofile = 0;
    if (start(obuf_args) == 0) {
        RUN(test_output_limit, "a client that pipelines GETs without reading is cut at the output buffer limit, others are served");
        it_server_finish(&server);
    }
    return TEST_DONE();
}
