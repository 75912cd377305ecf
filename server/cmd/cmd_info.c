/* cmd_info.c -- INFO, with Redis 7.0's sections, field names and order, and the
 * instantaneous metrics it reports (stats.h).
 *
 * Why here: INFO is the one command that reads every part of the server (the
 * clients, memory and arena accounting, the log, the counters, the command and
 * error stats, the databases) and formats a long text reply; its buffer and its
 * samplers serve nothing else, so they are kept apart from the other server
 * commands.
 *
 * Invariants: nothing here walks the keyspace (INFO reports what is O(1) to know,
 * plus loops over the databases, clients and commands). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "config.h"
#include "core/lz/lzidle.h"
#include "core/mem.h"
#include "cmd/propagate.h"
#include "cmd/pubsub.h"
#include "cmd/tracking.h"
#include "net/net.h"
#include "net/reply.h"
#include "cmd/stats.h"
#include "core/util.h"
#include "keyspace/evict.h"
#include "keyspace/lazyfree.h"
#include "keyspace/vcomp.h"
#include "types/string/value.h"

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
            "blocked_clients:%lld\r\n"
            "tracking_clients:%d\r\n"
            "clients_in_timeout_table:0\r\n"
            "watching_clients:%d\r\n",
            srv.nclients, srv.cfg.maxclients, max_in, max_out, blk_count(), tracking_clients, srv.watching_clients);
}

static void info_memory(sbuf *b)
{
    size_t used = mem_used(), rss = mem_rss(), clients_mem = 0;
    unsigned long long total_ram = 0;
    char h_used[32], h_rss[32], h_peak[32], h_total[32], h_max[32], policy[64] = "noeviction";
    const cfg_def *pol = cfg_find("maxmemory-policy", 16);
    struct sysinfo si;
    arena_stats as;
    lzidle_stats ds;
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
            "mem_aof_buffer:%zu\r\n"
            "mem_allocator:libc\r\n"
            "active_defrag_running:0\r\n"
            "lazyfree_pending_objects:%zu\r\n"
            "lazyfreed_objects:%llu\r\n"
            "arena_live_bytes:%zu\r\n"
            "arena_live_objects:%zu\r\n"
            "arena_large_bytes:%zu\r\n"
            "arena_page_bytes:%zu\r\n"
            "arena_pages:%zu\r\n"
            "lz4_pending_values:%zu\r\n"
            "lz4_cache_bytes:%zu\r\n"
            "dataset_logical_bytes:%zu\r\n"
            "dataset_stored_bytes:%zu\r\n"
            "dataset_compression_ratio:%.2f\r\n"
            "dataset_accounted_keys:%zu\r\n"
            "dataset_accounted_at:%lld\r\n",
            used, h_used, rss, h_rss, srv.peak_memory, h_peak,
            srv.peak_memory ? (double)used * 100 / (double)srv.peak_memory : 0.0, total_ram, h_total, srv.cfg.maxmemory,
            h_max, policy, used ? (double)rss / (double)used : 0.0, (long long)rss - (long long)used, clients_mem,
            (prop_admin.buffer_bytes ? prop_admin.buffer_bytes() : 0), lazyfree_pending(), lazyfree_freed(),
            as.live_bytes, as.live_objects, as.large_bytes, as.page_bytes, as.pages, sv_compress_pending(),
            vc_cache_bytes(), srv.ds_logical, srv.ds_stored,
            srv.ds_stored ? (double)srv.ds_logical / (double)srv.ds_stored : 1.0, srv.ds_keys, (long long)srv.ds_when);
    vc_dict_stats(&ds);
    sb_catf(b,
            "lz4_dict_pending_values:%zu\r\n"
            "lz4_dict_pending_bytes:%zu\r\n"
            "lz4_dict_converted_values:%llu\r\n"
            "lz4_dict_converted_bytes:%llu\r\n"
            "lz4_dict_saved_bytes:%llu\r\n"
            "lz4_dict_refused_values:%llu\r\n"
            "lz4_dict_dropped:%llu\r\n"
            "lz4_recompressed_values:%llu\r\n"
            "lz4_recompressed_bytes:%llu\r\n"
            "lz4_hot_values:%zu\r\n"
            "lz4_hot_bytes:%zu\r\n"
            "lz4_hot_decoded:%llu\r\n"
            "lz4_hot_cooled:%llu\r\n",
            ds.pending_values, ds.pending_bytes, (unsigned long long)ds.converted_values,
            (unsigned long long)ds.converted_bytes, (unsigned long long)ds.saved_bytes,
            (unsigned long long)ds.refused_values, (unsigned long long)ds.dropped,
            (unsigned long long)ds.recompressed_values, (unsigned long long)ds.recompressed_bytes, sv_hot_values,
            sv_hot_bytes, sv_hot_decoded, sv_hot_cooled);
}

static void info_persistence(sbuf *b)
{
    persist_info pi;

    memset(&pi, 0, sizeof(pi));
    if (prop_admin.get_info)
        prop_admin.get_info(&pi);
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
            "aof_rewrite_mode:%s\r\n"
            "aof_rewrite_keys_scanned:%lld\r\n"
            "aof_rewrite_keys_written_before_a_write:%lld\r\n"
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
            "aof_last_load_truncated_bytes:%lld\r\n"
            "aof_last_load_bad_values:%lld\r\n"
            "aof_last_load_bad_effects:%lld\r\n",
            srv.loading ? 1 : 0, pi.current_cow_size, pi.current_cow_size, srv.dirty, (long long)srv.last_save,
            pi.enabled, pi.rewrite_in_progress, pi.rewrite_mode, pi.rewrite_scanned, pi.rewrite_touched, pi.last_rewrite_time_sec,
            pi.current_rewrite_time_sec, pi.last_rewrite_ok ? "ok" : "err", pi.rewrites,
            pi.rewrite_failures_in_a_row, pi.last_write_ok ? "ok" : "err", pi.last_write_error, pi.last_cow_size,
            pi.fork_usec, pi.fsync_policy, pi.dir, pi.load_records, pi.load_bytes, pi.load_ms,
            pi.load_truncated_bytes, pi.load_bad_values, pi.load_bad_effects);
    if (pi.enabled)
        sb_catf(b,
                "aof_current_size:%lld\r\n"
                "aof_base_size:%lld\r\n"
                "aof_pending_rewrite:0\r\n"
                "aof_buffer_length:%lld\r\n"
                "aof_pending_bio_fsync:%d\r\n"
                "aof_delayed_fsync:%lld\r\n"
                "aof_held_clients:%lld\r\n"
                "aof_unlogged_replies:%lld\r\n",
                pi.current_size, pi.base_size, pi.buffer_length, pi.fsync_in_progress,
                pi.delayed_fsync, net_held_clients(), srv.stat_aof_unlogged_replies);
}

static void info_stats(sbuf *b)
{
    long long trk_keys, trk_items, trk_prefixes;

    tracking_stats(&trk_keys, &trk_items, &trk_prefixes);
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
            "evicted_keys:%lld\r\n"
            "evicted_clients:0\r\n"
            "keyspace_hits:%lld\r\n"
            "keyspace_misses:%lld\r\n"
            "pubsub_channels:%lld\r\n"
            "pubsub_patterns:%lld\r\n"
            "pubsubshard_channels:%lld\r\n"
            "latest_fork_usec:0\r\n"
            "total_forks:0\r\n"
            "tracking_total_keys:%lld\r\n"
            "tracking_total_items:%lld\r\n"
            "tracking_total_prefixes:%lld\r\n"
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
            srv.stat_rejected_conns, srv.stat_expired_keys, evict_count, db_stat_hits, db_stat_misses,
            ps_count(PS_CHANNEL), ps_count(PS_PATTERN), ps_count(PS_SHARD), trk_keys, trk_items, trk_prefixes,
            cmd_total_errors(), srv.stat_obuf_disconnects, srv.stat_proto_errors, srv.stat_oom_rejections);
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

/* clang-format off */
const cmd_def cmd_table_info[] = {
    {.name = "info", .proc = cmd_info, .arity = -1, .flags = CMD_LOADING | CMD_STALE | CMD_SENTINEL,
     .group = "server", .summary = "Get information and statistics about the server", .since = "1.0.0",
     .complexity = "O(1)", .acl = "slow dangerous",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {0},
};
/* clang-format on */
