/* Lists of measurements produced by the collectors. */
#include "collectors/measurement.h"
#include "common/xalloc.h"
#include <stdlib.h>

void measurement_list_init(struct measurement_list *l)
{
	l->m = NULL;
	l->n = 0;
	l->alloc = 0;
}

void measurement_list_release(struct measurement_list *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->m[i].region);
		free(l->m[i].metric);
	}
	free(l->m);
	measurement_list_init(l);
}

void measurement_list_add(struct measurement_list *l, int rank, const char *region,
			  const char *metric, double value)
{
	XGROW(l->m, (size_t)l->n + 1, l->alloc);
	l->m[l->n].rank = rank;
	l->m[l->n].region = xstrdup(region);
	l->m[l->n].metric = xstrdup(metric);
	l->m[l->n].value = value;
	l->n++;
}
