/* The input-format registry: readers, detectors and writers of every measurement format. */
#include "analysis/input.h"
#include "collectors/extrap_json.h"
#include "collectors/extrap_text.h"
#include "collectors/region_match.h"
#include "collectors/scorep_dir.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "campaign/campaign_config.h"
#include "campaign/store.h"
#include "validator/reference.h"
#include <errno.h>
#include <stdio.h>
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
	s->min_share = NAN;
}

void input_source_release(struct input_source *s)
{
	free(s->title);
	free(s->placements);
	free(s->rpn_name);
	free(s->aggregate);
	free(s->deps_path);
	for (int i = 0; i < s->nunmodelled; i++)
		free(s->unmodelled[i]);
	free(s->unmodelled);
	if (s->usage)
		run_usage_release(s->usage);
	free(s->usage);
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
	if (experiment_better(e, m) != EXP_BETTER_UNSAID)
		experiment_set_better(&out, metric, experiment_better(e, m));
	for (int c = 0; c < e->ncallpaths; c++) {
		const struct exp_series *s = experiment_series(e, c, m);
		if (!s)
			continue;
		int oc = experiment_callpath(&out, e->callpaths[c]);
		if (experiment_resolution(e, c, m) > 0)
			experiment_set_resolution(&out, e->callpaths[c], metric, experiment_resolution(e, c, m));
		for (int p = 0; p < e->npoints; p++)
			for (int r = 0; r < s->at[p].n; r++)
				experiment_add(&out, oc, om, p, s->at[p].v[r]);
	}
	experiment_release(e);
	*e = out;
	return 0;
}

/* "2" or "1,2": the distinct ranks per node the done runs of one placement really had, or "-". */
static void real_rpn_text(struct strbuf *sb, const struct run *runs, int n, const int *group, int g,
			  const struct run_rpn *rr, int nrr)
{
	size_t at = sb->len;
	int seen[8], nseen = 0;
	for (int j = 0; j < n; j++) {
		if (group[j] != g || runs[j].state != RUN_DONE)
			continue;
		const struct run_rpn *r = run_rpn_find(rr, nrr, runs[j].id);
		if (!r || r->real <= 0)
			continue;
		int dup = 0;
		for (int k = 0; k < nseen; k++)
			dup |= seen[k] == r->real;
		if (dup || nseen == 8)
			continue;
		seen[nseen++] = r->real;
		strbuf_addf(sb, "%s%d", sb->len > at ? "," : "", r->real);
	}
	if (sb->len == at)
		strbuf_addstr(sb, "-");
}

/*
 * The distinct placements of a campaign's runs, one line each with its run
 * count, and the ranks per node the ranks' stored bindings show they really
 * had ("-": no binding names a node).
 */
static char *placement_table(struct store *st, struct perr *err)
{
	struct run *runs;
	struct run_rpn *rr;
	int n, nrr;
	if (store_load_runs(st, 0, &runs, &n, err) < 0)
		return NULL;
	if (store_load_run_rpn(st, 0, &rr, &nrr, err) < 0) {
		runs_free(runs, n);
		return NULL;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addstr(&sb, "nodes  ranks  ranks/node  policy      runs  done  bound ranks/node\n");
	int *group = xcalloc((size_t)(n ? n : 1), sizeof(int));
	for (int i = 0; i < n; i++) {
		if (group[i])
			continue;
		int count = 0, done = 0;
		for (int j = i; j < n; j++) {
			const char *pa = runs[i].policy ? runs[i].policy : "-";
			const char *pb = runs[j].policy ? runs[j].policy : "-";
			if (group[j] || runs[j].nodes != runs[i].nodes || runs[j].ranks != runs[i].ranks ||
			    runs[j].ranks_per_node != runs[i].ranks_per_node || strcmp(pa, pb))
				continue;
			group[j] = i + 1;
			count++;
			done += runs[j].state == RUN_DONE;
		}
		strbuf_addf(&sb, "%5d  %5d  %10d  %-10s  %4d  %4d  ", runs[i].nodes, runs[i].ranks,
			    runs[i].ranks_per_node, runs[i].policy ? runs[i].policy : "-", count, done);
		real_rpn_text(&sb, runs, n, group, i + 1, rr, nrr);
		strbuf_addch(&sb, '\n');
	}
	free(group);
	free(rr);
	runs_free(runs, n);
	return strbuf_detach(&sb);
}

/*
 * What the config the campaign ran with says about its analysis: the
 * aggregate and min_share into s, which way its listed metrics are better
 * and its collectors' resolutions into e, and its dependency file into s
 * (campaign_config.h).  A stored config that
 * does not load is an error, not a silent default.
 */
/* The model = false parameters of config c, swept then derived (copies). */
static void unmodelled_of(const struct campaign_config *c, char ***names, int *n)
{
	*names = xcalloc((size_t)(c->nparams + c->nderived + 1), sizeof(char *));
	*n = 0;
	for (int k = 0; c->unmodelled && k < c->nparams + c->nderived; k++)
		if (c->unmodelled[k])
			(*names)[(*n)++] = xstrdup(k < c->nparams ? c->params[k].name : c->derived[k - c->nparams].name);
}

void input_leave_out(struct experiment *e, char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		experiment_drop_param(e, experiment_find_param(e, names[i]));
}

int campaign_unmodelled(struct store *st, char ***names, int *n, struct perr *err)
{
	struct campaign_config c;
	int rc = campaign_open_config(st, &c, err);
	*names = NULL;
	*n = 0;
	if (rc == 0)
		unmodelled_of(&c, names, n);
	config_release(&c);
	return rc < 0 ? -1 : 0;
}

int campaign_leave_out_unmodelled(struct store *st, struct experiment *e, struct perr *err)
{
	char **names;
	int n;
	if (campaign_unmodelled(st, &names, &n, err))
		return -1;
	input_leave_out(e, names, n);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return 0;
}

static int campaign_analysis(struct store *st, struct input_source *s, struct experiment *e,
			     struct perr *err)
{
	static const enum exp_better way[2] = { EXP_BETTER_LOWER, EXP_BETTER_HIGHER };
	struct campaign_config c;
	int rc = campaign_open_config(st, &c, err);
	if (rc == 0) {
		if (c.aggregate)
			s->aggregate = xstrdup(c.aggregate);
		s->min_share = c.min_share;
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < c.nbetter[k]; i++)
				experiment_set_better(e, c.better[k][i], way[k]);
		unmodelled_of(&c, &s->unmodelled, &s->nunmodelled);
		for (int i = 0; i < c.nregex; i++)      /* the noise check's step (validator/noise.h) */
			if (c.regex[i].resolution > 0)
				experiment_set_resolution(e, c.regex[i].region, c.regex[i].metric, c.regex[i].resolution);
		s->min_share = c.min_share;
	}
	config_release(&c);
	if (rc < 0 || campaign_deps_path(st, &s->deps_path, err) < 0)
		return -1;
	return 0;
}

