/*
 * libFuzzer target for cost/volume expressions: parse, evaluate, and sum
 * over a small grid (the expansion into products must agree with
 * enumeration or fail cleanly).
 */
#include "designs/expr.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	char *names[] = { "a", "b", "p" };
	struct perr err;
	struct expr *e = expr_parse(text, 3, names, &err);
	if (e) {
		double va[] = { 1, 2, 3 }, vb[] = { 4, 5 }, vp[] = { 8, 16 };
		double *vals[] = { va, vb, vp };
		int nv[] = { 3, 2, 2 };
		double sum, mag, want = 0, sabs = 0;
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 2; j++)
				for (int k = 0; k < 2; k++) {
					double v[] = { va[i], vb[j], vp[k] };
					want += expr_eval(e, v);
					sabs += fabs(expr_eval(e, v));
				}
		if (expr_grid_sum(e, nv, vals, 1e6, &sum, &mag, &err) == 0 && isfinite(want) &&
		    isfinite(sum) && isfinite(mag) && isfinite(sabs) && fabs(sum - want) > 1e-6 * (mag + sabs + 1))
			abort();        /* expansion disagrees with enumeration */
		expr_free(e);
	}
	free(text);
	return 0;
}
