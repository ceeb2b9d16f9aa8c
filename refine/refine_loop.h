/*
 * The refine loop of `run CONFIG --until publishable`: run the campaign,
 * validate it, refine from that newest verdict, run what refine added, and
 * again, until it stops for a stated reason.  Nothing here prints: each
 * round is reported to a callback and the whole loop comes back in a
 * struct, for the CLI to print.
 */
#ifndef PS_REFINE_LOOP_H
#define PS_REFINE_LOOP_H
#include "campaign/config.h"
#include "campaign/store.h"
#include "orchestrator/backend.h"
#include "refine/refine.h"
#include "orchestrator/runner.h"

enum refine_loop_stop {
	LOOP_PUBLISHABLE,       /* no blocking flag left */
	LOOP_BUDGET,            /* the run engine stopped at the budget, or every proposal is over it */
	LOOP_NO_PROGRESS,       /* two rounds without fewer blocking flags */
	LOOP_UNFIXABLE,         /* blocking findings, but none that a run can fix */
	LOOP_ROUNDS,            /* the --rounds limit */
	LOOP_INTERRUPTED,       /* a signal stopped the run engine */
};

/* "publishable", "budget spent", ... */
const char *refine_loop_stop_name(enum refine_loop_stop s);

/* One round: the verdict it ran into, and what refine added for the next. */
struct refine_loop_round {
	int round;
	int blocking;           /* blocking flags of this round's verdict */
	int nfindings;          /* actionable findings */
	long long runs_added;   /* by refine for the next round (0 in the last) */
	double core_hours_added;
	int kinds[REFINE_NKINDS];       /* proposals by kind */
	int ndropped;           /* proposals over the budget */
	double spent;           /* core-hours spent when the verdict was made */
};

struct refine_loop {
	enum refine_loop_stop stop;
	char why[512];          /* the stop, for people: which flags no run can fix, ... */
	int nrounds;
	struct refine_loop_round *rounds;
	struct runner_stats stats;      /* summed over the rounds' executions */
	double spent;           /* core-hours spent in all, at the end */
	long long done;         /* runs done, at the end */
	size_t rounds_alloc;
};

struct refine_loop_options {
	int max_rounds;         /* >= 1 */
	/* called after each round's verdict and refinement (may be NULL) */
	void (*on_round)(void *ctx, const struct refine_loop_round *r);
	void *ctx;
	/* --for accuracy: refine for accuracy at this target too (refine_accuracy.h);
	   publishable then also waits for those runs, until the last round */
	const char *accuracy;
};

/*
 * Run the loop over the campaign in dir (st open on it, cfg its config, b
 * its backend).  0 with L filled (L->stop says why it ended); -1 with err
 * when the run engine failed; -2 with err when validating or refining did
 * (a dependency file gone, a store that cannot take the runs).  Release L
 * either way.
 */
int refine_loop_run(struct refine_loop *L, struct store *st, const char *dir,
		    const struct campaign_config *cfg, struct backend *b, const struct runner_options *ro,
		    const struct refine_loop_options *o, struct perr *err);
void refine_loop_release(struct refine_loop *L);

#endif
