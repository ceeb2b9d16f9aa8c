/*
 * A measurement is one value of one metric of one region, from one rank of
 * one run.  Collectors produce lists of them; the campaign store keeps them.
 * rank is -1 for a value already aggregated over ranks (e.g. the mean time
 * read from a Score-P profile).
 */
#ifndef PS_MEASUREMENT_H
#define PS_MEASUREMENT_H
#include <stddef.h>

struct measurement {
	int rank;
	char *region;           /* callpath, Extra-P notation: "main->foo" */
	char *metric;
	double value;
};

struct measurement_list {
	struct measurement *m;
	int n;
	size_t alloc;
};

void measurement_list_init(struct measurement_list *l);
void measurement_list_release(struct measurement_list *l);
void measurement_list_add(struct measurement_list *l, int rank, const char *region,
			  const char *metric, double value);

#endif
