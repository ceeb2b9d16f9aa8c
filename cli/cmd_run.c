/* perfsweep run CONFIG [--dir DIR] [--jobs N]: execute or resume a campaign. */
#include "common/xalloc.h"
#include "cli/cli.h"
#include "orchestrator/config.h"
#include "orchestrator/plan_build.h"
#include "orchestrator/campaign_lock.h"
#include "orchestrator/runner.h"
#include "orchestrator/store.h"
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void on_event(void *ctx, long long id, const char *what, const char *detail)
{
	int quiet = *(int *)ctx;
	if (quiet && strcmp(what, "failed") && strcmp(what, "retry") &&
	    strcmp(what, "done-with-collection-error"))
		return;
	fprintf(stderr, "run %lld: %s%s%s\n", id, what, detail ? ": " : "", detail ? detail : "");
}

/* perfsweep-bind lives beside the perfsweep executable. */
static char *bind_path(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return xstrdup("perfsweep-bind");
	self[n] = '\0';
	return xasprintf("%s/perfsweep-bind", dirname(self));
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	int quiet = 0, c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'd': dir = optarg; break;
		case 'q': quiet = 1; break;
		case 'j':
			jobs = strtol(optarg, &end, 10);
			if (*end || jobs < 1 || jobs > 4096)
				return cli_usage("run", "--jobs takes a number from 1 to 4096, not '%s'", optarg);
			break;
		case '?':
			if (optopt)
				return cli_usage("run", "option '%s' needs a value", argv[optind - 1]);
			/* fallthrough */
		default: return cli_usage("run", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage("run", optind >= argc ? "missing CONFIG" : "too many arguments");
	if (jobs < 1)
		jobs = 1;

	struct campaign_config cfg;
	struct perr err;
	struct plan pl;
	struct store *st = NULL;
	struct backend *b = NULL;
	int ret = EXIT_USAGE;
	char *campaign_dir = NULL, *bind = NULL;
	struct campaign_lock lock = { -1 };
	memset(&pl, 0, sizeof(pl));
	if (config_load(&cfg, argv[optind], &err) || plan_build(&pl, &cfg, &err)) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	campaign_dir = dir ? xstrdup(dir) : xasprintf("%s/%s.campaign", cfg.dir, cfg.name);
	if (campaign_lock_take(&lock, campaign_dir, &err)) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (store_create(&st, campaign_dir, cfg.name, cfg.backend.type, cfg.text, &pl, &err)) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	/* children chdir into their run directories: give them absolute paths */
	char *abs = realpath(campaign_dir, NULL);
	if (abs) {
		store_close(st);
		free(campaign_dir);
		campaign_dir = abs;
		if (store_open(&st, campaign_dir, 0, &err)) {
			cli_error(EXIT_USAGE, "%s", err.msg);
			goto out;
		}
	}
	if (!strcmp(cfg.backend.type, "slurm")) {
		if (backend_slurm_new(&b, &cfg.backend, &err)) {
			cli_error(EXIT_USAGE, "%s: %s", cfg.path, err.msg);
			goto out;
		}
	} else if (backend_local_new(&b, (int)jobs, &err)) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	bind = bind_path();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	struct runner_options ro = { .bind_path = bind, .stop = &stop_flag, .event = on_event, .ctx = &quiet };
	struct runner_stats rs;
	fprintf(stderr, "campaign '%s' in %s: %d points, %lld runs\n", cfg.name, campaign_dir, pl.npoints, pl.runs);
	if (runner_execute(st, &cfg, b, &ro, &rs, &err)) {
		cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
		ret = EXIT_RUNS_FAILED;
		goto out;
	}
	struct store_counts cnt;
	if (store_counts(st, &cnt, &err)) {
		ret = cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
		goto out;
	}
	printf("campaign '%s': %lld planned, %lld done, %lld failed, %lld cancelled, %lld pending\n",
	       cfg.name, cnt.planned, cnt.done, cnt.failed, cnt.cancelled,
	       cnt.pending + cnt.submitted + cnt.running);
	printf("this session: %d started, %d retried, %d re-run after a restart, %d adopted\n",
	       rs.started, rs.retried, rs.rerun, rs.adopted);
	printf("store: %s/campaign.db\n", campaign_dir);
	if (rs.interrupted) {
		fprintf(stderr, "interrupted: run the same command again to resume\n");
		ret = EXIT_RUNS_FAILED;
	} else {
		ret = cnt.failed ? EXIT_RUNS_FAILED : EXIT_OK;
	}
out:
	if (b)
		b->ops->free(b);
	store_close(st);
	campaign_lock_release(&lock);
	plan_release(&pl);
	config_release(&cfg);
	free(campaign_dir);
	free(bind);
	return ret;
}
