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
	char *role;             /* NULL, or "ranks" for the rank count */
	int nvalues;
	double *values;
	int is_int;             /* every value is an integer */
};

struct plan_point {
	double *values;         /* one per plan parameter */
	int nodes;              /* 0 when the campaign has no placement axis */
	int ranks_per_node;     /* 0 when unset */
	char *policy;           /* "compact", "spread", "explicit" or NULL */
	int repetitions;
	double core_hours;      /* estimated cost of all repetitions; 0 if unknown */
	char *reason;           /* why the point is in the plan */
};

struct plan {
	int nparams;
	struct plan_param *params;
	int npoints;
	struct plan_point *points;
	long long runs;         /* sum of repetitions */
	double core_hours;
};

/* The design input: parameters and repetitions (extended by the designs issue). */
struct design_spec {
	int nparams;
	struct plan_param *params;
	int repetitions;
};

/* The full factorial of all parameters x repetitions. */
int plan_full_factorial(struct plan *pl, const struct design_spec *spec, struct perr *err);
void plan_release(struct plan *pl);

#endif
