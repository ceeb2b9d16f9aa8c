/*
 * The smallest growth the contention check detects (validator/power.h,
 * growth_test_detectable, validation_flaggable_growth), on known truth:
 * published t quantiles, and many generated campaigns (fixed seeds) with a
 * known true growth at, below and above the detectable growth the
 * validator reports (at the true noise), whose detection rate must be near
 * the stated power.
 */
#include "tests/lib/tap.h"
#include "tests/unit/validate_gen.h"
#include "validator/power.h"
#include "validator/validate.h"
#include <gsl/gsl_cdf.h>

/* Monte Carlo of the noncentral F: (chi2'(df1, lambda) / df1) / (chi2(df2) / df2). */
static double mc_power_f(double lambda, int df1, int df2, double alpha, int n, gsl_rng *rng)
{
	double crit = gsl_cdf_fdist_Qinv(alpha, df1, df2);
	int hits = 0;
	for (int i = 0; i < n; i++) {
		double z = gsl_ran_gaussian(rng, 1.0) + sqrt(lambda);
		double num = (z * z + (df1 > 1 ? gsl_ran_chisq(rng, df1 - 1) : 0)) / df1;
		hits += num / (gsl_ran_chisq(rng, df2) / df2) > crit;
	}
	return (double)hits / n;
}

static void test_formulas(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 16000);
	static const int dfs[][2] = { { 1, 8 }, { 3, 24 }, { 1, 26 }, { 5, 4 } };
	static const double lambdas[] = { 0, 4, 12, 30 };
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			double want = mc_power_f(lambdas[j], dfs[i][0], dfs[i][1], 0.01, 200000, rng);
			double got = power_f(lambdas[j], dfs[i][0], dfs[i][1], 0.01);
			ok(fabs(got - want) < 0.004, "F(%d, %d) at lambda %g: power %.4f, simulated %.4f", dfs[i][0],
			   dfs[i][1], lambdas[j], got, want);
		}
	double l = power_f_lambda(3, 24, 0.01, 0.8);
	is_rel(power_f(l, 3, 24, 0.01), 0.8, 1e-6, "F: power_f_lambda inverts power_f (lambda %.3g)", l);
	ok(power_f(l * 1.5, 3, 24, 0.01) > 0.8 && power_f(l / 1.5, 3, 24, 0.01) < 0.8, "F: power grows with lambda");
	/* t: with many degrees of freedom, the normal formula (z(1 - alpha/2) + z(power)) * se */
	is_rel(power_t_detectable(1, 2000, 0.01, 0.8), 2.575829 + 0.841621, 3e-3,
	       "t: large df gives (z(0.995) + z(0.8)) * se");
	is_rel(power_t_detectable(2, 2000, 0.05, 0.5), 2 * 1.959964, 3e-3, "t: large df, power 50%%: z(0.975) * se");
	/* small df: above the textbook (t(0.995, 8) + t(0.8, 8)) * se = 4.244 */
	double t8 = power_t_detectable(1, 8, 0.01, 0.8);
	ok(t8 > 4.244 && t8 < 4.8, "t: df 8, alpha 0.01, power 80%%: %.3f se", t8);
	ok(isnan(power_t_detectable(1, 0, 0.01, 0.8)), "t: no degrees of freedom, no answer");
	double l600 = power_f_lambda(1, 600, 0.01, 0.8);
	ok(l600 > 11.6 && l600 < 11.8, "F(1, 600): lambda %.3f, near (z(0.995) + z(0.8))^2 = 11.68", l600);
	ok(isnan(power_f_lambda(1, 1, 1e-6, 0.999)), "F: out of reach, no answer");
	gsl_rng_free(rng);
}

/* One simulated study: lines along ranks per node (1, 2) at nsizes sizes. */
struct study {
	int nsizes, reps;
	double noise, power;
};

