/* log.c -- leveled logging (see log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

static FILE *log_fp;
static char log_path[1024];

void log_reopen(void)
{
    const char *want = srv.cfg.logfile ? srv.cfg.logfile : "";

    if (log_fp && log_fp != stdout)
        fclose(log_fp);
    log_fp = NULL;
    snprintf(log_path, sizeof(log_path), "%s", want);
    if (want[0])
        log_fp = fopen(want, "a");
    if (!log_fp)
        log_fp = stdout;
}

void log_msg(int level, const char *fmt, ...)
{
    static const char marks[] = ".-*#";
    char tbuf[64], msg[4096];
    struct timeval tv;
    struct tm tm;
    va_list ap;
    size_t off;

    if (level < srv.cfg.loglevel)
        return;
    if (!log_fp || strcmp(log_path, srv.cfg.logfile ? srv.cfg.logfile : "") != 0)
        log_reopen();
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    off = strftime(tbuf, sizeof(tbuf), "%d %b %Y %H:%M:%S.", &tm);
    snprintf(tbuf + off, sizeof(tbuf) - off, "%03d", (int)(tv.tv_usec / 1000));
    fprintf(log_fp, "%d:M %s %c %s\n", (int)getpid(), tbuf, marks[level & 3], msg);
    fflush(log_fp);
}
