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
 *   2. One function per SP command         sp_write ... sp_info, leases, the change
 *                                           feed, metadata, snapshots, diffs, forks,
 *                                           history, and their results
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
 *   SP.GREP, SP.STAT, SP.INFO, SP.TTL, SP.HISTORY, SP.DIFF of one entry)
 *   returns SP_ERR_NOTFOUND and sets its
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
 *   spc_list_free, spc_offload_free, spc_leases_free, spc_changes_free,
 *   spc_meta_free, spc_snapshots_free, spc_diff_free, spc_history_free), each
 *   of which accepts NULL. Fixed-size
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
 *   SP_ERR_LEASED     SP.LEASE: another holder has the lease ("LEASED held by
 *                     <holder> for <n> more ms"), or it was still held when
 *                     the wait ended
 *   SP_ERR_FENCED     a write with a fence (spc_fence) whose token is not the
 *                     current, unexpired grant of the lease: nothing changed
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
    SP_ERR_NOPERM,
    SP_ERR_LEASED,
    SP_ERR_FENCED
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

/* FENCE resource token, in the options of the writing commands (and as an
 * argument of the snapshot, history and metadata commands, NULL for none): the
 * write runs only if token is the current, unexpired grant of the lease on
 * resource (sp_lease), else SP_ERR_FENCED and nothing changes. A resource of
 * NULL (a zeroed struct) sends no fence. sp_del, sp_expire, sp_pexpire and
 * sp_persist take none here: send those fenced through spc_redis. */
typedef struct spc_fence {
    const char *resource; /* NULL: no fence */
    uint64_t token;       /* the token sp_lease gave */
} spc_fence;

/* One metadata field of an entry: field (1 to 64 bytes of A-Z a-z 0-9 _ - . :
 * /, NUL-terminated) and its value (value_len bytes, any bytes). An entry has
 * at most 32 fields, 4096 bytes of names and values together; the server
 * checks (SP_ERR_SERVER with its message). */
typedef struct spc_meta_field {
    const char *field;
    const char *value;
    size_t value_len;
} spc_meta_field;

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
    const spc_meta_field *meta; /* META field value ...: nmeta fields that become the
                                   entry's metadata; none (nmeta 0): an overwrite keeps
                                   the metadata the entry has */
    size_t nmeta;
    spc_fence fence; /* FENCE, see spc_fence */
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
    spc_fence fence;     /* FENCE, see spc_fence */
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
    uint64_t version; /* VERSION: read this earlier version of the entry (one
                        sp_history lists; the window options apply to it); 0:
                        the live one. A version not kept is SP_ERR_SERVER */
} spc_read_opts;

/* SP.READ ns name [window] [BYTES] [WITHMETA] [VERSION v]: the whole entry or a window of
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
    const spc_meta_field *meta; /* its metadata fields, in name order (nmeta 0: none) */
    size_t nmeta;
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
    const spc_meta_field *where; /* WHERE field value ...: only entries whose metadata
                                    has all these nwhere fields with exactly these values */
    size_t nwhere;
} spc_list_opts;

/* SP.LIST ns [MATCH glob] [WHERE field value ...] [WITHMETA] [CURSOR c] [COUNT n]: one page of entry
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
    spc_fence fence;      /* FENCE, see spc_fence */
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
    spc_fence fence;     /* FENCE, see spc_fence */
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
    const spc_meta_field *meta; /* META: the stored entry's metadata (nmeta fields) */
    size_t nmeta;
    spc_fence fence; /* FENCE, see spc_fence */
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

/* ------------------------------------------------ leases and fenced writes */

/* A lease granted (SP.LEASE), filled in place. */
typedef struct spc_lease {
    uint64_t token;       /* the fencing token: pass it in spc_fence */
    long long expires_at; /* ms since the epoch */
} spc_lease;

/* As wait_ms of sp_lease: wait for as long as it takes (WAIT 0). */
#define SPC_WAIT_FOREVER (-1LL)

/* SP.LEASE ns resource holder ttl_ms [WAIT ms]: take the lease on `resource`
 * for `holder` for ttl_ms (1 ms to 100 years), or renew it when holder holds it
 * (same token, new expiry). wait_ms 0: fail at once with SP_ERR_LEASED when
 * another holder has it; > 0: wait up to that long (the call blocks; a context
 * timeout_ms shorter than the wait ends it with SP_ERR_TIMEOUT), then
 * SP_ERR_LEASED; SPC_WAIT_FOREVER: wait until it is free. On SP_OK *out (if
 * not NULL) is the grant. Resources and holders are 1 to 255 bytes of
 * printable ASCII without spaces. */
