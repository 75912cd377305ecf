/* scratchpad.h -- libscratchpad: a C client for Scratchpad's SP.* commands.
 *
 * Scratchpad is a Redis-compatible server that keeps the working memory of AI
 * agents: named entries (plans, findings, decisions, large tool outputs) in
 * namespaces called scratchpads, read back by windows (head, tail, lines,
 * ranges, grep) instead of whole values. This library wraps the SP.* commands
 * in typed C functions on top of hiredis (0.14 or later), speaking RESP2.
 *
 * This header is the manual. It has four parts:
 *
 *   1. Status codes and the connection      spc_connect, spc_err, spc_errstr
 *   2. One function per SP command         sp_write ... sp_info, and their results
 *   3. Batches (pipelining)                 spc_batch_begin / spc_batch_exec
 *   4. The asynchronous API (libevent)      spc_async_connect, sp_async_*
 *
 * Conventions that hold for every function below
 * ----------------------------------------------
 * - Every command function returns an spc_status: SP_OK (0) on success, another
 *   code otherwise; the same code is kept by the context (spc_err) with a
 *   message (spc_errstr). The library never aborts and never exits; it does not
 *   print anything. (hiredis itself may abort when an allocation fails inside
 *   it, see HIREDIS_OOM_HANDLER.)
 * - A missing entry is an answer, not a failure: every function whose command
 *   replies nil for a missing entry or scratchpad (SP.READ, SP.RANGE, SP.PEEK,
 *   SP.GREP, SP.STAT, SP.INFO, SP.TTL) returns SP_ERR_NOTFOUND and sets its
 *   result to NULL / zero; so do SP.EDIT and SP.INSERT on a missing entry and
 *   SP.EXPIRE / SP.PEXPIRE when there is nothing to expire. The connection
 *   stays usable. SP.LIST of a missing scratchpad lists nothing (SP_OK).
 * - Names: `ns` (the scratchpad's key) and `name` (an entry) are NUL-terminated
 *   strings; the server checks entry names (1 to 255 bytes of A-Z a-z 0-9
 *   _ - . : /, no empty, "." or ".." path segment) and an invalid one returns
 *   SP_ERR_NAME. Contents are (pointer, length) and binary-safe.
 * - Units: text entries are addressed in characters (code points), binary
 *   entries in bytes; an option `bytes` addresses a text entry in bytes.
 * - Options structs: a NULL pointer means "all defaults", and so does a struct
 *   initialised to zero ({0}). Where 0 is a meaningful value that is not the
 *   default, a negative constant named in the field's comment asks for it.
 * - Results: a function that returns content allocates its result; free it
 *   with the free function of its type (spc_content_free, spc_grep_free,
 *   spc_list_free, spc_offload_free), each of which accepts NULL. Fixed-size
 *   results (spc_stat, spc_info, versions, counts) are written into storage the
 *   caller provides. On any status other than SP_OK, result pointers are set to
 *   NULL and fixed-size results to zero. The strings a result holds are
 *   NUL-terminated (the terminator is not counted in their length) and live as
 *   long as the result.
 * - Input pointers are only read during the call (in a batch, until the call
 *   returns too: the command is copied when it is queued).
 * - A context is not thread-safe: use one per thread (or lock around it).
 *
 * Errors: which code means what
 * -----------------------------
 *   SP_ERR_NOTFOUND   the entry (or scratchpad) does not exist; not a failure
 *   SP_ERR_CONDITION  SP.WRITE NX / XX was not met: nothing was written
 *   SP_ERR_VERSION    an IFVERSION check failed ("entry is at version 7, not 5")
 *   SP_ERR_WRONGTYPE  the key `ns` holds another type (a string, ...)
 *   SP_ERR_NAME       an invalid entry name (or offload prefix); the message
 *                     shows the name and the rule
 *   SP_ERR_NOMATCH    SP.EDIT: the old text does not occur in the entry
 *   SP_ERR_AMBIGUOUS  SP.EDIT: the old text occurs several times (the message
 *                     gives the count and the lines); use `all` or more context
 *   SP_ERR_AUTH       authentication failed or is required (WRONGPASS, NOAUTH)
 *   SP_ERR_SERVER     any other error reply (syntax, bad regex, a limit): the
 *                     message is the server's
 *   SP_ERR_ARG        the call's arguments are invalid (a NULL name, ...);
 *                     nothing was sent
 *   SP_ERR_PROTOCOL   the reply does not have the shape the command promises,
 *                     or the byte stream is not RESP (then the connection is
 *                     closed, as for SP_ERR_IO)
 *   SP_ERR_IO         connecting failed, the connection broke or the server
 *                     closed it (also in the middle of a reply)
 *   SP_ERR_TIMEOUT    the command timeout (spc_options.timeout_ms) passed
 *   SP_ERR_OOM        the library could not allocate memory
 *   SP_ERR_NOPERM     the server's ACL refused it (NOPERM): the user the
 *                     connection authenticated as (spc_options.username) may
 *                     not run the command or touch that scratchpad; the
 *                     message is the server's
 *
 * SP_ERR_IO, SP_ERR_TIMEOUT and a stream-level SP_ERR_PROTOCOL are sticky: the
 * connection is closed and every later call returns the same code at once,
 * until spc_reconnect succeeds. Every other code leaves the connection usable.
 *
 * A minimal session
 * -----------------
 *     spc_ctx *c = spc_connect("127.0.0.1", 6379);
 *     if (!c || spc_err(c)) { ... spc_errstr(c) ...; spc_free(c); }
 *     uint64_t v;
 *     sp_write(c, "agent-7", "plan", plan, strlen(plan), NULL, &v);
 *     spc_read_opts head = {.window = SPC_HEAD, .count = 2000};
 *     spc_content *out;
 *     if (sp_read(c, "agent-7", "obs-3", &head, &out) == SP_OK) {
 *         fwrite(out->data, 1, out->len, stdout);
 *         spc_content_free(out);
 *     }
 *     spc_free(c);
 *
 * Build: cc app.c $(pkg-config --cflags --libs scratchpad)
 * (static: pkg-config --static --libs scratchpad; the library needs hiredis
 * and libevent).
 */
