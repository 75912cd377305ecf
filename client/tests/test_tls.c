/* test_tls.c -- libscratchpad over TLS against scratchpad-server's tls-port.
 *
 * Certificates come from tests/lib/tlscerts.py (openssl: a CA, a server
 * certificate for 127.0.0.1 and localhost, a client certificate, one from a CA
 * nobody trusts), made in a temporary directory. The server requires client
 * certificates (tls-auth-clients yes, the default). Cases: the sync API with
 * a client certificate (writes, a 3 MB entry, a batch of 500 commands), a
 * client without a certificate or with the wrong CA refused with a message,
 * the server's name checked, a reconnection after the server restarts, the
 * async API refusing TLS, and hiredis on the raw context (spc_redis: what the
 * tools and the MCP server call) working over the relay. */
#include <event2/event.h>
#include <hiredis/hiredis.h>
#include <sys/stat.h>

#include "itest.h"
#include "scratchpad.h"

static it_server srv;
static int tls_port;
static char certs[256];

static void path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", certs, name);
}

/* Start srv with a TLS port (tls_port) and the test's server certificate,
 * key and CA: 0, or -1 if it does not answer. */
static int start_tls_server(void)
{
    static char crt[320], key[320], ca[320], portbuf[16];
    const char *extra[] = {"--tls-port", portbuf, "--tls-cert-file", crt, "--tls-key-file", key, "--tls-ca-cert-file",
                           ca,           NULL};

    path(crt, sizeof(crt), "server.crt");
    path(key, sizeof(key), "server.key");
    path(ca, sizeof(ca), "ca.crt");
    snprintf(portbuf, sizeof(portbuf), "%d", tls_port);
    return it_server_start(&srv, extra);
}

static spc_ctx *connect_tls(const char *cert, const char *key, const char *ca, const char *server_name)
{
    char ca_p[320], cert_p[320], key_p[320];
    spc_options o;

    memset(&o, 0, sizeof(o));
    o.port = tls_port;
    o.connect_timeout_ms = 5000;
    o.timeout_ms = 10000;
    o.tls = 1;
    path(ca_p, sizeof(ca_p), ca);
    o.tls_ca_file = ca_p;
    if (cert) {
        path(cert_p, sizeof(cert_p), cert);
        path(key_p, sizeof(key_p), key);
        o.tls_cert_file = cert_p;
        o.tls_key_file = key_p;
    }
    o.tls_server_name = server_name;
    return spc_connect_with(&o);
}

static void t_sync(void)
{
    spc_ctx *c = connect_tls("client.crt", "client.key", "ca.crt", NULL);
    spc_content *out = NULL;
    uint64_t v = 0;
    size_t big = 3u << 20, i;
    char *data = malloc(big);

    CHECK(c && spc_err(c) == SP_OK);
    CHECK(data != NULL);
    if (!c || !data || spc_err(c) != SP_OK) {
        fprintf(stderr, "    %s\n", c ? spc_errstr(c) : "no context");
        spc_free(c);
        free(data);
        return;
    }
    CHECK(spc_ping(c) == SP_OK);
    CHECK(sp_write(c, "tls-ns", "plan", "over tls", 8, NULL, &v) == SP_OK && v == 1);
    CHECK(sp_read(c, "tls-ns", "plan", NULL, &out) == SP_OK && out && out->len == 8 &&
          !memcmp(out->data, "over tls", 8));
    spc_content_free(out);
    for (i = 0; i < big; i++)
        data[i] = (char)('a' + (i * 7 + i / 4096) % 26);
    CHECK(sp_write(c, "tls-ns", "big", data, big, NULL, &v) == SP_OK);
    out = NULL;
    CHECK(sp_read(c, "tls-ns", "big", NULL, &out) == SP_OK && out && out->len == big && !memcmp(out->data, data, big));
    spc_content_free(out);
    CHECK(spc_batch_begin(c) == SP_OK);
    for (i = 0; i < 500; i++) {
        char name[32];
        snprintf(name, sizeof(name), "e%zu", i);
        sp_write(c, "tls-batch", name, "x", 1, NULL, NULL);
    }
    {
        static int status[500];
        CHECKF(spc_batch_exec(c, status, 500) == SP_OK, "%s", spc_errstr(c));
        for (i = 0; i < 500; i++)
            CHECK(status[i] == SP_OK);
    }
    free(data);
    spc_free(c);
}

