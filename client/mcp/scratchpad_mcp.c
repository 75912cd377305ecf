/* scratchpad_mcp.c -- scratchpad-mcp: the scratchpad as a Model Context Protocol server.
 *
 * What desktop and CLI agent harnesses launch to give a model a scratchpad:
 * MCP over stdio (JSON-RPC 2.0, one message a line on stdin and stdout,
 * nothing else on stdout; diagnostics go to stderr; a line that does not
 * parse gets -32700 and the session goes on), or over Streamable HTTP with
 * --http addr:port (mcp_http.c). The methods are mcp_proto.c's. Over stdio the
 * process is one session, in the namespace given by --namespace, else
 * "mcp:<unix seconds>:<pid>"; over HTTP each session has its own (see
 * mcp_http.h). No tool takes a namespace: a model can never name another
 * agent's scratchpad.
 *
 * Also the generator of the tool files: --print-tools anthropic|openai|mcp|table
 * writes that form of the table to stdout (make tools-json).
 *
 * --tools (or $SCRATCHPAD_TOOLS) offers a part of the table: a comma-separated
 * list of tool names, "scratchpad_" optional. Every definition a model is shown
 * costs context (the whole table is about 35 KB of JSON), so a harness that
 * needs only reading and writing offers only those; tools/call refuses a tool
 * left out as unknown, and --print-tools prints the same part.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "mcp_http.h"
#include "mcp_proto.h"
#include "mcp_run.h"
#include "scratchpad.h"
#include "tools.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: scratchpad-mcp [--url redis[s]://[[user]:password@]host:port[/db]] [--namespace ns]\n"
        "                      [--http addr:port] [--cacert file] [--cert file --key file] [--sni name] [--insecure]\n"
        "                      [--tools name,name,...]\n"
        "       scratchpad-mcp --print-tools anthropic|openai|mcp|table [--tools name,name,...]\n"
        "The URL defaults to $SCRATCHPAD_URL, else redis://127.0.0.1:6379/0. rediss:// connects with TLS:\n"
        "--cacert the CAs to check the server with (default: the system's), --cert/--key a client\n"
        "certificate, --sni the name the server's certificate must show (default: the host).\n"
        "The namespace defaults to $SCRATCHPAD_NAMESPACE, else mcp:<unix seconds>:<pid>.\n"
        "--tools (default $SCRATCHPAD_TOOLS, else every tool) offers only the tools named, with or\n"
        "without their scratchpad_ prefix, e.g. --tools read,write,list,grep.\n");
}

/* Parse redis[s]://[[user]:password@]host[:port][/db] into o and *db (rediss:
 * o->tls). Strings point into buf (a copy of url the caller keeps). Returns 0
 * or -1. */
static void on_signal(evutil_socket_t sig, short what, void *base)
{
    (void)sig;
    (void)what;
    event_base_loopbreak(base);
}

static int parse_url(char *buf, spc_options *o, int *db)
{
    char *p = buf;
    if (strncmp(p, "rediss://", 9) == 0) {
        o->tls = 1;
        p += 9;
    } else if (strncmp(p, "redis://", 8) == 0) {
        p += 8;
    } else {
        return -1;
    }
    char *at = strrchr(p, '@');
    if (at) {
        *at = '\0';
        char *colon = strchr(p, ':');
        if (colon) {
            *colon = '\0';
            if (*p)
                o->username = p;
            o->password = colon + 1;
        } else {
            o->password = p;
        }
        p = at + 1;
    }
    char *slash = strchr(p, '/');
    if (slash) {
        *slash = '\0';
        if (slash[1]) {
            char *end;
            long n = strtol(slash + 1, &end, 10);
            if (*end || n < 0)
                return -1;
            *db = (int)n;
        }
    }
    char *colon = strrchr(p, ':');
    if (colon) {
        *colon = '\0';
        char *end;
        long n = strtol(colon + 1, &end, 10);
        if (*end || n <= 0 || n > 65535)
            return -1;
        o->port = (int)n;
    }
    if (*p)
        o->host = p;
    return 0;
}

