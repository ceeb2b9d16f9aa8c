/* A campaign's runs as analysis reads them: the disturbed ones left out (run_usage.h). */
#include "analysis/run_usage.h"
#include "campaign/config.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "models/points.h"
#include "validator/validate.h"
#include <libconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void run_usage_rule(struct store *st, struct disturbed_rule *rule)
{
	disturbed_rule_init(rule);
	char *text = store_get_meta(st, "config");
	if (!text)
		return;
	config_t cfg;
	config_init(&cfg);
	const config_setting_t *s;
	/* config_load checked it when the campaign ran */
	if (config_read_string(&cfg, text) == CONFIG_TRUE &&
	    (s = config_lookup(&cfg, "analysis.min_cpu_share")) && config_setting_is_number(s))
		rule->min_cpu_share = config_number(s);
	config_destroy(&cfg);
	free(text);
}

/* The resource rows as the rule reads them. */
static struct disturbed_usage *usages(const struct run_usage_row *rows, int n)
{
	struct disturbed_usage *u = xcalloc((size_t)n + 1, sizeof(*u));
	for (int i = 0; i < n; i++) {
		const struct run_resource *r = &rows[i].r;
		u[i] = (struct disturbed_usage){
			.run = rows[i].run, .point = rows[i].point, .repetition = rows[i].repetition,
			.rank = r->rank, .ranks = rows[i].ranks, .cpu = r->utime + r->stime, .wall = r->wall,
			.allowed = r->allowed_share, .nivcsw = r->nivcsw,
		};
	}
	return u;
}

static int judge_rows(struct store *st, int flags, struct disturbed_result *res, struct run_usage_row **rows,
		      int *nrows, struct perr *err)
{
	struct disturbed_rule rule;
	memset(res, 0, sizeof(*res));
	run_usage_rule(st, &rule);
	if (store_load_analysed_resources(st, flags, rows, nrows, err) < 0)
		return -1;
	struct disturbed_usage *u = usages(*rows, *nrows);
	disturbed_judge(&rule, u, *nrows, res);
	free(u);
	return 0;
}

int run_usage_judge(struct store *st, int flags, struct disturbed_result *res, struct perr *err)
{
	struct run_usage_row *rows = NULL;
	int n = 0;
	int rc = judge_rows(st, flags, res, &rows, &n, err);
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
	if (judge_rows(st, flags, &s->disturbed, &rows, &n, err) < 0)
		return -1;
	s->nivcsw_median = s->disturbed.median_rate;
	double *share = xmalloc(sizeof(double) * ((size_t)n + 1));
	int nshare = 0;
	for (int lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && rows[hi].run == rows[lo].run; hi++)
			if (rows[hi].r.maxrss_kb > s->maxrss_kb)
				s->maxrss_kb = rows[hi].r.maxrss_kb;
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
	int lo = 0;
	while (lo < nrows && rows[lo].run < run)
		lo++;
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

int run_usage_load(struct store *st, const char *metric, int flags, struct experiment *e, struct run_usage *u,
		   struct perr *err)
{
	memset(u, 0, sizeof(*u));
	struct run_usage_row *rows = NULL;
	int nrows = 0;
	if (judge_rows(st, flags, &u->disturbed, &rows, &nrows, err) < 0)
		return -1;
	const struct disturbed_result *d = &u->disturbed;
	long long *ids = xcalloc((size_t)d->n + 1, sizeof(*ids));
	int *points = xcalloc((size_t)d->n + 1, sizeof(int));
	for (int i = 0; i < d->n; i++)
		ids[i] = d->runs[i].run;        /* by id, as the rule lists them */
	struct store_leave_out lo = { ids, d->n, points };
	struct exp_runs map = { NULL, 0, 0 };
	int rc = store_load_experiment_leaving_out(st, metric, flags, &lo, e, &map, err);
	if (!rc) {
		for (int i = 0; i < d->n; i++)
			u->disturbed.runs[i].point = points[i];
		if (nrows) {
			u->point_share = point_shares(e, &map, rows, nrows);
			u->table = usage_table(e, &map, &u->disturbed, rows, nrows);
		}
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
