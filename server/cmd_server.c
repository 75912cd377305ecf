/* cmd_server.c -- server commands: INFO, DBSIZE, FLUSHDB, FLUSHALL, TIME,
 * LASTSAVE, DEBUG, SHUTDOWN, COMMAND, CONFIG and SLOWLOG, with Redis 7.0's
 * replies (RESP2 and RESP3) and error strings.
 *
 * Why here: these commands read the server as a whole (the command table, the
 * configuration table, the counters) rather than keys, so they are kept apart
 * from the data-type families.
 *
 * COMMAND: cmd_def rows carry name, arity, flags, key positions and ACL words.
 * Redis 7 also reports request/response "tips" and key specifications, which the
 * rows do not carry; cmd_meta below keeps them for the Redis commands of the
 * families this server has (copied from redis-server 7.0.15). A command without
 * a row gets one key spec derived from its first/last/step key positions and its
 * read/write flags.
 *
 * Invariants: nothing here walks the keyspace (INFO reports what is O(1) to know,
 * plus loops over the databases, clients and commands); CONFIG SET changes either
 * every directive it names or none. */
#include <errno.h>
#include <event2/event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "config.h"
#include "mem.h"
#include "multi.h"
#include "persist.h"
#include "reply.h"
#include "stats.h"
#include "util.h"
#include "value.h"

/* Until commands.c defines these two accessors the references stay weak: the
 * server links, INFO commandstats is empty and CONFIG RESETSTAT keeps the error
 * counts. Once they exist these lines change nothing. */

/* ---- a growable text buffer for INFO ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap; /* bytes used, bytes allocated */
} sbuf;

static void sb_catf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_catf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
}

/* Format n bytes as Redis's bytesToHuman ("1023B", "1.50K", "2.00M"). */
static void bytes_human(char *buf, size_t cap, unsigned long long n)
{
    static const char units[] = "KMGTPE";
    double d = (double)n;
    int u = -1;

    if (n < 1024) {
        snprintf(buf, cap, "%lluB", n);
        return;
    }
    while (d >= 1024 && u < 5) {
        d /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.2f%c", d, units[u]);
}

/* 40 random hex characters, generated once (run_id, master_replid). */
static void random_hex(char *out, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[64];
    size_t i;

    if (n > sizeof(raw))
        n = sizeof(raw);
    if (getrandom(raw, n, 0) != (ssize_t)n) {
        uint64_t x = (uint64_t)now_us() ^ ((uint64_t)getpid() << 32);
        for (i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            raw[i] = (unsigned char)x;
        }
    }
    for (i = 0; i < n; i++)
        out[i] = hex[raw[i] & 15];
    out[n] = '\0';
}

static const char *run_id(void)
{
    static char id[41];
    if (!id[0])
        random_hex(id, 40);
    return id;
}

static const char *repl_id(void)
{
    static char id[41];
    if (!id[0])
        random_hex(id, 40);
    return id;
}

/* ---- instantaneous metrics ---- */

#define STATS_SAMPLES 16
#define STATS_SAMPLE_MS 100

enum { METRIC_OPS, METRIC_NET_IN, METRIC_NET_OUT, METRIC_COUNT };

typedef struct inst_metric {
    long long last_value;          /* counter at the last sample */
    long long samples[STATS_SAMPLES]; /* per second */
    int idx;
} inst_metric;

static inst_metric metrics[METRIC_COUNT];
static int64_t metrics_last_ms; /* ms, monotonic, of the last sample; 0 = none yet */

static long long metric_counter(int m)
{
    switch (m) {
    case METRIC_OPS: return srv.stat_commands;
    case METRIC_NET_IN: return srv.stat_net_in;
    default: return srv.stat_net_out;
    }
}

void stats_cron_sample(void)
{
    int64_t now = mono_us() / 1000, dt;
    int m;

    if (metrics_last_ms && now - metrics_last_ms < STATS_SAMPLE_MS)
        return;
    dt = now - metrics_last_ms;
    for (m = 0; m < METRIC_COUNT; m++) {
        long long v = metric_counter(m);
        if (metrics_last_ms) {
            inst_metric *im = &metrics[m];
            im->samples[im->idx] = (v - im->last_value) * 1000 / dt;
            im->idx = (im->idx + 1) % STATS_SAMPLES;
        }
        metrics[m].last_value = v;
    }
    metrics_last_ms = now;
}

void stats_reset_samples(void)
{
    memset(metrics, 0, sizeof(metrics));
    metrics_last_ms = 0;
    stats_cron_sample();
}

static long long metric_mean(int m)
{
    long long sum = 0;
    int i;
    for (i = 0; i < STATS_SAMPLES; i++)
        sum += metrics[m].samples[i];
    return sum / STATS_SAMPLES;
}

/* ---- INFO ---- */

static void info_server(sbuf *b)
{
    static struct utsname un;
    static char exe[4096];
    int64_t now = now_ms(), up = (now - srv.start_ms) / 1000;

    if (!un.sysname[0])
        uname(&un);
    if (!exe[0]) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        exe[n > 0 ? n : 0] = '\0';
    }
    sb_catf(b,
            "redis_version:%s\r\n"
            "scratchpad_version:%s\r\n"
            "redis_git_sha1:00000000\r\n"
            "redis_git_dirty:0\r\n"
            "redis_mode:standalone\r\n"
            "os:%s %s %s\r\n"
            "arch_bits:%d\r\n"
            "monotonic_clock:POSIX clock_gettime\r\n"
            "multiplexing_api:libevent\r\n"
            "gcc_version:%d.%d.%d\r\n"
            "process_id:%ld\r\n"
            "process_supervised:no\r\n"
            "run_id:%s\r\n"
            "tcp_port:%d\r\n"
            "server_time_usec:%lld\r\n"
            "uptime_in_seconds:%lld\r\n"
            "uptime_in_days:%lld\r\n"
            "hz:%d\r\n"
            "configured_hz:%d\r\n"
            "lru_clock:%lld\r\n"
            "executable:%s\r\n"
            "config_file:%s\r\n"
            "io_threads_active:0\r\n",
            SP_VERSION, SP_SERVER_VERSION, un.sysname, un.release, un.machine, (int)(sizeof(long) * 8),
#ifdef __GNUC__
            __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__,
#else
            0, 0, 0,
#endif
            (long)getpid(), run_id(), srv.cfg.port, (long long)now_us(), (long long)up, (long long)(up / 86400),
            srv.cfg.hz, srv.cfg.hz, (long long)((now / 1000) & ((1 << 24) - 1)), exe,
            srv.configfile ? srv.configfile : "");
}

static void info_clients(sbuf *b)
{
    size_t max_in = 0, max_out = 0;
    client *x;

    for (x = srv.clients; x; x = x->next) {
        size_t out = reply_pending(x);
        if (x->qcap > max_in)
            max_in = x->qcap;
        if (out > max_out)
            max_out = out;
    }
    sb_catf(b,
            "connected_clients:%d\r\n"
            "cluster_connections:0\r\n"
            "maxclients:%d\r\n"
            "client_recent_max_input_buffer:%zu\r\n"
            "client_recent_max_output_buffer:%zu\r\n"
            "blocked_clients:0\r\n"
            "tracking_clients:0\r\n"
            "clients_in_timeout_table:0\r\n"
            "watching_clients:%d\r\n",
            srv.nclients, srv.cfg.maxclients, max_in, max_out, srv.watching_clients);
}

