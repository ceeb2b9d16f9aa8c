/*
 * Dependency files: form detection, the shared table-building helpers and
 * look-ups.  The two readers live in deps_json.c (Perf-Taint processed
 * JSON) and deps_config.c (the native libconfig form).
 */
#include "designs/deps.h"
#include "designs/deps_internal.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int deps_add_param(struct deps *d, const char *name)
{
	if (deps_find_param(d, name) >= 0)
		return -1;
	d->params = xrealloc(d->params, sizeof(char *) * (size_t)(d->nparams + 1));
	d->params[d->nparams++] = xstrdup(name);
	return 0;
}

struct dep_function *deps_add_function(struct deps *d, const char *name, const char *mangled,
				       const char *demangled)
{
	d->funcs = xrealloc(d->funcs, sizeof(*d->funcs) * (size_t)(d->nfuncs + 1));
	struct dep_function *f = &d->funcs[d->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->mangled = mangled ? xstrdup(mangled) : NULL;
	f->demangled = demangled ? xstrdup(demangled) : NULL;
	return f;
}

struct dep_loop *deps_add_loop(struct dep_function *f)
{
	f->loops = xrealloc(f->loops, sizeof(*f->loops) * (size_t)(f->nloops + 1));
	struct dep_loop *l = &f->loops[f->nloops++];
	memset(l, 0, sizeof(*l));
	return l;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int term_equal(const struct dep_term *t, const int *p, int n)
{
	return t->n == n && !memcmp(t->params, p, sizeof(int) * (size_t)n);
}

/* Add a sorted, duplicate-free term to a list unless it is already there. */
static void terms_add(struct dep_term **terms, int *nterms, const int *p, int n)
{
	for (int i = 0; i < *nterms; i++)
		if (term_equal(&(*terms)[i], p, n))
			return;
	*terms = xrealloc(*terms, sizeof(**terms) * (size_t)(*nterms + 1));
	struct dep_term *t = &(*terms)[(*nterms)++];
	t->n = n;
	t->params = xmalloc(sizeof(int) * (size_t)n);
	memcpy(t->params, p, sizeof(int) * (size_t)n);
}

int deps_loop_add_term(struct dep_loop *l, const int *params, int n)
{
	int *s = xmalloc(sizeof(int) * (size_t)(n ? n : 1));
	memcpy(s, params, sizeof(int) * (size_t)n);
	qsort(s, (size_t)n, sizeof(int), cmp_int);
	for (int i = 1; i < n; i++)
		if (s[i] == s[i - 1]) {
			free(s);
			return -1;
		}
	terms_add(&l->terms, &l->nterms, s, n);
	free(s);
	return 0;
}

void deps_merge_terms(struct deps *d)
{
	for (int i = 0; i < d->nfuncs; i++) {
		struct dep_function *f = &d->funcs[i];
		for (int j = 0; j < f->nloops; j++)
			for (int t = 0; t < f->loops[j].nterms; t++)
				terms_add(&f->terms, &f->nterms, f->loops[j].terms[t].params,
					  f->loops[j].terms[t].n);
	}
}

/* Errors quote names from the file: keep the message on one line. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int deps_read(struct deps *d, const char *path, struct perr *err)
{
	memset(d, 0, sizeof(*d));
	struct strbuf sb;
	strbuf_init(&sb);
	const char *why;
	if (fs_read_file(&sb, path, 0, &why) < 0) {
		strbuf_release(&sb);
		return perr_set(err, "cannot read dependency file '%s': %s", path, why);
	}
	if (strlen(sb.buf) != sb.len) {
		strbuf_release(&sb);
		return perr_set(err, "%s: file contains a NUL byte (not a dependency file)", path);
	}
	const char *p = sb.buf;
	while (*p && isspace((unsigned char)*p))
		p++;
	int rc;
	if (!*p)
		rc = perr_set(err, "%s: file is empty", path);
	else if (*p == '{' || *p == '[')
		rc = deps_read_json(d, path, sb.buf, sb.len, err);
	else
		rc = deps_read_config(d, path, sb.buf, err);
	strbuf_release(&sb);
	if (rc < 0) {
		one_line(err->msg);
		deps_release(d);
		return -1;
	}
	d->path = xstrdup(path);
	deps_merge_terms(d);
	return 0;
}

static void terms_free(struct dep_term *t, int n)
{
	for (int i = 0; i < n; i++)
		free(t[i].params);
	free(t);
}

void deps_release(struct deps *d)
{
	for (int i = 0; i < d->nparams; i++)
		free(d->params[i]);
	for (int i = 0; i < d->nfuncs; i++) {
		struct dep_function *f = &d->funcs[i];
		for (int j = 0; j < f->nloops; j++)
			terms_free(f->loops[j].terms, f->loops[j].nterms);
		free(f->loops);
		terms_free(f->terms, f->nterms);
		free(f->name);
		free(f->mangled);
		free(f->demangled);
		free(f->expect);
	}
	free(d->funcs);
	free(d->params);
	free(d->path);
	memset(d, 0, sizeof(*d));
}

int deps_find_param(const struct deps *d, const char *name)
{
	for (int i = 0; i < d->nparams; i++)
		if (!strcmp(d->params[i], name))
			return i;
	return -1;
}

/* "f(int, int)" matches "f"; "ns::g(double)" matches "ns::g". */
static int base_name_is(const char *full, const char *name)
{
	size_t n = strlen(name);
	return full && !strncmp(full, name, n) && full[n] == '(';
}

const struct dep_function *deps_find_function(const struct deps *d, const char *name)
{
	for (int i = 0; i < d->nfuncs; i++) {
		const struct dep_function *f = &d->funcs[i];
		if (!strcmp(f->name, name) || (f->mangled && !strcmp(f->mangled, name)) ||
		    (f->demangled && !strcmp(f->demangled, name)))
			return f;
	}
	for (int i = 0; i < d->nfuncs; i++)
		if (base_name_is(d->funcs[i].name, name) || base_name_is(d->funcs[i].demangled, name))
			return &d->funcs[i];
	return NULL;
}
