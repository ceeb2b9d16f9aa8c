/* Generated truths (truth.h). */
#include "models/truth.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/expr.h"
#include "models/hypothesis.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int truth_is_spec(const char *spec)
{
	return spec && !strncmp(spec, TRUTH_PREFIX, strlen(TRUTH_PREFIX));
}

/* SplitMix64: one step of a well-mixed 64-bit sequence (Steele et al. 2014). */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double unit_of(uint64_t x)
{
	return (double)(x >> 11) / 9007199254740992.0;   /* [0, 1) */
}

/* A sequence of uniform draws (truth_random). */
struct draws {
	uint64_t s;
};

static double draw(struct draws *d)
{
	d->s = mix64(d->s);
	return unit_of(d->s);
}

static void params_copy(struct truth *t, int nparams, char *const *params)
{
	t->nparams = nparams;
	t->params = xcalloc((size_t)nparams + 1, sizeof(char *));
	for (int k = 0; k < nparams; k++)
		t->params[k] = xstrdup(params[k]);
}

/* One "key=value" setting of a spelling. */
static int parse_setting(struct truth *t, const char *spec, const char *kv, struct perr *err)
{
	const char *eq = strchr(kv, '=');
	char *end = NULL;
	if (!eq)
		return perr_set(err, "'%s': '%s' is no setting; write %sEXPR,noise=0.05,seed=1,seeds=10", spec,
				kv, TRUTH_PREFIX);
	size_t klen = (size_t)(eq - kv);
	errno = 0;
	if (klen == 5 && !strncmp(kv, "noise", 5)) {
		t->noise = strtod(eq + 1, &end);
		if (end == eq + 1 || *end || errno || !(t->noise >= 0 && t->noise < 1))
			return perr_set(err, "'%s': noise must be a relative standard deviation in [0, 1), "
					"like noise=0.05, not '%s'", spec, eq + 1);
	} else if ((klen == 4 && !strncmp(kv, "seed", 4)) || (klen == 5 && !strncmp(kv, "seeds", 5))) {
		unsigned long v = strtoul(eq + 1, &end, 10);
		int many = klen == 5;
		if (end == eq + 1 || *end || errno || eq[1] == '-' || (many && (v < 1 || v > 100000)))
			return perr_set(err, "'%s': %s must be %s, not '%s'", spec, many ? "seeds" : "seed",
					many ? "a count from 1 to 100000" : "a non-negative integer", eq + 1);
		if (many)
			t->nseeds = (int)v;
		else
			t->seed = v;
	} else {
		return perr_set(err, "'%s': unknown setting '%.*s'; use noise, seed or seeds", spec, (int)klen, kv);
	}
	return 0;
}

int truth_parse(struct truth *t, const char *spec, int nparams, char *const *params, struct perr *err)
{
	memset(t, 0, sizeof(*t));
	t->noise = 0.05;
	t->seed = 1;
	t->nseeds = 1;
	pmnf_init(&t->form, 0, NULL);
	params_copy(t, nparams, params);
	if (!truth_is_spec(spec))
		return perr_set(err, "'%s' is not a generated truth; write %sEXPR,noise=0.05,seed=1", spec,
				TRUTH_PREFIX);
	char *copy = xstrdup(spec + strlen(TRUTH_PREFIX)), *save = NULL;
	char *expr_text = strtok_r(copy, ",", &save);
	int rc = 0;
	if (!expr_text || !*expr_text)
		rc = perr_set(err, "'%s' names no function; write %sEXPR,noise=0.05,seed=1", spec, TRUTH_PREFIX);
	for (char *kv; rc == 0 && (kv = strtok_r(NULL, ",", &save));)
		rc = parse_setting(t, spec, kv, err);
	if (rc == 0) {
		struct perr e2;
		t->text = xstrdup(expr_text);
		if (!(t->f = expr_parse(t->text, nparams, params, &e2)))
			rc = perr_set(err, "'%s': %s", spec, e2.msg);
	}
	free(copy);
	return rc;
}

static double block(const struct hyp_exponent *h, double x)
{
	return pow(x, hyp_poly(h)) * (h->log ? pow(log2(x), h->log) : 1);
}

/* The terms of the structure: masks over the parameters (1: one term). */
static int random_structure(struct draws *d, int np, unsigned *masks)
{
	if (np == 1) {
		masks[0] = 1;
		return 1;
	}
	if (np == 2) {
		if (draw(d) < 0.5) {
			masks[0] = 3;
			return 1;
		}
		masks[0] = 1;
		masks[1] = 2;
		return 2;
	}
	struct hyp_structure st[32];
	int ns = hypothesis_structures(np, st);
	const struct hyp_structure *s = &st[(int)(draw(d) * ns)];
	memcpy(masks, s->mask, sizeof(unsigned) * (size_t)s->nterms);
	return s->nterms;
}

