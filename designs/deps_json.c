/*
 * Reader for Perf-Taint's processed JSON (the output of its post-processing):
 * "parameters", optional "unused_parameters", the function name tables and
 * "functions" {key: {func_idx, loops: [{callstack, data, deps,
 * not_found_params}]}}.  Every value is type-checked; errors name the file
 * and the JSON path, e.g. FILE: .functions["f"].loops[0].deps[1]: ...
 * Functions listed in the name tables but absent from "functions" had no
 * parameter-dependent loop: they are added as constant functions.
 */
#include "designs/deps_internal.h"
#include "common/xalloc.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct jctx {
	const char *path;
	struct perr *err;
	struct deps *d;
	size_t nnames;          /* length of the function name tables (0 if absent) */
};

static const char *jtype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "object";
	case JSON_ARRAY: return "array";
	case JSON_STRING: return "string";
	case JSON_INTEGER: return "integer";
	case JSON_REAL: return "number";
	case JSON_TRUE: case JSON_FALSE: return "boolean";
	default: return "null";
	}
}

static int jfail(struct jctx *c, const char *where, const char *fmt, const char *a, const char *b)
{
	char msg[512];
	snprintf(msg, sizeof(msg), fmt, a, b);
	return perr_set(c->err, "%s: %s: %s", c->path, where, msg);
}

static int want(struct jctx *c, const json_t *v, json_type t, const char *where)
{
	if (v && json_typeof(v) == t)
		return 0;
	static const char *names[] = { "object", "array", "string", "integer", "number", "true",
				       "false", "null" };
	if (!v)
		return jfail(c, where, "missing (expected %s)%s", names[t], "");
	return jfail(c, where, "expected %s, got %s", names[t], jtype(v));
}

/* A parameter name at where: a known parameter's index, or -1 with err set. */
static int param_ref(struct jctx *c, const json_t *v, const char *where)
{
	if (want(c, v, JSON_STRING, where) < 0)
		return -1;
	int k = deps_find_param(c->d, json_string_value(v));
	if (k < 0)
		return jfail(c, where, "unknown parameter '%s' (not in \"parameters\")%s",
			     json_string_value(v), "");
	return k;
}

static int read_names(struct jctx *c, const json_t *root, const char *key, const json_t **out)
{
	const json_t *a = json_object_get(root, key);
	*out = NULL;
	if (!a)
		return 0;
	char where[64];
	snprintf(where, sizeof(where), ".%s", key);
	if (want(c, a, JSON_ARRAY, where) < 0)
		return -1;
	if (c->nnames && json_array_size(a) != c->nnames)
		return perr_set(c->err, "%s: %s: has %zu names, other name tables have %zu", c->path,
				where, json_array_size(a), c->nnames);
	c->nnames = json_array_size(a);
	for (size_t i = 0; i < json_array_size(a); i++) {
		snprintf(where, sizeof(where), ".%s[%zu]", key, i);
		if (want(c, json_array_get(a, i), JSON_STRING, where) < 0)
			return -1;
	}
	*out = a;
	return 0;
}

static int read_params(struct jctx *c, const json_t *root, const char *key, int required)
{
	const json_t *a = json_object_get(root, key);
	char where[64];
	snprintf(where, sizeof(where), ".%s", key);
	if (!a && !required)
		return 0;
	if (want(c, a, JSON_ARRAY, where) < 0)
		return -1;
	if (required && json_array_size(a) == 0)
		return jfail(c, where, "no parameters%s%s", "", "");
	for (size_t i = 0; i < json_array_size(a); i++) {
		const json_t *v = json_array_get(a, i);
		snprintf(where, sizeof(where), ".%s[%zu]", key, i);
		if (want(c, v, JSON_STRING, where) < 0)
			return -1;
		if (!*json_string_value(v))
			return jfail(c, where, "empty parameter name%s%s", "", "");
		if (deps_add_param(c->d, json_string_value(v)) < 0)
			return jfail(c, where, "duplicate parameter '%s'%s", json_string_value(v), "");
	}
	return 0;
}

