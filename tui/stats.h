/*
 * The arithmetic of `perfsweep top`'s header: aggregates over all runs,
 * recomputed in one pass when a refresh brings changes (never per draw),
 * progress against the plan, core hours against the budget, elapsed time
 * and the ETA.  Pure: no store, no curses.
 */
#ifndef PS_TUI_STATS_H
#define PS_TUI_STATS_H
#include "campaign/store.h"
#include <stddef.h>

struct top_model;
struct top_row;

/*
 * Aggregates over all runs: what the header shows, and the per-point mean
 * run times the ETA needs.
 */
struct top_stats {
	long long n[RUN_NSTATES];
	double core_hours[RUN_NSTATES];     /* planned cost of the runs in each state */
	double spent;           /* measured wall x ranks, as store_counts computes it */
	double first, last;     /* first submission, last start or end (Unix s), 0 if none */
	int npoints;
	double *point_sum;      /* per point: summed durations of done runs */
	long long *point_n;
	double sum;             /* over all points */
	long long nsum;
	double *point_plan;     /* per point: planned seconds of one run (0: no cost estimate) */
	double ratio;           /* measured / planned seconds over done runs, 0 if unknown */
	char **point_text;      /* per point: "p=4 n=1000", formatted once (by the model) */
	int npoint_text;
	double queued_work;     /* estimated seconds of the pending and submitted runs */
	size_t *running;        /* row indices of the running runs */
	size_t nrunning;
	int job_width;          /* widest job id as shown */
};

/* Progress against the plan, from the runs. */
struct top_progress {
	long long planned, pending, submitted, running, done, failed, cancelled;
	long long retired;      /* left the plan: not in planned */
	long long inflight;     /* submitted + running */
	double fraction;        /* finished (done + failed + cancelled) / planned */
	int pass, passes;       /* repetition pass of the first unfinished run (0: none left)
	                           and the number of passes */
};

/* Core hours: spent by finished runs, committed to runs in flight, planned for
   pending ones, and the budget (< 0 when the campaign has none). */
struct top_budget {
	double spent, committed, pending, planned, budget;
	double over;            /* spent + committed + pending - budget, when > 0 */
};

/* Recompute s from the nrows rows (point_text is left to the model). */
void top_stats_update(struct top_stats *s, const struct top_row *rows, size_t nrows);
/* Free s and leave it empty. */
void top_stats_release(struct top_stats *s);

void top_model_progress(const struct top_model *m, struct top_progress *p);
void top_model_budget(const struct top_model *m, struct top_budget *b);
/* Seconds since the first submission up to now (or to the last end when
   nothing is in flight); 0 before anything ran. */
double top_model_elapsed(const struct top_model *m);
/*
 * Estimated seconds until every pending and in-flight run is finished: the
 * remaining work divided by the runs in flight.  A run's work is the mean
 * measured time of its design point; for a point not measured yet, its
 * planned time (core hours / ranks) scaled by measured / planned over the
 * done runs, or without a plan the mean of all points; a running run counts
 * what is left of that.  0 when nothing remains, -1 when unknown (no run finished
 * yet, or nothing in flight).
 */
double top_model_eta(const struct top_model *m);

/*
 * Split width cells among parts proportionally to their share of total
 * (largest remainder), so the cells never exceed width and a non-zero part
 * gets at least one cell when there is room.  cells[] receives nparts counts.
 */
void top_bar_split(const double *parts, int nparts, double total, int width, int *cells);

#endif
