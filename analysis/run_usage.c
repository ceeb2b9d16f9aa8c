/* A campaign's runs as analysis reads them: the disturbed ones left out (run_usage.h). */
#include "analysis/run_usage.h"
#include "campaign/campaign_config.h"
#include "collectors/regex_collect.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "models/points.h"
#include "validator/validate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void run_usage_rule(struct store *st, struct disturbed_rule *rule)
{
	disturbed_rule_init(rule);
	struct campaign_config c;
	struct perr err;
	/* config_load checked it when the campaign ran; imported stores have none */
	if (campaign_open_config(st, &c, &err) == 0 && !isnan(c.min_cpu_share))
		rule->min_cpu_share = c.min_cpu_share;
	config_release(&c);
}

/* The resource rows as the rule reads them, with their causes (rows and
   causes both by run, then rank); *held holds the causes (caller frees). */
static struct disturbed_usage *usages(const struct run_usage_row *rows, int n, const struct run_cause_row *cr,
				      int ncr, struct disturbed_cause **held)
{
	struct disturbed_usage *u = xcalloc((size_t)n + 1, sizeof(*u));
	struct disturbed_cause *dc = *held = xcalloc((size_t)ncr + 1, sizeof(*dc));
	int k = 0;
	for (int i = 0; i < n; i++) {
		const struct run_resource *r = &rows[i].r;
		u[i] = (struct disturbed_usage){
			.run = rows[i].run, .point = rows[i].point, .repetition = rows[i].repetition,
			.rank = r->rank, .ranks = rows[i].ranks, .cpu = r->utime + r->stime, .wall = r->wall,
			.allowed = r->allowed_share, .nivcsw = r->nivcsw, .run_delay = r->run_delay,
			.foreign = r->foreign, .steal = r->steal,
		};
		while (k < ncr && (cr[k].run < rows[i].run || (cr[k].run == rows[i].run && cr[k].c.rank < r->rank)))
			k++;
		u[i].causes = dc + k;
		for (; k < ncr && cr[k].run == rows[i].run && cr[k].c.rank == r->rank; k++) {
			dc[k].pid = cr[k].c.pid;
			memcpy(dc[k].comm, cr[k].c.comm, sizeof(dc[k].comm));
			dc[k].core = cr[k].c.core;
			dc[k].share = r->wall > 0 ? cr[k].c.seconds / r->wall : 0;
			u[i].ncauses++;
		}
	}
	return u;
}

/* Judge the analysed runs under the campaign's rule, or view's (may be NULL); *own gets the campaign's share. */
static int judge_rows(struct store *st, int flags, const struct run_usage_view *view, double *own,
		      struct disturbed_result *res, struct run_usage_row **rows, int *nrows, struct perr *err)
{
	struct disturbed_rule rule;
	memset(res, 0, sizeof(*res));
	run_usage_rule(st, &rule);
	if (own)
		*own = rule.min_cpu_share;
	if (view && view->set_min_cpu_share)
		rule.min_cpu_share = view->min_cpu_share;
	struct run_cause_row *cr = NULL;
	int ncr = 0;
	if (store_load_analysed_resources(st, flags, rows, nrows, err) < 0 ||
	    store_load_causes(st, 0, flags, &cr, &ncr, err) < 0) {
		free(*rows);
		*rows = NULL;
		*nrows = 0;
		return -1;
	}
	struct disturbed_cause *held;
	struct disturbed_usage *u = usages(*rows, *nrows, cr, ncr, &held);
	disturbed_judge(&rule, u, *nrows, res);
	free(u);
	free(held);
	free(cr);
	return 0;
}

int run_usage_judge(struct store *st, int flags, struct disturbed_result *res, struct perr *err)
{
	struct run_usage_row *rows = NULL;
	int n = 0;
	int rc = judge_rows(st, flags, NULL, NULL, res, &rows, &n, err);
	free(rows);
	return rc;
}

