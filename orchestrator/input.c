/* Loading a command's input: campaign directory or Extra-P text file. */
#include "orchestrator/input.h"
#include "collectors/extrap_json.h"
#include "collectors/extrap_text.h"
#include "collectors/region_match.h"
#include "collectors/scorep_dir.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/store.h"
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void input_source_init(struct input_source *s)
{
	memset(s, 0, sizeof(*s));
	s->core_hours_planned = NAN;
	s->core_hours_spent = NAN;
	s->budget_core_hours = NAN;
}

void input_source_release(struct input_source *s)
{
	free(s->title);
	free(s->placements);
	free(s->aggregate);
	input_source_init(s);
}

/* Keep only one metric of a freshly read experiment (copying the values). */
static int keep_metric(struct experiment *e, const char *metric, const char *path, struct perr *err)
{
	int m = experiment_find_metric(e, metric);
	if (m < 0)
		return perr_set(err, "%s: no metric '%s'", path, metric);
	struct experiment out;
	experiment_init(&out);
	for (int k = 0; k < e->nparams; k++)
		experiment_param(&out, e->params[k]);
	for (int p = 0; p < e->npoints; p++)
		experiment_point(&out, &e->coords[(size_t)p * (size_t)e->nparams]);
	int om = experiment_metric(&out, metric);
	for (int c = 0; c < e->ncallpaths; c++) {
		const struct exp_series *s = experiment_series(e, c, m);
		if (!s)
			continue;
		int oc = experiment_callpath(&out, e->callpaths[c]);
		for (int p = 0; p < e->npoints; p++)
			for (int r = 0; r < s->at[p].n; r++)
				experiment_add(&out, oc, om, p, s->at[p].v[r]);
	}
	experiment_release(e);
	*e = out;
	return 0;
}

/* The distinct placements of a campaign's runs, one line each with its run count. */
static char *placement_table(struct store *st, struct perr *err)
{
	struct run *runs;
	int n;
	if (store_load_runs(st, 0, &runs, &n, err) < 0)
		return NULL;
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addstr(&sb, "nodes  ranks  ranks/node  policy      runs  done\n");
	int *seen = xcalloc((size_t)(n ? n : 1), sizeof(int));
	for (int i = 0; i < n; i++) {
		if (seen[i])
			continue;
		int count = 0, done = 0;
		for (int j = i; j < n; j++) {
			const char *pa = runs[i].policy ? runs[i].policy : "-";
			const char *pb = runs[j].policy ? runs[j].policy : "-";
			if (seen[j] || runs[j].nodes != runs[i].nodes || runs[j].ranks != runs[i].ranks ||
			    runs[j].ranks_per_node != runs[i].ranks_per_node || strcmp(pa, pb))
				continue;
			seen[j] = 1;
			count++;
			done += runs[j].state == RUN_DONE;
		}
		strbuf_addf(&sb, "%5d  %5d  %10d  %-10s  %4d  %4d\n", runs[i].nodes, runs[i].ranks,
			    runs[i].ranks_per_node, runs[i].policy ? runs[i].policy : "-", count, done);
	}
	free(seen);
	runs_free(runs, n);
	return strbuf_detach(&sb);
}

/* analysis.aggregate of the config stored with the campaign, or NULL. */
static char *stored_aggregate(struct store *st)
{
	char *text = store_get_meta(st, "config"), *out = NULL;
	config_t cfg;
	const char *a = NULL;
	if (!text)
		return NULL;
	config_init(&cfg);
	if (config_read_string(&cfg, text) == CONFIG_TRUE &&
	    config_lookup_string(&cfg, "analysis.aggregate", &a) == CONFIG_TRUE && a)
		out = xstrdup(a);
	config_destroy(&cfg);
	free(text);
	return out;
}

static int load_campaign(struct input_source *s, const char *path, const char *metric,
			 struct experiment *e, struct perr *err)
{
	struct store *st;
	if (store_open(&st, path, STORE_READONLY, err) < 0)
		return -1;
	int rc = store_load_experiment(st, metric, e, err);
	if (!rc) {
		s->title = store_get_meta(st, "name");
		s->aggregate = stored_aggregate(st);
		char *budget = store_get_meta(st, "budget_core_hours");
		if (budget && *budget)
			s->budget_core_hours = strtod(budget, NULL);
		free(budget);
		struct store_counts c;
		if (store_counts(st, &c, err) == 0) {
			s->core_hours_planned = c.core_hours_planned;
			s->core_hours_spent = c.core_hours_spent;
		}
		s->placements = placement_table(st, err);
		rc = s->placements ? 0 : -1;
	}
	store_close(st);
	return rc;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static void set_title(struct input_source *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	while (slash && !slash[1] && slash > path) {
		const char *p = slash - 1;
		while (p > path && *p != '/')
			p--;
		slash = *p == '/' ? p : NULL;
		if (!slash)
			break;
	}
	s->title = xstrdup(slash ? slash + 1 : path);
	size_t n = strlen(s->title);
	if (n > 1 && s->title[n - 1] == '/')
		s->title[n - 1] = 0;
}

int input_load(struct input_source *s, const char *path, const char *format, const char *metric,
	       struct experiment *e, struct perr *err)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return perr_set(err, "cannot read '%s': %s", path, strerror(errno));
	int autodetect = !format;
	if (!format) {
		if (S_ISDIR(st.st_mode)) {
			char *db = xasprintf("%s/campaign.db", path);
			format = access(db, F_OK) == 0 ? "campaign" : "scorep";
			free(db);
		} else {
			format = has_suffix(path, ".jsonl") ? "jsonl" : has_suffix(path, ".json") ? "json" : "text";
		}
	}
	int dir = S_ISDIR(st.st_mode);
	if (!strcmp(format, "campaign")) {
		if (!dir)
			return perr_set(err, "'%s' is not a campaign directory", path);
		return load_campaign(s, path, metric, e, err);
	}
	int rc;
	int detected = autodetect && dir;
	if (!strcmp(format, "scorep")) {
		if (!dir)
			return perr_set(err, "'%s' is not a directory of Score-P experiments", path);
		struct scorep_read_opts o = { .aggr = CUBEX_MEAN };
		char *m[1] = { (char *)metric };
		if (metric) {
			o.metrics = m;
			o.nmetrics = 1;
		}
		rc = scorep_dir_read(e, path, &o, err);
		/* a directory that is neither: say both things it could have been */
		if (rc && detected && strstr(err->msg, "no Score-P experiment directories"))
			return perr_set(err, "'%s' is not a campaign directory (no campaign.db) nor a folder of "
					"Score-P experiment directories", path);
	} else if (!strcmp(format, "text") || !strcmp(format, "json") || !strcmp(format, "jsonl")) {
		if (dir)
			return perr_set(err, "'%s' is a directory, not an Extra-P %s file", path, format);
		rc = !strcmp(format, "text") ? extrap_text_read(e, path, err) :
		     !strcmp(format, "json") ? extrap_json_read(e, path, err) : extrap_jsonl_read(e, path, err);
		if (!rc && metric)
			rc = keep_metric(e, metric, path, err);
	} else {
		return perr_set(err, "unknown input format '%s' (expected campaign, scorep, text, json or "
				"jsonl)", format);
	}
	if (!rc)
		set_title(s, path);
	return rc;
}

int input_match_regions(const struct experiment *e, const struct deps *d,
			const struct dep_function **funcs, struct region_match *m, struct perr *err)
{
	if (region_match(m, e, d, err) < 0)
		return -1;
	for (int c = 0; c < e->ncallpaths; c++)
		funcs[c] = m->func[c];
	return 0;
}
