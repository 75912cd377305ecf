/* client.h -- a connection's state: the client struct and its flags.
 *
 * Why here: the connection layer (net.c, reply.c) owns a client's buffers and
 * its life; the command families read its arguments and write its replies;
 * nothing below them (the keyspace, the types' own APIs, the log) ever sees a
 * client, so server.h only names the type.
 *
 * Invariants: a client is never freed inside its own event callback (it is
 * marked CLIENT_CLOSE_ASAP and freed after dispatch); arguments (c->argv) point
 * into the client's query buffer and are valid only while the command runs. */
#ifndef SP_CLIENT_H
#define SP_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "net/resp.h"
#include "server.h"

#define CLIENT_STATIC_OBUF (16 * 1024) /* bytes of the per-client static reply buffer */

/* Client flags. */
#define CLIENT_CLOSE_AFTER_REPLY (1u << 0) /* QUIT, protocol error: close once the replies are out */
#define CLIENT_CLOSE_ASAP        (1u << 1) /* output limit, CLIENT KILL: close without writing */
#define CLIENT_MULTI             (1u << 2) /* inside MULTI */
#define CLIENT_DIRTY_CAS         (1u << 3) /* a WATCHed key was touched */
#define CLIENT_DIRTY_EXEC        (1u << 4) /* an error while queueing */
#define CLIENT_AUTHENTICATED     (1u << 5)
#define CLIENT_REPLY_OFF         (1u << 6)
#define CLIENT_REPLY_SKIP_NEXT   (1u << 7)
#define CLIENT_REPLY_SKIP        (1u << 8)
#define CLIENT_PENDING_WRITE     (1u << 9) /* on srv.pending_writes */
#define CLIENT_UNIX              (1u << 10)
#define CLIENT_EXECUTING         (1u << 11) /* inside its read callback */
#define CLIENT_FAKE              (1u << 12) /* no connection (log replay) */
#define CLIENT_PROTECTED_WRITE   (1u << 13) /* write event armed */
#define CLIENT_AOF_HELD          (1u << 14) /* replies wait until the log is written up to aof_need */
#define CLIENT_BLOCKED           (1u << 15) /* waits for keys (cmd/block.h): runs no request meanwhile */
/* clang-format off */
#define CLIENT_PUBSUB            (1u << 16) /* has subscriptions (cmd/pubsub.h): the pubsub output class */
#define CLIENT_MONITOR           (1u << 17) /* gets every command run (cmd/monitor.h) */
#define CLIENT_TRACKING          (1u << 18) /* CLIENT TRACKING ON (cmd/tracking.h) */
#define CLIENT_TRACKING_BROKEN   (1u << 19) /* its REDIRECT client went away */
#define CLIENT_TRACKING_BCAST    (1u << 20) /* tracking in BCAST mode */
#define CLIENT_SCRIPT            (1u << 21) /* a script's client (fake): its replies are kept for the script */
#define CLIENT_POSTPONED         (1u << 22) /* its next request waits for CLIENT PAUSE's end (cmd/pause.h) */
#define CLIENT_NO_EVICT          (1u << 23) /* CLIENT NO-EVICT ON */
/* clang-format on */

/* A command queued by MULTI: owned copies of its arguments. */
typedef struct mcmd {
    const cmd_def *cmd;
    int argc;
    sarg *argv;
} mcmd;

/* The replies of `count` consecutive write commands that logged records, at
 * [start, end) of the client's output stream (bytes counted from the
 * connection's first reply): they wait for the log up to position `need`. */
typedef struct omark {
    uint64_t start, end;     /* bytes, positions in the output stream */
    uint64_t need;           /* log position (prop_mark) */
    uint64_t count;          /* replies (commands) in [start, end) */
} omark;

/* Reply bytes several clients send (a large published message): one copy,
 * counted references (net/reply.h: reply_shared). */
typedef struct oshared {
    long refs;  /* blocks pointing here, plus the creator's until released */
    size_t len; /* bytes */
    char data[];
} oshared;

/* A block of pending reply bytes beyond the static buffer: its own bytes in
 * buf, or (shared non-NULL) len bytes of a shared buffer, cap == len so that
 * nothing is ever appended to it. */
typedef struct oblock {
    struct oblock *next;
    size_t len;              /* bytes used */
    size_t cap;              /* bytes available in buf */
    oshared *shared;         /* NULL, or the shared bytes this block sends */
    char buf[];
} oblock;

static inline const char *oblock_data(const oblock *b)
{
    return b->shared ? b->shared->data : b->buf;
}

struct client {
    uint64_t id;
    int fd;                   /* -1 for fake clients */
    struct tls_conn *tls;     /* came in on tls-port (net/tls.h); NULL for a plain connection */
    uint32_t flags;
    int resp;                 /* 2 or 3 */
    struct event *rev, *wev;
    db *db;
    int dbid;

    /* Input. */
    char *qbuf;              /* query buffer (xmalloc'd) */
    size_t qlen;             /* bytes in qbuf */
    size_t qcap;             /* bytes allocated */
    size_t qpos;             /* bytes of qbuf already consumed by complete requests */
    size_t qpeak;            /* bytes, the largest qlen recently (for shrinking) */
    resp_parser parser;
    int argc;
    sarg *argv;              /* argc arguments, valid while the command runs */
    size_t argv_cap;
    const cmd_def *cmd, *lastcmd;

    /* Output. */
    char obuf[CLIENT_STATIC_OBUF];
    size_t olen;             /* bytes used in obuf */
    size_t osent;            /* bytes of obuf (or of the head block) already written */
    oblock *ohead, *otail;
    size_t ohead_sent;       /* bytes of the head block already written */
    size_t olist_bytes;      /* bytes in the block list */
    int odeferred;           /* blocks reserved by reply_defer not yet filled */
    int64_t soft_limit_since;/* ms when the soft output limit was first exceeded, 0 if not */
    uint64_t aof_need;       /* log position (prop_mark) the replies so far depend on */
    uint64_t osent_total;    /* bytes written to the socket since the connection opened */
    omark *omarks;           /* replies of writes that may not be logged yet, in order */
    int nomarks, omarks_cap;
    int64_t held_since;      /* ms when CLIENT_AOF_HELD was set */

    /* Transactions. */
    mcmd *mqueue;
    int mcount, mcap;
    struct watched_key *watched; /* list of keys this client WATCHes */
    struct blk_state *blk;   /* the wait of a blocked client (cmd/block.c), NULL if none */

    /* Pub/sub (cmd/pubsub.c): the subscriptions, NULL if none ever made. */
    struct ps_client *ps;
    int nsub, npsub, nssub; /* channels, patterns and shard channels subscribed */
    struct trk_state *trk;  /* client-side caching (cmd/tracking.c), NULL if never on */
    long long trk_redir;    /* CLIENT TRACKING REDIRECT id, 0 none (valid with CLIENT_TRACKING) */

    /* Identity and stats. */
    struct aclr_user *user;  /* cmd/acl.h: the user it runs as; NULL may run anything (the log's replay) */
    char *name;              /* CLIENT SETNAME, NULL if none */
    char *lib_name, *lib_ver;
    char addr[64], laddr[64];
    int64_t ctime;           /* ms, creation */
    int64_t last_interaction;/* ms */
    uint64_t cmds;           /* commands run */
    struct client *prev, *next;          /* all clients */
    struct client *pw_next;              /* pending-write list */
};

#endif
