/*
 * Refining a campaign: validate it (the latest measurements), turn the
 * actionable findings into runs (refine/refine.h), and append those
 * runs to the store as pending (origin "refine"), for `perfsweep run DIR`
 * or `run CONFIG` to execute.
 *
 * Costs: a run at an existing point costs what its done runs cost on
 * average (measured wall x ranks); a new point what its neighbour costs.
 * The remaining budget is the stored budget less what is spent and what
 * pending or in-flight runs are planned to cost; --budget replaces it.
 *
 * A campaign without a config to run new runs with (imported measurements)
 * is refused.  A campaign with runs not yet executed is not refined (nothing proposed,
 * pending set): their measurements are what the findings wait for, and
 * proposing again would duplicate runs already written.  Writing is one
 * transaction, so a kill -9 leaves the campaign with all of a refinement's
 * runs or none of them.
 */
#ifndef PS_REFINE_CAMPAIGN_H
#define PS_REFINE_CAMPAIGN_H
#include "common/error.h"
#include "refine/refine.h"
#include "refine/refine_accuracy.h"
#include "analysis/validation.h"

struct refine_campaign_options {
	double budget;                  /* core-hours refine may spend; < 0: the stored budget */
	int repetitions;                /* of a new point; 0: the campaign's most common */
	int max_repetitions;            /* a point's cap for noise; 0: 10 */
	/* refine --for accuracy: the target ("p=4096,size=60" or "beyond"), NULL: findings only */
	const char *accuracy;
	struct campaign_validation_options vo;
};

/* Where a point is placed (copied to the new points derived from it). */
struct refine_place {
	int nodes, ranks_per_node;
	char *policy;
	char *map, *cores_per_rank;     /* the launch the campaign's runs had (NULL: unset) */
	int store_point;                /* the store point it was read from, -1 if none */
};

struct refine_campaign {
	struct campaign_validation cv;  /* the validation refined from */
	int publishable;                /* cv.validated and no blocking flag */
	long long pending;              /* runs not yet executed (then nothing is proposed) */
	double budget;                  /* the stored budget, 0 when none */
	double spent, committed;        /* measured; planned for pending and in-flight runs */
	int nfindings;
	struct refine_finding *findings;
	struct refine_result r;
	/* the space, per experiment point */
	struct refine_point *points;
	struct refine_place *place;
	int *is_int;
	unsigned char *extending;       /* per parameter (refine_space.extending) */
	double min_share;               /* the config's analysis.min_share */
	int store_params;               /* experiment parameters that are store parameters */
	int rpn_param;                  /* the experiment's ranks_per_node, -1 if none */
	int *repetition;                /* per point and repetition index: the run's repetition */
	int maxreps;
	int accuracy;                   /* refined for accuracy too: acc holds the target and spread */
	struct refine_accuracy acc;
	char *beyond;                   /* the config's parameters one step beyond ("x=128,y=128") */
};

/* Where proposal p's runs go (the policy borrowed from rc). */
struct refine_place refine_campaign_placement(const struct refine_campaign *rc,
					      const struct refine_proposal *p);
/* Validate the campaign in dir and propose.  rc is initialised by the call. */
int refine_campaign_propose(struct refine_campaign *rc, const char *dir,
			    const struct refine_campaign_options *o, struct perr *err);
/* Append rc's proposals to st (open, locked) as pending runs, one transaction; *nruns gets how many. */
struct store;
int refine_campaign_write(const struct refine_campaign *rc, struct store *st, long long *nruns,
			  struct perr *err);
/* The same, also giving the ids of the runs written for proposals of kind
   (*ids malloc'ed with *nids entries, in the order they run; caller frees,
   also on error). */
int refine_campaign_write_kind(const struct refine_campaign *rc, struct store *st, long long *nruns,
			       enum refine_kind kind, long long **ids, int *nids, struct perr *err);
void refine_campaign_release(struct refine_campaign *rc);

#endif
