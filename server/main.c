/* main.c -- start-up, the event loop and shut-down of scratchpad-server.
 *
 * Order of set-up: defaults, config file, command-line directives, then the
 * keyspace, the command table, the listeners, the cron and the signals; the
 * loop runs until a signal or SHUTDOWN asks it to stop; tear-down releases in
 * reverse order. */
#include <errno.h>
#include <event2/event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cmd/block.h"
#include "cmd/acl.h"
#include "cmd/commands.h"
#include "config.h"
#include "keyspace/lazyfree.h"
#include "log.h"
#include "core/mem.h"
#include "cmd/multi.h"
#include "cmd/tracking.h"
#include "net/net.h"
#include "aof/persist.h"
#include "script/script.h"
#include "server.h"
#include "core/util.h"

#define LAZYFREE_STEP_US 1000 /* freeing of deleted large values per loop iteration */

static void signal_cb(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    (void)arg;
    log_warning("Received %s scheduling shutdown...", sig == SIGINT ? "SIGINT" : "SIGTERM");
    srv.shutdown_asap = 1;
    event_base_loopbreak(srv.base);
}

static void usage(void)
{
    fprintf(stderr,
            "Usage: ./scratchpad-server [/path/to/scratchpad.conf] [options]\n"
            "       ./scratchpad-server -v or --version\n"
            "       ./scratchpad-server -h or --help\n\n"
            "Examples:\n"
            "       ./scratchpad-server (run the server with default config)\n"
            "       ./scratchpad-server scratchpad.conf\n"
            "       ./scratchpad-server --port 7777\n"
            "       ./scratchpad-server scratchpad.conf --port 7000 --loglevel verbose\n");
}

/* 1 if every address of bind is a loopback one. */
static int bind_loopback_only(void)
{
    const char *p = srv.cfg.bind ? srv.cfg.bind : "";
    int any = 0;

    while (*p) {
        const char *w;
        size_t n;
        while (*p == ' ')
            p++;
        if (*p == '-')
            p++;
        w = p;
        while (*p && *p != ' ')
            p++;
        n = (size_t)(p - w);
        if (!n)
            continue;
        any = 1;
        if (!(n >= 4 && strncmp(w, "127.", 4) == 0) && !(n == 3 && strncmp(w, "::1", 3) == 0) &&
            !(n == 9 && strncmp(w, "localhost", 9) == 0))
            return 0;
    }
    return any;
}

/* Say at start-up what a listener on other addresses than loopback with no
 * password means (protected mode, docs/security.md). */
static void warn_exposed(void)
{
    if (!srv.cfg.port || bind_loopback_only() || !acl_default_open())
        return;
    if (srv.cfg.protected_mode)
        log_warning("WARNING: protected mode is on and the default user has no password: clients that are not on "
                    "127.0.0.1 or ::1 are refused (-DENIED). Set a password (requirepass, ACL users) to serve them.");
    else
        log_warning("WARNING: protected mode is off and the default user has no password: any client that can "
                    "reach %s:%d can run every command, FLUSHALL and SHUTDOWN included.",
                    srv.cfg.bind, srv.cfg.port);
}

