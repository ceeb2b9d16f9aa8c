/*
 * The multi-parameter step: each parameter's line of points gets its
 * single-parameter model, and the surviving terms are combined by
 * Extra-P's candidate structures (or, for the robust selection, by the
 * joint choice over the lines' alternatives); also the taint-constrained
 * structures.
 */
#include "models/modeler_impl.h"
#include "models/ensemble.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

#define MAX_STRUCTS 32

/* Largest |term value / measured value| over the points; NaN counts as large. */
static double max_contribution(const double *tv, const double *y, int n)
{
	double m = 0;
	for (int i = 0; i < n; i++) {
		double c = fabs(tv[i] / y[i]);
		if (isnan(c) || c > m)
			m = isnan(c) ? INFINITY : c;
	}
	return m;
}

struct line_key {
	const struct agg *a;
	int p;
};

/* Compare points i and j by their coordinates other than p. */
static int key_cmp(const struct line_key *k, int i, int j)
{
	int m = k->a->m;
	for (int q = 0; q < m; q++) {
		if (q == k->p)
			continue;
		double x = k->a->x[(size_t)i * m + q], y = k->a->x[(size_t)j * m + q];
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* qsort_r order: by key, equal keys by index (so the sort is deterministic). */
static int line_cmp(const void *l, const void *r, void *ctx)
{
	int i = *(const int *)l, j = *(const int *)r, c = key_cmp(ctx, i, j);
	return c ? c : (i > j) - (i < j);
}

/*
 * The line of points along parameter p (the others fixed): the longest
 * such line, with lines of equal length averaged, as Extra-P does (only
 * lines through the first line's first p-coordinate count).  Fills lx/ly
 * and lr (the repetitions behind each averaged value; capacity a->n) and
 * returns the number of points.  group has 2 * a->n
 * entries, size and cnt a->n: scratch.
 */
static int find_line(const struct agg *a, int p, double *lx, double *ly, double *lr, int *group,
		     int *size, int *cnt)
{
	int n = a->n, m = a->m, maxlen = 0, *ok = group + n;
	/* group the points by their other coordinates: sort, then runs of equal keys */
	struct line_key key = { a, p };
	for (int i = 0; i < n; i++)
		ok[i] = i;
	qsort_r(ok, (size_t)n, sizeof(int), line_cmp, &key);
	for (int r = 0; r < n; ) {
		int e = r + 1;
		while (e < n && key_cmp(&key, ok[r], ok[e]) == 0)
			e++;
		for (int j = r; j < e; j++)
			group[ok[j]] = ok[r];  /* the lowest index of the line (ties sort by index) */
		r = e;
	}
	memset(size, 0, (size_t)n * sizeof(*size));
	memset(ok, 0, (size_t)n * sizeof(*ok));
	for (int i = 0; i < n; i++)
		if (++size[group[i]] > maxlen)
			maxlen = size[group[i]];
	int first = 0;
	while (size[group[first]] != maxlen)
		first++;
	double x0 = a->x[(size_t)first * m + p];
	for (int i = 0; i < n; i++)
		if (size[group[i]] == maxlen && a->x[(size_t)i * m + p] == x0)
			ok[group[i]] = 1;
	int nl = 0;
	for (int i = 0; i < n; i++) {
		if (size[group[i]] != maxlen || !ok[group[i]])
			continue;
		double xv = a->x[(size_t)i * m + p];
		int l = 0;
		while (l < nl && lx[l] != xv)
			l++;
		if (l == nl) {
			lx[nl] = xv;
			ly[nl] = lr[nl] = 0;
			cnt[nl] = 0;
			nl++;
		}
		ly[l] += a->y[i];
		lr[l] += a->r[i];
		cnt[l]++;
	}
	for (int l = 0; l < nl; l++)
		ly[l] /= cnt[l];
	return nl;
}

/* A surviving parameter of the multi-parameter step and its single-parameter term. */
struct surv {
	int param;
	int hyp;
	double c0, c1;
	double *tv;             /* the term (coefficient 1) at every aggregated point */
	int nalt;               /* robust: the line's hypotheses not rejected (alt[0] == hyp) */
	int alt[SP_ALT];
};

static void add_term(struct pmnf_model *mod, const struct surv *s, int ns, unsigned mask, double coef)
{
	const struct hyp_exponent *hyps;
	hypothesis_defaults(&hyps);
	struct pmnf_factor f[32];
	int nf = 0;
	for (int b = 0; b < ns; b++)
		if (mask & (1u << b))
			f[nf++] = (struct pmnf_factor){ s[b].param, hyp_poly(&hyps[s[b].hyp]), hyps[s[b].hyp].log };
	pmnf_add_term(mod, coef, nf, f);
}

/* Value of the product of the surviving terms in mask at point i (coefficient 1). */
static double mask_value(const struct agg *a, int i, const struct surv *s, int ns, unsigned mask)
{
	(void)a;
	double v = 1;
	for (int b = 0; b < ns; b++)
		if (mask & (1u << b))
			v *= s[b].tv[i];
	return v;
}

/*
 * Fit structure st on all points; on success fill coef[0..nterms] and the
 * SMAPE, and say whether every term contributes enough (Extra-P's rule).
 */
static int fit_structure(struct ws *w, const struct agg *a, const struct surv *s, int ns,
			 const struct hyp_structure *st, const struct model_options *opt,
			 double *coef, double *smape, int *contributes)
{
	int k = st->nterms + 1, n = a->n;
	for (int i = 0; i < n; i++) {
		w->X[i * k] = 1;
		for (int t = 0; t < st->nterms; t++)
			w->X[i * k + 1 + t] = mask_value(a, i, s, ns, st->mask[t]);
		w->y[i] = a->y[i];
	}
	if (ws_lsq(w, n, k) < 0)
		return -1;
	memcpy(coef, w->c, (size_t)k * sizeof(double));
	double sm = 0;
	*contributes = 1;
	for (int i = 0; i < n; i++) {
		double f = coef[0];
		for (int t = 0; t < st->nterms; t++) {
			double tv = coef[1 + t] * mask_value(a, i, s, ns, st->mask[t]);
			w->t[i] = tv;
			f += tv;
		}
		sm += smape_term(f, a->y[i]);
	}
	for (int t = 0; t < st->nterms && *contributes; t++) {
		for (int i = 0; i < n; i++)
			w->t[i] = coef[1 + t] * mask_value(a, i, s, ns, st->mask[t]);
		if (coef[1 + t] == 0 || max_contribution(w->t, a->y, n) < opt->min_contribution)
			*contributes = 0;
	}
	*smape = sm / n * 100;
	return isfinite(*smape) ? 0 : -1;
}

/* Survivor mask (bits over s[]) to input-parameter mask. */
static uint64_t to_param_mask(const struct surv *s, int ns, unsigned mask)
{
	uint64_t pm = 0;
	for (int b = 0; b < ns; b++)
		if (mask & (1u << b))
			pm |= (uint64_t)1 << s[b].param;
	return pm;
}

static int structure_allowed(const struct hyp_structure *st, const struct surv *s, int ns,
			     const uint64_t *cm, int ncm)
{
	for (int t = 0; t < st->nterms; t++) {
		uint64_t pm = to_param_mask(s, ns, st->mask[t]);
		int inside = 0;
		for (int j = 0; j < ncm && !inside; j++)
			inside = (pm & ~cm[j]) == 0;
		if (!inside)
			return 0;
	}
	return 1;
}

/* Scratch for the lines of the multi-parameter step. */
struct line_buf {
	double *x, *y, *r;
	int *group, *size, *cnt;
};

static void line_buf_init(struct line_buf *b, int n)
{
	b->x = xmalloc((size_t)n * sizeof(double));
	b->y = xmalloc((size_t)n * sizeof(double));
	b->r = xmalloc((size_t)n * sizeof(double));
	b->group = xmalloc((size_t)n * 2 * sizeof(int));
	b->size = xmalloc((size_t)n * sizeof(int));
	b->cnt = xmalloc((size_t)n * sizeof(int));
}

static void line_buf_release(struct line_buf *b)
{
	free(b->x);
	free(b->y);
	free(b->r);
	free(b->group);
	free(b->size);
	free(b->cnt);
}

/* One parameter: the single-parameter model of all points is the result. */
static void fit_one_param(struct ws *w, struct modeler *ctx, const struct agg *a,
			  const struct model_options *opt, struct pmnf_model *out)
{
	struct sp_fit sp;
	fit_single(w, ctx, a->x, a->y, a->r, a->n, opt, &a->nz, &sp);
	out->constant = sp.c0;
	if (sp.hyp >= 0) {
		struct surv one = { 0, sp.hyp, sp.c0, sp.c1, NULL, 1, { sp.hyp } };
		add_term(out, &one, 1, 1, sp.c1);
	}
	out->cv_smape = sp.hyp >= 0 ? sp.cv_smape : NAN;
	out->lof_p = sp.lof_p;
}

/* The single-parameter model of each active parameter's line; returns the non-constant ones. */
static int line_survivors(struct ws *w, struct modeler *ctx, const struct agg *a,
			  const struct model_options *opt, uint64_t active, int constrained,
			  struct surv *s)
{
	struct line_buf b;
	int ns = 0;
	line_buf_init(&b, a->n);
	for (int p = 0; p < a->m && ns < 31; p++) {
		if ((p < 64 && !(active & ((uint64_t)1 << p))) || (p >= 64 && constrained))
			continue;
		struct sp_fit sp;
		int nl = find_line(a, p, b.x, b.y, b.r, b.group, b.size, b.cnt);
		fit_single(w, ctx, b.x, b.y, b.r, nl, opt, &a->nz, &sp);
		if (sp.hyp >= 0)
			s[ns++] = (struct surv){ p, sp.hyp, sp.c0, sp.c1, NULL, sp.nalt > 0 ? sp.nalt : 1,
						 { sp.nalt > 0 ? sp.alt[0] : sp.hyp, sp.alt[1], sp.alt[2] } };
	}
	line_buf_release(&b);
	return ns;
}

/*
 * Weighted fit of structure st (robust selection): rows scaled by
 * sqrt(r_i) / y_i, so residuals are relative.  Fills coef and the
 * lack-of-fit chi-square.
 */
static int fit_structure_rel(struct ws *w, const struct agg *a, const struct surv *s, int ns,
			     const struct hyp_structure *st, double *coef, double *chi2)
{
	int k = st->nterms + 1, n = a->n;
	for (int i = 0; i < n; i++) {
		if (!(a->y[i] > 0))
			return -1;
		double sc = sqrt(a->r[i]) / a->y[i];
		w->X[i * k] = sc;
		for (int t = 0; t < st->nterms; t++)
			w->X[i * k + 1 + t] = sc * mask_value(a, i, s, ns, st->mask[t]);
		w->y[i] = sc * a->y[i];
	}
	if (ws_lsq(w, n, k) < 0)
		return -1;
	memcpy(coef, w->c, (size_t)k * sizeof(double));
	double *f = w->res;
	for (int i = 0; i < n; i++) {
		f[i] = coef[0];
		for (int t = 0; t < st->nterms; t++)
			f[i] += coef[1 + t] * mask_value(a, i, s, ns, st->mask[t]);
	}
	*chi2 = lof_chi2(f, a->y, a->r, n, &a->nz);
	return isfinite(*chi2) ? 0 : -1;
}

/* 1 when every term of structure st with coef contributes enough (Extra-P's rule). */
static int structure_contributes(struct ws *w, const struct agg *a, const struct surv *s, int ns,
				 const struct hyp_structure *st, const double *coef,
				 const struct model_options *opt)
{
	for (int t = 0; t < st->nterms; t++) {
		for (int i = 0; i < a->n; i++)
			w->t[i] = mask_value(a, i, s, ns, st->mask[t]);
		if (!term_contributes(coef[1 + t], w->t, a->y, a->n, opt))
			return 0;
	}
	return 1;
}

/*
 * Robust choice among the candidate structures: fewest terms not rejected
 * by the lack-of-fit test, best fit among those.  Returns the index, -1
 * when every one is rejected or the test does not apply (the caller falls
 * back to Extra-P's best fit).
 */
static int select_structure_robust(struct ws *w, const struct agg *a, const struct surv *s, int ns,
				   const struct hyp_structure *cand, int nc,
				   const struct model_options *opt, double *best_coef, double *p_out,
				   double *chi2_out)
{
	int best_ok = -1;
	double chi_ok = INFINITY, coef[MAX_COLS], ok_coef[MAX_COLS], p_ok = NAN;
	if (a->nz.dof <= 0)
		return -1;
	for (int i = 0; i < nc; i++) {
		double chi2;
		if (fit_structure_rel(w, a, s, ns, &cand[i], coef, &chi2) < 0 ||
		    !structure_contributes(w, a, s, ns, &cand[i], coef, opt))
			continue;
		double p = lof_p(chi2, a->n, cand[i].nterms + 1, &a->nz);
		int simpler = best_ok < 0 || cand[i].nterms < cand[best_ok].nterms;
		int same = best_ok >= 0 && cand[i].nterms == cand[best_ok].nterms && chi2 < chi_ok;
		if (p >= opt->alpha && (simpler || same)) {
			best_ok = i;
			chi_ok = chi2;
			p_ok = p;
			memcpy(ok_coef, coef, sizeof(coef));
		}
	}
	if (best_ok >= 0) {
		memcpy(best_coef, ok_coef, sizeof(ok_coef));
		*p_out = p_ok;
		*chi2_out = chi_ok;
	}
	return best_ok;         /* -1 when all are rejected: Extra-P's best fit */
}

/* Extra-P's choice: the lowest SMAPE among contributing structures, the first one to start. */
static int select_structure_extrap(struct ws *w, const struct agg *a, const struct surv *s, int ns,
				   const struct hyp_structure *cand, int nc,
				   const struct model_options *opt, double *best_coef)
{
	int best = -1;
	double best_sm = INFINITY, coef[MAX_COLS];
	for (int i = 0; i < nc; i++) {
		double sm;
		int contributes;
		if (fit_structure(w, a, s, ns, &cand[i], opt, coef, &sm, &contributes) < 0)
			continue;
		/* Extra-P starts from the first candidate whatever its terms contribute */
		if (best < 0 ? 1 : (contributes && sm < best_sm)) {
			best = i;
			best_sm = sm;
			memcpy(best_coef, coef, sizeof(coef));
		}
	}
	return best;
}

/* The candidate structures: the dependency structure first (constrained), then Extra-P's. */
static int candidate_structures(const struct surv *s, int ns, const uint64_t *cm, int ncm,
				int constrained, struct hyp_structure *cand)
{
	int nc = 0;
	if (constrained) {
		struct hyp_structure dep = { 0, { 0 } };
		for (int j = 0; j < ncm && dep.nterms < HYP_MAX_TERMS; j++) {
			unsigned sm = 0;
			for (int b = 0; b < ns; b++)
				if (cm[j] & ((uint64_t)1 << s[b].param))
					sm |= 1u << b;
			int dup = !sm;
			for (int t = 0; t < dep.nterms; t++)
				dup |= dep.mask[t] == sm;
			if (!dup)
				dep.mask[dep.nterms++] = sm;
		}
		if (dep.nterms > 0)
			cand[nc++] = dep;
	}
	struct hyp_structure all[MAX_STRUCTS];
	int na = hypothesis_structures(ns, all);
	for (int i = 0; i < na; i++)
		if (!constrained || structure_allowed(&all[i], s, ns, cm, ncm))
			cand[nc++] = all[i];
	return nc;
}

/* One surviving parameter: its line's term, or the same term refitted on all points. */
static void combine_one(struct ws *w, const struct agg *a, const struct model_input *in,
			const struct surv *s, const struct model_options *opt, struct pmnf_model *out)
{
	struct hyp_structure st = { 1, { 1 } };
	double coef[2], sm, chi2;
	int contributes;
	if (opt->selection == MODEL_SELECT_ROBUST && a->nz.dof > 0 &&
	    fit_structure_rel(w, a, s, 1, &st, coef, &chi2) == 0) {
		out->constant = coef[0];
		add_term(out, s, 1, 1, coef[1]);
		out->lof_p = lof_p(chi2, a->n, 2, &a->nz);
		return;
	}
	/* Extra-P: the line's coefficients or ones recomputed on all points */
	struct pmnf_model reuse;
	pmnf_init(&reuse, a->m, in->params);
	reuse.constant = s[0].c0;
	add_term(&reuse, s, 1, 1, s[0].c1);
	agg_quality(&reuse, a);
	if (fit_structure(w, a, s, 1, &st, opt, coef, &sm, &contributes) == 0 && sm < reuse.smape) {
		out->constant = coef[0];
		add_term(out, s, 1, 1, coef[1]);
	} else {
		out->constant = reuse.constant;
		add_term(out, s, 1, 1, s[0].c1);
	}
	pmnf_release(&reuse);
}

/* Several surviving parameters: the best combination structure. */
static void combine_many(struct ws *w, const struct agg *a, const struct surv *s, int ns,
			 const uint64_t *cm, int ncm, int constrained,
			 const struct model_options *opt, struct pmnf_model *out)
{
	struct hyp_structure cand[MAX_STRUCTS + 1];
	int nc = candidate_structures(s, ns, cm, ncm, constrained, cand), best = -1;
	double coef[MAX_COLS] = { 0 }, p = NAN, chi2;
	if (opt->selection == MODEL_SELECT_ROBUST)
		best = select_structure_robust(w, a, s, ns, cand, nc, opt, coef, &p, &chi2);
	if (best < 0)
		best = select_structure_extrap(w, a, s, ns, cand, nc, opt, coef);
	else
		out->lof_p = p;
	if (best < 0) {
		agg_set_constant(out, a);
		return;
	}
	out->constant = coef[0];
	for (int t = 0; t < cand[best].nterms; t++)
		add_term(out, s, ns, cand[best].mask[t], coef[1 + t]);
}

/* Each surviving parameter's term values at every point, from its hypothesis s[b].hyp. */
static void surv_terms(const struct agg *a, struct surv *s, int ns)
{
	const struct hyp_exponent *hyps;
	hypothesis_defaults(&hyps);
	for (int b = 0; b < ns; b++)
		for (int i = 0; i < a->n; i++)
			s[b].tv[i] = hyp_term(&hyps[s[b].hyp], a->x[(size_t)i * a->m + s[b].param]);
}

/* Put every survivor on its c-th combination of alternatives (mixed radix over nalt). */
static void surv_combo(struct surv *s, int ns, int c)
{
	for (int b = 0; b < ns; b++) {
		s[b].hyp = s[b].alt[c % s[b].nalt];
		c /= s[b].nalt;
	}
}

/* One combination's result in the joint choice. */
struct joint_try {
	int st, nterms, complexity;
	double chi2, p, coef[MAX_COLS];
};

/* The choice among the tries: fewest terms, then the simplest of those within LOF_TIE_CHI2 of the best fit. */
static int joint_pick(const struct joint_try *t, int n)
{
	int best = -1, pick = -1;
	for (int c = 0; c < n; c++)
		if (t[c].st >= 0 && (best < 0 || t[c].nterms < t[best].nterms ||
				     (t[c].nterms == t[best].nterms && t[c].chi2 < t[best].chi2)))
			best = c;
	for (int c = 0; c < n && best >= 0; c++)
		if (t[c].st >= 0 && t[c].nterms == t[best].nterms &&
		    (pick < 0 || tie_key(t[c].chi2, t[best].chi2, t[c].complexity) <
				 tie_key(t[pick].chi2, t[best].chi2, t[pick].complexity)))
			pick = c;
	return pick;
}

/* Combination c of the lines' alternatives on structure st, fitted as t, into en (room for JOINT_MAX). */
static void keep_alternative(struct model_ensemble *en, const struct agg *a, struct surv *s, int ns, int c,
			     const struct hyp_structure *st, const struct joint_try *t, char *const *params)
{
	struct pmnf_model *m = &en->m[en->n++];
	surv_combo(s, ns, c);
	pmnf_init(m, a->m, params);
	m->constant = t->coef[0];
	for (int k = 0; k < st->nterms; k++)
		add_term(m, s, ns, st->mask[k], t->coef[1 + k]);
	m->lof_p = t->p;
	agg_quality(m, a);
}

/*
 * Robust selection on all points: a line of 5 points cannot tell i from
 * i^(2/3) * log2(i) (with its own constant they differ by less than the
 * noise), but all points can (n^3 * i^(2/3) * log2(i) vanishes at i = 1).
 * So every combination of the hypotheses each line does not reject (its
 * SP_ALT first) is tried with every candidate structure, and the choice is
 * the fewest terms not rejected on all points, then the simplest of those
 * that fit as well as the best (joint_pick); w->alts, where set, keeps
 * every combination not rejected, the chosen one among them.  Returns 0
 * with out set (s[] on the chosen hypotheses), or -1 when every
 * combination is rejected (s[] back on each line's choice).
 */
static int joint_robust(struct ws *w, const struct agg *a, struct surv *s, int ns, const uint64_t *cm,
			int ncm, int constrained, const struct model_options *opt, struct pmnf_model *out)
{
	struct hyp_structure cand[MAX_STRUCTS + 1];
	struct joint_try tries[JOINT_MAX];
	const struct hyp_exponent *hyps;
	int ncombo = 1;
	if (a->nz.dof <= 0)
		return -1;
	hypothesis_defaults(&hyps);
	for (int b = 0; b < ns; b++)
		ncombo *= s[b].nalt;
	ncombo = ncombo <= JOINT_MAX ? ncombo : 1;
	int nc = ns == 1 ? 1 : candidate_structures(s, ns, cm, ncm, constrained, cand);
	if (ns == 1)
		cand[0] = (struct hyp_structure){ 1, { 1 } };
	for (int c = 0; c < ncombo; c++) {
		struct joint_try *t = &tries[c];
		surv_combo(s, ns, c);
		surv_terms(a, s, ns);
		t->st = select_structure_robust(w, a, s, ns, cand, nc, opt, t->coef, &t->p, &t->chi2);
		t->nterms = t->st >= 0 ? cand[t->st].nterms : 0;
		t->complexity = 0;
		for (int b = 0; b < ns; b++)
			t->complexity += hyp_complexity(&hyps[s[b].hyp]);
	}
	for (int c = 0; c < ncombo && w->alts; c++)
		if (tries[c].st >= 0)
			keep_alternative(w->alts, a, s, ns, c, &cand[tries[c].st], &tries[c], out->params);
	int best = joint_pick(tries, ncombo);
	surv_combo(s, ns, best >= 0 ? best : 0);
	surv_terms(a, s, ns);
	if (best < 0)
		return -1;
	out->constant = tries[best].coef[0];
	for (int t = 0; t < cand[tries[best].st].nterms; t++)
		add_term(out, s, ns, cand[tries[best].st].mask[t], tries[best].coef[1 + t]);
	out->lof_p = tries[best].p;
	return 0;
}

int fit_multi(struct ws *w, struct modeler *ctx, const struct agg *a, const struct model_input *in,
		     const struct model_options *opt, const uint64_t *cm, int ncm, int constrained,
		     struct pmnf_model *out)
{
	uint64_t active = constrained ? 0 : ~(uint64_t)0;
	for (int j = 0; j < ncm; j++)
		active |= cm[j];
	if (a->m == 1) {
		if (active & 1)
			fit_one_param(w, ctx, a, opt, out);
		else
			agg_set_constant(out, a);
		return 0;
	}
	struct surv s[31];
	int ns = line_survivors(w, ctx, a, opt, active, constrained, s);
	double *tvs = xmalloc((size_t)(ns > 0 ? ns : 1) * (size_t)a->n * sizeof(double));
	for (int b = 0; b < ns; b++)
		s[b].tv = &tvs[(size_t)b * a->n];
	surv_terms(a, s, ns);
	if (ns == 0)
		agg_set_constant(out, a);
	else if (opt->selection == MODEL_SELECT_ROBUST &&
		 joint_robust(w, a, s, ns, cm, ncm, constrained, opt, out) == 0)
		;
	else if (ns == 1)
		combine_one(w, a, in, s, opt, out);
	else
		combine_many(w, a, s, ns, cm, ncm, constrained, opt, out);
	free(tvs);
	return 0;
}
