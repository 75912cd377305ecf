/* spc_internal.h -- what the parts of libscratchpad share (not installed).
 *
 * The library has four parts: spc_cmd.c turns a call into an argument vector
 * (spc_cmd) and spc_reply.c a reply into a typed result (spc_convert), both
 * with no I/O, so the same code serves the synchronous, batched and
 * asynchronous paths; spc_sync.c runs commands on a blocking hiredis context
 * (one at a time or in batches); spc_async.c runs them on a hiredis async
 * context on libevent.
 *
 * Invariants: an spc_cmd owns nothing but its argv/lens arrays when they
 * outgrow the inline ones; the strings it points to are the caller's (or its
 * own number buffers) and must outlive its use. spc_convert never frees the
 * reply; when asked to keep it, it stores it in exactly one result object
 * (whose free function releases it) and says so. */
#ifndef SPC_INTERNAL_H
#define SPC_INTERNAL_H

#include <hiredis/hiredis.h>

#include "scratchpad.h"

/* Nothing below is part of the shared library's interface. */
#pragma GCC visibility push(hidden)

/* Room for error messages: the server's longest (an invalid 255-byte name
 * shown escaped, plus the rule) fits. */
#define SPC_ERRSTR_CAP 2048

/* How a command's reply becomes a result. */
typedef enum spc_conv {
    SPC_CV_STATUS,    /* +OK / +PONG */
    SPC_CV_VERSION,   /* integer version; nil: condition not met */
    SPC_CV_LENGTH,    /* integer length */
    SPC_CV_COUNT,     /* integer count */
    SPC_CV_CONTENT,   /* bulk or nil */
    SPC_CV_GREP,      /* array of "N:line" / "N-line" (withmeta: [array, map]) or nil */
    SPC_CV_LIST,      /* [cursor, names or maps] */
    SPC_CV_EDIT,      /* [count, version] */
    SPC_CV_STAT,      /* map or nil */
    SPC_CV_INFO,      /* map or nil */
    SPC_CV_OFFLOAD,   /* map */
    SPC_CV_EXPIRE,    /* 1 set, 0 no such entry */
    SPC_CV_TTL,       /* -2 no such entry, -1 no expiry, else the ttl */
    SPC_CV_PERSIST,   /* 1 removed, 0 not (also SP.RELEASE, SP.DROPSNAPSHOT) */
    SPC_CV_LEASE,     /* [token, expires-at]; nil: still held after WAIT */
    SPC_CV_LEASES,    /* array of [resource, holder, token, ms-left] */
    SPC_CV_CHANGES,   /* map {first, last, gap, changes}; nil: BLOCK timed out */
    SPC_CV_META,      /* SP.STAT's map (its "meta"), or nil */
    SPC_CV_SNAPSHOTS, /* array of [label, time, entries, bytes] */
    SPC_CV_DIFF,      /* array of [status, name, old-v, new-v, old-size, new-size] */
    SPC_CV_HISTORY    /* array of [version, time, op, size, client], or nil */
} spc_conv;

#define SPC_INLINE_ARGS 24
#define SPC_NUMS 6

/* One command ready to send: argv[0..argc) with lens, and how to read its reply. */
typedef struct spc_cmd {
    spc_conv conv;
    int withmeta;                       /* WITHMETA was sent (READ, GREP, LIST) */
    int argc, cap;
    const char **argv;
    size_t *lens;
    const char *argv_s[SPC_INLINE_ARGS];
    size_t lens_s[SPC_INLINE_ARGS];
    char num[SPC_NUMS][24];             /* text of integer arguments */
    int nnum;
    int status;                         /* SP_OK, or SP_ERR_ARG / SP_ERR_OOM */
    const char *why;                    /* message when status is not SP_OK */
} spc_cmd;

void spc_cmd_free(spc_cmd *c);

/* Builders: fill *c (spc_cmd_free it afterwards in every case) and return
 * c->status: SP_OK, or SP_ERR_ARG / SP_ERR_OOM with c->why. */
int spc_build_write(spc_cmd *c, const char *ns, const char *name, const void *data, size_t len,
                    const spc_write_opts *o);
int spc_build_append(spc_cmd *c, const char *ns, const char *name, const void *data, size_t len,
                     const spc_append_opts *o);
int spc_build_read(spc_cmd *c, const char *ns, const char *name, const spc_read_opts *o);
int spc_build_range(spc_cmd *c, const char *ns, const char *name, long long start, long long end,
                    const spc_range_opts *o);
