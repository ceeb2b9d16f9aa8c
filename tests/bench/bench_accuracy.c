/*
 * Accuracy on generated data of known truth (fixed seed): 1000 functions
 * from the PMNF search space (500 with one parameter, 500 with two; 5
 * values each, 5 repetitions), noise of 1, 5, 10 and 20% (normal,
 * relative), each without and with one outlying repetition (3x) at 20% of
 * the points.  Per condition, for the robust selection and
 * Extra-P's rule (mean): how often the leading term's exponents are found
 * exactly, and the median relative prediction error at twice the largest
 * value of every parameter.  Then segmented lines (validator/segment.h):
 * detection and location rates, and false flags on clean lines; and per
 * condition the clean functions with a false blocking flag.
 * The table goes into docs/modelling.md.
 */
#include "models/hypothesis.h"
#include "models/modeler.h"
#include "tests/lib/gen_truth.h"
#include "validator/validate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFUNC 1000
#define REPS 5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct score {
	int exact, n;
	double *err;
};

/* Run one condition with one selection over every generated function. */
static void run_condition(double noise, int outliers, const struct model_options *opt, struct score *sc)
{
	struct gen_rng rng;
	gen_rng_seed(&rng, 20261126);
	sc->exact = sc->n = 0;
	sc->err = calloc(NFUNC, sizeof(double));
	for (int f = 0; f < NFUNC; f++) {
		struct gen_function fn;
		struct gen_data d;
		gen_function_random(&rng, f < NFUNC / 2 ? 1 : 2, &fn);
		gen_data_make(&rng, &fn, REPS, noise, outliers ? 0.2 : 0, 3.0, &d);
		struct model_input in = gen_data_input(&d);
		struct pmnf_model m;
		struct perr err;
		if (modeler_fit(&in, opt, NULL, &m, &err) == 0) {
			sc->exact += gen_leading_term_equal(&fn, &m);
			double at[2] = { 128, 128 }, truth = gen_function_eval(&fn, at);
			sc->err[sc->n++] = fabs(pmnf_eval(&m, at) - truth) / fabs(truth);
		}
		pmnf_release(&m);
	}
	qsort(sc->err, (size_t)sc->n, sizeof(double), cmp_double);
}

#define NSEG 200
#define SEG_POINTS 12

/* Segmented truth on 12 log-spaced points (2..256): kind 0 a jump (x1.5..3), 1 a change of slope. */
static double seg_truth(int kind, int change, double c, const double *xs, int i)
{
	double xc = xs[change];
	if (kind == 0)
		return xs[i] * (i < change ? 1 : c);
	return i < change ? xs[i] : xc * pow(xs[i] / xc, c);
}

/* One line: a segmented function (kind 0/1) or a clean PMNF one (kind 2). */
static void seg_line(struct gen_rng *rng, int kind, double noise, int outliers, struct experiment *e,
		     int *change)
{
	double xs[SEG_POINTS];
	struct gen_function fn;
	for (int i = 0; i < SEG_POINTS; i++)
		xs[i] = 2 * pow(128, i / (SEG_POINTS - 1.0));
	*change = 3 + (int)(gen_uniform(rng) * 6);      /* among the small (3) .. the large (8) values */
	double c = kind == 0 ? 1.5 + 1.5 * gen_uniform(rng) : 2 + gen_uniform(rng);
	gen_function_random(rng, 1, &fn);
	experiment_init(e);
	experiment_param(e, "x");
	int cp = experiment_callpath(e, "main"), m = experiment_metric(e, "time");
	for (int i = 0; i < SEG_POINTS; i++) {
		int p = experiment_point(e, &xs[i]);
		double y = kind < 2 ? seg_truth(kind, *change, c, xs, i) : gen_function_eval(&fn, &xs[i]);
		int bad = gen_uniform(rng) < (outliers ? 0.2 : 0) ? (int)(gen_uniform(rng) * REPS) : -1;
		for (int r = 0; r < REPS; r++)
			experiment_add(e, cp, m, p, y * (1 + noise * gen_normal(rng)) * (r == bad ? 3 : 1));
	}
}

/* Detection, location and false-flag rates of the segmented check. */
static void seg_condition(double noise, int outliers, const struct model_options *mo, double *detect,
			  double *locate, double *falses)
{
	struct gen_rng rng;
	gen_rng_seed(&rng, 1414);
	struct validate_options vo;
	validate_options_init(&vo);
	vo.model = *mo;
	int nd = 0, nl = 0, nf = 0;
	for (int i = 0; i < 3 * NSEG; i++) {
		int kind = i % 3, change;
		struct experiment e;
		seg_line(&rng, kind, noise, outliers, &e, &change);
		struct validate_input in = { .e = &e };
		struct validation v;
		struct perr err;
		int flagged = 0;
		if (validate_run(&v, &in, &vo, &err) == 0)
			for (int f = 0; f < v.nflags; f++)
				flagged |= v.flags[f].kind == VFLAG_SEGMENTED;
		if (kind < 2) {
			nd += flagged;
			nl += flagged && abs(v.regions[0].segment[0].change - change) <= 1;
		} else {
			nf += flagged;
		}
		validation_release(&v);
		experiment_release(&e);
	}
	*detect = 100.0 * nd / (2 * NSEG);
	*locate = nd ? 100.0 * nl / nd : 0;
	*falses = 100.0 * nf / NSEG;
}

