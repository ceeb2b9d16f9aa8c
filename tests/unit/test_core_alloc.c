/* The core allocator and topology_restrict on synthetic topologies: runs get
   disjoint cores, a run that does not fit takes nothing, placements stay
   inside their allocation, and the launcher's command line. */
#include "common/xalloc.h"
#include "placement/core_alloc.h"
#include "placement/launch.h"
#include "placement/placement_spec.h"
#include "placement/policy.h"
#include "placement/topology.h"
#include "tests/lib/tap.h"
#include <stdlib.h>
#include <string.h>

static char *list(hwloc_const_bitmap_t b)
{
	char *s = NULL;
	hwloc_bitmap_list_asprintf(&s, b);
	return s;
}

static void check_alloc(void)
{
	struct topology t;
	struct perr err;
	if (!ok(topology_load(&t, "pack:2 numa:1 core:4 pu:1", NULL, &err) == 0, "synthetic 2x4 loads"))
		return;
	struct core_alloc a;
	core_alloc_init(&a, &t);
	hwloc_bitmap_t r1 = hwloc_bitmap_alloc(), r2 = hwloc_bitmap_alloc(), r3 = hwloc_bitmap_alloc();
	is_int(core_alloc_take(&a, 3, 0, r1), 0, "compact: 3 cores taken");
	char *s = list(r1);
	is_str(s, "0-2", "compact takes the lowest free cores");
	free(s);
	is_int(core_alloc_take(&a, 2, 1, r2), 0, "spread: 2 more cores");
	s = list(r2);
	is_str(s, "3-4", "spread deals over packages: the last of package 0, the first of package 1");
	free(s);
	ok(!hwloc_bitmap_intersects(r1, r2), "the two allocations are disjoint");
	is_int(core_alloc_free_count(&a), 3, "3 cores left");
	is_int(core_alloc_take(&a, 4, 0, r3), 1, "4 cores do not fit: wait");
	ok(hwloc_bitmap_iszero(r3), "and nothing was taken");
	is_int(core_alloc_free_count(&a), 3, "still 3 free");
	hwloc_bitmap_set_range(r3, 4, 5);
	is_int(core_alloc_take_set(&a, r3), 1, "an explicit set naming a held core waits");
	hwloc_bitmap_set_range(r3, 5, 6);
	hwloc_bitmap_clr(r3, 4);
	is_int(core_alloc_take_set(&a, r3), 0, "an explicit set of free cores is taken");
	core_alloc_give(&a, r1);
	is_int(core_alloc_free_count(&a), 4, "giving back frees the cores");
	is_int(core_alloc_take(&a, 4, 0, r1), 0, "now 4 cores fit");
	s = list(r1);
	is_str(s, "0-2,7", "the freed cores and the last free one");
	free(s);
	hwloc_bitmap_free(r1);
	hwloc_bitmap_free(r2);
	hwloc_bitmap_free(r3);
	core_alloc_release(&a);
	topology_release(&t);
}

/* Placing inside an allocation: cpusets of the ranks lie within it. */
static void check_restrict(void)
{
	struct topology t;
	struct perr err;
	if (topology_load(&t, "pack:2 numa:1 core:4 pu:2", NULL, &err))
		return;
	hwloc_bitmap_t within = hwloc_bitmap_alloc();
	hwloc_bitmap_set(within, 2);
	hwloc_bitmap_set(within, 5);
	is_int(topology_restrict(&t, within, &err), 0, "restrict to cores 2 and 5");
	is_int(t.nunits, 2, "two units left");
	is_int(t.npackages, 2, "in two packages");
	is_int(t.unit_id[1], 5, "unit 1 keeps its number 5");
	struct policy p;
	policy_init(&p);
	struct placement pl = { 0 };
	is_int(policy_place(&p, &t, 2, &pl, &err), 0, "compact places 2 ranks inside");
	char *s0 = pl.nranks == 2 ? list(pl.cpusets[0]) : NULL, *s1 = pl.nranks == 2 ? list(pl.cpusets[1]) : NULL;
	is_str(s0, "4-5", "rank 0 on core 2's PUs");
	is_str(s1, "10-11", "rank 1 on core 5's PUs");
	free(s0);
	free(s1);
	placement_release(&pl);
	ok(policy_place(&p, &t, 3, &pl, &err) < 0, "3 ranks do not fit in 2 cores");
	policy_release(&p);
	hwloc_bitmap_set(within, 9);
	ok(topology_restrict(&t, within, &err) < 0 && strstr(err.msg, "does not exist"),
	   "restricting to a missing core is refused: %s", err.msg);
	hwloc_bitmap_free(within);
	topology_release(&t);
}