#ifndef SCRATCHPAD_H
#define SCRATCHPAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCRATCHPAD_VERSION_MAJOR 0
#define SCRATCHPAD_VERSION_MINOR 1
#define SCRATCHPAD_VERSION_PATCH 0

/* ======================================================================
 * 1. Status codes and the connection
 * ====================================================================== */

typedef enum spc_status {
    SP_OK = 0,
    SP_ERR_NOTFOUND,
    SP_ERR_CONDITION,
    SP_ERR_VERSION,
    SP_ERR_WRONGTYPE,
    SP_ERR_NAME,
    SP_ERR_NOMATCH,
    SP_ERR_AMBIGUOUS,
    SP_ERR_AUTH,
    SP_ERR_SERVER,
    SP_ERR_ARG,
    SP_ERR_PROTOCOL,
    SP_ERR_IO,
    SP_ERR_TIMEOUT,
    SP_ERR_OOM,
    SP_ERR_NOPERM
} spc_status;

/* The name of a status code ("SP_OK", "SP_ERR_IO", ...); "SP_ERR_UNKNOWN" for
 * a value that is not a code. The string is static. */
const char *spc_status_name(int status);

/* A synchronous connection. Opaque; created by spc_connect*, freed by spc_free. */
typedef struct spc_ctx spc_ctx;

/* How to connect. Zero-initialise and set what you need. */
typedef struct spc_options {
    const char *host;       /* TCP host or address; NULL: "127.0.0.1" */
    int port;               /* TCP port; 0: 6379 */
    const char *unix_path;  /* connect to this Unix socket instead of TCP */
    int connect_timeout_ms; /* bound on connecting; 0: the system's (blocking) */
    int timeout_ms;         /* bound on each command's send and receive; 0: none.
                               Sync API only. */
    const char *username;   /* with password: AUTH username password */
    const char *password;   /* when set: AUTH [username] password after connecting */
    /* TLS (a server's tls-port; `rediss://` URLs). Sync API only: the async API
     * fails to connect when tls is set (Debian's hiredis 0.14 has no TLS; the
     * sync connection runs it through a relay thread, spc_tls.c). */
    int tls;                     /* 1: connect with TLS (TLSv1.2 or later) */
    const char *tls_ca_file;     /* CAs the server's certificate is checked against; NULL: the system's */
    const char *tls_cert_file;   /* a client certificate (PEM), for servers with tls-auth-clients yes */
    const char *tls_key_file;    /* its key; NULL: in tls_cert_file */
    const char *tls_server_name; /* the name (or address) the certificate must show, and SNI; NULL: host */
    int tls_insecure;            /* 1: do not check the server's certificate (tests only) */
} spc_options;

/* Connect to host:port (NULL host: 127.0.0.1), no timeout, no password.
 * Returns a context, also when connecting failed: check spc_err(ctx) (SP_ERR_IO
 * for a refused connection, with the reason in spc_errstr). Returns NULL only
 * when out of memory. Free it with spc_free in every case. */
spc_ctx *spc_connect(const char *host, int port);

/* Connect to the Unix socket at path. As spc_connect. */
spc_ctx *spc_connect_unix(const char *path);

/* Connect with options (NULL: all defaults). When o->password is set, sends
 * AUTH and fails with SP_ERR_AUTH if the server refuses it (the connection is
 * then closed, and later calls return SP_ERR_AUTH until spc_reconnect). As
 * spc_connect otherwise; o is not kept (its strings are copied). */
spc_ctx *spc_connect_with(const spc_options *o);

