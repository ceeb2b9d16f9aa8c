/*
 * perfsweep-bind: bind one rank to its cores, run the application, record
 * the binding it really got.
 *
 *   perfsweep-bind [--policy P --ranks-per-node R [--cores-per-rank N|all]
 *                   | --map FILE] [--run-dir DIR] -- APP ARGS
 *
 * Exit status: the application's (128+signal when a signal ended it), 2 for
 * usage errors and bindings that could not be applied or recorded, 126/127
 * when APP cannot be started.  See docs/placement.md.
 */
#include "common/xalloc.h"
#include "placement/bind.h"
#include "placement/policy.h"
#include "placement/topology.h"
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: perfsweep-bind [--policy compact|spread --ranks-per-node R [--cores-per-rank N|all]\n"
	"                       | --map FILE] [--run-dir DIR] -- APP [ARGS...]\n";

static int fail(int code, const char *msg)
{
	fprintf(stderr, "perfsweep-bind: %s\n", msg);
	return code;
}

static int fail_usage(const char *msg)
{
	fprintf(stderr, "perfsweep-bind: %s\n%s", msg, usage);
	return 2;
}

/* What the command line (and the environment) asked for. */
struct bind_opts {
	struct policy pol;
	int have_policy, ranks_opt, have_cores;
	const char *map, *run_dir;
	char **app;
};

/* Read the options into o; -1 to go on, else the exit code (usage printed). */
static int parse_opts(int argc, char **argv, struct bind_opts *o)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "ranks-per-node", required_argument, NULL, 'r' },
		{ "cores-per-rank", required_argument, NULL, 'c' },
		{ "map", required_argument, NULL, 'm' },
		{ "run-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct perr err;
	int ch;
	opterr = 0;
	/* '+': stop at APP, whose own options are not ours */
	while ((ch = getopt_long(argc, argv, "+p:r:c:m:d:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			if (policy_parse_kind(optarg, &o->pol.kind, &err) < 0)
				return fail_usage(err.msg);
			o->have_policy = 1;
			break;
		case 'r': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > 1 << 20) {
				snprintf(err.msg, sizeof(err.msg), "invalid ranks per node '%s'", optarg);
				return fail_usage(err.msg);
			}
			o->ranks_opt = (int)v;
			break;
		}
		case 'c':
			if (policy_parse_cores_per_rank(optarg, &o->pol.cores_per_rank, &err) < 0)
				return fail_usage(err.msg);
			o->have_cores = 1;
			break;
		case 'm':
			o->map = optarg;
			break;
		case 'd':
			o->run_dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			snprintf(err.msg, sizeof(err.msg), "unknown or incomplete option '%s'",
				 argv[optind - 1]);
			return fail_usage(err.msg);
		}
	}
	if (optind >= argc)
		return fail_usage("no application to run (give it after --)");
	o->app = argv + optind;
	return -1;
}

/* Settle the policy, the map and the run directory; -1 to go on, else the exit code. */
static int check_opts(struct bind_opts *o)
{
	struct perr err;
	struct policy *pol = &o->pol;
	if (!o->have_policy && !o->map)
		pol->kind = POLICY_COMPACT;
	if (o->map && o->have_policy && pol->kind != POLICY_EXPLICIT) {
		snprintf(err.msg, sizeof(err.msg), "--map goes with the explicit policy, not '%s'",
			 policy_kind_name(pol->kind));
		return fail_usage(err.msg);
	}
	if (o->have_cores && (o->map || pol->kind == POLICY_EXPLICIT))
		return fail_usage("--cores-per-rank does not apply to an explicit map");
	/* perfsweep's backends pass the campaign's cores per rank in the environment */
	const char *cpr = getenv("PERFSWEEP_CORES_PER_RANK");
	if (!o->have_cores && !o->map && pol->kind != POLICY_EXPLICIT && cpr && *cpr) {
		if (policy_parse_cores_per_rank(cpr, &pol->cores_per_rank, &err) < 0)
			return fail_usage(err.msg);
	}
	if (!o->map && pol->kind == POLICY_EXPLICIT)
		o->map = getenv("PERFSWEEP_MAP");
	if (!o->map && pol->kind == POLICY_EXPLICIT)
		return fail_usage("the explicit policy needs --map FILE (or PERFSWEEP_MAP)");
	if (!o->run_dir || !*o->run_dir)
		o->run_dir = ".";
	return -1;
}

