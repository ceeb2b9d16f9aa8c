/* perfsweep import's engine: read every source, plan it, store it as done runs. */
#include "analysis/import.h"
#include "campaign/campaign_lock.h"
#include "collectors/scorep_dir.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include "designs/plan.h"
#include "campaign/store.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sources, all read before anything is written. */
struct import_src {
	const struct import_options *o;
	char **params;                  /* o->params split */
	int nparams_sel;
	struct experiment e;            /* files: the measurements */
	int is_profiles;
	struct scorep_scan scan;        /* profiles: the experiment directories */
	char **metrics;                 /* profiles: the metrics read */
	int nmetrics;
	int *run_of;                    /* per plan point: index of its first scan run */
	struct measurement_list *mls;   /* per scan run */
	/* the plan's points */
	int nparams, npoints;
	char **pnames;
	double *coords;
	int *reps;
};

/* Split "a,b,c" into a NULL-terminated array (caller frees each and the array). */
static char **split_list(const char *s, int *n)
{
	char **v = NULL;
	size_t alloc = 0;
	*n = 0;
	for (const char *p = s; p && *p;) {
		const char *q = strchr(p, ',');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (len) {
			XGROW(v, (size_t)*n + 2, alloc);
			v[(*n)++] = xstrndup(p, len);
		}
		p += len + (q ? 1 : 0);
	}
	if (v)
		v[*n] = NULL;
	return v;
}

