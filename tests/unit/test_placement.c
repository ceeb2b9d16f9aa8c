/* placement/: topologies, policies (against saved expected cpusets on
   synthetic topologies), hwloc_distrib cross-check, maps, and bind helpers. */
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "placement/bind.h"
#include "placement/policy.h"
#include "placement/topology.h"
#include "tests/lib/tap.h"
#include <ctype.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Placement as one string: the rank's PU lists separated by blanks. */
static char *placement_string(const struct placement *pl)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; i < pl->nranks; i++) {
		char *s = NULL;
		hwloc_bitmap_list_asprintf(&s, pl->cpusets[i]);
		strbuf_addf(&sb, "%s%s", i ? " " : "", s);
		free(s);
	}
	char *r = strbuf_detach(&sb);
	strbuf_release(&sb);
	return r;
}

static void test_expected_file(void)
{
	const char *path = tap_src("tests/data/placement/expected.txt");
	FILE *f = fopen(path, "r");
	if (!ok(f != NULL, "open %s", path))
		return;
	char line[4096];
	int lineno = 0, cases = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *l = trim(line);
		if (!*l || *l == '#')
			continue;
		char *field[5];
		int n = 0;
		for (char *tok = strtok(l, ";"); tok && n < 5; tok = strtok(NULL, ";"))
			field[n++] = trim(tok);
		if (!ok(n == 5, "expected.txt:%d has 5 fields", lineno))
			continue;
		struct perr err = { 0 };
		struct topology t;
		struct policy p;
		struct placement pl;
		policy_init(&p);
		if (!ok(topology_load(&t, field[0], NULL, &err) == 0, "load '%s'", field[0])) {
			diag("%s", err.msg);
			continue;
		}
		int good = policy_parse_kind(field[1], &p.kind, &err) == 0 &&
			   policy_parse_cores_per_rank(field[3], &p.cores_per_rank, &err) == 0 &&
			   policy_place(&p, &t, atoi(field[2]), &pl, &err) == 0;
		if (good) {
			char *got = placement_string(&pl);
			is_str(got, field[4], "expected.txt:%d: %s, %s ranks, %s cores each on '%s'", lineno,
			       field[1], field[2], field[3], field[0]);
			free(got);
			placement_release(&pl);
		} else {
			ok(0, "expected.txt:%d: placement failed: %s", lineno, err.msg);
		}
		cases++;
		policy_release(&p);
		topology_release(&t);
	}
	fclose(f);
	ok(cases >= 20, "expected.txt holds %d cases", cases);
}

/* compact with all cores shared is hwloc_distrib's split down to cores. */
static void test_distrib_crosscheck(void)
{
	const char *topos[] = { "pack:2 numa:1 core:18 pu:1", "pack:2 numa:2 core:3 pu:2",
				"pack:2 numa:2 core:4 pu:2", "pack:4 numa:1 core:6 pu:1",
				"pack:3 numa:1 l3:2 core:5 pu:1", "pack:1 numa:1 core:2 pu:1" };
	for (size_t k = 0; k < sizeof(topos) / sizeof(topos[0]); k++) {
		struct topology t;
		struct perr err;
		if (!ok(topology_load(&t, topos[k], NULL, &err) == 0, "load '%s'", topos[k]))
			continue;
		int core_depth = hwloc_get_type_depth(t.hw, HWLOC_OBJ_CORE);
		hwloc_obj_t root = hwloc_get_root_obj(t.hw);
		int mismatches = 0, compared = 0;
		struct policy p;
		policy_init(&p);
		p.cores_per_rank = 0;
		for (int n = 1; n <= t.nunits; n++) {
			hwloc_bitmap_t *sets = xcalloc((size_t)n, sizeof(*sets));
			if (hwloc_distrib(t.hw, &root, 1, sets, (unsigned)n, core_depth, 0) < 0) {
				mismatches++;
				free(sets);
				continue;
			}
			struct placement pl;
			if (policy_place(&p, &t, n, &pl, &err) < 0) {
				diag("%s", err.msg);
				mismatches++;
			} else {
				for (int i = 0; i < n; i++)
					if (!hwloc_bitmap_isequal(sets[i], pl.cpusets[i])) {
						if (!mismatches)
							diag("first mismatch: %d ranks, rank %d", n, i);
						mismatches++;
						break;
					}
				placement_release(&pl);
			}
			compared++;
			for (int i = 0; i < n; i++)
				hwloc_bitmap_free(sets[i]);
			free(sets);
		}
		ok(mismatches == 0 && compared == t.nunits,
		   "compact/all matches hwloc_distrib for 1..%d ranks on '%s' (%d mismatches)", t.nunits,
		   topos[k], mismatches);
		topology_release(&t);
	}
}

