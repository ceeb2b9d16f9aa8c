/*
 * Reader for the native, hand-writable dependency form (libconfig syntax,
 * docs/dependencies.md):
 *
 *   parameters = ["size", "p", "iters"];
 *   functions = (
 *     { name = "solve"; deps = (["size", "iters"], ["p"]); expect = "size^3 * iters"; },
 *     { name = "setup"; deps = (); }
 *   );
 *
 * Every setting is checked; errors read "FILE:LINE: message".
 */
#include "designs/deps_internal.h"
#include "designs/expr.h"
#include "common/xalloc.h"
#include <libconfig.h>
#include <stdlib.h>
#include <string.h>

static int at(struct perr *err, const char *path, const config_setting_t *s, const char *fmt,
	      const char *a, const char *b)
{
	char msg[1200];
	snprintf(msg, sizeof(msg), fmt, a, b);
	return perr_set(err, "%s:%d: %s", path, s ? config_setting_source_line(s) : 0, msg);
}

static const char *ctype(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP: return "a group";
	case CONFIG_TYPE_ARRAY: return "an array";
	case CONFIG_TYPE_LIST: return "a list";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "a boolean";
	default: return "a number";
	}
}

static int read_set(struct deps *d, const char *path, struct dep_loop *loop,
		    const config_setting_t *set, struct perr *err)
{
	if (config_setting_type(set) != CONFIG_TYPE_ARRAY)
		return at(err, path, set, "a dependency set must be an array of parameter names, "
			  "like [\"size\", \"p\"], not %s%s", ctype(set), "");
	int n = config_setting_length(set);
	if (n == 0)
		return at(err, path, set, "empty parameter set%s%s", "", "");
	int *idx = xmalloc(sizeof(int) * (size_t)n);
	for (int j = 0; j < n; j++) {
		const config_setting_t *e = config_setting_get_elem(set, (unsigned)j);
		const char *name = config_setting_get_string(e);
		if (!name) {
			free(idx);
			return at(err, path, set, "a dependency set must hold parameter names (strings), "
				  "not %s%s", ctype(e), "");
		}
		if ((idx[j] = deps_find_param(d, name)) < 0) {
			free(idx);
			return at(err, path, set, "unknown parameter '%s' (not in \"parameters\")%s", name,
				  "");
		}
	}
	int rc = deps_loop_add_term(loop, idx, n);
	free(idx);
	if (rc < 0)
		return at(err, path, set, "parameter repeated in one set%s%s", "", "");
	return 0;
}

static int read_function(struct deps *d, const char *path, const config_setting_t *fs,
			 struct perr *err)
{
	static const char *known[] = { "name", "deps", "expect", "mangled", "demangled", NULL };
	if (config_setting_type(fs) != CONFIG_TYPE_GROUP)
		return at(err, path, fs, "each function must be a group { name = ...; deps = ...; }, "
			  "not %s%s", ctype(fs), "");
	for (int i = 0; i < config_setting_length(fs); i++) {
		const config_setting_t *m = config_setting_get_elem(fs, (unsigned)i);
		int ok = 0;
		for (int k = 0; known[k]; k++)
			ok |= !strcmp(known[k], config_setting_name(m));
		if (!ok)
			return at(err, path, m, "unknown setting '%s' in a function (expected name, deps, "
				  "expect, mangled or demangled)%s", config_setting_name(m), "");
	}
	const config_setting_t *ns = config_setting_get_member(fs, "name");
	const char *name = ns ? config_setting_get_string(ns) : NULL;
	if (!ns)
		return at(err, path, fs, "function without a name%s%s", "", "");
	if (!name || !*name)
		return at(err, path, ns, "a function name must be a non-empty string%s%s", "", "");
	for (int i = 0; i < d->nfuncs; i++)
		if (!strcmp(d->funcs[i].name, name))
			return at(err, path, ns, "function '%s' listed twice%s", name, "");
	const char *strs[2] = { NULL, NULL };
	static const char *skeys[2] = { "mangled", "demangled" };
	for (int k = 0; k < 2; k++) {
		const config_setting_t *s = config_setting_get_member(fs, skeys[k]);
		if (s && !(strs[k] = config_setting_get_string(s)))
			return at(err, path, s, "'%s' must be a string%s", skeys[k], "");
	}
	struct dep_function *f = deps_add_function(d, name, strs[0], strs[1]);
	const config_setting_t *ds = config_setting_get_member(fs, "deps");
	if (!ds)
		return at(err, path, fs, "function '%s' has no 'deps' (write deps = (); for a "
			  "constant function)%s", name, "");
	if (config_setting_type(ds) == CONFIG_TYPE_ARRAY && config_setting_length(ds) > 0)
		return at(err, path, ds, "'deps' is a list of sets: write deps = ([\"a\", \"b\"]); "
			  "not deps = [\"a\", \"b\"];%s%s", "", "");
	if (config_setting_type(ds) != CONFIG_TYPE_LIST && config_setting_type(ds) != CONFIG_TYPE_ARRAY)
		return at(err, path, ds, "'deps' must be a list of parameter sets, like "
			  "([\"size\", \"p\"], [\"iters\"]), not %s%s", ctype(ds), "");
	if (config_setting_length(ds) > 0) {
		struct dep_loop *loop = deps_add_loop(f);
		for (int i = 0; i < config_setting_length(ds); i++)
			if (read_set(d, path, loop, config_setting_get_elem(ds, (unsigned)i), err) < 0)
				return -1;
	}
	const config_setting_t *es = config_setting_get_member(fs, "expect");
	if (es) {
		const char *text = config_setting_get_string(es);
		if (!text)
			return at(err, path, es, "'expect' must be an expression string, like "
				  "\"size^3 * iters\"%s%s", "", "");
		struct perr perr;
		struct expr *e = expr_parse(text, d->nparams, d->params, &perr);
		if (!e)
			return at(err, path, es, "bad 'expect' expression: %s%s", perr.msg, "");
		expr_free(e);
		f->expect = xstrdup(text);
	}
	return 0;
}

