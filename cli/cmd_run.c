/* perfsweep run CONFIG|DIR [--dir DIR] [--jobs N] [--until publishable [--rounds N]]: execute or resume a campaign. */
#include "common/progpath.h"
#include "common/xalloc.h"
#include "cli/cli.h"
#include "cli/run_until.h"
#include "orchestrator/adaptive.h"
#include "campaign/config.h"
#include "orchestrator/campaign_open.h"
#include "orchestrator/plan_build.h"
#include "orchestrator/runner.h"
#include "campaign/store.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_event(void *ctx, long long id, const char *what, const char *detail)
{
	int quiet = *(int *)ctx;
	if (quiet && strcmp(what, "failed") && strcmp(what, "retry") &&
	    strcmp(what, "done-with-collection-error") && strcmp(what, "warning"))
		return;
	if (id <= 0) {
		fprintf(stderr, "%s: %s\n", what, detail ? detail : "");
		return;
	}
	fprintf(stderr, "run %lld: %s%s%s\n", id, what, detail ? ": " : "", detail ? detail : "");
}

/* perfsweep-bind: beside this executable, else in PATH; else the bare name
   (the launch then fails with "cannot execute"). */
static char *bind_path(void)
{
	char *p = progpath_find("perfsweep-bind");
	return p ? p : xstrdup("perfsweep-bind");
}

static int check_jobs(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_int(o->arg, 1, 4096, &o->i) < 0)
		return perr_set(err, "--jobs takes a number from 1 to 4096, not '%s'", o->arg);
	return 0;
}

static int check_until(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (strcmp(o->arg, "publishable"))
		return perr_set(err, "--until takes 'publishable', not '%s'", o->arg);
	return 0;
}

static int check_for(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (strcmp(o->arg, "accuracy"))
		return perr_set(err, "--for takes 'accuracy', not '%s'", o->arg);
	return 0;
}

static int check_rounds(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_int(o->arg, 1, 1000, &o->i) < 0)
		return perr_set(err, "--rounds takes a number from 1 to 1000, not '%s'", o->arg);
	return 0;
}

static int check_wait_quiet(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_real(o->arg, &o->d) < 0 || !(o->d >= 0 && o->d <= 86400))
		return perr_set(err, "--wait-quiet takes seconds from 0 to 86400, not '%s'", o->arg);
	return 0;
}

/* Say what a campaign that was already there grew by. */
static void report_growth(const struct campaign_open *co, const struct campaign_config *cfg)
{
	const struct store_diff *d = &co->diff;
	if (!co->grows || !(d->added || d->retiring || d->unretired))
		return;
	fprintf(stderr, "campaign '%s' grew: %lld runs added, %lld kept (%lld done, %lld back from"
		" retired), %lld retired", cfg->name, d->added, d->kept, d->kept_done, d->unretired, d->retired);
	if (d->kept_outside_points)
		fprintf(stderr, "; %d point%s added by refine kept", d->kept_outside_points,
			d->kept_outside_points == 1 ? "" : "s");
	fputc('\n', stderr);
}

/* --wait-quiet over backend.wait_quiet: the local backend's quiet gate
   (the backend's own check refuses it elsewhere, at the plan). */
static int quiet_gate(struct campaign_config *cfg, const struct cli_opt *wait_quiet)
{
	if (wait_quiet)
		cfg->backend.wait_quiet = wait_quiet->d;
	return 0;
}

/* Each collector that matched nothing in some done runs, named with the
   count; returns how many collectors did. */
static int report_misses(struct store *st, long long done, const char *cfg_path, const char *campaign_dir)
{
	struct store_miss *m;
	int n;
	struct perr err;
	if (store_collect_misses(st, &m, &n, &err)) {
		cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
		return 1;
	}
	for (int i = 0; i < n; i++)
		printf("collector %s matched nothing in %lld of %lld done runs\n", m[i].collector, m[i].runs, done);
	if (n)
		fprintf(stderr, "%d collector%s matched nothing: fix the collect section, then "
			"perfsweep collect %s --dir %s (nothing runs again)\n", n, n == 1 ? "" : "s",
			cfg_path, campaign_dir);
	store_misses_free(m, n);
	return n;
}