static void t_refused(void)
{
    spc_ctx *c = connect_tls(NULL, NULL, "ca.crt", NULL);
    int st;

    /* TLSv1.3: the server's refusal of a missing certificate arrives after the
     * client's handshake is done, at the first read. */
    st = c ? (spc_err(c) != SP_OK ? spc_err(c) : spc_ping(c)) : SP_ERR_OOM;
    CHECKF(st == SP_ERR_IO, "got %s", spc_status_name(st));
    spc_free(c);
    c = connect_tls("rogue.crt", "rogue.key", "ca.crt", NULL);
    st = c ? (spc_err(c) != SP_OK ? spc_err(c) : spc_ping(c)) : SP_ERR_OOM;
    CHECKF(st == SP_ERR_IO, "got %s", spc_status_name(st));
    spc_free(c);
}

static void t_server_checked(void)
{
    spc_ctx *c = connect_tls("client.crt", "client.key", "rogueca.crt", NULL);

    CHECK(c && spc_err(c) == SP_ERR_IO);
    CHECKF(c && strstr(spc_errstr(c), "certificate verify failed"), "%s", c ? spc_errstr(c) : "");
    spc_free(c);
    c = connect_tls("client.crt", "client.key", "ca.crt", "elsewhere.example");
    CHECK(c && spc_err(c) == SP_ERR_IO);
    spc_free(c);
    c = connect_tls("client.crt", "client.key", "ca.crt", "localhost");
    CHECKF(c && spc_err(c) == SP_OK && spc_ping(c) == SP_OK, "%s", c ? spc_errstr(c) : "");
    spc_free(c);
}

static void t_raw_hiredis(void)
{
    spc_ctx *c = connect_tls("client.crt", "client.key", "ca.crt", NULL);
    redisReply *r;

    CHECK(c && spc_err(c) == SP_OK);
    if (!c || !spc_redis(c)) {
        spc_free(c);
        return;
    }
    r = redisCommand(spc_redis(c), "SET %s %s", "raw-k", "raw-v");
    CHECK(r && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "OK") == 0);
    if (r)
        freeReplyObject(r);
    r = redisCommand(spc_redis(c), "GET %s", "raw-k");
    CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, "raw-v") == 0);
    if (r)
        freeReplyObject(r);
    spc_free(c);
}

static void t_restart(void)
{
    spc_ctx *c = connect_tls("client.crt", "client.key", "ca.crt", NULL);

    CHECK(c && spc_ping(c) == SP_OK);
    it_server_stop(&srv);
    CHECK(spc_ping(c) == SP_ERR_IO);
    CHECK(start_tls_server() == 0);
    CHECKF(spc_reconnect(c) == SP_OK && spc_ping(c) == SP_OK, "%s", spc_errstr(c));
    spc_free(c);
}

static void on_connect(spc_async *ac, int status, const char *errstr, void *privdata)
{
    (void)ac;
    *(int *)privdata = status == SP_OK ? 1 : 2;
    if (status != SP_OK && !strstr(errstr, "TLS"))
        fprintf(stderr, "    unexpected message: %s\n", errstr);
}

static void t_async_refuses(void)
{
    struct event_base *base = event_base_new();
    spc_options o;
    int done = 0;
    int64_t end = it_now_ms() + 5000;

    memset(&o, 0, sizeof(o));
    o.port = tls_port;
    o.tls = 1;
    CHECK(spc_async_connect(base, &o, on_connect, NULL, &done) != NULL);
    while (!done && it_now_ms() < end)
        event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
    CHECKF(done == 2, "done=%d", done);
    event_base_free(base);
}

int main(void)
{
    char cmd[600];
    const char *top = getenv("TOP");

    it_init(120);
    snprintf(certs, sizeof(certs), "/tmp/sp-tls-client-%d", (int)getpid());
    mkdir(certs, 0700);
    snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/tests/lib/tlscerts.py %s", top && *top ? top : ".", certs);
    if (system(cmd) != 0) {
        printf("not ok - the test certificates are made\n");
        return 1;
    }
    tls_port = it_free_port();
    if (start_tls_server() < 0) {
        printf("not ok - the test server starts with a TLS port\n");
        return 1;
    }
    RUN(t_sync, "the sync API over TLS with a client certificate: write, read, a 3 MB entry, a batch of 500");
    RUN(t_refused, "a client without a certificate, or with one from another CA, gets SP_ERR_IO");
    RUN(t_server_checked, "the server's certificate is checked against tls_ca_file and tls_server_name");
    RUN(t_raw_hiredis, "hiredis calls on spc_redis's context go over TLS too");
    RUN(t_async_refuses, "the async API reports that TLS is for the sync API only");
    RUN(t_restart, "spc_reconnect makes a new TLS connection after the server restarts");
    it_server_finish(&srv);
    it_rm_tree(certs);
    return TEST_DONE();
}
