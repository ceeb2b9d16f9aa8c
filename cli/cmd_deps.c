/*
 * perfsweep deps FILE [--params a,b,...] [--all]: read a dependency file
 * (Perf-Taint processed JSON or the native form) and print its analysis:
 * what each parameter affects, pruned parameters, multiplicative groups,
 * additive-only parameters and constant functions.
 */
#include "designs/analysis.h"
#include "designs/deps.h"
#include "common/xalloc.h"
#include "cli/cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_names(const struct deps *d, const char *flags, const char *none)
{
	int n = 0;
	for (int k = 0; k < d->nparams; k++)
		if (flags[k])
			printf("%s%s", n++ ? ", " : "", d->params[k]);
	printf("%s\n", n ? "" : none);
}

/* The table of parameters: what each affects and how. */
static void print_params(const char *path, const struct deps *d, const struct deps_analysis *a)
{
	int withloops = 0;
	for (int f = 0; f < d->nfuncs; f++)
		withloops += d->funcs[f].nterms > 0;
	printf("dependencies: %s\n", path);
	printf("%d parameters, %d functions (%d with parameter-dependent loops)\n\n", d->nparams,
	       d->nfuncs, withloops);
	printf("%-16s %9s %6s  %s\n", "parameter", "functions", "loops", "dependency");
	for (int k = 0; k < d->nparams; k++) {
		const char *kind;
		if (!a->selected[k])
			kind = "held fixed (not in --params)";
		else if (a->pruned[k])
			kind = "none: pruned";
		else if (a->additive[k])
			kind = "additive only";
		else
			kind = "multiplicative";
		printf("%-16s %9d %6d  %s\n", d->params[k], a->nfuncs[k], a->nloops[k], kind);
	}
}

/* The multiplicative groups, each with the functions that hold its product term. */
static void print_groups(const struct deps *d, const struct deps_analysis *a, int all)
{
	printf("multiplicative groups (need combined points):%s\n", a->ngroups ? "" : " none");
	for (int g = 0; g < a->ngroups; g++) {
		const struct deps_group *gr = &a->groups[g];
		printf("  ");
		for (int i = 0; i < gr->n; i++)
			printf("%s%s", i ? " * " : "", d->params[gr->params[i]]);
		printf("\n    product term in %d function%s:", gr->nfuncs, gr->nfuncs == 1 ? "" : "s");
		for (int i = 0; i < gr->nfuncs; i++) {
			if (!all && i == 12) {
				printf(" ... and %d more (--all lists them)", gr->nfuncs - i);
				break;
			}
			printf("%s %s", i ? "," : "", d->funcs[gr->funcs[i]].name);
		}
		printf("\n    %d function%s multiply two or more of these parameters\n", gr->nrelated,
		       gr->nrelated == 1 ? "" : "s");
	}
}

/* The functions' expected volumes (`expect`), which validate's volume check tests. */
static void print_expects(const struct deps *d)
{
	int nexpect = 0;
	for (int f = 0; f < d->nfuncs; f++)
		nexpect += d->funcs[f].expect != NULL;
	printf("expected volumes (expect, checked by validate's volume check):%s\n", nexpect ? "" : " none");
	for (int f = 0; f < d->nfuncs; f++)
		if (d->funcs[f].expect)
			printf("  %s: %s\n", d->funcs[f].name, d->funcs[f].expect);
}

static void print_analysis(const char *path, const struct deps *d, const struct deps_analysis *a,
			   int all)
{
	print_params(path, d, a);
	printf("\npruned parameters (affect no loop; fixed at their baseline): ");
	print_names(d, a->pruned, "none");
	printf("additive-only parameters (one-parameter lines suffice): ");
	print_names(d, a->additive, "none");
	print_groups(d, a, all);
	printf("constant functions (no dependency, no need to model): %d\n", a->nconst);
	for (int i = 0; i < a->nconst; i++) {
		if (!all && i == 10) {
			printf("  ... and %d more (--all lists them)\n", a->nconst - i);
			break;
		}
		printf("  %s\n", d->funcs[a->consts[i]].name);
	}
	print_expects(d);
}

static int exec_deps(struct cli_args *args)
{
	const char *params = cli_value(args, 'p'), *path = args->args[0];
	struct deps d;
	struct perr err;
	if (deps_read(&d, path, &err) < 0)
		return cli_error(EXIT_USAGE, "%s", err.msg);
	char **sel = NULL, *copy = NULL;
	int nsel = 0, ret = EXIT_OK;
	if (params) {
		copy = xstrdup(params);
		for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			sel = xrealloc(sel, sizeof(char *) * (size_t)(nsel + 1));
			sel[nsel++] = t;
		}
	}
	struct deps_analysis a;
	if (params && !nsel) {
		ret = cli_usage("deps", "--params needs parameter names, like --params size,p");
	} else if (deps_analyze(&a, &d, sel, nsel, &err) < 0) {
		ret = cli_error(EXIT_USAGE, "%s", err.msg);
	} else {
		cli_display_stdout();
		print_analysis(path, &d, &a, cli_flag(args, 'a') > 0);
		deps_analysis_release(&a);
	}
	free(sel);
	free(copy);
	deps_release(&d);
	return ret;
}

static const struct cli_option deps_options[] = {
	{ "params", 'p', 1, NULL, NULL, "a,b,...", "the parameters, in this order (default: all the file names)", NULL, 0 },
	{ "all", 'a', 0, NULL, NULL, NULL, "list every function, not only those that depend on a parameter", NULL, 0 },
	{ 0 },
};

const struct cli_entry cmd_deps_entry = {
	.name = "deps",
	.synopsis = "FILE",
	.summary = "analyse a dependency file: pruned parameters, multiplicative groups",
	.help = "FILE is Perf-Taint's processed JSON or the native form (docs/dependencies.md).\n"
		"--params a,b   analyse only these parameters; the others are held fixed\n"
		"--all          list every function, not the first few",
	.options = deps_options,
	.shortopts = "p:a",
	.min_args = 1, .max_args = 1, .too_few = "missing dependency file",
	.exec = exec_deps,
};
