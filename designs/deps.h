/*
 * Dependency information: for every function, which program parameters its
 * loop iteration counts depend on, as a sum of product terms.  A term is a
 * set of parameters that multiply; separate terms add.  Read from
 * Perf-Taint's processed JSON or from the native libconfig form
 * (docs/dependencies.md).  Owned by designs/; used read-only by the
 * validator and the collectors' region matching.
 *
 * Invariants: every parameter index in a term is < nparams; a term has at
 * least one parameter; a function's terms are de-duplicated.  A function
 * with nterms == 0 is constant (depends on no parameter).
 */
#ifndef PS_DEPS_H
#define PS_DEPS_H
#include "common/error.h"

struct dep_term {
	int n;
	int *params;            /* indices into deps.params, ascending */
};

struct dep_loop {
	int nterms;
	struct dep_term *terms;
};

struct dep_function {
	char *name;             /* the key in the file (demangled name for Perf-Taint) */
	char *mangled;          /* NULL when the file has none */
	char *demangled;        /* NULL when the file has none */
	int nloops;             /* loops recorded for this function */
	struct dep_loop *loops;
	int nterms;             /* union of the loops' terms, de-duplicated */
	struct dep_term *terms;
	char *expect;           /* expected compute volume expression, or NULL */
};

struct deps {
	char *path;
	int nparams;
	char **params;
	int nfuncs;
	struct dep_function *funcs;
};

/* Read a dependency file; the form is detected from its content. */
int deps_read(struct deps *d, const char *path, struct perr *err);
void deps_release(struct deps *d);
int deps_find_param(const struct deps *d, const char *name);
const struct dep_function *deps_find_function(const struct deps *d, const char *name);

#endif
