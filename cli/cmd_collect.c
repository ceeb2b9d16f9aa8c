/*
 * perfsweep collect DIR | CONFIG [--dir DIR] [--json]: run the collectors
 * again over the stored outputs of every done run (orchestrator/recollect.h)
 * and say what changed.  Nothing runs again.
 */
#include "cli/cli.h"
#include "orchestrator/recollect.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void print_json(const struct recollect_report *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "campaign", json_string(r->name));
	json_object_set_new(o, "dir", json_string(r->dir));
	json_object_set_new(o, "runs", json_integer(r->runs));
	json_object_set_new(o, "runs_without_files", json_integer(r->no_files));
	json_object_set_new(o, "collectors", json_pack("{s:s, s:b, s:b}", "fingerprint", r->fingerprint,
		"changed", r->collectors_changed, "config_stored", r->config_stored));
	json_t *ms = json_array();
	for (int i = 0; i < r->nmetrics; i++) {
		const struct recollect_metric *m = &r->metrics[i];
		json_array_append_new(ms, json_pack("{s:s, s:s, s:o, s:i, s:i, s:i, s:i}", "region", m->region,
			"metric", m->metric, "collector", m->collector ? json_string(m->collector) : json_null(),
			"added", m->added, "changed", m->changed, "removed", m->removed, "unchanged", m->unchanged));
	}
	json_object_set_new(o, "metrics", ms);
	json_t *un = json_array();
	for (int i = 0; i < r->nmisses; i++)
		json_array_append_new(un, json_pack("{s:s, s:I}", "collector", r->misses[i].collector,
						    "runs", (json_int_t)r->misses[i].runs));
	json_object_set_new(o, "unmatched", un);
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

static void print_text(const struct recollect_report *r)
{
	printf("campaign '%s': %d done run%s re-collected, none run again\n", r->name, r->runs,
	       r->runs == 1 ? "" : "s");
	if (r->no_files)
		printf("%d done run%s without a run directory kept as %s\n", r->no_files,
		       r->no_files == 1 ? "" : "s", r->no_files == 1 ? "it was" : "they were");
	printf("collectors: %s%s\n", r->collectors_changed ? "changed" : "unchanged",
	       r->config_stored ? "; the config is stored with the campaign" : "");
	int quiet = 0;
	for (int i = 0; i < r->nmetrics; i++) {
		const struct recollect_metric *m = &r->metrics[i];
		if (!m->added && !m->changed && !m->removed) {
			quiet++;
			continue;
		}
		printf("  %s/%s: %d added, %d changed, %d removed, %d unchanged\n", m->region, m->metric,
		       m->added, m->changed, m->removed, m->unchanged);
	}
	if (quiet)
		printf("  %d region/metric%s unchanged in every run\n", quiet, quiet == 1 ? "" : "s");
	for (int i = 0; i < r->nmisses; i++)
		printf("collector %s matched nothing in %lld of %d runs\n", r->misses[i].collector,
		       r->misses[i].runs, r->runs + r->no_files);
}

static int exec_collect(struct cli_args *a)
{
	const char *arg = a->args[0], *dir = cli_value(a, 'd');
	struct stat sb;
	if (stat(arg, &sb))
		return cli_error(EXIT_USAGE, "cannot read '%s': %s; give a campaign DIR or a CONFIG", arg,
				 strerror(errno));
	int is_dir = S_ISDIR(sb.st_mode);
	if (is_dir && dir)
		return cli_usage("collect", "'%s' is a directory; with --dir give a CONFIG", arg);
	struct recollect_report r;
	struct perr err;
	cli_catch_stop();
	int rc = is_dir ? campaign_recollect(arg, NULL, &cli_stop, &r, &err)
						     : campaign_recollect(dir, arg, &cli_stop, &r, &err);
	if (rc)
		return cli_error(EXIT_USAGE, "%s", err.msg);
	if (cli_flag(a, 'j'))
		print_json(&r);
	else
		cli_display_stdout(), print_text(&r);
	int ret = r.nmisses ? EXIT_RUNS_FAILED : EXIT_OK;
	recollect_report_release(&r);
	return ret;
}

static const struct cli_option collect_options[] = {
	{ "dir", 'd', 1, NULL, NULL, "DIR", "the campaign to re-collect when CONFIG is given", NULL, 0 },
	{ "json", 'j', 0, NULL, NULL, NULL, "print the outcome as one JSON object", NULL, 0 },
	{ 0 },
};

const struct cli_entry cmd_collect_entry = {
	.name = "collect",
	.synopsis = "DIR | CONFIG",
	.summary = "run the collectors again over the stored outputs of every done run",
	.help = "Reads each done run's stored files again (stdout, stderr, rank files, profiles,\n"
		"named files) with the campaign's collectors and replaces its measurements, one\n"
		"transaction per run; nothing runs again.  With DIR the collectors are those of\n"
		"the config stored with the campaign; with CONFIG (and --dir DIR, default\n"
		"<name>.campaign beside it) they are CONFIG's, which may differ from the stored\n"
		"config only in its collect section and is then stored in its place.\n"
		"Prints, per region/metric, the runs whose values were added, changed, removed\n"
		"or unchanged; --json prints the same as one object.\n"
		"Exit status 0, 1 when a collector matched nothing in some done run, 2 for bad input.",
	.options = collect_options,
	.min_args = 1, .max_args = 1, .too_few = "missing DIR or CONFIG",
	.exec = exec_collect,
};