/* Close the connection and free the context and anything it holds (a batch
 * not executed is discarded). NULL does nothing. Results returned earlier stay
 * valid: they are independent of the context. */
void spc_free(spc_ctx *ctx);

/* Reconnect with the same options (and AUTH), after SP_ERR_IO / SP_ERR_TIMEOUT
 * or at any time. A batch not executed is discarded. Returns SP_OK or the
 * failure (also kept by the context). */
int spc_reconnect(spc_ctx *ctx);

/* The status of the last call on ctx (SP_OK after a success). SP_ERR_OOM when
 * ctx is NULL. */
int spc_err(const spc_ctx *ctx);

/* The message of the last call on ctx: the server's error text, or what went
 * wrong on the connection; "" after a success. Valid until the next call on
 * ctx. Never NULL. */
const char *spc_errstr(const spc_ctx *ctx);

/* PING: SP_OK if the server answers PONG. */
int spc_ping(spc_ctx *ctx);

/* The hiredis context under ctx (a redisContext *), for commands this library
 * does not wrap. Do not free it, and do not use it while a batch is open.
 * NULL when ctx is NULL. */
struct redisContext *spc_redis(spc_ctx *ctx);

/* ======================================================================
 * 2. The SP commands
 * ====================================================================== */

/* The kind of an entry: text (valid UTF-8, addressed in characters) or binary
 * (addressed in bytes). SPC_KIND_AUTO in options means "detect". */
typedef enum spc_kind {
    SPC_KIND_AUTO = 0,
    SPC_KIND_TEXT,
    SPC_KIND_BINARY
} spc_kind;

/* IFVERSION in options: 0 means "no check"; a positive value means "the entry
 * must be at this version"; SPC_MUST_NOT_EXIST means "the entry must not
 * exist" (IFVERSION 0). A failed check returns SP_ERR_VERSION and changes
 * nothing. */
#define SPC_MUST_NOT_EXIST (-1LL)

/* ---------------------------------------------------------------- SP.WRITE */

typedef struct spc_write_opts {
    long long ttl_ms;     /* PX ttl_ms: the entry expires after this; 0: none
                             (the server's sp-default-ttl applies) */
    int keepttl;          /* KEEPTTL: keep the current expiry on overwrite */
    spc_kind kind;        /* KIND: force text or binary; AUTO: detect. KIND text
                             on invalid UTF-8 is SP_ERR_SERVER */
    int nx;               /* NX: only create (SP_ERR_CONDITION if it exists) */
    int xx;               /* XX: only overwrite (SP_ERR_CONDITION if missing) */
    long long ifversion;  /* IFVERSION, see SPC_MUST_NOT_EXIST */
} spc_write_opts;

/* SP.WRITE ns name content: create or overwrite entry `name` with len bytes at
 * data. On SP_OK, *version (if not NULL) is the entry's new version (1 for a new
 * entry, +1 on every change). Errors: SP_ERR_CONDITION (nx/xx not met, nothing
 * written), SP_ERR_VERSION, SP_ERR_NAME, SP_ERR_WRONGTYPE, SP_ERR_SERVER. */
int sp_write(spc_ctx *ctx, const char *ns, const char *name, const void *data, size_t len,
             const spc_write_opts *o, uint64_t *version);

/* --------------------------------------------------------------- SP.APPEND */

typedef struct spc_append_opts {
    long long ifversion; /* IFVERSION, see SPC_MUST_NOT_EXIST */
} spc_append_opts;

/* SP.APPEND ns name content: append len bytes (creates the entry when
 * missing). On SP_OK, *length (if not NULL) is the entry's new length in its
 * units (characters for text, bytes for binary). Appending invalid UTF-8 to a
 * text entry is SP_ERR_SERVER. Errors as sp_write. */
int sp_append(spc_ctx *ctx, const char *ns, const char *name, const void *data, size_t len,
              const spc_append_opts *o, size_t *length);

/* ----------------------------------------------------- content and windows */

/* Paging metadata of a read (SP.READ ... WITHMETA). */
typedef struct spc_read_meta {
    uint64_t version;        /* the entry's version */
    size_t size;             /* bytes, whole entry */
    size_t length;           /* characters (text) or bytes (binary), whole entry */
    size_t lines;            /* lines of the whole entry */
    spc_kind kind;           /* SPC_KIND_TEXT or SPC_KIND_BINARY */
    long long offset;        /* where the window starts: a unit offset, or the
                                first line for SPC_LINES */
    int truncated;           /* 1 if the entry continues after the window */
    long long next_offset;   /* where the next window starts (offset or line);
                                -1 when not truncated */
} spc_read_meta;

/* Content read from an entry (SP.READ, SP.RANGE, SP.PEEK). data holds len
 * bytes plus a NUL terminator (not counted). Free with spc_content_free. */
