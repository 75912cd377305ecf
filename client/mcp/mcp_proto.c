/* mcp_proto.c -- the MCP methods scratchpad-mcp answers, on one session.
 *
 * Lifecycle as the specification says: initialize (the protocol version the
 * client asks for if this server speaks it, else the latest it speaks),
 * notifications/initialized, ping; tools/list and tools/call from the table
 * of client/tools.c; the entries as resources scratchpad://<ns, percent-
 * encoded>/<name> (list with pages, one template, read: text, or a base64 blob
 * for binary; subscribe: notifications/resources/updated from the change
 * feed, see mcp_poll); one prompt, scratchpad_guidance (when to reach for the
 * scratchpad). Unknown methods are -32601, bad parameters -32602, a missing
 * resource -32002. A tool that fails (bad arguments, a server error, the
 * server down) is a result with isError true and the reason as text.
 */
#include "mcp_proto.h"

#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tools.h"

#define SERVER_NAME "scratchpad-mcp"
#define SERVER_VERSION "0.1.0"

const char *const mcp_versions[] = {"2025-06-18", "2025-03-26", "2024-11-05", NULL};

/* The reply of the message being handled: kept on the session for mcp_handle to return. */
static void send_msg(mcp_session *s, json_t *msg)
{
    json_decref(s->reply);
    s->reply = msg;
}

static void send_result(mcp_session *s, json_t *id, json_t *result)
{
    send_msg(s, json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result));
}

static void send_error(mcp_session *s, json_t *id, int code, const char *message)
{
    send_msg(s, json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", "code", code,
                          "message", message));
}

static json_t *initialize_result(json_t *params)
{
    const char *asked = NULL, *chosen = mcp_versions[0];
    json_unpack(params, "{s?s}", "protocolVersion", &asked);
    for (int i = 0; asked && mcp_versions[i]; i++)
        if (strcmp(asked, mcp_versions[i]) == 0)
            chosen = mcp_versions[i];
    return json_pack("{s:s,s:{s:{s:b},s:{s:b,s:b},s:{s:b}},s:{s:s,s:s},s:s}", "protocolVersion", chosen, "capabilities",
                     "tools", "listChanged", 0, "resources", "subscribe", 1, "listChanged", 0, "prompts", "listChanged",
                     0, "serverInfo", "name", SERVER_NAME, "version", SERVER_VERSION, "instructions",
                     "A scratchpad: durable working memory that outlives the context window. Call "
                     "scratchpad_list first in every session; save plans, findings, constraints and decisions "
                     "with scratchpad_write; read large entries by windows.");
}

/* ---------------------------------------------------- resources and prompts */

/* The URI prefix of this session's entries: "scratchpad://<ns, percent-encoded>/". */
static void uri_prefix(const mcp_session *s, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "scratchpad://");
    for (const unsigned char *p = (const unsigned char *)s->ns; *p && k + 4 < n; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("-._~", *p))
            out[k++] = (char)*p;
        else
            k += (size_t)snprintf(out + k, n - k, "%%%02X", *p);
    }
    snprintf(out + k, n - k, "/");
}

/* A reply's field in a flat key/value array. */
static const redisReply *field(const redisReply *r, const char *key)
{
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2)
        if (r->element[i]->str && strcmp(r->element[i]->str, key) == 0)
            return r->element[i + 1];
    return NULL;
}

