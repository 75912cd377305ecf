/* mcp_run.h -- one MCP session's requests, in order, with tool calls off the event loop.
 *
 * Why: a tool call is a blocking command on the session's own connection (a
 * lease's wait_ms, a blocking read of the change feed: up to 60 s). Run in the
 * event loop it would hold every other session (HTTP) and make the call
 * impossible to cancel (the loop would not read notifications/cancelled). So a
 * runner hands each tools/call to a thread of its own and goes on; the thread
 * tells the loop through a pipe when it is done.
 *
 * Contract, per session: messages are answered in the order they came, one
 * at a time on the session (its connection is not shared), except that while
 * a call runs, "ping" is answered at once and notifications/cancelled is acted
 * on at once: the request it names (by requestId) is dropped if still queued,
 * or, if running, stopped by shutting its connection down (the blocked command
 * returns at once; the next call reconnects). A cancelled request gets no
 * response, as the specification says; the transport is told (reply NULL,
 * cancelled 1) so that it can end an HTTP request. Other sessions are never
 * held: each has its own runner and thread.
 *
 * Errors: mcp_run_submit returns 0, or -1 when out of memory (the message
 * was not taken).
 */
#ifndef MCP_RUN_H
#define MCP_RUN_H

#include <event2/event.h>
#include <jansson.h>

#include "mcp_proto.h"

/* How a message ended: answered (reply, or NULL for a notification),
 * cancelled by the client (no reply), or gone (the runner was freed first). */
typedef enum mcp_run_end { MCP_RUN_ANSWERED, MCP_RUN_CANCELLED, MCP_RUN_GONE } mcp_run_end;

/* Called in the loop once for every message submitted, with the tag it was
 * submitted with; reply is a new reference the callee owns, or NULL. */
typedef void (*mcp_run_done)(void *tag, json_t *reply, mcp_run_end how, void *arg);

typedef struct mcp_run mcp_run;

/* A runner for session s (borrowed; must outlive it) on base. NULL when out of memory. */
mcp_run *mcp_run_new(struct event_base *base, mcp_session *s, mcp_run_done done, void *arg);

/* Take msg (a reference is taken: the caller keeps its own) with tag. done
 * may be called before this returns (a message answered at once). */
int mcp_run_submit(mcp_run *r, json_t *msg, void *tag);

/* 1 while a call runs or messages wait: the session's connection is in use
 * (the subscriptions' poll must wait). */
int mcp_run_busy(const mcp_run *r);

/* Stop the running call (its connection shut down), wait for its thread,
 * tell done about every message not answered (MCP_RUN_GONE), free r. NULL does nothing. */
void mcp_run_free(mcp_run *r);

#endif
