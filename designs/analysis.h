/*
 * Dependency analysis: what each parameter affects, which parameters can be
 * pruned, which multiply (groups) and which functions are constant.  Works
 * on a selection of the file's parameters: the others are held fixed, so
 * they are projected out of every product term.
 */
#ifndef PS_ANALYSIS_H
#define PS_ANALYSIS_H
#include "designs/deps.h"

struct deps_group {
	int n;
	int *params;            /* indices into deps.params, ascending */
	int nfuncs;
	int *funcs;             /* functions with exactly this product term */
	int nrelated;           /* functions with a product of >= 2 of these parameters */
};

struct deps_analysis {
	const struct deps *d;
	char *selected;         /* selected[k]: parameter k is varied */
	int *nfuncs, *nloops;   /* per parameter: functions and loops it affects */
	char *pruned;           /* selected but affects nothing */
	char *additive;         /* selected, affects something, in no product term */
	int ngroups;
	struct deps_group *groups; /* maximal product terms of >= 2 parameters */
	int nconst;
	int *consts;            /* functions that depend on no selected parameter */
};

/*
 * Analyse d for the parameters named in select[0..nselect) (all when
 * select is NULL).  Fails on a name the file does not have.
 */
int deps_analyze(struct deps_analysis *a, const struct deps *d, char *const *select, int nselect,
		 struct perr *err);
void deps_analysis_release(struct deps_analysis *a);

#endif