/* resources/list: the entries, 200 a page; MCP's cursor is SP.LIST's. */
static void list_resources(mcp_session *s, json_t *id, json_t *params)
{
    const char *cursor = "0";
    char prefix[600];
    json_unpack(params, "{s?s}", "cursor", &cursor);
    if (spt_ensure_connected(s->c, s->db) < 0) {
        send_error(s, id, -32603, spc_errstr(s->c));
        return;
    }
    redisReply *r = redisCommand(spc_redis(s->c), "SP.LIST %s WITHMETA CURSOR %s COUNT 200", s->ns, cursor);
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
        send_error(s, id, r && r->type == REDIS_REPLY_ERROR ? -32602 : -32603,
                   r && r->str ? r->str : "the scratchpad server is unavailable");
        if (r)
            freeReplyObject(r);
        return;
    }
    uri_prefix(s, prefix, sizeof prefix);
    json_t *list = json_array();
    for (size_t i = 0; i < r->element[1]->elements; i++) {
        const redisReply *e = r->element[1]->element[i], *nm = field(e, "name"), *kind = field(e, "kind");
        const redisReply *size = field(e, "size");
        if (!nm || !nm->str)
            continue;
        char uri[1024];
        snprintf(uri, sizeof uri, "%s%s", prefix, nm->str);
        int binary = kind && kind->str && strcmp(kind->str, "binary") == 0;
        json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:I}", "uri", uri, "name", nm->str, "mimeType",
                                              binary ? "application/octet-stream" : "text/plain", "size",
                                              (json_int_t)(size ? size->integer : 0)));
    }
    json_t *res = json_pack("{s:o}", "resources", list);
    if (strcmp(r->element[0]->str, "0") != 0)
        json_object_set_new(res, "nextCursor", json_string(r->element[0]->str));
    freeReplyObject(r);
    send_result(s, id, res);
}

static void list_templates(mcp_session *s, json_t *id)
{
    char prefix[600], tmpl[700];
    uri_prefix(s, prefix, sizeof prefix);
    snprintf(tmpl, sizeof tmpl, "%s{name}", prefix);
    send_result(s, id,
                json_pack("{s:[{s:s,s:s,s:s}]}", "resourceTemplates", "uriTemplate", tmpl, "name", "scratchpad entry",
                          "description", "An entry of this session's scratchpad, by name (e.g. plan, findings/db)."));
}

/* resources/read: the whole entry (text, or a base64 blob for binary). */
static void read_resource(mcp_session *s, json_t *id, json_t *params)
{
    const char *uri = NULL;
    char prefix[600];
    if (json_unpack(params, "{s:s}", "uri", &uri) < 0) {
        send_error(s, id, -32602, "resources/read needs params {uri}");
        return;
    }
    uri_prefix(s, prefix, sizeof prefix);
    size_t pl = strlen(prefix);
    if (strncmp(uri, prefix, pl) != 0 || !uri[pl]) {
        send_error(s, id, -32002, "Resource not found");
        return;
    }
    if (spt_ensure_connected(s->c, s->db) < 0) {
        send_error(s, id, -32603, spc_errstr(s->c));
        return;
    }
    redisReply *r = redisCommand(spc_redis(s->c), "SP.READ %s %s WITHMETA", s->ns, uri + pl);
    if (!r || r->type == REDIS_REPLY_NIL || r->type == REDIS_REPLY_ERROR || r->type != REDIS_REPLY_ARRAY) {
        int missing = r && (r->type == REDIS_REPLY_NIL || r->type == REDIS_REPLY_ERROR);
        send_error(s, id, missing ? -32002 : -32603,
                   missing ? "Resource not found" : "the scratchpad server is unavailable");
        if (r)
            freeReplyObject(r);
        return;
    }
    const redisReply *c = r->element[0], *kind = field(r->element[1], "kind");
    json_t *item = json_pack("{s:s}", "uri", uri);
    if (kind && kind->str && strcmp(kind->str, "binary") == 0) {
        json_object_set_new(item, "mimeType", json_string("application/octet-stream"));
        char *b64 = malloc(c->len / 3 * 4 + 8);
        static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        size_t k = 0;
        for (size_t i = 0; b64 && i < c->len; i += 3) {
            const unsigned char *u = (const unsigned char *)c->str;
            unsigned x = (unsigned)u[i] << 16 | (i + 1 < c->len ? (unsigned)u[i + 1] << 8 : 0) |
                         (i + 2 < c->len ? u[i + 2] : 0);
            b64[k++] = t[x >> 18 & 63];
            b64[k++] = t[x >> 12 & 63];
            b64[k++] = i + 1 < c->len ? t[x >> 6 & 63] : '=';
            b64[k++] = i + 2 < c->len ? t[x & 63] : '=';
        }
        if (b64) {
            b64[k] = '\0';
            json_object_set_new(item, "blob", json_string(b64));
            free(b64);
        }
    } else {
        json_object_set_new(item, "mimeType", json_string("text/plain"));
        json_object_set_new(item, "text", json_stringn(c->str, c->len));
    }
    freeReplyObject(r);
    send_result(s, id, json_pack("{s:[o]}", "contents", item));
}

