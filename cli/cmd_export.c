/*
 * perfsweep export DIR --format extrap-text|csv|json|jsonl|reference [--out FILE]:
 * (csv rows of a campaign with bound ranks end with their node and cpuset)
 * a campaign's measurements as CSV (one row per run, rank, region and
 * metric) or in Extra-P's text, JSON and JSON-lines formats (one value per
 * repetition of every point, averaged over ranks).
 */
#include "collectors/experiment.h"
#include "collectors/extrap_json.h"
#include "cli/cli.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "analysis/input.h"
#include "campaign/store.h"
#include "campaign/template.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One CSV text field (RFC 4180): quoted when it holds a comma, a quote or
   a line break (or always), quotes doubled. */
static void csv_field(FILE *f, const char *s, int always)
{
	if (!always && !s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

/* jsonl lines of a bound campaign: "node" and "cpuset", per repetition value the ranks' own;
   of a campaign with resource records: "cpu_share", "maxrss_kb", "nivcsw" likewise. */
struct bind_notes {
	struct store *st;
	int bound, recorded;
	struct exp_runs runs;   /* sorted by callpath, metric, point, then run: the values' order */
};

static json_t *real_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *count_or_null(long long x)
{
	return x >= 0 ? json_integer(x) : json_null();
}

/* One repetition value's resource lists: its ranks' records in rank order (the whole run's without). */
static void resource_lists(struct store *st, long long run, json_t *share, json_t *rss, json_t *ivc)
{
	json_t *s = json_array(), *m = json_array(), *c = json_array();
	struct run_resource *rs;
	int nr, ranks = 0;
	struct perr err;
	if (!store_load_resources(st, run, &rs, &nr, &err)) {
		for (int q = 0; q < nr; q++)
			ranks += rs[q].rank >= 0;
		for (int q = 0; q < nr; q++) {
			if ((rs[q].rank >= 0) != (ranks > 0))
				continue;
			json_array_append_new(s, real_or_null(rs[q].cpu_share));
			json_array_append_new(m, count_or_null(rs[q].maxrss_kb));
			json_array_append_new(c, count_or_null(rs[q].nivcsw));
		}
		free(rs);
	}
	json_array_append_new(share, s);
	json_array_append_new(rss, m);
	json_array_append_new(ivc, c);
}

static int cmp_exp_run(const void *a, const void *b)
{
	const struct exp_run *x = a, *y = b;
	if (x->callpath != y->callpath)
		return x->callpath - y->callpath;
	if (x->metric != y->metric)
		return x->metric - y->metric;
	if (x->point != y->point)
		return x->point - y->point;
	return (x->run > y->run) - (x->run < y->run);
}

static void annotate_bindings(void *ctx, int callpath, int metric, int point, json_t *line)
{
	struct bind_notes *bn = ctx;
	struct exp_run key = { callpath, metric, point, -1 };
	int lo = 0, hi = bn->runs.n;
	while (lo < hi) {           /* the first entry of (callpath, metric, point) */
		int mid = (lo + hi) / 2;
		if (cmp_exp_run(&bn->runs.v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	json_t *nodes = json_array(), *cpusets = json_array();
	json_t *share = json_array(), *rss = json_array(), *ivc = json_array();
	for (int i = lo; i < bn->runs.n && bn->runs.v[i].callpath == callpath && bn->runs.v[i].metric == metric &&
			 bn->runs.v[i].point == point; i++) {
		if (bn->recorded)
			resource_lists(bn->st, bn->runs.v[i].run, share, rss, ivc);
		json_t *rn = json_array(), *rc = json_array();
		struct run_binding *bd;
		int nb;
		struct perr err;
		if (!store_load_bindings(bn->st, bn->runs.v[i].run, &bd, &nb, &err)) {
			for (int q = 0; q < nb; q++) {
				json_array_append_new(rn, bd[q].node ? json_string(bd[q].node) : json_null());
				json_array_append_new(rc, bd[q].cpuset ? json_string(bd[q].cpuset) : json_null());
			}
			run_bindings_free(bd, nb);
		}
		json_array_append_new(nodes, rn);
		json_array_append_new(cpusets, rc);
	}
	if (bn->bound) {
		json_object_set_new(line, "node", nodes);
		json_object_set_new(line, "cpuset", cpusets);
	} else {
		json_decref(nodes);
		json_decref(cpusets);
	}
	if (bn->recorded) {
		json_object_set_new(line, "cpu_share", share);
		json_object_set_new(line, "maxrss_kb", rss);
		json_object_set_new(line, "nivcsw", ivc);
	} else {
		json_decref(share);
		json_decref(rss);
		json_decref(ivc);
	}
}

/* JSON lines: Extra-P's lines, plus each value's ranks' node and cpuset when the ranks were bound. */
static int export_jsonl(struct store *st, FILE *f, int include_retired, struct perr *err)
{
	struct bind_notes bn = { .st = st };
	if (store_runs_recorded(st, &bn.bound, &bn.recorded, err))
		return -1;
	struct experiment e;
	experiment_init(&e);
	int rc = store_load_experiment_runs(st, NULL, include_retired ? STORE_INCLUDE_RETIRED : 0, &e, &bn.runs,
					    err);
	if (!rc)
		rc = campaign_leave_out_unmodelled(st, &e, err);
	if (!rc) {
		qsort(bn.runs.v, (size_t)bn.runs.n, sizeof(*bn.runs.v), cmp_exp_run);
		rc = extrap_jsonl_write_annotated(f, &e, bn.bound || bn.recorded ? annotate_bindings : NULL, &bn, err);
	}
	free(bn.runs.v);
	experiment_release(&e);
	return rc;
}

static void csv_real(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, ",%.17g", x);
	else
		fputc(',', f);
}

static void csv_count(FILE *f, long long x)
{
	if (x >= 0)
		fprintf(f, ",%lld", x);
	else
		fputc(',', f);
}

/* The resource columns of a row of rank `rank` (-1: run-level values, the whole run's record). */
static void csv_resource(FILE *f, const struct run_resource *rs, int n, int rank)
{
	const struct run_resource *x = NULL;
	for (int q = 0; q < n && !x; q++)
		x = rs[q].rank == rank ? &rs[q] : NULL;
	if (!x) {
		fputs(",,,,,,,,,,", f);
		return;
	}
	csv_real(f, x->utime);
	csv_real(f, x->stime);
	csv_real(f, x->wall);
	csv_real(f, x->cpu_share);
	csv_real(f, x->allowed_share);
	csv_count(f, x->maxrss_kb);
	csv_count(f, x->nvcsw);
	csv_count(f, x->nivcsw);
	csv_real(f, x->load_start);
	csv_real(f, x->load_end);
}

/* What each CSV row of a run needs besides the run's data. */
struct csv_ctx {
	struct store *st;
	FILE *f;
	int bound, recorded;
	struct strbuf *vals;
};

/* The rows of one run: one per rank, region and metric. */
static int csv_run(void *ctx, const struct store_run_data *d)
{
	const struct csv_ctx *x = ctx;
	const struct run *r = d->run;
	FILE *f = x->f;
	struct strbuf *vals = x->vals;   /* the run's parameter values, formatted once */
	strbuf_reset(vals);
	for (int k = 0; k < store_nparams(x->st); k++) {
		char v[64];
		template_format_value(v, sizeof(v), r->values[k], 0);
		strbuf_addf(vals, ",%s", v);
	}
	for (int j = 0; j < d->ml->n; j++) {
		const struct measurement *m = &d->ml->m[j];
		fprintf(f, "%lld,%d%s", r->id, r->repetition, vals->buf);
		fprintf(f, ",%d,%d,%d,", r->nodes, r->ranks_per_node, m->rank);
		csv_field(f, m->region, 1);   /* as ever: call paths hold commas */
		putc(',', f);
		csv_field(f, m->metric, 0);
		fprintf(f, ",%.17g", m->value);
		/* the rank's real binding: node and cpuset (quoted: "0-1,4") */
		const struct run_binding *b = NULL;
		for (int q = 0; q < d->nbindings && !b; q++)
			b = d->bindings[q].rank == m->rank ? &d->bindings[q] : NULL;
		if (x->bound) {
			putc(',', f);
			csv_field(f, b && b->node ? b->node : "", 0);
			putc(',', f);
			csv_field(f, b && b->cpuset ? b->cpuset : "", 1);
		}
		if (x->recorded)
			csv_resource(f, d->resources, d->nresources, m->rank);
		fputc('\n', f);
	}
	return 0;
}

/* CSV: one row per run, rank, region and metric, the store read once (store_each_run_data). */
static int export_csv(struct store *st, FILE *f, int include_retired, struct perr *err)
{
	struct strbuf vals;
	struct csv_ctx x = { .st = st, .f = f, .vals = &vals };
	if (store_runs_recorded(st, &x.bound, &x.recorded, err))
		return -1;
	fputs("run,repetition", f);
	for (int k = 0; k < store_nparams(st); k++) {
		putc(',', f);
		csv_field(f, store_param_name(st, k), 0);
	}
	/* campaigns whose ranks were bound also get each rank's node and cpuset, and
	   campaigns with resource records what each rank (or the whole run) used */
	fputs(",nodes,ranks_per_node,rank,region,metric,value", f);
	fputs(x.bound ? ",node,cpuset" : "", f);
	fputs(x.recorded ? ",utime,stime,rank_wall,cpu_share,allowed_share,maxrss_kb,nvcsw,nivcsw,load_start,load_end\n"
			 : "\n", f);
	strbuf_init(&vals);
	int rc = store_each_run_data(st, include_retired ? STORE_INCLUDE_RETIRED : 0, csv_run, &x, err);
	strbuf_release(&vals);
	return rc;
}

static int exec_export(struct cli_args *a)
{
	const char *format = cli_value(a, 'f'), *out = cli_value(a, 'o');
	int retired = cli_flag(a, 'R') > 0;
	if (!format)
		return cli_usage("export", "missing --format");
	/* Extra-P's formats come from the input registry ("extrap-text" is its "text") */
	const struct input_format *writer = input_format_find(!strcmp(format, "extrap-text") ? "text" : format);
	if (strcmp(format, "csv") && (!writer || !writer->write || !strcmp(format, "text")))
		return cli_usage("export", "unknown format '%s'; use extrap-text, csv, json, jsonl or reference",
				 format);
	struct store *st;
	struct perr err;
	if (store_open(&st, a->args[0], STORE_READONLY, &err))
		return cli_error(EXIT_USAGE, "%s", err.msg);
	/* a failed export leaves an existing FILE as it was */
	struct fs_atomic file;
	if (out && fs_atomic_open(&file, out)) {
		int e = errno;   /* before store_close changes it */
		store_close(st);
		return cli_error(EXIT_USAGE, "cannot write '%s': %s", out, strerror(e));
	}
	FILE *f = out ? file.f : stdout;
	int rc;
	if (!strcmp(format, "csv")) {
		rc = export_csv(st, f, retired, &err);
	} else if (!strcmp(format, "jsonl")) {
		rc = export_jsonl(st, f, retired, &err);
	} else {
		/* Extra-P's formats: one value per repetition of every point */
		struct experiment e;
		experiment_init(&e);
		rc = store_load_experiment_with(st, NULL, retired ? STORE_INCLUDE_RETIRED : 0, &e, &err);
		if (!rc)   /* model = false parameters are left out where that merges no points */
			rc = campaign_leave_out_unmodelled(st, &e, &err);
		if (!rc)
			rc = writer->write(f, &e, &err);
		experiment_release(&e);
	}
	if (out && rc)
		fs_atomic_abort(&file);
	else if (out && fs_atomic_commit(&file))
		rc = perr_set(&err, "cannot write '%s': %s", out, strerror(errno));
	store_close(st);
	return rc ? cli_error(EXIT_USAGE, "%s", err.msg) : EXIT_OK;
}

static const struct cli_option export_options[] = {
	{ "format", 'f', 1, NULL, NULL, "F", "the format to write", NULL, 1 },
	{ "out", 'o', 1, NULL, NULL, "FILE", "write there instead of stdout", NULL, 0 },
	{ "include-retired", 'R', 0, NULL, NULL, NULL, "keep the runs that left the plan", NULL, 0 },
	{ 0 },
};

const struct cli_entry cmd_export_entry = {
	.name = "export",
	.synopsis = "DIR --format extrap-text|csv|json|jsonl|reference",
	.summary = "write a campaign's measurements in another format",
	.help = "csv: one row per run, rank, region and metric; a campaign whose ranks were bound\n"
		"adds node and cpuset, one with resource records utime, stime, rank_wall, cpu_share,\n"
		"allowed_share, maxrss_kb, nvcsw, nivcsw, load_start and load_end (docs/placement.md).\n"
		"Every done run is written, disturbed ones too: the columns let a reader judge them.\n"
		"extrap-text, json, jsonl: Extra-P's input formats, one value per repetition of every\n"
		"point (per-rank values averaged), readable by Extra-P and by `perfsweep model`.\n"
		"reference: the repetitions and each region's model as JSON, a saved base for\n"
		"'perfsweep compare DIR --reference FILE' (docs/compare.md).\n"
		"Retired runs (they left the campaign's plan) are left out unless --include-retired.",
	.options = export_options,
	.min_args = 1, .max_args = 1, .too_few = "missing DIR",
	.exec = exec_export,
};
