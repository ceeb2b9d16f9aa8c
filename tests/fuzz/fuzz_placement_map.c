/* Fuzz the explicit placement map parser and the placement checks it feeds
   (core lists, overlaps, missing cores) on a fixed synthetic topology. */
#include "placement/policy.h"
#include "placement/topology.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology t;
	static int loaded;
	struct perr err;
	if (!loaded) {
		if (topology_load(&t, "pack:2 numa:2 core:4 pu:2", NULL, &err) < 0)
			abort();
		loaded = 1;
	}
	struct policy p;
	policy_init(&p);
	if (policy_parse_map(&p, (const char *)data, size, "fuzz.map", &err) == 0) {
		struct placement pl;
		if (policy_place(&p, &t, 0, &pl, &err) == 0) {
			/* accepted sets are inside the topology, and disjoint
			   unless equal (the same set twice is an oversubscription
			   study, on purpose) */
			hwloc_bitmap_t all = hwloc_bitmap_alloc();
			for (int i = 0; i < pl.nranks; i++) {
				if (hwloc_bitmap_iszero(pl.cpusets[i]))
					abort();
				for (int j = 0; j < i; j++)
					if (hwloc_bitmap_intersects(pl.cpusets[i], pl.cpusets[j]) &&
					    !hwloc_bitmap_isequal(pl.cpusets[i], pl.cpusets[j]))
						abort();
				hwloc_bitmap_or(all, all, pl.cpusets[i]);
			}
			if (hwloc_bitmap_last(all) >= 32)
				abort();
			hwloc_bitmap_free(all);
			placement_release(&pl);
		}
	}
	policy_release(&p);
	return 0;
}
