/*
 * perfsweep model INPUT [--deps FILE] [--metric M] [--aggregate A] [--selection S] [--json]:
 * fit a PMNF model (robust selection, or Extra-P's method) to every callpath and metric of a
 * campaign or of an Extra-P text/JSON/JSON-lines file, optionally next to
 * the taint-constrained model of each region's dependencies.
 */
#include "collectors/region_match.h"
#include "common/xalloc.h"
#include "designs/deps.h"
#include "cli/cli.h"
#include "orchestrator/input.h"
#include "models/modeler.h"
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum input_kind { IN_DIR, IN_TEXT, IN_JSON, IN_JSONL };

static int is_regular_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The same loader as validate's: a directory is a campaign or a Score-P folder. */
static int load_input(struct experiment *e, enum input_kind kind, const char *path, const char *metric,
		      struct model_options *opt, int agg_set, struct perr *err)
{
	static const char *const formats[] = { [IN_DIR] = NULL, [IN_TEXT] = "text",
					       [IN_JSON] = "json", [IN_JSONL] = "jsonl" };
	struct input_source src;
	input_source_init(&src);
	int ret = input_load(&src, path, formats[kind], metric, e, err);
	if (!ret && !agg_set && src.aggregate)
		model_aggregate_parse(src.aggregate, &opt->aggregate);   /* the campaign's analysis.aggregate */
	input_source_release(&src);
	return ret;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The JSON form of one model (the stable contract of docs/modelling.md). */
static json_t *model_json(const struct pmnf_model *m)
{
	json_t *o = json_object(), *terms = json_array();
	char *s = pmnf_format(m, 0);
	json_object_set_new(o, "model", json_string(s));
	free(s);
	json_object_set_new(o, "constant", num(m->constant));
	for (int k = 0; k < m->nterms; k++) {
		json_t *t = json_object(), *fs = json_array();
		json_object_set_new(t, "coefficient", num(m->terms[k].coef));
		for (int i = 0; i < m->terms[k].nfactors; i++) {
			const struct pmnf_factor *f = &m->terms[k].factors[i];
			json_t *fo = json_object();
			json_object_set_new(fo, "parameter", json_string(m->params[f->param]));
			json_object_set_new(fo, "poly_exponent", json_real(f->poly_exp));
			json_object_set_new(fo, "log_exponent", json_real(f->log_exp));
			json_array_append_new(fs, fo);
		}
		json_object_set_new(t, "factors", fs);
		json_array_append_new(terms, t);
	}
	json_object_set_new(o, "terms", terms);
	json_object_set_new(o, "rss", num(m->rss));
	json_object_set_new(o, "ar2", num(m->ar2));
	json_object_set_new(o, "smape", num(m->smape));
	json_object_set_new(o, "re", num(m->re));
	return o;
}

static void print_model(const char *label, const struct pmnf_model *m)
{
	char *s = pmnf_format(m, 0);
	printf("  %-12s %s\n", label, s);
	printf("  %-12s rss %.6g  ar2 %.6g  smape %.6g%%  re %.6g  (%d points)\n", "", m->rss, m->ar2,
	       m->smape, m->re, m->npoints);
	free(s);
}

/* Translate "--json FILE" (FILE a regular file) into the JSON input option. */
static char **rewrite_json_input(int argc, char **argv)
{
	char **out = xcalloc((size_t)argc + 1, sizeof(*out));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc && argv[i + 1][0] != '-' &&
		    is_regular_file(argv[i + 1])) {
			out[i] = "--json-input";
		} else {
			out[i] = argv[i];
		}
	}
	return out;
}

