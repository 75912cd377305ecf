/* server.c -- the server object and its periodic work: the keyspace set-up,
 * the cron (active expiry, incremental rehash, client checks), start-up helpers
 * and the orderly shut-down. Kept apart from main.c so that tests can link it. */
#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "log.h"
#include "core/mem.h"
#include "cmd/multi.h"
#include "cmd/pause.h"
#include "net/net.h"
#include "aof/persist.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "keyspace/evict.h"
#include "keyspace/lazyfree.h"
#include "keyspace/type.h"
#include "types/hash/hash.h"
#include "types/list/list.h"
#include "types/sp/sptype.h"
#include "server.h"
#include "core/sp/sp.h"
#include "cmd/stats.h"
#include "keyspace/vcomp.h"
#include "types/string/value.h"
#include "types/set/set.h"
#include "types/zset/zset.h"
#include "types/stream/stream.h"
#include "core/util.h"

server srv;

/* ---- dataset accounting ----
 *
 * INFO memory reports the dataset's logical bytes (values as clients see them)
 * and stored bytes (what they occupy, compressed or not). Summing them is
 * O(keys), so the cron walks the databases with SCAN cursors a little at a time
 * and publishes the totals when a pass completes; values change meanwhile, so
 * the figures are those of a recent pass, stamped with its time. */

static struct {
    int db;
    uint64_t cursor;
    size_t logical, stored, keys;
} ds;

/* The pass also registers, for the background dictionary, every compressed
 * value that is registered nowhere (those the log loader rebuilt: see
 * vc_dict_adopt). */
static void ds_adopt_one(lzval *v, void *ctx)
{
    (void)ctx;
    vc_dict_adopt(v);
}

static void ds_visit(void *ctx, ht_node *n)
{
    const dbent *e = (const dbent *)n;
    const type_def *t = type_of(e);
    (void)ctx;
    ds.keys++;
    if (vc_dict_delay >= 0 && t->visit_lz)
        t->visit_lz(e, ds_adopt_one, NULL);
    ds.logical += t->logical(e);
    ds.stored += e->enc == ENC_INLINE ? dbent_vlen(e) : db_value_stored(e);
}

void server_dataset_scan(int64_t budget_us)
{
    int64_t start = mono_us();
    int steps = 0;

    while (1) {
        ds.cursor = ht_scan(&srv.dbs[ds.db].keys, ds.cursor, ds_visit, NULL);
        if (ds.cursor == 0) {
            if (++ds.db == srv.cfg.databases) {
                srv.ds_logical = ds.logical;
                srv.ds_stored = ds.stored;
                srv.ds_keys = ds.keys;
                srv.ds_when = now_ms();
                memset(&ds, 0, sizeof(ds));
                return;
            }
        }
        if ((++steps & 63) == 0 && mono_us() - start >= budget_us)
            return;
    }
}

/* ---- the background dictionary ----
 *
 * Conversions of idle values to dictionary mode (lzidle.h) get 1 ms of every
 * cron tick whatever the load, and more when the server is idle: while one is
 * due, a timer fires every millisecond, and a firing that finds no command
 * executed since the previous one does another 1 ms of work and fires again at
 * once. Under load the timer only looks (a command ran in the last
 * millisecond); an idle server converts at full speed, in steps of ~0.2 ms, so
 * a client that arrives waits at most about a millisecond. */

#define DICT_CRON_US 1000 /* us of conversion per cron tick */
#define DICT_IDLE_US 1000 /* us of conversion per idle firing */

static struct event *dict_ev;
static long long dict_cmds = -1; /* srv.stat_commands at the last firing */

static void dict_arm(int now)
{
    struct timeval tv = {0, now ? 0 : 1000};

    if (!vc_dict_due())
        return;
    if (!dict_ev)
        dict_ev = evtimer_new(srv.base, server_dict_cb, NULL);
    if (!evtimer_pending(dict_ev, NULL) || now)
        evtimer_add(dict_ev, &tv);
}

void server_dict_cb(evutil_socket_t fd, short what, void *arg)
{
    int idle = srv.stat_commands == dict_cmds;
    (void)fd;
    (void)what;
    (void)arg;
    if (cmd_busy_error)
        return; /* a busy script: the keyspace waits for it (script/script.h) */

    if (idle)
        vc_dict_step(DICT_IDLE_US);
    dict_cmds = srv.stat_commands;
    dict_arm(idle);
}