#define GUIDANCE                                                                                               \
    "You have a scratchpad: durable working memory that outlives your context window, shared with nobody "     \
    "else unless your harness says so. Use it:\n"                                                              \
    "- At the start of every session or task, call scratchpad_list and read what is relevant (your plan, "     \
    "findings, constraints, decisions): an earlier turn may have done the work already.\n"                     \
    "- Before a multi-step task, write your plan (one step per line, [ ] checkboxes) and tick steps with "     \
    "scratchpad_edit as you go.\n"                                                                             \
    "- After an expensive tool call (a search, a long file, a test run), save what you learned as a finding, " \
    "in a few lines, so that you never redo it.\n"                                                             \
    "- Save the user's constraints and your decisions with their reasons.\n"                                   \
    "- Large outputs are stored for you as <tool>_<n>: read them by windows (scratchpad_read offset/limit, "   \
    "scratchpad_view, scratchpad_grep), never whole.\n"                                                        \
    "- Before a risky change or a cycle of edits, take a scratchpad_snapshot; afterwards scratchpad_diff "     \
    "shows what you changed, and scratchpad_revert (one entry) or scratchpad_restore (everything) undoes "     \
    "it.\n"                                                                                                    \
    "- Keep entries small and named like paths: plan, findings/<topic>, decisions/<topic>, constraints."

static void list_prompts(mcp_session *s, json_t *id)
{
    send_result(s, id,
                json_pack("{s:[{s:s,s:s}]}", "prompts", "name", "scratchpad_guidance", "description",
                          "When and how to use the scratchpad (add it to the system prompt)."));
}

static void get_prompt(mcp_session *s, json_t *id, json_t *params)
{
    const char *name = NULL;
    if (json_unpack(params, "{s:s}", "name", &name) < 0 || strcmp(name, "scratchpad_guidance") != 0) {
        send_error(s, id, -32602, "Unknown prompt (the one prompt is scratchpad_guidance)");
        return;
    }
    send_result(s, id,
                json_pack("{s:s,s:[{s:s,s:{s:s,s:s}}]}", "description", "When and how to use the scratchpad",
                          "messages", "role", "user", "content", "type", "text", "text", GUIDANCE));
}

/* The feed's latest change number; -1 when the server cannot be asked. */
static long long feed_last(mcp_session *s)
{
    if (spt_ensure_connected(s->c, s->db) < 0)
        return -1;
    redisReply *r = redisCommand(spc_redis(s->c), "SP.CHANGES %s SINCE 0 COUNT 1", s->ns);
    const redisReply *last = field(r, "last");
    long long n = last && last->type == REDIS_REPLY_INTEGER ? last->integer : -1;
    if (r)
        freeReplyObject(r);
    return n;
}

/* resources/subscribe and resources/unsubscribe {uri}: an entry of this session's namespace. */
static void subscribe(mcp_session *s, json_t *id, json_t *params, int on)
{
    const char *uri = NULL;
    char prefix[600];
    if (json_unpack(params, "{s:s}", "uri", &uri) < 0) {
        send_error(s, id, -32602, "needs params {uri}");
        return;
    }
    uri_prefix(s, prefix, sizeof prefix);
    if (strncmp(uri, prefix, strlen(prefix)) != 0 || !uri[strlen(prefix)]) {
        send_error(s, id, -32002, "Resource not found");
        return;
    }
    if (on && (!s->subs || json_object_size(s->subs) == 0)) {
        long long last = feed_last(s);
        if (last < 0) {
            send_error(s, id, -32603, "the scratchpad server is unavailable");
            return;
        }
        s->feed_since = last;
    }
    if (on) {
        if (!s->subs)
            s->subs = json_object();
        json_object_set_new(s->subs, uri, json_true());
    } else if (s->subs) {
        json_object_del(s->subs, uri);
    }
    send_result(s, id, json_object());
}

