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
#include <getopt.h>
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

int cmd_deps(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "params", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	char *params = NULL;
	int all = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:a", opts, NULL)) != -1) {
		switch (c) {
		case 'p': params = optarg; break;
		case 'a': all = 1; break;
		default: return cli_usage("deps", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage("deps", optind >= argc ? "missing dependency file" : "too many arguments");
	const char *path = argv[optind];
	struct deps d;
	struct perr err;
	if (deps_read(&d, path, &err) < 0)
		return cli_error(EXIT_USAGE, "%s", err.msg);
	char **sel = NULL;
	int nsel = 0;
	char *copy = NULL;
	if (params) {
		copy = xstrdup(params);
		for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			sel = xrealloc(sel, sizeof(char *) * (size_t)(nsel + 1));
			sel[nsel++] = t;
		}
		if (!nsel) {
			free(copy);
			deps_release(&d);
			return cli_usage("deps", "--params needs parameter names, like --params size,p");
		}
	}
	struct deps_analysis a;
	if (deps_analyze(&a, &d, sel, nsel, &err) < 0) {
		free(sel);
		free(copy);
		deps_release(&d);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	int withloops = 0;
	for (int f = 0; f < d.nfuncs; f++)
		withloops += d.funcs[f].nterms > 0;
	printf("dependencies: %s\n", path);
	printf("%d parameters, %d functions (%d with parameter-dependent loops)\n\n", d.nparams,
	       d.nfuncs, withloops);
	printf("%-16s %9s %6s  %s\n", "parameter", "functions", "loops", "dependency");
	for (int k = 0; k < d.nparams; k++) {
		const char *kind;
		if (!a.selected[k])
			kind = "held fixed (not in --params)";
		else if (a.pruned[k])
			kind = "none: pruned";
		else if (a.additive[k])
			kind = "additive only";
		else
			kind = "multiplicative";
		printf("%-16s %9d %6d  %s\n", d.params[k], a.nfuncs[k], a.nloops[k], kind);
	}
	printf("\npruned parameters (affect no loop; fixed at their baseline): ");
	print_names(&d, a.pruned, "none");
	printf("additive-only parameters (one-parameter lines suffice): ");
	print_names(&d, a.additive, "none");
	printf("multiplicative groups (need combined points):%s\n", a.ngroups ? "" : " none");
	for (int g = 0; g < a.ngroups; g++) {
		const struct deps_group *gr = &a.groups[g];
		printf("  ");
		for (int i = 0; i < gr->n; i++)
			printf("%s%s", i ? " * " : "", d.params[gr->params[i]]);
		printf("\n    product term in %d function%s:", gr->nfuncs, gr->nfuncs == 1 ? "" : "s");
		int shown = 0;
		for (int i = 0; i < gr->nfuncs; i++) {
			if (!all && shown == 12) {
				printf(" ... and %d more (--all lists them)", gr->nfuncs - shown);
				break;
			}
			printf("%s %s", i ? "," : "", d.funcs[gr->funcs[i]].name);
			shown++;
		}
		printf("\n    %d function%s multiply two or more of these parameters\n", gr->nrelated,
		       gr->nrelated == 1 ? "" : "s");
	}
	printf("constant functions (no dependency, no need to model): %d\n", a.nconst);
	for (int i = 0; i < a.nconst; i++) {
		if (!all && i == 10) {
			printf("  ... and %d more (--all lists them)\n", a.nconst - i);
			break;
		}
		printf("  %s\n", d.funcs[a.consts[i]].name);
	}
	print_expects(&d);
	deps_analysis_release(&a);
	free(sel);
	free(copy);
	deps_release(&d);
	return EXIT_OK;
}