typedef struct spc_content {
    const char *data;
    size_t len;               /* bytes */
    int has_meta;             /* 1 when meta is filled (withmeta was asked) */
    spc_read_meta meta;
    void *priv;               /* the library's */
} spc_content;

/* Free a content result. NULL does nothing. */
void spc_content_free(spc_content *c);

/* ----------------------------------------------------------------- SP.READ */

typedef enum spc_window {
    SPC_WHOLE = 0, /* the whole entry */
    SPC_OFFSET,    /* OFFSET offset [LIMIT limit] */
    SPC_HEAD,      /* HEAD count: the first count units */
    SPC_TAIL,      /* TAIL count: the last count units */
    SPC_LINES      /* LINES from to: 1-based, inclusive, negative from the end */
} spc_window;

typedef struct spc_read_opts {
    spc_window window;
    size_t offset;   /* SPC_OFFSET: the first unit (0-based) */
    size_t limit;    /* SPC_OFFSET: at most this many units; 0: through the end */
    size_t count;    /* SPC_HEAD / SPC_TAIL: units */
    long long from;  /* SPC_LINES: the first line (1-based; -1 the last line) */
    long long to;    /* SPC_LINES: the last line, inclusive (-1: the last line).
                        {from 1, to -1} is the whole entry by lines */
    int bytes;       /* BYTES: address a text entry in bytes */
    int withmeta;    /* WITHMETA: fill (*out)->meta, to page through an entry */
} spc_read_opts;

/* SP.READ ns name [window] [BYTES] [WITHMETA]: the whole entry or a window of
 * it. Out-of-range windows are clipped; a start past the end gives empty
 * content (SP_OK, len 0), not an error. To page: read with withmeta and
 * continue from meta.next_offset while meta.truncated. On SP_OK *out is a new
 * result (free with spc_content_free); SP_ERR_NOTFOUND (and *out NULL) when the
 * entry or scratchpad does not exist. */
int sp_read(spc_ctx *ctx, const char *ns, const char *name, const spc_read_opts *o, spc_content **out);

/* ---------------------------------------------------------------- SP.RANGE */

/* As `end` of sp_range: through the end of the entry. */
#define SPC_END INT64_MAX

typedef struct spc_range_opts {
    int bytes; /* BYTES: address a text entry in bytes */
} spc_range_opts;

/* SP.RANGE ns name start [end] [BYTES]: units [start, end), zero-based, as a
 * Python slice: negative values count from the end (start -2000, end SPC_END
 * is the last 2000 characters); out-of-range values are clipped and an empty
 * or reversed range gives empty content. *out as sp_read (no meta). */
int sp_range(spc_ctx *ctx, const char *ns, const char *name, long long start, long long end,
             const spc_range_opts *o, spc_content **out);

/* ----------------------------------------------------------------- SP.GREP */

/* One line of a grep result. */
typedef struct spc_grep_line {
    size_t lineno;     /* 1-based */
    int is_match;      /* 1: a matching line; 0: a context line around one */
    const char *text;  /* the line, without its number and without "\n" */
    size_t len;        /* bytes */
} spc_grep_line;

/* The lines of SP.GREP, in line order. Free with spc_grep_free. */
typedef struct spc_grep {
    size_t n;              /* lines in `lines` (matches and context lines) */
    spc_grep_line *lines;
    int has_meta;          /* 1 when withmeta was asked: */
    size_t matched;        /*   lines that match in the whole entry */
    size_t shown;          /*   matching lines returned */
    int truncated;         /*   1 if more lines match than were returned */
    void *priv;            /* the library's */
} spc_grep;

/* Free a grep result. NULL does nothing. */
void spc_grep_free(spc_grep *g);

/* As spc_grep_opts.max: return no line, only count the matches. */
#define SPC_GREP_COUNT_ONLY (-1L)

typedef struct spc_grep_opts {
    long max;       /* MAX: matching lines to return; 0: the server's default
                       (100); SPC_GREP_COUNT_ONLY: none (implies withmeta) */
    long context;   /* CONTEXT: lines shown around each match (at most 1000) */
    int nocase;     /* NOCASE: case-insensitive */
    int literal;    /* LITERAL: the pattern is a plain string, not a regex */
    int withmeta;   /* WITHMETA: fill matched / shown / truncated */
} spc_grep_opts;

/* SP.GREP ns name pattern [options]: the lines of the entry matching the
 * Perl-compatible regular expression `pattern` (NUL-terminated; \d, \w, (?i)
 * work), or the literal string with o->literal. On SP_OK *out is a new result
 * (free with spc_grep_free); SP_ERR_NOTFOUND when the entry does not exist.
 * A pattern that does not compile, or one that hits the server's match limit
 * or work bound, is SP_ERR_SERVER with the server's explanation. */
int sp_grep(spc_ctx *ctx, const char *ns, const char *name, const char *pattern, const spc_grep_opts *o,
            spc_grep **out);

