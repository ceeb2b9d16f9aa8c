/* Live flags (validator noise and growth tests) and the `v` validation for the monitor. */
#include "tui/flags.h"
#include "common/clock.h"
#include "common/point_text.h"
#include "collectors/experiment.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "analysis/run_usage.h"
#include "analysis/validation.h"
#include "validator/contention.h"
#include "validator/noise.h"
#include "validator/report.h"
#include "validator/validate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void flag_point_text(const struct experiment *e, int p, char *buf, size_t n)
{
	double x[64];
	int np = e->nparams < 64 ? e->nparams : 64;
	for (int k = 0; k < np; k++)
		x[k] = experiment_coord(e, p, k);
	struct strbuf sb;
	strbuf_init(&sb);
	point_text(&sb, (const char *const *)e->params, x, np, " ");
	snprintf(buf, n, "%s", sb.buf);
	strbuf_release(&sb);
}

static int cmp_cov(const void *a, const void *b)
{
	double x = ((const struct top_flag_point *)a)->cov, y = ((const struct top_flag_point *)b)->cov;
	return (x < y) - (x > y);
}

static int cmp_growth(const void *a, const void *b)
{
	double x = ((const struct top_flag_growth *)a)->growth;
	double y = ((const struct top_flag_growth *)b)->growth;
	return (x < y) - (x > y);
}

static void add_noisy(struct top_flags *f, const struct top_flag_point *fp)
{
	if (f->nlines < TOP_FLAGS_MAX_LINES) {
		f->lines[f->nlines++] = *fp;
		return;
	}
	int mild = 0;   /* keep the worst ones: replace the mildest */
	for (int i = 1; i < f->nlines; i++)
		if (f->lines[i].cov < f->lines[mild].cov)
			mild = i;
	if (fp->cov > f->lines[mild].cov)
		f->lines[mild] = *fp;
}

/* Contention: growth with ranks per node, by the validator's growth test and thresholds. */
static int growth_flags(const struct experiment *e, struct top_flags *f, struct perr *err)
{
	int rpn = experiment_find_param(e, VALIDATE_RPN_PARAM);
	if (rpn < 0)
		return 0;
	f->rpn_varies = 1;
	struct validate_options vo;
	validate_options_init(&vo);
	for (int s = 0; s < e->nseries; s++) {
		const struct exp_series *se = &e->series[s];
		struct growth_test g;
		int t = growth_test_run(e, se, rpn, 1, &vo.model, &g, err);
		if (t < 0) {
			growth_test_release(&g);
			return -1;
		}
		if (t > 0 && g.p_value < vo.alpha && g.growth >= vo.min_growth &&
		    f->ngrowth < TOP_FLAGS_MAX_LINES) {
			struct top_flag_growth *fg = &f->growth[f->ngrowth++];
			snprintf(fg->region, sizeof(fg->region), "%s %s", e->callpaths[se->callpath],
				 e->metrics[se->metric]);
			fg->growth = g.growth;
			fg->p_value = g.p_value;
			fg->xmin = g.xmin;
			fg->xmax = g.xmax;
		}
		growth_test_release(&g);
	}
	qsort(f->growth, (size_t)f->ngrowth, sizeof(f->growth[0]), cmp_growth);
	return 0;
}

