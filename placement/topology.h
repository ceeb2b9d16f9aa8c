/*
 * The machine a placement is computed for: the host's own hwloc topology,
 * a synthetic description ("pack:2 numa:1 core:18 pu:1") for planning on a
 * different target machine, or an XML export (`lstopo --of xml`).
 *
 * Placements count in "units": the cores of the topology, or its PUs when
 * hwloc knows no cores.  Only units with at least one allowed PU are usable.
 * hwloc binds only on the host's own topology (topology_is_this_system):
 * plan on any topology, bind on the real one.
 */
#ifndef PS_TOPOLOGY_H
#define PS_TOPOLOGY_H
#include "common/error.h"
#include "common/strbuf.h"
#include <hwloc.h>

enum topology_kind {
	TOPOLOGY_HOST,          /* this machine */
	TOPOLOGY_SYNTHETIC,     /* a synthetic description */
	TOPOLOGY_XML,           /* an XML export */
};

struct topology {
	hwloc_topology_t hw;    /* loaded; never NULL after topology_load succeeded */
	enum topology_kind kind;
	char *source;           /* the description or XML path; NULL for the host */
	/* usable units in logical order, with their PUs (allowed ones only) */
	int nunits;
	hwloc_obj_t *units;
	hwloc_bitmap_t *unit_pus;
	int *unit_package;      /* index into 0..npackages-1, in logical order */
	int *unit_numa;         /* index into 0..nnuma-1 (first local NUMA node) */
	int npackages, nnuma;   /* packages and NUMA nodes holding usable units (>= 1) */
};

struct topology_summary {
	int packages, numa_nodes, cores, pus;
	int usable_units;       /* cores (or PUs) with an allowed PU */
};

/*
 * Load a topology.  spec NULL or "" means this machine; a spec ending in
 * ".xml" is an XML file (relative paths resolve against basedir when it is
 * not NULL); anything else is a synthetic description.
 */
int topology_load(struct topology *t, const char *spec, const char *basedir, struct perr *err);
void topology_release(struct topology *t);
/* Non-zero when hwloc can bind on t (it describes the running machine). */
int topology_is_this_system(const struct topology *t);
void topology_summarize(const struct topology *t, struct topology_summary *s);
/* Append a human-readable summary: counts, then one line per package. */
void topology_describe(const struct topology *t, struct strbuf *out);
/* The usable units (logical), PUs and NUMA nodes (OS indexes) of package pkg. */
void topology_package_sets(const struct topology *t, int pkg, hwloc_bitmap_t units, hwloc_bitmap_t pus,
			   hwloc_bitmap_t numa);
/* The usable units whose PUs intersect pus. */
void topology_units_of(const struct topology *t, hwloc_const_bitmap_t pus, hwloc_bitmap_t units);

#endif