/* ----------------------------------------------------------------- SP.LIST */

/* One entry of a listing. The metadata fields are filled only when the
 * listing has has_meta (withmeta was asked); otherwise they are 0. */
typedef struct spc_list_item {
    const char *name;
    size_t name_len;
    spc_kind kind;
    size_t size;         /* bytes */
    size_t length;       /* characters (text) or bytes (binary) */
    uint64_t version;
    long long created;   /* ms since the epoch */
    long long updated;   /* ms since the epoch */
    long long ttl;       /* ms left; -1: no expiry */
} spc_list_item;

/* One page of SP.LIST, entries sorted by name. Free with spc_list_free. */
typedef struct spc_list {
    size_t n;
    spc_list_item *items;
    int has_meta;
    int done;             /* 1 if this is the last page */
    const char *cursor;   /* the cursor of the next page ("0" when done) */
    void *priv;           /* the library's */
} spc_list;

typedef struct spc_list_opts {
    const char *match;   /* MATCH: a glob on entry names; NULL: all */
    const char *cursor;  /* CURSOR: from a previous page's cursor; NULL: start */
    long count;          /* COUNT: entries per page; 0: the server's (1000) */
    int withmeta;        /* WITHMETA: fill the items' metadata */
} spc_list_opts;

/* SP.LIST ns [MATCH glob] [WITHMETA] [CURSOR c] [COUNT n]: one page of entry
 * names. A missing scratchpad lists nothing (SP_OK, n 0, done 1). On SP_OK *out
 * is a new result (free with spc_list_free). Pass (*out)->cursor as the next
 * call's o->cursor until done; or use the iterator below. The cursor stays
 * valid while entries are added or removed: an entry present throughout is
 * listed exactly once. */
int sp_list(spc_ctx *ctx, const char *ns, const spc_list_opts *o, spc_list **out);

/* Free a listing page. NULL does nothing. */
void spc_list_free(spc_list *l);

/* An iterator over every entry of a scratchpad, fetching pages as it goes. */
typedef struct spc_list_iter spc_list_iter;

/* Create an iterator on ctx (no I/O yet). o->cursor is ignored; ns and o's
 * strings are copied. On SP_OK *out is the iterator (free with
 * spc_list_iter_free, before or after ctx); SP_ERR_ARG in a batch. */
int spc_list_iter_new(spc_ctx *ctx, const char *ns, const spc_list_opts *o, spc_list_iter **out);

/* The next entry: SP_OK with *item set, or SP_OK with *item NULL at the end;
 * another code when fetching a page failed (as sp_list). *item stays valid
 * until the next call on the iterator. */
int spc_list_iter_next(spc_list_iter *it, const spc_list_item **item);

void spc_list_iter_free(spc_list_iter *it);

/* ----------------------------------------------------- SP.EDIT, SP.INSERT */

typedef struct spc_edit_opts {
    int all;              /* ALL: replace every occurrence */
    long long ifversion;  /* IFVERSION, see SPC_MUST_NOT_EXIST */
} spc_edit_opts;

/* SP.EDIT ns name old new [ALL] [IFVERSION v]: byte-exact replacement of
 * old (old_len > 0 bytes) by new (new_len bytes, may be 0). Without o->all,
 * old must occur exactly once. On SP_OK, *count is the number of
 * replacements and *version the new version (either pointer may be NULL).
 * Errors: SP_ERR_NOTFOUND (no such entry), SP_ERR_NOMATCH (old does not occur),
 * SP_ERR_AMBIGUOUS (old occurs several times; the message lists the lines),
 * SP_ERR_VERSION; nothing is written on any error. */
int sp_edit(spc_ctx *ctx, const char *ns, const char *name, const void *old, size_t old_len, const void *new_text,
            size_t new_len, const spc_edit_opts *o, size_t *count, uint64_t *version);

typedef struct spc_insert_opts {
    long long ifversion; /* IFVERSION, see SPC_MUST_NOT_EXIST */
} spc_insert_opts;

/* SP.INSERT ns name line text [IFVERSION v]: insert text as whole lines after
 * line `line` (0: at the top, -1: at the end). On SP_OK *version (if not NULL)
 * is the new version. SP_ERR_NOTFOUND when the entry does not exist. */
int sp_insert(spc_ctx *ctx, const char *ns, const char *name, long long line, const void *text, size_t len,
              const spc_insert_opts *o, uint64_t *version);

/* ------------------------------------------------------------------ SP.DEL */

/* SP.DEL ns name [name ...]: delete n (>= 1) entries. On SP_OK *deleted (if not
 * NULL) is how many existed. Deleting the last entry deletes the scratchpad. */
int sp_del(spc_ctx *ctx, const char *ns, const char *const *names, size_t n, size_t *deleted);