/* The campaign's state after the session, and the exit code it means. */
static int report(struct store *st, const char *name, const char *cfg_path, const char *campaign_dir,
		  const struct runner_stats *rs)
{
	struct store_counts cnt;
	struct perr err;
	if (store_counts(st, &cnt, &err))
		return cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
	printf("campaign '%s': %lld planned, %lld done, %lld failed, %lld cancelled, %lld pending\n",
	       name, cnt.planned, cnt.done, cnt.failed, cnt.cancelled,
	       cnt.pending + cnt.submitted + cnt.running);
	printf("this session: %d started, %d retried, %d re-run after a restart, %d adopted",
	       rs->started, rs->retried, rs->rerun, rs->adopted);
	if (rs->again)   /* not after a restart: an attempt of this session ended without a result */
		printf(", %d started again (an attempt ended without a result)", rs->again);
	printf("\n");
	printf("store: %s/campaign.db\n", campaign_dir);
	int missed = report_misses(st, cnt.done, cfg_path, campaign_dir);
	if (rs->budget_stopped) {
		fprintf(stderr, "stopped starting runs: the budget would be overrun (runs in flight finished); "
			"raise budget.overrun or budget.core_hours, then run again to go on\n");
		return EXIT_RUNS_FAILED;
	}
	if (rs->interrupted) {
		fprintf(stderr, "interrupted: run the same command again to resume\n");
		return EXIT_RUNS_FAILED;
	}
	return cnt.failed || missed ? EXIT_RUNS_FAILED : EXIT_OK;
}

static int exec_run(struct cli_args *a)
{
	const struct cli_opt *jo = cli_opt(a, 'j');
	long jobs = jo ? (long)jo->i : 0;      /* 0: the default, once the config is read */
	int quiet = cli_flag(a, 'q') > 0;
	struct campaign_config cfg;
	struct perr err;
	struct plan pl;
	struct backend *b = NULL;
	int ret = EXIT_USAGE;
	char *bind = NULL;
	struct campaign_open co;
	campaign_open_init(&co);
	if (cli_opt(a, 'r') && !cli_value(a, 'u'))
		return cli_error(EXIT_USAGE, "--rounds counts the rounds of --until publishable; give both");
	const char *goal = cli_value(a, 'f'), *target = cli_value(a, 't');
	if ((goal || target) && !cli_value(a, 'u'))
		return cli_error(EXIT_USAGE, "--for accuracy refines the rounds of --until publishable; give both");
	if (target && !goal)
		return cli_error(EXIT_USAGE, "--target is the point --for accuracy aims at: give both");
	char *given_dir = NULL, *cfg_path = run_config_path(a->args[0], &given_dir, &err);
	memset(&pl, 0, sizeof(pl));
	memset(&cfg, 0, sizeof(cfg));
	/* everything that can refuse (the config, the campaign there, the
	   backend) before anything is written */
	if (!cfg_path || config_load(&cfg, cfg_path, &err) || quiet_gate(&cfg, cli_opt(a, 'w')) ||
	    plan_build(&pl, &cfg, &err) ||
	    campaign_open_check(&co, given_dir ? given_dir : cli_value(a, 'd'), &cfg, &pl, &err) ||
	    campaign_open_backend(&co, &cfg, (int)jobs, &b, &err) ||
	    campaign_open_store(&co, &cfg, &pl, &err)) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	report_growth(&co, &cfg);
	if (co.analysis)        /* stored with the config: every later analysis judges with it */
		fprintf(stderr, "analysis settings changed: %s; no run is measured again\n", co.analysis);
	struct store *st = co.st;
	const char *campaign_dir = co.dir;
	bind = bind_path();
	cli_catch_stop();
	struct runner_options ro = { .bind_path = bind, .stop = &cli_stop, .event = on_event, .ctx = &quiet };
	struct runner_stats rs;
	fprintf(stderr, "campaign '%s' in %s: %d points, %lld runs\n", cfg.name, campaign_dir, pl.npoints, pl.runs);
	const struct cli_opt *rounds = cli_opt(a, 'r');
	int passes = 0;
	memset(&rs, 0, sizeof(rs));
	if (cli_value(a, 'u')) {
		ret = run_until_publishable(st, campaign_dir, &cfg, b, &ro, rounds ? rounds->i : 3,
					    goal ? (target ? target : "beyond") : NULL, &rs);
		int r2 = ret == EXIT_USAGE ? ret : report(st, cfg.name, cfg.path, campaign_dir, &rs);
		ret = r2 == EXIT_OK ? ret : r2;
	} else if (campaign_execute(st, &cfg, b, &ro, &rs, &passes, &err)) {
		ret = cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
	} else {
		if (passes)
			fprintf(stderr, "adaptive repetitions: %d extra pass%s\n", passes, passes == 1 ? "" : "es");
		ret = report(st, cfg.name, cfg.path, campaign_dir, &rs);
	}
out:
	if (b)
		b->ops->free(b);
	campaign_open_release(&co);
	plan_release(&pl);
	if (cfg_path)           /* config_load ran */
		config_release(&cfg);
	free(bind);
	free(cfg_path);
	free(given_dir);
	return ret;
}

