/* itest.h -- what every C integration test needs: a real server of its own, raw
 * sockets, a small RESP2/RESP3 reply reader, and the ok / not ok report.
 *
 * Why: integration tests talk to the server the way users do, so each program
 * starts its own scratchpad-server ($SERVER, else $TOP/build/scratchpad-server,
 * else ./build/scratchpad-server) on a free port of 127.0.0.1, in a fresh
 * temporary directory that holds the server's log, and stops it by PID. The
 * reply reader exists because Debian's hiredis (0.14) has no RESP3, and because
 * fault tests must see the exact bytes a server sends.
 *
 * Invariants: every server started here is stopped at exit, on SIGTERM/SIGINT
 * (the runner's timeout) and by the watchdog, by its PID only; the child also
 * dies with the test program (PR_SET_PDEATHSIG). Every wait is bounded. The
 * report follows tests/unit/test.h: RUN(fn, "a sentence") prints one line per
 * case, "ok - ..." or "not ok - ...", and TEST_DONE() the totals.
 *
 * Everything is static: each test program is one .c file including this. */
#ifndef SP_ITEST_H
#define SP_ITEST_H

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Every helper is static and may go unused by a given test. */
#define IT_FN static __attribute__((unused))

/* ---- time ---- */

/* Milliseconds of a monotonic clock. */
IT_FN int64_t it_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

IT_FN void it_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* ---- the report ---- */

static int it_passed, it_failed, it_case_failed;

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "    %s:%d: CHECK(%s) failed\n", __FILE__,      \
                    __LINE__, #cond);                                       \
            it_case_failed = 1;                                             \
        }                                                                   \
    } while (0)

/* CHECK with a printf-style explanation printed when it fails. */
#define CHECKF(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "    %s:%d: CHECK(%s) failed: ", __FILE__,      \
                    __LINE__, #cond);                                       \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            it_case_failed = 1;                                             \
        }                                                                   \
    } while (0)

#define RUN(fn, desc)                                                       \
    do {                                                                    \
        int64_t it_t0_ = it_now_ms();                                       \
        it_case_failed = 0;                                                 \
        fn();                                                               \
        if (it_now_ms() - it_t0_ > 3000)                                    \
            fprintf(stderr, "    (%s took %lld ms)\n", #fn,                 \
                    (long long)(it_now_ms() - it_t0_));                     \
        if (it_case_failed) {                                               \
            it_failed++;                                                    \
            printf("not ok - %s\n", desc);                                  \
        } else {                                                            \
            it_passed++;                                                    \
            printf("ok - %s\n", desc);                                      \
        }                                                                   \
        fflush(stdout);                                                     \
        fflush(stderr);                                                     \
    } while (0)

#define TEST_DONE()                                                         \
    (printf("%d passed, %d failed\n", it_passed, it_failed),               \
     it_failed ? 1 : 0)

/* ---- raw sockets ---- */

/* A blocking TCP connection to 127.0.0.1:port with TCP_NODELAY, or -1. */
IT_FN int it_connect(int port)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

    if (fd < 0)
        return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* Close fd with a RST instead of a FIN (SO_LINGER 0). */
IT_FN void it_close_rst(int fd)
{
    struct linger lg = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close(fd);
}

/* Wait until fd is readable (or has an error / EOF). 1 ready, 0 timeout. */
IT_FN int it_wait_readable(int fd, int timeout_ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    int64_t end = it_now_ms() + timeout_ms;
    for (;;) {
        int64_t left = end - it_now_ms();
        int r;
        if (left < 0)
            left = 0;
        r = poll(&p, 1, (int)left);
        if (r > 0)
            return 1;
        if (r == 0)
            return 0;
        if (errno != EINTR)
            return 1;
    }
}

/* Send all n bytes, waiting at most timeout_ms in total. 0, or -1 on error or
 * timeout (the peer stopped reading, or closed). */
IT_FN int it_send_all_timeout(int fd, const void *buf, size_t n, int timeout_ms)
{
    const char *p = buf;
    int64_t end = it_now_ms() + timeout_ms;

    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        {
            struct pollfd pf = {fd, POLLOUT, 0};
            int64_t left = end - it_now_ms();
            if (left <= 0)
                return -1;
            poll(&pf, 1, (int)left);
        }
    }
    return 0;
}

