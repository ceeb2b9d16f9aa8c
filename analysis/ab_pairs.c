/* The pairs of a two-arm run's campaigns (ab_pairs.h). */
#include "analysis/ab_pairs.h"
#include "campaign/store.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* One arm's meta: its arm name and peer, and its own store id. */
static int arm_meta(const char *dir, char **arm, char **peer, char **id)
{
	struct store *st;
	struct perr err;
	*arm = *peer = *id = NULL;
	if (store_open(&st, dir, STORE_READONLY, &err) < 0)
		return -1;
	*arm = store_get_meta(st, AB_META_ARM);
	*peer = store_get_meta(st, AB_META_PEER);
	*id = xstrdup(store_id(st));
	store_close(st);
	return 0;
}

int ab_pair_arms(const char *base_dir, const char *new_dir)
{
	char *m[2][3];
	int ok = arm_meta(base_dir, &m[0][0], &m[0][1], &m[0][2]) == 0 &&
		 arm_meta(new_dir, &m[1][0], &m[1][1], &m[1][2]) == 0;
	ok = ok && m[0][0] && m[1][0] && m[0][1] && m[1][1] && !strcmp(m[0][0], "base") &&
	     !strcmp(m[1][0], "new") && !strcmp(m[0][1], m[1][2]) && !strcmp(m[1][1], m[0][2]);
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 3; k++)
			free(m[s][k]);
	return ok;
}

/* One arm's runs (by id) and which of them belong to a whole pair. */
struct arm_runs {
	struct run *runs;
	int n, nparams;
	unsigned char *keep;
	const struct disturbed_result *dist;
};

static int load_arm(struct arm_runs *a, const char *dir, const struct input_data *in, char ***names,
		    struct perr *err)
{
	struct store *st;
	memset(a, 0, sizeof(*a));
	if (store_open(&st, dir, STORE_READONLY, err) < 0)
		return -1;
	int rc = store_load_runs(st, 0, &a->runs, &a->n, err);
	a->nparams = store_nparams(st);
	*names = xcalloc((size_t)a->nparams + 1, sizeof(char *));
	for (int k = 0; k < a->nparams; k++)
		(*names)[k] = xstrdup(store_param_name(st, k));
	store_close(st);
	a->keep = xcalloc((size_t)a->n + 1, 1);
	a->dist = in->src.usage ? &in->src.usage->disturbed : NULL;
	return rc;
}

static void arm_release(struct arm_runs *a)
{
	runs_free(a->runs, a->n);
	free(a->keep);
}

static int cmp_run_id(const void *k, const void *r)
{
	long long x = *(const long long *)k, y = ((const struct run *)r)->id;
	return (x > y) - (x < y);
}

static int run_index(const struct arm_runs *a, long long id)
{
	const struct run *r = bsearch(&id, a->runs, (size_t)a->n, sizeof(*a->runs), cmp_run_id);
	return r ? (int)(r - a->runs) : -1;
}

static int disturbed(const struct arm_runs *a, long long id)
{
	for (int i = 0; a->dist && i < a->dist->n; i++)
		if (a->dist->runs[i].run == id)
			return 1;
	return 0;
}

/* "rep;x1;x2;...": a run's pair key. */
static void run_key(struct strbuf *sb, const struct run *r, int nparams)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%d", r->repetition);
	for (int k = 0; k < nparams; k++)
		strbuf_addf(sb, ";%.17g", r->values[k]);
}

/* Match the arms' done runs by (point, repetition): whole pairs are kept in both. */
static void match_pairs(struct arm_runs *a, struct ab_pairing *p)
{
	struct strmap keys;
	struct strbuf sb;
	strmap_init(&keys);
	strbuf_init(&sb);
	for (int i = 0; i < a[0].n; i++)
		if (a[0].runs[i].state == RUN_DONE) {
			run_key(&sb, &a[0].runs[i], a[0].nparams);
			strmap_put(&keys, sb.buf, i);
		}
	for (int j = 0; j < a[1].n; j++) {
		if (a[1].runs[j].state != RUN_DONE)
			continue;
		run_key(&sb, &a[1].runs[j], a[1].nparams);
		int i = strmap_get(&keys, sb.buf);
		if (i < 0)
			continue;
		p->pairs++;
		if (disturbed(&a[0], a[0].runs[i].id) || disturbed(&a[1], a[1].runs[j].id))
			p->lost++;
		else
			a[0].keep[i] = a[1].keep[j] = 1;
	}
	strbuf_release(&sb);
	strmap_release(&keys);
}

/* Per series and point of one side: the repetition of each value kept (values compacted in place). */
struct side_reps {
	int nseries, npoints;
	int **rep;              /* [series * npoints + point]: one per value kept */
};

static struct exp_series *series_of(struct experiment *e, int c, int m)
{
	for (int s = 0; s < e->nseries; s++)
		if (e->series[s].callpath == c && e->series[s].metric == m)
			return &e->series[s];
	return NULL;
}