int spc_build_grep(spc_cmd *c, const char *ns, const char *name, const char *pattern, const spc_grep_opts *o);
int spc_build_list(spc_cmd *c, const char *ns, const spc_list_opts *o);
int spc_build_edit(spc_cmd *c, const char *ns, const char *name, const void *old, size_t old_len,
                   const void *new_text, size_t new_len, const spc_edit_opts *o);
int spc_build_insert(spc_cmd *c, const char *ns, const char *name, long long line, const void *text, size_t len,
                     const spc_insert_opts *o);
int spc_build_del(spc_cmd *c, const char *ns, const char *const *names, size_t n);
int spc_build_stat(spc_cmd *c, const char *ns, const char *name);
int spc_build_peek(spc_cmd *c, const char *ns, const char *name, const spc_peek_opts *o);
int spc_build_offload(spc_cmd *c, const char *ns, const void *data, size_t len, const spc_offload_opts *o);
/* SP.EXPIRE (ms 0) or SP.PEXPIRE (ms 1). */
int spc_build_expire(spc_cmd *c, const char *ns, const char *name, long long amount, int ms);
/* SP.TTL / SP.PTTL / SP.PERSIST: cmd is the command name. */
int spc_build_entry_cmd(spc_cmd *c, const char *cmd, spc_conv conv, const char *ns, const char *name);
int spc_build_info(spc_cmd *c, const char *ns);
int spc_build_lease(spc_cmd *c, const char *ns, const char *resource, const char *holder, long long ttl_ms,
                    long long wait_ms);
int spc_build_release(spc_cmd *c, const char *ns, const char *resource, const char *holder, uint64_t token);
int spc_build_changes(spc_cmd *c, const char *ns, const spc_changes_opts *o);
/* SP.META ns name SET fields (op 'S', n pairs), DEL names (op 'D', n names) or CLEAR (op 'C'). */
int spc_build_meta(spc_cmd *c, const char *ns, const char *name, int op, const spc_meta_field *fields,
                   const char *const *names, size_t n, const spc_fence *fence);
/* A command on one label: SP.SNAPSHOT, SP.RESTORE, SP.DROPSNAPSHOT (conv as the command replies). */
int spc_build_label_cmd(spc_cmd *c, const char *cmd, spc_conv conv, const char *ns, const char *label,
                        const spc_fence *fence);
/* SP.LEASES, SP.SNAPSHOTS: the command and ns only. */
int spc_build_ns_cmd(spc_cmd *c, const char *cmd, spc_conv conv, const char *ns);
/* SP.DIFF ns from to [name] (name NULL: the entries that differ). */
int spc_build_diff(spc_cmd *c, const char *ns, const char *from, const char *to, const char *name);
int spc_build_fork(spc_cmd *c, const char *src, const char *dst, const char *from_label, const spc_fence *fence);
int spc_build_revert(spc_cmd *c, const char *ns, const char *name, uint64_t version, const spc_fence *fence);
/* AUTH [username] password. */
int spc_build_auth(spc_cmd *c, const char *username, const char *password);
/* A TLS connection to host:port with o's tls_* options (spc_tls.c): a relay
 * thread, and in *fd a descriptor of plain bytes for hiredis (the caller
 * closes it; the thread relays it to the TLS session until either side
 * closes). NULL with a message in err on failure. spc_tls_close, after *fd is
 * closed, waits for the thread to end (it has freed everything then).
 * spc_tls_close(NULL) does nothing. */
typedef struct spc_tls spc_tls;
spc_tls *spc_tls_open(const char *host, int port, const spc_options *o, int *fd, char *err, size_t cap);
void spc_tls_close(spc_tls *t);

/* Turn reply r (not NULL) of a command read as `conv` into *res (zeroed
 * first), with res->errstr pointing at err (cap bytes, message written there).
 * If keep, a result object that points into r holds it (freed with it) and
 * *kept is set to 1; otherwise results point into r and are only valid while
 * r lives, and their priv is NULL. Returns res->status. */
int spc_convert(redisReply *r, spc_conv conv, int withmeta, int keep, spc_result *res, int *kept, char *err,
                size_t cap);

/* Free the objects of *res (content, grep, list, offload, leases, changes,
 * meta, snapshots, diff, history) and zero them. */
void spc_result_release(spc_result *res);

/* The status code for a server error message ("WRONGTYPE ...", "VERSION ..."). */
int spc_classify_error(const char *msg, size_t len);

/* Copy at most cap - 1 bytes of s[0..n) into dst, NUL-terminated. */
void spc_set_msg(char *dst, size_t cap, const char *s, size_t n);

#pragma GCC visibility pop

#endif