IT_FN int it_send_all(int fd, const void *buf, size_t n)
{
    return it_send_all_timeout(fd, buf, n, 10000);
}

IT_FN int it_send_str(int fd, const char *s)
{
    return it_send_all(fd, s, strlen(s));
}

/* Read one line ended by "\r\n" into buf (NUL-terminated, CRLF removed), byte
 * by byte so nothing past the line is consumed. Returns its length, or -1 on
 * EOF, error, timeout or a line longer than cap - 1. */
IT_FN ssize_t it_read_line(int fd, char *buf, size_t cap, int timeout_ms)
{
    size_t n = 0;
    int64_t end = it_now_ms() + timeout_ms;

    while (n + 1 < cap) {
        char ch;
        ssize_t r;
        int64_t left = end - it_now_ms();
        if (left < 0 || !it_wait_readable(fd, (int)left))
            return -1;
        r = recv(fd, &ch, 1, 0);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            return -1;
        }
        buf[n++] = ch;
        if (n >= 2 && buf[n - 2] == '\r' && buf[n - 1] == '\n') {
            buf[n - 2] = '\0';
            return (ssize_t)(n - 2);
        }
    }
    return -1;
}

/* Read whatever arrives until the peer closes (EOF or reset) or timeout_ms
 * pass. Keeps the first cap - 1 bytes in buf (NUL-terminated) and the total in
 * *total. Returns 1 if the peer closed, 0 on timeout. */
IT_FN int it_read_until_close(int fd, char *buf, size_t cap, size_t *total, int timeout_ms)
{
    char tmp[65536];
    size_t kept = 0, all = 0;
    int64_t end = it_now_ms() + timeout_ms;
    int closed = 0;

    for (;;) {
        int64_t left = end - it_now_ms();
        ssize_t r;
        if (left < 0 || !it_wait_readable(fd, (int)left))
            break;
        r = recv(fd, tmp, sizeof(tmp), 0);
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
            closed = 1;
            break;
        }
        if (r < 0)
            continue;
        all += (size_t)r;
        if (buf && kept + 1 < cap) {
            size_t k = (size_t)r < cap - 1 - kept ? (size_t)r : cap - 1 - kept;
            memcpy(buf + kept, tmp, k);
            kept += k;
        }
    }
    if (buf && cap)
        buf[kept] = '\0';
    if (total)
        *total = all;
    return closed;
}

/* Send one request and expect "+PONG" (or an -NOAUTH / -LOADING answer, which
 * also says the server is up). 1 if it answered so. */
IT_FN int it_ping_port(int port, int timeout_ms)
{
    char line[256];
    int fd = it_connect(port), ok = 0;
    if (fd < 0)
        return 0;
    if (it_send_str(fd, "*1\r\n$4\r\nPING\r\n") == 0 && it_read_line(fd, line, sizeof(line), timeout_ms) >= 0)
        ok = strcmp(line, "+PONG") == 0 || strncmp(line, "-NOAUTH", 7) == 0;
    close(fd);
    return ok;
}

/* A port of 127.0.0.1 free right now (bind to port 0 and read it back), or -1. */
IT_FN int it_free_port(void)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

    if (fd < 0)
        return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
        port = ntohs(sa.sin_port);
    close(fd);
    return port;
}

/* ---- the server ---- */

typedef struct it_server {
    pid_t pid;         /* 0 when not running */
    int port;
    char dir[256];     /* the temporary directory, the server's cwd */
    char log[320];     /* dir/server.log: its stdout and stderr */
} it_server;

#define IT_MAX_SERVERS 16
static it_server *it_running[IT_MAX_SERVERS];

IT_FN void it_track(it_server *s, int on)
{
    int i;
    for (i = 0; i < IT_MAX_SERVERS; i++) {
        if (on && !it_running[i]) {
            it_running[i] = s;
            return;
        }
        if (!on && it_running[i] == s) {
            it_running[i] = NULL;
            return;
        }
    }
}

