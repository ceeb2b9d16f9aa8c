/*
 * Changing a campaign's runs from outside the run engine: cancel and retry.
 * `perfsweep cancel` and top's c and r keys call these, so the sequence
 * lives here only.  Each call opens its own read-write connection to the
 * store for its duration; every state change is one store transaction.
 * Nothing here prints: what happened comes back in a struct.
 */
#ifndef PS_CONTROL_H
#define PS_CONTROL_H
#include "common/error.h"
#include <stddef.h>

struct cancel_options {
	const long long *ids;   /* the runs to cancel; NULL: every live run */
	size_t nids;
	const char *reason;     /* stored with each cancelled run */
};

/* What campaign_cancel did.  Release with cancel_result_release. */
struct cancel_result {
	const char *const *job_words;   /* what nkilled counts, one and several: "slurm job",
	                                   "slurm jobs" (the backend's job_words) */
	int ncancelled;         /* runs marked cancelled */
	int nkilled;            /* jobs or process groups stopped */
	int nmissing;           /* ids that name no run of the campaign */
	long long first_missing;
	int nnotes;             /* "run 3 is done: nothing to cancel", for each requested finished run */
	char **notes;
	int nerrors;            /* one line per run that could not be cancelled or killed */
	char **errors;
};

/*
 * Cancel runs: each pending, submitted or running one is first marked
 * cancelled in the store (so a live `perfsweep run` neither starts nor
 * retries it), then an in-flight one is stopped through the cancel_id of
 * the campaign's backend in the registry (orchestrator/backend.h): a SLURM
 * job through libslurm, a local run's process group (checked by its start
 * time so a reused pid is left alone).  Done, failed and cancelled runs are
 * left alone.  The mark and the job or process it kills are read in one
 * store transaction; a live `perfsweep run` that is starting the run at
 * that moment finds its record refused by the run-state machine and stops
 * what it started, so no pause or second look is needed.
 * Per-run problems go to r->errors and the other runs are still cancelled.
 * Returns 0, or -1 with err set when the store cannot be opened or read.
 */
int campaign_cancel(const char *dir, const struct cancel_options *o, struct cancel_result *r,
		    struct perr *err);
void cancel_result_release(struct cancel_result *r);

/*
 * Send failed runs back to pending, so the next `perfsweep run` retries
 * them; other runs are skipped.  *nretried receives the count.  Returns 0,
 * or -1 with err set (*nretried counts the runs retried before).
 */
int campaign_retry(const char *dir, const long long *ids, size_t n, const char *reason,
		   int *nretried, struct perr *err);

#endif