/* What binding a rank holds until it is released. */
struct rank_state {
	struct topology t;
	int loaded;
	struct placement pl;
	hwloc_bitmap_t actual, cores;
};

/* Place and bind the rank on this machine and fill rec's binding; -1 with err. */
static int bind_rank(struct policy *pol, const struct bind_ranks *rk, int rpn, struct rank_state *s,
		     struct bind_record *rec, struct perr *err)
{
	if (!rpn) {
		snprintf(err->msg, sizeof(err->msg), "ranks per node unknown: give --ranks-per-node or "
			 "set PERFSWEEP_RANKS_PER_NODE");
		return -1;
	}
	if (rk->local_rank >= rpn) {
		snprintf(err->msg, sizeof(err->msg), "local rank %d (%s) is not below the %d ranks per node",
			 rk->local_rank, rk->local_from, rpn);
		return -1;
	}
	if (topology_load(&s->t, NULL, NULL, err) < 0)
		return -1;
	s->loaded = 1;
	if (policy_place(pol, &s->t, rpn, &s->pl, err) < 0)
		return -1;
	if (bind_apply(&s->t, s->pl.cpusets[rk->local_rank], s->actual, err) < 0) {
		rec->cpuset = hwloc_bitmap_iszero(s->actual) ? NULL : s->actual;
		return -1;
	}
	rec->cpuset = s->actual;
	topology_units_of(&s->t, s->actual, s->cores);
	rec->cores = s->cores;
	return 0;
}

/* Bind, run and record one rank whose ranks are known; the exit code. */
static int run_rank(struct bind_opts *o, const struct bind_ranks *rk)
{
	struct perr err, werr;
	struct policy *pol = &o->pol;
	/* from here on the rank is known: failures leave a record */
	int map_failed = o->map && policy_load_map(pol, o->map, &err) < 0;
	int rpn = o->ranks_opt ? o->ranks_opt : rk->ranks_per_node;
	if (!rpn && pol->kind == POLICY_EXPLICIT)
		rpn = pol->nsets;
	struct bind_record rec = {
		.rank = rk->rank,
		.local_rank = rk->local_rank,
		.ranks_per_node = rpn,
		.node = bind_node_name(),
		.policy = policy_kind_name(pol->kind),
		.cores_per_rank = pol->kind == POLICY_EXPLICIT ? -1 : pol->cores_per_rank,
		.exit_status = 2,
		.argv = o->app,
	};
	int code = 2;
	struct rank_state s = { .loaded = 0, .actual = hwloc_bitmap_alloc(), .cores = hwloc_bitmap_alloc() };
	if (map_failed || bind_rank(pol, rk, rpn, &s, &rec, &err) < 0) {
		/* the rank is known: leave a record saying why it did not run */
		rec.error = err.msg;
		fail(2, err.msg);
		if (bind_record_write(&rec, o->run_dir, &werr) < 0)
			fail(2, werr.msg);
	} else {
		struct bind_result res;
		int run_failed = bind_run(o->app, &res, &err) < 0;
		rec.result = &res;
		code = res.exit_status;
		if (run_failed) {
			rec.error = err.msg;
			fail(code, err.msg);
		}
		if (bind_record_write(&rec, o->run_dir, &werr) < 0) {
			fail(2, werr.msg);
			if (!code)
				code = 2;
		}
	}
	placement_release(&s.pl);
	if (s.loaded)
		topology_release(&s.t);
	hwloc_bitmap_free(s.actual);
	hwloc_bitmap_free(s.cores);
	return code;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "C");
	struct bind_opts o = { .run_dir = getenv("PERFSWEEP_RUN_DIR") };
	policy_init(&o.pol);
	int code = parse_opts(argc, argv, &o);
	if (code < 0)
		code = check_opts(&o);
	if (code >= 0)
		return code;
	struct perr err;
	if (access(o.run_dir, W_OK | X_OK) < 0) {
		snprintf(err.msg, sizeof(err.msg), "cannot write to run directory '%s': %m", o.run_dir);
		policy_release(&o.pol);
		return fail(2, err.msg);
	}
	struct bind_ranks rk;
	if (bind_ranks_from_env(&rk, &err) < 0) {
		policy_release(&o.pol);
		return fail(2, err.msg);
	}
	code = run_rank(&o, &rk);
	policy_release(&o.pol);
	return code;
}