int sp_lease(spc_ctx *ctx, const char *ns, const char *resource, const char *holder, long long ttl_ms,
             long long wait_ms, spc_lease *out);

/* SP.RELEASE ns resource holder token: *released (if not NULL) is 1 when
 * holder held the lease with token and it had not expired, else 0. */
int sp_release(spc_ctx *ctx, const char *ns, const char *resource, const char *holder, uint64_t token, int *released);

/* One live lease (SP.LEASES). The strings live as long as the result. */
typedef struct spc_lease_item {
    const char *resource;
    size_t resource_len;
    const char *holder;
    size_t holder_len;
    uint64_t token;
    long long ms_left;
} spc_lease_item;

/* The live leases, by resource. Free with spc_leases_free. */
typedef struct spc_leases {
    size_t n;
    spc_lease_item *items;
    void *priv; /* the library's */
} spc_leases;

/* SP.LEASES ns: on SP_OK *out is a new result (n 0 for a scratchpad without
 * leases or that does not exist). */
int sp_leases(spc_ctx *ctx, const char *ns, spc_leases **out);
void spc_leases_free(spc_leases *l);

/* ------------------------------------------------------- the change feed */

/* One change of an entry (SP.CHANGES). */
typedef struct spc_change {
    uint64_t seq;     /* grows by one per change in the scratchpad */
    long long time;   /* ms since the epoch */
    const char *op;   /* write, append, edit, insert, offload, del, expire, ttl,
                            restore, revert, meta */
    const char *name; /* the entry */
    size_t name_len;
    uint64_t version;   /* after the change (0 once deleted) */
    size_t size;        /* bytes after the change */
    const char *client; /* the writer's CLIENT SETNAME name, "" when none */
    size_t client_len;
} spc_change;

/* A page of the change feed. Free with spc_changes_free. */
typedef struct spc_changes {
    uint64_t first; /* the oldest change retained (0: none) */
    uint64_t last;  /* the latest change (0: none ever) */
    int gap;        /* 1: changes after `since` are no longer all retained (or
                        the scratchpad was re-created): re-read what you need,
                        resume from last; n is 0 then */
    int timed_out;  /* 1: block_ms passed without a change (n 0, first/last 0) */
    size_t n;
    spc_change *items; /* oldest first */
    void *priv;        /* the library's */
} spc_changes;

/* As block_ms of spc_changes_opts: wait for as long as it takes (BLOCK 0). */
#define SPC_BLOCK_FOREVER (-1LL)

typedef struct spc_changes_opts {
    uint64_t since;     /* SINCE: changes numbered above this (0: all retained) */
    long count;         /* COUNT: at most this many; 0: the server's */
    long long block_ms; /* BLOCK: with nothing after since, wait up to this long
                           for the next change; 0: do not wait; SPC_BLOCK_FOREVER */
} spc_changes_opts;

/* SP.CHANGES ns [SINCE s] [COUNT n] [BLOCK ms]: on SP_OK *out is a new result.
 * An agent that reconnects resumes with since = the last seq it saw. */
int sp_changes(spc_ctx *ctx, const char *ns, const spc_changes_opts *o, spc_changes **out);
void spc_changes_free(spc_changes *c);

/* ---------------------------------------------------------------- metadata */

/* An entry's metadata fields, in name order. Free with spc_meta_free. */
typedef struct spc_meta {
    size_t n;
    spc_meta_field *fields; /* field and value strings live as long as the result */
    void *priv;             /* the library's */
} spc_meta;

/* The metadata of an entry (the "meta" of SP.STAT). On SP_OK *out is a new
 * result (n 0 for an entry without fields); SP_ERR_NOTFOUND when the entry
 * does not exist. */
int sp_meta_get(spc_ctx *ctx, const char *ns, const char *name, spc_meta **out);
void spc_meta_free(spc_meta *m);

/* SP.META ns name SET field value ...: set n (>= 1) fields, keep the others.
 * *version (if not NULL): the new version. SP_ERR_NOTFOUND when the entry does
 * not exist. fence: NULL or a fence (spc_fence). */