/* The name of definition t in any form (openai's is under "function"). */
static const char *def_name(json_t *t)
{
    json_t *f = json_object_get(t, "function");
    return json_string_value(json_object_get(f ? f : t, "name"));
}

/* Keep in d (an array of definitions) only the tools that list names
 * (comma-separated, "scratchpad_" optional), in the table's order. Returns 0,
 * or -1 after saying on stderr which name is no tool (or that none is left). */
static int select_tools(json_t *d, const char *list)
{
    json_t *keep = json_array();
    char buf[4096], *save = NULL, *tok;
    int rc = -1;
    size_t i;
    json_t *t;

    if (!keep)
        return -1;
    snprintf(buf, sizeof buf, "%s", list);
    for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        char full[256];
        int found = 0;
        snprintf(full, sizeof full, "%s%s", strncmp(tok, "scratchpad_", 11) == 0 ? "" : "scratchpad_", tok);
        json_array_foreach(d, i, t)
        {
            const char *n = def_name(t);
            if (n && strcmp(n, full) == 0) {
                found = 1;
                json_object_set_new(t, "x-selected", json_true());
            }
        }
        if (!found) {
            fprintf(stderr, "scratchpad-mcp: --tools: no tool named '%s'; the tools are:", tok);
            json_array_foreach(d, i, t)
            {
                fprintf(stderr, " %s", def_name(t) + 11);
            }
            fputc('\n', stderr);
            goto done;
        }
    }
    json_array_foreach(d, i, t)
    {
        if (json_object_get(t, "x-selected")) {
            json_object_del(t, "x-selected");
            json_array_append(keep, t);
        }
    }
    if (json_array_size(keep) == 0) {
        fprintf(stderr, "scratchpad-mcp: --tools names no tool\n");
        goto done;
    }
    json_array_clear(d);
    json_array_extend(d, keep);
    rc = 0;
done:
    json_decref(keep);
    return rc;
}

