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
	LOOP_SHARED,            /* the reruns of disturbed runs came back disturbed: the machine is shared */
	LOOP_UNMEASURED,        /* no run is done: there is nothing to validate (every run failed) */
};

/*
 * The machine is shared (docs/refine.md): when the reruns of disturbed runs
 * that a round measured come back disturbed, at least REFINE_LOOP_SHARED_MIN
 * of them and half or more, the loop stops after that round's verdict and
 * writes nothing more.  While a verdict says the machine was shared (more
 * than a quarter of its runs disturbed, validator/disturbed.h), refine's
 * runs are cut to a probe first: the cheapest of its disturbed runs, at
 * least REFINE_LOOP_PROBE_MIN and REFINE_LOOP_PROBE_SHARE of the judged
 * runs, within REFINE_LOOP_PROBE_SHARE of the core-hours spent (at least
 * REFINE_LOOP_SHARED_MIN runs, so that the rule can decide); nothing else
 * is measured on a machine that would disturb it too.  A probe that comes
 * back mostly undisturbed ends the probing: the next rounds refine as usual.
 */
#define REFINE_LOOP_SHARED_MIN 2
#define REFINE_LOOP_PROBE_MIN 4
#define REFINE_LOOP_PROBE_SHARE 0.2

struct disturbed_result;
/* Of the runs ids[0..n), how many res lists as disturbed. */
int refine_loop_disturbed_again(const struct disturbed_result *res, const long long *ids, int n);
/* 1 when `again` of n reruns of disturbed runs disturbed again means a shared machine. */
int refine_loop_shared(int n, int again);
/*
 * Cut r's proposals to the probe of a shared machine (the rule above):
 * the disturbed proposals kept, cheapest first, the others (and every
 * other kind) moved behind r->nproposals with the dropped ones.  njudged:
 * the runs the verdict judged; spent: core-hours measured so far.  Returns
 * the disturbed proposals there were (r->nproposals: those kept).
 */
struct refine_result;
int refine_loop_probe(struct refine_result *r, int njudged, double spent);

/* "publishable", "budget spent", ... */
const char *refine_loop_stop_name(enum refine_loop_stop s);

/* One round: the verdict it ran into, and what refine added for the next. */
struct refine_loop_round {
	int round;
	int validated;          /* there was something to validate: a verdict */
	int blocking;           /* blocking flags of this round's verdict */
	int nfindings;          /* actionable findings */
	long long runs_added;   /* by refine for the next round (0 in the last) */
	double core_hours_added;
	int kinds[REFINE_NKINDS];       /* proposals by kind */
	int ndropped;           /* proposals over the budget */
	double spent;           /* core-hours spent when the verdict was made */
	int reruns;             /* reruns of disturbed runs the round before added, measured for this verdict */
	int reruns_disturbed;   /* of those, disturbed again */
	int probe_of;           /* > 0: the verdict said the machine was shared, and refine's runs were cut
				   to a probe of its probe_of disturbed runs (kinds[REFINE_DISTURBED] kept) */
};

struct refine_loop {
	enum refine_loop_stop stop;
	char why[1024];         /* the stop, for people: which flags no run can fix, ... */
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
