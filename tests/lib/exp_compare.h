/*
 * Semantic comparison of two experiments, for round-trip checks of the
 * Extra-P formats and the campaign store: the same parameters (in order),
 * the same set of points, call paths and metrics (order-insensitive), and
 * for every call path, metric and point the same repetition values,
 * bit for bit, in the same order.
 */
#ifndef PS_EXP_COMPARE_H
#define PS_EXP_COMPARE_H
#include "collectors/experiment.h"
#include <stddef.h>

/* 0 when equal; otherwise 1 and a description of the first difference in why. */
int experiment_compare(const struct experiment *a, const struct experiment *b, char *why, size_t n);

#endif
