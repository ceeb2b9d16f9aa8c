/*
 * perfsweep refine DIR [--budget CORE_HOURS] [--dry-run] [--json]: validate
 * a campaign, turn each actionable finding into runs within the budget
 * (refine/refine_campaign.h) and append them to the store for `run`.
 * Exit 0; 2 for a bad DIR, a campaign without measurements or without a
 * config (imported), a dependency file gone, or a store that cannot be
 * written (nothing is written then).
 */
#include "cli/cli.h"
#include "cli/refine_report.h"
#include "orchestrator/campaign_open.h"
#include <stdlib.h>
#include <string.h>

static int check_for(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (strcmp(o->arg, "accuracy"))
		return perr_set(err, "--for takes 'accuracy', not '%s'", o->arg);
	return 0;
}

static int check_budget(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_real(o->arg, &o->d) < 0 || o->d < 0)
		return perr_set(err, "--budget wants core-hours (a number >= 0), not '%s'", o->arg);
	return 0;
}

/* Append rc's runs, holding the campaign's lock (no `run` writes beside us). */
static int write_runs(const struct refine_campaign *rc, const char *dir, long long *written,
		      struct perr *err)
{
	struct campaign_open co;
	campaign_open_init(&co);
	int ret = campaign_open_existing(&co, dir, err);
	if (ret == 0)
		ret = refine_campaign_write(rc, co.st, written, err);
	campaign_open_release(&co);
	return ret ? -1 : 0;
}

static int exec_refine(struct cli_args *a)
{
	const char *dir = a->args[0];
	const struct cli_opt *bo = cli_opt(a, 'b');
	int dry = cli_flag(a, 'n') > 0, json = cli_flag(a, 'j') > 0;
	struct refine_campaign_options o;
	struct refine_campaign rc;
	struct perr err = { 0 };
	long long written = 0;
	int ret = EXIT_USAGE;
	memset(&o, 0, sizeof(o));
	o.budget = bo ? bo->d : -1;
	const char *goal = cli_value(a, 'f'), *target = cli_value(a, 't');
	if (target && !goal)
		return cli_usage("refine", "--target is the point --for accuracy aims at: give both");
	if (goal)
		o.accuracy = target ? target : "beyond";
	validate_options_init(&o.vo.vo);
	o.vo.campaign_deps = 1;
	if (refine_campaign_propose(&rc, dir, &o, &err) < 0) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (!rc.cv.validated) {
		cli_error(EXIT_USAGE, "no measurements in '%s': run it first", dir);
		goto out;
	}
	if (!dry && write_runs(&rc, dir, &written, &err) < 0) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (json) {
		json_t *j = refine_json(&rc, written);
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
		json_decref(j);
	} else {
		cli_display_stdout();
		refine_print_text(stdout, &rc, dir, written, dry);
	}
	ret = EXIT_OK;
out:
	refine_campaign_release(&rc);
	return ret;
}

static const struct cli_option refine_options[] = {
	{ "budget", 'b', 1, check_budget, NULL, "CORE_HOURS", "the core-hours refine may spend", NULL, 0 },
	{ "dry-run", 'n', 0, NULL, NULL, NULL, "propose, write nothing", NULL, 0 },
	{ "json", 'j', 0, NULL, NULL, NULL, "print the proposals as JSON", NULL, 0 },
	{ "for", 'f', 1, check_for, NULL, "accuracy", "also add the runs that most narrow the models' spread", NULL, 0 },
	{ "target", 't', 1, NULL, NULL, "P=V,...|beyond", "where --for accuracy narrows it (default beyond)", "for", 0 },
	{ 0 },
};

const struct cli_entry cmd_refine_entry = {
	.name = "refine",
	.synopsis = "DIR",
	.summary = "propose and store the runs that resolve a campaign's validation findings",
	.help = "Validates the campaign in DIR and turns each actionable finding into runs:\n"
		"  outlier        rerun that repetition as a new attempt (the old value stays\n"
		"                 in the store as an outlier; analysis takes the new one)\n"
		"  noise          more repetitions at the named points (double, up to 10)\n"
		"  segmented      points between the two values where the regime changes, so\n"
		"                 that the change is located to one step\n"
		"  extrapolation  (unstable) one larger value along that parameter\n"
		"  contention     (not-testable) the missing points of the baseline's line\n"
		"Each proposal is printed with its reason and cost.  The proposals stay within\n"
		"the remaining budget (the stored budget less what is spent and planned; --budget\n"
		"sets the core-hours refine may spend): the least valuable are dropped first and\n"
		"listed.  The runs are appended to the store as pending, in one transaction;\n"
		"`perfsweep run DIR` (or run CONFIG) executes them.  A campaign with runs not yet\n"
		"executed is not refined: run them first; imported measurements are not refined\n"
		"either (no config to run new runs with).  --dry-run writes nothing.\n"
		"--json prints {proposals: [{params, placement, repetitions, core_hours, reason,\n"
		"finding}], budget: {remaining, used_by_proposals}, dropped: [...], verdict,\n"
		"pending, runs}.  --for accuracy adds, after those, the runs that most narrow the\n"
		"spread of bootstrapped models' predictions at --target (p=4096,size=60; default\n"
		"beyond: one step beyond every parameter's largest value), per core-hour, within\n"
		"what the budget leaves (without one, half of what the campaign has spent); --json\n"
		"adds accuracy: {target, regions, region, spread_before, spread_after}.  See\n"
		"docs/refine.md.\n"
		"exit status: 0; 2 input error (nothing written).",
	.options = refine_options,
	.min_args = 1, .max_args = 1, .too_few = "no DIR given", .too_many = "more than one DIR given",
	.exec = exec_refine,
};
