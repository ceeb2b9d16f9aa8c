/*
 * The core allocator: hands each concurrent run its own cores of one node,
 * so two runs that overlap in time never share a core.  Cores are the
 * topology's usable units (placement/topology.h), numbered 0..nunits-1.
 *
 * Invariants: a core is held by at most one allocation; core_alloc_take
 * either takes all it was asked for or nothing.  Pure bookkeeping, no I/O.
 */
#ifndef PS_CORE_ALLOC_H
#define PS_CORE_ALLOC_H
#include "placement/topology.h"
#include <hwloc.h>

struct core_alloc {
	const struct topology *t;   /* not owned; outlives the allocator */
	hwloc_bitmap_t busy;        /* units held by some run */
};

void core_alloc_init(struct core_alloc *a, const struct topology *t);
void core_alloc_release(struct core_alloc *a);
/* Usable units not held by anyone. */
int core_alloc_free_count(const struct core_alloc *a);
/*
 * Take n free units into out (cleared first): the lowest free units in
 * logical order, or with spread set, free units dealt round-robin over the
 * packages.  Returns 0, or 1 (nothing taken) when fewer than n are free.
 */
int core_alloc_take(struct core_alloc *a, int n, int spread, hwloc_bitmap_t out);
/* Take exactly the units in want.  0, or 1 (nothing taken) if one is held. */
int core_alloc_take_set(struct core_alloc *a, hwloc_const_bitmap_t want);
/* Give units back. */
void core_alloc_give(struct core_alloc *a, hwloc_const_bitmap_t units);

#endif
