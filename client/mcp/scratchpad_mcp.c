/* scratchpad_mcp.c -- scratchpad-mcp: the scratchpad as a Model Context Protocol server.
 *
 * What desktop and CLI agent harnesses launch to give a model a scratchpad:
 * MCP over stdio (JSON-RPC 2.0, one message a line on stdin and stdout,
 * nothing else on stdout; diagnostics go to stderr). It serves the tools of
 * client/tools.c (tools/list, tools/call) in one namespace per process: the
 * one given by --namespace, else "mcp:<unix seconds>:<pid>", so a model can
 * never name another agent's scratchpad. Lifecycle as the specification says:
 * initialize (the protocol version the client asks for if this server speaks
 * it, else the latest it speaks), notifications/initialized, ping; unknown
 * methods are -32601, bad parameters -32602, unparsable lines -32700 (and the
 * session goes on). A tool that fails (bad arguments, a server error, the
 * server down) is a result with isError true and the reason as text.
 *
 * Also the generator of the tool files: --print-tools anthropic|openai|mcp|table
 * writes that form of the table to stdout (make tools-json).
 */
#include <errno.h>
#include <hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scratchpad.h"
#include "tools.h"

#define SERVER_NAME "scratchpad-mcp"
#define SERVER_VERSION "0.1.0"

static const char *const versions[] = {"2025-06-18", "2025-03-26", "2024-11-05", NULL};

static void usage(FILE *f)
{
    fprintf(f, "usage: scratchpad-mcp [--url redis://[:password@]host:port[/db]] [--namespace ns]\n"
               "       scratchpad-mcp --print-tools anthropic|openai|mcp|table\n"
               "The URL defaults to $SCRATCHPAD_URL, else redis://127.0.0.1:6379/0.\n"
               "The namespace defaults to $SCRATCHPAD_NAMESPACE, else mcp:<unix seconds>:<pid>.\n");
}

/* Parse redis://[[user]:password@]host[:port][/db] into o and *db. Strings
 * point into buf (a copy of url the caller keeps). Returns 0 or -1. */
static int parse_url(char *buf, spc_options *o, int *db)
{
    char *p = buf;
    if (strncmp(p, "redis://", 8) != 0)
        return -1;
    p += 8;
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

static void send_msg(json_t *msg)
{
    char *s = json_dumps(msg, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        free(s);
    }
    json_decref(msg);
}

static void send_result(json_t *id, json_t *result)
{
    send_msg(json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result));
}

static void send_error(json_t *id, int code, const char *message)
{
    send_msg(json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", "code", code,
                       "message", message));
}

typedef struct session {
    spc_ctx *c;
    const char *ns;
    int db;
    json_t *tools; /* the mcp form of the table */
} session;

static json_t *initialize_result(json_t *params)
{
    const char *asked = NULL, *chosen = versions[0];
    json_unpack(params, "{s?s}", "protocolVersion", &asked);
    for (int i = 0; asked && versions[i]; i++)
        if (strcmp(asked, versions[i]) == 0)
            chosen = versions[i];
    return json_pack("{s:s,s:{s:{s:b}},s:{s:s,s:s},s:s}", "protocolVersion", chosen, "capabilities", "tools",
                     "listChanged", 0, "serverInfo", "name", SERVER_NAME, "version", SERVER_VERSION, "instructions",
                     "A scratchpad: durable working memory that outlives the context window. Call "
                     "scratchpad_list first in every session; save plans, findings, constraints and decisions "
                     "with scratchpad_write; read large entries by windows.");
}

static void call_tool(session *s, json_t *id, json_t *params)
{
    const char *name = NULL;
    json_t *args = NULL;
    if (!json_is_object(params) || json_unpack(params, "{s:s,s?o}", "name", &name, "arguments", &args) < 0) {
        send_error(id, -32602, "tools/call needs params {name, arguments}");
        return;
    }
    if (!spt_find(name)) {
        char msg[400];
        snprintf(msg, sizeof msg, "Unknown tool: %.300s", name);
        send_error(id, -32602, msg);
        return;
    }
    int is_error = 1;
    spt_ensure_connected(s->c, s->db); /* a failure is the call's tool error */
    char *text = spt_call(s->c, s->ns, name, args, &is_error);
    if (!text) {
        send_error(id, -32603, "out of memory");
        return;
    }
    json_t *t = json_string(text);
    if (!t) /* not UTF-8: never expected (binary is described or base64), but never send invalid JSON */
        t = json_string("the reply is not valid UTF-8");
    free(text);
    send_result(id, json_pack("{s:[{s:s,s:o}],s:b}", "content", "type", "text", "text", t, "isError", is_error));
}