/* Work done hz times per second: active expiry, incremental rehash, clients. */
void server_cron(evutil_socket_t fd, short what, void *arg)
{
    int64_t budget = 250000 / srv.cfg.hz; /* us: a quarter of the cron period */
    int64_t now = now_ms();
    int i;
    (void)fd;
    (void)what;
    (void)arg;
    if (cmd_busy_error)
        return; /* a busy script: the keyspace waits for it (script/script.h) */

    pause_cron(now);
    for (i = 0; i < srv.cfg.databases && budget > 0; i++) {
        int64_t t0 = mono_us();
        db_active_expire(&srv.dbs[i], now, budget);
        if (ht_is_rehashing(&srv.dbs[i].keys))
            ht_rehash_ms(&srv.dbs[i].keys, 1);
        budget -= mono_us() - t0;
    }
    if (blk_ready_pending) /* leases expired: their waiters are served */
        blk_handle_ready();
    sv_compress_step(budget > 2000 ? budget : 2000);
    vc_dict_step(DICT_CRON_US);
    dict_arm(0);
    server_dataset_scan(1000);
    net_clients_cron();
    persist_cron();
    if (net_holding)
        net_release_held();
    stats_cron_sample();
    if (mem_used() > srv.peak_memory)
        srv.peak_memory = mem_used();
}

void server_reschedule_cron(void)
{
    struct timeval tv;
    if (!srv.cron_ev)
        return;
    tv.tv_sec = 0;
    tv.tv_usec = 1000000 / srv.cfg.hz;
    event_add(srv.cron_ev, &tv);
}

int server_init_keyspace(void)
{
    int i;
    if (getrandom(&srv.hash_seed, sizeof(srv.hash_seed), 0) != sizeof(srv.hash_seed))
        srv.hash_seed = (uint64_t)now_us() ^ (uint64_t)getpid();
    srv.rng = srv.hash_seed | 1;
    srv.arena = arena_new();
    srv.dbs = xcalloc((size_t)srv.cfg.databases, sizeof(db));
    for (i = 0; i < srv.cfg.databases; i++)
        db_init(&srv.dbs[i], i, srv.arena, srv.hash_seed);
    db_on_expired = signal_key_expired;
    evict_on_evicted = signal_key_evicted;
    db_on_changed = signal_key_changed;
    db_on_new = signal_key_new;
    db_on_miss = signal_key_miss;
    db_on_subexpired = signal_entries_expired;
    sv_type_register();
    sp_type_register();
    set_type_register(srv.hash_seed);
    hash_type_register();
    list_type_register();
    zs_type_register();
    stream_type_register();
    type_effects = &prop_effects;
    type_effects_on = &prop_on;
    return 0;
}

void server_write_pidfile(void)
{
    FILE *f;
    if (!srv.cfg.pidfile || !srv.cfg.pidfile[0])
        return;
    f = fopen(srv.cfg.pidfile, "w");
    if (!f) {
        log_warning("Failed to write PID file %s: %s", srv.cfg.pidfile, strerror(errno));
        return;
    }
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
}

void server_shutdown(void)
{
    int i;
    log_warning("User requested shutdown...");
    persist_before_replies();
    net_flush_pending();
    net_close_listeners();
    while (srv.clients)
        client_free(srv.clients);
    net_free_closed();
    if (srv.cfg.pidfile && srv.cfg.pidfile[0])
        unlink(srv.cfg.pidfile);
    persist_stop();
    for (i = 0; i < srv.cfg.databases; i++)
        db_release(&srv.dbs[i]);
    lazyfree_drain();
    if (dict_ev)
        event_free(dict_ev);
    dict_ev = NULL;
    log_warning("Scratchpad is now ready to exit, bye bye...");
}


void server_close_sockets(void)
{
    client *c;
    int i;

    for (i = 0; i < srv.tcp_nfds; i++)
        close(srv.tcp_fds[i]);
    if (srv.unix_fd >= 0)
        close(srv.unix_fd);
    for (c = srv.clients; c; c = c->next)
        if (c->fd >= 0)
            close(c->fd);
}
