/*
 * `perfsweep probe CONFIG`: run the campaign's cheapest point a few times
 * now, and say whether this machine is quiet enough for the campaign
 * (orchestrator/probe.h): the noise, the disturbance and who caused it,
 * what the campaign's repetitions can detect at that noise, and "go" or
 * "the machine is busy".
 */
#include "cli/cli.h"
#include "common/progpath.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/probe.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *probe_json(const struct probe_result *r)
{
	json_t *o = json_object(), *regions = json_array(), *causes = json_array(), *growth = json_object();
	json_object_set_new(o, "verdict", json_string(r->busy ? "busy" : r->unjudged ? "not judged" : "go"));
	json_object_set_new(o, "point", json_string(r->point));
	json_t *short_ones = json_array();
	for (int i = 0; i < r->ntoo_short; i++)
		json_array_append_new(short_ones, json_string(r->too_short[i]));
	json_object_set_new(o, "too_short", short_ones);
	json_object_set_new(o, "metric", json_string(r->metric));
	json_object_set_new(o, "runs", json_integer(r->runs));
	json_object_set_new(o, "done", json_integer(r->done));
	json_object_set_new(o, "seconds", json_real(r->seconds));
	json_object_set_new(o, "signals", json_pack("{s:b, s:b, s:b, s:b}", "census", r->signals.last_cpu,
						    "run_queue_delay", r->signals.schedstat, "cpu_pressure",
						    r->signals.pressure, "steal_time", r->signals.steal));
	json_object_set_new(o, "disturbed", json_integer(r->disturbed.n));
	json_object_set_new(o, "judged", json_integer(r->disturbed.njudged));
	for (int i = 0; i < r->ncauses; i++)
		json_array_append_new(causes, json_pack("{s:I, s:s, s:i, s:f}", "pid", (json_int_t)r->causes[i].pid,
							"command", r->causes[i].comm, "core", r->causes[i].core,
							"share", r->causes[i].share));
	json_object_set_new(o, "causes", causes);
	for (int i = 0; i < r->nregions; i++) {
		const struct probe_region *g = &r->regions[i];
		json_t *x = json_pack("{s:s, s:f, s:i, s:i}", "region", g->region, "mean", g->mean, "runs", g->n,
				      "undisturbed", g->kept);
		json_object_set_new(x, "cov", num_or_null(g->cov));
		json_object_set_new(x, "cov_undisturbed", num_or_null(g->cov_kept));
		json_array_append_new(regions, x);
	}
	json_object_set_new(o, "regions", regions);
	json_object_set_new(o, "cov", num_or_null(r->cov));
	json_object_set_new(o, "repetitions", json_integer(r->repetitions));
	json_object_set_new(o, "alpha", json_real(PROBE_ALPHA));
	json_object_set_new(o, "power", json_real(PROBE_POWER));
	json_object_set_new(o, "detectable_difference", num_or_null(r->detectable_difference));
	for (int k = 0; k < r->nparams; k++)
		json_object_set_new(growth, r->params[k], num_or_null(r->detectable_growth[k]));
	json_object_set_new(o, "detectable_growth", growth);
	return o;
}

static void print_percent(double x)
{
	if (isfinite(x))
		printf("%.1f%%", 100 * x);
	else
		printf("none");
}

/* The last line: go, or who keeps the machine busy. */
static void print_verdict(const struct probe_result *r)
{
	if (r->unjudged) {
		printf("not judged: every run lasted under %g s, too short to tell; probe a larger input\n",
		       DISTURBED_MIN_WALL);
		return;
	}
	if (!r->busy) {
		printf("go\n");
		return;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; i < r->ncauses && i < 3; i++) {
		strbuf_addstr(&sb, i ? ", " : "");
		if (r->causes[i].pid)
			strbuf_addf(&sb, "pid %ld (%s) ", r->causes[i].pid, r->causes[i].comm);
		else
			strbuf_addf(&sb, "%s ", r->causes[i].comm);
		strbuf_addf(&sb, "on core %d", r->causes[i].core);
	}
	if (!r->ncauses)
		strbuf_addstr(&sb, "other programs on its cores");
	printf("the machine is busy: %s; wait or use an exclusive node\n", sb.buf);
	strbuf_release(&sb);
}

