/* cmd_memory.c -- MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP,
 * with Redis 7.0's syntax, errors and reply shapes.
 *
 * Why: clients and dashboards ask Redis what a key or the server costs. Every
 * figure here comes from our own accounting, which is exact for what it covers:
 * mem_used() sums the allocator's usable size of every live block (mem.h), the
 * arena knows what its pages hold (arena.h), and an entry knows its size class
 * and its out-of-line value (db.h). No figure is invented: MEMORY STATS leaves
 * out Redis's jemalloc-only fields (allocator.*) and startup.allocated (no
 * start-up figure is recorded), and reports 0 only for what this server does not
 * have (replication backlog, replicas, cluster links, Lua, functions).
 *
 * MEMORY USAGE of a key: the size class of its arena entry (header, key and
 * inline room), plus the bytes its out-of-line value holds (a heap buffer, the
 * compressed chunks, or a scratchpad's entries), plus its share of the
 * keyspace's bucket array (one pointer: the table grows when it holds as many
 * keys as buckets). As Redis, the key is found without applying expiry (a read
 * that changes nothing), and SAMPLES is checked but every part is counted: a
 * scratchpad's entries are counted exactly, in O(entries).
 *
 * MEMORY STATS counts as overhead what is not data: the clients' structures and
 * buffers, each database's bucket arrays and entry headers, and its expiry
 * heaps; dataset.bytes is the rest of total.allocated, so (as no start-up figure
 * is subtracted) it includes the server's own fixed tables, and
 * keys.bytes-per-key is total.allocated over the keys (Redis's net usage over
 * the keys, with nothing to subtract). */
#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/mem.h"
#include "net/reply.h"
#include "core/util.h"

/* Bytes of the bucket array charged to each key. */
#define MEM_BUCKET_SHARE sizeof(ht_node *)

/* Below this much allocated memory MEMORY DOCTOR has nothing to say (as Redis). */
#define MEM_DOCTOR_MIN (5u * 1024 * 1024)

/* Bytes key e uses: see the file comment. */
static size_t mem_key_usage(const dbent *e)
{
    return dbent_size(e) + db_value_stored(e) + MEM_BUCKET_SHARE;
}