int sp_meta_set(spc_ctx *ctx, const char *ns, const char *name, const spc_meta_field *fields, size_t n,
                const spc_fence *fence, uint64_t *version);

/* SP.META ns name DEL field ... (n >= 1) / CLEAR: *removed is how many fields
 * went, *version the entry's version (unchanged when none went). */
int sp_meta_del(spc_ctx *ctx, const char *ns, const char *name, const char *const *fields, size_t n,
                const spc_fence *fence, size_t *removed, uint64_t *version);
int sp_meta_clear(spc_ctx *ctx, const char *ns, const char *name, const spc_fence *fence, size_t *removed,
                  uint64_t *version);

/* --------------------------------------------- snapshots, diffs and forks */

/* SP.SNAPSHOT ns label: freeze the scratchpad's entries under label (the rule
 * of entry names; NOW is reserved), in time proportional to the number of
 * entries. *entries (if not NULL): how many. SP_ERR_SERVER for a scratchpad
 * that does not exist or a label in use. */
int sp_snapshot(spc_ctx *ctx, const char *ns, const char *label, const spc_fence *fence, size_t *entries);

/* One snapshot (SP.SNAPSHOTS). */
typedef struct spc_snapshot_item {
    const char *label;
    size_t label_len;
    long long time; /* ms since the epoch */
    size_t entries;
    size_t bytes; /* the entries' logical size */
} spc_snapshot_item;

/* The snapshots, oldest first. Free with spc_snapshots_free. */
typedef struct spc_snapshots {
    size_t n;
    spc_snapshot_item *items;
    void *priv; /* the library's */
} spc_snapshots;

int sp_snapshots(spc_ctx *ctx, const char *ns, spc_snapshots **out);
void spc_snapshots_free(spc_snapshots *s);

/* SP.RESTORE ns label: the live entries become the snapshot's (an entry
 * changed gets a new version, above every one given before). *changed (if not
 * NULL): how many entries changed. */
int sp_restore(spc_ctx *ctx, const char *ns, const char *label, const spc_fence *fence, size_t *changed);

/* SP.DROPSNAPSHOT ns label: *dropped (if not NULL) 1, or 0 when there was none. */
int sp_dropsnapshot(spc_ctx *ctx, const char *ns, const char *label, const spc_fence *fence, int *dropped);

typedef enum spc_diff_status { SPC_DIFF_ADDED = 1, SPC_DIFF_REMOVED, SPC_DIFF_CHANGED } spc_diff_status;

/* One entry that differs (SP.DIFF). The old_* fields are 0 for an entry
 * added, the new_* ones for an entry removed. */
typedef struct spc_diff_item {
    spc_diff_status status;
    const char *name;
    size_t name_len;
    uint64_t old_version, new_version;
    size_t old_size, new_size; /* bytes */
} spc_diff_item;

/* The entries that differ, in name order. Free with spc_diff_free. */
typedef struct spc_diff {
    size_t n;
    spc_diff_item *items;
    void *priv; /* the library's */
} spc_diff;

/* As `from` or `to` of sp_diff: the live entries. */
#define SPC_NOW "NOW"

/* SP.DIFF ns from to: from and to are snapshot labels or SPC_NOW. On SP_OK
 * *out is a new result. */
int sp_diff(spc_ctx *ctx, const char *ns, const char *from, const char *to, spc_diff **out);
void spc_diff_free(spc_diff *d);

/* SP.DIFF ns from to name: the unified line diff of one entry (as diff -u;
 * empty when the contents are equal; bounded by the server: SP_ERR_SERVER
 * "diff too large ..."). *out as sp_read; SP_ERR_NOTFOUND when the entry is
 * in neither state. */
int sp_diff_entry(spc_ctx *ctx, const char *ns, const char *from, const char *to, const char *name, spc_content **out);

/* SP.FORK src dst [FROM label]: dst (a key that must not exist) becomes a
 * scratchpad of its own with the entries of src (or of its snapshot
 * from_label, NULL for the live ones), sharing contents until either side
 * changes. *entries (if not NULL): how many. The fence is checked on src. */
int sp_fork(spc_ctx *ctx, const char *src, const char *dst, const char *from_label, const spc_fence *fence,
            size_t *entries);

/* ------------------------------------------------------------ entry history */

