/*
 * perfsweep model INPUT [--format F] [--deps FILE] [--metric M] [--median]
 * [--aggregate A] [--selection S] [--json]: fit a PMNF model (robust
 * selection, or Extra-P's method) to every callpath and metric
 * of any input the registry reads (campaign, Score-P folder, Extra-P text,
 * JSON, JSON lines), optionally next to the taint-constrained model of each
 * region's dependencies.  --json only selects JSON output; the old input
 * options (--text FILE, --jsonl FILE, --json FILE) still work for one
 * release, with a note on stderr.
 */
#include "cli/analysis_view.h"
#include "cli/cli.h"
#include "common/xalloc.h"
#include "models/modeler.h"
#include "models/pmnf_json.h"
#include "analysis/model_pipeline.h"
#include "validator/validate.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Option keys of the deprecated input spellings. */
enum { OPT_TEXT = 't', OPT_JSON_INPUT = 'J', OPT_JSONL = 'L' };

static int is_regular_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void print_model(const char *label, const struct pmnf_model *m)
{
	char *s = pmnf_format(m, 0);
	printf("  %-12s %s\n", label, s);
	printf("  %-12s rss %.6g  ar2 %.6g  smape %.6g%%  re %.6g  (%d points)\n", "", m->rss, m->ar2,
	       m->smape, m->re, m->npoints);
	free(s);
}

/* "--json FILE" with FILE a regular file meant input before: rewrite it to the hidden --json-input. */
static char **rewrite_json_input(int argc, char **argv)
{
	char **out = xcalloc((size_t)argc + 1, sizeof(*out));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc && argv[i + 1][0] != '-' &&
		    is_regular_file(argv[i + 1]))
			out[i] = "--json-input";
		else
			out[i] = argv[i];
	}
	return out;
}

/* What to model and how to print it. */
struct model_request {
	const char *path, *format, *deps_path, *metric;
	int json;
	int include_retired;    /* a campaign's retired runs too */
	int aggregate_set;      /* else a campaign's analysis.aggregate */
	struct model_options opt;
	int viewed;             /* --min-cpu-share or --include-disturbed given */
	struct run_usage_view view;
};

/* The deprecation note of an old input spelling. */
static void deprecated(int key, const char *file)
{
	if (key == OPT_JSON_INPUT)
		fprintf(stderr, "note: 'model --json %s' reads %s as Extra-P JSON input, as before; this "
			"spelling is deprecated: write 'model %s' (add --json for JSON output)\n", file, file,
			file);
	else
		fprintf(stderr, "note: 'model --%s %s' is deprecated: write 'model %s' (the format is "
			"detected; --format %s forces it)\n", key == OPT_TEXT ? "text" : "jsonl", file, file,
			key == OPT_TEXT ? "text" : "jsonl");
}

/* The request from the parsed command line: 0, or a usage error. */
static int model_request(const struct cli_args *a, struct model_request *r)
{
	memset(r, 0, sizeof(*r));
	model_options_robust(&r->opt);
	r->json = cli_flag(a, 'j') > 0;
	r->include_retired = cli_flag(a, 'R') > 0;
	r->format = cli_value(a, 'f');
	r->deps_path = cli_value(a, 'd');
	r->metric = cli_value(a, 'm');
	if (cli_flag(a, 'M'))
		r->opt.aggregate = MODEL_MEDIAN;
	const char *ag = cli_value(a, 'A'), *sel = cli_value(a, 'S');
	if (ag && model_aggregate_parse(ag, &r->opt.aggregate) < 0)
		return cli_usage("model", "--aggregate wants mean, median or min, not '%s'", ag);
	if (sel && model_selection_parse(sel, &r->opt.selection) < 0)
		return cli_usage("model", "--selection wants robust or extrap, not '%s'", sel);
	r->aggregate_set = ag || cli_flag(a, 'M');
	r->viewed = analysis_view_from(a, &r->view);
	int ninputs = a->nargs;
	for (int i = 0; i < a->nopts; i++) {
		int k = a->opts[i].key;
		if (k != OPT_TEXT && k != OPT_JSON_INPUT && k != OPT_JSONL)
			continue;
		deprecated(k, a->opts[i].arg);
		r->path = a->opts[i].arg;
		r->format = k == OPT_TEXT ? "text" : k == OPT_JSON_INPUT ? "json" : "jsonl";
		ninputs++;
	}
	if (ninputs == 0)
		return cli_usage("model", "missing INPUT (a campaign directory, a Score-P folder or an "
				 "Extra-P file)");
	if (ninputs > 1)
		return cli_usage("model", "too many inputs");
	if (a->nargs)
		r->path = a->args[0];
	if (r->format && !input_format_find(r->format)) {
		char names[128];
		input_format_names(names, sizeof(names));
		return cli_usage("model", "unknown format '%s'; use %s", r->format, names);
	}
	return 0;
}