IT_FN void it_rm_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;

    if (d) {
        while ((e = readdir(d)) != NULL) {
            char sub[PATH_MAX];
            struct stat st;
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                it_rm_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

/* Kill every tracked server at once (signal handlers and the watchdog). Only
 * async-signal-safe calls. */
IT_FN void it_kill_all_now(void)
{
    int i;
    for (i = 0; i < IT_MAX_SERVERS; i++)
        if (it_running[i] && it_running[i]->pid > 0)
            kill(it_running[i]->pid, SIGKILL);
}

IT_FN void it_on_signal(int sig)
{
    static const char msg[] = "not ok - the integration test was stopped by a signal or its watchdog\n";
    it_kill_all_now();
    if (sig == SIGALRM) {
        ssize_t w = write(1, msg, sizeof(msg) - 1);
        (void)w;
    }
    _exit(sig == SIGALRM ? 1 : 128 + sig);
}

IT_FN void it_atexit(void)
{
    int i;
    for (i = 0; i < IT_MAX_SERVERS; i++) {
        it_server *s = it_running[i];
        if (s && s->pid > 0) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, NULL, 0);
            s->pid = 0;
            it_rm_tree(s->dir);
        }
        it_running[i] = NULL;
    }
}

/* Install the clean-up: servers are killed at exit, on SIGTERM/SIGINT and when
 * the whole program runs longer than seconds (then a "not ok" line is printed).
 * Call once at the start of main. */
IT_FN void it_init(int seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = it_on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    atexit(it_atexit);
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm((unsigned)seconds);
}

IT_FN const char *it_server_path(void)
{
    static char path[PATH_MAX];
    const char *s = getenv("SERVER"), *top = getenv("TOP"), *build = getenv("BUILD");
    if (s && *s)
        return s;
    snprintf(path, sizeof(path), "%s/%s/scratchpad-server", top && *top ? top : ".",
             build && *build ? build : "build");
    return path;
}

/* Print the last bytes of the server's log to stderr (for a failing start). */
IT_FN void it_dump_log(const it_server *s)
{
    char buf[4096];
    FILE *f = fopen(s->log, "r");
    size_t n;
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    if (ftell(f) > (long)sizeof(buf) - 1)
        fseek(f, -(long)(sizeof(buf) - 1), SEEK_END);
    else
        fseek(f, 0, SEEK_SET);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    fprintf(stderr, "    --- server log (%s) ---\n%s\n    ---\n", s->log, buf);
}

/* 1 if the server process is still running (reaps it if it has exited). */
IT_FN int it_server_alive(it_server *s)
{
    int st;
    if (s->pid <= 0)
        return 0;
    if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
        fprintf(stderr, "    server pid %d exited: %s %d\n", (int)s->pid,
                WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        s->pid = 0;
        return 0;
    }
    return 1;
}

/* When not 0, the open-file limit (RLIMIT_NOFILE) the next servers start with
 * (to test how the server copes with a low ulimit -n). */
static long it_child_nofile;

/* Fork and exec the server once on port s->port in s->dir; wait (at most
 * 10 s) until it answers PING. 0, or -1 with the server killed. */
