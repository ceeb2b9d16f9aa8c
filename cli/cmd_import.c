/*
 * perfsweep import: turn existing measurements into a campaign store that
 * model, validate and export can use, through the orchestrator's
 * import_campaign.  The source option's name (--cube, --text, --json,
 * --jsonl) is a format of the input registry (analysis/input.h).
 */
#include "cli/cli.h"
#include "common/clock.h"
#include "analysis/import.h"
#include <stdio.h>
#include <string.h>

enum { OPT_SOURCE = 256 };

/* The source options: one source only. */
static int check_source(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)o;
	for (int i = 0; i < a->nopts - 1; i++)
		if (a->opts[i].key >= OPT_SOURCE && a->opts[i].key < OPT_SOURCE + 4)
			return perr_set(err, "give one source: --cube, --text, --json or --jsonl");
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

static void print_summary(const struct import_result *r, const char *out, double seconds)
{
	printf("imported %d runs at %d points of %s (", r->nruns, r->npoints, r->campaign);
	for (int k = 0; k < r->nparams; k++)
		printf("%s%s", k ? ", " : "", r->params[k]);
	printf("): %d call paths, %d metrics, %lld measurements into %s in %.2f s\n", r->ncallpaths,
	       r->nmetrics, r->nmeasurements, out, seconds);
}

/* The import's options from the command line, or a usage error. */
static int read_options(const struct cli_args *a, struct import_options *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < a->nopts; i++)
		if (a->opts[i].key >= OPT_SOURCE && a->opts[i].key < OPT_SOURCE + 4) {
			o->source = a->opts[i].arg;
			o->label = a->cmd->options[a->opts[i].key - OPT_SOURCE].name;
		}
	o->out = cli_value(a, 'o');
	o->deps_path = cli_value(a, 'd');
	o->params = cli_value(a, 'p');
	o->metrics = cli_value(a, 'm');
	o->name = cli_value(a, 'n');
	const char *aggr = cli_value(a, 'a') ? cli_value(a, 'a') : "mean";
	if (!o->source)
		return cli_usage("import", "missing source: --cube DIR, --text FILE, --json FILE or --jsonl FILE");
	if (!o->out)
		return cli_usage("import", "missing --out CAMPAIGN_DIR");
	if (!*o->out)
		return cli_usage("import", "--out is empty; give a campaign directory");
	int ag = cubex_aggr_parse(aggr);
	if (ag < 0)
		return cli_usage("import", "unknown aggregation '%s'; use mean, sum, max or min", aggr);
	o->aggr = (enum cubex_aggr)ag;
	o->format = input_format_find(o->label);
	if (!(o->format->flags & INPUT_PROFILES) && (o->metrics || strcmp(aggr, "mean")))
		return cli_usage("import", "--metrics and --aggregate apply to --cube only");
	return 0;
}

static int exec_import(struct cli_args *a)
{
	struct import_options o;
	int rc = read_options(a, &o);
	if (rc)
		return rc;
	double t0 = wall_now();
	struct import_result r;
	struct perr err = { 0 };
	if (import_campaign(&o, &r, &err) < 0) {
		import_result_release(&r);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	if (!cli_flag(a, 'q')) {
		cli_display_stdout();
		print_summary(&r, o.out, wall_now() - t0);
		if (r.have_deps)
			print_match(&r.match, &r.d, cli_flag(a, 'v') > 0);
	}
	import_result_release(&r);
	return EXIT_OK;
}

/* The first four rows are the sources; their names are input formats. */
static const struct cli_option import_options_table[] = {
	{ "cube", OPT_SOURCE, 1, check_source, NULL, "DIR", "a folder of Score-P experiment directories", NULL, 1 },
	{ "text", OPT_SOURCE + 1, 1, check_source, NULL, "FILE", "an Extra-P text file", NULL, 1 },
	{ "json", OPT_SOURCE + 2, 1, check_source, NULL, "FILE", "an Extra-P JSON file", NULL, 1 },
	{ "jsonl", OPT_SOURCE + 3, 1, check_source, NULL, "FILE", "an Extra-P JSON-lines file", NULL, 1 },
	{ "out", 'o', 1, NULL, NULL, "CAMPAIGN_DIR", "the campaign directory to create", NULL, 1 },
	{ "deps", 'd', 1, NULL, NULL, "FILE", "match this dependency file's functions to the regions", NULL, 0 },
	{ "params", 'p', 1, NULL, NULL, "p,size", "keep these parameters, in this order", NULL, 0 },
	{ "metrics", 'm', 1, NULL, NULL, "time,visits", "import these metrics only", NULL, 0 },
	{ "aggregate", 'a', 1, NULL, NULL, "mean|sum|max|min", "a run's value over its ranks (default mean)", NULL, 0 },
	{ "name", 'n', 1, NULL, NULL, "NAME", "the campaign's name", NULL, 0 },
	{ "quiet", 'q', 0, NULL, NULL, NULL, "print nothing but errors", NULL, 0 },
	{ "verbose", 'v', 0, NULL, NULL, NULL, "list every function of --deps, matched or not", NULL, 0 },
	{ 0 },
};

const struct cli_entry cmd_import_entry = {
	.name = "import",
	.synopsis = "(--cube DIR | --text FILE | --json FILE | --jsonl FILE) --out CAMPAIGN_DIR",
	.summary = "turn Score-P profiles or Extra-P files into a campaign store",
	.help = "--cube DIR reads a folder of Score-P experiment directories named\n"
		"[prefix.]<param><value>[.<param><value>...][.r<rep>] (e.g. lulesh.p64.size30.r1), each\n"
		"holding a profile.cubex.  Parameters whose value never changes are dropped unless\n"
		"--params names them (and their order).  Per call path and metric the value of a run is\n"
		"the exclusive value aggregated over ranks (--aggregate, default mean, as Extra-P);\n"
		"--metrics selects metrics (default: every metric with data).\n"
		"--text, --json, --jsonl read Extra-P's input formats; each repetition becomes one run.\n"
		"--deps FILE matches the dependency file's functions to the call-path regions and lists\n"
		"what did not match (--verbose: every function).  The campaign (backend 'import') works with model, validate, export.",
	.options = import_options_table,
	.min_args = 0, .max_args = 0, .too_many = "unexpected argument '%s'",
	.exec = exec_import,
};
