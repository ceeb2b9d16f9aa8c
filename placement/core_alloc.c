/* The core allocator: disjoint sets of usable units for concurrent runs. */
#include "placement/core_alloc.h"
#include <string.h>

void core_alloc_init(struct core_alloc *a, const struct topology *t)
{
	a->t = t;
	a->busy = hwloc_bitmap_alloc();
}

void core_alloc_release(struct core_alloc *a)
{
	hwloc_bitmap_free(a->busy);
	memset(a, 0, sizeof(*a));
}

int core_alloc_free_count(const struct core_alloc *a)
{
	int n = 0;
	for (int u = 0; u < a->t->nunits; u++)
		n += !hwloc_bitmap_isset(a->busy, (unsigned)u);
	return n;
}

/* The lowest free unit of package pkg (-1: any package), or -1. */
static int first_free(const struct core_alloc *a, hwloc_const_bitmap_t taken, int pkg)
{
	for (int u = 0; u < a->t->nunits; u++)
		if (!hwloc_bitmap_isset(a->busy, (unsigned)u) && !hwloc_bitmap_isset(taken, (unsigned)u) &&
		    (pkg < 0 || a->t->unit_package[u] == pkg))
			return u;
	return -1;
}

int core_alloc_take(struct core_alloc *a, int n, int spread, hwloc_bitmap_t out)
{
	hwloc_bitmap_zero(out);
	if (n < 0 || n > core_alloc_free_count(a))
		return 1;
	int pkg = 0;
	for (int k = 0; k < n; k++) {
		int u = -1;
		/* spread: the next package round-robin that still has a free unit */
		for (int tries = 0; spread && u < 0 && tries < a->t->npackages; tries++) {
			u = first_free(a, out, pkg);
			pkg = (pkg + 1) % a->t->npackages;
		}
		if (u < 0)
			u = first_free(a, out, -1);
		hwloc_bitmap_set(out, (unsigned)u);
	}
	hwloc_bitmap_or(a->busy, a->busy, out);
	return 0;
}

int core_alloc_take_set(struct core_alloc *a, hwloc_const_bitmap_t want)
{
	if (hwloc_bitmap_intersects(a->busy, want))
		return 1;
	hwloc_bitmap_or(a->busy, a->busy, want);
	return 0;
}

void core_alloc_give(struct core_alloc *a, hwloc_const_bitmap_t units)
{
	hwloc_bitmap_andnot(a->busy, a->busy, units);
}
