/*
 * A plan's points held compactly: each point is one index per parameter
 * into that parameter's values (plus any value outside the list, such as
 * a contention point's), its ranks per node, cost, repetitions and an
 * interned reason.  A 10^6-point design costs tens of bytes per point
 * here; design.c builds into it and `perfsweep plan` prints from it, one
 * struct plan_point at a time (plan_point_at), never holding them all.
 *
 * Invariants: a value has one index per parameter (equal values share
 * it), so two points are the same point exactly when their indices and
 * ranks per node are; reasons are never NULL.
 */
#ifndef PS_PLAN_POINTS_H
#define PS_PLAN_POINTS_H
#include "designs/plan.h"
#include <stddef.h>
#include <stdint.h>

struct pp_point {
	int rpn;                /* ranks per node of the placement axis, 0 unset */
	int reason;             /* into plan_points.reasons */
	int reps;               /* its own repetitions (contention may differ) */
	char required;          /* modelling needs it: the budget never drops it */
	char contention;
};

struct plan_points {
	int np;
	double **vals;          /* per parameter: its values, then values from outside its list */
	int *nvals;
	size_t *valloc;
	uint32_t **canon;       /* per parameter: list entry -> index of the first equal value */
	uint32_t *idx;          /* np indices per point */
	struct pp_point *pt;
	double *run_ch;         /* per point: core-hours of one run (apart, for sorting by it) */
	int n;
	size_t alloc, ch_alloc, idx_alloc;
	int *slots;             /* points by (idx, rpn): open addressing, -1 empty */
	size_t cap;
	int nindexed;           /* points [0, nindexed) are in slots; the rest when next looked up */
	char **reasons;         /* interned, each once */
	int nreasons;
	size_t ralloc;
	int *rslots;
	size_t rcap;
	/* what the plan keeps and how its points print (set by plan_design) */
	int *kept;              /* the plan's point i is pt[kept[i]]; NULL: all n */
	int reps;               /* repetitions after the budget: caps each point's */
	int ranks_param;        /* role "ranks", or -1 */
	int rpn_param;          /* role "ranks_per_node", or -1 */
	int threads_param;      /* role "threads": each rank's threads and cores, or -1 */
	int cores;              /* cores each rank holds without a threads parameter (>= 1) */
	char **threads_text;    /* the threads parameter's values as cores_per_rank text */
	double ranks;           /* ranks without a ranks parameter */
	int placed;             /* a placement axis or contention: points get nodes */
	char *policy, *map, *cores_per_rank;
};

/* Empty points over the parameters' values (copied); free with plan_points_free. */
struct plan_points *plan_points_new(const struct plan_param *params, int np);
void plan_points_free(struct plan_points *pp);

/* The index of value v of parameter k, appended to its values if new. */
uint32_t plan_points_value_index(struct plan_points *pp, int k, double v);
/* Parameter k's index of its value list's entry i (the first equal value's). */
uint32_t plan_points_canon(const struct plan_points *pp, int k, int i);
/* Point i's indices (np of them; moved by the next plan_points_add). */
const uint32_t *plan_points_index(const struct plan_points *pp, int i);
/* The values at indices ix into v (np doubles). */
void plan_points_values(const struct plan_points *pp, const uint32_t *ix, double *v);

/* The point (ix, rpn), or -1. */
int plan_points_find(struct plan_points *pp, const uint32_t *ix, int rpn);
/* Room for n points in all (a hint: adding beyond it still works). */
void plan_points_reserve(struct plan_points *pp, size_t n);
/* The point (ix, rpn): its index, added with reason (and *added set) when new. */
int plan_points_add(struct plan_points *pp, const uint32_t *ix, int rpn, const char *reason, int *added);
/* Add the point (ix, rpn) known not to be there (a grid on no points), without looking; its index. */
int plan_points_append(struct plan_points *pp, const uint32_t *ix, int rpn, const char *reason);
/* The interned id of reason. */
int plan_points_intern(struct plan_points *pp, const char *reason);

/* The ranks of a run at values v, and its ranks per node (rpn from the axis). */
double plan_points_ranks(const struct plan_points *pp, const double *v);
/* The cores each rank of a run at values v holds (its threads, or cores per rank). */
double plan_points_cores(const struct plan_points *pp, const double *v);
int plan_points_rpn(const struct plan_points *pp, const double *v, int rpn);

/* Kept point i of pp as a plan point: values into vals, strings borrowed from pp. */
void plan_points_get(const struct plan_points *pp, int i, struct plan_point *pt, double *vals);

#endif
