/* config.c -- the directive table and its readers (see config.h).
 *
 * Each directive is one row; scratchpad.conf documents every row with its default
 * as the active line, and tests/unit/test_config.c checks that the two agree. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

#include "log.h"
#include "core/mem.h"
#include "aof/persist.h"
#include "cmd/acl.h"
#include "cmd/signal.h"
#include "server.h"
#include "core/util.h"
#include "types/list/list.h"
#include "keyspace/vcomp.h"
#include "types/set/set.h"
#include "types/hash/hash.h"
#include "keyspace/evict.h"
#include "net/tls.h"
#include "types/sp/sptype.h"
#include "types/string/value.h"
#include "types/zset/zset.h"
#include "types/stream/stream.h"

static const char *const loglevel_names[] = {"debug", "verbose", "notice", "warning", NULL};
/* In keyspace/evict.h's EVICT_* order. */
static const char *const maxmemory_policy_names[] = {"volatile-lru",   "volatile-lfu", "volatile-random",
                                                     "volatile-ttl",   "allkeys-lru",  "allkeys-lfu",
                                                     "allkeys-random", "noeviction",   NULL};
static const char *const appendfsync_names[] = {"no", "everysec", "always", NULL};
static const char *const rewrite_mode_names[] = {"incremental", "fork", NULL};
static const char *const bad_values_names[] = {"refuse", "skip", NULL};
static const char *const protected_names[] = {"no", "yes", "local", NULL};
static const char *const tls_auth_names[] = {"no", "yes", "optional", NULL};

static int apply_appendonly(const char **err)
{
    return persist_apply_appendonly(err);
}

static int apply_appendfsync(const char **err)
{
    return persist_apply_fsync(err);
}

/* aof-rewrite-cpulist: checked here so that a bad list stops the start, not
 * a rewrite (persist_rewrite.c applies it in the child). */
static int apply_cpulist(const char **err)
{
    uint64_t mask[CPULIST_WORDS];

    if (cpulist_parse(srv.cfg.aof_rewrite_cpulist, mask, CPULIST_WORDS) < 0) {
        *err = "Invalid CPU list: expected CPU numbers and ranges such as 0-3,8,10-15:2";
        return -1;
    }
    return 0;
}

/* client-output-buffer-limit: "<class> <hard> <soft> <soft-seconds>" groups.
 * The normal class holds every client without subscriptions, the pubsub class
 * the clients with some (reply.c picks by CLIENT_PUBSUB); the replica class has
 * no clients here and is accepted (so stock redis.conf lines load) and kept. */
static long long obuf_replica[3] = {256LL << 20, 64LL << 20, 60};

static int obuf_set(int argc, char **argv, const char **err)
{
    long long vals[3][3];
    int i, j;

    memcpy(vals[1], obuf_replica, sizeof(vals[1]));
    vals[0][0] = srv.cfg.obuf_hard;
    vals[0][1] = srv.cfg.obuf_soft;
    vals[0][2] = srv.cfg.obuf_soft_seconds;
    vals[2][0] = srv.cfg.obuf_pubsub_hard;
    vals[2][1] = srv.cfg.obuf_pubsub_soft;
    vals[2][2] = srv.cfg.obuf_pubsub_soft_seconds;
    if (argc == 0 || argc % 4 != 0) {
        *err = "Wrong number of arguments in buffer limit configuration.";
        return -1;
    }
    for (i = 0; i < argc; i += 4) {
        int cls;
        if (strcasecmp(argv[i], "normal") == 0)
            cls = 0;
        else if (strcasecmp(argv[i], "replica") == 0 || strcasecmp(argv[i], "slave") == 0)
            cls = 1;
        else if (strcasecmp(argv[i], "pubsub") == 0)
            cls = 2;
        else {
            *err = "Invalid client class specified in buffer limit configuration.";
            return -1;
        }
        for (j = 0; j < 3; j++) {
            long long v;
            char *end;
            int bad;
            if (j < 2) {
                bad = str_to_memory(argv[i + 1 + j], &v) < 0;
            } else {
                /* Seconds: a plain integer as Redis reads it (strtoll: no unit,
                 * so "60g" is refused), at most INT_MAX (Redis keeps a larger
                 * one cut to 32 bits, which CONFIG GET then shows negative). */
                errno = 0;
                v = strtoll(argv[i + 3], &end, 10);
                bad = end == argv[i + 3] || *end || errno || v < 0 || v > INT_MAX;
            }
            if (bad) {
                *err = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
                return -1;
            }
            vals[cls][j] = v;
        }
    }
    srv.cfg.obuf_hard = vals[0][0];
    srv.cfg.obuf_soft = vals[0][1];
    srv.cfg.obuf_soft_seconds = (int)vals[0][2];
    memcpy(obuf_replica, vals[1], sizeof(vals[1]));
    srv.cfg.obuf_pubsub_hard = vals[2][0];
    srv.cfg.obuf_pubsub_soft = vals[2][1];
    srv.cfg.obuf_pubsub_soft_seconds = (int)vals[2][2];
    return 0;
}