static void memory_usage(client *c)
{
    long long samples;
    dbent *e;
    int j;

    for (j = 3; j < c->argc; j++) {
        if (str_eq_ci(c->argv[j].p, c->argv[j].len, "samples") && j + 1 < c->argc) {
            if (arg_ll(c, j + 1, &samples) < 0)
                return;
            if (samples < 0) {
                reply_error(c, ERR_SYNTAX);
                return;
            }
            j++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    e = db_find_raw(c->db, c->argv[2].p, c->argv[2].len);
    if (!e) {
        reply_null(c);
        return;
    }
    reply_int(c, (long long)mem_key_usage(e));
}

/* ---- the figures of STATS and DOCTOR ---- */

typedef struct mem_figures {
    size_t total;            /* bytes, mem_used() */
    size_t peak;             /* bytes, the largest total seen (srv.peak_memory) */
    size_t rss;              /* bytes, resident set size, 0 if unknown */
    size_t clients;          /* bytes, normal clients' structures and buffers */
    int nclients;
    size_t overhead;         /* bytes, clients + every database's overhead */
    unsigned long long keys; /* keys in every database */
    size_t dataset;          /* bytes, total - overhead */
} mem_figures;

/* Bytes of d's main table that are not data: the bucket arrays and the header
 * of every entry (the dictEntry and robj of Redis): 16 bytes, and 16 more
 * (dbent_ext) for an entry in the wide layout (a TTL, a long key or room). */
static size_t mem_db_main(const db *d)
{
    return xmalloc_size(d->keys.tab[0]) + xmalloc_size(d->keys.tab[1]) + (size_t)db_size(d) * offsetof(dbent, data) +
           d->nwide * sizeof(dbent_ext);
}

/* Bytes of d's expiry heaps (keys with a TTL, values with expiring parts). */
static size_t mem_db_expires(const db *d)
{
    return xmalloc_size(d->heap) + xmalloc_size(d->sheap);
}

/* The per-client figure of INFO's mem_clients_normal, so the two agree. */
static size_t mem_client_bytes(const client *x)
{
    return sizeof(client) + x->qcap + x->olist_bytes;
}

static void mem_collect(mem_figures *f)
{
    const client *x;
    int i;

    memset(f, 0, sizeof(*f));
    f->total = mem_used();
    if (f->total > srv.peak_memory)
        srv.peak_memory = f->total;
    f->peak = srv.peak_memory;
    f->rss = mem_rss();
    for (x = srv.clients; x; x = x->next) {
        f->clients += mem_client_bytes(x);
        f->nclients++;
    }
    f->overhead = f->clients;
    for (i = 0; srv.dbs && i < srv.cfg.databases; i++) {
        const db *d = &srv.dbs[i];
        f->overhead += mem_db_main(d) + mem_db_expires(d);
        f->keys += db_size(d);
    }
    f->dataset = f->total > f->overhead ? f->total - f->overhead : 0;
}

/* A ratio as Redis reports it (computed in float, so printed the same way). */
static void reply_ratio(client *c, double num, double den)
{
    reply_double(c, den > 0 ? (double)(float)(num / den) : 0.0);
}

static void memory_stats(client *c)
{
    mem_figures f;
    long ndbs = 0;
    int i;

    mem_collect(&f);
    for (i = 0; srv.dbs && i < srv.cfg.databases; i++)
        ndbs += db_size(&srv.dbs[i]) > 0;
    reply_map(c, 16 + ndbs);
    reply_bulk_cstr(c, "peak.allocated");
    reply_int(c, (long long)f.peak);
    reply_bulk_cstr(c, "total.allocated");
    reply_int(c, (long long)f.total);
    reply_bulk_cstr(c, "replication.backlog");
    reply_int(c, 0);
    reply_bulk_cstr(c, "clients.slaves");
    reply_int(c, 0);
    reply_bulk_cstr(c, "clients.normal");
    reply_int(c, (long long)f.clients);
    reply_bulk_cstr(c, "cluster.links");
    reply_int(c, 0);
    reply_bulk_cstr(c, "lua.caches");
    reply_int(c, 0);
    reply_bulk_cstr(c, "functions.caches");
    reply_int(c, 0);
    for (i = 0; srv.dbs && i < srv.cfg.databases; i++) {
        const db *d = &srv.dbs[i];
        char name[32];
        if (db_size(d) == 0)
            continue;
        snprintf(name, sizeof(name), "db.%d", i);
        reply_bulk_cstr(c, name);
        reply_map(c, 3);
        reply_bulk_cstr(c, "overhead.hashtable.main");
        reply_int(c, (long long)mem_db_main(d));
        reply_bulk_cstr(c, "overhead.hashtable.expires");
        reply_int(c, (long long)mem_db_expires(d));
        reply_bulk_cstr(c, "overhead.hashtable.slot-to-keys");
        reply_int(c, 0);
    }
    reply_bulk_cstr(c, "overhead.total");
    reply_int(c, (long long)f.overhead);
    reply_bulk_cstr(c, "keys.count");
    reply_int(c, (long long)f.keys);
    reply_bulk_cstr(c, "keys.bytes-per-key");
    reply_int(c, f.keys ? (long long)(f.total / f.keys) : 0);
    reply_bulk_cstr(c, "dataset.bytes");
    reply_int(c, (long long)f.dataset);
    reply_bulk_cstr(c, "dataset.percentage");
    reply_ratio(c, (double)f.dataset * 100, (double)f.total);
    reply_bulk_cstr(c, "peak.percentage");
    reply_ratio(c, (double)f.total * 100, (double)f.peak);
    reply_bulk_cstr(c, "fragmentation");
    reply_ratio(c, (double)f.rss, (double)f.total);
    reply_bulk_cstr(c, "fragmentation.bytes");
    reply_int(c, (long long)f.rss - (long long)f.total);
}

/* ---- DOCTOR, MALLOC-STATS, PURGE, HELP ---- */

/* Append to buf (cap bytes) at *len, truncating silently. */
static void mem_catf(char *buf, size_t cap, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void mem_catf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*len >= cap)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* Redis's checks that apply here: a peak far above the current use, a process
 * holding much more RAM than it has allocated, and big client buffers. */
static void memory_doctor(client *c)
{
    char text[2048];
    size_t len = 0, per_client;
    int high_peak, high_rss, big_clients, issues;
    mem_figures f;

    mem_collect(&f);
    if (f.total < MEM_DOCTOR_MIN) {
        mem_catf(text, sizeof(text), &len,
                 "This instance is empty or uses very little memory (%zu bytes allocated): below 5 MB there is "
                 "nothing meaningful to diagnose. Fill it with some data and ask again.\n",
                 f.total);
        reply_verbatim(c, text, len);
        return;
    }
    per_client = f.nclients ? f.clients / (size_t)f.nclients : 0;
    high_peak = (double)f.peak / (double)f.total > 1.5;
    high_rss = f.rss > f.total && (double)f.rss / (double)f.total > 1.4 && f.rss - f.total > 10u * 1024 * 1024;
    big_clients = per_client > 200u * 1024;
    issues = high_peak + high_rss + big_clients;
    if (!issues) {
        mem_catf(text, sizeof(text), &len,
                 "No memory issue found: %zu bytes allocated (peak %zu), %zu bytes resident, %d clients holding "
                 "%zu bytes. These checks cover only what the server accounts for itself.\n",
                 f.total, f.peak, f.rss, f.nclients, f.clients);
        reply_verbatim(c, text, len);
        return;
    }
    mem_catf(text, sizeof(text), &len, "%d memory issue%s found:\n\n", issues, issues > 1 ? "s" : "");
    if (high_peak)
        mem_catf(text, sizeof(text), &len,
                 " * Peak memory: %zu bytes were allocated at the peak, %.0f%% more than the %zu bytes allocated "
                 "now. malloc does not always give freed memory back to the system, so the resident size may "
                 "stay near the peak; MEMORY PURGE asks it to.\n\n",
                 f.peak, ((double)f.peak / (double)f.total - 1) * 100, f.total);
    if (high_rss)
        mem_catf(text, sizeof(text), &len,
                 " * High RSS overhead: the process holds %zu bytes of RAM for %zu bytes allocated (ratio %.2f). "
                 "Memory freed inside malloc's heaps (deleted values, released request buffers) stays resident "
                 "until malloc returns it, and the libraries' own memory is not accounted; MEMORY PURGE may "
                 "return some of it.\n\n",
                 f.rss, f.total, (double)f.rss / (double)f.total);
    if (big_clients)
        mem_catf(text, sizeof(text), &len,
                 " * Big client buffers: the %d clients hold %zu bytes each on average in their query and reply "
                 "buffers. Clients that read their replies slowly or send huge pipelines cause it; "
                 "client-output-buffer-limit bounds the reply side.\n\n",
                 f.nclients, per_client);
    reply_verbatim(c, text, len);
}

static void memory_malloc_stats(client *c)
{
    char text[2048];
    size_t len = 0;
    struct mallinfo2 mi = mallinfo2();
    arena_stats as;

    memset(&as, 0, sizeof(as));
    if (srv.arena)
        arena_get_stats(srv.arena, &as);
    mem_catf(text, sizeof(text), &len,
             "___ Begin malloc statistics ___\n"
             "Allocator: libc malloc, with accounting: every block is counted by its usable size.\n"
             "Accounted: %zu bytes in use, %zu bytes at the peak.\n"
             "Keyspace arena: %zu objects, %zu bytes of objects, %zu pages holding %zu bytes, "
             "%zu bytes of large objects.\n"
             "libc mallinfo2: arena %zu, ordblks %zu, hblks %zu, hblkhd %zu, uordblks %zu, fordblks %zu, "
             "keepcost %zu.\n"
             "___ End malloc statistics ___\n",
             mem_used(), srv.peak_memory > mem_used() ? srv.peak_memory : mem_used(), as.live_objects,
             as.live_bytes, as.pages, as.page_bytes, as.large_bytes, mi.arena, mi.ordblks, mi.hblks, mi.hblkhd,
             mi.uordblks, mi.fordblks, mi.keepcost);
    reply_verbatim(c, text, len);
}

/* libc's counterpart of jemalloc's purge: give free heap memory back. */
static void memory_purge(client *c)
{
    malloc_trim(0);
    reply_ok(c);
}

static void memory_help(client *c)
{
    static const char *const lines[] = {
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        NULL,
    };
    reply_help(c, lines);
}

#define MEM_VARIES "Depends on how much memory is allocated, could be slow"
/* clang-format off */
static const cmd_def memory_subcommands[] = {
    {.name = "doctor", .proc = memory_doctor, .arity = 2, .flags = 0, .group = "server",
     .summary = "Outputs memory problems report", .since = "4.0.0", .complexity = "O(1)", .acl = "slow",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "help", .proc = memory_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "server",
     .summary = "Show helpful text about the different subcommands", .since = "4.0.0", .complexity = "O(1)",
     .acl = "slow"},
    {.name = "malloc-stats", .proc = memory_malloc_stats, .arity = 2, .flags = 0, .group = "server",
     .summary = "Show allocator internal stats", .since = "4.0.0", .complexity = MEM_VARIES, .acl = "slow",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "purge", .proc = memory_purge, .arity = 2, .flags = 0, .group = "server",
     .summary = "Ask the allocator to release memory", .since = "4.0.0", .complexity = MEM_VARIES, .acl = "slow",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "stats", .proc = memory_stats, .arity = 2, .flags = 0, .group = "server",
     .summary = "Show memory usage details", .since = "4.0.0", .complexity = "O(1)", .acl = "slow",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "usage", .proc = memory_usage, .arity = -3, .flags = CMD_READONLY, KEYS(2, 2, 1), .group = "server",
     .summary = "Estimate the memory usage of a key", .since = "4.0.0",
     .complexity = "O(N) where N is the number of samples.", .acl = "read slow", .key_specs = "RO"},
    {0},
};
/* clang-format on */

/* clang-format off */
const cmd_def cmd_table_memory[] = {
    {.name = "memory", .proc = cmd_container, .arity = -2, .flags = 0, .group = "server",
     .summary = "A container for memory diagnostics commands", .since = "4.0.0",
     .complexity = "Depends on subcommand.", .acl = "slow", .subcommands = memory_subcommands},
    {0},
};
/* clang-format on */