static void free_list(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One plan parameter: the distinct values of column k, sorted. */
static void plan_param(struct plan_param *pp, const char *name, const struct import_src *s, int k)
{
	pp->name = xstrdup(name);
	pp->values = xmalloc(sizeof(double) * (size_t)(s->npoints + 1));
	pp->is_int = 1;
	for (int p = 0; p < s->npoints; p++) {
		double v = s->coords[(size_t)p * s->nparams + k];
		int dup = 0;
		for (int j = 0; j < pp->nvalues; j++)
			dup |= pp->values[j] == v;
		if (!dup)
			pp->values[pp->nvalues++] = v;
		if (v != floor(v) || fabs(v) > 1e15)
			pp->is_int = 0;
	}
	qsort(pp->values, (size_t)pp->nvalues, sizeof(double), cmp_double);
}

/* A plan of the sources' points with their repetitions. */
static void build_plan(struct plan *pl, const struct import_src *s)
{
	memset(pl, 0, sizeof(*pl));
	pl->nparams = s->nparams;
	pl->params = xcalloc((size_t)s->nparams + 1, sizeof(*pl->params));
	for (int k = 0; k < s->nparams; k++)
		plan_param(&pl->params[k], s->pnames[k], s, k);
	pl->npoints = s->npoints;
	pl->points = xcalloc((size_t)s->npoints + 1, sizeof(*pl->points));
	for (int p = 0; p < s->npoints; p++) {
		struct plan_point *pt = &pl->points[p];
		pt->values = xmalloc(sizeof(double) * (size_t)(s->nparams + 1));
		memcpy(pt->values, &s->coords[(size_t)p * s->nparams], sizeof(double) * (size_t)s->nparams);
		pt->repetitions = s->reps[p];
		pt->reason = xstrdup("imported");
		pl->runs += s->reps[p];
	}
}

/* All metrics with data in the first profile, as the default selection. */
static int default_metrics(struct import_src *s, struct perr *err)
{
	struct cubex c;
	if (cubex_open(&c, s->scan.runs[0].profile, err) < 0)
		return -1;
	size_t alloc = 0;
	for (int m = 0; m < c.nmetrics; m++)
		if (c.metrics[m].has_data && c.metrics[m].kind != CUBEX_DERIVED) {
			XGROW(s->metrics, (size_t)s->nmetrics + 2, alloc);
			s->metrics[s->nmetrics++] = xstrdup(c.metrics[m].name);
		}
	cubex_release(&c);
	if (!s->nmetrics)
		return perr_set(err, "%s: no metric has data", s->scan.runs[0].profile);
	return 0;
}

/* Every profile's measurements: a bad one fails the import before anything is written. */
static int read_profiles(struct import_src *s, struct perr *err)
{
	s->mls = xcalloc((size_t)s->scan.nruns + 1, sizeof(*s->mls));
	for (int i = 0; i < s->scan.nruns; i++)
		measurement_list_init(&s->mls[i]);
	for (int i = 0; i < s->scan.nruns; i++) {
		struct cubex cx;
		if (cubex_open(&cx, s->scan.runs[i].profile, err) < 0)
			return -1;
		int r = cubex_collect(&cx, s->metrics, s->nmetrics, s->o->aggr, 0, &s->mls[i], err);
		cubex_release(&cx);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Profiles: the scan's runs, consecutive runs with equal values one point. */
static int load_profiles(struct import_src *s, struct perr *err)
{
	const struct import_options *o = s->o;
	s->is_profiles = 1;
	if (scorep_dir_scan(&s->scan, o->source, s->params, s->nparams_sel, err) < 0)
		return -1;
	if (o->metrics)
		s->metrics = split_list(o->metrics, &s->nmetrics);
	else if (default_metrics(s, err) < 0) {
		return -1;
	}
	int n = s->nparams = s->scan.nparams;
	s->pnames = s->scan.params;
	s->coords = xmalloc(sizeof(double) * (size_t)(s->scan.nruns * n + 1));
	s->reps = xcalloc((size_t)s->scan.nruns + 1, sizeof(int));
	s->run_of = xcalloc((size_t)s->scan.nruns + 1, sizeof(int));
	for (int i = 0; i < s->scan.nruns; i++) {
		const double *v = s->scan.runs[i].values;
		if (s->npoints && !memcmp(v, &s->coords[(size_t)(s->npoints - 1) * n], sizeof(double) * n)) {
			s->reps[s->npoints - 1]++;
			continue;
		}
		memcpy(&s->coords[(size_t)s->npoints * n], v, sizeof(double) * (size_t)n);
		s->run_of[s->npoints] = i;
		s->reps[s->npoints++] = 1;
	}
	return read_profiles(s, err);
}

/* --params against a file's own parameters: the same names in the same order. */
static int check_params(const struct import_src *s, struct perr *err)
{
	const struct import_options *o = s->o;
	for (int q = 0; q < s->nparams_sel; q++)
		if (q >= s->e.nparams || strcmp(s->params[q], s->e.params[q]))
			return perr_set(err, "%s: --params %s does not match the file's parameters", o->source,
					o->params);
	if (s->params && s->nparams_sel != s->e.nparams)
		return perr_set(err, "%s: --params %s does not match the file's %d parameters", o->source,
				o->params, s->e.nparams);
	return 0;
}

/* Files: the registry's reader; each point's repetitions are its runs. */
static int load_file(struct import_src *s, struct perr *err)
{
	struct input_source src;
	input_source_init(&src);
	int rc = input_load(&src, s->o->source, s->o->format->name, NULL, &s->e, err);
	input_source_release(&src);
	if (rc < 0 || check_params(s, err) < 0)
		return -1;
	int n = s->nparams = s->e.nparams;
	s->pnames = s->e.params;
	s->npoints = s->e.npoints;
	s->coords = xmalloc(sizeof(double) * (size_t)(s->npoints * n + 1));
	memcpy(s->coords, s->e.coords, sizeof(double) * (size_t)(s->npoints * n));
	s->reps = xcalloc((size_t)s->npoints + 1, sizeof(int));
	for (int i = 0; i < s->e.nseries; i++)
		for (int p = 0; p < s->npoints; p++)
			if (s->e.series[i].at[p].n > s->reps[p])
				s->reps[p] = s->e.series[i].at[p].n;
	for (int p = 0; p < s->npoints; p++)
		if (s->reps[p] == 0)
			s->reps[p] = 1;
	return 0;
}

/* Measurements of one imported run: point p, repetition rep (1-based). */
static void run_measurements(const struct import_src *s, int p, int rep, struct measurement_list *ml)
{
	if (s->is_profiles) {
		const struct measurement_list *src = &s->mls[s->run_of[p] + rep - 1];
		for (int i = 0; i < src->n; i++)
			measurement_list_add(ml, src->m[i].rank, src->m[i].region, src->m[i].metric, src->m[i].value);
		return;
	}
	const struct experiment *e = &s->e;
	for (int i = 0; i < e->nseries; i++) {
		const struct exp_values *v = &e->series[i].at[p];
		if (v->n >= rep)
			measurement_list_add(ml, -1, e->callpaths[e->series[i].callpath],
					     e->metrics[e->series[i].metric], v->v[rep - 1]);
	}
}

/* Every planned run: submitted and done with its measurements. */
static int store_runs(struct store *st, const struct import_src *s, struct import_result *r,
		      struct perr *err)
{
	struct run *runs;
	int nruns;
	if (store_load_runs(st, 0, &runs, &nruns, err) < 0)
		return -1;
	int rc = 0;
	for (int i = 0; i < nruns && !rc; i++) {
		struct measurement_list ml;
		measurement_list_init(&ml);
		double t = wall_now();
		run_measurements(s, runs[i].point, runs[i].repetition, &ml);
		if (store_mark_submitted(st, runs[i].id, "import", t, err) < 0 ||
		    store_mark_done(st, runs[i].id, t, 0, -1, &ml, NULL, err) < 0)
			rc = -1;
		r->nmeasurements += ml.n;
		measurement_list_release(&ml);
	}
	r->nruns = nruns;
	runs_free(runs, nruns);
	return rc;
}

/* The source's base name, without trailing slashes. */
static char *base_name(const char *src)
{
	size_t l = strlen(src);
	while (l > 1 && src[l - 1] == '/')
		l--;
	char *tmp = xstrndup(src, l);
	const char *b = strrchr(tmp, '/');
	char *name = xstrdup(b ? b + 1 : tmp);
	free(tmp);
	return name;
}

/* Create the store with the plan and the import's metadata. */
static int create_store(struct store **st, const struct import_src *s, const struct plan *pl,
			struct import_result *r, struct perr *err)
{
	const struct import_options *o = s->o;
	r->campaign = o->name ? xstrdup(o->name) : base_name(o->source);
	char *cfg = xasprintf("# imported by perfsweep import --%s %s\n", o->label, o->source);
	int rc = store_create(st, o->out, r->campaign, "import", cfg, pl, err);
	free(cfg);
	if (rc < 0)
		return -1;
	store_set_meta(*st, "import_source", o->source, NULL);
	store_set_meta(*st, "import_format", o->label, NULL);
	if (s->is_profiles)
		store_set_meta(*st, "import_aggregate", cubex_aggr_name(o->aggr), NULL);
	r->npoints = pl->npoints;
	r->nparams = pl->nparams;
	r->params = xcalloc((size_t)pl->nparams + 1, sizeof(char *));
	for (int k = 0; k < pl->nparams; k++)
		r->params[k] = xstrdup(pl->params[k].name);
	return 0;
}

/* What the store now holds, and the dependency file matched against it. */
static int describe(struct store *st, const struct import_options *o, struct import_result *r,
		    struct perr *err)
{
	struct experiment loaded;
	experiment_init(&loaded);
	int rc = store_load_experiment(st, NULL, &loaded, err);
	r->ncallpaths = loaded.ncallpaths;
	r->nmetrics = loaded.nmetrics;
	if (!rc && r->have_deps) {
		char abs[PATH_MAX];
		store_set_meta(st, "deps", realpath(o->deps_path, abs) ? abs : o->deps_path, NULL);
		rc = region_match(&r->match, &loaded, &r->d, err);
		if (rc < 0)
			r->have_deps = 0, deps_release(&r->d);
	}
	experiment_release(&loaded);
	return rc;
}

static void src_release(struct import_src *s)
{
	free_list(s->params, s->nparams_sel);
	free_list(s->metrics, s->nmetrics);
	free(s->run_of);
	if (s->mls)
		for (int i = 0; i < s->scan.nruns; i++)
			measurement_list_release(&s->mls[i]);
	free(s->mls);
	free(s->coords);
	free(s->reps);
	scorep_scan_release(&s->scan);
	experiment_release(&s->e);
}

int import_campaign(const struct import_options *o, struct import_result *r, struct perr *err)
{
	memset(r, 0, sizeof(*r));
	/* the campaign lock, for the whole import: never beside a `run`; taken
	   now on an existing directory, else just before the store is made */
	struct campaign_lock lock = { -1 };
	if (access(o->out, F_OK) == 0 && campaign_lock_take(&lock, o->out, err))
		return -1;
	char *db = xasprintf("%s/campaign.db", o->out);
	int exists = access(db, F_OK) == 0;
	free(db);
	if (exists) {
		campaign_lock_release(&lock);
		return perr_set(err, "'%s' already holds a campaign; import into a new directory", o->out);
	}
	if (o->format->flags & INPUT_STORE)
		return perr_set(err, "'%s' is a campaign already: nothing to import", o->source);
	if (o->deps_path) {
		if (deps_read(&r->d, o->deps_path, err) < 0)
			return -1;
		r->have_deps = 1;
	}
	struct import_src s = { .o = o };
	s.params = o->params ? split_list(o->params, &s.nparams_sel) : NULL;
	struct plan pl;
	struct store *st = NULL;
	memset(&pl, 0, sizeof(pl));
	experiment_init(&s.e);
	int rc = (o->format->flags & INPUT_PROFILES) ? load_profiles(&s, err) : load_file(&s, err);
	if (!rc) {
		build_plan(&pl, &s);
		rc = lock.fd < 0 && campaign_lock_take(&lock, o->out, err) ? -1
									   : create_store(&st, &s, &pl, r, err);
	}
	if (!rc)
		rc = store_runs(st, &s, r, err);
	if (!rc)
		rc = describe(st, o, r, err);
	if (st)
		store_close(st);
	plan_release(&pl);
	src_release(&s);
	campaign_lock_release(&lock);
	return rc;
}

void import_result_release(struct import_result *r)
{
	free(r->campaign);
	for (int k = 0; k < r->nparams; k++)
		free(r->params[k]);
	free(r->params);
	if (r->have_deps) {
		region_match_release(&r->match);
		deps_release(&r->d);
	}
	memset(r, 0, sizeof(*r));
}