static void probe_text(const struct probe_result *r, const char *name)
{
	struct strbuf sb;
	strbuf_init(&sb);
	census_signals_describe(&r->signals, &sb);
	if (r->ntoo_short) {   /* a dearer point than the cheapest */
		printf("probe: campaign '%s', point %s (", name, r->point);
		for (int i = 0; i < r->ntoo_short; i++)
			printf("%s%s", i ? "; " : "", r->too_short[i]);
		printf(": every run under %g s, too short to judge), %d of %d runs done now (%.1f s)\n",
		       DISTURBED_MIN_WALL, r->done, r->runs, r->seconds);
	} else {
		printf("probe: campaign '%s', its cheapest point %s, %d of %d runs done now (%.1f s)\n", name,
		       r->point, r->done, r->runs, r->seconds);
	}
	printf("signals: %s\n", sb.buf);
	strbuf_reset(&sb);
	if (r->disturbed.n) {
		disturbed_causes_text(&sb, r->causes, r->ncauses, 3);
		printf("disturbed: %d of %d runs%s%s\n", r->disturbed.n, r->disturbed.njudged, sb.len ? ": " : "",
		       sb.buf);
	} else if (r->disturbed.njudged) {
		printf("disturbed: none of %d runs\n", r->disturbed.njudged);
	} else {
		printf("disturbed: not judged (every run under %g s)\n", DISTURBED_MIN_WALL);
	}
	if (r->nregions) {
		const struct probe_region *g = &r->regions[0];
		printf("noise: %s CoV ", r->metric);
		print_percent(g->cov);
		printf(" over %d runs (region '%s'", g->n, g->region);
		if (g->kept != g->n) {
			printf("; ");
			print_percent(g->cov_kept);
			printf(" over the %d undisturbed", g->kept);
		}
		printf(")\n");
	}
	printf("detectable at %d repetitions (alpha %g, power %.0f%%): a difference of ", r->repetitions,
	       PROBE_ALPHA, 100 * PROBE_POWER);
	print_percent(r->detectable_difference);
	printf(" between two points");
	for (int k = 0; k < r->nparams; k++) {
		printf("%s", k ? ", " : "; growth of ");
		print_percent(r->detectable_growth[k]);
		printf(" along %s", r->params[k]);
	}
	printf("\n");
	print_verdict(r);
	strbuf_release(&sb);
}

static int check_runs(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_int(o->arg, 2, 100, &o->i) < 0)
		return perr_set(err, "--runs takes a number from 2 to 100, not '%s'", o->arg);
	return 0;
}

static int exec_probe(struct cli_args *a)
{
	struct campaign_config cfg;
	struct perr err;
	memset(&cfg, 0, sizeof(cfg));
	if (config_load(&cfg, a->args[0], &err)) {
		config_release(&cfg);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	char *bind = progpath_find("perfsweep-bind");
	const struct cli_opt *runs = cli_opt(a, 'n');
	struct probe_options o = { .runs = runs ? (int)runs->i : 0, .dir = cli_value(a, 'd'),
				   .bind_path = bind ? bind : "perfsweep-bind", .stop = &cli_stop };
	struct probe_result r;
	cli_catch_stop();
	int ret = EXIT_OK;
	if (probe_run(&cfg, &o, &r, &err)) {
		ret = cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
	} else if (cli_flag(a, 'j')) {
		json_t *j = probe_json(&r);
		char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		puts(text);
		free(text);
		json_decref(j);
	} else {
		cli_display_stdout();
		probe_text(&r, cfg.name);
	}
	if (ret == EXIT_OK && (r.busy || r.unjudged))
		ret = EXIT_BLOCKED;
	probe_result_release(&r);
	config_release(&cfg);
	free(bind);
	return ret;
}

static const struct cli_option probe_options[] = {
	{ "json", 'j', 0, NULL, NULL, NULL, "print one JSON object", NULL, 0 },
	{ "runs", 'n', 1, check_runs, NULL, "N", "run the cheapest point N times (default 5)", NULL, 0 },
	{ "dir", 'd', 1, NULL, NULL, "DIR", "keep the probe's campaign there", NULL, 0 },
	{ 0 },
};

const struct cli_entry cmd_probe_entry = {
	.name = "probe",
	.synopsis = "CONFIG",
	.summary = "is this machine quiet enough for the campaign now?",
	.help = "Runs the campaign's cheapest point N times (--runs, default 5) now, on this machine's\n"
		"local backend, in a campaign of its own (removed afterwards; --dir DIR keeps it there),\n"
		"and says which disturbance signals the kernel offers, how many runs other programs\n"
		"disturbed and who (pid, command, core, share), the noise of the runs, and the smallest\n"
		"difference between two points and growth along each parameter the campaign's\n"
		"repetitions can detect at that noise (alpha 0.01, power 80%).  The last line is \"go\"\n"
		"or \"the machine is busy: pid ... (...) on core ...; wait or use an exclusive node\".\n"
		"A point whose runs all last under 0.1 s cannot be judged: the next dearer one is run\n"
		"instead, up to 4 points; when none can be, the last line says \"not judged\".\n"
		"--json prints one object: verdict (go, busy, not judged), point, too_short (the points\n"
		"skipped), metric, runs, done, seconds, signals, disturbed, judged, causes [{pid,\n"
		"command, core, share}], regions [{region, mean, runs, undisturbed, cov,\n"
		"cov_undisturbed}], cov, repetitions, alpha, power, detectable_difference,\n"
		"detectable_growth {parameter: growth}.\n"
		"Exit status 0 go, 3 busy or not judged, 1 when the runs failed, 2 for a bad config.",
	.options = probe_options,
	.min_args = 1, .max_args = 1, .too_few = "missing CONFIG", .too_many = "unexpected argument '%s'",
	.exec = exec_probe,
};
