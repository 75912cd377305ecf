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
 * Per-command and per-error statistics live in commands.c and are declared in
 * commands.h (cmd_get_stats, cmd_reset_error_stats). */
#ifndef SP_STATS_H
#define SP_STATS_H

#include "server.h"

/* Take one sample of the instantaneous metrics if 100 ms have passed since the
 * last one. Meant to be called from server_cron. O(1). */
void stats_cron_sample(void);

/* Forget every instantaneous sample (CONFIG RESETSTAT). */
void stats_reset_samples(void);

#endif