int cmd_model(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "text", required_argument, NULL, 't' },
		{ "json-input", required_argument, NULL, 'J' },
		{ "jsonl", required_argument, NULL, 'L' },
		{ "deps", required_argument, NULL, 'd' },
		{ "metric", required_argument, NULL, 'm' },
		{ "median", no_argument, NULL, 'M' },
		{ "aggregate", required_argument, NULL, 'A' },
		{ "selection", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL, *deps_path = NULL, *metric = NULL;
	enum input_kind kind = IN_DIR;
	int json = 0, ninputs = 0, c, ret = EXIT_OK, agg_set = 0;
	struct model_options opt;
	model_options_robust(&opt);
	char **args = rewrite_json_input(argc, argv);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, args, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': kind = IN_TEXT; path = optarg; ninputs++; break;
		case 'J': kind = IN_JSON; path = optarg; ninputs++; break;
		case 'L': kind = IN_JSONL; path = optarg; ninputs++; break;
		case 'd': deps_path = optarg; break;
		case 'm': metric = optarg; break;
		case 'M': opt.aggregate = MODEL_MEDIAN; agg_set = 1; break;
		case 'A':
		case 'S':
			if (c == 'A' ? model_aggregate_parse(optarg, &opt.aggregate) < 0
				     : model_selection_parse(optarg, &opt.selection) < 0) {
				free(args);
				return cli_usage("model", c == 'A' ? "--aggregate wants mean, median or min, not '%s'"
						 : "--selection wants robust or extrap, not '%s'", optarg);
			}
			agg_set |= c == 'A';
			break;
		case 'j': json = 1; break;
		case '?':
			free(args);
			if (optopt)
				return cli_usage("model", "option '%s' needs a value", argv[optind - 1]);
			return cli_usage("model", "unknown option '%s'", argv[optind - 1]);
		default:
			free(args);
			return cli_usage("model", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (ninputs || optind + 1 < argc) {
			free(args);
			return cli_usage("model", "too many inputs");
		}
		path = args[optind];
		ninputs++;
		/* a file given without --text/--json/--jsonl: its extension says which */
		if (is_regular_file(path)) {
			size_t n = strlen(path);
			if (n > 6 && !strcmp(path + n - 6, ".jsonl"))
				kind = IN_JSONL;
			else if (n > 5 && !strcmp(path + n - 5, ".json"))
				kind = IN_JSON;
			else
				kind = IN_TEXT;
		}
	}
	free(args);
	if (ninputs == 0)
		return cli_usage("model", "missing INPUT (a campaign directory, --text, --json or --jsonl FILE)");
	struct stat sb;
	if (kind != IN_DIR && stat(path, &sb) < 0)
		return cli_error(EXIT_USAGE, "cannot read '%s': %s", path, strerror(errno));
	if (kind != IN_DIR && !S_ISREG(sb.st_mode))
		return cli_error(EXIT_USAGE, "cannot read '%s': not a regular file", path);
	if (ninputs > 1)
		return cli_usage("model", "give one input only");

	struct experiment e;
	struct deps d;
	struct region_match rm;
	struct perr err;
	int have_deps = 0, have_rm = 0;
	experiment_init(&e);
	memset(&d, 0, sizeof(d));
	memset(&rm, 0, sizeof(rm));
	if (load_input(&e, kind, path, metric, &opt, agg_set, &err) < 0) {
		ret = cli_error(EXIT_USAGE, "%s", err.msg);
		goto done;
	}
	int only = -1;
	if (metric && (only = experiment_find_metric(&e, metric)) < 0) {
		ret = cli_error(EXIT_USAGE, "no metric '%s' in '%s'", metric, path);
		goto done;
	}
	if (deps_path) {
		if (deps_read(&d, deps_path, &err) < 0) {
			ret = cli_error(EXIT_USAGE, "%s", err.msg);
			goto done;
		}
		have_deps = 1;
		if (region_match(&rm, &e, &d, &err) < 0) {
			ret = cli_error(EXIT_USAGE, "%s", err.msg);
			goto done;
		}
		have_rm = 1;
	}

	struct modeler *ctx = modeler_new();
	json_t *arr = json ? json_array() : NULL;
	int nmodels = 0;
	for (int cp = 0; cp < e.ncallpaths; cp++)
		for (int m = 0; m < e.nmetrics; m++) {
			if (only >= 0 && m != only)
				continue;
			if (!experiment_series(&e, cp, m))
				continue;
			struct pmnf_model bb, cm;
			const struct dep_function *fn = have_rm ? rm.func[cp] : NULL;
			if (modeler_fit_series_ctx(ctx, &e, cp, m, &opt, NULL, &bb, &err) < 0) {
				cli_error(EXIT_USAGE, "%s: callpath '%s' metric '%s': %s", path, e.callpaths[cp],
					  e.metrics[m], err.msg);
				pmnf_release(&bb);
				ret = EXIT_USAGE;
				continue;
			}
			int constrained = 0;
			if (fn) {
				struct model_constraint con = { &d, fn };
				if (modeler_fit_series_ctx(ctx, &e, cp, m, &opt, &con, &cm, &err) == 0)
					constrained = 1;
				else
					pmnf_release(&cm);
			}
			nmodels++;
			if (json) {
				json_t *o = json_object();
				json_object_set_new(o, "callpath", json_string(e.callpaths[cp]));
				json_object_set_new(o, "metric", json_string(e.metrics[m]));
				json_object_set_new(o, "selection", json_string(model_selection_name(opt.selection)));
				json_object_set_new(o, "aggregate", json_string(model_aggregate_name(opt.aggregate)));
				json_t *body = model_json(constrained ? &cm : &bb);
				json_object_update(o, body);
				json_decref(body);
				if (have_deps) {
					json_object_set_new(o, "function", fn ? json_string(fn->name) : json_null());
					json_object_set_new(o, "constrained", json_boolean(constrained));
					json_object_set_new(o, "black_box", model_json(&bb));
				}
				json_array_append_new(arr, o);
			} else {
				printf("%s%s (%s)", nmodels > 1 ? "\n" : "", e.callpaths[cp], e.metrics[m]);
				if (have_deps)
					printf("  function: %s", fn ? fn->name : "none matched");
				putchar('\n');
				if (constrained)
					print_model("constrained:", &cm);
				print_model(have_deps ? "black box:" : "model:", &bb);
			}
			if (constrained)
				pmnf_release(&cm);
			pmnf_release(&bb);
		}
	modeler_free(ctx);
	if (json) {
		char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
		puts(s);
		free(s);
		json_decref(arr);
	}
	if (nmodels == 0 && ret == EXIT_OK)
		ret = cli_error(EXIT_USAGE, "no measurements to model in '%s'", path);
done:
	if (have_rm)
		region_match_release(&rm);
	if (have_deps)
		deps_release(&d);
	experiment_release(&e);
	return ret;
}