static void obuf_get(char *buf, size_t cap)
{
    snprintf(buf, cap, "normal %lld %lld %d slave %lld %lld %lld pubsub %lld %lld %d", srv.cfg.obuf_hard,
             srv.cfg.obuf_soft, srv.cfg.obuf_soft_seconds, obuf_replica[0], obuf_replica[1], obuf_replica[2],
             srv.cfg.obuf_pubsub_hard, srv.cfg.obuf_pubsub_soft, srv.cfg.obuf_pubsub_soft_seconds);
}

/* notify-keyspace-events: Redis's class letters (cmd/signal.h). */
static int notify_set(int argc, char **argv, const char **err)
{
    int flags;

    if (argc == 0)
        flags = 0;
    else if (argc != 1 || notify_flags_parse(argv[0], &flags) < 0) {
        *err = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
        return -1;
    }
    srv.cfg.notify_keyspace_events = flags;
    return 0;
}

static void notify_get(char *buf, size_t cap)
{
    char flags[32];
    notify_flags_format(srv.cfg.notify_keyspace_events, flags);
    snprintf(buf, cap, "%s", flags);
}

/* save: Redis's RDB snapshot schedule. Scratchpad keeps no snapshots (the
 * append-only log is its durable copy), so the one value it takes is the empty
 * schedule, "" (as `redis-server --save ''` and `CONFIG SET save ""` write it),
 * and any schedule is refused with the reason. It exists so that tools which
 * read or set it (redis-benchmark's CONFIG GET save, scripts written for
 * redis-server) get Redis's answer for a server without snapshots. */
static int save_set(int argc, char **argv, const char **err)
{
    if (argc == 0 || (argc == 1 && argv[0][0] == '\0'))
        return 0;
    *err = "snapshots (RDB) are not supported: the only schedule is \"\" (none); "
           "Scratchpad persists through the append-only log (appendonly)";
    return -1;
}

static void save_get(char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
}

static int apply_maxclients(const char **err)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)srv.cfg.maxclients + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
        rlim_t old = rl.rlim_cur;
        rl.rlim_cur = want <= rl.rlim_max ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < want) {
            /* As Redis: keep 32 descriptors for the server and lower maxclients to
             * what the limit allows, so extra clients get a clear refusal. */
            int before = srv.cfg.maxclients;
            getrlimit(RLIMIT_NOFILE, &rl);
            if (rl.rlim_cur <= 32) {
                *err = "The operating system is not able to handle the specified number of clients";
                return -1;
            }
            srv.cfg.maxclients = (int)(rl.rlim_cur - 32);
            log_warning("You requested maxclients of %d requiring at least %llu max file descriptors; the limit "
                        "is %llu (was %llu), so maxclients is now %d.",
                        before, (unsigned long long)want, (unsigned long long)rl.rlim_cur, (unsigned long long)old,
                        srv.cfg.maxclients);
        }
    }
    return 0;
}

static int apply_policy(const char **err)
{
    (void)err;
    evict_policy = srv.cfg.maxmemory_policy;
    db_lfu = evict_is_lfu(evict_policy);
    evict_pool_clear();
    return 0;
}

static int apply_compress(const char **err)
{
    (void)err;
    vc_threshold = (size_t)srv.cfg.compress_threshold;
    vc_chunk = (size_t)srv.cfg.compress_chunk;
    vc_accel = srv.cfg.compress_write_accel;
    /* Near maxmemory, values are written at full compression at once. */
    vc_accel_mem_limit = srv.cfg.maxmemory > 0 ? (size_t)(srv.cfg.maxmemory / 4 * 3) : 0;
    vc_dict_delay = srv.cfg.compress_dict_delay;
    return 0;
}

void slowlog_resize(void);
static int apply_zset(const char **err)
{
    (void)err;
    zs_max_entries = srv.cfg.zset_max_listpack_entries;
    zs_max_value = srv.cfg.zset_max_listpack_value;
    return 0;
}

