/*
 * Live measurement flags for the monitor: which design points are already
 * noisy.  Until the validator library provides its checks, this computes the
 * one indication the monitor needs from the store's measurements: the design
 * points where some region and metric has a coefficient of variation above a
 * threshold over at least min_reps repetitions.  top_flags_compute is the
 * single place to swap for the validator.
 */
#ifndef PS_TUI_FLAGS_H
#define PS_TUI_FLAGS_H
#include "common/error.h"
#include "orchestrator/store.h"

#define TOP_FLAGS_COV 0.1
#define TOP_FLAGS_MIN_REPS 3
#define TOP_FLAGS_MAX_LINES 64

struct top_flag_point {
	char where[192];        /* "p=4 n=1000: main->solve time" */
	double cov;
	int reps;
};

struct top_flags {
	int computed;           /* 0 until the first computation */
	long long done;         /* done runs when computed (kept by the caller) */
	int npoints;            /* points with enough repetitions */
	int nnoisy;             /* of those, points above the threshold */
	int nlines;
	struct top_flag_point lines[TOP_FLAGS_MAX_LINES];   /* worst first */
};

/* Compute the flags from every done run's measurements (f->done is left 0). */
int top_flags_compute(struct store *st, double cov, int min_reps, struct top_flags *f,
		      struct perr *err);
/* One line: "3 of 12 points above CoV 0.1 (worst 0.31 at ...)" or why none. */
void top_flags_summary(const struct top_flags *f, char *buf, size_t n);

#endif
