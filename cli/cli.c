/* The command table and dispatch for `perfsweep`. */
#include "cli/cli.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PERFSWEEP_VERSION "0.1.0"

static const struct cli_command commands[] = {
	{ "help", cmd_help, "help [COMMAND]", "show help for perfsweep or one command", NULL },
	{ "plan", cmd_plan, "plan CONFIG [--json] [--explain]",
	  "print the runs a campaign would execute, without running anything", NULL },
	{ "run", cmd_run, "run CONFIG [--dir DIR] [--jobs N] [--quiet]",
	  "execute (or resume) every planned run that has not completed",
	  "Creates the campaign directory (default: <name>.campaign beside CONFIG) or reuses it,\n"
	  "then runs every planned run that is not done.  Interrupted campaigns (Ctrl-C, kill -9,\n"
	  "a reboot) resume from the store: run the same command again.\n"
	  "--jobs N runs at most N runs at once on the local backend (default: online CPUs).\n"
	  "Exit status 0 when every run is done, 1 when some failed for good." },
	{ "status", cmd_status, "status DIR [--json]", "summarise a campaign's progress",
	  "--json prints one object with planned, pending, running, done, failed, cancelled,\n"
	  "campaign, backend, measurements, collection_errors and the runs with problems." },
	{ "cancel", cmd_cancel, "cancel DIR [--run ID]",
	  "cancel a campaign's pending and in-flight runs, or one run",
	  "Marks the runs cancelled in the store, then kills their SLURM jobs (through\n"
	  "libslurm) or, on the local backend, their process groups.  A running\n"
	  "'perfsweep run' neither starts nor retries cancelled runs.  Done and failed\n"
	  "runs are kept.  Exit status 0, or 1 when a job could not be cancelled." },
	{ "model", cmd_model, "model (DIR | --text FILE | --json FILE | --jsonl FILE) [--deps FILE] [--metric M] [--aggregate mean|median|min] [--selection robust|extrap] [--json]",
	  "fit performance models (PMNF) to every callpath",
	  "INPUT is a campaign directory or an Extra-P text (--text), JSON (--json FILE) or\n"
	  "JSON-lines (--jsonl) file.  Each callpath and metric gets the simplest PMNF model\n"
	  "its repetitions' noise does not reject (--selection robust, the default; outlying\n"
	  "repetitions left out) or the one Extra-P would select (--selection extrap), with\n"
	  "RSS, adjusted R^2, SMAPE and relative error.  --deps FILE adds the\n"
	  "taint-constrained model of each region's dependencies next to the black-box one.\n"
	  "--aggregate sets each point's estimate (mean, the default, median or min; a campaign's\n"
	  "analysis.aggregate otherwise); --median is --aggregate median.  --json prints a\n"
	  "JSON array (docs/modelling.md); a bare --json selects JSON output, --json FILE\n"
	  "with an existing FILE reads it as input." },
	{ "export", cmd_export, "export DIR --format extrap-text|csv|json|jsonl [--out FILE]",
	  "write a campaign's measurements in another format",
	  "csv: one row per run, rank, region and metric.\n"
	  "extrap-text, json, jsonl: Extra-P's input formats, one value per repetition of every\n"
	  "point (per-rank values averaged), readable by Extra-P and by `perfsweep model`." },
	{ "topo", cmd_topo,
	  "topo [CONFIG] [--topology DESC|FILE.xml] [--policy P --ranks-per-node R "
	  "[--cores-per-rank N|all] | --map FILE] [--json]",
	  "show the machine topology placements use, and where ranks would go",
	  "Without CONFIG or --topology: this machine.  CONFIG's `topology` setting or\n"
	  "--topology give a synthetic description (\"pack:2 numa:1 core:18 pu:1\") or an\n"
	  "hwloc XML export (lstopo --of xml).  --topology wins over CONFIG.\n"
	  "With --policy compact|spread and --ranks-per-node, or --map FILE (explicit:\n"
	  "one core set per line), also print each local rank's cores and PUs.\n"
	  "--json prints the same as one JSON object.  See docs/placement.md." },
	{ "import", cmd_import,
	  "import (--cube DIR | --text FILE | --json FILE | --jsonl FILE) --out CAMPAIGN_DIR [--deps FILE]"
	  " [--params p,size] [--metrics time,visits] [--aggregate mean|sum|max|min] [--name NAME] [--quiet] [--verbose]",
	  "turn Score-P profiles or Extra-P files into a campaign store",
	  "--cube DIR reads a folder of Score-P experiment directories named\n"
	  "[prefix.]<param><value>[.<param><value>...][.r<rep>] (e.g. lulesh.p64.size30.r1), each\n"
	  "holding a profile.cubex.  Parameters whose value never changes are dropped unless\n"
	  "--params names them (and their order).  Per call path and metric the value of a run is\n"
	  "the exclusive value aggregated over ranks (--aggregate, default mean, as Extra-P);\n"
	  "--metrics selects metrics (default: every metric with data).\n"
	  "--text, --json, --jsonl read Extra-P's input formats; each repetition becomes one run.\n"
	  "--deps FILE matches the dependency file's functions to the call-path regions and lists\n"
	  "what did not match (--verbose: every function).  The campaign (backend 'import') works with model, validate, export." },
	{ "validate", cmd_validate,
	  "validate INPUT [--deps FILE] [--json] [--html FILE] [--strict] [--metric M] [--format F]"
	  " [--cov T] [--alpha A] [--min-growth G] [--aggregate mean|median|min] [--selection robust|extrap]",
	  "check measurements for noise, false dependencies, contention and regime changes",
	  "INPUT is a campaign directory, a folder of Score-P experiment directories\n"
	  "(lulesh.p64.size30.r1/profile.cubex), or an Extra-P text, JSON (.json) or JSON-lines\n"
	  "(.jsonl) file; --format campaign|scorep|text|json|jsonl overrides the detection.\n"
	  "Per region (call path) and metric it checks:\n"
	  "  noise             CoV of each point's repetitions above --cov (0.1); a region\n"
	  "                    with more than half its points noisy is unreliable: reported,\n"
	  "                    not modelled\n"
	  "  false-dependency  the black-box model uses a parameter that the region's\n"
	  "                    dependencies (--deps) exclude, changing it by --min-growth\n"
	  "                    or more; the cause is contention, speedup or noise\n"
	  "  contention        measurements grow with ranks_per_node, or with a parameter\n"
	  "                    the dependencies exclude, by at least --min-growth (0.05) and\n"
	  "                    significantly (p < --alpha, 0.01): slope t-test and ANOVA\n"
	  "  segmented         a line of >= 8 points is better fitted by two models\n"
	  "  volume            measured / expected (`expect` in the dependency file) drifts\n"
	  "\n"
	  "Output: one line per flag and the verdict; --json prints the stable contract\n"
	  "{verdict, flags: [{callpath, metric, kind, parameter, growth, p_value, detail}],\n"
	  "regions: [...]}; --html FILE writes a self-contained report with plots\n"
	  "(gnuplot; PERFSWEEP_GNUPLOT names another binary).  --metric M checks one\n"
	  "metric (default: time when present, else all).\n"
	  "\n"
	  "exit status: 0 publishable; 3 blocked: contention, segmented, or noisy points in\n"
	  "a modelled region (--strict: false-dependency and volume too); 2 input error.\n"
	  "See docs/validation.md." },
	{ "deps", cmd_deps, "deps FILE [--params a,b,...] [--all]",
	  "analyse a dependency file: pruned parameters, multiplicative groups",
	  "FILE is Perf-Taint's processed JSON or the native form (docs/dependencies.md).\n"
	  "--params a,b   analyse only these parameters; the others are held fixed\n"
	  "--all          list every function, not the first few" },
	{ "top", cmd_top, "top [CAMPAIGN_DIR ...] [-d SECONDS] [--once]",
	  "monitor campaigns: progress, budget, runs, flags; cancel and retry",
	  "Shows each campaign's progress against its plan and budget, its runs (sort,\n"
	  "filter with a regex or param=value), a run's argv, binding, history and output,\n"
	  "and noise flags.  Keys: ? help, / filter, < > sort, Enter details, Space mark,\n"
	  "c cancel, r retry, v validate, Tab next campaign, q quit.\n\n"
	  "  -d SECONDS  refresh interval (default 1)\n"
	  "  --once      print one plain-text snapshot of the screen and exit\n"
	  "              (size from $COLUMNS and $LINES, else the terminal, else 80x24)\n"
	  "NO_COLOR set and not empty turns colours off.  See docs/top.md." },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct cli_command *cli_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int cli_error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return code;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		fputs("error: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	const struct cli_command *c = cmd ? cli_find(cmd) : NULL;
	if (c)
		fprintf(stderr, "usage: perfsweep %s\n", c->usage);
	else
		fputs("usage: perfsweep <command> [options]  (see 'perfsweep help')\n", stderr);
	return EXIT_USAGE;
}

static void print_overview(FILE *f)
{
	fputs("usage: perfsweep <command> [options]\n\ncommands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\nexit codes:\n"
	      "  0  success\n"
	      "  1  runs failed (run), or an operation did not complete\n"
	      "  2  usage or input error (bad option, config, dependency file or data)\n"
	      "  3  validation found a blocking flag (validate)\n"
	      "\n'perfsweep help COMMAND' shows one command; 'perfsweep --version' the version.\n", f);
}

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stdout);
		return EXIT_OK;
	}
	const struct cli_command *c = cli_find(argv[1]);
	if (!c)
		return cli_usage("help", "unknown command '%s'", argv[1]);
	printf("usage: perfsweep %s\n\n%s\n", c->usage, c->summary);
	if (c->help)
		printf("\n%s\n", c->help);
	return EXIT_OK;
}

int cli_main(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("perfsweep %s\n", PERFSWEEP_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return cmd_help(1, argv + 1);
	const struct cli_command *c = cli_find(name);
	if (!c)
		return cli_usage(NULL, "unknown command '%s'", name);
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			char *hargv[] = { "help", (char *)name, NULL };
			return cmd_help(2, hargv);
		}
	return c->fn(argc - 1, argv + 1);
}
