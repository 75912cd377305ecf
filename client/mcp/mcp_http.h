/* mcp_http.h -- MCP's Streamable HTTP transport for scratchpad-mcp, on libevent's evhttp.
 *
 * One endpoint, /mcp. POST carries one JSON-RPC message; a request is answered
 * with application/json when its answer is ready (a notification or a response
 * with 202 and no body; a request cancelled by notifications/cancelled with an
 * empty text/event-stream). Sessions run their tool calls in threads of their
 * own (mcp_run.h), so a long call holds only its session.
 * An initialize request opens a session: the reply carries its Mcp-Session-Id
 * (32 random hex digits), which every later request must send (400 without it,
 * 404 for one unknown or ended); DELETE ends it. GET (with Accept:
 * text/event-stream, else 406) opens the session's stream of server-sent
 * messages, one at a time (409 for a second): the notifications/resources/
 * updated of its subscriptions, checked every 200 ms. A request whose Origin
 * is not a loopback address is 403 (DNS rebinding), an unsupported
 * MCP-Protocol-Version 400. Each session has its own connection and its own
 * namespace: the fixed one when given, else "mcp:<session id>".
 */
#ifndef MCP_HTTP_H
#define MCP_HTTP_H

#include <event2/event.h>
#include <jansson.h>

#include "scratchpad.h"

typedef struct mcp_http mcp_http;

/* Listen on addr:port (port 0: any). o (connection options) and fixed_ns
 * (NULL: one namespace per session) must outlive the server; tools borrowed.
 * Returns NULL when binding fails (errno says why) or out of memory. */
mcp_http *mcp_http_start(struct event_base *base, const char *addr, int port, const spc_options *o, int db,
                         const char *fixed_ns, json_t *tools);

/* Stop listening, end every session, free h. NULL does nothing. */
void mcp_http_free(mcp_http *h);

#endif
