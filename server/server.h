/* server.h -- the process-wide state and the types every command sees.
 *
 * One thread runs everything: the libevent loop reads requests, commands run
 * to completion against the keyspace, replies are buffered per client and
 * written once per loop iteration (see net.c). `srv` is the one server object.
 *
 * The client struct is the connection layer's (net/client.h); here it is only
 * a name, so that the layers below the commands (the keyspace, the types' own
 * APIs, the log) can include this header without reaching the connections. */
#ifndef SP_SERVER_H
#define SP_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/arena.h"
#include "keyspace/db.h"

#define SP_VERSION "7.0.15"        /* the Redis version we answer as (HELLO, INFO) */
#define SP_SERVER_VERSION "0.1.0"  /* scratchpad's own version */

/* Command flags (also reported by COMMAND). */
#define CMD_WRITE     (1u << 0)
#define CMD_READONLY  (1u << 1)
#define CMD_DENYOOM   (1u << 2)
#define CMD_ADMIN     (1u << 3)
#define CMD_PUBSUB    (1u << 4)
#define CMD_NOSCRIPT  (1u << 5)
#define CMD_LOADING   (1u << 6)  /* allowed while loading */
#define CMD_STALE     (1u << 7)
#define CMD_FAST      (1u << 8)
#define CMD_NO_AUTH   (1u << 9)  /* allowed before AUTH */
#define CMD_NO_MULTI  (1u << 10) /* not queued: runs at once inside MULTI (EXEC, DISCARD, ...) */
#define CMD_ALLOW_BUSY (1u << 11)
#define CMD_MAY_REPLICATE (1u << 12)
#define CMD_SENTINEL  (1u << 13)
#define CMD_NO_MANDATORY_KEYS (1u << 14)
#define CMD_SKIP_SLOWLOG (1u << 15)
#define CMD_NOT_IN_MULTI (1u << 16) /* refused inside MULTI (WATCH, ...) with its own error */
#define CMD_OWN_EFFECT (1u << 17)   /* logs its effect itself (persist.h); not reported by COMMAND */
#define CMD_BLOCKING  (1u << 18)    /* may wait for keys (cmd/block.h) */
#define CMD_SKIP_MONITOR (1u << 19) /* not shown by MONITOR (EVAL: its commands are) */
#define CMD_PROTECTED (1u << 20)    /* refused unless enable-debug-command allows it (DEBUG); not reported */

typedef struct client client;

/* One argument: bytes plus a NUL terminator after them (not counted in len). */
typedef struct sarg {
    char *p;
    size_t len;
} sarg;

typedef struct cmd_stats {
    long long calls;
    long long usec;          /* microseconds, total */
    long long rejected;      /* refused before running (arity, OOM, auth, ...) */
    long long failed;        /* ran and replied with an error */
} cmd_stats;

/* A command's row: everything the registry, dispatch, COMMAND (INFO, DOCS,
 * GETKEYS), ACL categories and the "is it a write?" question know of it, in one
 * place. Families write their rows with designated initializers; fields left
 * out are 0 / NULL. */
typedef struct cmd_def {
    const char *name;        /* lower case; "config|get" style for subcommands is built from parent */
    void (*proc)(client *c);
    int arity;               /* Redis convention: N exact, -N at least N (argv[0] included) */
    uint32_t flags;
    int first_key, last_key, key_step; /* key positions as COMMAND reports them (0 = no keys): KEYS() */
    const char *group;       /* COMMAND DOCS group: string, generic, connection, server, transactions, scratchpad */
    const char *summary;     /* COMMAND DOCS summary */
    const char *since;       /* first Redis/Scratchpad version with it */
    const char *complexity;
    const char *acl;         /* space-separated ACL categories without '@', for COMMAND */
    const char *tips;        /* COMMAND's tips, space-separated, or NULL */
    /* Key specs as COMMAND INFO reports them, or NULL for the default (one spec
     * over the key positions: "RW access update" for a write, "RO access" for a
     * read-only command): ';'-separated, one per spec, each its flags separated
     * by spaces, then optionally '#' and notes; a leading '?' marks a spec whose
     * keys cannot be found from the arguments (begin_search and find_keys
     * "unknown"). With one positional spec it covers the key positions; with
     * several, spec i is the single key at first_key + i * key_step. A spec
     * may give its positions after its flags (before any '#'):
     * "@index,lastkey,keystep" a range, "@k:index,keynumidx,firstkey,keystep"
     * keys counted by an argument (LMPOP, ZUNIONSTORE, SINTERCARD: then COMMAND
     * shows movablekeys, and dispatch finds the keys a write names from it). */
    const char *key_specs;
    const struct cmd_def *subcommands; /* table ended by a NULL name, or NULL */
} cmd_def;

