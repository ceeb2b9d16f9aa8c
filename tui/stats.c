/* The header arithmetic of `perfsweep top`: run aggregates, progress, budget, elapsed time and ETA. */
#include "tui/stats.h"
#include "tui/model.h"
#include "common/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double run_duration(const struct run *r)
{
	if (r->wall > 0)
		return r->wall;
	if (r->ended_at > 0 && r->started_at > 0 && r->ended_at >= r->started_at)
		return r->ended_at - r->started_at;
	return -1;
}

/* Expected seconds of one run of point p (stats with nsum > 0). */
static double point_estimate(const struct top_stats *s, int p)
{
	if (p >= 0 && p < s->npoints && s->point_n[p])
		return s->point_sum[p] / (double)s->point_n[p];
	if (p >= 0 && p < s->npoints && s->point_plan[p] > 0 && s->ratio > 0)
		return s->point_plan[p] * s->ratio;
	return s->sum / (double)s->nsum;
}

/* Empty s for np points and nrows rows, keeping the point texts and the running array. */
static void stats_reset(struct top_stats *s, int np, size_t nrows)
{
	free(s->point_sum);
	free(s->point_n);
	free(s->point_plan);
	size_t *running = s->running;
	memset(s->n, 0, sizeof(s->n));
	memset(s->core_hours, 0, sizeof(s->core_hours));
	s->spent = s->first = s->last = s->sum = s->queued_work = 0;
	s->nsum = 0;
	s->npoints = np;
	s->point_sum = xcalloc((size_t)np + 1, sizeof(*s->point_sum));
	s->point_n = xcalloc((size_t)np + 1, sizeof(*s->point_n));
	s->point_plan = xcalloc((size_t)np + 1, sizeof(*s->point_plan));
	s->running = xrealloc(running, sizeof(*s->running) * (nrows ? nrows : 1));
	s->nrunning = 0;
	s->job_width = 3;
}

/* What one pass sums besides s: measured and planned seconds, queued runs per point. */
struct stats_pass {
	double measured, planned;
	long long *queued;
};

/* Add run r (row i) to s. */
static void stats_add(struct top_stats *s, const struct run *r, size_t i, struct stats_pass *ps)
{
	int st = (unsigned)r->state < RUN_NSTATES ? (int)r->state : RUN_PENDING;
	s->n[st]++;
	s->core_hours[st] += r->core_hours;
	s->spent += run_spent_core_hours(r);
	double t = r->submitted_at > 0 ? r->submitted_at : r->started_at;
	if (t > 0 && (s->first == 0 || t < s->first))
		s->first = t;
	if (r->ended_at > s->last)
		s->last = r->ended_at;
	if (r->started_at > s->last)
		s->last = r->started_at;
	double plan_s = run_planned_seconds(r);
	if (r->point >= 0)
		s->point_plan[r->point] = plan_s;
	if (st == RUN_DONE) {
		double d = run_duration(r);
		if (d >= 0 && r->point >= 0) {
			s->point_sum[r->point] += d;
			s->point_n[r->point]++;
			s->sum += d;
			s->nsum++;
			if (plan_s > 0) {
				ps->measured += d;
				ps->planned += plan_s;
			}
		}
	} else if ((st == RUN_PENDING || st == RUN_SUBMITTED) && r->point >= 0) {
		ps->queued[r->point]++;
	} else if (st == RUN_RUNNING) {
		s->running[s->nrunning++] = i;
	}
	if (r->backend_id) {
		int w = top_job_text_len(r->backend_id);
		if (w > s->job_width)
			s->job_width = w;
	}
}

/* One pass over every run: the aggregates the header and the ETA need. */
void top_stats_update(struct top_stats *s, const struct top_row *rows, size_t nrows)
{
	int np = 0;
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].run.point + 1 > np)
			np = rows[i].run.point + 1;
	stats_reset(s, np, nrows);
	struct stats_pass ps = { 0, 0, xcalloc((size_t)np + 1, sizeof(*ps.queued)) };
	for (size_t i = 0; i < nrows; i++)
		stats_add(s, &rows[i].run, i, &ps);
	s->ratio = ps.planned > 0 ? ps.measured / ps.planned : 0;
	if (s->nsum)
		for (int p = 0; p < np; p++)
			if (ps.queued[p])
				s->queued_work += (double)ps.queued[p] * point_estimate(s, p);
	free(ps.queued);
}

