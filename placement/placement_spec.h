/*
 * One placement contract: the policy, the ranks per node, the explicit map
 * and the cores per rank of a run, parsed and checked by one function for
 * every place that takes them (the campaign config, `perfsweep topo`,
 * perfsweep-bind), so all three accept and refuse the same combinations.
 * Pure: no I/O (the map file is only named here; policy_load_map reads it).
 */
#ifndef PS_PLACEMENT_SPEC_H
#define PS_PLACEMENT_SPEC_H
#include "common/error.h"
#include "placement/policy.h"

struct placement_spec {
	enum policy_kind policy;    /* compact unless given; explicit with a map */
	int have_policy;            /* a policy was named */
	int ranks_per_node;         /* 0: unknown (the launcher says) */
	const char *map;            /* explicit: the map file, or NULL (not owned) */
	int cores_per_rank;         /* >= 1, or 0: every usable core shared */
	int have_cores;             /* cores per rank was given */
};

/* How messages name the settings: command-line options or config keys. */
enum spec_syntax { SPEC_OPTIONS, SPEC_CONFIG };
/* The setting an error is about, so a config error can point at its line. */
enum spec_field { SPEC_POLICY, SPEC_MAP, SPEC_CORES, SPEC_RANKS };

/*
 * Fill ps from the settings as given (each may be NULL / 0: not given) and
 * check them together: a known policy, cores per rank a positive count or
 * "all", a map only with the explicit policy (which needs one), no cores
 * per rank with a map.  map_optional: the explicit policy may do without a
 * map here (perfsweep-bind reads PERFSWEEP_MAP later).  On error *field says
 * which setting is wrong.
 */
int placement_spec_parse(struct placement_spec *ps, const char *policy, const char *cores,
			 const char *map, int ranks_per_node, enum spec_syntax syn, int map_optional,
			 enum spec_field *field, struct perr *err);

#endif
