/*
 * Matching dependency-file functions to call-path regions.  A Score-P
 * region name is a demangled signature written with the source's typedefs
 * ("void CalcAccelerationForNodes(Domain&, Index_t)"), while Perf-Taint
 * names the same function with resolved types
 * ("CalcAccelerationForNodes(Domain&, int)").  Both are reduced to the
 * qualified function name ("CalcAccelerationForNodes", "Domain::BuildMesh")
 * and the number of parameters; a region matches the function with the same
 * qualified name, overloads being told apart by the parameter count.  A
 * region whose name equals a function's mangled name matches it directly.
 *
 * The region of a call path is its last element ("main->foo->bar" -> "bar").
 * Every call path gets its function or NULL; regions and functions that did
 * not match are listed, so that nothing is dropped silently.
 */
#ifndef PS_REGION_MATCH_H
#define PS_REGION_MATCH_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "designs/deps.h"

struct region_match {
	int ncallpaths;                         /* == experiment's ncallpaths */
	const struct dep_function **func;       /* per callpath: matched function or NULL */
	int nunmatched_regions;
	char **unmatched_regions;               /* distinct region names that matched nothing */
	char **unmatched_reasons;               /* one short reason per unmatched region */
	int nunmatched_funcs;
	const struct dep_function **unmatched_funcs;    /* functions no call path matched */
	int nmatched_regions;                   /* distinct regions that matched */
};

/*
 * Match every call path of e against the functions of d.  Pointers in m
 * point into d, which must outlive m.  Returns 0, or -1 with err set (only
 * for malformed input, never for a region that does not match).
 */
int region_match(struct region_match *m, const struct experiment *e, const struct deps *d,
		 struct perr *err);
void region_match_release(struct region_match *m);

/*
 * Reduce a (demangled) signature to its qualified function name; *nparams
 * gets the parameter count, or -1 when the name has no parameter list
 * ("MPI_Allreduce").  Returns a new string, or NULL when nothing that looks
 * like a function name is found.
 */
char *region_function_name(const char *signature, int *nparams);

/* The last element of a call path ("a->b->c" -> "c"), ignoring "->" inside
 * parentheses or after "operator".  Points into callpath. */
const char *region_callpath_leaf(const char *callpath);

#endif
