/*
 * The segmented-behaviour check: along one parameter line with enough
 * points (8 by default), is the data better described by two PMNF models,
 * one on each side of a change point, than by one?  (MILC's communication
 * routines behaved differently for 4-16 ranks than for more: one PMNF
 * model cannot represent two regimes.)
 *
 * It works on the point estimates (models/points.h, outliers left out) and
 * in relative terms, so a regime change among the small values is as
 * visible as one among the large: every residual is (y - f) / y, weighted
 * by the point's repetitions and divided by the line's pooled relative
 * pure-error variance (models/lof.h), a chi-square "rss".  Every split
 * leaving at least SEGMENT_MIN_SIDE points on each side is tried (on a line
 * with more than SEGMENT_EXHAUSTIVE of them, coarse to fine: segment.c);
 * each side gets the modeller's single-parameter model, and the split with
 * the smallest sum wins: a jump and a change of slope both show there.
 *
 * Significance: with repetitions, the chi-square the second model removes
 * per extra degree of freedom (coefficients plus one for the chosen
 * exponents, and one for the change point) is F-distributed against the
 * pure error (F(df1, dof)); without repetitions, the classical F-test of
 * the two-model fit against the one-model fit on the point estimates.
 *
 * Points scatter about their law by more than their repetitions show (a
 * kernel's speed at particular sizes; the host's level in the minute a
 * refine round measured its points, which all of a point's repetitions
 * share): measured on the demo, a split then removed more than the pure
 * error allows wherever it cut off a few such points (stream between n =
 * 129 and 134, sort between 128 and 129, p = 1e-3 .. 1e-7, no regime
 * there).  So with repetitions the error is the larger of the pure error
 * and the points' scatter about the two models (rss_two per residual
 * degree of freedom, with at least SEGMENT_MIN_SCATTER_DOF of them): a real
 * change (the demo's regime kernel doubling at n = 128) still removes
 * many times the scatter.
 */
#ifndef PS_SEGMENT_H
#define PS_SEGMENT_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "models/modeler.h"
#include "models/pmnf.h"
#include "validator/vline.h"

#define SEGMENT_MIN_SIDE 3
/* Candidate splits tried one by one up to this many; past it, SEGMENT_GRID
   splits a round over a range that narrows to the best one's neighbours. */
#define SEGMENT_EXHAUSTIVE 64
#define SEGMENT_GRID 16
/* A change between non-integer values this close (relative to the smaller)
   is located: the resolution a segmented finding is refined to. */
#define SEGMENT_RESOLUTION 0.01
/* Points a refinement adds between the two values around a change. */
#define SEGMENT_BETWEEN_POINTS 3
/* Residual degrees of freedom the scatter about two models needs to count as the error:
   on fewer, one noisy point (which the noise check flags) would make it and hide a change. */
#define SEGMENT_MIN_SCATTER_DOF 5

struct segment_result {
	int param;
	int npoints;                    /* line points with values */
	int *points;                    /* those points, by ascending coordinate */
	int change;                     /* index (into points) of the first point of the second regime */
	double x_before, x_after;       /* coordinates either side of the change */
	double rss_one, rss_two;        /* relative chi-square of one and of two models */
	double improvement;             /* 1 - rss_two / rss_one (0 when rss_one is 0) */
	double f, p_value;              /* F-test of two models against one */
	double p_one;                   /* lack-of-fit p-value of the one model (NaN without repetitions) */
	double max_dev;                 /* the one model's largest relative deviation from a point */
	int df1, df2;
	double p_left, p_right;         /* lack-of-fit p-value of each side's model (NaN without repetitions) */
	int is_int;                     /* every value of the parameter is an integer */
	struct pmnf_model one, left, right;
};

/*
 * Is the change located: x_before and x_after one step apart (consecutive
 * integers for an integer parameter, else within SEGMENT_RESOLUTION of
 * each other), and neither side's model rejected by the repetitions
 * (lack-of-fit p-value at least alpha; without repetitions, never)?
 */
int segment_located(const struct segment_result *r, double alpha);

/*
 * The values strictly between lo and hi that locate a change between them
 * (out has room for SEGMENT_BETWEEN_POINTS): every integer between them
 * when there are at most SEGMENT_BETWEEN_POINTS, else that many evenly
 * spaced in the line's spacing (geometric when lo > 0 and hi >= 2 lo).
 * None once lo and hi are one step apart (segment_located).
 */
int segment_between_values(double lo, double hi, int is_int, double *out);

/*
 * Test one line of series s.  scov is the series' point_series_cov (the
 * caller's, once per series: it reads every point, and a grid has as many
 * lines as points).  Returns 1 when tested, 0 when the line has fewer than
 * min_points points with values, -1 with err set when the modeller fails.
 * r is initialised in every case (segment_result_release).
 */
int segment_test(const struct experiment *e, const struct exp_series *s, double scov,
		 const struct vline *line, int min_points, const struct model_options *opt,
		 struct segment_result *r, struct perr *err);
void segment_result_release(struct segment_result *r);

#endif