/* Build a campaign with true growth g from 1 to 2 ranks per node and validate it. */
static void simulate(const struct study *st, double g, gsl_rng *rng, int *flagged, double *detectable)
{
	struct experiment e;
	experiment_init(&e);
	experiment_param(&e, "mib");
	experiment_param(&e, VALIDATE_RPN_PARAM);
	int c = experiment_callpath(&e, "kernel"), m = experiment_metric(&e, "time");
	for (int si = 0; si < st->nsizes; si++)
		for (int rpn = 1; rpn <= 2; rpn++) {
			double x[2] = { 1 << si, rpn };
			int p = experiment_point(&e, x);
			double level = 1e-4 * x[0] * (rpn == 2 ? 1 + g : 1);
			for (int r = 0; r < st->reps; r++)
				experiment_add(&e, c, m, p, level * (1 + st->noise * gsl_ran_gaussian(rng, 1.0)));
		}
	struct validate_options o;
	validate_options_init(&o);
	o.cov_threshold = 10;           /* the noise check is not under test */
	o.power = st->power;
	struct validate_input in = { .e = &e };
	struct validation v;
	struct perr err = { 0 };
	if (validate_run(&v, &in, &o, &err) < 0) {
		diag("validate: %s", err.msg);
		*flagged = -1;
		experiment_release(&e);
		return;
	}
	*flagged = 0;
	for (int i = 0; i < v.nflags; i++)
		*flagged |= v.flags[i].kind == VFLAG_CONTENTION;
	*detectable = v.regions[0].growth_tested[1] ? validation_flaggable_growth(&v, &v.regions[0].growth[1])
						     : NAN;
	validation_release(&v);
	experiment_release(&e);
}

/*
 * The detectable growth at the true noise: the validator states it at the
 * noise each campaign measured, which scatters around the truth (s, not
 * sigma); its root mean square over campaigns without growth is the value
 * at sigma (s^2 is unbiased for sigma^2, and the detectable slope is
 * proportional to s).
 */
static double true_detectable(const struct study *st, int n, gsl_rng *rng)
{
	double sum = 0;
	for (int i = 0; i < n; i++) {
		int flagged;
		double d;
		simulate(st, 0, rng, &flagged, &d);
		sum += d * d;
	}
	return sqrt(sum / n);
}

static double detection_rate(const struct study *st, double g, int n, gsl_rng *rng)
{
	int hits = 0;
	for (int i = 0; i < n; i++) {
		int flagged;
		double d;
		simulate(st, g, rng, &flagged, &d);
		hits += flagged == 1;
	}
	return (double)hits / n;
}

/*
 * At the true growth the validator reports as detectable, the check finds it
 * in `power` of the campaigns (within 0.07: 400 campaigns give a standard
 * error of 0.02, the rest is the formula's approximation); at 0.6 times it
 * clearly less often, at 1.4 times clearly more, without growth at most
 * about alpha.
 */
static void test_detection_rate(const char *name, const struct study *st, unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	double d = true_detectable(st, 150, rng);
	if (!ok(d > 0.05, "%s: reported detectable growth %.1f%% is above --min-growth 5%%", name, 100 * d)) {
		gsl_rng_free(rng);
		return;
	}
	double at = detection_rate(st, d, 400, rng);
	double below = detection_rate(st, 0.6 * d, 200, rng);
	double above = detection_rate(st, 1.4 * d, 200, rng);
	double none = detection_rate(st, 0, 300, rng);
	diag("%s: detectable %.1f%%: detected %.3f at it, %.3f at 0.6x, %.3f at 1.4x, %.3f without growth", name,
	     100 * d, at, below, above, none);
	ok(fabs(at - st->power) <= 0.07, "%s: at the detectable growth, detected in %.0f%% of campaigns (power %.0f%%)",
	   name, 100 * at, 100 * st->power);
	ok(below < st->power - 0.2, "%s: at 0.6x, detected clearly less often (%.0f%%)", name, 100 * below);
	ok(above > st->power + (1 - st->power) / 2, "%s: at 1.4x, detected clearly more often (%.0f%%)", name,
	   100 * above);
	ok(none <= 0.025, "%s: without growth, flagged in %.1f%% (alpha 1%%)", name, 100 * none);
	gsl_rng_free(rng);
}

int main(void)
{
	test_formulas();
	/* one line: the slope test and the ANOVA are the same test */
	struct study one = { .nsizes = 1, .reps = 5, .noise = 0.08, .power = 0.8 };
	test_detection_rate("one line, 5 reps, 8% noise, power 80%", &one, 16001);
	/* the HPCC study's shape: three sizes, the ANOVA (3 numerator df) decides */
	struct study three = { .nsizes = 3, .reps = 5, .noise = 0.1, .power = 0.8 };
	test_detection_rate("three lines, 5 reps, 10% noise, power 80%", &three, 16002);
	struct study half = { .nsizes = 3, .reps = 3, .noise = 0.05, .power = 0.5 };
	test_detection_rate("three lines, 3 reps, 5% noise, power 50%", &half, 16003);
	return done_testing();
}