IT_FN int it_server_spawn(it_server *s, const char *const *extra)
{
    const char *argv[64];
    char portbuf[16];
    int argc = 0, i;
    int64_t end;

    snprintf(portbuf, sizeof(portbuf), "%d", s->port);
    argv[argc++] = it_server_path();
    argv[argc++] = "--port";
    argv[argc++] = portbuf;
    argv[argc++] = "--bind";
    argv[argc++] = "127.0.0.1";
    argv[argc++] = "--enable-debug-command"; /* closed by default, as in Redis 7; tests use DEBUG */
    argv[argc++] = "yes";
    for (i = 0; extra && extra[i] && argc < 63; i++)
        argv[argc++] = extra[i];
    argv[argc] = NULL;

    s->pid = fork();
    if (s->pid < 0) {
        s->pid = 0;
        return -1;
    }
    if (s->pid == 0) {
        int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (it_child_nofile > 0) {
            struct rlimit rl = {(rlim_t)it_child_nofile, (rlim_t)it_child_nofile};
            setrlimit(RLIMIT_NOFILE, &rl);
        }
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        if (chdir(s->dir) < 0)
            _exit(126);
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    it_track(s, 1);
    end = it_now_ms() + 10000;
    while (it_now_ms() < end) {
        if (!it_server_alive(s)) {
            it_track(s, 0);
            return -1;
        }
        if (it_ping_port(s->port, 1000))
            return 0;
        it_sleep_ms(20);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
    it_track(s, 0);
    return -1;
}

/* Start a server on port (0 = a free port, retried if another process takes it
 * first) with "--port N --bind 127.0.0.1 --enable-debug-command yes" and the NULL-terminated extra
 * arguments, in a new temporary directory. 0, or -1 after printing why. */
IT_FN int it_server_start_on(it_server *s, int port, const char *const *extra)
{
    const char *tmp = getenv("TMPDIR");
    int attempt;

    memset(s, 0, sizeof(*s));
    snprintf(s->dir, sizeof(s->dir), "%s/sp-itest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->dir)) {
        fprintf(stderr, "    mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    snprintf(s->log, sizeof(s->log), "%s/server.log", s->dir);
    for (attempt = 0; attempt < (port ? 1 : 3); attempt++) {
        s->port = port ? port : it_free_port();
        if (s->port > 0 && it_server_spawn(s, extra) == 0)
            return 0;
    }
    fprintf(stderr, "    could not start %s on port %d\n", it_server_path(), s->port);
    it_dump_log(s);
    it_rm_tree(s->dir);
    return -1;
}

IT_FN int it_server_start(it_server *s, const char *const *extra)
{
    return it_server_start_on(s, 0, extra);
}

/* 1 if the server's log contains needle. */
IT_FN int it_log_contains(const it_server *s, const char *needle)
{
    FILE *f = fopen(s->log, "r");
    char line[8192];
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

/* 1 if the log shows no sign of a crash or of a sanitizer report. Reads the
 * log once, line by line. */
IT_FN int it_log_clean(const it_server *s)
{
    static const char *const bad[] = {"crashed", "Segmentation", "SIGSEGV", "SIGBUS", "SIGABRT", "Assertion",
                                      "ASSERTION", "AddressSanitizer", "LeakSanitizer", "runtime error:",
                                      "stack trace", "STACK TRACE", "out of memory", NULL};
    FILE *f = fopen(s->log, "r");
    char line[8192];
    int i, found = -1;

    if (!f)
        return 1;
    while (found < 0 && fgets(line, sizeof(line), f))
        for (i = 0; bad[i] && found < 0; i++)
            if (strstr(line, bad[i]))
                found = i;
    fclose(f);
    if (found >= 0) {
        fprintf(stderr, "    server log contains \"%s\"\n", bad[found]);
        it_dump_log(s);
        return 0;
    }
    return 1;
}

/* Stop the server: SIGTERM, wait up to 10 s, then SIGKILL. Removes its
 * directory unless keep_dir. Returns 0 if it exited by itself with status 0,
 * -1 otherwise (it was not running any more, crashed, or needed SIGKILL). */
IT_FN int it_server_stop_keep(it_server *s, int keep_dir)
{
    int st = 0, rc = -1, was_running = s->pid > 0;
    int64_t end;

    if (was_running) {
        kill(s->pid, SIGTERM);
        end = it_now_ms() + 10000;
        for (;;) {
            pid_t r = waitpid(s->pid, &st, WNOHANG);
            if (r == s->pid) {
                rc = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
                if (rc < 0)
                    fprintf(stderr, "    server exited badly: %s %d\n", WIFSIGNALED(st) ? "signal" : "status",
                            WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
                break;
            }
            if (r < 0 || it_now_ms() > end) {
                fprintf(stderr, "    server pid %d did not stop on SIGTERM: killed\n", (int)s->pid);
                kill(s->pid, SIGKILL);
                waitpid(s->pid, NULL, 0);
                break;
            }
            it_sleep_ms(10);
        }
        s->pid = 0;
    }
    it_track(s, 0);
    if (rc < 0 && was_running)
        it_dump_log(s);
    if (!keep_dir && s->dir[0]) {
        it_rm_tree(s->dir);
        s->dir[0] = '\0';
    }
    return rc;
}

IT_FN int it_server_stop(it_server *s)
{
    return it_server_stop_keep(s, 0);
}

/* The last case of a program: the server is still running, its log shows no
 * crash, and SIGTERM makes it exit with status 0. Stops the server. */
IT_FN void it_server_finish(it_server *s)
{
    int alive = it_server_alive(s), clean = it_log_clean(s), stopped = it_server_stop(s);
    int ok = alive && clean && stopped == 0;
    if (!alive)
        fprintf(stderr, "    the server was not running any more\n");
    printf("%s - the server survives the whole run, logs no crash and exits with status 0 on SIGTERM\n",
           ok ? "ok" : "not ok");
    if (ok)
        it_passed++;
    else
        it_failed++;
}

/* ---- a RESP2/RESP3 reply reader on a raw connection ---- */

/* One reply. type is the RESP type byte ('+', '-', ':', '$', '*', '%', '~',
 * '>', '_', ',', '#', '=', '(', '!', '|'); is_null for "$-1" and "*-1" (type
 * stays '$' or '*') and for '_'. str/len hold the text of simple, error, bulk,
 * verbatim (with its "txt:" prefix), double and big number replies; integer
 * the value of ':' and '#' (1/0); element[] the children of aggregates, a map
 * holding 2 * n of them (key, value, ...). Free with it_reply_free. */
typedef struct it_reply {
    char type;
    int is_null;
    long long integer;
    char *str;
    size_t len;
    size_t elements;
    struct it_reply **element;
} it_reply;

typedef struct it_conn {
    int fd;
    char *buf;        /* bytes received and not yet parsed: buf[pos..len) */
    size_t len, pos, cap;
} it_conn;

IT_FN void it_reply_free(it_reply *r)
{
    size_t i;
    if (!r)
        return;
    for (i = 0; i < r->elements; i++)
        it_reply_free(r->element[i]);
    free(r->element);
    free(r->str);
    free(r);
}

IT_FN int it_conn_open(it_conn *c, int port)
{
    memset(c, 0, sizeof(*c));
    c->fd = it_connect(port);
    return c->fd < 0 ? -1 : 0;
}

IT_FN void it_conn_close(it_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    c->len = c->pos = c->cap = 0;
}

/* Make sure n bytes are buffered at c->pos. 0, or -1 on EOF/error/deadline. */
IT_FN int it_conn_fill(it_conn *c, size_t n, int64_t deadline)
{
    while (c->len - c->pos < n) {
        ssize_t r;
        int64_t left = deadline - it_now_ms();
        if (c->pos > 0) {
            memmove(c->buf, c->buf + c->pos, c->len - c->pos);
            c->len -= c->pos;
            c->pos = 0;
        }
        if (c->cap - c->len < 65536) {
            size_t want = c->len + (n > 65536 ? n : 65536) + 1;
            char *nb = realloc(c->buf, want);
            if (!nb)
                return -1;
            c->buf = nb;
            c->cap = want;
        }
        if (left < 0 || !it_wait_readable(c->fd, (int)left))
            return -1;
        r = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            return -1;
        }
        c->len += (size_t)r;
    }
    return 0;
}

/* The next line at c->pos without its CRLF: returns its start and sets *n;
 * advances past the CRLF. NULL on EOF/timeout. */
IT_FN char *it_conn_line(it_conn *c, size_t *n, int64_t deadline)
{
    for (;;) {
        size_t avail = c->len - c->pos;
        char *start = c->buf ? c->buf + c->pos : NULL;
        char *crlf = avail >= 2 ? memmem(start, avail, "\r\n", 2) : NULL;
        if (crlf) {
            *n = (size_t)(crlf - start);
            c->pos += *n + 2;
            return start;
        }
        if (it_conn_fill(c, avail + 1, deadline) < 0)
            return NULL;
    }
}

IT_FN it_reply *it_conn_parse(it_conn *c, int64_t deadline, int depth)
{
    it_reply *r;
    size_t n;
    char *line, *lbuf;
    long long v;

    if (depth > 64)
        return NULL;
    line = it_conn_line(c, &n, deadline);
    if (!line || n == 0)
        return NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->type = line[0];
    lbuf = malloc(n);
    memcpy(lbuf, line + 1, n - 1);
    lbuf[n - 1] = '\0';
    switch (r->type) {
    case '+': case '-': case ',': case '(':
        r->str = lbuf;
        r->len = n - 1;
        return r;
    case ':':
        r->integer = strtoll(lbuf, NULL, 10);
        free(lbuf);
        return r;
    case '#':
        r->integer = lbuf[0] == 't';
        free(lbuf);
        return r;
    case '_':
        r->is_null = 1;
        free(lbuf);
        return r;
    case '$': case '=': case '!':
        v = strtoll(lbuf, NULL, 10);
        free(lbuf);
        if (v < 0) {
            r->is_null = 1;
            return r;
        }
        if (it_conn_fill(c, (size_t)v + 2, deadline) < 0) {
            free(r);
            return NULL;
        }
        r->str = malloc((size_t)v + 1);
        memcpy(r->str, c->buf + c->pos, (size_t)v);
        r->str[v] = '\0';
        r->len = (size_t)v;
        c->pos += (size_t)v + 2;
        return r;
    case '*': case '%': case '~': case '>': case '|': {
        size_t i;
        v = strtoll(lbuf, NULL, 10);
        free(lbuf);
        if (v < 0) {
            r->is_null = 1;
            return r;
        }
        if (r->type == '%' || r->type == '|')
            v *= 2;
        r->element = calloc((size_t)v + 1, sizeof(it_reply *));
        for (i = 0; i < (size_t)v; i++) {
            r->element[i] = it_conn_parse(c, deadline, depth + 1);
            if (!r->element[i]) {
                r->elements = i;
                it_reply_free(r);
                return NULL;
            }
        }
        r->elements = (size_t)v;
        if (r->type == '|') {
            /* An attribute precedes the real reply: read it and keep that. */
            it_reply *real = it_conn_parse(c, deadline, depth + 1);
            it_reply_free(r);
            return real;
        }
        return r;
    }
    default:
        free(lbuf);
        free(r);
        return NULL;
    }
}

/* The next reply, waiting at most timeout_ms. NULL on EOF, timeout or garbage. */
IT_FN it_reply *it_conn_reply(it_conn *c, int timeout_ms)
{
    return it_conn_parse(c, it_now_ms() + timeout_ms, 0);
}

/* Send argv as one multibulk request (lens may be NULL for C strings). */
IT_FN int it_conn_sendv(it_conn *c, int argc, const char *const *argv, const size_t *lens)
{
    size_t cap = 32, n = 0;
    char *out;
    int i, rc;

    for (i = 0; i < argc; i++)
        cap += (lens ? lens[i] : strlen(argv[i])) + 32;
    out = malloc(cap);
    if (!out)
        return -1;
    n += (size_t)sprintf(out + n, "*%d\r\n", argc);
    for (i = 0; i < argc; i++) {
        size_t l = lens ? lens[i] : strlen(argv[i]);
        n += (size_t)sprintf(out + n, "$%zu\r\n", l);
        memcpy(out + n, argv[i], l);
        n += l;
        out[n++] = '\r';
        out[n++] = '\n';
    }
    rc = it_send_all(c->fd, out, n);
    free(out);
    return rc;
}

/* Split line on single spaces into at most 32 words and send them. */
IT_FN int it_conn_send(it_conn *c, const char *line)
{
    char copy[4096], *words[32], *save = NULL, *w;
    int n = 0;
    snprintf(copy, sizeof(copy), "%s", line);
    for (w = strtok_r(copy, " ", &save); w && n < 32; w = strtok_r(NULL, " ", &save))
        words[n++] = w;
    return it_conn_sendv(c, n, (const char *const *)words, NULL);
}

/* Send line (words split on spaces) and read its reply (5 s at most). */
IT_FN it_reply *it_conn_cmd(it_conn *c, const char *line)
{
    if (it_conn_send(c, line) < 0)
        return NULL;
    return it_conn_reply(c, 5000);
}

/* 1 if r is a reply of type t whose text is exactly s. */
IT_FN int it_reply_is(const it_reply *r, char t, const char *s)
{
    return r && r->type == t && !r->is_null && r->str && r->len == strlen(s) && memcmp(r->str, s, r->len) == 0;
}

/* The value of key in map reply r (RESP3 '%' or a RESP2 flat array), or NULL. */
IT_FN const it_reply *it_reply_map_get(const it_reply *r, const char *key)
{
    size_t i;
    if (!r || (r->type != '%' && r->type != '*'))
        return NULL;
    for (i = 0; i + 1 < r->elements; i += 2) {
        const it_reply *k = r->element[i];
        if (k->str && k->len == strlen(key) && memcmp(k->str, key, k->len) == 0)
            return r->element[i + 1];
    }
    return NULL;
}

/* ---- hiredis helpers (when the test includes <hiredis/hiredis.h> first) ---- */
#ifdef REDIS_REPLY_STRING

/* A sync hiredis connection to 127.0.0.1:port with 10 s timeouts, or NULL. */
IT_FN redisContext *it_redis(int port)
{
    struct timeval tv = {10, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    if (!c || c->err) {
        fprintf(stderr, "    connect to port %d: %s\n", port, c ? c->errstr : "out of memory");
        if (c)
            redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    return c;
}

IT_FN const char *it_type_name(int t)
{
    switch (t) {
    case REDIS_REPLY_STRING: return "string";
    case REDIS_REPLY_ARRAY: return "array";
    case REDIS_REPLY_INTEGER: return "integer";
    case REDIS_REPLY_NIL: return "nil";
    case REDIS_REPLY_STATUS: return "status";
    case REDIS_REPLY_ERROR: return "error";
    default: return "other";
    }
}

/* Check that r has type `type` and, for strings, statuses and errors, the text
 * want (NULL: any), for integers the value num. Prints what came instead, marks
 * the case failed, and frees r. Returns 1 if it matched. */
IT_FN int it_expect(const char *file, int line, redisReply *r, int type, const char *want, long long num)
{
    int ok = r && r->type == type;
    if (ok && want && (type == REDIS_REPLY_STRING || type == REDIS_REPLY_STATUS || type == REDIS_REPLY_ERROR))
        ok = (size_t)r->len == strlen(want) && memcmp(r->str, want, strlen(want)) == 0;
    if (ok && type == REDIS_REPLY_INTEGER)
        ok = r->integer == num;
    if (!ok) {
        fprintf(stderr, "    %s:%d: expected %s", file, line, it_type_name(type));
        if (type == REDIS_REPLY_INTEGER)
            fprintf(stderr, " %lld", num);
        else if (want)
            fprintf(stderr, " \"%s\"", want);
        if (!r)
            fprintf(stderr, ", got no reply (connection error)\n");
        else if (r->type == REDIS_REPLY_INTEGER)
            fprintf(stderr, ", got integer %lld\n", r->integer);
        else if (r->str)
            fprintf(stderr, ", got %s \"%.*s\"\n", it_type_name(r->type), r->len > 300 ? 300 : (int)r->len, r->str);
        else
            fprintf(stderr, ", got %s (%zu elements)\n", it_type_name(r->type), r->elements);
        it_case_failed = 1;
    }
    if (r)
        freeReplyObject(r);
    return ok;
}

#define EXPECT_OK(c, ...) it_expect(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_STATUS, "OK", 0)
#define EXPECT_STATUS(c, s, ...) it_expect(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_STATUS, s, 0)
#define EXPECT_STR(c, s, ...) it_expect(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_STRING, s, 0)
#define EXPECT_INT(c, n, ...) it_expect(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_INTEGER, NULL, n)
#define EXPECT_NIL(c, ...) it_expect(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_NIL, NULL, 0)
#define EXPECT_ERR(c, s, ...) it_expect(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_ERROR, s, 0)
/* The same checks on a reply already read (it is freed). */
#define EXPECT_REPLY(r, type, s, n) it_expect(__FILE__, __LINE__, (r), (type), (s), (n))

/* A reply the caller inspects: NULL (and the case failed) unless it has type. */
IT_FN redisReply *it_cmd_type(const char *file, int line, redisReply *r, int type)
{
    if (!r || r->type != type) {
        fprintf(stderr, "    %s:%d: expected %s, got %s%s%.*s\n", file, line, it_type_name(type),
                r ? it_type_name(r->type) : "no reply", r && r->str ? " " : "", r && r->str ? (int)r->len : 0,
                r && r->str ? r->str : "");
        it_case_failed = 1;
        if (r)
            freeReplyObject(r);
        return NULL;
    }
    return r;
}
#define CMD_ARRAY(c, ...) it_cmd_type(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_ARRAY)
#define CMD_STRING(c, ...) it_cmd_type(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_STRING)
#define CMD_INT(c, ...) it_cmd_type(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), REDIS_REPLY_INTEGER)

/* 1 if element i of array r is a string / status / error equal to s. */
IT_FN int it_elem_is(const redisReply *r, size_t i, int type, const char *s)
{
    const redisReply *e;
    if (!r || r->type != REDIS_REPLY_ARRAY || i >= r->elements)
        return 0;
    e = r->element[i];
    return e->type == type && (size_t)e->len == strlen(s) && memcmp(e->str, s, e->len) == 0;
}

#endif

#endif
