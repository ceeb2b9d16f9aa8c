/*
 * The false-dependency measure: how much of the black-box model's fit an
 * extra parameter (one the region's dependencies exclude) bought.  The
 * constrained model's terms are the base; the black-box terms that use the
 * parameter are added; both bases are refitted by linear least squares
 * (GSL) on the per-point means, and a partial F-test says whether the
 * added terms explain more than noise would.
 */
#ifndef PS_FALSEDEP_H
#define PS_FALSEDEP_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "models/pmnf.h"

struct falsedep_result {
	int param;              /* the extra parameter (experiment index) */
	int nadded;             /* black-box terms using it */
	double rss_base;        /* constrained terms only */
	double rss_full;        /* with the added terms */
	double bought;          /* 1 - rss_full / rss_base: share of the residual removed */
	double f, p_value;      /* partial F-test, NaN without degrees of freedom */
	int df1, df2;
};

/*
 * Measure parameter param of the black-box model bb against the constrained
 * model cm, both over the experiment's parameters in order.  Returns 0, or
 * -1 with err set when GSL fails.
 */
int falsedep_measure(const struct experiment *e, const struct exp_series *s,
		     const struct pmnf_model *bb, const struct pmnf_model *cm, int param,
		     struct falsedep_result *r, struct perr *err);

/* 1 when some term of m uses parameter param. */
int pmnf_uses_param(const struct pmnf_model *m, int param);

#endif
