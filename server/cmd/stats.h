/* stats.h -- the server statistics that INFO reports and CONFIG RESETSTAT clears,
 * beyond the plain counters kept in srv (server.h).
 *
 * The instantaneous metrics (instantaneous_ops_per_sec, instantaneous_input_kbps,
 * instantaneous_output_kbps) are, as in Redis, the mean of the last 16 rates,
 * each measured over at least 100 ms. stats_cron_sample takes one sample when
 * 100 ms have passed since the previous one and does nothing otherwise, so the
 * cron may call it at any hz; INFO calls it too, so the figures stay meaningful
 * (averaged over longer intervals) if the cron does not.
 *
 * Per-command and per-error statistics live in commands.c; the two accessors
 * below are defined there. */
#ifndef SP_STATS_H
#define SP_STATS_H

#include "server.h"

/* Take one sample of the instantaneous metrics if 100 ms have passed since the
 * last one. Meant to be called from server_cron. O(1). */
void stats_cron_sample(void);

/* Forget every instantaneous sample (CONFIG RESETSTAT). */
void stats_reset_samples(void);

/* commands.c: the statistics of cmd (a command or a subcommand row of the
 * registry), or NULL if cmd is not registered. The pointer stays valid for the
 * life of the process. */
const cmd_stats *cmd_get_stats(const cmd_def *cmd);

/* commands.c: zero the per-error-code counts and the total of error replies
 * (INFO errorstats, total_error_replies), for CONFIG RESETSTAT. */
void cmd_reset_error_stats(void);

#endif