/* One model as text. */
static void print_text(const struct input_data *in, int cp, int m, const struct pmnf_model *bb,
		       const struct pmnf_model *cm, int nth)
{
	const struct dep_function *fn = in->have_deps ? in->funcs[cp] : NULL;
	printf("%s%s (%s)", nth > 1 ? "\n" : "", in->e.callpaths[cp], in->e.metrics[m]);
	if (in->have_deps)
		printf("  function: %s", fn ? fn->name : "none matched");
	putchar('\n');
	if (cm)
		print_model("constrained:", cm);
	if (cm && cm->expected && isnan(cm->trend_p))
		printf("  %-12s the expected volume (%s), not rejected by the repetitions (p=%.2g)\n", "",
		       fn->expect, cm->lof_p);
	else if (cm && cm->expected)
		printf("  %-12s the expected volume (%s): its points scatter beyond their repetitions "
		       "(p=%.2g), without a trend along any parameter (p=%.2g)\n", "", fn->expect, cm->lof_p,
		       cm->trend_p);
	print_model(in->have_deps ? "black box:" : "model:", bb);
}

/* One model as an element of the JSON array. */
static json_t *series_json(const struct input_data *in, int cp, int m, const struct pmnf_model *bb,
			   const struct pmnf_model *cm)
{
	const struct dep_function *fn = in->have_deps ? in->funcs[cp] : NULL;
	json_t *o = json_object();
	json_object_set_new(o, "callpath", json_string(in->e.callpaths[cp]));
	json_object_set_new(o, "metric", json_string(in->e.metrics[m]));
	json_t *body = pmnf_json(cm ? cm : bb);
	json_object_update(o, body);
	json_decref(body);
	if (in->have_deps) {
		json_object_set_new(o, "function", fn ? json_string(fn->name) : json_null());
		json_object_set_new(o, "constrained", json_boolean(cm != NULL));
		json_object_set_new(o, "black_box", pmnf_json(bb));
	}
	return o;
}

/* Fit one series (and its constrained model); print or collect it.  0, or -1 after an error line. */
static int fit_series(struct modeler *ctx, const struct input_data *in, int cp, int m,
		      const struct model_request *r, json_t *arr, int nth)
{
	struct model_fit f;
	struct perr err;
	if (model_pipeline_fit(ctx, in, cp, m, &r->opt, &f, &err) < 0) {
		cli_error(EXIT_USAGE, "%s: callpath '%s' metric '%s': %s", r->path, in->e.callpaths[cp],
			  in->e.metrics[m], err.msg);
		model_fit_release(&f);
		return -1;
	}
	const struct pmnf_model *cm = f.constrained ? &f.cm : NULL;
	/* the region validate refuses to model is marked, with validate's reason */
	char *unreliable = NULL;
	validate_series_unreliable(&in->e, cp, m, NULL, &unreliable);
	if (arr) {
		json_t *o = series_json(in, cp, m, &f.bb, cm);
		json_object_set_new(o, "selection", json_string(model_selection_name(r->opt.selection)));
		json_object_set_new(o, "aggregate", json_string(model_aggregate_name(r->opt.aggregate)));
		json_object_set_new(o, "reliable", json_boolean(!unreliable));
		json_object_set_new(o, "unreliable", unreliable ? json_string(unreliable) : json_null());
		if (r->viewed)
			json_object_set_new(o, "analysis_view", analysis_view_json(&r->view, in->src.usage));
		json_array_append_new(arr, o);
	} else {
		print_text(in, cp, m, &f.bb, cm, nth);
		if (unreliable)
			printf("  %-12s %s: validate reports this region, does not model it\n", "unreliable:",
			       unreliable);
	}
	free(unreliable);
	model_fit_release(&f);
	return 0;
}

/* Every callpath and metric (only metric `only` when >= 0). */
static int fit_all(const struct input_data *in, const struct model_request *r, int only)
{
	const struct run_usage *u = in->src.usage;
	struct modeler *ctx = modeler_new();
	json_t *arr = r->json ? json_array() : NULL;
	int nmodels = 0, ret = EXIT_OK;
	if (!arr) {
		cli_display_stdout();
		analysis_view_note(stdout, &r->view, u);
	}
	for (int cp = 0; cp < in->e.ncallpaths; cp++)
		for (int m = 0; m < in->e.nmetrics; m++) {
			if ((only >= 0 && m != only) || !experiment_series(&in->e, cp, m))
				continue;
			if (fit_series(ctx, in, cp, m, r, arr, nmodels + 1) < 0)
				ret = EXIT_USAGE;
			else
				nmodels++;
		}
	modeler_free(ctx);
	if (arr) {
		char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
		puts(s);
		free(s);
		json_decref(arr);
	}
	if (nmodels == 0 && ret == EXIT_OK && u && u->disturbed.n && !u->included)
		ret = cli_error(EXIT_USAGE, "no measurements to model in '%s': its %d measured runs were disturbed "
				"(perfsweep validate lists them)", r->path, u->disturbed.n);
	else if (nmodels == 0 && ret == EXIT_OK)
		ret = cli_error(EXIT_USAGE, "no measurements to model in '%s'", r->path);
	return ret;
}