int deps_read_config(struct deps *d, const char *path, const char *text, struct perr *err)
{
	config_t cfg;
	config_init(&cfg);
	int rc = -1;
	if (config_read_string(&cfg, text) != CONFIG_TRUE) {
		perr_set(err, "%s:%d: %s", path, config_error_line(&cfg), config_error_text(&cfg));
		goto done;
	}
	const config_setting_t *root = config_root_setting(&cfg);
	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *m = config_setting_get_elem(root, (unsigned)i);
		if (strcmp(config_setting_name(m), "parameters") && strcmp(config_setting_name(m), "functions")) {
			at(err, path, m, "unknown setting '%s' (expected parameters and functions)%s",
			   config_setting_name(m), "");
			goto done;
		}
	}
	const config_setting_t *ps = config_lookup(&cfg, "parameters");
	if (!ps) {
		perr_set(err, "%s: no 'parameters' (write parameters = [\"size\", \"p\"];)", path);
		goto done;
	}
	if (config_setting_type(ps) != CONFIG_TYPE_ARRAY) {
		at(err, path, ps, "'parameters' must be an array of names, like [\"size\", \"p\"], "
		   "not %s%s", ctype(ps), "");
		goto done;
	}
	if (config_setting_length(ps) == 0) {
		at(err, path, ps, "no parameters%s%s", "", "");
		goto done;
	}
	for (int i = 0; i < config_setting_length(ps); i++) {
		const config_setting_t *e = config_setting_get_elem(ps, (unsigned)i);
		const char *name = config_setting_get_string(e);
		if (!name) {
			at(err, path, ps, "'parameters' must hold names (strings), not %s%s", ctype(e), "");
			goto done;
		}
		int okname = *name != 0;
		for (const char *c = name; *c; c++)
			okname &= (*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
				   (c != name && *c >= '0' && *c <= '9'));
		if (!okname) {
			at(err, path, ps, "bad parameter name '%s' (letters, digits and _)%s", name, "");
			goto done;
		}
		if (deps_add_param(d, name) < 0) {
			at(err, path, ps, "duplicate parameter '%s'%s", name, "");
			goto done;
		}
	}
	const config_setting_t *fs = config_lookup(&cfg, "functions");
	if (!fs) {
		perr_set(err, "%s: no 'functions' (write functions = ( { name = \"f\"; deps = "
			 "([\"size\"]); } );)", path);
		goto done;
	}
	if (config_setting_type(fs) != CONFIG_TYPE_LIST) {
		at(err, path, fs, "'functions' must be a list of groups ( {...}, {...} ), not %s%s",
		   ctype(fs), "");
		goto done;
	}
	for (int i = 0; i < config_setting_length(fs); i++)
		if (read_function(d, path, config_setting_get_elem(fs, (unsigned)i), err) < 0)
			goto done;
	rc = 0;
done:
	config_destroy(&cfg);
	return rc;
}