/* Every policy gives disjoint, non-empty cpusets of the right size. */
static void test_invariants(void)
{
	struct topology t;
	struct perr err;
	if (topology_load(&t, "pack:2 numa:2 core:5 pu:2", NULL, &err) < 0)
		return (void)ok(0, "load: %s", err.msg);
	int bad = 0, runs = 0;
	for (int kind = POLICY_COMPACT; kind <= POLICY_SPREAD; kind++)
		for (int c = 0; c <= 3; c++)
			for (int n = 1; c ? n * c <= t.nunits : n <= t.nunits; n++) {
				struct policy p;
				policy_init(&p);
				p.kind = (enum policy_kind)kind;
				p.cores_per_rank = c;
				struct placement pl;
				runs++;
				if (policy_place(&p, &t, n, &pl, &err) < 0) {
					bad++;
					continue;
				}
				hwloc_bitmap_t all = hwloc_bitmap_alloc();
				for (int i = 0; i < n; i++) {
					int w = hwloc_bitmap_weight(pl.cpusets[i]);
					if (w <= 0 || (c && w != 2 * c) ||
					    hwloc_bitmap_intersects(all, pl.cpusets[i]))
						bad++;
					hwloc_bitmap_or(all, all, pl.cpusets[i]);
				}
				if (!c && hwloc_bitmap_weight(all) != 40)
					bad++;
				hwloc_bitmap_free(all);
				placement_release(&pl);
			}
	ok(bad == 0, "%d placements on 2x2x5 cores: disjoint, sized, 'all' covers every PU (%d bad)",
	   runs, bad);
	topology_release(&t);
}

static void expect_place_error(const char *topo, enum policy_kind kind, int cpr, int nranks,
			       const char *const *sets, const char *want)
{
	struct topology t;
	struct perr err = { 0 };
	if (topology_load(&t, topo, NULL, &err) < 0)
		return (void)ok(0, "load: %s", err.msg);
	struct policy p;
	policy_init(&p);
	p.kind = kind;
	p.cores_per_rank = cpr;
	for (int i = 0; sets && sets[i]; i++)
		if (policy_add_set(&p, sets[i], &err) < 0)
			diag("add set: %s", err.msg);
	struct placement pl;
	int r = policy_place(&p, &t, nranks, &pl, &err);
	is_int(r, -1, "placement refused: %s", want);
	if (r == 0)
		placement_release(&pl);
	else
		is_str(err.msg, want, "error message");
	policy_release(&p);
	topology_release(&t);
}

/* The CPU share a binding allows: 1, or a core's PUs over the ranks of a node bound to them. */
static void test_allowed_shares(void)
{
	struct bind_info bi[5] = {
		{ .rank = 0, .node = "n1", .cpuset = "0" },
		{ .rank = 1, .node = "n1", .cpuset = "0" },     /* shares PU 0 with rank 0 */
		{ .rank = 2, .node = "n1", .cpuset = "2-3" },   /* two PUs of its own */
		{ .rank = 3, .node = "n2", .cpuset = "0" },     /* PU 0 of another node */
		{ .rank = 4, .node = "n1", .cpuset = NULL },    /* no binding read back */
	};
	double a[5];
	bind_allowed_shares(bi, 5, a);
	ok(a[0] == 0.5 && a[1] == 0.5, "two ranks on one PU: half each (%g, %g)", a[0], a[1]);
	ok(a[2] == 2, "a rank with two PUs of its own may use both: 2 (%g)", a[2]);
	ok(a[3] == 1, "PU 0 of another node is another PU: 1 (%g)", a[3]);
	ok(isnan(a[4]), "no cpuset: unknown");
}

