/*
 * Opening a campaign to run or change it, with its lock held (one
 * orchestrator per campaign, campaign/campaign_lock.h): the one way
 * `perfsweep run` and a two-arm run (compare --run, ab_run.h) take a
 * campaign directory, and `refine` and `collect` an existing campaign
 * (campaign_open_existing); `import` makes a new store and takes the lock
 * itself (analysis/, a floor below).  To run: first everything that can
 * refuse, before anything is written (the config's backend in the
 * registry and the directory its runs write into, the campaign lock, the
 * config against the campaign already there, its collectors), then the
 * backend opened; then the store is created, grown or reopened, reopened
 * by its absolute path (runs chdir into their own directories), and the
 * paths the config was resolved with are recorded.  Nothing here prints:
 * the caller says what grew (campaign_open.diff).
 */
#ifndef PS_CAMPAIGN_OPEN_H
#define PS_CAMPAIGN_OPEN_H
#include "campaign/campaign_diff.h"
#include "campaign/campaign_lock.h"
#include "campaign/config.h"
#include "campaign/store.h"
#include "orchestrator/backend.h"

struct campaign_open {
	char *dir;                  /* the campaign directory (absolute once the store is open) */
	struct campaign_lock lock;  /* held from campaign_open_check to campaign_open_release */
	struct store_diff diff;     /* what the plan adds to a campaign already there */
	int grows;                  /* 1: a campaign was there (it may grow), 0: a new one */
	char *analysis;             /* its analysis settings the config changes ("min_cpu_share 0.9 -> 0",
				       campaign_analysis_changes), or NULL; applied when the store opens */
	const struct backend_entry *be;   /* the config's backend, set by campaign_open_check */
	struct store *st;           /* set by campaign_open_store, campaign_open_existing */
};

void campaign_open_init(struct campaign_open *co);

/*
 * Check that cfg's plan pl may run in dir (NULL: the config's default
 * directory): lock it and compare with the campaign there.  Nothing is
 * written but the lock file.  0, or -1 with err (a refusal, another
 * orchestrator holding the lock).
 */
int campaign_open_check(struct campaign_open *co, const char *dir, const struct campaign_config *cfg,
			const struct plan *pl, struct perr *err);

/* Open the backend of the campaign checked above, to run at most jobs runs
   at once where the backend decides that (0: its default); the caller
   frees *b.  0, or -1 with err. */
int campaign_open_backend(struct campaign_open *co, const struct campaign_config *cfg, int jobs,
			  struct backend **b, struct perr *err);

/* Create, grow or reopen the store checked above.  0, or -1 with err. */
int campaign_open_store(struct campaign_open *co, const struct campaign_config *cfg, const struct plan *pl,
			struct perr *err);

/* The campaign in dir, which must exist, locked and its store opened
   read-write (refine, collect).  0, or -1 with err (another orchestrator
   holding the lock: err says who). */
int campaign_open_existing(struct campaign_open *co, const char *dir, struct perr *err);

/* Close the store and release the lock. */
void campaign_open_release(struct campaign_open *co);

#endif