/* ----------------------------------------------------------------- SP.STAT */

/* An entry's metadata (SP.STAT), filled in place: nothing to free. */
typedef struct spc_stat {
    spc_kind kind;
    size_t size;          /* bytes */
    size_t length;        /* characters (text) or bytes (binary) */
    size_t lines;
    uint64_t version;
    long long created;    /* ms since the epoch */
    long long updated;    /* ms since the epoch */
    long long ttl;        /* ms left; -1: no expiry */
    char encoding[8];     /* "raw" or "lz4" */
    size_t stored;        /* bytes the server uses for it */
    size_t chunks;        /* compressed chunks (0 when raw) */
    char sha256[65];      /* hex digest of the content, "" if unavailable */
} spc_stat;

/* SP.STAT ns name: fill *out. SP_ERR_NOTFOUND (and *out zeroed) when the entry
 * does not exist. */
int sp_stat(spc_ctx *ctx, const char *ns, const char *name, spc_stat *out);

/* ----------------------------------------------------------------- SP.PEEK */

/* As a head or tail of spc_peek_opts: none at all (HEAD 0 / TAIL 0). */
#define SPC_PEEK_NONE (-1L)

typedef struct spc_peek_opts {
    long head; /* HEAD: characters of the start; 0: the default (500);
                  SPC_PEEK_NONE: none */
    long tail; /* TAIL: characters of the end; as head */
} spc_peek_opts;

/* SP.PEEK ns name [HEAD n] [TAIL n]: the preview an agent keeps in its context
 * instead of the content: for text, the head, then "[... N characters omitted
 * ...]", then the tail (or the whole content when it is shorter than head +
 * tail); for binary, "[BINARY: N bytes, sha256=<hex>]". *out as sp_read. */
int sp_peek(spc_ctx *ctx, const char *ns, const char *name, const spc_peek_opts *o, spc_content **out);

/* -------------------------------------------------------------- SP.OFFLOAD */

/* The outcome of SP.OFFLOAD. Free with spc_offload_free. */
typedef struct spc_offload {
    int stored;            /* 1: stored under `name`; 0: below the threshold */
    const char *name;      /* stored: the generated entry name ("obs-12"); else NULL */
    size_t name_len;
    size_t size;           /* stored: bytes */
    size_t length;         /* stored: characters (text) or bytes (binary) */
    spc_kind kind;         /* stored: the entry's kind */
    const char *preview;   /* stored: the preview (as sp_peek with defaults) */
    size_t preview_len;
    const char *content;   /* not stored: the content, given back; else NULL */
    size_t content_len;
    void *priv;            /* the library's */
} spc_offload;

/* As spc_offload_opts.threshold: store whatever the size (THRESHOLD 0). */
#define SPC_OFFLOAD_ALWAYS (-1LL)

typedef struct spc_offload_opts {
    long long threshold; /* THRESHOLD: store only content larger than this many
                            bytes; 0: the server's (sp-offload-threshold, 4096);
                            SPC_OFFLOAD_ALWAYS: store anything */
    const char *prefix;  /* PREFIX of generated names; NULL: "obs" */
    long long ttl_ms;    /* PX: lifetime of the stored entry; 0: none */
    spc_kind kind;       /* KIND; AUTO: detect */
    char separator;      /* SEPARATOR: '_' names "<prefix>_<n>" (the LLM tools' "<tool>_<n>");
                            0 or '-': "<prefix>-<n>"; anything else is SP_ERR_ARG */
} spc_offload_opts;

/* SP.OFFLOAD ns content [options]: the large-observation rule done by the
 * server. Content larger than the threshold is stored under a generated name
 * and *out carries the name and a preview to keep in the agent's context;
 * smaller content is not stored and comes back in (*out)->content. On SP_OK
 * *out is a new result (free with spc_offload_free). */
int sp_offload(spc_ctx *ctx, const char *ns, const void *data, size_t len, const spc_offload_opts *o,
               spc_offload **out);

/* Free an offload result. NULL does nothing. */
void spc_offload_free(spc_offload *o);

/* ------------------------------------------------------ per-entry lifetimes */

/* SP.EXPIRE ns name seconds / SP.PEXPIRE ns name ms: the entry expires after
 * this time (a value <= 0 deletes it now). SP_OK when set;
 * SP_ERR_NOTFOUND when the entry does not exist. */
int sp_expire(spc_ctx *ctx, const char *ns, const char *name, long long seconds);
int sp_pexpire(spc_ctx *ctx, const char *ns, const char *name, long long ms);

/* SP.TTL / SP.PTTL ns name: *ttl is the time left in seconds (rounded) / ms,
 * or -1 when the entry has no expiry. SP_ERR_NOTFOUND (and *ttl -2) when the
 * entry does not exist. */
int sp_ttl(spc_ctx *ctx, const char *ns, const char *name, long long *ttl);
int sp_pttl(spc_ctx *ctx, const char *ns, const char *name, long long *ttl_ms);