static void test_errors(void)
{
	const char *T = "pack:2 numa:1 core:18 pu:1";
	expect_place_error(T, POLICY_COMPACT, 1, 37, NULL,
			   "37 ranks need 37 cores, but the topology has 36 usable cores");
	expect_place_error(T, POLICY_SPREAD, 0, 37, NULL,
			   "37 ranks need 37 cores, but the topology has 36 usable cores");
	expect_place_error(T, POLICY_SPREAD, 2, 19, NULL,
			   "19 ranks of 2 cores each need 38 cores, but the topology has 36 usable cores");
	expect_place_error("pack:1 core:1 pu:2", POLICY_COMPACT, 1, 2, NULL,
			   "2 ranks need 2 cores, but the topology has 1 usable core");
	expect_place_error(T, POLICY_COMPACT, 1, 0, NULL, "ranks per node must be at least 1, not 0");
	const char *overlap[] = { "0-3", "8", "3-5", NULL };
	expect_place_error(T, POLICY_EXPLICIT, 1, 0, overlap,
			   "the core sets of ranks 0 and 2 overlap at core 3");
	const char *missing[] = { "0", "34-40", NULL };
	expect_place_error(T, POLICY_EXPLICIT, 1, 0, missing,
			   "the core set of rank 1 names core 36, which does not exist (cores are 0-35)");
	const char *two[] = { "0", "1", NULL };
	expect_place_error(T, POLICY_EXPLICIT, 1, 3, two,
			   "the explicit placement has 2 core sets but 3 ranks run per node");

	/* explicit sets map cores to all their PUs */
	struct topology t;
	struct perr err;
	struct policy p;
	struct placement pl;
	policy_init(&p);
	topology_load(&t, "pack:2 numa:2 core:3 pu:2", NULL, &err);
	policy_add_set(&p, "1", &err);
	policy_add_set(&p, "6, 8", &err);
	if (ok(policy_place(&p, &t, 0, &pl, &err) == 0, "explicit placement of 2 sets")) {
		char *s = placement_string(&pl);
		is_str(s, "2-3 12-13,16-17", "explicit cores 1 and 6,8 become their PUs");
		is_int(pl.nranks, 2, "explicit with ranks 0: one rank per set");
		free(s);
		placement_release(&pl);
	}
	if (ok(policy_place(&p, &t, 1, &pl, &err) == 0, "explicit with fewer ranks than sets")) {
		is_int(pl.nranks, 1, "first set only");
		placement_release(&pl);
	}
	policy_release(&p);
	/* the same set twice: two ranks share those cores on purpose */
	policy_init(&p);
	policy_add_set(&p, "1", &err);
	policy_add_set(&p, "1", &err);
	if (ok(policy_place(&p, &t, 2, &pl, &err) == 0, "explicit: the same set for two ranks (%s)", err.msg)) {
		char *s = placement_string(&pl);
		is_str(s, "2-3 2-3", "both ranks on core 1's PUs");
		free(s);
		placement_release(&pl);
	}
	policy_release(&p);
	topology_release(&t);
}

static void test_parse(void)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	struct perr err = { 0 };
	char *str = NULL;
	ok(policy_parse_cores(" 0-3, 8 ,10 - 11", s, &err) == 0, "parse core list with blanks");
	hwloc_bitmap_list_asprintf(&str, s);
	is_str(str, "0-3,8,10-11", "parsed core list");
	free(str);
	const char *bad[] = { "", "1-", "3-1", "a", "1,,2", "1 2", "99999999", "-1", "1,", NULL };
	const int col[] = { 1, 3, 4, 1, 3, 3, 1, 1, 3 };
	for (int i = 0; bad[i]; i++) {
		int r = policy_parse_cores(bad[i], s, &err);
		char want[128];
		snprintf(want, sizeof(want), "invalid core set '%s' at column %d (write e.g. \"0-3,8\")",
			 bad[i], col[i]);
		if (ok(r == -1, "core list '%s' is refused", bad[i]))
			is_str(err.msg, want, "its message");
	}
	hwloc_bitmap_free(s);

	enum policy_kind k;
	ok(policy_parse_kind("spread", &k, &err) == 0 && k == POLICY_SPREAD, "parse 'spread'");
	ok(policy_parse_kind("scatter", &k, &err) == -1, "refuse 'scatter'");
	is_str(err.msg, "unknown placement policy 'scatter' (use compact, spread or explicit)",
	       "unknown policy message");
	int c = -1;
	int rc = policy_parse_cores_per_rank("all", &c, &err);
	ok(rc == 0 && c == 0, "cores per rank 'all' is 0");
	ok(policy_parse_cores_per_rank("4", &c, &err) == 0 && c == 4, "cores per rank 4");
	ok(policy_parse_cores_per_rank("0", &c, &err) == -1, "cores per rank 0 is refused");
	ok(policy_parse_cores_per_rank("2x", &c, &err) == -1, "cores per rank '2x' is refused");
}

