/* perfsweep plan CONFIG [--json] [--explain]: the runs a campaign would execute. */
#include "common/xalloc.h"
#include "orchestrator/cli.h"
#include "orchestrator/config.h"
#include "orchestrator/plan_build.h"
#include "orchestrator/template.h"
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_json(const struct plan *pl)
{
	json_t *root = json_object(), *points = json_array();
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = &pl->points[i];
		json_t *p = json_object(), *params = json_object(), *place = json_object();
		for (int k = 0; k < pl->nparams; k++)
			json_object_set_new(params, pl->params[k].name,
					    pl->params[k].is_int ? json_integer((json_int_t)pt->values[k])
								 : json_real(pt->values[k]));
		json_object_set_new(place, "nodes", json_integer(pt->nodes));
		json_object_set_new(place, "ranks_per_node", json_integer(pt->ranks_per_node));
		json_object_set_new(place, "policy", pt->policy ? json_string(pt->policy) : json_null());
		json_object_set_new(p, "params", params);
		json_object_set_new(p, "placement", place);
		json_object_set_new(p, "repetitions", json_integer(pt->repetitions));
		json_object_set_new(p, "core_hours", json_real(pt->core_hours));
		json_object_set_new(p, "reason", json_string(pt->reason ? pt->reason : ""));
		json_array_append_new(points, p);
	}
	json_object_set_new(root, "points", points);
	json_t *totals = json_object();
	json_object_set_new(totals, "points", json_integer(pl->npoints));
	json_object_set_new(totals, "runs", json_integer(pl->runs));
	json_object_set_new(totals, "core_hours", json_real(pl->core_hours));
	json_object_set_new(root, "totals", totals);
	json_object_set_new(root, "full_factorial", json_deep_copy(totals));
	json_object_set_new(root, "pruned", json_array());
	json_object_set_new(root, "groups", json_array());
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	putchar('\n');
	json_decref(root);
}

static void print_table(const struct plan *pl)
{
	for (int k = 0; k < pl->nparams; k++)
		printf("%10s ", pl->params[k].name);
	printf("%5s %12s  %s\n", "reps", "core-hours", "reason");
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = &pl->points[i];
		for (int k = 0; k < pl->nparams; k++) {
			char v[64];
			template_format_value(v, sizeof(v), pt->values[k], pl->params[k].is_int);
			printf("%10s ", v);
		}
		printf("%5d %12.4g  %s\n", pt->repetitions, pt->core_hours, pt->reason ? pt->reason : "");
	}
	printf("total: %d points, %lld runs, %.4g core-hours\n", pl->npoints, pl->runs, pl->core_hours);
}

int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "explain", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'e': break;
		default: return cli_usage("plan", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage("plan", optind >= argc ? "missing CONFIG" : "too many arguments");
	struct campaign_config cfg;
	struct perr err;
	struct plan pl;
	if (config_load(&cfg, argv[optind], &err)) {
		config_release(&cfg);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	int rc = plan_build(&pl, &cfg, &err);
	config_release(&cfg);
	if (rc)
		return cli_error(EXIT_USAGE, "%s", err.msg);
	if (json)
		print_json(&pl);
	else
		print_table(&pl);
	plan_release(&pl);
	return EXIT_OK;
}