/* A row's key positions: first, last (negative: from the end), step. */
#define KEYS(first, last, step) .first_key = (first), .last_key = (last), .key_step = (step)

/* Configuration values (see config.c for the table that fills them). */
typedef struct server_config {
    char *bind;
    int port;
    char *unixsocket;
    int unixsocketperm;
    int tcp_backlog;
    int tcp_keepalive;        /* s */
    int timeout;              /* s, idle client timeout, 0 = never */
    int maxclients;
    int databases;
    int loglevel;
    char *logfile;
    char *pidfile;
    char *dir;
    char *requirepass;
    int protected_mode;       /* refuse non-loopback clients while the default user has no password */
    long long maxmemory;      /* bytes, 0 = no limit */
    int maxmemory_policy;
    long long proto_max_bulk_len;         /* bytes */
    long long client_query_buffer_limit;  /* bytes */
    long long obuf_hard;      /* bytes, client-output-buffer-limit normal hard, 0 = none */
    long long obuf_soft;      /* bytes */
    int obuf_soft_seconds;    /* s */
    long long obuf_pubsub_hard;   /* bytes, client-output-buffer-limit pubsub (clients with subscriptions) */
    long long obuf_pubsub_soft;   /* bytes */
    int obuf_pubsub_soft_seconds; /* s */
    int notify_keyspace_events;   /* NOTIFY_* classes (cmd/signal.h) */
    int hz;
    long long slowlog_slower_than; /* microseconds, <0 disables */
    int slowlog_max_len;
    int busy_poll_us;              /* us the loop polls after input before sleeping, 0 = never */
    int busy_reply_threshold;      /* ms a script runs before other clients get -BUSY, 0 = never */
    long long compress_threshold;  /* bytes */
    long long compress_chunk;      /* bytes */
    int compress_write_accel;      /* LZ4 acceleration of values written while a dictionary
                                      registry re-encodes them once idle (lzval_new_fast) */
    int compress_dict_delay;       /* ms a compressed value stays unchanged before it takes
                                      its dictionary; -1: chosen on the write path */
    long long sp_offload_threshold;/* bytes, SP.OFFLOAD's default threshold */
    long long sp_default_ttl;      /* s, lifetime of entries written without one, 0 = none */
    long long sp_grep_max_scan;    /* bytes, the largest entry SP.GREP scans in one call */
    long long sp_grep_match_limit; /* PCRE2 match limit per line */
    long long sp_grep_max_time;    /* ms, the longest one SP.GREP call may run */
    int appendonly;                /* the append-only log is on */
    int appendfsync;               /* aof_fsync_policy: 0 no, 1 everysec, 2 always */
    int aof_load_truncated;        /* start after cutting a torn last record */
    int aof_load_bad_values;       /* a value that does not decode: 0 refuse to start, 1 skip it */
    long long auto_aof_rewrite_percentage; /* %, growth over the base that triggers a rewrite, 0 = never */
    long long auto_aof_rewrite_min_size;   /* bytes, no automatic rewrite below this log size */
    int aof_rewrite_mode;          /* 0 incremental (steps on the loop), 1 fork (a child) */
    int aof_rewrite_step_us;       /* us, the loop time one step of an incremental rewrite may take */
    char *aof_rewrite_cpulist;     /* CPUs the rewrite child runs on; "" = the server's */
    int aof_hold_timeout;          /* ms a reply may wait for a failing log before -IOERR, 0 = no limit */
    int list_max_listpack_size;    /* a list node's cap: -1..-5 = 4..64 KB, N > 0 = N elements */
    int list_compress_depth;       /* list nodes kept uncompressed at each end; those between are LZ4-compressed */
    int zset_max_listpack_entries; /* members of a sorted set kept in the compact encoding */
    long long zset_max_listpack_value; /* bytes, the longest member the compact encoding keeps */
    int enable_debug_command;          /* CFG_PROTECTED_NO / YES / LOCAL: who may run DEBUG */
    int enable_protected_configs;      /* CFG_PROTECTED_*: who may CONFIG SET a protected directive (dir) */
    int tls_port;                      /* 0 = no TLS listener */
    char *tls_cert_file, *tls_key_file, *tls_key_file_pass; /* PEM paths; the key's passphrase */
    char *tls_ca_cert_file, *tls_ca_cert_dir;               /* CAs client certificates are checked against */
    int tls_auth_clients;                                   /* 0 no, 1 yes (a certificate is required), 2 optional */
    char *tls_protocols;                                    /* "TLSv1.2 TLSv1.3" style; "" = TLSv1.2 and TLSv1.3 */
    char *tls_ciphers, *tls_ciphersuites; /* OpenSSL lists for TLSv1.2 and below / TLSv1.3; "" = OpenSSL's */
    int tls_prefer_server_ciphers;
    int tls_session_caching;
    int tls_session_cache_size;    /* sessions kept */
    int tls_session_cache_timeout; /* s a session stays resumable */
} server_config;