/* SP.PERSIST ns name: remove the entry's expiry. SP_OK with *removed (if not
 * NULL) 1 if an expiry was removed, 0 if the entry had none or does not exist. */
int sp_persist(spc_ctx *ctx, const char *ns, const char *name, int *removed);

/* ----------------------------------------------------------------- SP.INFO */

/* A scratchpad's totals (SP.INFO), filled in place. */
typedef struct spc_info {
    size_t entries;
    size_t bytes;               /* logical bytes of all entries */
    size_t stored_bytes;        /* bytes the server uses for them */
    double compression_ratio;   /* bytes / stored_bytes */
    long long oldest_update;    /* ms since the epoch */
    long long newest_update;    /* ms since the epoch */
} spc_info;

/* SP.INFO ns: fill *out. SP_ERR_NOTFOUND (and *out zeroed) when the scratchpad
 * does not exist. */
int sp_info(spc_ctx *ctx, const char *ns, spc_info *out);

/* ======================================================================
 * 3. Batches: many commands per round trip
 * ====================================================================== */

/* Start a batch on ctx. Until spc_batch_exec (or spc_batch_discard), every
 * sp_* call on ctx only queues its command: it returns SP_OK (or SP_ERR_ARG /
 * SP_ERR_OOM if the command cannot be queued, which queues nothing) and does
 * not touch its output pointers yet. Those pointers must stay valid until
 * spc_batch_exec, which fills them. spc_list_iter_* and spc_ping cannot be
 * used in a batch (SP_ERR_ARG). Returns SP_ERR_ARG if a batch is already open,
 * the sticky status (SP_ERR_IO, ...) if the connection is down. Example:
 *
 *     uint64_t v; spc_content *head = NULL; spc_stat st; int status[3];
 *     spc_batch_begin(c);
 *     sp_write(c, "ns", "plan", plan, plan_len, NULL, &v);
 *     sp_read(c, "ns", "log", &(spc_read_opts){.window = SPC_TAIL, .count = 500}, &head);
 *     sp_stat(c, "ns", "log", &st);
 *     spc_batch_exec(c, status, 3);   // one round trip
 */
int spc_batch_begin(spc_ctx *ctx);

/* The number of commands queued in the open batch (0 when none is open). */
size_t spc_batch_count(const spc_ctx *ctx);

/* Send every queued command at once, read all the replies, fill each call's
 * outputs as the call itself would have, and close the batch. If status is not
 * NULL, status[i] receives the status of the i-th queued command, for i <
 * nstatus. Returns SP_OK if every command returned SP_OK; otherwise the status
 * of the first one that did not, whose message is spc_errstr(ctx). When the
 * connection fails midway, the commands without a reply get SP_ERR_IO and
 * empty outputs. An empty batch returns SP_OK. SP_ERR_ARG when no batch is
 * open. */
int spc_batch_exec(spc_ctx *ctx, int *status, size_t nstatus);

/* Drop the open batch without sending anything (outputs are not touched). */
void spc_batch_discard(spc_ctx *ctx);

/* ======================================================================
 * 4. The asynchronous API (hiredis async + libevent)
 * ====================================================================== */

struct event_base;
struct redisAsyncContext;

/* An asynchronous connection attached to a libevent event_base. Opaque. */
typedef struct spc_async spc_async;

/* Called once when the connection is ready (status SP_OK: the server has
 * answered the first command, AUTH when a password is set, PING otherwise) or
 * could not be made (SP_ERR_IO, SP_ERR_AUTH, ...; errstr says why). After a
 * failure the library frees ac when the callback returns: do not use it
 * afterwards. */
typedef void spc_connect_cb(spc_async *ac, int status, const char *errstr, void *privdata);

/* Called once when a connection that was reported ready goes away: status
 * SP_OK after spc_async_disconnect / spc_async_free, SP_ERR_IO when it broke
 * (SP_ERR_PROTOCOL when the server sent bytes that are not RESP). The library
 * frees ac when the callback returns. */
typedef void spc_disconnect_cb(spc_async *ac, int status, const char *errstr, void *privdata);

/* What an asynchronous command gives its callback. status and errstr as for
 * the synchronous function; the field that holds the result depends on the
 * command (the others are 0 / NULL):
 *   sp_async_write, sp_async_insert   version
 *   sp_async_append                   length
 *   sp_async_read, _range, _peek      content
 *   sp_async_grep                     grep
 *   sp_async_list                     list
 *   sp_async_edit                     count, version
 *   sp_async_del                      count
 *   sp_async_stat                     stat
 *   sp_async_info                     info
 *   sp_async_offload                  offload
 *   sp_async_ttl, sp_async_pttl       ttl (-2 when SP_ERR_NOTFOUND)
 *   sp_async_persist                  count (1 removed, 0 not)
 *   sp_async_expire, _pexpire         (status only)
 * Everything a result points to (content, grep, list, offload, errstr) is
 * valid only until the callback returns, then the library frees it: copy what
 * you keep. Do not call the spc_*_free functions on them. */