static void test_map(void)
{
	struct policy p;
	struct perr err = { 0 };
	policy_init(&p);
	const char good[] = "# rank 0 on the first package\n0-3\n\n  4-7  # rank 1\n8,10\n";
	ok(policy_parse_map(&p, good, sizeof(good) - 1, "m.map", &err) == 0, "parse a map");
	is_int(p.nsets, 3, "three core sets, comments and blank lines skipped");
	is_int(p.kind, POLICY_EXPLICIT, "a map makes the policy explicit");
	char *s = NULL;
	if (p.nsets == 3) {
		hwloc_bitmap_list_asprintf(&s, p.sets[2]);
		is_str(s, "8,10", "third set");
		free(s);
	}
	policy_release(&p);

	const char badline[] = "0-3\n# c\n4-x\n";
	ok(policy_parse_map(&p, badline, sizeof(badline) - 1, "m.map", &err) == -1, "bad map line");
	is_str(err.msg, "m.map:3: invalid core set '4-x' at column 3 (write e.g. \"0-3,8\")",
	       "bad map line message names FILE:LINE");
	is_int(p.nsets, 0, "a failed map adds no set");
	const char nul[] = "0\n1\0\n";
	ok(policy_parse_map(&p, nul, sizeof(nul) - 1, "m.map", &err) == -1, "NUL byte refused");
	is_str(err.msg, "m.map:2: NUL byte in the map", "NUL message");
	const char empty[] = "# nothing\n\n";
	ok(policy_parse_map(&p, empty, sizeof(empty) - 1, "m.map", &err) == -1, "empty map refused");
	contains(err.msg, "m.map: no core set in the map", "empty map message");
	ok(policy_load_map(&p, "/nonexistent/x.map", &err) == -1, "missing map file");
	is_str(err.msg, "cannot read placement map '/nonexistent/x.map': No such file or directory",
	       "missing map message");
	policy_release(&p);
}

static void test_topology(void)
{
	struct topology t;
	struct perr err = { 0 };
	struct topology_summary s;
	if (ok(topology_load(&t, "pack:2 numa:2 core:3 pu:2", NULL, &err) == 0, "load synthetic")) {
		topology_summarize(&t, &s);
		ok(s.packages == 2 && s.numa_nodes == 4 && s.cores == 12 && s.pus == 24 &&
			   s.usable_units == 12,
		   "summary 2 packages, 4 NUMA, 12 cores, 24 PUs (got %d %d %d %d)", s.packages,
		   s.numa_nodes, s.cores, s.pus);
		ok(!topology_is_this_system(&t), "a synthetic topology is not this system");
		struct strbuf sb;
		strbuf_init(&sb);
		topology_describe(&t, &sb);
		contains(sb.buf, "package 1:  numa 2-3, cores 6-11, pus 12-23\n", "describe package 1");
		/* export to XML and load that */
		char *xml = xasprintf("%s/two.xml", tap_tmpdir());
		ok(hwloc_topology_export_xml(t.hw, xml, 0) == 0, "export XML");
		topology_release(&t);
		if (ok(topology_load(&t, "two.xml", tap_tmpdir(), &err) == 0, "load XML relative to a dir")) {
			struct topology_summary x;
			topology_summarize(&t, &x);
			ok(x.packages == 2 && x.numa_nodes == 4 && x.cores == 12 && x.pus == 24,
			   "XML summary equals the synthetic one");
			is_int(t.kind, TOPOLOGY_XML, "kind XML");
			topology_release(&t);
		} else {
			diag("%s", err.msg);
		}
		free(xml);
		strbuf_release(&sb);
	}
	ok(topology_load(&t, "pack:2 bogus:3", NULL, &err) == -1, "bad synthetic refused");
	is_str(err.msg,
	       "invalid synthetic topology 'pack:2 bogus:3' (write e.g. \"pack:2 numa:1 core:18 pu:1\")",
	       "bad synthetic message");
	ok(topology_load(&t, "/nonexistent/m.xml", NULL, &err) == -1, "missing XML refused");
	is_str(err.msg, "cannot read topology file '/nonexistent/m.xml': No such file or directory",
	       "missing XML message");
	char *junk = xasprintf("%s/junk.xml", tap_tmpdir());
	FILE *f = fopen(junk, "w");
	fputs("<topology><object type=", f);
	fclose(f);
	ok(topology_load(&t, junk, NULL, &err) == -1, "broken XML refused");
	contains(err.msg, "is not a usable hwloc XML topology", "broken XML message");
	free(junk);
	if (ok(topology_load(&t, NULL, NULL, &err) == 0, "load this machine")) {
		ok(topology_is_this_system(&t) && t.nunits >= 1, "this machine: bindable, >= 1 core");
		topology_release(&t);
	}
}

