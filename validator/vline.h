/*
 * Parameter lines of an experiment: the sets of points along which one
 * parameter varies while every other parameter stays fixed.  The checks
 * (contention, segmented behaviour) look at measurements along lines.
 *
 * Invariants: a line's points are distinct and sorted by ascending
 * coordinate of its parameter; only lines with at least two points are
 * returned; lines are ordered by their smallest point index, so the result
 * is a pure function of the experiment.
 */
#ifndef PS_VLINE_H
#define PS_VLINE_H
#include "collectors/experiment.h"

struct vline {
	int param;              /* the parameter that varies */
	int npoints;
	int *points;            /* indices into the experiment's points */
};

/*
 * All lines along parameter param (points where every other parameter has
 * the same coordinate).  Returns the number of lines; *lines is an array
 * to free with vlines_free (NULL when there are none).
 */
int vlines_find(const struct experiment *e, int param, struct vline **lines);
void vlines_free(struct vline *lines, int n);

#endif