typedef struct spc_result {
    int status;
    const char *errstr;      /* "" when status is SP_OK */
    uint64_t version;
    size_t length;
    size_t count;
    long long ttl;
    spc_content *content;
    spc_grep *grep;
    spc_list *list;
    spc_offload *offload;
    spc_stat stat;
    spc_info info;
} spc_result;

/* Called once per command, with its result; see spc_result. When the
 * connection goes away before the reply, status is SP_ERR_IO. */
typedef void spc_result_cb(spc_async *ac, const spc_result *res, void *privdata);

/* Start connecting (o: as spc_connect_with; timeouts are not used) on base.
 * Every outcome goes to on_connect (also a failure detected at once, such as a
 * missing Unix socket: reported from the event loop). Commands may be issued
 * at once; they are sent when the connection is up (after AUTH). privdata is
 * given to both callbacks (either may be NULL). Returns the context, or NULL
 * when out of memory (nothing is called then). */
spc_async *spc_async_connect(struct event_base *base, const spc_options *o, spc_connect_cb *on_connect,
                             spc_disconnect_cb *on_disconnect, void *privdata);

/* Close after the replies of the commands already issued have arrived (their
 * callbacks run), then call on_disconnect (SP_OK) and free ac. No command may
 * be issued after this. */
void spc_async_disconnect(spc_async *ac);

/* Close now: the callbacks of commands still waiting run with SP_ERR_IO, then
 * on_disconnect (SP_OK) if the connection had been reported ready (on_connect
 * is not called any more if it had not been); ac is freed (at the end of the
 * current callback when called from one). NULL does nothing. */
void spc_async_free(spc_async *ac);

/* The hiredis async context under ac, for commands this library does not
 * wrap. Do not free it. */
struct redisAsyncContext *spc_async_redis(spc_async *ac);

/* The asynchronous commands: arguments as the synchronous function of the same
 * name, then the callback and its privdata (cb may be NULL to ignore the
 * result). Each returns SP_OK when the command was queued (cb will be called
 * exactly once), or an error (SP_ERR_ARG, SP_ERR_OOM, SP_ERR_IO when the
 * connection is closing or gone) and then cb is never called. */
int sp_async_write(spc_async *ac, const char *ns, const char *name, const void *data, size_t len,
                   const spc_write_opts *o, spc_result_cb *cb, void *privdata);
int sp_async_append(spc_async *ac, const char *ns, const char *name, const void *data, size_t len,
                    const spc_append_opts *o, spc_result_cb *cb, void *privdata);
int sp_async_read(spc_async *ac, const char *ns, const char *name, const spc_read_opts *o, spc_result_cb *cb,
                  void *privdata);
int sp_async_range(spc_async *ac, const char *ns, const char *name, long long start, long long end,
                   const spc_range_opts *o, spc_result_cb *cb, void *privdata);
int sp_async_grep(spc_async *ac, const char *ns, const char *name, const char *pattern, const spc_grep_opts *o,
                  spc_result_cb *cb, void *privdata);
int sp_async_list(spc_async *ac, const char *ns, const spc_list_opts *o, spc_result_cb *cb, void *privdata);
int sp_async_edit(spc_async *ac, const char *ns, const char *name, const void *old, size_t old_len,
                  const void *new_text, size_t new_len, const spc_edit_opts *o, spc_result_cb *cb, void *privdata);
int sp_async_insert(spc_async *ac, const char *ns, const char *name, long long line, const void *text, size_t len,
                    const spc_insert_opts *o, spc_result_cb *cb, void *privdata);
int sp_async_del(spc_async *ac, const char *ns, const char *const *names, size_t n, spc_result_cb *cb,
                 void *privdata);
int sp_async_stat(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata);
int sp_async_peek(spc_async *ac, const char *ns, const char *name, const spc_peek_opts *o, spc_result_cb *cb,
                  void *privdata);
int sp_async_offload(spc_async *ac, const char *ns, const void *data, size_t len, const spc_offload_opts *o,
                     spc_result_cb *cb, void *privdata);
int sp_async_expire(spc_async *ac, const char *ns, const char *name, long long seconds, spc_result_cb *cb,
                    void *privdata);
int sp_async_pexpire(spc_async *ac, const char *ns, const char *name, long long ms, spc_result_cb *cb,
                     void *privdata);
int sp_async_ttl(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata);
int sp_async_pttl(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata);
int sp_async_persist(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata);
int sp_async_info(spc_async *ac, const char *ns, spc_result_cb *cb, void *privdata);

#ifdef __cplusplus
}
#endif

#endif