/* Drop the values of runs not in a whole pair, recording each kept value's repetition. */
static void keep_paired(struct experiment *e, const struct exp_runs *map, const struct arm_runs *a,
			struct side_reps *sr)
{
	sr->nseries = e->nseries;
	sr->npoints = e->npoints;
	size_t cells = (size_t)e->nseries * (size_t)e->npoints + 1;
	sr->rep = xcalloc(cells, sizeof(int *));
	int *nread = xcalloc(cells, sizeof(int)), *nkept = xcalloc(cells, sizeof(int));
	for (int i = 0; i < map->n; i++) {
		const struct exp_run *x = &map->v[i];
		struct exp_series *s = series_of(e, x->callpath, x->metric);
		if (!s)
			continue;
		size_t cell = (size_t)(s - e->series) * (size_t)e->npoints + (size_t)x->point;
		struct exp_values *v = &s->at[x->point];
		if (!sr->rep[cell])
			sr->rep[cell] = xcalloc((size_t)v->n + 1, sizeof(int));
		int r = run_index(a, x->run), j = nread[cell]++;
		if (r < 0 || !a->keep[r] || j >= v->n)
			continue;
		v->v[nkept[cell]] = v->v[j];
		sr->rep[cell][nkept[cell]++] = a->runs[r].repetition;
	}
	for (int s = 0; s < e->nseries; s++)
		for (int p = 0; p < e->npoints; p++)
			e->series[s].at[p].n = nkept[(size_t)s * (size_t)e->npoints + (size_t)p];
	free(nread);
	free(nkept);
}

static void side_reps_release(struct side_reps *sr)
{
	for (size_t c = 0; c < (size_t)sr->nseries * (size_t)sr->npoints; c++)
		free(sr->rep[c]);
	free(sr->rep);
}

struct rep_value {
	int rep;
	double v;
};

static int cmp_rep(const void *a, const void *b)
{
	int x = ((const struct rep_value *)a)->rep, y = ((const struct rep_value *)b)->rep;
	return (x > y) - (x < y);
}

static int has_rep(const int *rep, int n, int r)
{
	for (int k = 0; k < n; k++)
		if (rep[k] == r)
			return 1;
	return 0;
}

/* Keep the values of v whose repetition is also in other[0..nother), in repetition order. */
static void keep_common(struct exp_values *v, const int *rep, const int *other, int nother)
{
	struct rep_value *rv = xmalloc(sizeof(*rv) * ((size_t)v->n + 1));
	int n = 0;
	for (int j = 0; j < v->n; j++)
		if (has_rep(other, nother, rep[j]))
			rv[n++] = (struct rep_value){ rep[j], v->v[j] };
	qsort(rv, (size_t)n, sizeof(*rv), cmp_rep);
	for (int j = 0; j < n; j++)
		v->v[j] = rv[j].v;
	v->n = n;
	free(rv);
}

/* Each base series and point against its counterpart in new: only the repetitions both kept. */
static void intersect(struct experiment *b, struct side_reps *rb, struct experiment *n, struct side_reps *rn)
{
	for (int s = 0; s < b->nseries; s++) {
		const struct exp_series *bs = &b->series[s];
		int c = experiment_find_callpath(n, b->callpaths[bs->callpath]);
		int m = experiment_find_metric(n, b->metrics[bs->metric]);
		struct exp_series *ns = c >= 0 && m >= 0 ? series_of(n, c, m) : NULL;
		if (!ns)
			continue;
		for (int p = 0; p < b->npoints; p++) {
			int q = experiment_find_point(n, b->coords + (size_t)p * (size_t)b->nparams);
			if (q < 0)
				continue;
			size_t cb = (size_t)s * (size_t)b->npoints + (size_t)p;
			size_t cn = (size_t)(ns - n->series) * (size_t)n->npoints + (size_t)q;
			struct exp_values *vb = &bs->at[p], *vn = &ns->at[q];
			if (!rb->rep[cb] || !rn->rep[cn]) {
				vb->n = vn->n = 0;      /* one side has no value there: no pair */
				continue;
			}
			int *keep_b = xmalloc(sizeof(int) * ((size_t)vb->n + 1));
			memcpy(keep_b, rb->rep[cb], sizeof(int) * (size_t)vb->n);
			int nb = vb->n;
			keep_common(vb, rb->rep[cb], rn->rep[cn], vn->n);
			keep_common(vn, rn->rep[cn], keep_b, nb);
			free(keep_b);
		}
	}
}

/* The arms must be one campaign's parameters, by name and in order. */
static int same_params(char **a, int na, char **b, int nb, struct perr *err)
{
	int same = na == nb;
	for (int k = 0; k < na && same; k++)
		same = !strcmp(a[k], b[k]);
	return same ? 0 : perr_set(err, "the two arms have different parameters: they cannot be paired");
}

static void free_names(char **names, int n)
{
	for (int k = 0; names && k < n; k++)
		free(names[k]);
	free(names);
}

int ab_pair_values(struct input_data *base, struct input_data *new, const char *base_dir, const char *new_dir,
		   struct ab_pairing *p, struct perr *err)
{
	struct arm_runs a[2];
	char **names[2] = { NULL, NULL };
	struct input_data *in[2] = { base, new };
	const char *dir[2] = { base_dir, new_dir };
	memset(p, 0, sizeof(*p));
	memset(a, 0, sizeof(a));
	int rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		rc = load_arm(&a[k], dir[k], in[k], &names[k], err);
		if (!rc && !in[k]->src.usage)
			rc = perr_set(err, "'%s' is not a campaign directory", dir[k]);
	}
	if (!rc)
		rc = same_params(names[0], a[0].nparams, names[1], a[1].nparams, err);
	if (!rc) {
		struct side_reps sr[2];
		match_pairs(a, p);
		for (int k = 0; k < 2; k++)
			keep_paired(&in[k]->e, &in[k]->src.usage->runs, &a[k], &sr[k]);
		intersect(&base->e, &sr[0], &new->e, &sr[1]);
		side_reps_release(&sr[0]);
		side_reps_release(&sr[1]);
	}
	for (int k = 0; k < 2; k++) {
		free_names(names[k], a[k].nparams);
		arm_release(&a[k]);
	}
	return rc;
}