static const struct cli_option run_options[] = {
	{ "dir", 'd', 1, NULL, NULL, "DIR", "the campaign directory (default: <name>.campaign beside CONFIG)", NULL, 0 },
	{ "jobs", 'j', 1, check_jobs, NULL, "N", "at most N runs at once on the local backend", NULL, 0 },
	{ "quiet", 'q', 0, NULL, NULL, NULL, "no progress lines", NULL, 0 },
	{ "until", 'u', 1, check_until, NULL, "publishable", "run, validate, refine and repeat", NULL, 0 },
	{ "rounds", 'r', 1, check_rounds, NULL, "N", "with --until: at most N rounds (default 3)", "until", 0 },
	{ "wait-quiet", 'w', 1, check_wait_quiet, NULL, "SECONDS", "wait up to SECONDS for quiet cores before each run", NULL, 0 },
	{ "for", 'f', 1, check_for, NULL, "accuracy", "with --until: also narrow the models' spread each round", "until", 0 },
	{ "target", 't', 1, NULL, NULL, "P=V,...|beyond", "where --for accuracy narrows it (default beyond)", "for", 0 },
	{ 0 },
};

const struct cli_entry cmd_run_entry = {
	.name = "run",
	.synopsis = "CONFIG|DIR",
	.summary = "execute (or resume) every planned run that has not completed",
	.help = "Creates the campaign directory (default: <name>.campaign beside CONFIG) or reuses it,\n"
		"then runs every planned run that is not done.  Interrupted campaigns (Ctrl-C, kill -9,\n"
		"a reboot) resume from the store: run the same command again.  A changed plan grows\n"
		"the campaign: new runs are added, runs that left the plan are retired (kept, not\n"
		"analysed), done runs never run again ('perfsweep plan CONFIG --dir DIR' shows the\n"
		"difference); a change of what the stored runs mean (app.command, app.env,\n"
		"app.workdir, collect, the backend, a parameter's role, a point's placement) is\n"
		"refused (exit 2) before anything is written; a changed analysis section is applied\n"
		"to every later analysis and said (\"analysis settings changed: min_cpu_share 0.9 -> 0;\n"
		"no run is measured again\").\n"
		"DIR instead of CONFIG runs a campaign directory with the config it was run with\n"
		"(unchanged since), for example the runs `perfsweep refine DIR` added.\n"
		"--jobs N runs at most N runs at once on the local backend, each on cores of its own\n"
		"(default: online CPUs; 1 for a campaign with a placement or contention section).\n"
		"--wait-quiet SECONDS: before each run starts, wait up to SECONDS until no other\n"
		"program uses its cores (local backend; overrides backend.wait_quiet, 0 turns it off);\n"
		"`perfsweep status` says how long the runs waited.\n"
		"Adaptive repetitions (repetitions = { min; max; target; }): after min repetitions,\n"
		"points whose median is not known to within target get one more pass at a time.\n"
		"--until publishable: run, validate, refine and repeat, at most --rounds N rounds\n"
		"(default 3), within the budget; prints the verdict after each round and stops when\n"
		"publishable, when nothing actionable is left, when the budget is spent, or when the\n"
		"reruns of disturbed runs come back disturbed (\"the machine is shared\").\n"
		"--for accuracy [--target T]: each round also adds the runs that most narrow the\n"
		"models' spread at T (as `refine --for accuracy`); publishable then also waits\n"
		"until none is proposed, or the last round.\n"
		"A collect section that differs from the one the runs were collected with is refused:\n"
		"re-collect first with `perfsweep collect CONFIG --dir DIR`.\n"
		"Exit status 0 when every run is done (with --until: and publishable), 1 when some\n"
		"failed for good or a collector matched nothing in some done run (the summary names\n"
		"it and the count), 3 with --until when the campaign is still blocked.",
	.options = run_options,
	.min_args = 1, .max_args = 1, .too_few = "missing CONFIG",
	.exec = exec_run,
};
