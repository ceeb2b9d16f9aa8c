/*
 * Helpers shared by the two dependency readers (deps_json.c, deps_config.c):
 * growing the function table and normalising product terms.  Not part of
 * the public API.
 */
#ifndef PS_DEPS_INTERNAL_H
#define PS_DEPS_INTERNAL_H
#include "designs/deps.h"
#include <stddef.h>

/* Append a parameter name; returns -1 (without setting err) if it exists. */
int deps_add_param(struct deps *d, const char *name);
/* Append a function; the strings are copied (mangled/demangled may be NULL). */
struct dep_function *deps_add_function(struct deps *d, const char *name, const char *mangled,
				       const char *demangled);
/* Append a loop to f and return it. */
struct dep_loop *deps_add_loop(struct dep_function *f);
/*
 * Add the term made of params[0..n) to loop l: sorted, duplicate terms
 * ignored.  Returns -1 if a parameter repeats inside the term (the caller
 * reports it with its position).
 */
int deps_loop_add_term(struct dep_loop *l, const int *params, int n);
/* Compute every function's merged term list from its loops. */
void deps_merge_terms(struct deps *d);
int deps_read_json(struct deps *d, const char *path, const char *text, size_t len,
		   struct perr *err);
int deps_read_config(struct deps *d, const char *path, const char *text, struct perr *err);

#endif
