/*
 * Placement policies: which PUs each of the r ranks on one node is bound to.
 *
 *   compact   rank i takes the next cores_per_rank cores in logical order,
 *             so package 0 fills first;
 *   spread    ranks go round-robin over packages, and inside a package
 *             round-robin over its NUMA nodes; each takes the next free
 *             cores_per_rank cores there;
 *   explicit  one core set per local rank ("0-3", "4,6"), logical core
 *             indexes as lstopo shows them (L#).
 *
 * cores_per_rank 0 ("all") shares every usable core among the ranks in
 * blocks proportional to packages and NUMA nodes (hwloc_distrib's split):
 * compact numbers the blocks in order, spread deals them round-robin over
 * packages.  A rank gets all PUs (hardware threads) of its cores.
 */
#ifndef PS_POLICY_H
#define PS_POLICY_H
#include "common/error.h"
#include "placement/topology.h"
#include <hwloc.h>

enum policy_kind { POLICY_COMPACT, POLICY_SPREAD, POLICY_EXPLICIT };

struct policy {
	enum policy_kind kind;
	int cores_per_rank;         /* >= 1, or 0: share all usable cores */
	int nsets;                  /* explicit: one core set per local rank */
	hwloc_bitmap_t *sets;       /* logical core indexes */
};

/* The result: one PU set (OS indexes, as hwloc binds) per local rank. */
struct placement {
	int nranks;
	hwloc_bitmap_t *cpusets;
};

/* compact policy, one core per rank. */
void policy_init(struct policy *p);
void policy_release(struct policy *p);
/* "compact", "spread" or "explicit". */
int policy_parse_kind(const char *name, enum policy_kind *kind, struct perr *err);
const char *policy_kind_name(enum policy_kind kind);
/* A positive count or "all" (0). */
int policy_parse_cores_per_rank(const char *s, int *cores, struct perr *err);
/*
 * Parse a core list "0-3,8,10-11" into set: decimal indexes and ranges
 * lo-hi with lo <= hi, separated by commas, blanks allowed around items.
 */
int policy_parse_cores(const char *s, hwloc_bitmap_t set, struct perr *err);
/* Add an explicit core set (kind becomes POLICY_EXPLICIT); err names its rank. */
int policy_add_set(struct policy *p, const char *cores, struct perr *err);
/*
 * Read an explicit map: one core set per line, line k for local rank k;
 * blank lines and '#' comments are skipped.  Errors read "FILE:LINE: ...".
 */
int policy_load_map(struct policy *p, const char *path, struct perr *err);
/* The same from a buffer; name is used in messages. */
int policy_parse_map(struct policy *p, const char *text, size_t len, const char *name,
		     struct perr *err);

/*
 * Place nranks ranks on one node of t.  nranks 0 with an explicit policy
 * means one rank per set.  Fails when the ranks need more cores than t has,
 * or an explicit set partly overlaps another (equal sets share their cores
 * on purpose) or names a missing core.
 */
int policy_place(const struct policy *p, const struct topology *t, int nranks, struct placement *out,
		 struct perr *err);
void placement_release(struct placement *pl);

#endif