void top_stats_release(struct top_stats *s)
{
	free(s->point_sum);
	free(s->point_n);
	free(s->point_plan);
	free(s->running);
	for (int p = 0; p < s->npoint_text; p++)
		free(s->point_text[p]);
	free(s->point_text);
	memset(s, 0, sizeof(*s));
}

void top_model_progress(const struct top_model *m, struct top_progress *p)
{
	const long long *n = m->stats.n;
	memset(p, 0, sizeof(*p));
	p->pending = n[RUN_PENDING];
	p->submitted = n[RUN_SUBMITTED];
	p->running = n[RUN_RUNNING];
	p->done = n[RUN_DONE];
	p->failed = n[RUN_FAILED];
	p->cancelled = n[RUN_CANCELLED];
	p->retired = n[RUN_RETIRED];
	p->planned = (long long)m->nrows - p->retired;     /* retired runs left the plan */
	p->inflight = p->submitted + p->running;
	p->fraction = p->planned ? (double)(p->done + p->failed + p->cancelled) / (double)p->planned
				 : 0;
	for (size_t i = 0; i < m->nrows; i++)
		run_pass_add(&m->rows[i].run, &p->pass, &p->passes);
}

void top_model_budget(const struct top_model *m, struct top_budget *b)
{
	const double *ch = m->stats.core_hours;
	memset(b, 0, sizeof(*b));
	b->committed = ch[RUN_SUBMITTED] + ch[RUN_RUNNING];
	b->pending = ch[RUN_PENDING];
	for (int s = 0; s < RUN_NSTATES; s++)
		if (s != RUN_RETIRED)
			b->planned += ch[s];
	b->spent = m->stats.spent;
	b->budget = m->budget;
	if (b->budget >= 0) {
		double need = b->spent + b->committed + b->pending - b->budget;
		if (need > 0)
			b->over = need;
	}
}

double top_model_elapsed(const struct top_model *m)
{
	const struct top_stats *s = &m->stats;
	if (s->first == 0)
		return 0;
	int inflight = s->n[RUN_SUBMITTED] + s->n[RUN_RUNNING] > 0;
	double end = inflight && m->now > s->last ? m->now : s->last;
	return end > s->first ? end - s->first : 0;
}

double top_model_eta(const struct top_model *m)
{
	const struct top_stats *s = &m->stats;
	long long inflight = s->n[RUN_SUBMITTED] + s->n[RUN_RUNNING];
	if (s->n[RUN_PENDING] + inflight == 0)
		return 0;
	if (!s->nsum || !inflight)
		return -1;
	double work = s->queued_work;
	for (size_t i = 0; i < s->nrunning; i++) {
		const struct run *r = &m->rows[s->running[i]].run;
		double est = point_estimate(s, r->point);
		double e = top_run_elapsed(r, m->now);
		work += e > 0 ? (est > e ? est - e : 0) : est;
	}
	return work / (double)inflight;
}

void top_bar_split(const double *parts, int nparts, double total, int width, int *cells)
{
	double sum = 0;
	for (int i = 0; i < nparts; i++) {
		cells[i] = 0;
		if (parts[i] > 0)
			sum += parts[i];
	}
	if (width <= 0 || sum <= 0)
		return;
	if (total < sum)
		total = sum;
	double *ideal = xmalloc(sizeof(double) * (size_t)nparts);
	int used = 0;
	for (int i = 0; i < nparts; i++) {
		ideal[i] = parts[i] > 0 ? parts[i] / total * width : 0;
		cells[i] = (int)floor(ideal[i]);
		used += cells[i];
	}
	int target = (int)floor(sum / total * width + 0.5);
	if (target > width)
		target = width;
	while (used < target) {
		int best = -1;
		double rem = -1;
		for (int i = 0; i < nparts; i++)
			if (parts[i] > 0 && ideal[i] - cells[i] > rem) {
				rem = ideal[i] - cells[i];
				best = i;
			}
		if (best < 0)
			break;
		cells[best]++;
		used++;
	}
	for (int i = 0; i < nparts; i++) {
		if (parts[i] <= 0 || cells[i] > 0)
			continue;
		if (used < width) {
			cells[i]++;
			used++;
			continue;
		}
		int big = -1;
		for (int j = 0; j < nparts; j++)
			if (cells[j] > 1 && (big < 0 || cells[j] > cells[big]))
				big = j;
		if (big >= 0) {
			cells[big]--;
			cells[i]++;
		}
	}
	free(ideal);
}