static int read_campaign(struct input_source *s, const char *path, const struct input_request *rq,
			 struct experiment *e, struct perr *err)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode))
		return perr_set(err, "'%s' is not a campaign directory", path);
	struct store *st;
	if (store_open(&st, path, STORE_READONLY, err) < 0)
		return -1;
	/* the disturbed runs are left out of every analysis (docs/validation.md) */
	s->usage = xcalloc(1, sizeof(*s->usage));
	int rc = run_usage_load_view(st, rq->metric, rq->include_retired ? STORE_INCLUDE_RETIRED : 0, rq->view, e,
				     s->usage, err);
	if (!rc) {
		s->title = store_get_meta(st, "name");
		rc = campaign_analysis(st, s, e, err);
	}
	if (!rc) {
		/* the contention axis: ranks per node, else threads per rank */
		for (int pass = 0; pass < 2 && !s->rpn_name; pass++)
			for (int k = 0; k < store_nparams(st) && !s->rpn_name; k++)
				if (store_param_role(st, k) &&
				    !strcmp(store_param_role(st, k), pass ? "threads" : "ranks_per_node"))
					s->rpn_name = xstrdup(store_param_name(st, k));
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

static int read_scorep(struct input_source *s, const char *path, const struct input_request *rq,
		       struct experiment *e, struct perr *err)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode))
		return perr_set(err, "'%s' is not a directory of Score-P experiments", path);
	struct scorep_read_opts o = { .aggr = CUBEX_MEAN };
	char *m[1] = { (char *)rq->metric };
	if (rq->metric) {
		o.metrics = m;
		o.nmetrics = 1;
	}
	int rc = scorep_dir_read(e, path, &o, err);
	/* a directory that is neither: say both things it could have been */
	if (rc && rq->detected && err->kind == PERR_NOT_FOUND)
		return perr_set(err, "'%s' is not a campaign directory (no campaign.db) nor a folder of "
				"Score-P experiment directories", path);
	if (!rc)
		set_title(s, path);
	return rc;
}

/* The Extra-P files: one reader each, then the metric filter and the title. */
static int read_extrap(struct input_source *s, const char *path, const struct input_request *rq,
		       struct experiment *e, int (*reader)(struct experiment *, const char *, struct perr *),
		       const char *name, struct perr *err)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return perr_set(err, "'%s' is a directory, not %s", path, name);
	int rc = reader(e, path, err);
	if (!rc && rq->metric)
		rc = keep_metric(e, rq->metric, path, err);
	if (!rc)
		set_title(s, path);
	return rc;
}

static int read_text(struct input_source *s, const char *path, const struct input_request *rq,
		     struct experiment *e, struct perr *err)
{
	return read_extrap(s, path, rq, e, extrap_text_read, "an Extra-P text file", err);
}

static int read_json(struct input_source *s, const char *path, const struct input_request *rq,
		     struct experiment *e, struct perr *err)
{
	return read_extrap(s, path, rq, e, extrap_json_read, "an Extra-P json file", err);
}