/* The CPU share of one run's ranks from its rows [lo, hi): the rank records, else the whole run's over its ranks. */
static int run_shares(const struct run_usage_row *rows, int lo, int hi, double *out)
{
	int n = 0;
	for (int i = lo; i < hi; i++)
		if (rows[i].r.rank >= 0 && isfinite(rows[i].r.cpu_share))
			out[n++] = rows[i].r.cpu_share;
	for (int i = lo; i < hi && !n; i++)
		if (rows[i].r.rank < 0 && isfinite(rows[i].r.cpu_share))
			out[n++] = rows[i].r.cpu_share / (rows[i].ranks > 1 ? rows[i].ranks : 1);
	return n;
}

int run_usage_summarise(struct store *st, int flags, struct run_usage_summary *s, struct perr *err)
{
	memset(s, 0, sizeof(*s));
	s->share_median = s->share_min = s->nivcsw_median = NAN;
	s->maxrss_kb = -1;
	struct run_usage_row *rows = NULL;
	int n = 0;
	if (judge_rows(st, flags, NULL, NULL, &s->disturbed, &rows, &n, err) < 0)
		return -1;
	s->nivcsw_median = s->disturbed.median_rate;
	double *share = xmalloc(sizeof(double) * ((size_t)n + 1));
	int nshare = 0;
	for (int lo = 0, hi; lo < n; lo = hi) {
		int census = 0;
		for (hi = lo; hi < n && rows[hi].run == rows[lo].run; hi++) {
			const struct run_resource *r = &rows[hi].r;
			if (r->maxrss_kb > s->maxrss_kb)
				s->maxrss_kb = r->maxrss_kb;
			census |= isfinite(r->foreign);
			if (r->rank < 0 && r->quiet_wait > 0) {
				s->quiet = xrealloc(s->quiet, sizeof(*s->quiet) * (size_t)(s->quiet_runs + 1));
				s->quiet[s->quiet_runs] = (struct run_usage_wait){ rows[hi].run, r->quiet_wait };
				s->quiet_runs++;
				s->quiet_wait += r->quiet_wait;
				s->quiet_wait_max = fmax(s->quiet_wait_max, r->quiet_wait);
			}
		}
		s->census += census;
		s->runs++;
		nshare += run_shares(rows, lo, hi, share + nshare);
	}
	s->share_median = values_median(share, nshare);
	for (int i = 0; i < nshare; i++)
		s->share_min = isnan(s->share_min) || share[i] < s->share_min ? share[i] : s->share_min;
	free(share);
	free(rows);
	return 0;
}

void run_usage_summary_release(struct run_usage_summary *s)
{
	disturbed_result_release(&s->disturbed);
	free(s->quiet);
	s->quiet = NULL;
}

/* Per experiment point, the median share of the ranks of its runs in map (the values kept). */
static double *point_shares(const struct experiment *e, const struct exp_runs *map,
			    const struct run_usage_row *rows, int nrows)
{
	double *share = xmalloc(sizeof(double) * (size_t)(e->npoints + 1));
	double **at = xcalloc((size_t)e->npoints + 1, sizeof(*at));
	int *nat = xcalloc((size_t)e->npoints + 1, sizeof(int));
	double *buf = xmalloc(sizeof(double) * (size_t)(nrows + 1));
	/* both by run id: the map lists a run's values together, the rows its ranks */
	long long last = -1;
	for (int i = 0, r = 0; i < map->n; i++) {
		const struct exp_run *x = &map->v[i];
		if (x->run == last)
			continue;
		last = x->run;
		while (r < nrows && rows[r].run < x->run)
			r++;
		int hi = r;
		while (hi < nrows && rows[hi].run == x->run)
			hi++;
		int k = run_shares(rows, r, hi, buf);
		at[x->point] = xrealloc(at[x->point], sizeof(double) * (size_t)(nat[x->point] + k + 1));
		memcpy(at[x->point] + nat[x->point], buf, sizeof(double) * (size_t)k);
		nat[x->point] += k;
	}
	for (int p = 0; p < e->npoints; p++) {
		share[p] = values_median(at[p], nat[p]);
		free(at[p]);
	}
	free(at);
	free(nat);
	free(buf);
	return share;
}

