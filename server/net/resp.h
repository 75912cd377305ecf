/* resp.h -- the RESP request parser: multibulk and inline, resumable, no I/O.
 *
 * Why our own: hiredis parses replies, not requests. This parser does no I/O and
 * allocates nothing: it reads the bytes the connection has buffered and reports
 * "one request parsed (and how many bytes it used) / need more bytes / protocol
 * error", so it can be fed a stream split at any byte and tested that way.
 *
 * Resumable: when a request is incomplete, the parser keeps its position in the
 * resp_parser, so the next call does not re-scan what it already parsed (a 100 MB
 * bulk argument arriving in 16 KB reads is scanned once). Between calls for the
 * same request the caller may move or grow its buffer, but the bytes of the
 * request must stay the same and start at buf[0]: arguments are reported as
 * offsets from buf.
 *
 * Arguments are not copied: each is an (offset, length) into buf, and the byte
 * after each argument belongs to the request, so the caller may overwrite it
 * (with a NUL terminator) without touching another argument. Multibulk
 * arguments are the bytes as sent. Inline arguments are unquoted and unescaped in
 * place (an unescaped argument is never longer than its source), so buf is
 * written to for inline requests only.
 *
 * Limits (from the caller, per call): max_bulk (proto-max-bulk-len), max_args (the
 * largest multibulk count accepted), and the fixed 64 KB for an inline line or a
 * count line. Lengths from the client are checked against the limits before
 * anything is trusted. Error texts are Redis 7's (without "ERR Protocol error: ").
 *
 * Returns: RESP_OK with *consumed set and p->argc arguments in p->args;
 * RESP_INCOMPLETE (call again with more bytes; p->need is a lower bound of the
 * total bytes buf must hold for progress); RESP_NEED_ARGS (p->args must be grown
 * to hold at least p->argc_want entries before calling again; the parser is
 * resumable so nothing is lost); RESP_ERR with p->err set (the stream cannot be
 * resynchronised: reply with the error and close). A request with no arguments
 * (an empty inline line, "*0" or "*-1") is RESP_OK with argc 0: skip it. */
#ifndef SP_RESP_H
#define SP_RESP_H

#include <stddef.h>
#include <stdint.h>

#define RESP_INLINE_MAX (64 * 1024)

typedef enum {
    RESP_OK = 0,
    RESP_INCOMPLETE = 1,
    RESP_NEED_ARGS = 2,
    RESP_ERR = -1,
} resp_status;

typedef struct resp_arg {
    size_t off; /* bytes from buf[0] */
    size_t len; /* bytes */
} resp_arg;

typedef struct resp_parser {
    /* Set by the caller. */
    resp_arg *args;       /* argument slots, owned by the caller */
    size_t args_cap;      /* number of slots in args */
    long long max_bulk;   /* bytes, largest bulk argument accepted */
    long long max_args;   /* largest multibulk count accepted */
    int unauth;           /* 1: the client has not authenticated (Redis's tight limits: 10 args, 16 KB bulks, "unauthenticated ..." errors) */

    /* Results. */
    size_t argc;          /* arguments parsed (valid with RESP_OK) */
    size_t argc_want;     /* slots needed (with RESP_NEED_ARGS) */
    size_t need;          /* bytes, lower bound of the buffer length for progress (with RESP_INCOMPLETE) */
    const char *err;      /* static error text (with RESP_ERR), e.g. "invalid bulk length" */
    char errbuf[64];      /* storage for errors that quote a byte ("expected '$', got 'x'") */

    /* Private state of a request in progress (all zero = ready for a request). */
    int state;
    size_t pos;           /* bytes of buf already parsed */
    long long mbulk;      /* multibulk count of the request in progress */
    long long bulk;       /* length of the bulk argument in progress, -1 if none */
    size_t scan;          /* bytes of buf already searched for the current line's end */
    size_t eol;           /* inline: offset of the line's '\n', once found */
    size_t wpos;          /* inline: bytes of unescaped output written so far */
} resp_parser;

/* Prepare p for a new request; keeps the caller's fields (args, args_cap, limits). */
void resp_reset(resp_parser *p);

/* Parse one request from buf[0..len). See the file comment for the outcomes.
 * On RESP_OK, *consumed is the request's length in bytes and the parser is reset
 * for the next request. buf is modified only by inline requests. */
resp_status resp_parse(resp_parser *p, char *buf, size_t len, size_t *consumed);

#endif
