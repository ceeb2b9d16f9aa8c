/* Noise flags from the store's measurements (coefficient of variation per point). */
#include "tui/flags.h"
#include "collectors/experiment.h"
#include "common/xalloc.h"
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void point_text(const struct experiment *e, int p, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int k = 0; k < e->nparams && off + 1 < n; k++) {
		int w = snprintf(buf + off, n - off, "%s%s=%.6g", k ? " " : "", e->params[k],
				 experiment_coord(e, p, k));
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static int cmp_cov(const void *a, const void *b)
{
	double x = ((const struct top_flag_point *)a)->cov, y = ((const struct top_flag_point *)b)->cov;
	return (x < y) - (x > y);
}

int top_flags_compute(struct store *st, double cov, int min_reps, struct top_flags *f,
		      struct perr *err)
{
	struct experiment e;
	experiment_init(&e);
	if (store_load_experiment(st, NULL, &e, err) < 0) {
		experiment_release(&e);
		return -1;
	}
	memset(f, 0, sizeof(*f));
	f->computed = 1;
	/* worst coefficient of variation per point, over all series */
	double *worst = xcalloc((size_t)e.npoints + 1, sizeof(double));
	int *series_of = xcalloc((size_t)e.npoints + 1, sizeof(int));
	int *reps = xcalloc((size_t)e.npoints + 1, sizeof(int));
	char *enough = xcalloc((size_t)e.npoints + 1, 1);
	for (int p = 0; p < e.npoints; p++)
		worst[p] = -1;
	for (int s = 0; s < e.nseries; s++) {
		const struct exp_series *se = &e.series[s];
		for (int p = 0; p < e.npoints; p++) {
			const struct exp_values *v = &se->at[p];
			if (v->n < min_reps)
				continue;
			enough[p] = 1;
			double mean = gsl_stats_mean(v->v, 1, (size_t)v->n);
			if (mean == 0 || !isfinite(mean))
				continue;
			double cv = gsl_stats_sd_m(v->v, 1, (size_t)v->n, mean) / fabs(mean);
			if (isfinite(cv) && cv > worst[p]) {
				worst[p] = cv;
				series_of[p] = s;
				reps[p] = v->n;
			}
		}
	}
	for (int p = 0; p < e.npoints; p++) {
		if (!enough[p])
			continue;
		f->npoints++;
		if (worst[p] <= cov)
			continue;
		f->nnoisy++;
		struct top_flag_point fp = { .cov = worst[p], .reps = reps[p] };
		char pt[96];
		point_text(&e, p, pt, sizeof(pt));
		const struct exp_series *se = &e.series[series_of[p]];
		snprintf(fp.where, sizeof(fp.where), "%s: %s %s", pt, e.callpaths[se->callpath],
			 e.metrics[se->metric]);
		if (f->nlines < TOP_FLAGS_MAX_LINES) {
			f->lines[f->nlines++] = fp;
		} else {
			/* keep the worst ones: replace the mildest */
			int mild = 0;
			for (int i = 1; i < f->nlines; i++)
				if (f->lines[i].cov < f->lines[mild].cov)
					mild = i;
			if (fp.cov > f->lines[mild].cov)
				f->lines[mild] = fp;
		}
	}
	qsort(f->lines, (size_t)f->nlines, sizeof(f->lines[0]), cmp_cov);
	free(worst);
	free(series_of);
	free(reps);
	free(enough);
	experiment_release(&e);
	return 0;
}

void top_flags_summary(const struct top_flags *f, char *buf, size_t n)
{
	if (!f->computed)
		snprintf(buf, n, "not computed yet");
	else if (!f->npoints)
		snprintf(buf, n, "no point has %d repetitions yet", TOP_FLAGS_MIN_REPS);
	else if (!f->nnoisy)
		snprintf(buf, n, "0 of %d points above CoV %.2g", f->npoints, TOP_FLAGS_COV);
	else
		snprintf(buf, n, "%d of %d point%s above CoV %.2g (worst %.2f at %s)", f->nnoisy,
			 f->npoints, f->npoints == 1 ? "" : "s", TOP_FLAGS_COV, f->lines[0].cov,
			 f->lines[0].where);
}