/* What the runs of one point used: appended to the point's lists. */
struct point_use {
	int runs, disturbed;
	int nshare, nrate;
	double *share, *rate;
	long long maxrss_kb;
};

static void use_run(struct point_use *pu, const struct run_usage_row *rows, int nrows, long long run, int disturbed)
{
	/* rows are by run id: the first of this run's by bisection, not a
	   walk from the start (which made the report quadratic in the runs) */
	int lo = 0, top = nrows;
	while (lo < top) {
		int mid = lo + (top - lo) / 2;
		if (rows[mid].run < run)
			lo = mid + 1;
		else
			top = mid;
	}
	int hi = lo;
	while (hi < nrows && rows[hi].run == run)
		hi++;
	if (lo == hi)
		return;
	pu->runs++;
	pu->disturbed += disturbed;
	pu->share = xrealloc(pu->share, sizeof(double) * (size_t)(pu->nshare + hi - lo + 1));
	pu->nshare += run_shares(rows, lo, hi, pu->share + pu->nshare);
	pu->rate = xrealloc(pu->rate, sizeof(double) * (size_t)(pu->nrate + hi - lo + 1));
	for (int i = lo; i < hi; i++) {
		const struct run_resource *r = &rows[i].r;
		if (r->maxrss_kb > pu->maxrss_kb)
			pu->maxrss_kb = r->maxrss_kb;
		if (r->nivcsw >= 0 && r->wall > 0 && (r->rank >= 0 || hi - lo == 1))
			pu->rate[pu->nrate++] = (double)r->nivcsw / r->wall;
	}
}

static double min_of(const double *v, int n)
{
	double m = NAN;
	for (int i = 0; i < n; i++)
		m = isnan(m) || v[i] < m ? v[i] : m;
	return m;
}

/* The per-point table of what the runs used (the HTML report's). */
static char *usage_table(const struct experiment *e, const struct exp_runs *map, const struct disturbed_result *d,
			 const struct run_usage_row *rows, int nrows)
{
	struct point_use *pu = xcalloc((size_t)e->npoints + 1, sizeof(*pu));
	long long last = -1;
	for (int i = 0; i < map->n; i++)
		if (map->v[i].run != last) {
			last = map->v[i].run;
			use_run(&pu[map->v[i].point], rows, nrows, last, 0);
		}
	for (int i = 0; i < d->n; i++)
		if (d->runs[i].point >= 0)
			use_run(&pu[d->runs[i].point], rows, nrows, d->runs[i].run, 1);
	struct strbuf sb, name;
	strbuf_init(&sb);
	strbuf_init(&name);
	strbuf_addstr(&sb, "point                         runs  disturbed  CPU share  min share  max RSS MB  "
			   "invol. switches/s\n");
	for (int p = 0; p < e->npoints; p++) {
		if (!pu[p].runs)
			continue;
		strbuf_reset(&name);
		validate_point_name(&name, e, p);
		strbuf_addf(&sb, "%-28s  %4d  %9d  %9.3f  %9.3f  %10.1f  %17.1f\n", name.buf, pu[p].runs,
			    pu[p].disturbed, values_median(pu[p].share, pu[p].nshare), min_of(pu[p].share, pu[p].nshare),
			    pu[p].maxrss_kb > 0 ? (double)pu[p].maxrss_kb / 1024 : NAN,
			    values_median(pu[p].rate, pu[p].nrate));
		free(pu[p].share);
		free(pu[p].rate);
	}
	for (int p = 0; p < e->npoints; p++)
		if (!pu[p].runs) {
			free(pu[p].share);
			free(pu[p].rate);
		}
	free(pu);
	strbuf_release(&name);
	return strbuf_detach(&sb);
}

/*
 * The regions' own CPU share (collect.regex with metric cpu_share) at each
 * point of e, the median over its regions and kept runs, into share (NaN
 * where none was collected); the runs in lo left out.  Returns how many
 * points have one.
 */
