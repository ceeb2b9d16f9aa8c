/*
 * A two-arm run: `perfsweep compare --run BASE.cfg NEW.cfg --dir DIR`
 * measures two versions of a program in one time window, so that what the
 * machine does meanwhile falls on both alike.
 *
 * Storage: each arm is an ordinary campaign, DIR/base.campaign and
 * DIR/new.campaign, created, grown and resumed as `perfsweep run` does
 * (campaign_open.h: its lock, its store, its config checks); its runs move
 * through the one run-state machine, started by the one runner
 * (runner_execute).  What this adds is the order: one orchestrator holds
 * both arms and starts one run at a time, on the local backend with one
 * job (the same cores for every run), alternating the arms pair by pair,
 * in the base arm's run order (interleaved passes: repetition 1 of every
 * point, then 2, ...): base then new for a point, then new then base for
 * the next (ABBA), so that neither arm always runs first.  Each arm's
 * store names the other (analysis/ab_pairs.h: AB_META_ARM, AB_META_PEER),
 * which is how compare knows to pair them.
 *
 * Resumable like a campaign: a killed orchestrator's runs in flight are
 * taken over or run again by each arm's runner, done runs never run again,
 * and the next pair with a pending run is where the alternation goes on;
 * a kill -9 at any moment followed by the same command loses and
 * duplicates nothing.
 *
 * Both configs must plan the same points (the same parameters in the same
 * order, values, placements and repetitions), with fixed repetitions, on
 * the local backend: SLURM chooses the nodes and the times of its jobs
 * itself, so two arms queued there would share neither, and the run is
 * refused.  The budget is BASE's budget.core_hours and covers both arms:
 * each is planned and watched with half of it, and a pair starts only when
 * both of its runs fit.
 */
#ifndef PS_AB_RUN_H
#define PS_AB_RUN_H
#include "designs/plan.h"
#include "orchestrator/backend.h"
#include "orchestrator/campaign_open.h"
#include "orchestrator/runner.h"

struct ab_arm {
	const char *name;               /* "base", "new" */
	struct campaign_config cfg;
	int cfg_loaded;
	struct plan pl;
	struct campaign_open co;
	struct backend *b;
};

struct ab_run {
	struct ab_arm arm[2];
};

struct ab_stats {
	struct runner_stats runs;       /* over both arms */
	int pairs, pairs_done;          /* the pairs of the plan, and those whose two runs are settled */
};

/*
 * Load both configs, check them against each other and open (create,
 * grow or resume) both arms under dir; nothing is written before every
 * check passed.  0, or -1 with err (ab is released either way by ab_close).
 */
int ab_open(struct ab_run *ab, const char *base_cfg, const char *new_cfg, const char *dir, struct perr *err);

/* Run the pairs still pending, alternating the arms.  0, or -1 with err; stats say what happened. */
int ab_execute(struct ab_run *ab, const struct runner_options *o, struct ab_stats *stats, struct perr *err);

void ab_close(struct ab_run *ab);

#endif