static void info_memory(sbuf *b)
{
    size_t used = mem_used(), rss = mem_rss(), clients_mem = 0;
    unsigned long long total_ram = 0;
    char h_used[32], h_rss[32], h_peak[32], h_total[32], h_max[32], policy[64] = "noeviction";
    const cfg_def *pol = cfg_find("maxmemory-policy", 16);
    struct sysinfo si;
    arena_stats as;
    client *x;

    if (used > srv.peak_memory)
        srv.peak_memory = used;
    if (sysinfo(&si) == 0)
        total_ram = (unsigned long long)si.totalram * si.mem_unit;
    for (x = srv.clients; x; x = x->next)
        clients_mem += sizeof(client) + x->qcap + x->olist_bytes;
    if (pol)
        cfg_format(pol, policy, sizeof(policy));
    memset(&as, 0, sizeof(as));
    if (srv.arena)
        arena_get_stats(srv.arena, &as);
    bytes_human(h_used, sizeof(h_used), used);
    bytes_human(h_rss, sizeof(h_rss), rss);
    bytes_human(h_peak, sizeof(h_peak), srv.peak_memory);
    bytes_human(h_total, sizeof(h_total), total_ram);
    bytes_human(h_max, sizeof(h_max), (unsigned long long)srv.cfg.maxmemory);
    sb_catf(b,
            "used_memory:%zu\r\n"
            "used_memory_human:%s\r\n"
            "used_memory_rss:%zu\r\n"
            "used_memory_rss_human:%s\r\n"
            "used_memory_peak:%zu\r\n"
            "used_memory_peak_human:%s\r\n"
            "used_memory_peak_perc:%.2f%%\r\n"
            "total_system_memory:%llu\r\n"
            "total_system_memory_human:%s\r\n"
            "maxmemory:%lld\r\n"
            "maxmemory_human:%s\r\n"
            "maxmemory_policy:%s\r\n"
            "mem_fragmentation_ratio:%.2f\r\n"
            "mem_fragmentation_bytes:%lld\r\n"
            "mem_clients_normal:%zu\r\n"
            "mem_allocator:libc\r\n"
            "active_defrag_running:0\r\n"
            "lazyfree_pending_objects:0\r\n"
            "lazyfreed_objects:0\r\n"
            "arena_live_bytes:%zu\r\n"
            "arena_live_objects:%zu\r\n"
            "arena_large_bytes:%zu\r\n"
            "arena_page_bytes:%zu\r\n"
            "arena_pages:%zu\r\n"
            "lz4_pending_values:%zu\r\n"
            "dataset_logical_bytes:%zu\r\n"
            "dataset_stored_bytes:%zu\r\n"
            "dataset_compression_ratio:%.2f\r\n"
            "dataset_accounted_keys:%zu\r\n"
            "dataset_accounted_at:%lld\r\n",
            used, h_used, rss, h_rss, srv.peak_memory, h_peak,
            srv.peak_memory ? (double)used * 100 / (double)srv.peak_memory : 0.0, total_ram, h_total,
            srv.cfg.maxmemory, h_max, policy, used ? (double)rss / (double)used : 0.0,
            (long long)rss - (long long)used, clients_mem, as.live_bytes, as.live_objects, as.large_bytes,
            as.page_bytes, as.pages, sv_compress_pending(), srv.ds_logical, srv.ds_stored,
            srv.ds_stored ? (double)srv.ds_logical / (double)srv.ds_stored : 1.0, srv.ds_keys,
            (long long)srv.ds_when);
}

static void info_persistence(sbuf *b)
{
    persist_info pi;

    persist_get_info(&pi);
    sb_catf(b,
            "loading:%d\r\n"
            "async_loading:0\r\n"
            "current_cow_peak:%lld\r\n"
            "current_cow_size:%lld\r\n"
            "current_fork_perc:0.00\r\n"
            "rdb_changes_since_last_save:%lld\r\n"
            "rdb_bgsave_in_progress:0\r\n"
            "rdb_last_save_time:%lld\r\n"
            "rdb_last_bgsave_status:ok\r\n"
            "rdb_saves:0\r\n"
            "aof_enabled:%d\r\n"
            "aof_rewrite_in_progress:%d\r\n"
            "aof_rewrite_scheduled:0\r\n" /* a rewrite starts at once or fails: none is deferred */
            "aof_last_rewrite_time_sec:%lld\r\n"
            "aof_current_rewrite_time_sec:%lld\r\n"
            "aof_last_bgrewrite_status:%s\r\n"
            "aof_rewrites:%lld\r\n"
            "aof_rewrites_consecutive_failures:%lld\r\n"
            "aof_last_write_status:%s\r\n"
            "aof_last_write_error:%s\r\n"
            "aof_last_cow_size:%lld\r\n"
            "aof_last_fork_usec:%lld\r\n"
            "aof_fsync:%s\r\n"
            "aof_dir:%s\r\n"
            "aof_last_load_records:%lld\r\n"
            "aof_last_load_bytes:%lld\r\n"
            "aof_last_load_time_ms:%lld\r\n"
            "aof_last_load_truncated_bytes:%lld\r\n",
            srv.loading ? 1 : 0, pi.current_cow_size, pi.current_cow_size, srv.dirty, (long long)srv.last_save,
            pi.enabled, pi.rewrite_in_progress, pi.last_rewrite_time_sec,
            pi.current_rewrite_time_sec, pi.last_rewrite_ok ? "ok" : "err", pi.rewrites,
            pi.rewrite_failures_in_a_row, pi.last_write_ok ? "ok" : "err", pi.last_write_error, pi.last_cow_size,
            pi.fork_usec, pi.fsync_policy, pi.dir, pi.load_records, pi.load_bytes, pi.load_ms,
            pi.load_truncated_bytes);
    if (pi.enabled)
        sb_catf(b,
                "aof_current_size:%lld\r\n"
                "aof_base_size:%lld\r\n"
                "aof_pending_rewrite:0\r\n"
                "aof_buffer_length:%lld\r\n"
                "aof_pending_bio_fsync:%d\r\n"
                "aof_delayed_fsync:%lld\r\n"
                "aof_held_clients:%lld\r\n",
                pi.current_size, pi.base_size, pi.buffer_length, pi.fsync_in_progress,
                pi.delayed_fsync, pi.held_clients);
}

static void info_stats(sbuf *b)
{
    sb_catf(b,
            "total_connections_received:%lld\r\n"
            "total_commands_processed:%lld\r\n"
            "instantaneous_ops_per_sec:%lld\r\n"
            "total_net_input_bytes:%lld\r\n"
            "total_net_output_bytes:%lld\r\n"
            "total_net_repl_input_bytes:0\r\n"
            "total_net_repl_output_bytes:0\r\n"
            "instantaneous_input_kbps:%.2f\r\n"
            "instantaneous_output_kbps:%.2f\r\n"
            "instantaneous_input_repl_kbps:0.00\r\n"
            "instantaneous_output_repl_kbps:0.00\r\n"
            "rejected_connections:%lld\r\n"
            "sync_full:0\r\n"
            "sync_partial_ok:0\r\n"
            "sync_partial_err:0\r\n"
            "expired_keys:%lld\r\n"
            "evicted_keys:0\r\n"
            "evicted_clients:0\r\n"
            "keyspace_hits:%lld\r\n"
            "keyspace_misses:%lld\r\n"
            "pubsub_channels:0\r\n"
            "pubsub_patterns:0\r\n"
            "pubsubshard_channels:0\r\n"
            "latest_fork_usec:0\r\n"
            "total_forks:0\r\n"
            "tracking_total_keys:0\r\n"
            "tracking_total_items:0\r\n"
            "tracking_total_prefixes:0\r\n"
            "unexpected_error_replies:0\r\n"
            "total_error_replies:%lld\r\n"
            "dump_payload_sanitizations:0\r\n"
            "io_threaded_reads_processed:0\r\n"
            "io_threaded_writes_processed:0\r\n"
            "client_output_buffer_limit_disconnections:%lld\r\n"
            "total_protocol_errors:%lld\r\n"
            "oom_rejected_commands:%lld\r\n",
            srv.stat_conns, srv.stat_commands, metric_mean(METRIC_OPS), srv.stat_net_in, srv.stat_net_out,
            (double)metric_mean(METRIC_NET_IN) / 1024, (double)metric_mean(METRIC_NET_OUT) / 1024,
            srv.stat_rejected_conns, srv.stat_expired_keys, db_stat_hits, db_stat_misses, cmd_total_errors(),
            srv.stat_obuf_disconnects, srv.stat_proto_errors, srv.stat_oom_rejections);
}

static void info_replication(sbuf *b)
{
    sb_catf(b,
            "role:master\r\n"
            "connected_slaves:0\r\n"
            "master_failover_state:no-failover\r\n"
            "master_replid:%s\r\n"
            "master_replid2:0000000000000000000000000000000000000000\r\n"
            "master_repl_offset:0\r\n"
            "second_repl_offset:-1\r\n"
            "repl_backlog_active:0\r\n"
            "repl_backlog_size:1048576\r\n"
            "repl_backlog_first_byte_offset:0\r\n"
            "repl_backlog_histlen:0\r\n",
            repl_id());
}