int main(int argc, char **argv)
{
    const char *conf = NULL;
    struct timeval tv;
    int argi = 1, i;
    int64_t spin_until = 0; /* mono_us until which the loop polls (busy-poll-us), 0: none */
    long long seen_in = 0;  /* srv.stat_net_in when last looked at */

    if (argc >= 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version"))) {
        printf("Scratchpad server v=%s (Redis-compatible %s) malloc=libc bits=%d\n", SP_SERVER_VERSION,
               SP_VERSION, (int)(sizeof(long) * 8));
        return 0;
    }
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage();
        return 0;
    }
    cfg_defaults();
    if (argc >= 2 && strncmp(argv[1], "--", 2) != 0) {
        conf = argv[1];
        argi = 2;
        if (cfg_load_file(conf) < 0)
            return 1;
        srv.configfile = realpath(conf, NULL);
    }
    if (cfg_load_args(argc - argi, argv + argi) < 0)
        return 1;

    fast_clock_init();
    srv.pid = getpid();
    srv.start_ms = now_ms();
    srv.last_save = srv.start_ms / 1000;
    signal(SIGPIPE, SIG_IGN);
    server_init_keyspace();
    cmd_init();
    acl_init();
    multi_init();
    script_init();
    function_init();
    net_up.dispatch = cmd_dispatch;
    net_up.release = cmd_client_release;
    net_up.cmd_name = cmd_fullname;
    net_up.note_error = srv_note_error;
    net_up.acked = persist_acked_fn;
    net_up.refusing = persist_refusing_fn;
    net_up.client_init = acl_client_init;
    net_up.user_name = acl_user_name;
    net_up.default_open = acl_default_open;
    slowlog_resize();
    {
        /* Values from the file and the command line take effect as a run-time
         * change would (thresholds, maxclients' descriptor limit, ...). */
        const cfg_def *d;
        for (d = cfg_table; d->name; d++) {
            const char *err = NULL;
            if (d->apply && d->apply(&err) < 0) {
                log_warning("%s: %s", d->name, err);
                return 1;
            }
        }
    }
    if (acl_load_startup() < 0)
        return 1;
    srv.base = event_base_new();
    if (!srv.base) {
        log_warning("Failed creating the event loop");
        return 1;
    }
    log_notice("oO0OoO0OoO0Oo Scratchpad is starting oO0OoO0OoO0Oo");
    log_notice("Scratchpad version=%s (Redis %s compatible), bits=%d, pid=%d, just started", SP_SERVER_VERSION,
               SP_VERSION, (int)(sizeof(long) * 8), (int)srv.pid);
    if (srv.configfile)
        log_notice("Configuration loaded from %s", srv.configfile);
    else
        log_warning("No config file specified, using the default config. In order to specify a config file use "
                    "scratchpad-server /path/to/scratchpad.conf");
    /* The log is replayed before the port opens: a client never sees a
     * half-loaded dataset, and one that connects early retries as it would
     * for a server that is still starting (docs/aof.md). */
    if (persist_start() < 0) {
        /* Refused (a corrupt log, a directory in use): release what the
         * partial replay built, so that the exit is as clean as a shut-down. */
        persist_stop();
        for (i = 0; i < srv.cfg.databases; i++)
            db_release(&srv.dbs[i]);
        lazyfree_drain();
        return 1;
    }
    if (net_listen() < 0)
        return 1;
    warn_exposed();
    log_notice("Running mode=standalone, port=%d.", srv.cfg.port);
    if (srv.cfg.unixsocket && srv.cfg.unixsocket[0])
        log_notice("The server is now ready to accept connections at %s", srv.cfg.unixsocket);
    if (srv.cfg.port)
        log_notice("Ready to accept connections tcp");
    if (srv.cfg.tls_port)
        log_notice("Ready to accept connections tls");
    server_write_pidfile();

    srv.cron_ev = event_new(srv.base, -1, EV_PERSIST, server_cron, NULL);
    tv.tv_sec = 0;
    tv.tv_usec = 1000000 / srv.cfg.hz;
    event_add(srv.cron_ev, &tv);
    srv.sig_ev[0] = evsignal_new(srv.base, SIGTERM, signal_cb, NULL);
    srv.sig_ev[1] = evsignal_new(srv.base, SIGINT, signal_cb, NULL);
    for (i = 0; i < 2; i++)
        event_add(srv.sig_ev[i], NULL);

    while (!srv.shutdown_asap) {
        int busy, spin = 0;

        blk_resume();
        tracking_broadcast();
        persist_before_replies();
        if (net_holding)
            net_release_held();
        net_flush_pending();
        net_free_closed();
        if (srv.shutdown_asap)
            break;
        /* Large values deleted are freed a bounded slice per iteration, after
         * the replies went out (keyspace/lazyfree.h). A rewrite that runs on
         * the loop takes a step every iteration too: while either has work,
         * poll for events without sleeping. */
        lazyfree_step(LAZYFREE_STEP_US);
        /* busy-poll-us: for that long after the last input, poll instead of
         * sleeping. A CPU that sleeps in epoll_wait is halted, and on a
         * virtual machine the next request then pays the hypervisor's wake-up
         * (an interrupt through the host) on the sender's side and ours: at
         * one request in flight per client that was a tenth of the round trip
         * (docs/performance.md). While polling the loop yields its CPU to any
         * other runnable thread, and an idle server sleeps as before. */
        busy = persist_busy() || lazyfree_pending();
        if (!busy && spin_until) {
            if (mono_us() < spin_until)
                spin = 1;
            else
                spin_until = 0;
        }
        event_base_loop(srv.base, busy || spin ? EVLOOP_ONCE | EVLOOP_NONBLOCK : EVLOOP_ONCE);
        if (srv.stat_net_in != seen_in) {
            seen_in = srv.stat_net_in;
            spin_until = srv.cfg.busy_poll_us > 0 ? mono_us() + srv.cfg.busy_poll_us : 0;
        } else if (spin) {
            sched_yield();
        }
    }
    server_shutdown();
    for (i = 0; i < 2; i++)
        event_free(srv.sig_ev[i]);
    event_free(srv.cron_ev);
    event_base_free(srv.base);
    return 0;
}
