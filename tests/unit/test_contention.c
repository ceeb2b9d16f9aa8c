/*
 * The growth test's confidence interval (validator/contention.c) against
 * values worked out by hand: one line along r = 1, 2 with three
 * repetitions at each, so that the pooled slope, its standard error and
 * the growth its ends give follow from the textbook formulas, with
 * Student's t quantile t(0.975, 4) from the tables (2.7764451051977987).
 * Relative tolerance as GSL's gsl_test_rel: NaN fails.
 */
#include "tests/lib/tap.h"
#include "validator/contention.h"
#include <math.h>

#define T975_DF4 2.7764451051977987

/* One line along r = 1, 2: three values at each, in experiment e (released by the caller). */
static void two_points(struct experiment *e, const double *at1, const double *at2)
{
	experiment_init(e);
	experiment_param(e, "r");
	int c = experiment_callpath(e, "main"), m = experiment_metric(e, "time");
	double x1 = 1, x2 = 2;
	int p1 = experiment_point(e, &x1), p2 = experiment_point(e, &x2);
	for (int i = 0; i < 3; i++) {
		experiment_add(e, c, m, p1, at1[i]);
		experiment_add(e, c, m, p2, at2[i]);
	}
}

/* The growth from r = 1 to 2 of the line through the relative slope b (xbar 1.5). */
static double growth_at(double b)
{
	return b / (1 - 0.5 * b);
}

/* The hand computation: relative slope, its standard error (4 residual degrees of freedom). */
static void by_hand(const double *at1, const double *at2, double *b, double *se)
{
	double m1 = (at1[0] + at1[1] + at1[2]) / 3, m2 = (at2[0] + at2[1] + at2[2]) / 3;
	double level = (m1 + m2) / 2, rss = 0;
	for (int i = 0; i < 3; i++)
		rss += pow((at1[i] - m1) / level, 2) + pow((at2[i] - m2) / level, 2);
	*b = (m2 - m1) / level;                 /* two values of r one apart */
	*se = sqrt(rss / 4 / 1.5);              /* Sxx = 6 x 0.5^2 */
}

static void run_test(const double *at1, const double *at2, struct growth_test *g, const char *what)
{
	struct experiment e;
	two_points(&e, at1, at2);
	struct perr err = { 0 };
	is_int(growth_test_run(&e, &e.series[0], 0, 0, NULL, g, &err), 1, "%s: tested (%s)", what, err.msg);
	experiment_release(&e);
}

int main(void)
{
	struct growth_test g;
	double b, se;

	/* +100% at 7% noise: an interval around it, both ends from the slope's t interval */
	static const double a1[] = { 0.9, 1.0, 1.1 }, a2[] = { 1.9, 2.0, 2.1 };
	by_hand(a1, a2, &b, &se);
	run_test(a1, a2, &g, "+100%");
	is_rel(g.slope, b, 1e-12, "+100%%: the pooled relative slope");
	is_rel(g.slope_se, se, 1e-12, "+100%%: its standard error");
	is_rel(g.growth_lin, 1.0, 1e-12, "+100%%: the linear growth");
	is_rel(g.growth_lo, growth_at(b - T975_DF4 * se), 1e-9, "+100%%: the interval's lower end (%.6f)",
	       g.growth_lo);
	is_rel(g.growth_hi, growth_at(b + T975_DF4 * se), 1e-9, "+100%%: the interval's upper end (%.6f)",
	       g.growth_hi);
	ok(g.growth_lo < g.growth_lin && g.growth_lin < g.growth_hi, "+100%%: the interval holds the estimate");
	growth_test_release(&g);

	/* +900% at 50% noise: the slope's upper end is past the pole (the line would reach 0 at r = 1),
	   so the growth has no upper bound; the lower end stays what it is, not the upper one too */
	static const double b1[] = { 0.9, 1.0, 1.1 }, b2[] = { 5, 10, 15 };
	by_hand(b1, b2, &b, &se);
	run_test(b1, b2, &g, "+900%");
	ok((b + T975_DF4 * se) * 0.5 >= 1, "+900%%: the slope's upper end is past the pole (%.3f)", b + T975_DF4 * se);
	ok(isinf(g.growth_hi) && g.growth_hi > 0, "+900%%: no upper bound (%g)", g.growth_hi);
	is_rel(g.growth_lo, growth_at(b - T975_DF4 * se), 1e-9, "+900%%: the lower end (%.6f)", g.growth_lo);
	ok(g.growth_lo < g.growth_lin, "+900%%: a real interval, not one point (%.3f..%g)", g.growth_lo,
	   g.growth_hi);
	growth_test_release(&g);

	/* -90% at 50% noise: the slope's lower end makes the line reach 0 before r = 2: -100%, not below */
	by_hand(b2, b1, &b, &se);
	run_test(b2, b1, &g, "-90%");
	ok(1 + (b - T975_DF4 * se) * 0.5 <= 0, "-90%%: the slope's lower end reaches 0 at r = 2");
	is_rel(g.growth_lo, -1, 1e-12, "-90%%: the lower end is -100%% (%.6f)", g.growth_lo);
	is_rel(g.growth_hi, growth_at(b + T975_DF4 * se), 1e-9, "-90%%: the upper end (%.6f)", g.growth_hi);
	growth_test_release(&g);

	/* no scatter at all (values printed at a coarse resolution): no interval, not a zero-width one */
	static const double c1[] = { 1, 1, 1 }, c2[] = { 2, 2, 2 };
	run_test(c1, c2, &g, "no scatter");
	is_rel(g.growth_lin, 1.0, 1e-12, "no scatter: the growth");
	ok(isnan(g.growth_lo) && isnan(g.growth_hi), "no scatter: no interval (%g..%g)", g.growth_lo, g.growth_hi);
	growth_test_release(&g);
	return done_testing();
}
