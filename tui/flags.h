/*
 * Live measurement flags for the monitor, from the validator library's
 * checks on the store's measurements as they arrive:
 *   - noise: design points where some region and metric has a coefficient
 *     of variation (validator noise_cov) above the threshold, counted once
 *     at least min_reps repetitions exist;
 *   - contention: regions whose measurements grow with ranks per node by at
 *     least VALIDATE's min_growth, significantly (validator growth test),
 *     once ranks per node varies.
 * top_validate runs the whole validator (perfsweep validate's code path)
 * for the `v` pane.
 */
#ifndef PS_TUI_FLAGS_H
#define PS_TUI_FLAGS_H
#include "common/error.h"
#include "campaign/store.h"
#include "tui/details.h"

#define TOP_FLAGS_COV 0.1
#define TOP_FLAGS_MIN_REPS 3
#define TOP_FLAGS_MAX_LINES 64

struct top_flag_point {
	char where[192];        /* "p=4 n=1000: main->solve time" */
	double cov;
	int reps;
};

struct top_flag_growth {
	char region[160];       /* "main->solve time" */
	double growth;          /* relative change over the ranks-per-node range */
	double p_value;
	double xmin, xmax;
};

struct top_flags {
	int computed;           /* 0 until the first computation */
	long long done;         /* done runs when computed (kept by the caller) */
	int npoints;            /* points with enough repetitions */
	int nnoisy;             /* of those, points above the threshold */
	int nlines;
	struct top_flag_point lines[TOP_FLAGS_MAX_LINES];   /* worst first */
	int rpn_varies;         /* ranks per node varies: the growth test ran */
	int ngrowth;
	struct top_flag_growth growth[TOP_FLAGS_MAX_LINES]; /* largest first */
};

/* Compute the flags from every done run's measurements (f->done is left 0). */
int top_flags_compute(struct store *st, double cov, int min_reps, struct top_flags *f,
		      struct perr *err);
/*
 * The same as a store task (store.h: a thread and a connection of its own
 * to dir's store; seconds on a 10^6-run store, which the monitor's keys
 * must not wait for).  Once store_task_poll says 0, top_flags_result gives
 * the flags and the seconds they took; store_task_stop ends it.  The
 * caller's own open checked the store.
 */
struct store_task *top_flags_start(const char *dir, double cov, int min_reps, struct perr *err);
void top_flags_result(const struct store_task *t, struct top_flags *f, double *took);

/* One line: "3 of 12 points above CoV 0.1 (worst 0.31 at ...)" or why none,
   then the strongest contention indication when there is one. */
void top_flags_summary(const struct top_flags *f, char *buf, size_t n);

/*
 * Run the validator on a campaign as `perfsweep validate DIR` does: load
 * the measurements, read the dependency file the stored config names
 * (resolved beside the campaign directory, as `perfsweep run` places it)
 * when it can be found, run every check, and put the text report in
 * lines.  title receives the verdict in one line.
 */
int top_validate(const char *dir, struct top_lines *lines, char *title, size_t n,
		 struct perr *err);

#endif
