/*
 * Opening a campaign to run it: the one way `perfsweep run` and a two-arm
 * run (compare --run, ab_run.h) take a campaign directory.  First
 * everything that can refuse, before anything is written (the SLURM
 * directory check, the campaign lock, the config against the campaign
 * already there, its collectors); then the store is created, grown or
 * reopened, reopened by its absolute path (runs chdir into their own
 * directories), and the paths the config was resolved with are recorded.
 * Nothing here prints: the caller says what grew (campaign_open.diff).
 */
#ifndef PS_CAMPAIGN_OPEN_H
#define PS_CAMPAIGN_OPEN_H
#include "campaign/campaign_diff.h"
#include "campaign/campaign_lock.h"
#include "campaign/config.h"
#include "campaign/store.h"

struct campaign_open {
	char *dir;                  /* the campaign directory (absolute once the store is open) */
	struct campaign_lock lock;  /* held from campaign_open_check to campaign_open_release */
	struct store_diff diff;     /* what the plan adds to a campaign already there */
	int grows;                  /* 1: a campaign was there (it may grow), 0: a new one */
	char *analysis;             /* its analysis settings the config changes ("min_cpu_share 0.9 -> 0",
				       campaign_analysis_changes), or NULL; applied when the store opens */
	struct store *st;           /* set by campaign_open_store */
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

/* Create, grow or reopen the store checked above.  0, or -1 with err. */
int campaign_open_store(struct campaign_open *co, const struct campaign_config *cfg, const struct plan *pl,
			struct perr *err);

/* Close the store and release the lock. */
void campaign_open_release(struct campaign_open *co);

#endif
