/*
 * The validity report in three forms: a text summary (one line per flag,
 * then the verdict), the JSON contract for scripts, and a self-contained
 * HTML page (the checks table, and per region one SVG plot per parameter
 * line with repetitions, point estimates, outliers and models, drawn by
 * gnuplot; the contention study along its axis).
 *
 * JSON contract (stable):
 *   {"verdict": "publishable"|"blocked",
 *    "flags": [{"callpath", "metric", "kind", "parameter", "growth", "p_value", "detail"}],
 *    "regions": [{"callpath", "metric", "points", "modelled", "unreliable",
 *                 "max_cov", "noisy_points", "model", "constrained",
 *                 "dependencies", "excluded_parameters", "flags", "blocking"}],
 *    "checks": [{"callpath", "metric", "check", "parameter", "status", "reason"}],
 *    "selection": "robust"|"extrap", "aggregate": "mean"|"median"|"min"}
 * kind is one of noise, false-dependency, contention, segmented, volume,
 * oversubscribed; parameter, growth and p_value are null where they do not
 * apply; flags also carry cpu_share_first and cpu_share_last (the ranks'
 * CPU share at the parameter's ends, contention and oversubscribed; else
 * null); segmented flags also carry located, change_between [before,
 * after], model_before, model_after, p_before and p_after.  check
 * is one of noise, contention, false-dependency, segmented, volume,
 * extrapolation; status passed, flagged or not-testable.  Regions also
 * carry "outliers" ([{point, repetition, repetitions, value, ratio}]) and
 * "expected_volume" (null, or {expect, consistent, c0, c1, p_value}).
 * "disturbed" is null without resource records, else {judged, census,
 * min_cpu_share, median_nivcsw_per_s, median_nivcsw_per_cpu_s, runs: [{run,
 * point, repetition, rank, cpu_share, allowed_share, nivcsw_per_s,
 * nivcsw_per_cpu_s, taken, steal, by, causes: [{pid, command, core,
 * share}]}], remeasure: [{point, undisturbed, disturbed}], shared,
 * blocking}; by lists "foreign", "steal", "context_switches".
 */
#ifndef PS_REPORT_H
#define PS_REPORT_H
#include "common/error.h"
#include "validator/validate.h"
#include <jansson.h>
#include <stdio.h>

/* What the HTML page shows besides the validation (all optional). */
struct report_context {
	const char *title;              /* e.g. the campaign or input name */
	const char *input;              /* input path */
	const char *deps_path;          /* dependency file, or NULL */
	const char *placements;         /* preformatted placement table, or NULL */
	double core_hours_planned;      /* NaN when unknown */
	double core_hours_spent;        /* NaN when unknown */
	double budget_core_hours;       /* the campaign's stored budget; NaN when it has none */
	const char *resources;          /* preformatted table of what the runs used per point, or NULL */
	const char *gnuplot;            /* gnuplot program; NULL: "gnuplot" from PATH */
};

void report_context_init(struct report_context *c);

/* One line per flag, the contention-study summary, and the verdict line. */
void report_text(FILE *f, const struct validation *v);

/* The JSON document; the caller owns the reference (json_decref). */
json_t *report_json(const struct validation *v);

/*
 * Write the HTML report to path.  Plots are drawn with gnuplot (fork/exec,
 * no shell) into a private temporary directory and inlined.  Returns 0, or
 * -1 with err set (cannot write, gnuplot missing or failing).
 */
int report_html(const char *path, const struct validation *v, const struct report_context *c,
		struct perr *err);

/* One curve of a figure: its points (x[i], y[i]); non-finite ones are left out. */
struct report_curve {
	const char *name;
	int n;
	const double *x, *y;
};

/* A page of its own: a title, a preformatted text and one figure of curves. */
struct report_figure {
	const char *title;
	const char *text;               /* shown as it is (escaped), or NULL */
	const char *xlabel, *ylabel;
	const struct report_curve *curves;
	int ncurves;
	int logy;                       /* the y axis in log scale */
	const char *gnuplot;            /* gnuplot program; NULL: "gnuplot" from PATH */
};

/*
 * Write fig as a self-contained HTML page to path (plan --evaluate's
 * error against core-hours, one line per strategy).  Returns 0, or -1
 * with err set (cannot write, gnuplot missing or failing).
 */
int report_html_figure(const char *path, const struct report_figure *fig, struct perr *err);

#endif
