/* mcp_http.c -- MCP's Streamable HTTP transport (see mcp_http.h).
 *
 * Each session's messages go through its runner (mcp_run.h): answered in
 * order on the session's own connection, a tool call in a thread of its own,
 * so that a long call (a lease's wait_ms, a blocking read of the change feed:
 * up to 60 s) holds its session only, never the loop or the other sessions,
 * and can be cancelled. A POST is answered when its message is: a cancelled
 * request with an empty text/event-stream (no JSON-RPC response, as the
 * specification says), a message of a session ended meanwhile with 404.
 * Sessions live in a fixed table (MAX_SESSIONS); a new one past it is 503. A
 * session's stream (GET) is an evhttp chunked reply kept open; the connection's
 * close callback (or the next poll) forgets it, and frees it, when the client goes.
 */
#include "mcp_http.h"

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcp_proto.h"
#include "mcp_run.h"

#define MAX_SESSIONS 256
#define MAX_BODY (64 * 1024 * 1024)
#define POLL_MS 200 /* how often subscriptions look at the change feed */

typedef struct http_session {
    int used;
    char id[33];
    mcp_session s;
    mcp_run *run;                  /* the session's messages in order */
    struct evhttp_request *stream; /* the open GET (SSE) stream, or NULL */
} http_session;

struct mcp_http {
    struct event_base *base;
    struct evhttp *http;
    struct event *poll; /* subscriptions' timer */
    const spc_options *o;
    int db;
    const char *fixed_ns;
    json_t *tools;
    http_session sessions[MAX_SESSIONS];
};

static http_session *find_session(mcp_http *h, const char *id)
{
    for (int i = 0; id && i < MAX_SESSIONS; i++)
        if (h->sessions[i].used && strcmp(h->sessions[i].id, id) == 0)
            return &h->sessions[i];
    return NULL;
}

static int random_id(char out[33])
{
    unsigned char b[16];
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f)
        return -1;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n != sizeof b)
        return -1;
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

static void reply_json(struct evhttp_request *req, int status, const char *reason, json_t *body);

/* A message of a POST (tag) is answered: reply, 202 for none, an empty event stream when cancelled. */
static void on_done(void *tag, json_t *reply, mcp_run_end how, void *arg)
{
    struct evhttp_request *req = tag;
    (void)arg;
    if (how == MCP_RUN_GONE) {
        json_decref(reply);
        reply_json(req, 404, "Not Found", mcp_error_reply(-32600, "Session not found"));
    } else if (reply) {
        reply_json(req, 200, "OK", reply);
    } else if (how == MCP_RUN_CANCELLED) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "text/event-stream");
        evhttp_send_reply(req, 200, "OK", NULL);
    } else {
        reply_json(req, 202, "Accepted", NULL);
    }
}

static http_session *new_session(mcp_http *h)
{
    for (int i = 0; i < MAX_SESSIONS; i++) {
        http_session *hs = &h->sessions[i];
        if (hs->used)
            continue;
        char ns[300];
        if (random_id(hs->id) < 0)
            return NULL;
        snprintf(ns, sizeof ns, "mcp:%s", hs->id);
        if (mcp_session_open(&hs->s, h->o, h->db, h->fixed_ns ? h->fixed_ns : ns, h->tools) < 0)
            return NULL;
        hs->run = mcp_run_new(h->base, &hs->s, on_done, NULL);
        if (!hs->run) {
            mcp_session_close(&hs->s);
            return NULL;
        }
        hs->used = 1;
        return hs;
    }
    return NULL;
}

static void end_stream(http_session *hs)
{
    if (!hs->stream)
        return;
    evhttp_connection_set_closecb(evhttp_request_get_connection(hs->stream), NULL, NULL);
    evhttp_send_reply_end(hs->stream);
    hs->stream = NULL;
}

/* A stream whose client went away: libevent detaches the request (its
 * connection becomes NULL) and leaves it to us, as the reply was not finished;
 * when the connection is freed with the request still on it, it frees it. */
static void forget_stream(http_session *hs)
{
    if (hs->stream && !evhttp_request_get_connection(hs->stream))
        evhttp_request_free(hs->stream);
    hs->stream = NULL;
}