static void with_env(const char *const *kv)
{
	static const char *const all[] = { "PERFSWEEP_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
					   "MPI_LOCALRANKID", "SLURM_LOCALID", "PERFSWEEP_RANK",
					   "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
					   "PERFSWEEP_RANKS_PER_NODE", "OMPI_COMM_WORLD_LOCAL_SIZE",
					   "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE",
					   "SLURM_TASKS_PER_NODE", "SLURM_NODEID", NULL };
	for (int i = 0; all[i]; i++)
		unsetenv(all[i]);
	for (int i = 0; kv && kv[i]; i += 2)
		setenv(kv[i], kv[i + 1], 1);
}

static void test_ranks_env(void)
{
	struct bind_ranks r;
	struct perr err = { 0 };
	with_env(NULL);
	ok(bind_ranks_from_env(&r, &err) == -1, "no rank variable: error");
	contains(err.msg, "no local rank: set PERFSWEEP_LOCAL_RANK", "no rank message");

	const char *slurm[] = { "SLURM_LOCALID", "1", "SLURM_PROCID", "5", "SLURM_TASKS_PER_NODE",
				"4(x2),3", "SLURM_NODEID", "2", NULL };
	with_env(slurm);
	ok(bind_ranks_from_env(&r, &err) == 0, "SLURM variables");
	ok(r.local_rank == 1 && r.rank == 5 && r.ranks_per_node == 3,
	   "local 1, rank 5, 3 per node on node 2 of '4(x2),3' (got %d %d %d)", r.local_rank, r.rank,
	   r.ranks_per_node);
	is_str(r.rpn_from, "SLURM_TASKS_PER_NODE", "ranks per node source");

	const char *nested[] = { "SLURM_LOCALID", "0", "SLURM_PROCID", "0", "SLURM_NTASKS_PER_NODE", "1",
				 "PERFSWEEP_LOCAL_RANK", "2", "PERFSWEEP_RANK", "7",
				 "PERFSWEEP_RANKS_PER_NODE", "4", NULL };
	with_env(nested);
	int rc = bind_ranks_from_env(&r, &err);
	ok(rc == 0 && r.local_rank == 2 && r.rank == 7 && r.ranks_per_node == 4,
	   "PERFSWEEP_* win over an enclosing srun step's SLURM_* (got %d %d %d)", r.local_rank, r.rank,
	   r.ranks_per_node);

	const char *ompi[] = { "SLURM_LOCALID", "0", "OMPI_COMM_WORLD_LOCAL_RANK", "3", NULL };
	with_env(ompi);
	ok(bind_ranks_from_env(&r, &err) == 0 && r.local_rank == 3 && r.rank == 3 &&
		   r.ranks_per_node == 0,
	   "mpirun's local rank wins over the batch step's; rank defaults to it; per node unknown");

	const char *bad[] = { "PERFSWEEP_LOCAL_RANK", "-1", NULL };
	with_env(bad);
	ok(bind_ranks_from_env(&r, &err) == -1, "negative local rank refused");
	is_str(err.msg, "invalid PERFSWEEP_LOCAL_RANK '-1' (a non-negative integer)", "its message");
	const char *badtpn[] = { "SLURM_LOCALID", "0", "SLURM_TASKS_PER_NODE", "2(x", NULL };
	with_env(badtpn);
	ok(bind_ranks_from_env(&r, &err) == -1, "bad SLURM_TASKS_PER_NODE refused");
	with_env(NULL);

	int n = -1;
	ok(bind_parse_tasks_per_node("2", 0, &n) == 0 && n == 2, "tasks per node '2'");
	ok(bind_parse_tasks_per_node("4(x2),3", 1, &n) == 0 && n == 4, "'4(x2),3' node 1 is 4");
	ok(bind_parse_tasks_per_node("4(x2),3", 3, &n) == -1, "'4(x2),3' has no node 3");
	ok(bind_parse_tasks_per_node("4(x0)", 0, &n) == -1, "'4(x0)' refused");
	int rc2 = bind_parse_tasks_per_node("2(x16777216),1(x16777216),5", 33554432, &n);
	ok(rc2 == 0 && n == 5, "large repeat counts add up (node 33554432 has 5, got %d)", n);
}

