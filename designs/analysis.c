/* Dependency analysis: per-parameter counts, pruning, multiplicative groups. */
#include "designs/analysis.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* Project term t onto the selected parameters; returns the new length. */
static int project(const struct dep_term *t, const char *sel, int *out)
{
	int n = 0;
	for (int i = 0; i < t->n; i++)
		if (sel[t->params[i]])
			out[n++] = t->params[i];
	return n;
}

static int subset(const int *a, int na, const int *b, int nb)
{
	int j = 0;
	for (int i = 0; i < na; i++) {
		while (j < nb && b[j] < a[i])
			j++;
		if (j == nb || b[j] != a[i])
			return 0;
	}
	return 1;
}

static int cmp_group(const void *x, const void *y)
{
	const struct deps_group *a = x, *b = y;
	if (a->n != b->n)
		return b->n - a->n;
	for (int i = 0; i < a->n; i++)
		if (a->params[i] != b->params[i])
			return a->params[i] - b->params[i];
	return 0;
}

/* Count function f's loops per selected parameter into a; hit: the parameters it uses. */
static void count_loops(struct deps_analysis *a, const struct dep_function *fn, int f, const char *sel,
			char *hit, int *buf)
{
	int np = a->d->nparams;
	memset(hit, 0, (size_t)np);
	int any = 0;
	for (int l = 0; l < fn->nloops; l++) {
		char *seen = xcalloc((size_t)np + 1, 1);
		for (int t = 0; t < fn->loops[l].nterms; t++) {
			int n = project(&fn->loops[l].terms[t], sel, buf);
			for (int i = 0; i < n; i++)
				seen[buf[i]] = 1;
		}
		for (int k = 0; k < np; k++)
			if (seen[k]) {
				a->nloops[k]++;
				hit[k] = 1;
				any = 1;
			}
		free(seen);
	}
	for (int k = 0; k < np; k++)
		a->nfuncs[k] += hit[k];
	if (!any) {
		a->consts = xrealloc(a->consts, sizeof(int) * (size_t)(a->nconst + 1));
		a->consts[a->nconst++] = f;
	}
}

/* Candidate groups: every projected product term of >= 2 parameters of function f. */
static void add_candidates(struct deps_group **cand, int *ncand, const struct dep_function *fn, int f,
			   const char *sel, char *inprod, int *buf)
{
	for (int t = 0; t < fn->nterms; t++) {
		int n = project(&fn->terms[t], sel, buf);
		if (n < 2)
			continue;
		for (int i = 0; i < n; i++)
			inprod[buf[i]] = 1;
		int g = 0;
		for (; g < *ncand; g++)
			if ((*cand)[g].n == n && !memcmp((*cand)[g].params, buf, sizeof(int) * (size_t)n))
				break;
		if (g == *ncand) {
			*cand = xrealloc(*cand, sizeof(**cand) * (size_t)(*ncand + 1));
			memset(&(*cand)[g], 0, sizeof(**cand));
			(*cand)[g].n = n;
			(*cand)[g].params = xmalloc(sizeof(int) * (size_t)n);
			memcpy((*cand)[g].params, buf, sizeof(int) * (size_t)n);
			(*ncand)++;
		}
		struct deps_group *cg = &(*cand)[g];
		if (!cg->nfuncs || cg->funcs[cg->nfuncs - 1] != f) {
			cg->funcs = xrealloc(cg->funcs, sizeof(int) * (size_t)(cg->nfuncs + 1));
			cg->funcs[cg->nfuncs++] = f;
		}
	}
}

/* Keep the maximal candidates as a's groups, sorted (the others are freed). */
static void keep_maximal(struct deps_analysis *a, struct deps_group *cand, int ncand)
{
	for (int g = 0; g < ncand; g++) {
		int maximal = 1;
		for (int h = 0; h < ncand && maximal; h++)
			if (h != g && cand[h].n > cand[g].n &&
			    subset(cand[g].params, cand[g].n, cand[h].params, cand[h].n))
				maximal = 0;
		if (!maximal) {
			free(cand[g].params);
			free(cand[g].funcs);
			continue;
		}
		a->groups = xrealloc(a->groups, sizeof(*a->groups) * (size_t)(a->ngroups + 1));
		a->groups[a->ngroups++] = cand[g];
	}
	if (a->ngroups > 1)
		qsort(a->groups, (size_t)a->ngroups, sizeof(*a->groups), cmp_group);
}

/* Functions related to each group: a product of >= 2 of its parameters. */
static void count_related(struct deps_analysis *a, const char *sel, int *buf)
{
	const struct deps *d = a->d;
	for (int g = 0; g < a->ngroups; g++) {
		struct deps_group *gr = &a->groups[g];
		for (int f = 0; f < d->nfuncs; f++) {
			const struct dep_function *fn = &d->funcs[f];
			int rel = 0;
			for (int t = 0; t < fn->nterms && !rel; t++) {
				int n = project(&fn->terms[t], sel, buf);
				int inside = 0;
				for (int i = 0; i < n; i++)
					for (int j = 0; j < gr->n; j++)
						inside += buf[i] == gr->params[j];
				rel = inside >= 2;
			}
			gr->nrelated += rel;
		}
	}
}

int deps_analyze(struct deps_analysis *a, const struct deps *d, char *const *select, int nselect,
		 struct perr *err)
{
	memset(a, 0, sizeof(*a));
	int np = d->nparams;
	char *sel = xcalloc((size_t)np + 1, 1);
	if (!select) {
		memset(sel, 1, (size_t)np);
	} else {
		for (int i = 0; i < nselect; i++) {
			int k = deps_find_param(d, select[i]);
			if (k < 0) {
				free(sel);
				return perr_set(err, "parameter '%s' is not in dependency file '%s'",
						select[i], d->path ? d->path : "");
			}
			sel[k] = 1;
		}
	}
	a->d = d;
	a->selected = sel;
	a->nfuncs = xcalloc((size_t)np + 1, sizeof(int));
	a->nloops = xcalloc((size_t)np + 1, sizeof(int));
	a->pruned = xcalloc((size_t)np + 1, 1);
	a->additive = xcalloc((size_t)np + 1, 1);
	char *inprod = xcalloc((size_t)np + 1, 1);
	char *hit = xcalloc((size_t)np + 1, 1);
	int *buf = xmalloc(sizeof(int) * (size_t)(np + 1));
	struct deps_group *cand = NULL;
	int ncand = 0;
	for (int f = 0; f < d->nfuncs; f++) {
		count_loops(a, &d->funcs[f], f, sel, hit, buf);
		add_candidates(&cand, &ncand, &d->funcs[f], f, sel, inprod, buf);
	}
	keep_maximal(a, cand, ncand);
	free(cand);
	count_related(a, sel, buf);
	for (int k = 0; k < np; k++) {
		a->pruned[k] = sel[k] && a->nfuncs[k] == 0;
		a->additive[k] = sel[k] && a->nfuncs[k] > 0 && !inprod[k];
	}
	free(inprod);
	free(hit);
	free(buf);
	return 0;
}

void deps_analysis_release(struct deps_analysis *a)
{
	for (int g = 0; g < a->ngroups; g++) {
		free(a->groups[g].params);
		free(a->groups[g].funcs);
	}
	free(a->groups);
	free(a->selected);
	free(a->nfuncs);
	free(a->nloops);
	free(a->pruned);
	free(a->additive);
	free(a->consts);
	memset(a, 0, sizeof(*a));
}