static void on_stream_closed(struct evhttp_connection *conn, void *arg)
{
    (void)conn;
    forget_stream(arg);
}

/* GET: the session's stream of server-sent messages (text/event-stream), one at a time. */
static void open_stream(struct evhttp_request *req, http_session *hs)
{
    if (hs->stream) {
        evhttp_send_reply(req, 409, "Conflict", NULL);
        return;
    }
    struct evkeyvalq *out = evhttp_request_get_output_headers(req);
    evhttp_add_header(out, "Content-Type", "text/event-stream");
    evhttp_add_header(out, "Cache-Control", "no-cache");
    evhttp_send_reply_start(req, 200, "OK");
    hs->stream = req;
    evhttp_connection_set_closecb(evhttp_request_get_connection(req), on_stream_closed, hs);
}

static void on_poll(evutil_socket_t fd, short what, void *arg)
{
    mcp_http *h = arg;
    (void)fd;
    (void)what;
    for (int i = 0; i < MAX_SESSIONS; i++) {
        http_session *hs = &h->sessions[i];
        if (hs->used && hs->stream && !evhttp_request_get_connection(hs->stream))
            forget_stream(hs);
        if (!hs->used || !hs->stream || mcp_run_busy(hs->run))
            continue;
        json_t *notes = mcp_poll(&hs->s), *m;
        size_t k;
        json_array_foreach(notes, k, m)
        {
            char *text = json_dumps(m, JSON_COMPACT | JSON_ENSURE_ASCII);
            struct evbuffer *b = evbuffer_new();
            if (text && b) {
                evbuffer_add_printf(b, "event: message\ndata: %s\n\n", text);
                evhttp_send_reply_chunk(hs->stream, b);
            }
            if (b)
                evbuffer_free(b);
            free(text);
        }
        json_decref(notes);
    }
}

static void end_session(http_session *hs)
{
    end_stream(hs);
    mcp_run *run = hs->run;
    hs->run = NULL;
    mcp_run_free(run);
    mcp_session_close(&hs->s);
    memset(hs, 0, sizeof *hs);
}

/* Send status with a JSON body (NULL: none); body is consumed. */
static void reply_json(struct evhttp_request *req, int status, const char *reason, json_t *body)
{
    struct evbuffer *out = evbuffer_new();
    if (body) {
        char *text = json_dumps(body, JSON_COMPACT | JSON_ENSURE_ASCII);
        json_decref(body);
        if (text) {
            evbuffer_add(out, text, strlen(text));
            free(text);
        }
        evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json");
    }
    evhttp_send_reply(req, status, reason, out);
    evbuffer_free(out);
}

/* An Origin header, when present, must name a loopback host. */
static int origin_ok(const char *origin)
{
    if (!origin)
        return 1;
    const char *p = strstr(origin, "://");
    p = p ? p + 3 : origin;
    static const char *const ok[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        size_t n = strlen(ok[i]);
        if (strncasecmp(p, ok[i], n) == 0 && (p[n] == '\0' || p[n] == ':' || p[n] == '/'))
            return 1;
    }
    return 0;
}

static int version_ok(const char *v)
{
    for (int i = 0; v && mcp_versions[i]; i++)
        if (strcmp(v, mcp_versions[i]) == 0)
            return 1;
    return v == NULL;
}

