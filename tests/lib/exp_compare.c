/* Semantic, bit-exact comparison of two experiments (round-trip checks). */
#include "tests/lib/exp_compare.h"
#include "common/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

int experiment_compare(const struct experiment *a, const struct experiment *b, char *why, size_t n)
{
	if (a->nparams != b->nparams) {
		snprintf(why, n, "%d parameters vs %d", a->nparams, b->nparams);
		return 1;
	}
	for (int k = 0; k < a->nparams; k++)
		if (strcmp(a->params[k], b->params[k])) {
			snprintf(why, n, "parameter %d is '%s' vs '%s'", k, a->params[k], b->params[k]);
			return 1;
		}
	if (a->npoints != b->npoints || a->ncallpaths != b->ncallpaths || a->nmetrics != b->nmetrics) {
		snprintf(why, n, "%d/%d/%d points/callpaths/metrics vs %d/%d/%d", a->npoints, a->ncallpaths,
			 a->nmetrics, b->npoints, b->ncallpaths, b->nmetrics);
		return 1;
	}
	int *pmap = xmalloc(sizeof(int) * (size_t)(a->npoints + 1));
	int rc = 1;
	for (int p = 0; p < a->npoints; p++) {
		pmap[p] = experiment_find_point(b, &a->coords[(size_t)p * (size_t)a->nparams]);
		if (pmap[p] < 0) {
			snprintf(why, n, "point %d of the first is missing from the second", p);
			goto done;
		}
	}
	for (int c = 0; c < a->ncallpaths; c++) {
		int bc = experiment_find_callpath(b, a->callpaths[c]);
		if (bc < 0) {
			snprintf(why, n, "call path '%s' missing", a->callpaths[c]);
			goto done;
		}
		for (int m = 0; m < a->nmetrics; m++) {
			int bm = experiment_find_metric(b, a->metrics[m]);
			if (bm < 0) {
				snprintf(why, n, "metric '%s' missing", a->metrics[m]);
				goto done;
			}
			for (int p = 0; p < a->npoints; p++) {
				const struct exp_values *va = experiment_values(a, c, m, p);
				const struct exp_values *vb = experiment_values(b, bc, bm, pmap[p]);
				int na = va ? va->n : 0, nb = vb ? vb->n : 0;
				if (na != nb) {
					snprintf(why, n, "'%s' %s point %d: %d values vs %d", a->callpaths[c],
						 a->metrics[m], p, na, nb);
					goto done;
				}
				for (int i = 0; i < na; i++)
					if (!same_bits(va->v[i], vb->v[i])) {
						snprintf(why, n, "'%s' %s point %d value %d: %.17g vs %.17g",
							 a->callpaths[c], a->metrics[m], p, i, va->v[i], vb->v[i]);
						goto done;
					}
			}
		}
	}
	/* b has nothing a lacks: counts are equal and every name of a is in b */
	rc = 0;
done:
	free(pmap);
	return rc;
}