static int region_shares(struct store *st, int flags, const struct store_leave_out *lo,
			 const struct experiment *e, double *share)
{
	struct experiment cs;
	struct perr err;
	int found = 0;
	/* most campaigns collect none: no second read of every run's measurements */
	if (!store_has_metric(st, REGEX_CPU_SHARE_METRIC))
		return 0;
	experiment_init(&cs);
	struct store_leave_out keep = { lo->runs, lo->n, NULL };
	if (store_load_experiment_leaving_out(st, REGEX_CPU_SHARE_METRIC, flags, &keep, &cs, NULL, &err) == 0) {
		double *coords = xcalloc((size_t)e->nparams + 1, sizeof(double)), *v = NULL;
		for (int p = 0; p < e->npoints; p++) {
			share[p] = NAN;
			for (int k = 0; k < e->nparams; k++)
				coords[k] = experiment_coord(e, p, k);
			int q = cs.nparams == e->nparams ? experiment_find_point(&cs, coords) : -1;
			int n = 0;
			for (int s = 0; q >= 0 && s < cs.nseries; s++) {
				const struct exp_values *x = &cs.series[s].at[q];
				v = xrealloc(v, sizeof(double) * (size_t)(n + x->n + 1));
				memcpy(v + n, x->v, sizeof(double) * (size_t)x->n);
				n += x->n;
			}
			share[p] = values_median(v, n);
			found += n > 0;
		}
		free(coords);
		free(v);
	}
	experiment_release(&cs);
	return found;
}

int run_usage_load(struct store *st, const char *metric, int flags, struct experiment *e, struct run_usage *u,
		   struct perr *err)
{
	return run_usage_load_view(st, metric, flags, NULL, e, u, err);
}

int run_usage_load_view(struct store *st, const char *metric, int flags, const struct run_usage_view *view,
			struct experiment *e, struct run_usage *u, struct perr *err)
{
	memset(u, 0, sizeof(*u));
	struct run_usage_row *rows = NULL;
	int nrows = 0;
	if (judge_rows(st, flags, view, &u->campaign_min_cpu_share, &u->disturbed, &rows, &nrows, err) < 0)
		return -1;
	const struct disturbed_result *d = &u->disturbed;
	u->included = view && view->include_disturbed;
	long long *ids = xcalloc((size_t)d->n + 1, sizeof(*ids));
	int *points = xcalloc((size_t)d->n + 1, sizeof(int));
	for (int i = 0; i < d->n; i++) {
		ids[i] = d->runs[i].run;        /* by id, as the rule lists them */
		points[i] = -1;
	}
	struct store_leave_out lo = { ids, u->included ? 0 : d->n, points };
	struct exp_runs map = { NULL, 0, 0 };
	int rc = store_load_experiment_leaving_out(st, metric, flags, &lo, e, &map, err);
	if (!rc) {
		for (int i = 0; i < d->n; i++)
			u->disturbed.runs[i].point = points[i];
		if (nrows) {
			u->point_share = point_shares(e, &map, rows, nrows);
			u->table = usage_table(e, &map, &u->disturbed, rows, nrows);
		}
		/* a region's own share, where collected, leaves out what ran outside it */
		double *own = xmalloc(sizeof(double) * (size_t)(e->npoints + 1));
		if (region_shares(st, flags, &lo, e, own)) {
			if (!u->point_share)
				u->point_share = own;
			for (int p = 0; p < e->npoints && u->point_share != own; p++)
				if (isfinite(own[p]))
					u->point_share[p] = own[p];
		}
		if (u->point_share != own)
			free(own);
	}
	u->runs = map;          /* which run each kept value came from (compare pairs them) */
	free(ids);
	free(points);
	free(rows);
	return rc;
}

void run_usage_release(struct run_usage *u)
{
	disturbed_result_release(&u->disturbed);
	free(u->point_share);
	free(u->table);
	free(u->runs.v);
	memset(u, 0, sizeof(*u));
}