static void on_post(mcp_http *h, struct evhttp_request *req, const char *sid)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t len = evbuffer_get_length(in);
    json_error_t err;
    json_t *msg = json_loadb((const char *)evbuffer_pullup(in, -1), len, JSON_DECODE_ANY, &err);
    if (!msg) {
        reply_json(req, 400, "Bad Request", mcp_error_reply(-32700, "Parse error"));
        return;
    }
    http_session *hs = NULL;
    json_t *method = json_object_get(msg, "method");
    int initialize = mcp_is_request(msg) && json_is_string(method) &&
                     strcmp(json_string_value(method), "initialize") == 0;
    if (initialize) {
        hs = new_session(h);
        if (!hs) {
            json_decref(msg);
            reply_json(req, 503, "Service Unavailable", mcp_error_reply(-32603, "no session available"));
            return;
        }
        evhttp_add_header(evhttp_request_get_output_headers(req), "Mcp-Session-Id", hs->id);
    } else if (!sid) {
        json_decref(msg);
        reply_json(req, 400, "Bad Request", mcp_error_reply(-32600, "Bad Request: Mcp-Session-Id header required"));
        return;
    } else if (!(hs = find_session(h, sid))) {
        json_decref(msg);
        reply_json(req, 404, "Not Found", mcp_error_reply(-32600, "Session not found"));
        return;
    }
    if (mcp_run_submit(hs->run, msg, req) < 0)
        reply_json(req, 503, "Service Unavailable", mcp_error_reply(-32603, "out of memory"));
    json_decref(msg);
}

static void on_request(struct evhttp_request *req, void *arg)
{
    mcp_http *h = arg;
    struct evkeyvalq *hdr = evhttp_request_get_input_headers(req);
    const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
    const char *sid = evhttp_find_header(hdr, "Mcp-Session-Id");
    if (!path || strcmp(path, "/mcp") != 0) {
        reply_json(req, 404, "Not Found", NULL);
        return;
    }
    if (!origin_ok(evhttp_find_header(hdr, "Origin"))) {
        reply_json(req, 403, "Forbidden", mcp_error_reply(-32600, "Forbidden origin"));
        return;
    }
    if (!version_ok(evhttp_find_header(hdr, "MCP-Protocol-Version"))) {
        reply_json(req, 400, "Bad Request", mcp_error_reply(-32600, "Unsupported MCP-Protocol-Version"));
        return;
    }
    switch (evhttp_request_get_command(req)) {
    case EVHTTP_REQ_POST:
        on_post(h, req, sid);
        return;
    case EVHTTP_REQ_DELETE: {
        http_session *hs = sid ? find_session(h, sid) : NULL;
        if (!hs) {
            reply_json(req, sid ? 404 : 400, sid ? "Not Found" : "Bad Request", NULL);
            return;
        }
        end_session(hs);
        reply_json(req, 200, "OK", NULL);
        return;
    }
    case EVHTTP_REQ_GET: {
        const char *accept = evhttp_find_header(hdr, "Accept");
        http_session *hs = sid ? find_session(h, sid) : NULL;
        if (!accept || !strstr(accept, "text/event-stream"))
            reply_json(req, 406, "Not Acceptable", NULL);
        else if (!hs)
            reply_json(req, sid ? 404 : 400, sid ? "Not Found" : "Bad Request", NULL);
        else
            open_stream(req, hs);
        return;
    }
    default:
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, POST, DELETE");
        reply_json(req, 405, "Method Not Allowed", NULL);
        return;
    }
}

mcp_http *mcp_http_start(struct event_base *base, const char *addr, int port, const spc_options *o, int db,
                         const char *fixed_ns, json_t *tools)
{
    mcp_http *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->base = base;
    h->o = o;
    h->db = db;
    h->fixed_ns = fixed_ns;
    h->tools = tools;
    h->http = evhttp_new(base);
    if (!h->http || evhttp_bind_socket(h->http, addr, (ev_uint16_t)port) != 0) {
        mcp_http_free(h);
        return NULL;
    }
    evhttp_set_max_body_size(h->http, MAX_BODY);
    evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_DELETE | EVHTTP_REQ_PUT |
                                            EVHTTP_REQ_HEAD | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_PATCH);
    evhttp_set_gencb(h->http, on_request, h);
    struct timeval every = {0, POLL_MS * 1000};
    h->poll = event_new(base, -1, EV_PERSIST, on_poll, h);
    if (!h->poll || event_add(h->poll, &every) < 0) {
        mcp_http_free(h);
        return NULL;
    }
    return h;
}

void mcp_http_free(mcp_http *h)
{
    if (!h)
        return;
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (h->sessions[i].used)
            end_session(&h->sessions[i]);
    if (h->poll)
        event_free(h->poll);
    if (h->http)
        evhttp_free(h->http);
    free(h);
}
