/* Generated compare pairs of known change (see gen_compare.h). */
#include "tests/lib/gen_compare.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define C0 1.6

static const char *const names[GEN_NCHANGES] = {
	"unchanged", "10% slower", "50% slower", "2x slower", "n -> n*log2(n)", "n -> n^1.5", "n*m -> n*m^2",
};

const char *gen_change_name(enum gen_change ch)
{
	return names[ch];
}

int gen_change_param(enum gen_change ch)
{
	return ch == GEN_M_SQUARED ? 1 : ch == GEN_N_LOG_N || ch == GEN_N_1_5 ? 0 : -1;
}

static double truth(enum gen_change ch, double n, double m)
{
	switch (ch) {
	case GEN_SLOWER_10:
		return 1.1 * (C0 + n * m);
	case GEN_SLOWER_50:
		return 1.5 * (C0 + n * m);
	case GEN_SLOWER_2X:
		return 2 * (C0 + n * m);
	case GEN_N_LOG_N:
		return C0 + n * log2(n) * m;
	case GEN_N_1_5:
		return C0 + pow(n, 1.5) * m;
	case GEN_M_SQUARED:
		return C0 + n * m * m;
	default:
		return C0 + n * m;
	}
}

static void grid(struct experiment *e, enum gen_change ch, int reps, double noise, gsl_rng *rng)
{
	static const double v[] = { 4, 8, 16, 32, 64 };
	experiment_init(e);
	experiment_param(e, "n");
	experiment_param(e, "m");
	int c = experiment_callpath(e, "main->solve"), mt = experiment_metric(e, "time");
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++) {
			int p = experiment_point(e, (double[]){ v[i], v[j] });
			double t = truth(ch, v[i], v[j]);
			for (int r = 0; r < reps; r++)
				experiment_add(e, c, mt, p, t * (1 + noise * gsl_ran_gaussian(rng, 1.0)));
		}
}

void gen_compare_pair(unsigned long seed, enum gen_change ch, int reps, double noise, struct experiment *base,
		      struct experiment *new)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	grid(base, GEN_SAME, reps, noise, rng);
	grid(new, ch, reps, noise, rng);
	gsl_rng_free(rng);
}

void gen_compare_run(unsigned long seed, enum gen_change ch, int reps, double noise, int npairs,
		     const struct compare_options *opt, struct gen_compare_rates *r)
{
	int right = gen_change_param(ch);
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < npairs; i++) {
		struct experiment b, n;
		struct compare c;
		struct perr err;
		gen_compare_pair(seed + (unsigned long)i, ch, reps, noise, &b, &n);
		r->pairs++;
		if (compare_experiments(&b, &n, opt, &c, &err) < 0) {
			r->failed++;
		} else {
			const struct compare_region *g = &c.regions[0];
			int other = 0;
			for (int k = 0; k < c.nparams; k++)
				other |= k != right && g->scaling[k] > 0;
			r->scaling += g->regression;
			r->scaling_right += right >= 0 && g->scaling[right] > 0;
			r->scaling_other += other;
			r->region += g->status == CMP_REGRESSION;
			r->points += c.ncmp;
			r->point_reg += c.nregressions;
			r->verdicts += compare_verdict(&c) == COMPARE_REGRESSION;
			compare_release(&c);
		}
		experiment_release(&b);
		experiment_release(&n);
	}
}

/* One side of the pooled setup; scale(n) multiplies the truth. */
static void pooled_side(struct experiment *e, enum gen_pooled ch, double factor, int reps, double cov,
			gsl_rng *rng)
{
	double sigma = sqrt(log1p(cov * cov));
	experiment_init(e);
	experiment_param(e, "n");
	int c = experiment_callpath(e, "main->solve"), mt = experiment_metric(e, "time");
	for (int i = 0; i < 8; i++) {
		double n = 8 << i;
		int p = experiment_point(e, &n);
		double t = (1 + 0.01 * n) * (ch == GEN_POOLED_UNIFORM || (ch == GEN_POOLED_UPPER_HALF && i >= 4) ? factor : 1);
		if (ch == GEN_POOLED_WORK)
			t = 1 + factor * 0.01 * n;
		else if (ch == GEN_POOLED_STEEPER)
			t = 1 + 0.01 * pow(n, factor);
		for (int r = 0; r < reps; r++)
			experiment_add(e, c, mt, p, t * exp(sigma * gsl_ran_gaussian(rng, 1.0) - sigma * sigma / 2));
	}
}

void gen_pooled_pair(unsigned long seed, enum gen_pooled ch, double factor, int reps, double cov,
		     struct experiment *base, struct experiment *new)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	pooled_side(base, GEN_POOLED_SAME, factor, reps, cov, rng);
	pooled_side(new, ch, factor, reps, cov, rng);
	gsl_rng_free(rng);
}

void gen_pooled_run(unsigned long seed, enum gen_pooled ch, double factor, int reps, double cov, int npairs,
		    const struct compare_options *opt, struct gen_pooled_rates *r)
{
	memset(r, 0, sizeof(*r));
	double *det = calloc((size_t)npairs + 1, sizeof(double));
	int ndet = 0;
	for (int i = 0; i < npairs; i++) {
		struct experiment b, n;
		struct compare c;
		struct perr err;
		gen_pooled_pair(seed + (unsigned long)i, ch, factor, reps, cov, &b, &n);
		r->pairs++;
		if (compare_experiments(&b, &n, opt, &c, &err) < 0) {
			r->failed++;
		} else {
			int v = compare_verdict(&c);
			r->exit0 += v == 0;
			r->exit3 += v == 3;
			r->exit4 += v == 4;
			r->region += c.regions[0].status == CMP_REGRESSION;
			r->scaling += c.regions[0].regression;
			r->ok_region += v == 0;
			if (c.regions[0].trend.tested)
				det[ndet++] = expm1(c.regions[0].trend.detectable);
			compare_release(&c);
		}
		experiment_release(&b);
		experiment_release(&n);
	}
	gsl_sort(det, 1, (size_t)ndet);
	r->detectable = ndet ? gsl_stats_median_from_sorted_data(det, 1, (size_t)ndet) : NAN;
	free(det);
}