static void test_run_and_record(void)
{
	struct bind_result res;
	struct perr err = { 0 };
	char *ok_argv[] = { "sh", "-c", "exit 3", NULL };
	int r = bind_run(ok_argv, &res, &err);
	ok(r == 0 && res.exit_status == 3 && res.signal == 0,
	   "exit status 3 forwarded (got %d)", res.exit_status);
	ok(res.wall >= 0 && res.end >= res.start && res.pid > 0, "wall, start, end, pid recorded");
	char *sig_argv[] = { "sh", "-c", "kill -KILL $$", NULL };
	r = bind_run(sig_argv, &res, &err);
	ok(r == 0 && res.exit_status == 128 + SIGKILL &&
		   res.signal == SIGKILL,
	   "killed by SIGKILL: 137 (got %d)", res.exit_status);
	char *missing[] = { "/nonexistent/app", NULL };
	r = bind_run(missing, &res, &err);
	ok(r == -1 && res.exit_status == 127, "missing app: 127 (got %d)",
	   res.exit_status);
	is_str(err.msg, "cannot run '/nonexistent/app': No such file or directory", "its message");

	hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), cores = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(cpus, 2, 3);
	hwloc_bitmap_set(cores, 1);
	char *argv[] = { "app", "-n", "4", NULL };
	/* a program that computes for a while (a shell loop) and waits for a child */
	char *rargv[] = { "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.01", NULL };
	bind_run(rargv, &res, &err);
	const struct bind_usage *u = &res.usage;
	ok(res.have_usage && u->utime + u->stime > 0, "usage: CPU time recorded (%g s user, %g s system)",
	   u->utime, u->stime);
	is_rel(u->cpu_share, (u->utime + u->stime) / res.wall, 1e-12, "usage: CPU share is CPU time over wall time");
	ok(u->maxrss_kb > 0 && u->nvcsw >= 1 && u->nivcsw >= 0, "usage: RSS and context switches (%lld kB, %lld, %lld)",
	   u->maxrss_kb, u->nvcsw, u->nivcsw);
	ok(u->load_start >= 0 && u->load_end >= 0, "usage: the load at start and end");
	struct bind_record rec = { .rank = 9, .local_rank = 1, .ranks_per_node = 2, .node = "n3",
				   .policy = "spread", .cores_per_rank = 1, .cpuset = cpus,
				   .cores = cores, .result = &res, .argv = argv };
	const char *dir = tap_tmpdir();
	ok(bind_record_write(&rec, dir, &err) == 0, "write rank record");
	char *path = xasprintf("%s/rank-9.json", dir);
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je);
	if (ok(o != NULL, "rank-9.json is JSON")) {
		is_int(json_integer_value(json_object_get(o, "rank")), 9, "rank");
		is_int(json_integer_value(json_object_get(o, "local_rank")), 1, "local_rank");
		is_str(json_string_value(json_object_get(o, "node")), "n3", "node");
		is_str(json_string_value(json_object_get(o, "policy")), "spread", "policy");
		is_str(json_string_value(json_object_get(o, "cpuset")), "2-3", "cpuset");
		is_str(json_string_value(json_object_get(o, "cores")), "1", "cores");
		is_int(json_integer_value(json_object_get(o, "exit_status")), 0, "exit_status");
		ok(json_is_real(json_object_get(o, "wall")), "wall is a number");
		ok(json_is_null(json_object_get(o, "error")), "error is null");
		is_str(json_string_value(json_array_get(json_object_get(o, "argv"), 2)), "4", "argv[2]");
		static const char *const keys[] = { "utime", "stime", "cpu_share", "maxrss_kb", "nvcsw", "nivcsw",
						    "load_start", "load_end" };
		int numbers = 0;
		for (int k = 0; k < 8; k++)
			numbers += json_is_number(json_object_get(o, keys[k]));
		is_int(numbers, 8, "the record has the rank's usage");
		json_decref(o);
	}
	struct bind_info bi;
	if (ok(bind_record_read(path, &bi, &err) == 0, "the record reads back")) {
		ok(bi.have_usage && bi.usage.utime == u->utime && bi.usage.stime == u->stime &&
		   bi.usage.cpu_share == u->cpu_share && bi.usage.maxrss_kb == u->maxrss_kb &&
		   bi.usage.nvcsw == u->nvcsw && bi.usage.nivcsw == u->nivcsw && bi.usage.load_end == u->load_end,
		   "with the same usage");
		bind_info_release(&bi);
	}
	rec.result = NULL;
	bind_record_write(&rec, dir, &err);
	if (ok(bind_record_read(path, &bi, &err) == 0, "a rank that did not run reads back")) {
		ok(!bi.have_usage && isnan(bi.usage.cpu_share) && bi.usage.nivcsw == -1, "without usage (nulls)");
		bind_info_release(&bi);
	}
	rec.result = NULL;
	rec.error = "cannot bind";
	rec.exit_status = 2;
	rec.cpuset = NULL;
	ok(bind_record_write(&rec, "/nonexistent/dir", &err) == -1, "unwritable run dir refused");
	contains(err.msg, "cannot write '/nonexistent/dir/rank-9.json'", "its message");
	free(path);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(cores);
}

