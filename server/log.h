/* log.h -- leveled logging to stdout or the configured logfile, in Redis's
 * format ("pid:M 22 Nov 2026 03:04:05.123 * message"). */
#ifndef SP_LOG_H
#define SP_LOG_H

/* Log at level (LL_DEBUG..LL_WARNING from server.h) if it passes loglevel. */
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reopen the log destination after logfile changed. */
void log_reopen(void);

#define log_debug(...) log_msg(LL_DEBUG, __VA_ARGS__)
#define log_verbose(...) log_msg(LL_VERBOSE, __VA_ARGS__)
#define log_notice(...) log_msg(LL_NOTICE, __VA_ARGS__)
#define log_warning(...) log_msg(LL_WARNING, __VA_ARGS__)

#endif