static json_t *updated(const char *uri)
{
    return json_pack("{s:s,s:s,s:{s:s}}", "jsonrpc", "2.0", "method", "notifications/resources/updated", "params",
                     "uri", uri);
}

json_t *mcp_poll(mcp_session *s)
{
    if (!s->subs || json_object_size(s->subs) == 0 || spt_ensure_connected(s->c, s->db) < 0)
        return NULL;
    redisReply *r = redisCommand(spc_redis(s->c), "SP.CHANGES %s SINCE %lld COUNT 1000", s->ns, s->feed_since);
    if (!r || r->type != REDIS_REPLY_ARRAY) {
        if (r)
            freeReplyObject(r);
        return NULL;
    }
    json_t *out = json_array(), *seen = json_object();
    const redisReply *gap = field(r, "gap"), *last = field(r, "last"), *ch = field(r, "changes");
    const char *uri;
    json_t *v;
    if (gap && gap->integer) {
        json_object_foreach(s->subs, uri, v)
        {
            json_array_append_new(out, updated(uri));
        }
        s->feed_since = last ? last->integer : 0;
    }
    char prefix[600], full[1024];
    uri_prefix(s, prefix, sizeof prefix);
    for (size_t i = 0; ch && !(gap && gap->integer) && i < ch->elements; i++) {
        const redisReply *c = ch->element[i];
        if (c->type != REDIS_REPLY_ARRAY || c->elements < 4)
            continue;
        s->feed_since = c->element[0]->integer;
        snprintf(full, sizeof full, "%s%s", prefix, c->element[3]->str ? c->element[3]->str : "");
        if (json_object_get(s->subs, full) && !json_object_get(seen, full)) {
            json_object_set_new(seen, full, json_true());
            json_array_append_new(out, updated(full));
        }
    }
    freeReplyObject(r);
    json_decref(seen);
    if (json_array_size(out) == 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

/* Whether the session's tools/list has the tool named name (scratchpad-mcp
 * --tools may offer a part of the table: a tool left out is unknown here too). */
static int offered(const mcp_session *s, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(s->tools, i, t)
    {
        const char *n = json_string_value(json_object_get(t, "name"));
        if (n && strcmp(n, name) == 0)
            return 1;
    }
    return 0;
}

static void call_tool(mcp_session *s, json_t *id, json_t *params)
{
    const char *name = NULL;
    json_t *args = NULL;
    if (!json_is_object(params) || json_unpack(params, "{s:s,s?o}", "name", &name, "arguments", &args) < 0) {
        send_error(s, id, -32602, "tools/call needs params {name, arguments}");
        return;
    }
    if (!spt_find(name) || !offered(s, name)) {
        char msg[400];
        snprintf(msg, sizeof msg, "Unknown tool: %.300s", name);
        send_error(s, id, -32602, msg);
        return;
    }
    int is_error = 1;
    spt_ensure_connected(s->c, s->db); /* a failure is the call's tool error */
    pthread_mutex_lock(&s->lock);
    const redisContext *rc = spc_redis(s->c);
    int stop = s->cancelled;
    s->call_fd = !stop && rc ? rc->fd : -1; /* stays open until the call returns: only this thread closes it */
    pthread_mutex_unlock(&s->lock);
    if (stop) {
        send_error(s, id, -32800, "Request cancelled"); /* dropped by the runner: a cancelled call gets no reply */
        return;
    }
    char *text = spt_call(s->c, s->ns, name, args, &is_error);
    pthread_mutex_lock(&s->lock);
    s->call_fd = -1;
    pthread_mutex_unlock(&s->lock);
    if (!text) {
        send_error(s, id, -32603, "out of memory");
        return;
    }
    json_t *t = json_string(text);
    if (!t) /* not UTF-8: never expected (binary is described or base64), but never send invalid JSON */
        t = json_string("the reply is not valid UTF-8");
    free(text);
    send_result(s, id, json_pack("{s:[{s:s,s:o}],s:b}", "content", "type", "text", "text", t, "isError", is_error));
}

static void handle(mcp_session *s, json_t *msg)
{
    json_t *id = json_object_get(msg, "id");
    const char *method = NULL;
    json_t *params = json_object_get(msg, "params");
    if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "method"))) {
        if (json_is_object(msg) && !json_object_get(msg, "method") &&
            (json_object_get(msg, "result") || json_object_get(msg, "error")))
            return; /* a response to a request of ours: we send none */
        send_error(s, json_is_object(msg) ? id : NULL, -32600, "Invalid Request");
        return;
    }
    method = json_string_value(json_object_get(msg, "method"));
    if (!id) /* notifications (initialized, cancelled, ...): nothing to answer */
        return;
    if (!json_is_string(id) && !json_is_integer(id)) {
        send_error(s, NULL, -32600, "Invalid Request: id must be a string or an integer");
        return;
    }
    if (strcmp(method, "initialize") == 0)
        send_result(s, id, initialize_result(params));
    else if (strcmp(method, "ping") == 0)
        send_result(s, id, json_object());
    else if (strcmp(method, "tools/list") == 0)
        send_result(s, id, json_pack("{s:O}", "tools", s->tools));
    else if (strcmp(method, "tools/call") == 0)
        call_tool(s, id, params);
    else if (strcmp(method, "resources/list") == 0)
        list_resources(s, id, params);
    else if (strcmp(method, "resources/templates/list") == 0)
        list_templates(s, id);
    else if (strcmp(method, "resources/subscribe") == 0)
        subscribe(s, id, params, 1);
    else if (strcmp(method, "resources/unsubscribe") == 0)
        subscribe(s, id, params, 0);
    else if (strcmp(method, "resources/read") == 0)
        read_resource(s, id, params);
    else if (strcmp(method, "prompts/list") == 0)
        list_prompts(s, id);
    else if (strcmp(method, "prompts/get") == 0)
        get_prompt(s, id, params);
    else {
        char m[400];
        snprintf(m, sizeof m, "Method not found: %.300s", method);
        send_error(s, id, -32601, m);
    }
}