/* The "data" tree: nodes {dependency, operands}; operands are nodes or parameter names. */
static int read_data_node(struct jctx *c, const json_t *n, const char *where, int depth)
{
	if (depth > 64)
		return jfail(c, where, "dependency tree nested too deeply%s%s", "", "");
	if (want(c, n, JSON_OBJECT, where) < 0)
		return -1;
	char sub[1024];
	const json_t *dep = json_object_get(n, "dependency");
	snprintf(sub, sizeof(sub), "%s.dependency", where);
	if (want(c, dep, JSON_STRING, sub) < 0)
		return -1;
	const char *s = json_string_value(dep);
	if (strcmp(s, "additive") && strcmp(s, "multiplicative") && strcmp(s, "unknown"))
		return jfail(c, sub, "unknown dependency kind '%s' (expected additive, "
			     "multiplicative or unknown)%s", s, "");
	const json_t *ops = json_object_get(n, "operands");
	snprintf(sub, sizeof(sub), "%s.operands", where);
	if (want(c, ops, JSON_ARRAY, sub) < 0)
		return -1;
	for (size_t i = 0; i < json_array_size(ops); i++) {
		const json_t *o = json_array_get(ops, i);
		snprintf(sub, sizeof(sub), "%s.operands[%zu]", where, i);
		if (json_is_string(o)) {
			if (param_ref(c, o, sub) < 0)
				return -1;
		} else if (read_data_node(c, o, sub, depth + 1) < 0) {
			return -1;
		}
	}
	return 0;
}

/* A loop's "deps": sets of parameters, each a product term of loop; -1 with err. */
static int read_loop_deps(struct jctx *c, struct dep_loop *loop, const json_t *l, const char *where)
{
	char sub[1024];
	const json_t *deps = json_object_get(l, "deps");
	snprintf(sub, sizeof(sub), "%s.deps", where);
	if (want(c, deps, JSON_ARRAY, sub) < 0)
		return -1;
	for (size_t i = 0; i < json_array_size(deps); i++) {
		const json_t *set = json_array_get(deps, i);
		snprintf(sub, sizeof(sub), "%s.deps[%zu]", where, i);
		if (want(c, set, JSON_ARRAY, sub) < 0)
			return -1;
		size_t n = json_array_size(set);
		if (n == 0)
			return jfail(c, sub, "empty parameter set%s%s", "", "");
		int *idx = xmalloc(sizeof(int) * n);
		for (size_t j = 0; j < n; j++) {
			char el[1100];
			snprintf(el, sizeof(el), "%s[%zu]", sub, j);
			if ((idx[j] = param_ref(c, json_array_get(set, j), el)) < 0) {
				free(idx);
				return -1;
			}
		}
		int rc = deps_loop_add_term(loop, idx, (int)n);
		free(idx);
		if (rc < 0)
			return jfail(c, sub, "parameter repeated in one set%s%s", "", "");
	}
	return 0;
}

/* A loop's "callstack" (cs): paths of function indexes, or null; checked, not kept.  -1 with err. */
static int read_callstack(struct jctx *c, const json_t *cs, const char *where)
{
	char sub[1024];
	snprintf(sub, sizeof(sub), "%s.callstack", where);
	if (want(c, cs, JSON_ARRAY, sub) < 0)
		return -1;
	for (size_t i = 0; i < json_array_size(cs); i++) {
		const json_t *path = json_array_get(cs, i);
		snprintf(sub, sizeof(sub), "%s.callstack[%zu]", where, i);
		if (json_is_null(path))
			continue;       /* no caller: the loop is in main */
		if (want(c, path, JSON_ARRAY, sub) < 0)
			return -1;
		for (size_t j = 0; j < json_array_size(path); j++) {
			const json_t *v = json_array_get(path, j);
			char el[1100];
			snprintf(el, sizeof(el), "%s[%zu]", sub, j);
			if (want(c, v, JSON_INTEGER, el) < 0)
				return -1;
			json_int_t x = json_integer_value(v);
			if (x < 0 || (c->nnames && (size_t)x >= c->nnames))
				return perr_set(c->err, "%s: %s: function index %lld out of "
						"range (%zu names)", c->path, el, (long long)x,
						c->nnames);
		}
	}
	return 0;
}

static int read_loop(struct jctx *c, struct dep_function *f, const json_t *l, const char *where)
{
	char sub[1024];
	if (want(c, l, JSON_OBJECT, where) < 0)
		return -1;
	if (read_loop_deps(c, deps_add_loop(f), l, where) < 0)
		return -1;
	const json_t *data = json_object_get(l, "data");
	if (data) {
		snprintf(sub, sizeof(sub), "%s.data", where);
		if (want(c, data, JSON_ARRAY, sub) < 0)
			return -1;
		for (size_t i = 0; i < json_array_size(data); i++) {
			snprintf(sub, sizeof(sub), "%s.data[%zu]", where, i);
			if (read_data_node(c, json_array_get(data, i), sub, 0) < 0)
				return -1;
		}
	}
	const json_t *cs = json_object_get(l, "callstack");
	if (cs && read_callstack(c, cs, where) < 0)
		return -1;
	const json_t *nf = json_object_get(l, "not_found_params");
	if (nf && !json_is_null(nf)) {
		snprintf(sub, sizeof(sub), "%s.not_found_params", where);
		if (want(c, nf, JSON_ARRAY, sub) < 0)
			return -1;
		for (size_t i = 0; i < json_array_size(nf); i++) {
			snprintf(sub, sizeof(sub), "%s.not_found_params[%zu]", where, i);
			if (param_ref(c, json_array_get(nf, i), sub) < 0)
				return -1;
		}
	}
	return 0;
}

