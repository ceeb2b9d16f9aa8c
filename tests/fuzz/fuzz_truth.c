/*
 * libFuzzer target for generated truths' spelling (models/truth.h,
 * `plan --evaluate gen:EXPR,noise=R,seed=S,seeds=N`): parse, and when it
 * parses, measure a few points; a measurement is positive or NaN (a
 * function undefined there), never a crash.
 */
#include "models/truth.h"
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
	char *names[] = { "x", "y" };
	struct truth t;
	struct perr err;
	if (truth_parse(&t, text, 2, names, &err) == 0) {
		double x[][2] = { { 4, 4 }, { 64, 8 }, { 1, 1000 } };
		for (int i = 0; i < 3; i++) {
			double f = truth_value(&t, x[i]), m = truth_measure(&t, t.seed, x[i], i);
			if (isfinite(f) && f > 0 && isfinite(m) && !(m > 0))
				abort();        /* a positive run time measured as none */
		}
	}
	truth_release(&t);
	free(text);
	return 0;
}