static int read_jsonl(struct input_source *s, const char *path, const struct input_request *rq,
		      struct experiment *e, struct perr *err)
{
	return read_extrap(s, path, rq, e, extrap_jsonl_read, "an Extra-P jsonl file", err);
}

static int read_reference(struct input_source *s, const char *path, const struct input_request *rq,
			  struct experiment *e, struct perr *err)
{
	return read_extrap(s, path, rq, e, reference_read, "a perfsweep reference file", err);
}

static int detect_reference(const char *path, const struct stat *st)
{
	return !S_ISDIR(st->st_mode) && reference_detect(path);
}

static int write_text(FILE *f, const struct experiment *e, struct perr *err)
{
	return extrap_text_write(f, e, -1, err);
}

static int detect_campaign(const char *path, const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return 0;
	char *db = xasprintf("%s/campaign.db", path);
	int yes = access(db, F_OK) == 0;
	free(db);
	return yes;
}

static int detect_dir(const char *path, const struct stat *st)
{
	(void)path;
	return S_ISDIR(st->st_mode);
}

static int detect_jsonl(const char *path, const struct stat *st)
{
	return !S_ISDIR(st->st_mode) && has_suffix(path, ".jsonl");
}

/* .json, or a file without a known extension whose first non-blank byte opens JSON. */
static int detect_json(const char *path, const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return 0;
	if (has_suffix(path, ".json"))
		return 1;
	if (has_suffix(path, ".txt") || has_suffix(path, ".jsonl"))
		return 0;
	const char *why;
	int fd = fs_open_regular(path, 0, &why);   /* never blocks on a FIFO */
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f && fd >= 0)
		close(fd);
	int c = EOF;
	while (f && (c = getc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
		;
	if (f)
		fclose(f);
	return c == '{' || c == '[';
}

/* Detection: the first row whose detector agrees, in this order; a file no
   detector claims is in the format without one (Extra-P text). */
static const struct input_format formats[] = {
	{ "campaign", NULL, "a campaign directory", INPUT_DIR | INPUT_STORE, detect_campaign,
	  read_campaign, NULL },
	{ "scorep", "cube", "a folder of Score-P experiment directories", INPUT_DIR | INPUT_PROFILES,
	  detect_dir, read_scorep, NULL },
	{ "text", NULL, "an Extra-P text file", 0, NULL, read_text, write_text },
	{ "reference", NULL, "a perfsweep reference file", 0, detect_reference, read_reference,
	  reference_write },
	{ "json", NULL, "an Extra-P JSON file", 0, detect_json, read_json, extrap_json_write },
	{ "jsonl", NULL, "an Extra-P JSON-lines file", 0, detect_jsonl, read_jsonl, extrap_jsonl_write },
};

#define NFORMATS ((int)(sizeof(formats) / sizeof(formats[0])))

const struct input_format *input_format_at(int i)
{
	return i >= 0 && i < NFORMATS ? &formats[i] : NULL;
}

const struct input_format *input_format_find(const char *name)
{
	for (int i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, name) || (formats[i].alias && !strcmp(formats[i].alias, name)))
			return &formats[i];
	return NULL;
}

const struct input_format *input_format_detect(const char *path, struct perr *err)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		perr_set(err, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	const struct input_format *fallback = NULL;
	for (int i = 0; i < NFORMATS; i++) {
		if (!formats[i].detect)
			fallback = &formats[i];
		else if (formats[i].detect(path, &st))
			return &formats[i];
	}
	return fallback;
}

void input_format_names(char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < NFORMATS && off < n; i++) {
		int w = snprintf(buf + off, n - off, "%s%s", i == 0 ? "" : i == NFORMATS - 1 ? " or " : ", ",
				 formats[i].name);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

int input_load(struct input_source *s, const char *path, const char *format, const char *metric,
	       struct experiment *e, struct perr *err)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return perr_set(err, "cannot read '%s': %s", path, strerror(errno));
	const struct input_format *f = format ? input_format_find(format) : input_format_detect(path, err);
	if (!f && format) {
		char names[128];
		input_format_names(names, sizeof(names));
		return perr_set(err, "unknown input format '%s' (expected %s)", format, names);
	}
	if (!f)
		return -1;
	struct input_request rq = { .metric = metric, .detected = !format,
				    .include_retired = s->include_retired, .view = s->view };
	return f->read(s, path, &rq, e, err);
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

int input_data_load(struct input_data *in, const char *path, const char *format, const char *metric,
		    int include_retired, const struct run_usage_view *view, struct perr *err)
{
	memset(in, 0, sizeof(*in));
	experiment_init(&in->e);
	input_source_init(&in->src);
	in->src.include_retired = include_retired;
	in->src.view = view;
	snprintf(in->deps_note, sizeof(in->deps_note), "no dependency file");
	return input_load(&in->src, path, format, metric, &in->e, err);
}

void input_data_release(struct input_data *in)
{
	free(in->funcs);
	if (in->have_deps) {
		region_match_release(&in->match);
		deps_release(&in->d);
	}
	free(in->deps_path);
	input_source_release(&in->src);
	experiment_release(&in->e);
	memset(in, 0, sizeof(*in));
}