int top_flags_compute(struct store *st, double cov, int min_reps, struct top_flags *f,
		      struct perr *err)
{
	struct experiment e;
	struct run_usage u;
	experiment_init(&e);
	/* the runs validate reads: disturbed ones left out */
	int rc = run_usage_load(st, NULL, 0, &e, &u, err);
	run_usage_release(&u);
	if (rc < 0) {
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
			double cv = noise_cov(v);
			if (!isnan(cv) && cv > worst[p]) {
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
		flag_point_text(&e, p, pt, sizeof(pt));
		const struct exp_series *se = &e.series[series_of[p]];
		snprintf(fp.where, sizeof(fp.where), "%s: %s %s", pt, e.callpaths[se->callpath],
			 e.metrics[se->metric]);
		add_noisy(f, &fp);
	}
	qsort(f->lines, (size_t)f->nlines, sizeof(f->lines[0]), cmp_cov);
	free(worst);
	free(series_of);
	free(reps);
	free(enough);
	rc = growth_flags(&e, f, err);
	experiment_release(&e);
	return rc;
}

struct flags_state {
	double cov;
	int min_reps;
	struct top_flags f;
	double took;
};

static int flags_task(struct store *st, void *state, struct perr *err)
{
	struct flags_state *s = state;
	double t0 = wall_now();
	int rc = top_flags_compute(st, s->cov, s->min_reps, &s->f, err);
	s->took = wall_now() - t0;
	return rc;
}

struct store_task *top_flags_start(const char *dir, double cov, int min_reps, struct perr *err)
{
	struct flags_state *s = xcalloc(1, sizeof(*s));
	s->cov = cov;
	s->min_reps = min_reps;
	return store_task_start(dir, flags_task, s, err);
}

void top_flags_result(const struct store_task *t, struct top_flags *f, double *took)
{
	const struct flags_state *s = store_task_state(t);
	*f = s->f;
	*took = s->took;
}

void top_flags_summary(const struct top_flags *f, char *buf, size_t n)
{
	int off;
	if (!f->computed)
		off = snprintf(buf, n, "computing (they read every run's usage)");
	else if (!f->npoints)
		off = snprintf(buf, n, "no point has %d repetitions yet", TOP_FLAGS_MIN_REPS);
	else if (!f->nnoisy)
		off = snprintf(buf, n, "0 of %d points above CoV %.2g", f->npoints, TOP_FLAGS_COV);
	else
		off = snprintf(buf, n, "%d of %d point%s above CoV %.2g (worst %.2f at %s)", f->nnoisy,
			       f->npoints, f->npoints == 1 ? "" : "s", TOP_FLAGS_COV, f->lines[0].cov,
			       f->lines[0].where);
	if (f->ngrowth && off > 0 && (size_t)off < n) {
		/* the contention indication goes first: it is the rarer and graver one */
		char *noise = xstrdup(buf), more[32] = "";
		if (f->ngrowth > 1)
			snprintf(more, sizeof(more), " (+%d more)", f->ngrowth - 1);
		snprintf(buf, n, "%s grows %+.0f%% with ranks per node%s; %s", f->growth[0].region,
			 100 * f->growth[0].growth, more, noise);
		free(noise);
	}
}


static void add_line(struct top_lines *l, const char *s, size_t len)
{
	l->v = xrealloc(l->v, sizeof(*l->v) * (size_t)(l->n + 1));
	l->v[l->n++] = xstrndup(s, len);
}

/* The text report, one line each. */
static void report_lines(const struct validation *v, struct top_lines *lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	report_text(f, v);
	fclose(f);
	for (char *s = buf; s && *s;) {
		char *nl = strchr(s, '\n');
		size_t l = nl ? (size_t)(nl - s) : strlen(s);
		add_line(lines, s, l);
		s = nl ? nl + 1 : s + l;
	}
	free(buf);
}

int top_validate(const char *dir, struct top_lines *lines, char *title, size_t n, struct perr *err)
{
	struct campaign_validation c;
	struct campaign_validation_options o = { .format = "campaign", .campaign_deps = 1 };
	validate_options_init(&o.vo);
	top_lines_release(lines);
	int ret = campaign_validate(&c, dir, &o, err);
	if (ret == 0 && !c.validated) {
		snprintf(title, n, "validate: no measurements yet");
	} else if (ret == 0) {
		report_lines(&c.v, lines);
		snprintf(title, n, "validate: %s, %d flag%s, %d blocking (%.160s)",
			 validation_publishable(&c.v) ? "publishable" : "blocked", c.v.nflags,
			 c.v.nflags == 1 ? "" : "s", c.v.nblocking, c.in.deps_note);
	}
	campaign_validation_release(&c);
	return ret;
}