typedef struct server {
    server_config cfg;
    char *configfile;         /* absolute path, NULL if none */
    pid_t pid;
    int64_t start_ms;
    uint64_t hash_seed;
    struct event_base *base;
    int tcp_fds[32]; /* plain and TLS listeners, 16 addresses each at most */
    int tcp_nfds;
    int unix_fd;
    struct event *listen_ev[33];
    int nlisten;
    struct event *cron_ev;
    struct event *sig_ev[3];
    int shutdown_asap;
    arena *arena;             /* entries of every database */
    db *dbs;                  /* cfg.databases of them */
    uint64_t rng;             /* xorshift64* state */

    client *clients;          /* all connected clients */
    int nclients;
    uint64_t next_client_id;
    client *pending_writes;   /* clients with replies to write this iteration */
    client *current;          /* the client whose command is running */
    client **to_free;         /* clients to free after the current dispatch */
    int nto_free, cap_free;

    const cmd_def *cmd_multi, *cmd_exec, *cmd_discard, *cmd_quit, *cmd_reset, *cmd_watch;

    /* Stats. */
    long long stat_conns;           /* connections accepted */
    long long stat_rejected_conns;  /* refused by maxclients */
    long long stat_commands;
    long long stat_keyspace_hits, stat_keyspace_misses;
    long long stat_expired_keys;
    long long stat_net_in, stat_net_out;   /* bytes */
    long long stat_proto_errors;
    long long stat_oom_rejections;
    long long stat_obuf_disconnects;
    long long stat_aof_unlogged_replies; /* replies of writes answered -IOERR after aof-hold-timeout */
    long long dirty;                /* writes since start */
    int64_t last_save;              /* s since epoch */
    size_t peak_memory;

    struct slowlog_entry *slowlog;         /* ring of cfg.slowlog_max_len */
    int slowlog_len, slowlog_cap;   /* entries, newest first */
    long long slowlog_next_id;

    int watching_clients;           /* clients with at least one WATCHed key */

    /* Dataset accounting, from the last complete incremental pass (server.c). */
    size_t ds_logical;              /* bytes, values as clients see them */
    size_t ds_stored;               /* bytes, what the values occupy (compressed or not) */
    size_t ds_keys;                 /* keys seen by the pass */
    int64_t ds_when;                /* ms, when the pass completed (0 = none yet) */
    int loading;
} server;

extern server srv;

/* server.c: set-up, the cron and shut-down. */
int server_init_keyspace(void);
void server_cron(int fd, short what, void *arg);
/* The background dictionary's timer (server.c): extra conversion while the server is idle. */
void server_dict_cb(int fd, short what, void *arg);
/* Advance the dataset accounting pass for about budget_us (cron). */
void server_dataset_scan(int64_t budget_us);
void server_reschedule_cron(void);
void server_write_pidfile(void);
void server_shutdown(void);
/* In a forked child: close the listeners and every client's socket (the child
 * must not hold the server's port or its clients). */
void server_close_sockets(void);

/* Logging levels (config "loglevel"). */
enum { LL_DEBUG, LL_VERBOSE, LL_NOTICE, LL_WARNING };

#endif