/*
 * Share of clean generated functions (5 values, 1 or 2 parameters) with a
 * false blocking flag: any blocking flag, except a noise flag when the
 * noise is at or above the validator's CoV threshold (0.1; there it is
 * true).  Outlying repetitions are notes, never flags.
 */
static double false_blocking(double noise, int outliers, const struct model_options *mo)
{
	struct gen_rng rng;
	gen_rng_seed(&rng, 2026);
	struct validate_options vo;
	validate_options_init(&vo);
	vo.model = *mo;
	int nb = 0;
	for (int f = 0; f < NFUNC; f++) {
		struct gen_function fn;
		struct gen_data d;
		gen_function_random(&rng, f < NFUNC / 2 ? 1 : 2, &fn);
		gen_data_make(&rng, &fn, REPS, noise, outliers ? 0.2 : 0, 3.0, &d);
		struct experiment e;
		experiment_init(&e);
		for (int k = 0; k < d.np; k++)
			experiment_param(&e, d.names[k]);
		int cp = experiment_callpath(&e, "main"), m = experiment_metric(&e, "time");
		for (int p = 0; p < d.npoints; p++) {
			int q = experiment_point(&e, &d.coords[p * d.np]);
			for (int r = 0; r < d.vals[p].n; r++)
				experiment_add(&e, cp, m, q, d.vals[p].v[r]);
		}
		struct validate_input in = { .e = &e };
		struct validation v;
		struct perr err;
		int bad = 0;
		if (validate_run(&v, &in, &vo, &err) == 0)
			for (int k = 0; k < v.nflags; k++)
				bad |= v.flags[k].blocking &&
				       (v.flags[k].kind != VFLAG_NOISE || noise < vo.cov_threshold);
		nb += bad;
		validation_release(&v);
		experiment_release(&e);
	}
	return 100.0 * nb / NFUNC;
}

static void segment_table(const struct model_options *robust, const struct model_options *extrap)
{
	static const double noises[4] = { 0.01, 0.05, 0.10, 0.20 };
	printf("\nsegmented lines (12 points, 5 reps; %d jumps, %d slope changes, %d clean):\n", NSEG, NSEG, NSEG);
	printf("| noise | outlier | detected and located +-1 robust | extrap | detected robust | extrap | located +-1 (of detected) robust | extrap | false segmented robust | extrap |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|\n");
	int worse = 0;
	for (int i = 0; i < 4; i++)
		for (int o = 0; o <= 1; o++) {
			double d[2], l[2], f[2], dl[2];
			seg_condition(noises[i], o, robust, &d[0], &l[0], &f[0]);
			seg_condition(noises[i], o, extrap, &d[1], &l[1], &f[1]);
			for (int k = 0; k < 2; k++)
				dl[k] = d[k] * l[k] / 100;
			printf("| %2.0f%% | %s | %5.1f%% | %5.1f%% | %5.1f%% | %5.1f%% | %5.1f%% | %5.1f%% | %5.1f%% | %5.1f%% |\n",
			       100 * noises[i], o ? "yes" : "no", dl[0], dl[1], d[0], d[1], l[0], l[1], f[0], f[1]);
			worse += dl[0] < dl[1] - 1e-9;
		}
	printf("conditions where robust detects and locates fewer segmented lines than extrap: %d\n", worse);
	printf("\nclean functions with a false blocking flag (%d, 5 values, 5 reps; a noise flag "
	       "counts only below 10%% noise):\n", NFUNC);
	printf("| noise | outlier | robust | extrap |\n|---|---|---|---|\n");
	for (int i = 0; i < 4; i++)
		for (int o = 0; o <= 1; o++)
			printf("| %2.0f%% | %s | %5.1f%% | %5.1f%% |\n", 100 * noises[i], o ? "yes" : "no",
			       false_blocking(noises[i], o, robust), false_blocking(noises[i], o, extrap));
}

int main(void)
{
	static const double noises[4] = { 0.01, 0.05, 0.10, 0.20 };
	struct model_options robust, extrap;
	model_options_robust(&robust);
	robust.outlier_side = POINT_SIDE_HIGH;  /* the generated values are times (metric "time" below) */
	model_options_init(&extrap);
	printf("| noise | outlier | exact leading term robust | extrap | median error at 2x robust | extrap |\n");
	printf("|---|---|---|---|---|---|\n");
	int worse = 0;
	for (int i = 0; i < 4; i++)
		for (int o = 0; o <= 1; o++) {
			struct score r, x;
			run_condition(noises[i], o, &robust, &r);
			run_condition(noises[i], o, &extrap, &x);
			double mr = r.n ? r.err[r.n / 2] : NAN, mx = x.n ? x.err[x.n / 2] : NAN;
			printf("| %2.0f%% | %s | %5.1f%% | %5.1f%% | %6.2f%% | %6.2f%% |\n", 100 * noises[i],
			       o ? "yes" : "no", 100.0 * r.exact / NFUNC, 100.0 * x.exact / NFUNC, 100 * mr,
			       100 * mx);
			worse += r.exact < x.exact;
			free(r.err);
			free(x.err);
		}
	printf("conditions where robust finds fewer leading terms than extrap: %d\n", worse);
	segment_table(&robust, &extrap);
	return 0;
}
