/* mcp_proto.h -- the Model Context Protocol's messages, whatever carries them.
 *
 * One MCP session (an mcp_session: its namespace and its connection to the
 * scratchpad server) and mcp_handle, which takes one JSON-RPC message and
 * gives back the reply to send, or NULL when there is none (a notification, a
 * response). The transports (stdio in scratchpad_mcp.c, Streamable HTTP in
 * mcp_http.c) only move bytes and sessions.
 */
#ifndef MCP_PROTO_H
#define MCP_PROTO_H

#include <jansson.h>
#include <pthread.h>

#include "scratchpad.h"

typedef struct mcp_session {
    spc_ctx *c;           /* the session's connection; owned */
    char ns[256];         /* the namespace every tool uses */
    int db;               /* SELECTed on every (re)connection when not 0 */
    json_t *tools;        /* the mcp form of the table; borrowed */
    json_t *reply;        /* internal: the reply being built */
    json_t *subs;         /* resources/subscribe: an object of the URIs subscribed to (NULL: none) */
    long long feed_since; /* the last change of the feed seen for subscriptions */
    pthread_mutex_t lock; /* guards the two fields below, which another thread may touch */
    int call_fd;          /* the socket of the tool call running now, or -1 */
    int cancelled;        /* the running (or next) tool call is cancelled: do not start it, or stop it */
} mcp_session;

/* Open session s: connect with o (and SELECT db when not 0), namespace ns
 * (copied), tools borrowed. Returns 0, also when the server is down (tool
 * calls then say so, and reconnect); -1 when out of memory or the SELECT was
 * refused (nothing to close then). */
int mcp_session_open(mcp_session *s, const spc_options *o, int db, const char *ns, json_t *tools);

/* Close the session's connection. */
void mcp_session_close(mcp_session *s);

/* From any thread: cancel the tool call that s runs (or is about to run) in
 * another thread. A call that has not sent its command yet does not send it;
 * one waiting for its reply returns at once (its socket is shut down; the
 * next call reconnects). mcp_session_arm undoes it before the next call. */
void mcp_session_cancel(mcp_session *s);
void mcp_session_arm(mcp_session *s);

/* The protocol revisions spoken, newest first, NULL-terminated. */
extern const char *const mcp_versions[];

/* Handle one message (any JSON value: an object that is not a valid request
 * gets -32600). Returns a new reference to the reply (json_decref it), or NULL
 * when nothing is to be answered. */
json_t *mcp_handle(mcp_session *s, json_t *msg);

/* For subscriptions: read the scratchpad's change feed since the last poll
 * and return a new array of notifications/resources/updated messages (one
 * per subscribed entry that changed; every subscribed entry after a gap in the
 * feed), or NULL when there is nothing to send. Cheap (one command) and only
 * when something is subscribed: the transports call it on a timer. */
json_t *mcp_poll(mcp_session *s);

/* A JSON-RPC error reply with a null id (for a body that does not parse). New reference. */
json_t *mcp_error_reply(int code, const char *message);

/* 1 when json is a request (it has a method and an id), so that a transport
 * knows whether a reply will come. */
int mcp_is_request(json_t *msg);

#endif