static int print_tools(const char *form, const char *list)
{
    json_t *d = spt_definitions(form);
    if (!d) {
        usage(stderr);
        return 2;
    }
    if (list && *list && select_tools(d, list) < 0) {
        json_decref(d);
        return 2;
    }
    char *s = json_dumps(d, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(d);
    if (!s)
        return 1;
    puts(s);
    free(s);
    return 0;
}

#define POLL_MS 200 /* how often subscriptions look at the change feed */

static void write_msg(json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (text) {
        fputs(text, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        free(text);
    }
}

static void handle_line(mcp_session *s, char *line, size_t n)
{
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (n == 0)
        return;
    json_error_t err;
    json_t *msg = json_loadb(line, n, JSON_DECODE_ANY, &err);
    json_t *reply = msg ? mcp_handle(s, msg) : mcp_error_reply(-32700, "Parse error");
    json_decref(msg);
    if (reply)
        write_msg(reply);
    json_decref(reply);
}

typedef struct stdio_loop {
    mcp_session *s;
    mcp_run *run; /* the session's messages: tool calls in a thread, cancellable */
    struct event_base *base;
    struct evbuffer *in;
    struct event *rd;
    int eof; /* the input ended: stop once everything is answered */
} stdio_loop;

static void on_done(void *tag, json_t *reply, mcp_run_end how, void *arg)
{
    stdio_loop *l = arg;
    (void)tag;
    (void)how;
    if (reply)
        write_msg(reply);
    json_decref(reply);
    if (l->eof && !mcp_run_busy(l->run))
        event_base_loopbreak(l->base);
}

/* A line of the event loop: parsed and given to the runner (a parse error answered here). */
static void submit_line(stdio_loop *l, char *line, size_t n)
{
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (n == 0)
        return;
    json_error_t err;
    json_t *msg = json_loadb(line, n, JSON_DECODE_ANY, &err);
    if (!msg || mcp_run_submit(l->run, msg, NULL) < 0) {
        json_t *reply = mcp_error_reply(msg ? -32603 : -32700, msg ? "out of memory" : "Parse error");
        write_msg(reply);
        json_decref(reply);
    }
    json_decref(msg);
}

static void on_stdin(evutil_socket_t fd, short what, void *arg)
{
    stdio_loop *l = arg;
    (void)what;
    int n = evbuffer_read(l->in, fd, 65536);
    char *line;
    size_t len;
    while ((line = evbuffer_readln(l->in, &len, EVBUFFER_EOL_LF)) != NULL) {
        submit_line(l, line, len);
        free(line);
    }
    if (n <= 0) { /* end of input (or an error): a last line without its newline, then stop when answered */
        len = evbuffer_get_length(l->in);
        if (len && (line = malloc(len + 1)) != NULL) {
            evbuffer_remove(l->in, line, len);
            line[len] = '\0';
            submit_line(l, line, len);
            free(line);
        }
        event_del(l->rd);
        l->eof = 1;
        if (!mcp_run_busy(l->run))
            event_base_loopbreak(l->base);
    }
}

static void on_poll(evutil_socket_t fd, short what, void *arg)
{
    stdio_loop *l = arg;
    (void)fd;
    (void)what;
    if (mcp_run_busy(l->run))
        return; /* the connection is the running call's */
    json_t *notes = mcp_poll(l->s);
    size_t i;
    json_t *m;
    json_array_foreach(notes, i, m)
    {
        write_msg(m);
    }
    json_decref(notes);
}

/* Serve MCP over stdio until the end of input (and every message answered):
 * in an event loop (stdin, the runner's calls, and a timer for subscriptions), or, when stdin cannot be polled (a regular file),
 * line by line without subscriptions' notifications. */
static int serve_stdio(const spc_options *o, int db, const char *ns, json_t *tools)
{
    char nsbuf[64];
    mcp_session s;
    if (!ns || !*ns) {
        snprintf(nsbuf, sizeof nsbuf, "mcp:%lld:%d", (long long)time(NULL), (int)getpid());
        ns = nsbuf;
    }
    if (mcp_session_open(&s, o, db, ns, tools) < 0) {
        fprintf(stderr, "scratchpad-mcp: cannot open the session (SELECT %d refused?)\n", db);
        return 1;
    }
    if (spc_err(s.c))
        fprintf(stderr, "scratchpad-mcp: %s (tools will report it until the server is up)\n", spc_errstr(s.c));
    stdio_loop l = {.s = &s, .base = event_base_new(), .in = evbuffer_new()};
    struct event *rd = l.base ? event_new(l.base, 0, EV_READ | EV_PERSIST, on_stdin, &l) : NULL;
    struct event *tm = l.base ? event_new(l.base, -1, EV_PERSIST, on_poll, &l) : NULL;
    l.rd = rd;
    l.run = l.base ? mcp_run_new(l.base, &s, on_done, &l) : NULL;
    struct timeval every = {0, POLL_MS * 1000};
    struct stat st;
    int pollable = fstat(0, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
    if (pollable && rd && tm && l.in && l.run && event_add(rd, NULL) == 0 && event_add(tm, &every) == 0) {
        event_base_dispatch(l.base);
    } else {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, stdin)) >= 0)
            handle_line(&s, line, (size_t)n);
        free(line);
    }
    mcp_run_free(l.run);
    if (tm)
        event_free(tm);
    if (rd)
        event_free(rd);
    if (l.in)
        evbuffer_free(l.in);
    if (l.base)
        event_base_free(l.base);
    mcp_session_close(&s);
    return 0;
}

