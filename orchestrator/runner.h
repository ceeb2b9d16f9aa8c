/*
 * The run engine: moves a campaign's runs through their states with one
 * backend until every run is done or failed for good.  It is not the
 * store's only writer (cancel, retry, collect and refine write too:
 * docs/architecture.md); the run-state machine refuses what it records
 * after another writer has settled a run, and it acts on the refusal (a
 * start after a cancel is stopped).  On start it reconciles runs an earlier orchestrator
 * left in flight (the backend adopts them or they run again), so a kill -9
 * at any moment followed by a new `perfsweep run` loses and duplicates
 * nothing.
 */
#ifndef PS_RUNNER_H
#define PS_RUNNER_H
#include "orchestrator/backend.h"
#include "campaign/config.h"
#include "campaign/store.h"
#include <signal.h>

struct runner_options {
	const char *bind_path;              /* perfsweep-bind, for placement policies */
	volatile sig_atomic_t *stop;        /* set by a signal handler: stop cleanly */
	/* progress callback (may be NULL): one line per event, for the CLI to
	   print; id 0: about the campaign, not one run ("warning") */
	void (*event)(void *ctx, long long id, const char *what, const char *detail);
	void *ctx;
	/* start only these pending runs (a two-arm run starts one at a time,
	   ab_run.h); NULL: every pending run.  Runs in flight from an earlier
	   orchestrator are taken over either way. */
	const long long *only;
	int nonly;
};

struct runner_stats {
	int started, done, failed, retried, adopted, cancelled;
	int rerun;                          /* run again after a restart (an earlier orchestrator's attempt) */
	int again;                          /* run again in this session: an attempt ended without a result */
	int interrupted;                    /* stopped by *stop before the end */
	int budget_stopped;                 /* no new runs started: the budget would overrun */
};

/* Add s to sum (counts add up, the stop flags stay set). */
void runner_stats_add(struct runner_stats *sum, const struct runner_stats *s);

int runner_execute(struct store *st, const struct campaign_config *c, struct backend *b,
		   const struct runner_options *o, struct runner_stats *stats, struct perr *err);


#endif
