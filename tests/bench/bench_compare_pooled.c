/*
 * perfsweep compare on issue 42's pooled-evidence setup
 * (tests/lib/gen_compare.h: gen_pooled_pair, one region over 8 points,
 * log-normal noise of a given CoV): per noise level and truth, how many
 * of 100 seeded pairs end in exit 0, 3 and 4, how often the region
 * regressed and how often it was called a scaling regression.
 * docs/compare.md quotes this table; tests/unit/test_compare.c asserts
 * the targets on the same seeds.
 */
#include "tests/lib/gen_compare.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int npairs = argc > 1 ? atoi(argv[1]) : 100;
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	static const double covs[] = { 0.02, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35 };
	static const struct {
		enum gen_pooled ch;
		double factor;
		const char *name;
	} truths[] = {
		{ GEN_POOLED_SAME, 1, "A/A (same)" },
		{ GEN_POOLED_UNIFORM, 1.10, "+10% uniform" },
		{ GEN_POOLED_UNIFORM, 1.38, "+38% uniform" },
		{ GEN_POOLED_UPPER_HALF, 1.38, "+38% upper half" },
	};
	struct compare_options opt;
	compare_options_init(&opt);
	printf("%d repetitions, 8 points, %d pairs each\n", reps, npairs);
	printf("%-16s %5s %6s %6s %6s %8s %8s %11s\n", "truth", "CoV", "exit0", "exit3", "exit4", "region", "scaling",
	       "detectable");
	for (size_t t = 0; t < sizeof(truths) / sizeof(truths[0]); t++)
		for (size_t k = 0; k < sizeof(covs) / sizeof(covs[0]); k++) {
			struct gen_pooled_rates r;
			gen_pooled_run(1, truths[t].ch, truths[t].factor, reps, covs[k], npairs, &opt, &r);
			printf("%-16s %4.0f%% %6d %6d %6d %8d %8d %10.1f%%\n", truths[t].name, 100 * covs[k], r.exit0, r.exit3,
			       r.exit4, r.region, r.scaling, 100 * r.detectable);
			if (r.failed)
				return 1;
		}
	return 0;
}