static double tv_sec(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1000000.0;
}

static void info_cpu(sbuf *b)
{
    struct rusage self, children, thread;

    memset(&self, 0, sizeof(self));
    memset(&children, 0, sizeof(children));
    memset(&thread, 0, sizeof(thread));
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    getrusage(RUSAGE_THREAD, &thread);
    sb_catf(b,
            "used_cpu_sys:%.6f\r\n"
            "used_cpu_user:%.6f\r\n"
            "used_cpu_sys_children:%.6f\r\n"
            "used_cpu_user_children:%.6f\r\n"
            "used_cpu_sys_main_thread:%.6f\r\n"
            "used_cpu_user_main_thread:%.6f\r\n",
            tv_sec(self.ru_stime), tv_sec(self.ru_utime), tv_sec(children.ru_stime), tv_sec(children.ru_utime),
            tv_sec(thread.ru_stime), tv_sec(thread.ru_utime));
}

static void info_modules(sbuf *b)
{
    (void)b;
}

static void cmdstat_line(sbuf *b, const cmd_def *cmd)
{
    const cmd_stats *st = cmd_get_stats(cmd);

    if (!st || (!st->calls && !st->failed && !st->rejected))
        return;
    sb_catf(b, "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,failed_calls=%lld\r\n",
            cmd_fullname(cmd), st->calls, st->usec, st->calls ? (double)st->usec / (double)st->calls : 0.0,
            st->rejected, st->failed);
}

static void cmdstat_visit(const cmd_def *cmd, void *ctx)
{
    sbuf *b = ctx;
    const cmd_def *s;

    cmdstat_line(b, cmd);
    if (cmd->subcommands)
        for (s = cmd->subcommands; s->name; s++)
            cmdstat_line(b, s);
}

static void info_commandstats(sbuf *b)
{
    cmd_foreach(cmdstat_visit, b);
}

static void errstat_visit(const char *code, long long count, void *ctx)
{
    if (count > 0)
        sb_catf(ctx, "errorstat_%s:count=%lld\r\n", code, count);
}

static void info_errorstats(sbuf *b)
{
    cmd_foreach_error(errstat_visit, b);
}

static void info_cluster(sbuf *b)
{
    sb_catf(b, "cluster_enabled:0\r\n");
}

static void info_keyspace(sbuf *b)
{
    int i;
    for (i = 0; srv.dbs && i < srv.cfg.databases; i++) {
        const db *d = &srv.dbs[i];
        if (db_size(d) > 0)
            sb_catf(b, "db%d:keys=%llu,expires=%u,avg_ttl=0\r\n", i, (unsigned long long)db_size(d),
                    (unsigned)db_expires(d));
    }
}

typedef struct info_section {
    const char *name;    /* as INFO's argument */
    const char *title;   /* as the "# Title" line */
    void (*gen)(sbuf *b);
    int in_default;      /* part of INFO with no argument */
} info_section;

/* In Redis's order; "all" and "everything" are every section. */
static const info_section info_sections[] = {
    {"server", "Server", info_server, 1},
    {"clients", "Clients", info_clients, 1},
    {"memory", "Memory", info_memory, 1},
    {"persistence", "Persistence", info_persistence, 1},
    {"stats", "Stats", info_stats, 1},
    {"replication", "Replication", info_replication, 1},
    {"cpu", "CPU", info_cpu, 1},
    {"modules", "Modules", info_modules, 1},
    {"commandstats", "Commandstats", info_commandstats, 0},
    {"errorstats", "Errorstats", info_errorstats, 1},
    {"cluster", "Cluster", info_cluster, 1},
    {"keyspace", "Keyspace", info_keyspace, 1},
};
#define NSECTIONS ((int)(sizeof(info_sections) / sizeof(info_sections[0])))

static void cmd_info(client *c)
{
    int want[NSECTIONS], i, j, n = 0;
    sbuf b = {NULL, 0, 0};

    memset(want, 0, sizeof(want));
    for (i = 0; i < NSECTIONS; i++)
        want[i] = c->argc == 1 && info_sections[i].in_default;
    for (j = 1; j < c->argc; j++) {
        const sarg *a = &c->argv[j];
        int all = str_eq_ci(a->p, a->len, "all") || str_eq_ci(a->p, a->len, "everything");
        int deflt = str_eq_ci(a->p, a->len, "default");
        for (i = 0; i < NSECTIONS; i++)
            if (all || (deflt && info_sections[i].in_default) || str_eq_ci(a->p, a->len, info_sections[i].name) ||
                (str_eq_ci(a->p, a->len, "module_list") && info_sections[i].gen == info_modules))
                want[i] = 1;
    }
    stats_cron_sample();
    for (i = 0; i < NSECTIONS; i++) {
        if (!want[i])
            continue;
        sb_catf(&b, "%s# %s\r\n", n++ ? "\r\n" : "", info_sections[i].title);
        info_sections[i].gen(&b);
    }
    reply_verbatim(c, b.p ? b.p : "", b.len);
    xfree(b.p);
}

/* ---- keyspace-wide commands ---- */

static void cmd_dbsize(client *c)
{
    reply_int(c, (long long)db_size(c->db));
}

/* Check FLUSHDB/FLUSHALL's optional ASYNC|SYNC argument; 0, or -1 after replying.
 * Both flush at once: there is no background freeing thread. */
static int flush_args(client *c)
{
    if (c->argc > 2 || (c->argc == 2 && !str_eq_ci(c->argv[1].p, c->argv[1].len, "sync") &&
                        !str_eq_ci(c->argv[1].p, c->argv[1].len, "async"))) {
        reply_error(c, ERR_SYNTAX);
        return -1;
    }
    return 0;
}

static void cmd_flushdb(client *c)
{
    if (flush_args(c) < 0)
        return;
    multi_touch_db(c->db);
    srv.dirty += db_flush(c->db);
    reply_ok(c);
}

static void cmd_flushall(client *c)
{
    int i;
    if (flush_args(c) < 0)
        return;
    for (i = 0; i < srv.cfg.databases; i++) {
        multi_touch_db(&srv.dbs[i]);
        srv.dirty += db_flush(&srv.dbs[i]);
    }
    srv.dirty++; /* as Redis: a FLUSHALL of empty databases still counts as a change */
    reply_ok(c);
}

static void cmd_time(client *c)
{
    int64_t us = now_us();
    reply_array(c, 2);
    reply_bulk_ll(c, us / 1000000);
    reply_bulk_ll(c, us % 1000000);
}

static void cmd_lastsave(client *c)
{
    reply_int(c, (long long)srv.last_save);
}

static void cmd_bgrewriteaof(client *c)
{
    const char *err;
    if (persist_bgrewrite(&err) < 0)
        reply_error(c, err);
    else
        reply_status(c, "Background append only file rewriting started");
}

/* ---- DEBUG and SHUTDOWN ---- */

static void reply_subcommand_syntax(client *c)
{
    char up[32];
    size_t i;
    for (i = 0; i < c->argv[0].len && i < sizeof(up) - 1; i++)
        up[i] = (char)(c->argv[0].p[i] >= 'a' && c->argv[0].p[i] <= 'z' ? c->argv[0].p[i] - 32 : c->argv[0].p[i]);
    up[i] = '\0';
    reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.", c->argv[1].p,
                 up);
}

/* DEBUG SLEEP <seconds>: block the whole server, as Redis does (tests use it to
 * make a command slow). The seconds are parsed as strtod does: garbage is 0. */
static void debug_sleep(client *c)
{
    double secs = strtod(c->argv[2].p, NULL);
    struct timespec ts;

    if (!(secs > 0))
        secs = 0;
    if (secs > 1e9)
        secs = 1e9;
    ts.tv_sec = (time_t)secs;
    ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    reply_ok(c);
}

static void cmd_debug(client *c)
{
    static const char *const help[] = {
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "LZ4-CORRUPT <key> [<entry>] <chunk>",
        "    Test hook: damage compressed chunk <chunk> of a string value, or of entry",
        "    <entry> of a scratchpad, so that tests can check corruption is detected.",
        NULL,
    };
    if (c->argc == 2 && str_eq_ci(c->argv[1].p, c->argv[1].len, "help"))
        reply_help(c, help);
    else if (c->argc == 3 && str_eq_ci(c->argv[1].p, c->argv[1].len, "sleep"))
        debug_sleep(c);
    else if ((c->argc == 4 || c->argc == 5) && str_eq_ci(c->argv[1].p, c->argv[1].len, "lz4-corrupt"))
        debug_lz4_corrupt(c);
    else
        reply_subcommand_syntax(c);
}

/* SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. Nothing is saved (the log, when
 * there is one, is flushed by server_shutdown); the loop stops after this
 * callback and the client is closed without a reply, as Redis does. */
static void cmd_shutdown(client *c)
{
    int nosave = 0, save = 0, other = 0, abort_req = 0, i;

    for (i = 1; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        if (str_eq_ci(a->p, a->len, "nosave"))
            nosave = 1;
        else if (str_eq_ci(a->p, a->len, "save"))
            save = 1;
        else if (str_eq_ci(a->p, a->len, "now") || str_eq_ci(a->p, a->len, "force"))
            other = 1;
        else if (str_eq_ci(a->p, a->len, "abort"))
            abort_req = 1;
        else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if ((abort_req && (nosave || save || other)) || (nosave && save)) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (abort_req) {
        reply_error(c, "ERR No shutdown in progress.");
        return;
    }
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    srv.shutdown_asap = 1;
    if (srv.base)
        event_base_loopbreak(srv.base);
}

/* ---- COMMAND ---- */

/* What Redis 7 reports and the rows do not carry: tips (space-separated) and key
 * specs. specs is ';'-separated, one entry per key spec: its flags separated by
 * spaces, then optionally '#' and notes; a leading '?' marks a spec whose keys
 * cannot be found from the arguments (begin_search and find_keys "unknown").
 * With one positional spec it covers first..last by step; with several, spec i
 * is the single key at first + i*step. Sorted by name (bsearch). */
typedef struct cmd_meta {
    const char *name;
    const char *tips;
    const char *specs;
} cmd_meta;

static const cmd_meta cmd_metas[] = {
    {"append", NULL, "RW insert"},
    {"client|info", "nondeterministic_output", NULL},
    {"client|list", "nondeterministic_output", NULL},
    {"command", "nondeterministic_output_order", NULL},
    {"command|docs", "nondeterministic_output_order", NULL},
    {"command|info", "nondeterministic_output_order", NULL},
    {"command|list", "nondeterministic_output_order", NULL},
    {"config|set", "request_policy:all_nodes response_policy:all_succeeded", NULL},
    {"copy", NULL, "RO access;OW update"},
    {"dbsize", "request_policy:all_shards response_policy:agg_sum", NULL},
    {"decr", NULL, "RW access update"},
    {"decrby", NULL, "RW access update"},
    {"del", "request_policy:multi_shard response_policy:agg_sum", "RM delete"},
    {"dump", "nondeterministic_output", "RO access"},
    {"exists", "request_policy:multi_shard response_policy:agg_sum", "RO"},
    {"expire", NULL, "RW update"},
    {"expireat", NULL, "RW update"},
    {"expiretime", NULL, "RO access"},
    {"flushall", "request_policy:all_shards response_policy:all_succeeded", NULL},
    {"flushdb", "request_policy:all_shards response_policy:all_succeeded", NULL},
    {"get", NULL, "RO access"},
    {"getdel", NULL, "RW access delete"},
    {"getex", NULL, "RW access update#RW and UPDATE because it changes the TTL"},
    {"getrange", NULL, "RO access"},
    {"getset", NULL, "RW access update"},
    {"incr", NULL, "RW access update"},
    {"incrby", NULL, "RW access update"},
    {"incrbyfloat", NULL, "RW access update"},
    {"info", "nondeterministic_output request_policy:all_shards response_policy:special", NULL},
    {"keys", "request_policy:all_shards nondeterministic_output_order", NULL},
    {"lastsave", "nondeterministic_output", NULL},
    {"latency|doctor", "nondeterministic_output request_policy:all_nodes response_policy:special", NULL},
    {"latency|graph", "nondeterministic_output request_policy:all_nodes response_policy:special", NULL},
    {"latency|histogram", "nondeterministic_output request_policy:all_nodes response_policy:special", NULL},
    {"latency|history", "nondeterministic_output request_policy:all_nodes response_policy:special", NULL},
    {"latency|latest", "nondeterministic_output request_policy:all_nodes response_policy:special", NULL},
    {"latency|reset", "request_policy:all_nodes response_policy:all_succeeded", NULL},
    {"lcs", NULL, "RO access"},
    {"memory|doctor", "nondeterministic_output request_policy:all_shards response_policy:special", NULL},
    {"memory|malloc-stats", "nondeterministic_output request_policy:all_shards response_policy:special", NULL},
    {"memory|purge", "request_policy:all_shards response_policy:all_succeeded", NULL},
    {"memory|stats", "nondeterministic_output request_policy:all_shards response_policy:special", NULL},
    {"memory|usage", NULL, "RO"},
    {"mget", "request_policy:multi_shard", "RO access"},
    {"module|list", "nondeterministic_output_order", NULL},
    {"move", NULL, "RW access update"},
    {"mset", "request_policy:multi_shard response_policy:all_succeeded", "OW update"},
    {"msetnx", "request_policy:multi_shard response_policy:agg_min", "OW insert"},
    {"object|encoding", "nondeterministic_output", "RO"},
    {"object|freq", "nondeterministic_output", "RO"},
    {"object|idletime", "nondeterministic_output", "RO"},
    {"object|refcount", "nondeterministic_output", "RO"},
    {"persist", NULL, "RW update"},
    {"pexpire", NULL, "RW update"},
    {"pexpireat", NULL, "RW update"},
    {"pexpiretime", NULL, "RO access"},
    {"ping", "request_policy:all_shards response_policy:all_succeeded", NULL},
    {"psetex", NULL, "OW update"},
    {"pttl", "nondeterministic_output", "RO access"},
    {"randomkey", "request_policy:all_shards nondeterministic_output", NULL},
    {"rename", NULL, "RW access delete;OW update"},
    {"renamenx", NULL, "RW access delete;OW insert"},
    {"restore", NULL, "OW update"},
    {"restore-asking", NULL, "OW update"},
    {"scan", "nondeterministic_output request_policy:special", NULL},
    {"set", NULL, "RW access update variable_flags#RW and ACCESS due to the optional `GET` argument"},
    {"setex", NULL, "OW update"},
    {"setnx", NULL, "OW insert"},
    {"setrange", NULL, "RW update"},
    {"slowlog|get", "request_policy:all_nodes nondeterministic_output", NULL},
    {"slowlog|len", "request_policy:all_nodes response_policy:agg_sum nondeterministic_output", NULL},
    {"slowlog|reset", "request_policy:all_nodes response_policy:all_succeeded", NULL},
    {"sort", NULL,
     "RO access;?RO access#For the optional BY/GET keyword. It is marked 'unknown' because the key names derive "
     "from the content of the key we sort;?OW update#For the optional STORE keyword. It is marked 'unknown' "
     "because the keyword can appear anywhere in the argument array"},
    {"sort_ro", NULL,
     "RO access;?RO access#For the optional BY/GET keyword. It is marked 'unknown' because the key names derive "
     "from the content of the key we sort"},
    {"strlen", NULL, "RO"},
    {"substr", NULL, "RO access"},
    {"time", "nondeterministic_output", NULL},
    {"touch", "request_policy:multi_shard response_policy:agg_sum", "RO"},
    {"ttl", "nondeterministic_output", "RO access"},
    {"type", NULL, "RO"},
    {"unlink", "request_policy:multi_shard response_policy:agg_sum", "RM delete"},
    {"wait", "request_policy:all_shards response_policy:agg_min", NULL},
    {"watch", NULL, "RO"},
};

static int meta_cmp(const void *key, const void *row)
{
    return strcmp(key, ((const cmd_meta *)row)->name);
}

static const cmd_meta *meta_of(const cmd_def *cmd)
{
    return bsearch(cmd_fullname(cmd), cmd_metas, sizeof(cmd_metas) / sizeof(cmd_metas[0]), sizeof(cmd_meta),
                   meta_cmp);
}

#define MAX_SPECS 8

typedef struct key_spec {
    const char *flags;  /* space-separated words, flags_len bytes */
    size_t flags_len;
    const char *notes;  /* NULL if none */
    size_t notes_len;
    int unknown;        /* begin_search/find_keys "unknown" */
    int index, lastkey, keystep;
} key_spec;

/* Fill out[] with cmd's key specs; returns how many (0 for a command without keys). */
static int key_specs_of(const cmd_def *cmd, key_spec *out)
{
    const cmd_meta *m;
    const char *p;
    int n = 0, npos = 0, i, k;

    if (cmd->first_key <= 0)
        return 0;
    m = meta_of(cmd);
    if (m && m->specs) {
        p = m->specs;
        while (*p && n < MAX_SPECS) {
            key_spec *s = &out[n++];
            const char *end = strchr(p, ';'), *hash;
            if (!end)
                end = p + strlen(p);
            memset(s, 0, sizeof(*s));
            if (*p == '?') {
                s->unknown = 1;
                p++;
            }
            hash = memchr(p, '#', (size_t)(end - p));
            s->flags = p;
            s->flags_len = (size_t)((hash ? hash : end) - p);
            if (hash) {
                s->notes = hash + 1;
                s->notes_len = (size_t)(end - hash - 1);
            }
            p = *end ? end + 1 : end;
        }
    } else {
        memset(out, 0, sizeof(*out));
        out->flags = (cmd->flags & CMD_WRITE) ? "RW access update" : (cmd->flags & CMD_READONLY) ? "RO access" : "RO";
        out->flags_len = strlen(out->flags);
        n = 1;
    }
    for (i = 0; i < n; i++)
        npos += !out[i].unknown;
    for (i = 0, k = 0; i < n; i++) {
        key_spec *s = &out[i];
        if (s->unknown)
            continue;
        if (npos == 1) {
            s->index = cmd->first_key;
            s->lastkey = cmd->last_key >= 0 ? cmd->last_key - cmd->first_key : cmd->last_key;
            s->keystep = cmd->key_step > 0 ? cmd->key_step : 1;
        } else {
            s->index = cmd->first_key + k * (cmd->key_step > 0 ? cmd->key_step : 1);
            s->lastkey = 0;
            s->keystep = 1;
        }
        k++;
    }
    return n;
}

/* Reply the space-separated words of p[0..n) as a set of status strings, or of
 * bulk strings if bulk (tips are bulk strings in Redis's reply). */
static void reply_word_set(client *c, const char *p, size_t n, int bulk)
{
    const char *end = p + n, *q;
    long count = 0;

    for (q = p; q < end;) {
        while (q < end && *q == ' ')
            q++;
        if (q < end)
            count++;
        while (q < end && *q != ' ')
            q++;
    }
    reply_set(c, count);
    for (q = p; q < end;) {
        const char *w;
        char word[128];
        size_t len;
        while (q < end && *q == ' ')
            q++;
        if (q == end)
            break;
        w = q;
        while (q < end && *q != ' ')
            q++;
        len = (size_t)(q - w) < sizeof(word) - 1 ? (size_t)(q - w) : sizeof(word) - 1;
        memcpy(word, w, len);
        word[len] = '\0';
        if (bulk)
            reply_bulk(c, word, len);
        else
            reply_status(c, word);
    }
}

static void reply_key_spec(client *c, const key_spec *s)
{
    reply_map(c, s->notes ? 4 : 3);
    if (s->notes) {
        reply_bulk_cstr(c, "notes");
        reply_bulk(c, s->notes, s->notes_len);
    }
    reply_bulk_cstr(c, "flags");
    reply_word_set(c, s->flags, s->flags_len, 0);
    reply_bulk_cstr(c, "begin_search");
    reply_map(c, 2);
    reply_bulk_cstr(c, "type");
    if (s->unknown) {
        reply_bulk_cstr(c, "unknown");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 0);
    } else {
        reply_bulk_cstr(c, "index");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 1);
        reply_bulk_cstr(c, "index");
        reply_int(c, s->index);
    }
    reply_bulk_cstr(c, "find_keys");
    reply_map(c, 2);
    reply_bulk_cstr(c, "type");
    if (s->unknown) {
        reply_bulk_cstr(c, "unknown");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 0);
    } else {
        reply_bulk_cstr(c, "range");
        reply_bulk_cstr(c, "spec");
        reply_map(c, 3);
        reply_bulk_cstr(c, "lastkey");
        reply_int(c, s->lastkey);
        reply_bulk_cstr(c, "keystep");
        reply_int(c, s->keystep);
        reply_bulk_cstr(c, "limit");
        reply_int(c, 0);
    }
}