/* Serve MCP over Streamable HTTP on listen ("addr:port") until SIGINT/SIGTERM. */
static int serve_http(const char *listen, const spc_options *o, int db, const char *ns, json_t *tools)
{
    char addr[256];
    snprintf(addr, sizeof addr, "%s", listen);
    char *colon = strrchr(addr, ':');
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || *end || port < 0 || port > 65535) {
        fprintf(stderr, "scratchpad-mcp: --http wants addr:port, e.g. 127.0.0.1:8765\n");
        return 2;
    }
    *colon = '\0';
    int rc = 1;
    struct event_base *base = event_base_new();
    struct event *sigint = NULL, *sigterm = NULL;
    mcp_http *h = base ? mcp_http_start(base, addr, (int)port, o, db, ns && *ns ? ns : NULL, tools) : NULL;
    if (!h) {
        fprintf(stderr, "scratchpad-mcp: cannot listen on %s: %s\n", listen, strerror(errno));
        goto done;
    }
    sigint = evsignal_new(base, SIGINT, on_signal, base);
    sigterm = evsignal_new(base, SIGTERM, on_signal, base);
    if (!sigint || !sigterm || evsignal_add(sigint, NULL) < 0 || evsignal_add(sigterm, NULL) < 0)
        goto done;
    fprintf(stderr, "scratchpad-mcp: MCP over HTTP at http://%s/mcp\n", listen);
    event_base_dispatch(base);
    rc = 0;
done:
    if (sigterm)
        event_free(sigterm);
    if (sigint)
        event_free(sigint);
    mcp_http_free(h);
    if (base)
        event_base_free(base);
    return rc;
}

int main(int argc, char **argv)
{
    const char *url = getenv("SCRATCHPAD_URL"), *ns = getenv("SCRATCHPAD_NAMESPACE"), *http = NULL;
    const char *list = getenv("SCRATCHPAD_TOOLS"), *print = NULL;
    const char *cacert = NULL, *cert = NULL, *key = NULL, *sni = NULL;
    int insecure = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--print-tools") == 0 && i + 1 < argc)
            print = argv[++i];
        else if (strcmp(argv[i], "--tools") == 0 && i + 1 < argc)
            list = argv[++i];
        else if (strcmp(argv[i], "--url") == 0 && i + 1 < argc)
            url = argv[++i];
        else if (strcmp(argv[i], "--namespace") == 0 && i + 1 < argc)
            ns = argv[++i];
        else if (strcmp(argv[i], "--http") == 0 && i + 1 < argc)
            http = argv[++i];
        else if (strcmp(argv[i], "--cacert") == 0 && i + 1 < argc)
            cacert = argv[++i];
        else if (strcmp(argv[i], "--cert") == 0 && i + 1 < argc)
            cert = argv[++i];
        else if (strcmp(argv[i], "--key") == 0 && i + 1 < argc)
            key = argv[++i];
        else if (strcmp(argv[i], "--sni") == 0 && i + 1 < argc)
            sni = argv[++i];
        else if (strcmp(argv[i], "--insecure") == 0)
            insecure = 1;
        else {
            usage(strcmp(argv[i], "--help") == 0 ? stdout : stderr);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (print)
        return print_tools(print, list);
    char urlbuf[1024];
    spc_options o = {0};
    int db = 0;
    snprintf(urlbuf, sizeof urlbuf, "%s", url && *url ? url : "redis://127.0.0.1:6379/0");
    if (parse_url(urlbuf, &o, &db) < 0) {
        fprintf(stderr, "scratchpad-mcp: bad URL '%s' (redis[s]://[[user]:password@]host:port[/db])\n", url);
        return 2;
    }
    o.tls_ca_file = cacert;
    o.tls_cert_file = cert;
    o.tls_key_file = key;
    o.tls_server_name = sni;
    o.tls_insecure = insecure;
    o.connect_timeout_ms = 5000;
    signal(SIGPIPE, SIG_IGN); /* a peer gone (a cancelled call's connection, a client) is an error, not an end */
    json_t *tools = spt_definitions("mcp");
    if (!tools)
        return 1;
    if (list && *list && select_tools(tools, list) < 0) {
        json_decref(tools);
        return 2;
    }
    int rc = http ? serve_http(http, &o, db, ns, tools) : serve_stdio(&o, db, ns, tools);
    json_decref(tools);
    return rc;
}