static void check_launch(void)
{
	struct launch_placement lp = { .policy = "spread", .ranks_per_node = 2, .cores_per_rank = "all",
				       .within = "0-3" };
	char **av = launch_argv("/x/perfsweep-bind", &lp);
	struct strbuf_like { char s[256]; } b = { "" };
	for (char **a = av; *a; a++)
		snprintf(b.s + strlen(b.s), sizeof(b.s) - strlen(b.s), "%s%s", a == av ? "" : " ", *a);
	is_str(b.s, "/x/perfsweep-bind --policy spread --ranks-per-node 2 --cores-per-rank all --within 0-3 --",
	       "the launcher's argv");
	launch_argv_free(av);
	struct launch_placement ex = { .policy = "explicit", .ranks_per_node = 2, .map = "m.map", .within = "0" };
	av = launch_argv("b", &ex);
	b.s[0] = '\0';
	for (char **a = av; *a; a++)
		snprintf(b.s + strlen(b.s), sizeof(b.s) - strlen(b.s), "%s%s", a == av ? "" : " ", *a);
	is_str(b.s, "b --policy explicit --ranks-per-node 2 --map m.map --", "an explicit map, never --within");
	launch_argv_free(av);
}

/* The one placement contract: the same combinations pass or fail in both syntaxes. */
static void check_spec(void)
{
	struct placement_spec ps;
	struct perr err;
	enum spec_field f;
	static const struct { const char *policy, *cores, *map; int ok; enum spec_field field; } cases[] = {
		{ NULL, NULL, NULL, 1, 0 },
		{ "spread", "all", NULL, 1, 0 },
		{ NULL, NULL, "m.map", 1, 0 },
		{ "explicit", NULL, "m.map", 1, 0 },
		{ "explicit", NULL, NULL, 0, SPEC_POLICY },
		{ "compact", NULL, "m.map", 0, SPEC_MAP },
		{ "explicit", "2", "m.map", 0, SPEC_CORES },
		{ "tight", NULL, NULL, 0, SPEC_POLICY },
		{ "compact", "0", NULL, 0, SPEC_CORES },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int syn = SPEC_OPTIONS; syn <= SPEC_CONFIG; syn++) {
			int rc = placement_spec_parse(&ps, cases[i].policy, cases[i].cores, cases[i].map, 2,
						      (enum spec_syntax)syn, 0, &f, &err);
			ok(cases[i].ok ? rc == 0 : rc < 0 && f == cases[i].field, "case %zu (%s): %s%s", i,
			   syn == SPEC_OPTIONS ? "options" : "config", cases[i].ok ? "accepted" : "refused: ",
			   cases[i].ok ? "" : err.msg);
		}
	placement_spec_parse(&ps, NULL, NULL, "m.map", 0, SPEC_CONFIG, 0, NULL, &err);
	is_int(ps.policy, POLICY_EXPLICIT, "a map alone means the explicit policy");
	placement_spec_parse(&ps, "spread", "all", NULL, 0, SPEC_OPTIONS, 0, NULL, &err);
	is_int(ps.cores_per_rank, 0, "\"all\" is cores per rank 0");
	ok(placement_spec_parse(&ps, "explicit", NULL, NULL, 0, SPEC_OPTIONS, 1, NULL, &err) == 0,
	   "perfsweep-bind may take the map from the environment later");
}

int main(void)
{
	check_spec();
	check_alloc();
	check_restrict();
	check_launch();
	return done_testing();
}