static int apply_slowlog(const char **err)
{
    (void)err;
    slowlog_resize();
    return 0;
}

static int apply_list(const char **err)
{
    (void)err;
    list_fill = srv.cfg.list_max_listpack_size;
    list_compress_depth = srv.cfg.list_compress_depth;
    return 0;
}

void server_reschedule_cron(void);
static int apply_requirepass(const char **err)
{
    return acl_apply_requirepass(err);
}

static int apply_hz(const char **err)
{
    (void)err;
    server_reschedule_cron();
    return 0;
}

/* A change of a tls-* directive builds a new TLS context (net/tls.c) when TLS
 * is on; the connections open keep the one they started with. At start-up
 * there is none yet: net_listen builds the first. */
static int apply_tls(const char **err)
{
    if (tls_has_context() && tls_configure() < 0) {
        *err = "Unable to update TLS configuration. Check server logs.";
        return -1;
    }
    return 0;
}

#define C(f) ((void *)&srv.cfg.f)
/* clang-format off */
const cfg_def cfg_table[] = {
    {"bind", CFG_STRING, CFG_IMMUTABLE, 0, 0, "127.0.0.1", C(bind), NULL, NULL, NULL, NULL},
    {"port", CFG_INT, CFG_IMMUTABLE, 0, 65535, "6379", C(port), NULL, NULL, NULL, NULL},
    {"unixsocket", CFG_STRING, CFG_IMMUTABLE, 0, 0, "", C(unixsocket), NULL, NULL, NULL, NULL},
    {"unixsocketperm", CFG_OCTAL, CFG_IMMUTABLE, 0, 0777, "0", C(unixsocketperm), NULL, NULL, NULL, NULL},
    {"tcp-backlog", CFG_INT, CFG_IMMUTABLE, 0, 65535, "511", C(tcp_backlog), NULL, NULL, NULL, NULL},
    {"tcp-keepalive", CFG_INT, 0, 0, 7200, "300", C(tcp_keepalive), NULL, NULL, NULL, NULL},
    {"tls-port", CFG_INT, CFG_IMMUTABLE, 0, 65535, "0", C(tls_port), NULL, NULL, NULL, NULL},
    {"tls-cert-file", CFG_STRING, 0, 0, 0, "", C(tls_cert_file), NULL, NULL, NULL, apply_tls},
    {"tls-key-file", CFG_STRING, 0, 0, 0, "", C(tls_key_file), NULL, NULL, NULL, apply_tls},
    {"tls-key-file-pass", CFG_STRING, CFG_SENSITIVE, 0, 0, "", C(tls_key_file_pass), NULL, NULL, NULL, apply_tls},
    {"tls-ca-cert-file", CFG_STRING, 0, 0, 0, "", C(tls_ca_cert_file), NULL, NULL, NULL, apply_tls},
    {"tls-ca-cert-dir", CFG_STRING, 0, 0, 0, "", C(tls_ca_cert_dir), NULL, NULL, NULL, apply_tls},
    {"tls-auth-clients", CFG_ENUM, 0, 0, 0, "yes", C(tls_auth_clients), tls_auth_names, NULL, NULL, apply_tls},
    {"tls-protocols", CFG_STRING, 0, 0, 0, "", C(tls_protocols), NULL, NULL, NULL, apply_tls},
    {"tls-ciphers", CFG_STRING, 0, 0, 0, "", C(tls_ciphers), NULL, NULL, NULL, apply_tls},
    {"tls-ciphersuites", CFG_STRING, 0, 0, 0, "", C(tls_ciphersuites), NULL, NULL, NULL, apply_tls},
    {"tls-prefer-server-ciphers", CFG_BOOL, 0, 0, 0, "no", C(tls_prefer_server_ciphers), NULL, NULL, NULL, apply_tls},
    {"tls-session-caching", CFG_BOOL, 0, 0, 0, "yes", C(tls_session_caching), NULL, NULL, NULL, apply_tls},
    {"tls-session-cache-size", CFG_INT, 0, 0, INT_MAX, "20480", C(tls_session_cache_size), NULL, NULL, NULL, apply_tls},
    {"tls-session-cache-timeout", CFG_INT, 0, 0, INT_MAX, "300", C(tls_session_cache_timeout), NULL, NULL, NULL,
     apply_tls},
    {"timeout", CFG_INT, 0, 0, 2000000000, "0", C(timeout), NULL, NULL, NULL, NULL},
    {"maxclients", CFG_INT, 0, 1, 1000000, "10000", C(maxclients), NULL, NULL, NULL, apply_maxclients},
    {"databases", CFG_INT, CFG_IMMUTABLE, 1, 1024, "16", C(databases), NULL, NULL, NULL, NULL},
    {"enable-debug-command", CFG_ENUM, CFG_IMMUTABLE, 0, 0, "no", C(enable_debug_command), protected_names, NULL, NULL,
     NULL},
    {"enable-protected-configs", CFG_ENUM, CFG_IMMUTABLE, 0, 0, "no", C(enable_protected_configs), protected_names, NULL,
     NULL, NULL},
    {"loglevel", CFG_ENUM, 0, 0, 0, "notice", C(loglevel), loglevel_names, NULL, NULL, NULL},
    {"logfile", CFG_STRING, CFG_IMMUTABLE, 0, 0, "", C(logfile), NULL, NULL, NULL, NULL},
    {"pidfile", CFG_STRING, CFG_IMMUTABLE, 0, 0, "", C(pidfile), NULL, NULL, NULL, NULL},
    {"protected-mode", CFG_BOOL, 0, 0, 0, "yes", C(protected_mode), NULL, NULL, NULL, NULL},
    {"requirepass", CFG_STRING, CFG_SENSITIVE, 0, 0, "", C(requirepass), NULL, NULL, NULL, apply_requirepass},
    {"aclfile", CFG_STRING, CFG_IMMUTABLE, 0, 0, "", &acl_filename, NULL, NULL, NULL, NULL},
    {"acllog-max-len", CFG_INT, 0, 0, INT_MAX, "128", &acl_log_max_len, NULL, NULL, NULL, NULL},
    {"maxmemory", CFG_MEMORY, 0, 0, LLONG_MAX, "0", C(maxmemory), NULL, NULL, NULL, apply_compress},
    {"maxmemory-policy", CFG_ENUM, 0, 0, 0, "noeviction", C(maxmemory_policy), maxmemory_policy_names, NULL, NULL,
     apply_policy},
    {"maxmemory-samples", CFG_INT, 0, 1, INT_MAX, "5", &evict_samples, NULL, NULL, NULL, NULL},
    {"lfu-log-factor", CFG_INT, 0, 0, INT_MAX, "10", &db_lfu_log_factor, NULL, NULL, NULL, NULL},
    {"lfu-decay-time", CFG_INT, 0, 0, INT_MAX, "1", &db_lfu_decay_time, NULL, NULL, NULL, NULL},
    {"proto-max-bulk-len", CFG_MEMORY, 0, 1024 * 1024, 2047LL * 1024 * 1024, "512mb", C(proto_max_bulk_len), NULL, NULL,
     NULL, NULL},
    {"client-query-buffer-limit", CFG_MEMORY, 0, 1024 * 1024, LLONG_MAX, "1gb", C(client_query_buffer_limit), NULL,
     NULL, NULL, NULL},
    {"client-output-buffer-limit", CFG_SPECIAL, 0, 0, 0, "normal 1gb 256mb 60 replica 256mb 64mb 60 pubsub 32mb 8mb 60",
     NULL, NULL, obuf_set, obuf_get, NULL},
    {"notify-keyspace-events", CFG_SPECIAL, 0, 0, 0, "\"\"", NULL, NULL, notify_set, notify_get, NULL},
    {"hz", CFG_INT, 0, 1, 500, "10", C(hz), NULL, NULL, NULL, apply_hz},
    {"slowlog-log-slower-than", CFG_INT, 0, -1, LLONG_MAX, "10000", C(slowlog_slower_than), NULL, NULL, NULL, NULL},
    {"slowlog-max-len", CFG_INT, 0, 0, 1000000, "128", C(slowlog_max_len), NULL, NULL, NULL, apply_slowlog},
    {"busy-poll-us", CFG_INT, 0, 0, 1000000, "100", C(busy_poll_us), NULL, NULL, NULL, NULL},
    {"busy-reply-threshold", CFG_INT, 0, 0, INT_MAX, "5000", C(busy_reply_threshold), NULL, NULL, NULL, NULL},
    {"compress-threshold", CFG_MEMORY, 0, 0, 1LL << 30, "4096", C(compress_threshold), NULL, NULL, NULL, apply_compress},
    {"compress-chunk", CFG_MEMORY, 0, 1024, 16LL << 20, "64kb", C(compress_chunk), NULL, NULL, NULL, apply_compress},
    {"compress-dict-delay", CFG_INT, 0, -1, 86400000, "5000", C(compress_dict_delay), NULL, NULL, NULL, apply_compress},
    {"compress-write-acceleration", CFG_INT, 0, 1, 64, "2", C(compress_write_accel), NULL, NULL, NULL, apply_compress},
    {"compress-hot-reads", CFG_INT, 0, 0, 1000000, "8", (void *)&sv_hot_reads, NULL, NULL, NULL, NULL},
    {"compress-hot-max-memory", CFG_MEMORY, 0, 0, LLONG_MAX, "64mb", (void *)&sv_hot_max_memory, NULL, NULL, NULL, NULL},
    {"sp-offload-threshold", CFG_MEMORY, 0, 0, 1LL << 30, "4096", C(sp_offload_threshold), NULL, NULL, NULL, NULL},
    {"sp-default-ttl", CFG_INT, 0, 0, 100LL * 365 * 24 * 3600, "0", C(sp_default_ttl), NULL, NULL, NULL, NULL},
    {"sp-grep-max-scan", CFG_MEMORY, 0, 1024, 1LL << 32, "64mb", C(sp_grep_max_scan), NULL, NULL, NULL, NULL},
    {"sp-grep-max-time", CFG_INT, 0, 1, 60000, "250", C(sp_grep_max_time), NULL, NULL, NULL, NULL},
    {"sp-changes-max-len", CFG_INT, 0, 0, 1000000, "10000", &sp_changes_max_len, NULL, NULL, NULL, NULL},
    {"sp-history-depth", CFG_INT, 0, 0, 100, "1", &sp_history_depth, NULL, NULL, NULL, NULL},
    {"hash-max-listpack-entries", CFG_INT, 0, 0, LLONG_MAX, "128", &hash_max_listpack_entries, NULL, NULL, NULL, NULL},
    {"hash-max-listpack-value", CFG_MEMORY, 0, 0, LLONG_MAX, "64", &hash_max_listpack_value, NULL, NULL, NULL, NULL},
    {"dir", CFG_STRING, CFG_IMMUTABLE | CFG_PROTECTED, 0, 0, "./data", C(dir), NULL, NULL, NULL, NULL},
    {"save", CFG_SPECIAL, 0, 0, 0, "\"\"", NULL, NULL, save_set, save_get, NULL},
    {"appendonly", CFG_BOOL, 0, 0, 0, "yes", C(appendonly), NULL, NULL, NULL, apply_appendonly},
    {"appendfsync", CFG_ENUM, 0, 0, 0, "everysec", C(appendfsync), appendfsync_names, NULL, NULL, apply_appendfsync},
    {"aof-load-truncated", CFG_BOOL, 0, 0, 0, "yes", C(aof_load_truncated), NULL, NULL, NULL, NULL},
    {"aof-load-bad-values", CFG_ENUM, 0, 0, 0, "refuse", C(aof_load_bad_values), bad_values_names, NULL, NULL, NULL},
    {"auto-aof-rewrite-percentage", CFG_INT, 0, 0, INT_MAX, "100", C(auto_aof_rewrite_percentage), NULL, NULL, NULL,
     NULL},
    {"auto-aof-rewrite-min-size", CFG_MEMORY, 0, 0, LLONG_MAX, "64mb", C(auto_aof_rewrite_min_size), NULL, NULL, NULL,
     NULL},
    {"aof-rewrite-step-us", CFG_INT, 0, 1, 100000, "1000", C(aof_rewrite_step_us), NULL, NULL, NULL, NULL},
    {"aof-rewrite-mode", CFG_ENUM, 0, 0, 0, "incremental", C(aof_rewrite_mode), rewrite_mode_names, NULL, NULL, NULL},
    {"aof-rewrite-cpulist", CFG_STRING, CFG_IMMUTABLE, 0, 0, "", C(aof_rewrite_cpulist), NULL, NULL, NULL,
     apply_cpulist},
    {"aof-hold-timeout", CFG_INT, 0, 0, 86400000, "1000", C(aof_hold_timeout), NULL, NULL, NULL, NULL},
    {"list-max-listpack-size", CFG_INT, 0, INT_MIN, INT_MAX, "-2", C(list_max_listpack_size), NULL, NULL, NULL,
     apply_list},
    {"list-compress-depth", CFG_INT, 0, 0, INT_MAX, "0", C(list_compress_depth), NULL, NULL, NULL, apply_list},
    {"sp-grep-match-limit", CFG_INT, 0, 1000, 1000000000, "1000000", C(sp_grep_match_limit), NULL, NULL, NULL, NULL},
    {"set-max-intset-entries", CFG_INT, 0, 0, INT_MAX, "512", (void *)&set_max_intset_entries, NULL, NULL, NULL, NULL},
    {"zset-max-listpack-entries", CFG_INT, 0, 0, INT_MAX, "128", C(zset_max_listpack_entries), NULL, NULL, NULL, apply_zset},
    {"zset-max-listpack-value", CFG_MEMORY, 0, 0, LLONG_MAX, "64", C(zset_max_listpack_value), NULL, NULL, NULL, apply_zset},
    {"stream-node-max-bytes", CFG_MEMORY, 0, 0, LLONG_MAX, "4096", (void *)&stream_node_max_bytes, NULL, NULL, NULL, NULL},
    {"stream-node-max-entries", CFG_INT, 0, 0, LLONG_MAX, "100", (void *)&stream_node_max_entries, NULL, NULL, NULL, NULL},
    {"hll-sparse-max-bytes", CFG_MEMORY, 0, 0, LLONG_MAX, "3000", (void *)&hll_sparse_max_bytes, NULL, NULL, NULL, NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
/* clang-format on */
#undef C

/* Width of each INT field: all ints are int except these long long ones. */
static int is_ll_field(const cfg_def *d)
{
    return d->type == CFG_MEMORY || d->field == (void *)&srv.cfg.slowlog_slower_than ||
           d->field == (void *)&srv.cfg.sp_default_ttl || d->field == (void *)&srv.cfg.sp_grep_match_limit ||
           d->field == (void *)&srv.cfg.sp_grep_max_time || d->field == (void *)&srv.cfg.auto_aof_rewrite_percentage ||
           d->field == (void *)&hash_max_listpack_entries || d->field == (void *)&hash_max_listpack_value ||
           d->field == (void *)&stream_node_max_entries || d->field == (void *)&sp_changes_max_len;
}

const cfg_alias cfg_aliases[] = {
    {"hash-max-ziplist-entries", "hash-max-listpack-entries"},
    {"hash-max-ziplist-value", "hash-max-listpack-value"},
    {"list-max-ziplist-size", "list-max-listpack-size"},
    {"lua-time-limit", "busy-reply-threshold"},
    {"zset-max-ziplist-entries", "zset-max-listpack-entries"},
    {"zset-max-ziplist-value", "zset-max-listpack-value"},
    {NULL, NULL},
};

const cfg_def *cfg_find(const char *name, size_t len)
{
    const cfg_def *d;
    const cfg_alias *a;

    for (d = cfg_table; d->name; d++)
        if (str_eq_ci(name, len, d->name))
            return d;
    for (a = cfg_aliases; a->alias; a++)
        if (str_eq_ci(name, len, a->alias))
            return cfg_find(a->name, strlen(a->name));
    return NULL;
}

int cfg_set(const cfg_def *d, int argc, char **argv, const char **err)
{
    static char msg[256];
    long long v;
    int i;

    if (d->type == CFG_SPECIAL) {
        char *words[64], buf[1024];
        if (argc == 1) {
            int n = cfg_split(argv[0], words, 64, buf, sizeof(buf));
            if (n < 0) {
                *err = "unbalanced quotes";
                return -1;
            }
            return d->set(n, words, err);
        }
        return d->set(argc, argv, err);
    }
    if (argc != 1) {
        *err = "wrong number of arguments";
        return -1;
    }
    switch (d->type) {
    case CFG_BOOL:
        if (strcasecmp(argv[0], "yes") == 0)
            *(int *)d->field = 1;
        else if (strcasecmp(argv[0], "no") == 0)
            *(int *)d->field = 0;
        else {
            *err = "argument must be 'yes' or 'no'";
            return -1;
        }
        return 0;
    case CFG_INT:
    case CFG_OCTAL:
    case CFG_MEMORY:
        if (d->type == CFG_INT) {
            if (str_to_ll(argv[0], strlen(argv[0]), &v) < 0) {
                *err = "argument couldn't be parsed into an integer";
                return -1;
            }
        } else if (d->type == CFG_OCTAL) {
            char *end;
            errno = 0;
            v = strtoll(argv[0], &end, 8);
            if (!argv[0][0] || *end || errno) {
                *err = "argument couldn't be parsed into an integer";
                return -1;
            }
        } else if (str_to_memory(argv[0], &v) < 0) {
            *err = "argument must be a memory value";
            return -1;
        }
        if (v < d->min || v > d->max) {
            snprintf(msg, sizeof(msg), "argument must be between %lld and %lld inclusive", d->min, d->max);
            *err = msg;
            return -1;
        }
        if (is_ll_field(d))
            *(long long *)d->field = v;
        else
            *(int *)d->field = (int)v;
        return 0;
    case CFG_ENUM:
        for (i = 0; d->enums[i]; i++) {
            if (strcasecmp(argv[0], d->enums[i]) == 0) {
                *(int *)d->field = i;
                return 0;
            }
        }
        {
            size_t off = (size_t)snprintf(msg, sizeof(msg), "argument(s) must be one of the following:");
            for (i = 0; d->enums[i] && off < sizeof(msg); i++)
                off += (size_t)snprintf(msg + off, sizeof(msg) - off, " %s%s", d->enums[i], d->enums[i + 1] ? "," : "");
        }
        *err = msg;
        return -1;
    case CFG_STRING: {
        char **f = d->field;
        xfree(*f);
        *f = xstrdup(argv[0]);
        return 0;
    }
    default:
        *err = "unsupported";
        return -1;
    }
}

void cfg_format(const cfg_def *d, char *buf, size_t cap)
{
    switch (d->type) {
    case CFG_BOOL:
        snprintf(buf, cap, "%s", *(int *)d->field ? "yes" : "no");
        break;
    case CFG_INT:
    case CFG_MEMORY:
        if (is_ll_field(d))
            snprintf(buf, cap, "%lld", *(long long *)d->field);
        else
            snprintf(buf, cap, "%d", *(int *)d->field);
        break;
    case CFG_OCTAL:
        snprintf(buf, cap, "%o", *(int *)d->field);
        break;
    case CFG_ENUM:
        snprintf(buf, cap, "%s", d->enums[*(int *)d->field]);
        break;
    case CFG_STRING: {
        char *s = *(char **)d->field;
        snprintf(buf, cap, "%s", s ? s : "");
        break;
    }
    case CFG_SPECIAL:
        d->get(buf, cap);
        break;
    }
}

void cfg_defaults(void)
{
    static const long long obuf_replica_default[3] = {256LL << 20, 64LL << 20, 60};
    const cfg_def *d;

    memcpy(obuf_replica, obuf_replica_default, sizeof(obuf_replica));
    for (d = cfg_table; d->name; d++) {
        char *words[16], buf[512];
        const char *err = NULL;
        int n = cfg_split(d->deflt, words, 16, buf, sizeof(buf));
        if (d->type == CFG_STRING) {
            char **f = d->field;
            xfree(*f);
            *f = xstrdup(d->deflt);
            continue;
        }
        if (cfg_set(d, n, words, &err) < 0) {
            fprintf(stderr, "bad default for %s: %s\n", d->name, err);
            abort();
        }
    }
    apply_compress(NULL);
}

static int hexval(int c)
{
    return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

int cfg_split(const char *line, char **words, int max, char *out, size_t cap)
{
    const char *p = line;
    size_t o = 0;
    int n = 0;

    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            return n;
        if (n == max || o >= cap)
            return -1;
        words[n++] = out + o;
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            for (;;) {
                if (!*p)
                    return -1;
                if (q == '"' && *p == '\\' && p[1]) {
                    p++;
                    if (*p == 'x' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
                        out[o++] = (char)(hexval(p[1]) * 16 + hexval(p[2]));
                        p += 3;
                        continue;
                    }
                    switch (*p) {
                    case 'n': out[o++] = '\n'; break;
                    case 'r': out[o++] = '\r'; break;
                    case 't': out[o++] = '\t'; break;
                    case 'b': out[o++] = '\b'; break;
                    case 'a': out[o++] = '\a'; break;
                    default: out[o++] = *p; break;
                    }
                    p++;
                } else if (q == '\'' && *p == '\\' && p[1] == '\'') {
                    out[o++] = '\'';
                    p += 2;
                } else if (*p == q) {
                    p++;
                    if (*p && !isspace((unsigned char)*p))
                        return -1;
                    break;
                } else {
                    out[o++] = *p++;
                }
                if (o + 1 >= cap)
                    return -1;
            }
        } else {
            while (*p && !isspace((unsigned char)*p) && o + 1 < cap)
                out[o++] = *p++;
        }
        out[o++] = '\0';
    }
}

/* Apply one "name args..." line; file and line are for the message. */
static int load_line(const char *file, int lineno, const char *line)
{
    char *words[256], buf[8192];
    const cfg_def *d;
    const char *err = NULL;
    const char *p = line;
    int n;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '#' || *p == '\0')
        return 0;
    n = cfg_split(line, words, 256, buf, sizeof(buf));
    if (n == 0)
        return 0;
    if (n < 0) {
        fprintf(stderr, "*** FATAL CONFIG FILE ERROR (Scratchpad %s) ***\n%s:%d: unbalanced quotes or line too long\n>>> '%s'\n",
                SP_SERVER_VERSION, file, lineno, line);
        return -1;
    }
    if (words[0][0] == '#')
        return 0;
    if (strcasecmp(words[0], "user") == 0) {
        /* users are applied once the whole configuration is read (cmd/acl.h) */
        if (acl_config_user(n - 1, words + 1, &err) < 0) {
            fprintf(stderr, "*** FATAL CONFIG FILE ERROR (Scratchpad %s) ***\n%s:%d: directive 'user': %s\n>>> '%s'\n",
                    SP_SERVER_VERSION, file, lineno, err, line);
            return -1;
        }
        return 0;
    }
    d = cfg_find(words[0], strlen(words[0]));
    if (!d) {
        fprintf(stderr, "*** FATAL CONFIG FILE ERROR (Scratchpad %s) ***\n%s:%d: unknown directive '%s'\n>>> '%s'\n",
                SP_SERVER_VERSION, file, lineno, words[0], line);
        return -1;
    }
    if (d->type == CFG_STRING && n == 1) {
        char *empty = "";
        return cfg_set(d, 1, &empty, &err);
    }
    if (d->field == (void *)&srv.cfg.bind && n > 2) {
        /* bind takes several addresses: keep them as one space-separated value. */
        char joined[4096];
        char *one = joined;
        size_t o = 0;
        int k;
        for (k = 1; k < n && o < sizeof(joined) - 1; k++)
            o += (size_t)snprintf(joined + o, sizeof(joined) - o, "%s%s", k > 1 ? " " : "", words[k]);
        return cfg_set(d, 1, &one, &err);
    }
    if (cfg_set(d, n - 1, words + 1, &err) < 0) {
        fprintf(stderr, "*** FATAL CONFIG FILE ERROR (Scratchpad %s) ***\n%s:%d: directive '%s': %s\n>>> '%s'\n",
                SP_SERVER_VERSION, file, lineno, d->name, err, line);
        return -1;
    }
    return 0;
}

