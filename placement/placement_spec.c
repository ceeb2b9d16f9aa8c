/* The placement contract's one parser and checker. */
#include "placement/placement_spec.h"
#include <string.h>

static int fail(enum spec_field *field, enum spec_field f)
{
	if (field)
		*field = f;
	return -1;
}

int placement_spec_parse(struct placement_spec *ps, const char *policy, const char *cores,
			 const char *map, int ranks_per_node, enum spec_syntax syn, int map_optional,
			 enum spec_field *field, struct perr *err)
{
	int opt = syn == SPEC_OPTIONS;
	memset(ps, 0, sizeof(*ps));
	ps->policy = map ? POLICY_EXPLICIT : POLICY_COMPACT;
	ps->cores_per_rank = 1;
	ps->map = map;
	ps->ranks_per_node = ranks_per_node;
	if (policy) {
		if (policy_parse_kind(policy, &ps->policy, err) < 0) {
			if (!opt)
				perr_set(err, "unknown policy '%s'; write policy = \"compact\", \"spread\" or "
					 "\"explicit\";", policy);
			return fail(field, SPEC_POLICY);
		}
		ps->have_policy = 1;
	}
	if (cores) {
		if (policy_parse_cores_per_rank(cores, &ps->cores_per_rank, err) < 0) {
			if (!opt)
				perr_set(err, "cores_per_rank must be a positive integer or \"all\", not '%s'; "
					 "write cores_per_rank = 2;", cores);
			return fail(field, SPEC_CORES);
		}
		ps->have_cores = 1;
	}
	if (map && ps->policy != POLICY_EXPLICIT) {
		if (opt)
			perr_set(err, "--map goes with the explicit policy, not '%s'", policy_kind_name(ps->policy));
		else
			perr_set(err, "a placement map goes with policy = \"explicit\";");
		return fail(field, SPEC_MAP);
	}
	if (!map && ps->policy == POLICY_EXPLICIT && !map_optional) {
		if (opt)
			perr_set(err, "the explicit policy needs --map FILE");
		else
			perr_set(err, "policy \"explicit\" needs the core sets: map = \"cores.map\"; "
				 "(one line of cores per local rank, docs/placement.md)");
		return fail(field, SPEC_POLICY);
	}
	if (ps->have_cores && ps->policy == POLICY_EXPLICIT) {
		perr_set(err, opt ? "--cores-per-rank does not apply to an explicit map"
				  : "cores_per_rank does not apply to an explicit map");
		return fail(field, SPEC_CORES);
	}
	if (ranks_per_node < 0) {
		perr_set(err, "ranks per node must be positive, not %d", ranks_per_node);
		return fail(field, SPEC_RANKS);
	}
	return 0;
}
