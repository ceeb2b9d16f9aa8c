/*
 * perfsweep import: turn existing measurements into a campaign store that
 * model, validate and export can use.  Sources: a folder of Score-P
 * experiment directories (--cube), or an Extra-P text, JSON or JSON Lines
 * file.  Every (point, repetition) becomes one done run of backend
 * "import"; its measurements carry rank -1 (already aggregated).
 */
#include "common/clock.h"
#include "collectors/cubex.h"
#include "collectors/extrap_json.h"
#include "collectors/extrap_text.h"
#include "collectors/region_match.h"
#include "collectors/scorep_dir.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/deps.h"
#include "designs/plan.h"
#include "cli/cli.h"
#include "orchestrator/campaign_lock.h"
#include "orchestrator/store.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* Split "a,b,c" into a NULL-terminated array (caller frees each and the array). */
static char **split_list(const char *s, int *n)
{
	char **v = NULL;
	size_t alloc = 0;
	*n = 0;
	const char *p = s;
	while (*p) {
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

/* A plan of npoints points (coords row-major) with reps[p] repetitions each. */
static void build_plan(struct plan *pl, int nparams, char *const *names, int npoints, const double *coords,
		       const int *reps)
{
	memset(pl, 0, sizeof(*pl));
	pl->nparams = nparams;
	pl->params = xcalloc((size_t)nparams + 1, sizeof(*pl->params));
	for (int k = 0; k < nparams; k++) {
		struct plan_param *pp = &pl->params[k];
		pp->name = xstrdup(names[k]);
		pp->values = xmalloc(sizeof(double) * (size_t)(npoints + 1));
		pp->is_int = 1;
		for (int p = 0; p < npoints; p++) {
			double v = coords[(size_t)p * nparams + k];
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
	pl->npoints = npoints;
	pl->points = xcalloc((size_t)npoints + 1, sizeof(*pl->points));
	for (int p = 0; p < npoints; p++) {
		struct plan_point *pt = &pl->points[p];
		pt->values = xmalloc(sizeof(double) * (size_t)(nparams + 1));
		memcpy(pt->values, &coords[(size_t)p * nparams], sizeof(double) * (size_t)nparams);
		pt->repetitions = reps[p];
		pt->reason = xstrdup("imported");
		pl->runs += reps[p];
	}
}

struct import_src {
	/* cube */
	struct scorep_scan scan;
	char **metrics;
	int nmetrics;
	enum cubex_aggr aggr;
	int *run_of;            /* per plan point: index of its first scan run */
	struct measurement_list *mls;   /* per scan run, read before the store is created */
	/* files */
	struct experiment e;
	int is_cube;
};

/* Measurements of one imported run: point p, repetition rep (1-based). */
static int run_measurements(struct import_src *s, int p, int rep, struct measurement_list *ml)
{
	if (s->is_cube) {
		const struct measurement_list *src = &s->mls[s->run_of[p] + rep - 1];
		for (int i = 0; i < src->n; i++)
			measurement_list_add(ml, src->m[i].rank, src->m[i].region, src->m[i].metric, src->m[i].value);
		return 0;
	}
	const struct experiment *e = &s->e;
	for (int i = 0; i < e->nseries; i++) {
		const struct exp_values *v = &e->series[i].at[p];
		if (v->n >= rep)
			measurement_list_add(ml, -1, e->callpaths[e->series[i].callpath],
					     e->metrics[e->series[i].metric], v->v[rep - 1]);
	}
	return 0;
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

static void print_match(const struct region_match *m, const struct deps *d, int verbose)
{
	printf("dependencies: %d of %d regions matched a function of %s\n", m->nmatched_regions,
	       m->nmatched_regions + m->nunmatched_regions, d->path ? d->path : "the dependency file");
	for (int i = 0; i < m->nunmatched_regions; i++)
		printf("  unmatched region: %s (%s)\n", m->unmatched_regions[i], m->unmatched_reasons[i]);
	int show = verbose ? m->nunmatched_funcs : 8;
	printf("  %d dependency functions are not in the profile", m->nunmatched_funcs);
	for (int i = 0; i < m->nunmatched_funcs && i < show; i++)
		printf("%s%s", i ? ", " : ": ", m->unmatched_funcs[i]->demangled ? m->unmatched_funcs[i]->demangled
										    : m->unmatched_funcs[i]->name);
	printf("%s\n", m->nunmatched_funcs > show ? ", ... (--verbose lists all)" : "");
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cube", required_argument, NULL, 'c' },
		{ "text", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "jsonl", required_argument, NULL, 'l' },
		{ "out", required_argument, NULL, 'o' },
		{ "deps", required_argument, NULL, 'd' },
		{ "params", required_argument, NULL, 'p' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "aggregate", required_argument, NULL, 'a' },
		{ "name", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *src = NULL, *kind = NULL, *out = NULL, *deps_path = NULL, *params = NULL,
		   *metrics = NULL, *aggr = "mean", *name = NULL;
	int quiet = 0, verbose = 0, c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c': case 't': case 'j': case 'l':
			if (src)
				return cli_usage("import", "give one source: --cube, --text, --json or --jsonl");
			src = optarg;
			kind = c == 'c' ? "cube" : c == 't' ? "text" : c == 'j' ? "json" : "jsonl";
			break;
		case 'o': out = optarg; break;
		case 'd': deps_path = optarg; break;
		case 'p': params = optarg; break;
		case 'm': metrics = optarg; break;
		case 'a': aggr = optarg; break;
		case 'n': name = optarg; break;
		case 'q': quiet = 1; break;
		case 'v': verbose = 1; break;
		case '?':
			if (optopt)
				return cli_usage("import", "option '%s' needs a value", argv[optind - 1]);
			/* fallthrough */
		default: return cli_usage("import", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return cli_usage("import", "unexpected argument '%s'", argv[optind]);
	if (!src)
		return cli_usage("import", "missing source: --cube DIR, --text FILE, --json FILE or --jsonl FILE");
	if (!out)
		return cli_usage("import", "missing --out CAMPAIGN_DIR");
	int ag = cubex_aggr_parse(aggr);
	if (ag < 0)
		return cli_usage("import", "unknown aggregation '%s'; use mean, sum, max or min", aggr);
	if (strcmp(kind, "cube") && (metrics || strcmp(aggr, "mean")))
		return cli_usage("import", "--metrics and --aggregate apply to --cube only");
	if (!*out)
		return cli_usage("import", "--out is empty; give a campaign directory");
	/* the campaign lock, held until import exits: never beside a `run` */
	struct campaign_lock lock = { -1 };
	struct perr lerr;
	if (access(out, F_OK) == 0 && campaign_lock_take(&lock, out, &lerr))
		return cli_error(EXIT_USAGE, "%s", lerr.msg);
	char *db = xasprintf("%s/campaign.db", out);
	int exists = access(db, F_OK) == 0;
	free(db);
	if (exists)
		return cli_error(EXIT_USAGE, "'%s' already holds a campaign; import into a new directory", out);

	struct perr err = { "" };
	struct import_src s;
	memset(&s, 0, sizeof(s));
	experiment_init(&s.e);
	s.aggr = (enum cubex_aggr)ag;
	int nsel = 0;
	char **sel = params ? split_list(params, &nsel) : NULL;
	struct plan pl;
	memset(&pl, 0, sizeof(pl));
	struct store *st = NULL;
	struct deps d;
	memset(&d, 0, sizeof(d));
	int have_deps = 0, rc = EXIT_USAGE;
	double t0 = wall_now();

	if (deps_path) {
		if (deps_read(&d, deps_path, &err) < 0)
			goto fail;
		have_deps = 1;
	}
	int nparams, npoints;
	char **pnames;
	double *coords = NULL;
	int *reps = NULL;
	if (!strcmp(kind, "cube")) {
		s.is_cube = 1;
		if (scorep_dir_scan(&s.scan, src, sel, nsel, &err) < 0)
			goto fail;
		if (metrics)
			s.metrics = split_list(metrics, &s.nmetrics);
		else if (default_metrics(&s, &err) < 0)
			goto fail;
		nparams = s.scan.nparams;
		pnames = s.scan.params;
		coords = xmalloc(sizeof(double) * (size_t)(s.scan.nruns * nparams + 1));
		reps = xcalloc((size_t)s.scan.nruns + 1, sizeof(int));
		s.run_of = xcalloc((size_t)s.scan.nruns + 1, sizeof(int));
		npoints = 0;
		for (int i = 0; i < s.scan.nruns; i++) {
			const double *v = s.scan.runs[i].values;
			if (npoints && !memcmp(v, &coords[(size_t)(npoints - 1) * nparams], sizeof(double) * nparams)) {
				reps[npoints - 1]++;
				continue;
			}
			memcpy(&coords[(size_t)npoints * nparams], v, sizeof(double) * (size_t)nparams);
			s.run_of[npoints] = i;
			reps[npoints++] = 1;
		}
	} else {
		int r = !strcmp(kind, "text") ? extrap_text_read(&s.e, src, &err)
			: !strcmp(kind, "json") ? extrap_json_read(&s.e, src, &err)
						: extrap_jsonl_read(&s.e, src, &err);
		if (r < 0)
			goto fail;
		for (int q = 0; q < nsel; q++)
			if (q >= s.e.nparams || strcmp(sel[q], s.e.params[q])) {
				perr_set(&err, "%s: --params %s does not match the file's parameters", src, params);
				goto fail;
			}
		if (sel && nsel != s.e.nparams) {
			perr_set(&err, "%s: --params %s does not match the file's %d parameters", src, params,
				 s.e.nparams);
			goto fail;
		}
		nparams = s.e.nparams;
		pnames = s.e.params;
		npoints = s.e.npoints;
		coords = xmalloc(sizeof(double) * (size_t)(npoints * nparams + 1));
		memcpy(coords, s.e.coords, sizeof(double) * (size_t)(npoints * nparams));
		reps = xcalloc((size_t)npoints + 1, sizeof(int));
		for (int i = 0; i < s.e.nseries; i++)
			for (int p = 0; p < npoints; p++)
				if (s.e.series[i].at[p].n > reps[p])
					reps[p] = s.e.series[i].at[p].n;
		for (int p = 0; p < npoints; p++)
			if (reps[p] == 0)
				reps[p] = 1;
	}
	if (s.is_cube) {
		/* read every profile first: a bad one fails the import before anything is written */
		s.mls = xcalloc((size_t)s.scan.nruns + 1, sizeof(*s.mls));
		for (int i = 0; i < s.scan.nruns; i++) {
			struct cubex cx;
			measurement_list_init(&s.mls[i]);
			if (cubex_open(&cx, s.scan.runs[i].profile, &err) < 0) {
				free(coords);
				free(reps);
				goto fail;
			}
			int r = cubex_collect(&cx, s.metrics, s.nmetrics, s.aggr, 0, &s.mls[i], &err);
			cubex_release(&cx);
			if (r < 0) {
				free(coords);
				free(reps);
				goto fail;
			}
		}
	}
	build_plan(&pl, nparams, pnames, npoints, coords, reps);
	free(coords);
	free(reps);

	char *campaign = NULL;
	if (name) {
		campaign = xstrdup(name);
	} else {
		size_t l = strlen(src);
		while (l > 1 && src[l - 1] == '/')
			l--;
		char *tmp = xstrndup(src, l);
		const char *b = strrchr(tmp, '/');
		campaign = xstrdup(b ? b + 1 : tmp);
		free(tmp);
	}
	if (lock.fd < 0 && campaign_lock_take(&lock, out, &err)) {
		free(campaign);
		goto fail;
	}
	char *cfg = xasprintf("# imported by perfsweep import --%s %s\n", kind, src);
	int crc = store_create(&st, out, campaign, "import", cfg, &pl, &err);
	free(cfg);
	if (crc < 0) {
		free(campaign);
		goto fail;
	}
	store_set_meta(st, "import_source", src, NULL);
	store_set_meta(st, "import_format", kind, NULL);
	if (s.is_cube)
		store_set_meta(st, "import_aggregate", cubex_aggr_name(s.aggr), NULL);
	struct run *runs;
	int nruns;
	if (store_load_runs(st, 0, &runs, &nruns, &err) < 0) {
		free(campaign);
		goto fail;
	}
	long long nmeas = 0;
	for (int i = 0; i < nruns; i++) {
		struct measurement_list ml;
		measurement_list_init(&ml);
		double t = wall_now();
		if (run_measurements(&s, runs[i].point, runs[i].repetition, &ml) < 0 ||
		    store_mark_submitted(st, runs[i].id, "import", t, &err) < 0 ||
		    store_mark_done(st, runs[i].id, t, 0, -1, &ml, NULL, &err) < 0) {
			measurement_list_release(&ml);
			runs_free(runs, nruns);
			free(campaign);
			goto fail;
		}
		nmeas += ml.n;
		measurement_list_release(&ml);
	}
	runs_free(runs, nruns);
	struct experiment loaded;
	experiment_init(&loaded);
	if (store_load_experiment(st, NULL, &loaded, &err) < 0) {
		experiment_release(&loaded);
		free(campaign);
		goto fail;
	}
	if (!quiet) {
		printf("imported %d runs at %d points of %s (", nruns, pl.npoints, campaign);
		for (int k = 0; k < pl.nparams; k++)
			printf("%s%s", k ? ", " : "", pl.params[k].name);
		printf("): %d call paths, %d metrics, %lld measurements into %s in %.2f s\n", loaded.ncallpaths,
		       loaded.nmetrics, nmeas, out, wall_now() - t0);
	}
	free(campaign);
	if (have_deps) {
		char abs[PATH_MAX];
		store_set_meta(st, "deps", realpath(deps_path, abs) ? abs : deps_path, NULL);
		struct region_match m;
		if (region_match(&m, &loaded, &d, &err) < 0) {
			experiment_release(&loaded);
			goto fail;
		}
		if (!quiet)
			print_match(&m, &d, verbose);
		region_match_release(&m);
	}
	experiment_release(&loaded);
	rc = EXIT_OK;
	goto done;
fail:
	cli_error(EXIT_USAGE, "%s", err.msg);
done:
	if (st)
		store_close(st);
	plan_release(&pl);
	if (have_deps)
		deps_release(&d);
	free_list(sel, nsel);
	free_list(s.metrics, s.nmetrics);
	free(s.run_of);
	if (s.mls)
		for (int i = 0; i < s.scan.nruns; i++)
			measurement_list_release(&s.mls[i]);
	free(s.mls);
	scorep_scan_release(&s.scan);
	experiment_release(&s.e);
	return rc;
}
