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
#include "placement/placement_spec.h"
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
	"                       [--within CORES] | --map FILE] [--run-dir DIR] -- APP [ARGS...]\n";

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

/* --within CORES: place inside the cores a core allocator handed out. */
static int restrict_to(struct topology *t, const char *list, struct perr *err)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int rc = policy_parse_cores(list, set, err);
	if (rc == 0)
		rc = topology_restrict(t, set, err);
	if (rc < 0)
		perr_prefix(err, "--within %s", list);
	hwloc_bitmap_free(set);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "ranks-per-node", required_argument, NULL, 'r' },
		{ "cores-per-rank", required_argument, NULL, 'c' },
		{ "map", required_argument, NULL, 'm' },
		{ "run-dir", required_argument, NULL, 'd' },
		{ "within", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	setlocale(LC_ALL, "C");
	struct perr err, werr;
	struct policy pol;
	policy_init(&pol);
	int ranks_opt = 0, ch;
	const char *map = NULL, *within = NULL, *policy_s = NULL, *cores_s = NULL, *run_dir = getenv("PERFSWEEP_RUN_DIR");
	opterr = 0;
	/* '+': stop at APP, whose own options are not ours */
	while ((ch = getopt_long(argc, argv, "+p:r:c:m:d:w:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			policy_s = optarg;
			break;
		case 'r': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > 1 << 20) {
				snprintf(err.msg, sizeof(err.msg), "invalid ranks per node '%s'", optarg);
				return fail_usage(err.msg);
			}
			ranks_opt = (int)v;
			break;
		}
		case 'c':
			cores_s = optarg;
			break;
		case 'm':
			map = optarg;
			break;
		case 'd':
			run_dir = optarg;
			break;
		case 'w':
			within = optarg;
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
	char **app = argv + optind;
	/* hand-made launches may pass cores per rank and the map in the environment */
	const char *env_cores = getenv("PERFSWEEP_CORES_PER_RANK");
	if (!cores_s && !map && !(policy_s && !strcmp(policy_s, "explicit")) && env_cores && *env_cores)
		cores_s = env_cores;
	struct placement_spec ps;
	if (placement_spec_parse(&ps, policy_s, cores_s, map, ranks_opt, SPEC_OPTIONS, 1, NULL, &err) < 0)
		return fail_usage(err.msg);
	if (within && ps.policy == POLICY_EXPLICIT)
		return fail_usage("--within does not apply to an explicit map");
	pol.kind = ps.policy;
	pol.cores_per_rank = ps.cores_per_rank;
	if (!map && pol.kind == POLICY_EXPLICIT)
		map = getenv("PERFSWEEP_MAP");
	if (!map && pol.kind == POLICY_EXPLICIT)
		return fail_usage("the explicit policy needs --map FILE (or PERFSWEEP_MAP)");
	if (!run_dir || !*run_dir)
		run_dir = ".";
	if (access(run_dir, W_OK | X_OK) < 0) {
		snprintf(err.msg, sizeof(err.msg), "cannot write to run directory '%s': %m", run_dir);
		policy_release(&pol);
		return fail(2, err.msg);
	}

	struct bind_ranks rk;
	if (bind_ranks_from_env(&rk, &err) < 0) {
		policy_release(&pol);
		return fail(2, err.msg);
	}
	/* from here on the rank is known: failures leave a record */
	int map_failed = map && policy_load_map(&pol, map, &err) < 0;
	int rpn = ranks_opt ? ranks_opt : rk.ranks_per_node;
	if (!rpn && pol.kind == POLICY_EXPLICIT)
		rpn = pol.nsets;
	struct bind_record rec = {
		.rank = rk.rank,
		.local_rank = rk.local_rank,
		.ranks_per_node = rpn,
		.node = bind_node_name(),
		.policy = policy_kind_name(pol.kind),
		.cores_per_rank = pol.kind == POLICY_EXPLICIT ? -1 : pol.cores_per_rank,
		.exit_status = 2,
		.argv = app,
	};
	int code = 2;
	struct topology t;
	int loaded = 0;
	struct placement pl = { 0 };
	hwloc_bitmap_t actual = hwloc_bitmap_alloc(), cores = hwloc_bitmap_alloc();
	if (map_failed)
		goto failed;
	if (!rpn) {
		snprintf(err.msg, sizeof(err.msg), "ranks per node unknown: give --ranks-per-node or "
			 "set PERFSWEEP_RANKS_PER_NODE");
		goto failed;
	}
	if (rk.local_rank >= rpn) {
		snprintf(err.msg, sizeof(err.msg), "local rank %d (%s) is not below the %d ranks per node",
			 rk.local_rank, rk.local_from, rpn);
		goto failed;
	}
	if (topology_load(&t, NULL, NULL, &err) < 0)
		goto failed;
	loaded = 1;
	if (within && restrict_to(&t, within, &err) < 0)
		goto failed;
	if (policy_place(&pol, &t, rpn, &pl, &err) < 0)
		goto failed;
	if (bind_apply(&t, pl.cpusets[rk.local_rank], actual, &err) < 0) {
		rec.cpuset = hwloc_bitmap_iszero(actual) ? NULL : actual;
		goto failed;
	}
	rec.cpuset = actual;
	for (int u = 0; u < t.nunits; u++)
		if (hwloc_bitmap_intersects(t.unit_pus[u], actual))
			hwloc_bitmap_set(cores, (unsigned)t.unit_id[u]);
	rec.cores = cores;

	struct bind_result res;
	int run_failed = bind_run(app, &res, &err) < 0;
	rec.result = &res;
	code = res.exit_status;
	if (run_failed) {
		rec.error = err.msg;
		fail(code, err.msg);
	}
	if (bind_record_write(&rec, run_dir, &werr) < 0) {
		fail(2, werr.msg);
		if (!code)
			code = 2;
	}
	goto out;

failed:
	/* the rank is known: leave a record saying why it did not run */
	rec.error = err.msg;
	fail(2, err.msg);
	if (bind_record_write(&rec, run_dir, &werr) < 0)
		fail(2, werr.msg);
out:
	placement_release(&pl);
	if (loaded)
		topology_release(&t);
	hwloc_bitmap_free(actual);
	hwloc_bitmap_free(cores);
	policy_release(&pol);
	return code;
}