static const char *name_at(const json_t *names, json_int_t i)
{
	return names ? json_string_value(json_array_get(names, (size_t)i)) : NULL;
}

/* The three function-name tables, each NULL when absent. */
struct name_tables {
	const json_t *names, *mangled, *demangled;
};

/* One entry of "functions": its names (via func_idx) and its loops; -1 with err. */
static int read_function(struct jctx *c, const char *key, const json_t *fv, const struct name_tables *nt,
			 char *seen)
{
	char where[512], sub[700];
	snprintf(where, sizeof(where), ".functions[\"%s\"]", key);
	if (want(c, fv, JSON_OBJECT, where) < 0)
		return -1;
	const json_t *idx = json_object_get(fv, "func_idx");
	const char *fname = key, *fm = NULL, *fd = NULL;
	if (idx && !json_is_null(idx)) {
		snprintf(sub, sizeof(sub), "%s.func_idx", where);
		if (want(c, idx, JSON_INTEGER, sub) < 0)
			return -1;
		json_int_t i = json_integer_value(idx);
		if (i < 0 || (size_t)i >= c->nnames)
			return perr_set(c->err, "%s: %s: function index %lld out of range (%zu names)", c->path,
					sub, (long long)i, c->nnames);
		if (seen[i])
			return perr_set(c->err, "%s: %s: function index %lld used twice", c->path, sub,
					(long long)i);
		seen[i] = 1;
		fm = name_at(nt->mangled, i);
		fd = name_at(nt->demangled, i);
		if (fd)
			fname = fd;
		else if (name_at(nt->names, i))
			fname = name_at(nt->names, i);
	}
	if (!fm && strcmp(fname, key))
		fm = key;
	struct dep_function *f = deps_add_function(c->d, fname, fm, fd);
	const json_t *loops = json_object_get(fv, "loops");
	snprintf(sub, sizeof(sub), "%s.loops", where);
	if (want(c, loops, JSON_ARRAY, sub) < 0)
		return -1;
	for (size_t j = 0; j < json_array_size(loops); j++) {
		snprintf(sub, sizeof(sub), "%s.loops[%zu]", where, j);
		if (read_loop(c, f, json_array_get(loops, j), sub) < 0)
			return -1;
	}
	return 0;
}

int deps_read_json(struct deps *d, const char *path, const char *text, size_t len,
		   struct perr *err)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return perr_set(err, "%s:%d:%d: malformed JSON: %s", path, je.line, je.column, je.text);
	struct jctx c = { .path = path, .err = err, .d = d };
	const json_t *names, *mangled, *demangled;
	char *seen = NULL;
	int rc = -1;
	if (want(&c, root, JSON_OBJECT, "top level") < 0)
		goto done;
	if (read_params(&c, root, "parameters", 1) < 0 || read_params(&c, root, "unused_parameters", 0) < 0)
		goto done;
	if (read_names(&c, root, "functions_names", &names) < 0 ||
	    read_names(&c, root, "functions_mangled_names", &mangled) < 0 ||
	    read_names(&c, root, "functions_demangled_names", &demangled) < 0)
		goto done;
	json_t *funcs = json_object_get(root, "functions");
	if (want(&c, funcs, JSON_OBJECT, ".functions") < 0)
		goto done;
	seen = xcalloc(c.nnames + 1, 1);
	const struct name_tables nt = { names, mangled, demangled };
	const char *key;
	json_t *fv;
	json_object_foreach(funcs, key, fv) {
		if (read_function(&c, key, fv, &nt, seen) < 0)
			goto done;
	}
	/* functions in the name tables without an entry: no parameter-dependent loop */
	for (size_t i = 0; i < c.nnames; i++) {
		if (seen[i])
			continue;
		const char *fd = name_at(demangled, (json_int_t)i), *fm = name_at(mangled, (json_int_t)i);
		const char *fname = fd ? fd : name_at(names, (json_int_t)i);
		if (!fname)
			fname = fm;
		if (!json_object_get(funcs, fm ? fm : fname))
			deps_add_function(d, fname, fm, fd);
	}
	rc = 0;
done:
	free(seen);
	json_decref(root);
	return rc;
}