static void test_apply(void)
{
	struct topology t;
	struct perr err = { 0 };
	hwloc_bitmap_t actual = hwloc_bitmap_alloc();
	if (topology_load(&t, "pack:1 core:2 pu:1", NULL, &err) == 0) {
		ok(bind_apply(&t, t.unit_pus[0], actual, &err) == -1,
		   "binding on a synthetic topology is an error, not a silent no-op");
		contains(err.msg, "hwloc's topology is not this machine's", "its message");
		topology_release(&t);
	}
	cpu_set_t saved;
	sched_getaffinity(0, sizeof(saved), &saved);
	if (ok(topology_load(&t, NULL, NULL, &err) == 0, "load this machine")) {
		ok(bind_apply(&t, t.unit_pus[t.nunits - 1], actual, &err) == 0 &&
			   hwloc_bitmap_isequal(actual, t.unit_pus[t.nunits - 1]),
		   "bind to the last core and read it back");
		cpu_set_t now;
		sched_getaffinity(0, sizeof(now), &now);
		int first = hwloc_bitmap_first(t.unit_pus[t.nunits - 1]);
		ok(CPU_ISSET(first, &now) && CPU_COUNT(&now) == hwloc_bitmap_weight(actual),
		   "sched_getaffinity agrees");
		hwloc_bitmap_t nowhere = hwloc_bitmap_alloc();
		hwloc_bitmap_set(nowhere, 100000);
		ok(bind_apply(&t, nowhere, actual, &err) == -1, "binding to a missing PU is an error");
		contains(err.msg, "cannot bind to PUs 100000", "its message");
		hwloc_bitmap_free(nowhere);
		topology_release(&t);
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	hwloc_bitmap_free(actual);
}

int main(void)
{
	test_expected_file();
	test_distrib_crosscheck();
	test_invariants();
	test_errors();
	test_allowed_shares();
	test_parse();
	test_map();
	test_topology();
	test_ranks_env();
	test_run_and_record();
	test_apply();
	return done_testing();
}