json_t *mcp_handle(mcp_session *s, json_t *msg)
{
    s->reply = NULL;
    if (json_is_array(msg))
        send_error(s, NULL, -32600, "Invalid Request: batches are not supported");
    else
        handle(s, msg);
    json_t *r = s->reply;
    s->reply = NULL;
    return r;
}

json_t *mcp_error_reply(int code, const char *message)
{
    return json_pack("{s:s,s:n,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", "error", "code", code, "message", message);
}

int mcp_is_request(json_t *msg)
{
    return json_is_object(msg) && json_is_string(json_object_get(msg, "method")) && json_object_get(msg, "id");
}

int mcp_session_open(mcp_session *s, const spc_options *o, int db, const char *ns, json_t *tools)
{
    memset(s, 0, sizeof *s);
    snprintf(s->ns, sizeof s->ns, "%s", ns);
    s->db = db;
    s->tools = tools;
    s->call_fd = -1;
    s->c = spc_connect_with(o);
    if (!s->c)
        return -1;
    if (!spc_err(s->c) && db) {
        redisReply *r = redisCommand(spc_redis(s->c), "SELECT %d", db);
        int ok = r && r->type == REDIS_REPLY_STATUS;
        if (r)
            freeReplyObject(r);
        if (!ok) {
            spc_free(s->c);
            s->c = NULL;
            return -1;
        }
    }
    pthread_mutex_init(&s->lock, NULL);
    return 0;
}

void mcp_session_cancel(mcp_session *s)
{
    pthread_mutex_lock(&s->lock);
    s->cancelled = 1;
    if (s->call_fd >= 0)
        shutdown(s->call_fd, SHUT_RDWR);
    pthread_mutex_unlock(&s->lock);
}

void mcp_session_arm(mcp_session *s)
{
    pthread_mutex_lock(&s->lock);
    s->cancelled = 0;
    pthread_mutex_unlock(&s->lock);
}

void mcp_session_close(mcp_session *s)
{
    if (s->c)
        pthread_mutex_destroy(&s->lock);
    spc_free(s->c);
    s->c = NULL;
    json_decref(s->reply);
    s->reply = NULL;
    json_decref(s->subs);
    s->subs = NULL;
}
