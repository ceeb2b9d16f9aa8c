/*
 * perfsweep compare's error rates on generated pairs of known change
 * (tests/lib/gen_compare.h: 2 parameters, 25 points), 200 pairs per change,
 * with 5 repetitions at 5% noise and with 3 repetitions at 10%: how often
 * it finds a scaling regression (in the changed parameter, in another),
 * a region-level regression, and regressing points.  docs/compare.md
 * quotes these figures.
 */
#include "tests/lib/gen_compare.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int npairs = argc > 1 ? atoi(argv[1]) : 200;
	static const struct {
		int reps;
		double noise;
	} setups[] = { { 5, 0.05 }, { 3, 0.10 } };
	struct compare_options opt;
	compare_options_init(&opt);
	printf("%-16s %-9s %6s %14s %12s %12s %14s %9s\n", "change", "reps", "pairs", "scaling right",
	       "scaling other", "region reg", "point reg", "verdict");
	for (size_t s = 0; s < sizeof(setups) / sizeof(setups[0]); s++)
		for (int ch = 0; ch < GEN_NCHANGES; ch++) {
			struct gen_compare_rates r;
			double t0 = now();
			gen_compare_run(1000 * (unsigned long)(ch + 1) + 100000 * s, (enum gen_change)ch, setups[s].reps,
					setups[s].noise, npairs, &opt, &r);
			char setup[32];
			snprintf(setup, sizeof(setup), "%d @ %.0f%%", setups[s].reps, 100 * setups[s].noise);
			printf("%-16s %-9s %6d %14d %12d %12d %8d/%-5d %9d  (%.1f s)\n", gen_change_name((enum gen_change)ch),
			       setup, r.pairs, gen_change_param((enum gen_change)ch) >= 0 ? r.scaling_right : r.scaling,
			       r.scaling_other, r.region, r.point_reg, r.points, r.verdicts, now() - t0);
			if (r.failed)
				return 1;
		}
	return 0;
}
