/*
 * A plan is the list of design points a campaign executes: parameter
 * values, placement, repetitions and estimated cost.  designs/ builds it
 * from a design_spec (pure function); the orchestrator stores it and runs it
 * unchanged.
 */
#ifndef PS_PLAN_H
#define PS_PLAN_H
#include "common/error.h"

struct plan_param {
	char *name;
	char *role;             /* NULL, or "ranks" for the rank count, "ranks_per_node", "threads" */
	int nvalues;
	double *values;
	int is_int;             /* every value is an integer */
};

/*
 * A study axis: a parameter with role "ranks" (or "ranks_per_node", "threads").  The
 * design never prunes it, whatever the dependency file says, since the
 * study is about how runs change along it (contention), and it gets no
 * "needs at least N values" warning: it is not modelled as a function.
 */
int plan_param_is_study_axis(const struct plan_param *p);

struct plan_point {
	double *values;         /* one per plan parameter */
	int nodes;              /* 0 when the campaign has no placement axis */
	int ranks_per_node;     /* 0 when unset */
	char *policy;           /* "compact", "spread", "explicit" or NULL */
	char *map;              /* explicit policy: the map file (set by the caller), or NULL */
	char *cores_per_rank;   /* "N" or "all" when set (by the caller), or NULL: one */
	int repetitions;
	double core_hours;      /* estimated cost of all repetitions; 0 if unknown */
	char *reason;           /* why the point is in the plan */
};

/* A multiplicative group: parameters that share a product term (plan_design). */
struct plan_group {
	int nparams;
	char **params;
	int nfuncs;
	char **funcs;           /* functions whose product term is exactly this group */
};

struct plan_points;

/*
 * points holds the npoints points, unless the plan keeps them compactly
 * (plan_design_compact): then points is NULL and plan_point_at reads them
 * from compact one at a time; plan_materialize turns it into points.
 */
struct plan {
	int nparams;
	struct plan_param *params;
	int npoints;
	struct plan_point *points;
	struct plan_points *compact;
	long long runs;         /* sum of repetitions */
	double core_hours;
	/* filled by plan_design (zero/NULL from plan_full_factorial) */
	const char *strategy;   /* "full", "taint", "sparse" or "lines" (static string) */
	int cost_known;         /* a cost model priced the points */
	long long full_points;  /* the naive full factorial over all parameters */
	long long full_runs;
	double full_core_hours;
	int npruned;
	char **pruned;          /* pruned parameter names */
	char **pruned_why;      /* one reason per pruned parameter */
	int ngroups;
	struct plan_group *groups;
	int nnotes;
	char **notes;           /* warnings and budget actions, one line each */
	int repetitions;        /* repetitions per point after budget trimming */
	int dropped;            /* optional points dropped to fit the budget */
	/* set by the caller after plan_design; not part of the fingerprint */
	int order;              /* enum plan_order: the order runs execute in */
	unsigned long order_seed;   /* the shuffles' seed */
	double budget_core_hours;   /* 0: no budget */
	int charge;                 /* enum design_charge */
	double budget_overrun;      /* run stops starting runs beyond budget x (1 + this) */
};

/*
 * The order runs execute in:
 *   interleaved  repetition pass 1 over all points (shuffled), then pass 2
 *                (shuffled again), and so on, so time-correlated noise hits
 *                different points rather than all repetitions of one;
 *   random       every run of every point shuffled;
 *   grouped      all repetitions of point 1, then point 2, ...
 */
/* zero (a zeroed plan, an import) is grouped; configs default to interleaved */
enum plan_order { ORDER_GROUPED = 0, ORDER_INTERLEAVED, ORDER_RANDOM };
const char *plan_order_name(int order);
/* -1 for an unknown name. */
int plan_order_parse(const char *name);

/* One run of the plan: its point and repetition (its pass, 1-based). */
struct plan_run {
	int point;
	int repetition;
};

