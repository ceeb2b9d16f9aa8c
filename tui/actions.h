/*
 * What the monitor's keys do to a campaign, through the store's transitions
 * (the same library calls the CLI makes).  Each opens its own read-write
 * connection for the duration of the action, so the monitor's reading
 * connection stays read-only.
 */
#ifndef PS_TUI_ACTIONS_H
#define PS_TUI_ACTIONS_H
#include "common/error.h"
#include <stddef.h>

/*
 * Cancel runs as `perfsweep cancel` does: each pending, submitted or
 * running run is marked cancelled first (so the run engine neither starts
 * nor retries it), then an in-flight one is stopped through its backend:
 * SLURM jobs by the slurm backend's cancel (libslurm), local runs by
 * backend_local_cancel_id (kills the process group, checked by its start
 * time so a reused pid is left alone).  Finished runs are skipped.
 * *ncancelled receives how many were cancelled.
 */
int top_cancel_runs(const char *dir, const long long *ids, size_t n, int *ncancelled,
		    struct perr *err);

/* Send failed runs back to pending so the next `perfsweep run` retries them;
   other runs are skipped.  *nretried receives the count. */
int top_retry_runs(const char *dir, const long long *ids, size_t n, int *nretried,
		   struct perr *err);

#endif