/* Handle one parsed message. */
static void handle(session *s, json_t *msg)
{
    json_t *id = json_object_get(msg, "id");
    const char *method = NULL;
    json_t *params = json_object_get(msg, "params");
    if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "method"))) {
        if (json_is_object(msg) && !json_object_get(msg, "method") &&
            (json_object_get(msg, "result") || json_object_get(msg, "error")))
            return; /* a response to a request of ours: we send none */
        send_error(json_is_object(msg) ? id : NULL, -32600, "Invalid Request");
        return;
    }
    method = json_string_value(json_object_get(msg, "method"));
    if (!id) /* notifications (initialized, cancelled, ...): nothing to answer */
        return;
    if (!json_is_string(id) && !json_is_integer(id)) {
        send_error(NULL, -32600, "Invalid Request: id must be a string or an integer");
        return;
    }
    if (strcmp(method, "initialize") == 0)
        send_result(id, initialize_result(params));
    else if (strcmp(method, "ping") == 0)
        send_result(id, json_object());
    else if (strcmp(method, "tools/list") == 0)
        send_result(id, json_pack("{s:O}", "tools", s->tools));
    else if (strcmp(method, "tools/call") == 0)
        call_tool(s, id, params);
    else {
        char m[400];
        snprintf(m, sizeof m, "Method not found: %.300s", method);
        send_error(id, -32601, m);
    }
}

static int print_tools(const char *form)
{
    json_t *d = spt_definitions(form);
    if (!d) {
        usage(stderr);
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

int main(int argc, char **argv)
{
    const char *url = getenv("SCRATCHPAD_URL"), *ns = getenv("SCRATCHPAD_NAMESPACE");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--print-tools") == 0 && i + 1 < argc)
            return print_tools(argv[++i]);
        else if (strcmp(argv[i], "--url") == 0 && i + 1 < argc)
            url = argv[++i];
        else if (strcmp(argv[i], "--namespace") == 0 && i + 1 < argc)
            ns = argv[++i];
        else {
            usage(strcmp(argv[i], "--help") == 0 ? stdout : stderr);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    char urlbuf[1024], nsbuf[64];
    spc_options o = {0};
    session s = {0};
    snprintf(urlbuf, sizeof urlbuf, "%s", url && *url ? url : "redis://127.0.0.1:6379/0");
    if (parse_url(urlbuf, &o, &s.db) < 0) {
        fprintf(stderr, "scratchpad-mcp: bad URL '%s' (redis://[:password@]host:port[/db])\n", url);
        return 2;
    }
    if (!ns || !*ns) {
        snprintf(nsbuf, sizeof nsbuf, "mcp:%lld:%d", (long long)time(NULL), (int)getpid());
        ns = nsbuf;
    }
    s.ns = ns;
    o.connect_timeout_ms = 5000;
    s.c = spc_connect_with(&o);
    if (!s.c)
        return 1;
    if (!spc_err(s.c) && s.db) {
        redisReply *r = redisCommand(spc_redis(s.c), "SELECT %d", s.db);
        if (!r || r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "scratchpad-mcp: SELECT %d failed\n", s.db);
            if (r)
                freeReplyObject(r);
            spc_free(s.c);
            return 1;
        }
        freeReplyObject(r);
    }
    if (spc_err(s.c))
        fprintf(stderr, "scratchpad-mcp: %s (tools will report it until the server is up)\n", spc_errstr(s.c));
    s.tools = spt_definitions("mcp");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        json_error_t err;
        json_t *msg = json_loadb(line, (size_t)n, JSON_DECODE_ANY, &err);
        if (!msg) {
            send_error(NULL, -32700, "Parse error");
            continue;
        }
        if (json_is_array(msg))
            send_error(NULL, -32600, "Invalid Request: batches are not supported");
        else
            handle(&s, msg);
        json_decref(msg);
    }
    free(line);
    json_decref(s.tools);
    spc_free(s.c);
    return 0;
}