/*
 * Every run of pl (sum of repetitions) in pl->order, shuffled with
 * pl->order_seed (GSL's mt19937, so the same seed gives the same order on
 * every machine).  *runs is malloc'ed; the caller frees it.
 */
void plan_run_order(const struct plan *pl, struct plan_run **runs, long long *n);

/* DESIGN_LINES (the baseline and one line per modelled parameter) is not a
   config's strategy: plan --evaluate compares designs with it */
enum design_strategy { DESIGN_FULL = 0, DESIGN_TAINT, DESIGN_SPARSE, DESIGN_LINES };
enum design_charge { CHARGE_CORE = 0, CHARGE_NODE };

/*
 * One value beyond top along a line whose two largest values are next <
 * top, in the line's spacing: top^2 / next when they are 1.5x apart or more
 * (geometric), else top + (top - next); rounded for integers.  Refine's
 * extension and the held-out points of plan --evaluate step this way.
 */
double plan_step_beyond(double top, double next, int is_int);

struct deps;

/*
 * The design input.  The first three fields are all plan_full_factorial
 * reads; plan_design reads the rest, and a zeroed tail means: strategy full,
 * no dependencies, smallest values as baseline, no cost model, no budget,
 * no placement axis.
 */
struct design_spec {
	int nparams;
	struct plan_param *params;
	int repetitions;
	/* plan_design */
	int strategy;               /* enum design_strategy */
	const struct deps *deps;    /* required for taint and sparse */
	const double *baseline;     /* NULL, or one value per parameter (one of its values) */
	int min_repetitions;        /* budget floor; 0 means 3 */
	int min_values;             /* warn below this many values per modelled parameter; 0 means 5 */
	int sparse_extra;           /* extra off-line points per group for sparse; 0 means 1, <0 none */
	double min_run_seconds;     /* measurability floor per run (cost model); 0 means 0.1 */
	double budget_core_hours;   /* 0: no budget */
	int charge;                 /* enum design_charge */
	int cores_per_node;         /* needed for charge node; 0: unknown */
	int ranks;                  /* rank count when no parameter has role "ranks"; 0 means 1 */
	const char *cost_model;     /* seconds per run as an expression, or NULL */
	/* placement axis */
	int nrpn;
	const int *rpn;             /* ranks-per-node values; they multiply the attached points */
	const char *policy;         /* "compact", "spread", "explicit" or NULL */
	const char *map;            /* the explicit policy's map file, or NULL */
	const char *cores_per_rank; /* "N" or "all" for the other policies, or NULL; N cores are
	                               charged per rank ("all": one), and a role "threads"
	                               parameter's value is each point's instead */
	int nattach;
	char *const *attach;        /* "all" (default), "baseline", or parameter names (their lines) */
	/* contention experiment: one fixed point, ranks per node varied */
	int ncontention;
	const int *contention_rpn;
	const double *contention_point; /* one value per parameter (NAN: baseline) */
	int contention_repetitions; /* 0: repetitions */
};

/* The full factorial of all parameters x repetitions. */
int plan_full_factorial(struct plan *pl, const struct design_spec *spec, struct perr *err);
/*
 * The plan for spec: the strategy's points (see docs/designs.md), placed,
 * costed, trimmed to the budget, with totals against the full factorial,
 * pruned parameters and groups.  Fails (err set, plan empty) on bad input
 * and when the budget cannot be met, saying by how much.
 */
int plan_design(struct plan *pl, const struct design_spec *spec, struct perr *err);
/* The same plan with its points kept compactly (pl->compact), for printing. */
int plan_design_compact(struct plan *pl, const struct design_spec *spec, struct perr *err);
void plan_release(struct plan *pl);

/*
 * Point i of pl: &pl->points[i], or from a compact plan *buf filled with
 * its values in vals (pl->nparams doubles) and strings borrowed from pl,
 * valid until the next call with the same buf and vals.
 */
const struct plan_point *plan_point_at(const struct plan *pl, int i, struct plan_point *buf, double *vals);
/* Give a compact plan its points array (a plan with points is left alone). */
void plan_materialize(struct plan *pl);

#endif