/* Command flags as COMMAND names them, in Redis's order. CMD_MAY_REPLICATE,
 * CMD_SENTINEL and CMD_NO_MULTI (ours: "runs at once inside MULTI") are not shown;
 * CMD_NOT_IN_MULTI is Redis's no_multi. */
static const struct {
    uint32_t bit;
    const char *name;
} flag_names[] = {
    {CMD_WRITE, "write"},       {CMD_READONLY, "readonly"},   {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"},       {CMD_PUBSUB, "pubsub"},       {CMD_NOSCRIPT, "noscript"},
    {CMD_LOADING, "loading"},   {CMD_STALE, "stale"},         {CMD_SKIP_SLOWLOG, "skip_slowlog"},
    {CMD_FAST, "fast"},         {CMD_NO_AUTH, "no_auth"},     {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"},
    {CMD_NOT_IN_MULTI, "no_multi"}, {CMD_ALLOW_BUSY, "allow_busy"},
};
#define NFLAGS ((int)(sizeof(flag_names) / sizeof(flag_names[0])))

static void reply_cmd_flags(client *c, const cmd_def *cmd)
{
    int i, n = 0;
    for (i = 0; i < NFLAGS; i++)
        n += (cmd->flags & flag_names[i].bit) != 0;
    reply_set(c, n);
    for (i = 0; i < NFLAGS; i++)
        if (cmd->flags & flag_names[i].bit)
            reply_status(c, flag_names[i].name);
}

/* ACL categories in Redis's order (ACL CAT). */
static const char *const acl_names[] = {
    "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog", "geo",
    "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection", "transaction", "scripting",
};
#define NACL ((int)(sizeof(acl_names) / sizeof(acl_names[0])))
#define ACL_MAX_OTHER 8

typedef struct acl_set {
    int has[NACL];
    char other[ACL_MAX_OTHER][32]; /* words of the row that Redis does not know */
    int nother;
} acl_set;

static int acl_index(const char *w, size_t n)
{
    int i;
    for (i = 0; i < NACL; i++)
        if (str_eq_ci(w, n, acl_names[i]))
            return i;
    return -1;
}

/* The row's ACL words plus the ones Redis implies from the flags (write, read,
 * admin+dangerous, pubsub, fast or else slow). */
static void acl_of(const cmd_def *cmd, acl_set *s)
{
    const char *p = cmd->acl ? cmd->acl : "";

    memset(s, 0, sizeof(*s));
    while (*p) {
        const char *w;
        size_t n;
        int i;
        while (*p == ' ' || *p == '@')
            p++;
        w = p;
        while (*p && *p != ' ')
            p++;
        n = (size_t)(p - w);
        if (!n)
            continue;
        i = acl_index(w, n);
        if (i >= 0)
            s->has[i] = 1;
        else if (s->nother < ACL_MAX_OTHER && n < sizeof(s->other[0])) {
            memcpy(s->other[s->nother], w, n);
            s->other[s->nother++][n] = '\0';
        }
    }
    if (cmd->flags & CMD_WRITE)
        s->has[acl_index("write", 5)] = 1;
    if (cmd->flags & CMD_READONLY)
        s->has[acl_index("read", 4)] = 1;
    if (cmd->flags & CMD_ADMIN) {
        s->has[acl_index("admin", 5)] = 1;
        s->has[acl_index("dangerous", 9)] = 1;
    }
    if (cmd->flags & CMD_PUBSUB)
        s->has[acl_index("pubsub", 6)] = 1;
    if (cmd->flags & CMD_FAST)
        s->has[acl_index("fast", 4)] = 1;
    if (!s->has[acl_index("fast", 4)])
        s->has[acl_index("slow", 4)] = 1;
}

static void reply_cmd_acl(client *c, const cmd_def *cmd)
{
    acl_set s;
    char buf[40];
    int i, n = 0;

    acl_of(cmd, &s);
    for (i = 0; i < NACL; i++)
        n += s.has[i];
    reply_set(c, n + s.nother);
    for (i = 0; i < NACL; i++) {
        if (s.has[i]) {
            snprintf(buf, sizeof(buf), "@%s", acl_names[i]);
            reply_status(c, buf);
        }
    }
    for (i = 0; i < s.nother; i++) {
        snprintf(buf, sizeof(buf), "@%s", s.other[i]);
        reply_status(c, buf);
    }
}

/* One COMMAND INFO entry: the 10 fields of Redis 7. */
static void reply_cmd_info(client *c, const cmd_def *cmd)
{
    const cmd_meta *m = meta_of(cmd);
    key_spec specs[MAX_SPECS];
    int n = key_specs_of(cmd, specs), i;

    reply_array(c, 10);
    reply_bulk_cstr(c, cmd_fullname(cmd));
    reply_int(c, cmd->arity);
    reply_cmd_flags(c, cmd);
    reply_int(c, cmd->first_key);
    reply_int(c, cmd->last_key);
    reply_int(c, cmd->key_step);
    reply_cmd_acl(c, cmd);
    if (m && m->tips)
        reply_word_set(c, m->tips, strlen(m->tips), 1);
    else
        reply_set(c, 0);
    reply_set(c, n);
    for (i = 0; i < n; i++)
        reply_key_spec(c, &specs[i]);
    if (cmd->subcommands) {
        const cmd_def *s;
        long k = 0;
        for (s = cmd->subcommands; s->name; s++)
            k++;
        reply_array(c, k);
        for (s = cmd->subcommands; s->name; s++)
            reply_cmd_info(c, s);
    } else {
        reply_set(c, 0);
    }
}

/* One COMMAND DOCS value: summary, since, group, complexity, subcommands. */
static void reply_cmd_docs(client *c, const cmd_def *cmd)
{
    long n = 1 + (cmd->summary != NULL) + (cmd->since != NULL) + (cmd->complexity != NULL) +
             (cmd->subcommands != NULL);

    reply_map(c, n);
    if (cmd->summary) {
        reply_bulk_cstr(c, "summary");
        reply_bulk_cstr(c, cmd->summary);
    }
    if (cmd->since) {
        reply_bulk_cstr(c, "since");
        reply_bulk_cstr(c, cmd->since);
    }
    reply_bulk_cstr(c, "group");
    reply_bulk_cstr(c, cmd->group ? cmd->group : "generic");
    if (cmd->complexity) {
        reply_bulk_cstr(c, "complexity");
        reply_bulk_cstr(c, cmd->complexity);
    }
    if (cmd->subcommands) {
        const cmd_def *s;
        long k = 0;
        for (s = cmd->subcommands; s->name; s++)
            k++;
        reply_bulk_cstr(c, "subcommands");
        reply_map(c, k);
        for (s = cmd->subcommands; s->name; s++) {
            reply_bulk_cstr(c, cmd_fullname(s));
            reply_cmd_docs(c, s);
        }
    }
}

/* The command or subcommand named p[0..n) ("get", "config|get"), or NULL. */
static const cmd_def *lookup_fullname(const char *p, size_t n)
{
    const char *bar = memchr(p, '|', n);
    const cmd_def *cmd, *s;

    if (!bar)
        return cmd_lookup(p, n);
    cmd = cmd_lookup(p, (size_t)(bar - p));
    if (!cmd || !cmd->subcommands)
        return NULL;
    for (s = cmd->subcommands; s->name; s++)
        if (str_eq_ci(bar + 1, n - (size_t)(bar - p) - 1, s->name))
            return s;
    return NULL;
}

static void visit_count(const cmd_def *cmd, void *ctx)
{
    (void)cmd;
    (*(long *)ctx)++;
}

typedef struct visit_ctx {
    client *c;
    long n;
    int filter;          /* 0 none, 1 acl category, 2 pattern */
    int acl;             /* index in acl_names, -1 if unknown */
    const sarg *pattern;
} visit_ctx;

static void visit_info(const cmd_def *cmd, void *ctx)
{
    reply_cmd_info(((visit_ctx *)ctx)->c, cmd);
}

static void visit_docs(const cmd_def *cmd, void *ctx)
{
    client *c = ((visit_ctx *)ctx)->c;
    reply_bulk_cstr(c, cmd_fullname(cmd));
    reply_cmd_docs(c, cmd);
}

static int list_match(const cmd_def *cmd, const visit_ctx *v)
{
    const char *name = cmd_fullname(cmd);
    acl_set s;

    switch (v->filter) {
    case 1:
        if (v->acl < 0)
            return 0;
        acl_of(cmd, &s);
        return s.has[v->acl];
    case 2:
        return glob_match(v->pattern->p, v->pattern->len, name, strlen(name), 1);
    default:
        return 1;
    }
}

static void visit_list(const cmd_def *cmd, void *ctx)
{
    visit_ctx *v = ctx;
    const cmd_def *s;

    if (list_match(cmd, v)) {
        reply_bulk_cstr(v->c, cmd_fullname(cmd));
        v->n++;
    }
    if (cmd->subcommands) {
        for (s = cmd->subcommands; s->name; s++) {
            if (list_match(s, v)) {
                reply_bulk_cstr(v->c, cmd_fullname(s));
                v->n++;
            }
        }
    }
}

static void cmd_command(client *c)
{
    visit_ctx v = {c, 0, 0, -1, NULL};
    reply_array(c, cmd_count());
    cmd_foreach(visit_info, &v);
}

static void command_count(client *c)
{
    reply_int(c, cmd_count());
}

static void command_info(client *c)
{
    int i;

    if (c->argc == 2) {
        cmd_command(c);
        return;
    }
    reply_array(c, c->argc - 2);
    for (i = 2; i < c->argc; i++) {
        const cmd_def *cmd = lookup_fullname(c->argv[i].p, c->argv[i].len);
        if (cmd)
            reply_cmd_info(c, cmd);
        else
            reply_null(c);
    }
}

static void command_docs(client *c)
{
    visit_ctx v = {c, 0, 0, -1, NULL};
    long n = 0;
    int i;

    if (c->argc == 2) {
        cmd_foreach(visit_count, &n);
        reply_map(c, n);
        cmd_foreach(visit_docs, &v);
        return;
    }
    for (i = 2; i < c->argc; i++)
        n += lookup_fullname(c->argv[i].p, c->argv[i].len) != NULL;
    reply_map(c, n);
    for (i = 2; i < c->argc; i++) {
        const cmd_def *cmd = lookup_fullname(c->argv[i].p, c->argv[i].len);
        if (cmd)
            visit_docs(cmd, &v);
    }
}

static void command_list(client *c)
{
    visit_ctx v = {c, 0, 0, -1, NULL};
    void *slot;

    if (c->argc == 5 && str_eq_ci(c->argv[2].p, c->argv[2].len, "filterby")) {
        const sarg *kind = &c->argv[3], *arg = &c->argv[4];
        if (str_eq_ci(kind->p, kind->len, "module")) {
            reply_array(c, 0); /* no modules */
            return;
        } else if (str_eq_ci(kind->p, kind->len, "aclcat")) {
            v.filter = 1;
            v.acl = acl_index(arg->p, arg->len);
        } else if (str_eq_ci(kind->p, kind->len, "pattern")) {
            v.filter = 2;
            v.pattern = arg;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    } else if (c->argc != 2) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    slot = reply_defer(c);
    cmd_foreach(visit_list, &v);
    reply_defer_array(c, slot, v.n);
}

/* COMMAND GETKEYS / GETKEYSANDFLAGS <command> [arg ...]: the keys (and their key
 * spec flags) at the command's key positions, with Redis's errors. */
static void command_getkeys_impl(client *c, int with_flags)
{
    const sarg *argv = c->argv + 2;
    int argc = c->argc - 2, first, last, step, i, n, k, nkeys, npos = 0;
    const cmd_def *cmd = cmd_lookup(argv[0].p, argv[0].len);
    key_spec specs[MAX_SPECS];

    if (cmd && cmd->subcommands && argc >= 2) {
        const cmd_def *s;
        for (s = cmd->subcommands; s->name; s++)
            if (str_eq_ci(argv[1].p, argv[1].len, s->name))
                break;
        cmd = s->name ? s : NULL;
    }
    if (!cmd) {
        reply_error(c, "ERR Invalid command specified");
        return;
    }
    if (cmd->first_key <= 0) {
        reply_error(c, "ERR The command has no key arguments");
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        reply_error(c, "ERR Invalid number of arguments specified for command");
        return;
    }
    first = cmd->first_key;
    last = cmd->last_key >= 0 ? cmd->last_key : argc + cmd->last_key;
    step = cmd->key_step > 0 ? cmd->key_step : 1;
    if (last >= argc || last < first) {
        if (cmd->flags & CMD_NO_MANDATORY_KEYS)
            reply_array(c, 0);
        else
            reply_error(c, "ERR Invalid arguments specified for command");
        return;
    }
    nkeys = (last - first) / step + 1;
    n = key_specs_of(cmd, specs);
    for (i = 0; i < n; i++)
        npos += !specs[i].unknown;
    reply_array(c, nkeys);
    for (i = first, k = 0; i <= last; i += step, k++) {
        const key_spec *s = NULL;
        int j, seen = 0;
        if (!with_flags) {
            reply_bulk(c, argv[i].p, argv[i].len);
            continue;
        }
        for (j = 0; j < n; j++) {
            if (specs[j].unknown)
                continue;
            if (npos == 1 || seen == k) {
                s = &specs[j];
                break;
            }
            seen++;
        }
        reply_array(c, 2);
        reply_bulk(c, argv[i].p, argv[i].len);
        if (s)
            reply_word_set(c, s->flags, s->flags_len, 0);
        else
            reply_set(c, 0);
    }
}

static void command_getkeys(client *c)
{
    command_getkeys_impl(c, 0);
}

static void command_getkeysandflags(client *c)
{
    command_getkeys_impl(c, 1);
}

static void command_help(client *c)
{
    static const char *const lines[] = {
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
        NULL,
    };
    reply_help(c, lines);
}

/* ---- CONFIG ---- */

/* A copy of d's current value, as CONFIG GET shows it; caller frees. */
static char *cfg_value_dup(const cfg_def *d)
{
    size_t cap = 1024;
    char *buf;

    if (d->type == CFG_STRING && *(char **)d->field)
        cap = strlen(*(char **)d->field) + 1;
    buf = xmalloc(cap);
    cfg_format(d, buf, cap);
    return buf;
}

static int has_glob(const sarg *a)
{
    return memchr(a->p, '*', a->len) || memchr(a->p, '?', a->len) || memchr(a->p, '[', a->len);
}

/* CONFIG GET pattern...: each matching directive once, as a map. An argument
 * without glob characters is looked up directly and echoed as typed. */
static void config_get(client *c)
{
    int nrows = 0, i, j, n = 0;
    const cfg_def *d;
    const cfg_def **rows;
    const char **keys;

    for (d = cfg_table; d->name; d++)
        nrows++;
    rows = xmalloc(sizeof(*rows) * (size_t)(nrows ? nrows : 1));
    keys = xmalloc(sizeof(*keys) * (size_t)(nrows ? nrows : 1));
    for (i = 2; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        if (!has_glob(a)) {
            d = cfg_find(a->p, a->len);
            for (j = 0; d && j < n; j++)
                if (rows[j] == d)
                    d = NULL;
            if (d) {
                rows[n] = d;
                keys[n++] = a->p;
            }
            continue;
        }
        for (d = cfg_table; d->name; d++) {
            for (j = 0; j < n; j++)
                if (rows[j] == d)
                    break;
            if (j == n && glob_match(a->p, a->len, d->name, strlen(d->name), 1)) {
                rows[n] = d;
                keys[n++] = d->name;
            }
        }
    }
    reply_map(c, n);
    for (j = 0; j < n; j++) {
        char *v = cfg_value_dup(rows[j]);
        reply_bulk_cstr(c, keys[j]);
        reply_bulk_cstr(c, v);
        xfree(v);
    }
    xfree(keys);
    xfree(rows);
}

/* Set rows[0..n) back to the saved values (they parsed before, so they parse now). */
static void config_restore(const cfg_def **rows, char **old, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const char *err = NULL;
        char *v = old[i];
        cfg_set(rows[i], 1, &v, &err);
    }
}

/* CONFIG SET name value [name value ...]: check every name first (unknown,
 * immutable, duplicate), save the old values, set every new value, then run each
 * distinct apply() once. A failure at any step puts every value back (and re-runs
 * the apply functions if they had started), so the change is all or nothing. */
static void config_set(client *c)
{
    int npairs = (c->argc - 2) / 2, i, j, nset = 0, napply = 0;
    const cfg_def **rows = NULL;
    char **old = NULL;
    int (**applies)(const char **) = NULL;
    int *apply_row = NULL;
    const char *unknown = NULL, *err_arg = NULL, *err = NULL;

    if (c->argc % 2) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    rows = xcalloc((size_t)npairs, sizeof(*rows));
    old = xcalloc((size_t)npairs, sizeof(*old));
    applies = xcalloc((size_t)npairs, sizeof(*applies));
    apply_row = xcalloc((size_t)npairs, sizeof(*apply_row));
    for (i = 0; i < npairs; i++) {
        const sarg *name = &c->argv[2 + 2 * i];
        const cfg_def *d = cfg_find(name->p, name->len);
        if (!d) {
            if (!unknown && !err_arg)
                unknown = name->p;
            continue;
        }
        if (unknown || err_arg)
            continue;
        if (d->flags & CFG_IMMUTABLE) {
            err = "can't set immutable config";
            err_arg = name->p;
            continue;
        }
        for (j = 0; j < i; j++) {
            if (rows[j] == d) {
                err = "duplicate parameter";
                err_arg = name->p;
                break;
            }
        }
        rows[i] = d;
    }
    if (unknown || err_arg)
        goto done;
    for (i = 0; i < npairs; i++)
        old[i] = cfg_value_dup(rows[i]);
    for (i = 0; i < npairs; i++) {
        char *v = c->argv[3 + 2 * i].p;
        if (cfg_set(rows[i], 1, &v, &err) < 0) {
            config_restore(rows, old, i + 1);
            err_arg = rows[i]->name;
            goto done;
        }
        nset++;
        if (rows[i]->apply) {
            for (j = 0; j < napply; j++)
                if (applies[j] == rows[i]->apply)
                    break;
            if (j == napply) {
                apply_row[napply] = i;
                applies[napply++] = rows[i]->apply;
            }
        }
    }
    for (i = 0; i < napply; i++) {
        if (applies[i](&err) < 0) {
            const char *ignored = NULL;
            err_arg = rows[apply_row[i]]->name;
            config_restore(rows, old, nset);
            for (j = 0; j < napply; j++)
                applies[j](&ignored);
            goto done;
        }
    }
done:
    if (unknown)
        reply_errorf(c, "ERR Unknown option or number of arguments for CONFIG SET - '%s'", unknown);
    else if (err_arg && err)
        reply_errorf(c, "ERR CONFIG SET failed (possibly related to argument '%s') - %s", err_arg, err);
    else if (err_arg)
        reply_errorf(c, "ERR CONFIG SET failed (possibly related to argument '%s')", err_arg);
    else
        reply_ok(c);
    for (i = 0; i < npairs; i++)
        xfree(old[i]);
    xfree(apply_row);
    xfree(applies);
    xfree(old);
    xfree(rows);
}

/* CONFIG RESETSTAT: zero what INFO counts. The peak memory, like Redis's, stays;
 * keyspace hits/misses are db.c's counters. */
static void config_resetstat(client *c)
{
    srv.stat_conns = 0;
    srv.stat_rejected_conns = 0;
    srv.stat_commands = 0;
    srv.stat_keyspace_hits = srv.stat_keyspace_misses = 0;
    srv.stat_expired_keys = 0;
    srv.stat_net_in = srv.stat_net_out = 0;
    srv.stat_proto_errors = 0;
    srv.stat_oom_rejections = 0;
    srv.stat_obuf_disconnects = 0;
    db_stat_hits = db_stat_misses = 0;
    cmd_reset_stats();
    cmd_reset_error_stats();
    stats_reset_samples();
    reply_ok(c);
}

static void config_help(client *c)
{
    static const char *const lines[] = {
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        NULL,
    };
    reply_help(c, lines);
}

/* ---- SLOWLOG ---- */

static void slowlog_get(client *c)
{
    long long count = 10;
    int i, n;

    if (c->argc > 3) {
        reply_subcommand_syntax(c);
        return;
    }
    if (c->argc == 3 && (str_to_ll(c->argv[2].p, c->argv[2].len, &count) < 0 || count < -1)) {
        reply_error(c, "ERR count should be greater than or equal to -1");
        return;
    }
    n = (count == -1 || count > srv.slowlog_len) ? srv.slowlog_len : (int)count;
    reply_array(c, n);
    for (i = 0; i < n; i++) {
        const slowlog_entry *e = &srv.slowlog[i];
        int j;
        reply_array(c, 6);
        reply_int(c, e->id);
        reply_int(c, (long long)e->time);
        reply_int(c, e->duration);
        reply_array(c, e->argc);
        for (j = 0; j < e->argc; j++)
            reply_bulk(c, e->argv[j].p, e->argv[j].len);
        reply_bulk_cstr(c, e->peer ? e->peer : "");
        reply_bulk_cstr(c, e->cname ? e->cname : "");
    }
}

static void slowlog_len(client *c)
{
    reply_int(c, srv.slowlog_len);
}

static void slowlog_reset_cmd(client *c)
{
    slowlog_reset();
    reply_ok(c);
}

static void slowlog_help(client *c)
{
    static const char *const lines[] = {
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        NULL,
    };
    reply_help(c, lines);
}

static void cmd_container(client *c)
{
    reply_unknown_subcommand(c);
}

/* ---- the table ---- */

#define LS (CMD_LOADING | CMD_STALE)
#define ADM (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

static const cmd_def command_subcommands[] = {
    {"count", command_count, 2, LS, 0, 0, 0, "server", "Get total number of Redis commands", "2.8.13", "O(1)",
     "slow connection", NULL, NULL, NULL},
    {"docs", command_docs, -2, LS, 0, 0, 0, "server", "Get array of specific Redis command documentation", "7.0.0",
     "O(N) where N is the number of commands to look up", "slow connection", NULL, NULL, NULL},
    {"getkeys", command_getkeys, -4, LS, 0, 0, 0, "server", "Extract keys given a full Redis command", "2.8.13",
     "O(N) where N is the number of arguments to the command", "slow connection", NULL, NULL, NULL},
    {"getkeysandflags", command_getkeysandflags, -4, LS, 0, 0, 0, "server",
     "Extract keys and access flags given a full Redis command", "7.0.0",
     "O(N) where N is the number of arguments to the command", "slow connection", NULL, NULL, NULL},
    {"help", command_help, 2, LS, 0, 0, 0, "server", "Show helpful text about the different subcommands", "5.0.0",
     "O(1)", "slow connection", NULL, NULL, NULL},
    {"info", command_info, -2, LS, 0, 0, 0, "server",
     "Get array of specific Redis command details, or all when no argument is given.", "2.8.13",
     "O(N) where N is the number of commands to look up", "slow connection", NULL, NULL, NULL},
    {"list", command_list, -2, LS, 0, 0, 0, "server", "Get an array of Redis command names", "7.0.0",
     "O(N) where N is the total number of Redis commands", "slow connection", NULL, NULL, NULL},
    {0},
};

static const cmd_def config_subcommands[] = {
    {"get", config_get, -3, ADM, 0, 0, 0, "server", "Get the values of configuration parameters", "2.0.0",
     "O(N) when N is the number of configuration parameters provided", "admin slow dangerous", NULL, NULL, NULL},
    {"set", config_set, -4, ADM, 0, 0, 0, "server", "Set configuration parameters to the given values", "2.0.0",
     "O(N) when N is the number of configuration parameters provided", "admin slow dangerous", NULL, NULL, NULL},
    {"resetstat", config_resetstat, 2, ADM, 0, 0, 0, "server", "Reset the stats returned by INFO", "2.0.0", "O(1)",
     "admin slow dangerous", NULL, NULL, NULL},
    {"help", config_help, 2, LS, 0, 0, 0, "server", "Show helpful text about the different subcommands", "5.0.0",
     "O(1)", "slow", NULL, NULL, NULL},
    {0},
};

static const cmd_def slowlog_subcommands[] = {
    {"get", slowlog_get, -2, CMD_ADMIN | LS, 0, 0, 0, "server", "Get the slow log's entries", "2.2.12",
     "O(N) where N is the number of entries returned", "admin slow dangerous", NULL, NULL, NULL},
    {"len", slowlog_len, 2, CMD_ADMIN | LS, 0, 0, 0, "server", "Get the slow log's length", "2.2.12", "O(1)",
     "admin slow dangerous", NULL, NULL, NULL},
    {"reset", slowlog_reset_cmd, 2, CMD_ADMIN | LS, 0, 0, 0, "server", "Clear all entries from the slow log",
     "2.2.12", "O(N) where N is the number of entries in the slowlog", "admin slow dangerous", NULL, NULL, NULL},
    {"help", slowlog_help, 2, LS, 0, 0, 0, "server", "Show helpful text about the different subcommands", "6.2.0",
     "O(1)", "slow", NULL, NULL, NULL},
    {0},
};

const cmd_def cmd_table_server[] = {
    {"info", cmd_info, -1, LS | CMD_SENTINEL, 0, 0, 0, "server", "Get information and statistics about the server",
     "1.0.0", "O(1)", "slow dangerous", NULL, NULL, NULL},
    {"dbsize", cmd_dbsize, 1, CMD_READONLY | CMD_FAST, 0, 0, 0, "server",
     "Return the number of keys in the selected database", "1.0.0", "O(1)", "keyspace read fast", NULL, NULL,
     NULL},
    {"flushdb", cmd_flushdb, -1, CMD_WRITE, 0, 0, 0, "server", "Remove all keys from the current database", "1.0.0",
     "O(N) where N is the number of keys in the selected database", "keyspace write slow dangerous", NULL, NULL,
     NULL},
    {"flushall", cmd_flushall, -1, CMD_WRITE, 0, 0, 0, "server", "Remove all keys from all databases", "1.0.0",
     "O(N) where N is the total number of keys in all databases", "keyspace write slow dangerous", NULL, NULL,
     NULL},
    {"time", cmd_time, 1, LS | CMD_FAST, 0, 0, 0, "server", "Return the current server time", "2.6.0", "O(1)",
     "fast", NULL, NULL, NULL},
    {"bgrewriteaof", cmd_bgrewriteaof, 1, ADM | CMD_NOSCRIPT, 0, 0, 0, "server",
     "Asynchronously rewrite the append-only file", "1.0.0", "O(1)", "admin slow dangerous", NULL, NULL, NULL},
    {"lastsave", cmd_lastsave, 1, LS | CMD_FAST, 0, 0, 0, "server",
     "Get the UNIX time stamp of the last successful save to disk", "1.0.0", "O(1)", "admin fast dangerous", NULL,
     NULL, NULL},
    {"debug", cmd_debug, -2, ADM, 0, 0, 0, "server", "A container for debugging commands", "1.0.0",
     "Depends on subcommand.", "admin slow dangerous", NULL, NULL, NULL},
    {"shutdown", cmd_shutdown, -1, ADM | CMD_NOT_IN_MULTI | CMD_ALLOW_BUSY | CMD_SENTINEL, 0, 0, 0, "server",
     "Synchronously save the dataset to disk and then shut down the server", "1.0.0",
     "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
     "admin slow dangerous", NULL, NULL, NULL},
    {"command", cmd_command, -1, LS | CMD_SENTINEL, 0, 0, 0, "server", "Get array of Redis command details",
     "2.8.13", "O(N) where N is the total number of Redis commands", "slow connection", command_subcommands, NULL,
     NULL},
    {"config", cmd_container, -2, 0, 0, 0, 0, "server", "A container for server configuration commands", "2.0.0",
     "Depends on subcommand.", "slow", config_subcommands, NULL, NULL},
    {"slowlog", cmd_container, -2, 0, 0, 0, 0, "server", "A container for slow log commands", "2.2.12",
     "Depends on subcommand.", "slow", slowlog_subcommands, NULL, NULL},
    {0},
};