void truth_random(struct truth *t, int nparams, char *const *params, const double *mid,
		  unsigned long seed, double noise)
{
	memset(t, 0, sizeof(*t));
	int np = nparams < 1 ? 1 : nparams > TRUTH_MAX_PARAMS ? TRUTH_MAX_PARAMS : nparams;
	params_copy(t, np, params);
	t->noise = noise;
	t->seed = seed;
	t->nseeds = 1;
	t->have_form = 1;
	pmnf_init(&t->form, np, params);
	struct draws d = { mix64(seed ^ 0x7275746800000000ULL) };
	const struct hyp_exponent *h;
	int nh = hypothesis_defaults(&h);
	struct hyp_exponent e[TRUTH_MAX_PARAMS];
	unsigned masks[HYP_MAX_TERMS];
	int nterms = random_structure(&d, np, masks);
	for (int k = 0; k < np; k++)
		e[k] = h[(int)(draw(&d) * nh)];
	double largest = 0;
	for (int i = 0; i < nterms; i++) {
		struct pmnf_factor f[TRUTH_MAX_PARAMS];
		int nf = 0;
		double at_mid = 0.1 + draw(&d);
		double coef = at_mid;
		for (int k = 0; k < np; k++)
			if (masks[i] >> k & 1) {
				f[nf++] = (struct pmnf_factor){ k, hyp_poly(&e[k]), e[k].log };
				at_mid *= block(&e[k], mid[k]);
			}
		pmnf_add_term(&t->form, coef, nf, f);
		largest = fmax(largest, at_mid);
	}
	t->form.constant = largest * (0.1 + draw(&d));
	t->text = pmnf_format(&t->form, 0);
	struct perr err;
	t->f = expr_parse(t->text, np, t->params, &err);
}

void truth_release(struct truth *t)
{
	for (int k = 0; k < t->nparams; k++)
		free(t->params[k]);
	free(t->params);
	free(t->text);
	expr_free(t->f);
	pmnf_release(&t->form);
	memset(t, 0, sizeof(*t));
}

double truth_value(const struct truth *t, const double *x)
{
	return t->f ? expr_eval(t->f, x) : NAN;
}

/* A standard normal draw keyed by (seed, x, rep): Box-Muller on two hashed uniforms. */
static double keyed_normal(const struct truth *t, unsigned long seed, const double *x, int rep)
{
	uint64_t h = mix64((uint64_t)seed * 0x2545f4914f6cdd1dULL + 0x6d656173ULL);
	for (int k = 0; k < t->nparams; k++) {
		uint64_t bits;
		double v = x[k] == 0 ? 0 : x[k];        /* -0 and 0 are one point */
		memcpy(&bits, &v, sizeof(bits));
		h = mix64(h ^ bits);
	}
	h = mix64(h ^ (uint64_t)(unsigned)rep);
	double u = unit_of(h), w = unit_of(mix64(h));
	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * w);
}

double truth_measure(const struct truth *t, unsigned long seed, const double *x, int rep)
{
	double f = truth_value(t, x), r = 1 + t->noise * keyed_normal(t, seed, x, rep);
	return f * (r > 0 ? r : 2 - r);         /* folded: positive, as a run time is */
}

void truth_experiment(const struct truth *t, unsigned long seed, const int *nvalues,
		      double *const *values, int reps, struct experiment *e)
{
	experiment_init(e);
	for (int k = 0; k < t->nparams; k++)
		experiment_param(e, t->params[k]);
	int cp = experiment_callpath(e, "main"), m = experiment_metric(e, "time");
	int idx[TRUTH_MAX_PARAMS] = { 0 };
	double x[TRUTH_MAX_PARAMS];
	for (;;) {
		for (int k = 0; k < t->nparams; k++)
			x[k] = values[k][idx[k]];
		int p = experiment_point(e, x);
		for (int r = 0; r < reps; r++)
			experiment_add(e, cp, m, p, truth_measure(t, seed, x, r));
		int k = t->nparams - 1;
		while (k >= 0 && ++idx[k] >= nvalues[k])
			idx[k--] = 0;
		if (k < 0)
			break;
	}
}

int truth_deps(const struct truth *t, struct deps *d, struct perr *err)
{
	memset(d, 0, sizeof(*d));
	if (!t->have_form)
		return perr_set(err, "the generated truth '%s' has no known dependency structure", t->text);
	d->path = xstrdup("(generated)");
	d->nparams = t->nparams;
	d->params = xcalloc((size_t)t->nparams + 1, sizeof(char *));
	for (int k = 0; k < t->nparams; k++)
		d->params[k] = xstrdup(t->params[k]);
	d->nfuncs = 1;
	d->funcs = xcalloc(1, sizeof(*d->funcs));
	struct dep_function *f = &d->funcs[0];
	f->name = xstrdup("main");
	f->nterms = t->form.nterms;
	f->terms = xcalloc((size_t)f->nterms + 1, sizeof(*f->terms));
	f->nloops = 1;
	f->loops = xcalloc(1, sizeof(*f->loops));
	f->loops[0].nterms = f->nterms;
	f->loops[0].terms = xcalloc((size_t)f->nterms + 1, sizeof(*f->terms));
	for (int i = 0; i < f->nterms; i++) {
		const struct pmnf_term *pt = &t->form.terms[i];
		for (int copy = 0; copy < 2; copy++) {
			struct dep_term *dt = copy ? &f->loops[0].terms[i] : &f->terms[i];
			dt->n = pt->nfactors;
			dt->params = xmalloc(sizeof(int) * (size_t)pt->nfactors);
			for (int j = 0; j < pt->nfactors; j++)
				dt->params[j] = pt->factors[j].param;
		}
	}
	return 0;
}
