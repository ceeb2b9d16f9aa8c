/* The order a plan's runs execute in: interleaved passes, random or grouped. */
#include "designs/plan.h"
#include "common/xalloc.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

static const char *const order_names[] = { "grouped", "interleaved", "random" };

const char *plan_order_name(int order)
{
	return order >= 0 && order <= ORDER_RANDOM ? order_names[order] : "?";
}

int plan_order_parse(const char *name)
{
	for (int i = 0; i <= ORDER_RANDOM; i++)
		if (!strcmp(name, order_names[i]))
			return i;
	return -1;
}

void plan_run_order(const struct plan *pl, struct plan_run **runs, long long *n)
{
	long long total = 0;
	int passes = 0;
	for (int i = 0; i < pl->npoints; i++) {
		total += pl->points[i].repetitions;
		if (pl->points[i].repetitions > passes)
			passes = pl->points[i].repetitions;
	}
	struct plan_run *r = xcalloc((size_t)total + 1, sizeof(*r));
	long long k = 0;
	if (pl->order == ORDER_INTERLEAVED) {
		for (int pass = 1; pass <= passes; pass++)
			for (int i = 0; i < pl->npoints; i++)
				if (pl->points[i].repetitions >= pass)
					r[k++] = (struct plan_run){ i, pass };
	} else {
		for (int i = 0; i < pl->npoints; i++)
			for (int rep = 1; rep <= pl->points[i].repetitions; rep++)
				r[k++] = (struct plan_run){ i, rep };
	}
	if (pl->order != ORDER_GROUPED && total > 1) {
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(rng, pl->order_seed);
		if (pl->order == ORDER_RANDOM) {
			gsl_ran_shuffle(rng, r, (size_t)total, sizeof(*r));
		} else {
			/* each pass is a contiguous block: shuffle the blocks one by one */
			for (long long start = 0; start < total;) {
				long long end = start;
				while (end < total && r[end].repetition == r[start].repetition)
					end++;
				gsl_ran_shuffle(rng, r + start, (size_t)(end - start), sizeof(*r));
				start = end;
			}
		}
		gsl_rng_free(rng);
	}
	*runs = r;
	*n = total;
}