int cfg_load_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    int lineno = 0, rc = 0;

    if (!f) {
        fprintf(stderr, "Fatal error, can't open config file '%s': %s\n", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        size_t n = strlen(line);
        lineno++;
        if (n == sizeof(line) - 1 && line[n - 1] != '\n' && !feof(f)) {
            fprintf(stderr, "*** FATAL CONFIG FILE ERROR (Scratchpad %s) ***\n%s:%d: line too long (over %zu bytes)\n",
                    SP_SERVER_VERSION, path, lineno, sizeof(line) - 2);
            rc = -1;
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (load_line(path, lineno, line) < 0) {
            rc = -1;
            break;
        }
    }
    fclose(f);
    return rc;
}

int cfg_load_args(int argc, char **argv)
{
    int i = 0;

    while (i < argc) {
        const cfg_def *d;
        const char *err = NULL;
        int j;
        if (strncmp(argv[i], "--", 2) != 0) {
            fprintf(stderr, "command line: expected --directive, got '%s'\n", argv[i]);
            return -1;
        }
        if (strcasecmp(argv[i] + 2, "user") == 0) {
            for (j = i + 1; j < argc && strncmp(argv[j], "--", 2) != 0; j++)
                ;
            if (acl_config_user(j - i - 1, argv + i + 1, &err) < 0) {
                fprintf(stderr, "*** FATAL CONFIG ERROR *** command line: directive 'user': %s\n", err);
                return -1;
            }
            i = j;
            continue;
        }
        d = cfg_find(argv[i] + 2, strlen(argv[i] + 2));
        if (!d) {
            fprintf(stderr, "*** FATAL CONFIG ERROR *** command line: unknown directive '%s'\n", argv[i] + 2);
            return -1;
        }
        for (j = i + 1; j < argc && strncmp(argv[j], "--", 2) != 0; j++)
            ;
        if (j == i + 1 && d->type == CFG_STRING) {
            char *empty = "";
            cfg_set(d, 1, &empty, &err);
        } else if (cfg_set(d, j - i - 1, argv + i + 1, &err) < 0) {
            fprintf(stderr, "*** FATAL CONFIG ERROR *** command line: directive '%s': %s\n", d->name, err);
            return -1;
        }
        i = j;
    }
    return 0;
}