/* One version kept (SP.HISTORY). */
typedef struct spc_history_item {
    uint64_t version;
    long long time;     /* ms since the epoch */
    const char *op;     /* as in the change feed */
    size_t size;        /* bytes */
    const char *client; /* the writer's CLIENT SETNAME name, "" when none */
    size_t client_len;
} spc_history_item;

/* The versions kept, oldest first (the last is the live one). Free with
 * spc_history_free. */
typedef struct spc_history {
    size_t n;
    spc_history_item *items;
    void *priv; /* the library's */
} spc_history;

/* SP.HISTORY ns name: on SP_OK *out is a new result (n 0 when the server keeps
 * no history); SP_ERR_NOTFOUND when the entry does not exist. Read a version
 * with sp_read (spc_read_opts.version). */
int sp_history(spc_ctx *ctx, const char *ns, const char *name, spc_history **out);
void spc_history_free(spc_history *h);

/* SP.REVERT ns name version: write that version's content, kind and metadata
 * back as a new version; *new_version (if not NULL) is it. SP_ERR_NOTFOUND when
 * the entry does not exist; SP_ERR_SERVER when the version is not kept. */
int sp_revert(spc_ctx *ctx, const char *ns, const char *name, uint64_t version, const spc_fence *fence,
              uint64_t *new_version);

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
 *   sp_async_lease                    lease
 *   sp_async_release, _dropsnapshot   count (1 done, 0 not)
 *   sp_async_leases                   leases
 *   sp_async_changes                  changes
 *   sp_async_meta_get                 meta
 *   sp_async_meta_set, _revert        version
 *   sp_async_meta_del, _meta_clear    count (removed), version
 *   sp_async_snapshot, _restore, _fork count
 *   sp_async_snapshots                snapshots
 *   sp_async_diff                     diff
 *   sp_async_diff_entry               content
 *   sp_async_history                  history
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
    spc_lease lease;
    spc_leases *leases;
    spc_changes *changes;
    spc_meta *meta;
    spc_snapshots *snapshots;
    spc_diff *diff;
    spc_history *history;
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
int sp_async_lease(spc_async *ac, const char *ns, const char *resource, const char *holder, long long ttl_ms,
                   long long wait_ms, spc_result_cb *cb, void *privdata);
int sp_async_release(spc_async *ac, const char *ns, const char *resource, const char *holder, uint64_t token,
                     spc_result_cb *cb, void *privdata);
int sp_async_leases(spc_async *ac, const char *ns, spc_result_cb *cb, void *privdata);
int sp_async_changes(spc_async *ac, const char *ns, const spc_changes_opts *o, spc_result_cb *cb, void *privdata);
int sp_async_meta_get(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata);
int sp_async_meta_set(spc_async *ac, const char *ns, const char *name, const spc_meta_field *fields, size_t n,
                      const spc_fence *fence, spc_result_cb *cb, void *privdata);
int sp_async_meta_del(spc_async *ac, const char *ns, const char *name, const char *const *fields, size_t n,
                      const spc_fence *fence, spc_result_cb *cb, void *privdata);
int sp_async_meta_clear(spc_async *ac, const char *ns, const char *name, const spc_fence *fence, spc_result_cb *cb,
                        void *privdata);
int sp_async_snapshot(spc_async *ac, const char *ns, const char *label, const spc_fence *fence, spc_result_cb *cb,
                      void *privdata);
int sp_async_snapshots(spc_async *ac, const char *ns, spc_result_cb *cb, void *privdata);
int sp_async_restore(spc_async *ac, const char *ns, const char *label, const spc_fence *fence, spc_result_cb *cb,
                     void *privdata);
int sp_async_dropsnapshot(spc_async *ac, const char *ns, const char *label, const spc_fence *fence, spc_result_cb *cb,
                          void *privdata);
int sp_async_diff(spc_async *ac, const char *ns, const char *from, const char *to, spc_result_cb *cb, void *privdata);
int sp_async_diff_entry(spc_async *ac, const char *ns, const char *from, const char *to, const char *name,
                        spc_result_cb *cb, void *privdata);
int sp_async_fork(spc_async *ac, const char *src, const char *dst, const char *from_label, const spc_fence *fence,
                  spc_result_cb *cb, void *privdata);
int sp_async_history(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata);
int sp_async_revert(spc_async *ac, const char *ns, const char *name, uint64_t version, const spc_fence *fence,
                    spc_result_cb *cb, void *privdata);

#ifdef __cplusplus
}
#endif

#endif