static int exec_parsed(struct cli_args *a)
{
	struct model_request r;
	int ret = model_request(a, &r);
	if (ret)
		return ret;
	struct model_pipeline_options po = {
		.format = r.format, .metric = r.metric, .include_retired = r.include_retired,
		.view = r.viewed ? &r.view : NULL, .deps_path = r.deps_path, .campaign_deps = 1, .aggregate_set = r.aggregate_set,
		.model = r.opt,
	};
	struct input_data in;
	struct perr err;
	int only = -1;
	if (model_pipeline_load(&in, r.path, &po, &r.opt, &err) < 0)
		ret = cli_error(EXIT_USAGE, "%s", err.msg);
	else if (r.metric && (only = experiment_find_metric(&in.e, r.metric)) < 0)
		ret = cli_error(EXIT_USAGE, "no metric '%s' in '%s'", r.metric, r.path);
	else {
		const struct run_usage *u = in.src.usage;
		if (u && u->disturbed.n && !u->included)
			fprintf(stderr, "note: %d of %d runs disturbed, left out of the models (perfsweep validate "
				"lists them)\n", u->disturbed.n, u->disturbed.njudged);
		ret = fit_all(&in, &r, only);
	}
	input_data_release(&in);
	return ret;
}

static const struct cli_option model_options[] = {
	{ "format", 'f', 1, NULL, NULL, "F", "campaign|scorep|text|json|jsonl instead of the detected format", NULL, 0 },
	{ "deps", 'd', 1, NULL, NULL, "FILE", "add the dependency-constrained model of each region", NULL, 0 },
	{ "metric", 'm', 1, NULL, NULL, "M", "model this metric only", NULL, 0 },
	{ "median", 'M', 0, NULL, NULL, NULL, NULL, NULL, 0 },
	{ "aggregate", 'A', 1, NULL, NULL, "mean|median|min", "each point's estimate of its repetitions", NULL, 0 },
	{ "selection", 'S', 1, NULL, NULL, "robust|extrap", "how the model is chosen (default robust)", NULL, 0 },
	{ "json", 'j', 0, NULL, NULL, NULL, "print a JSON array of the models", NULL, 0 },
	{ "include-retired", 'R', 0, NULL, NULL, NULL, "keep the runs that left the plan", NULL, 0 },
	ANALYSIS_VIEW_OPTIONS,
	/* deprecated input spellings, kept for one release */
	{ "text", OPT_TEXT, 1, NULL, NULL, NULL, NULL, NULL, 0 },
	{ "jsonl", OPT_JSONL, 1, NULL, NULL, NULL, NULL, NULL, 0 },
	{ "json-input", OPT_JSON_INPUT, 1, NULL, NULL, NULL, NULL, NULL, 0 },
	{ 0 },
};

/* `--json FILE` is rewritten before parsing, so the command parses its own argv. */
static int exec_model(struct cli_args *raw)
{
	char **args = rewrite_json_input(raw->argc, raw->argv);
	struct cli_args a;
	int rc = cli_parse(&cmd_model_entry, raw->argc, args, &a);
	if (!rc)
		rc = exec_parsed(&a);
	cli_args_release(&a);
	free(args);
	return rc;
}

const struct cli_entry cmd_model_entry = {
	.name = "model",
	.synopsis = "INPUT",
	.summary = "fit performance models (Extra-P's PMNF method) to every callpath",
	.help = "INPUT is a campaign directory, a folder of Score-P experiment directories, or an\n"
		"Extra-P text, JSON or JSON-lines file; its format is detected from its content or\n"
		"extension, --format campaign|scorep|text|json|jsonl forces one.  Each callpath and\n"
		"metric gets the simplest PMNF model its repetitions' noise does not reject\n"
		"(--selection robust, the default; outlying repetitions left out) or the one Extra-P\n"
		"would select (--selection extrap), with RSS, adjusted R^2, SMAPE and relative\n"
		"error.  --deps FILE adds the taint-constrained model of each region's dependencies\n"
		"next to the black-box one (a campaign's own dependency file without it; a missing\n"
		"one is an error).  --aggregate sets each point's estimate (mean, the\n"
		"default, median or min; a campaign's analysis.aggregate otherwise); --median is\n"
		"--aggregate median.  --json prints a JSON array (docs/modelling.md).  A campaign's\n"
		"retired runs (they left its plan) are left out unless --include-retired, and so are\n"
		"its disturbed runs (a note on stderr says how many; validate lists them).  A region\n"
		"validate calls unreliable (mostly noisy points) is printed with that word and the\n"
		"reason (JSON: \"reliable\": false, \"unreliable\": the reason).\n"
		ANALYSIS_VIEW_HELP
		"(JSON: each model's \"analysis_view\").\n"
		"Deprecated, for one release (with a note on stderr): --text FILE and --jsonl FILE for\n"
		"INPUT, and --json FILE with an existing FILE, which reads FILE as JSON input and\n"
		"prints text, as before.",
	.options = model_options,
	.raw = 1,
	.min_args = 0, .max_args = -1,
	.exec = exec_model,
};
