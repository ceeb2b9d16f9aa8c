/* Generated PMNF data of known truth (see gen_truth.h). */
#include "tests/lib/gen_truth.h"
#include <math.h>
#include <string.h>

static const double gen_xs[5] = { 4, 8, 16, 32, 64 };

void gen_rng_seed(struct gen_rng *r, unsigned long long seed)
{
	r->s = seed * 2862933555777941757ULL + 3037000493ULL;
}

double gen_uniform(struct gen_rng *r)
{
	r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(r->s >> 11) / 9007199254740992.0;
}

double gen_normal(struct gen_rng *r)
{
	double u = gen_uniform(r), v = gen_uniform(r);
	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

static double block(const struct hyp_exponent *h, double x)
{
	return pow(x, hyp_poly(h)) * pow(log2(x), h->log);
}

void gen_function_random(struct gen_rng *r, int np, struct gen_function *f)
{
	const struct hyp_exponent *h;
	int nh = hypothesis_defaults(&h);
	memset(f, 0, sizeof(*f));
	f->np = np;
	f->sum = np == 2 && gen_uniform(r) < 0.5;
	for (int k = 0; k < np; k++)
		f->e[k] = h[(int)(gen_uniform(r) * nh)];
	f->c1 = 0.1 + gen_uniform(r);
	f->c2 = 0.1 + gen_uniform(r);
	double mid[2] = { 16, 16 };
	double t = f->c1 * block(&f->e[0], mid[0]) * (np == 2 && !f->sum ? block(&f->e[1], 16) : 1);
	f->c0 = t * (0.1 + gen_uniform(r));
}

double gen_function_eval(const struct gen_function *f, const double *x)
{
	double t1 = block(&f->e[0], x[0]);
	if (f->np == 1)
		return f->c0 + f->c1 * t1;
	double t2 = block(&f->e[1], x[1]);
	return f->sum ? f->c0 + f->c1 * t1 + f->c2 * t2 : f->c0 + f->c1 * t1 * t2;
}

void gen_data_make(struct gen_rng *r, const struct gen_function *f, int reps, double noise,
		   double outlier_share, double outlier_factor, struct gen_data *d)
{
	memset(d, 0, sizeof(*d));
	d->np = f->np;
	d->names[0] = "x";
	d->names[1] = "y";
	d->npoints = f->np == 1 ? 5 : 25;
	if (reps > GEN_MAX_REPS)
		reps = GEN_MAX_REPS;
	for (int i = 0; i < d->npoints; i++) {
		double *c = &d->coords[i * f->np];
		c[0] = gen_xs[i % 5];
		if (f->np == 2)
			c[1] = gen_xs[i / 5];
		double v = gen_function_eval(f, c), *s = &d->store[i * GEN_MAX_REPS];
		for (int k = 0; k < reps; k++)
			s[k] = v * (1 + noise * gen_normal(r));
		if (gen_uniform(r) < outlier_share)
			s[(int)(gen_uniform(r) * reps)] *= outlier_factor;
		d->vals[i] = (struct exp_values){ s, reps, 0 };
	}
}

struct model_input gen_data_input(const struct gen_data *d)
{
	return (struct model_input){ d->np, d->names, d->npoints, d->coords, d->vals };
}

/* The leading term of f at (64, 64): index 0 or 1 of its sum, 2 for the product. */
static int leading(const struct gen_function *f)
{
	if (f->np == 1)
		return 0;
	if (!f->sum)
		return 2;
	return f->c1 * block(&f->e[0], 64) >= f->c2 * block(&f->e[1], 64) ? 0 : 1;
}

static int factor_is(const struct pmnf_factor *fa, int param, const struct hyp_exponent *h)
{
	return fa->param == param && fabs(fa->poly_exp - hyp_poly(h)) < 1e-9 && fa->log_exp == h->log;
}

int gen_leading_term_equal(const struct gen_function *f, const struct pmnf_model *m)
{
	double at[2] = { 64, 64 }, best = -1;
	int bt = -1;
	for (int k = 0; k < m->nterms; k++) {
		double v = fabs(m->terms[k].coef * pmnf_term_eval(&m->terms[k], at));
		if (v > best) {
			best = v;
			bt = k;
		}
	}
	if (bt < 0)
		return 0;
	const struct pmnf_term *t = &m->terms[bt];
	int l = leading(f);
	if (l < 2)
		return t->nfactors == 1 && factor_is(&t->factors[0], l, &f->e[l]);
	return t->nfactors == 2 && factor_is(&t->factors[0], 0, &f->e[0]) &&
	       factor_is(&t->factors[1], 1, &f->e[1]);
}
