/* Bootstrap ensembles of a fitted model (ensemble.h). */
#include "models/ensemble.h"
#include "models/modeler_impl.h"
#include "common/xalloc.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOG_FLOOR (-6.907755278982137)          /* ln(1e-3) */

/* The resampling material: per point its fitted value and the pooled residuals. */
struct boot_base {
	int n;                  /* points with a usable estimate */
	int *point;             /* their indices into the input */
	double *fit;            /* the model at each */
	double *resid;          /* relative residuals, centred and inflated */
	double *dev;            /* relative deviations of repetitions from their point */
	int ndev;
};

static void boot_base_release(struct boot_base *b)
{
	free(b->point);
	free(b->fit);
	free(b->resid);
	free(b->dev);
}

/* Residuals and deviations of in about fitted; 0, or -1 with no usable point. */
static int boot_base_init(struct boot_base *b, const struct model_input *in, const struct model_options *opt,
			  const struct pmnf_model *fitted)
{
	memset(b, 0, sizeof(*b));
	int total = 0;
	for (int p = 0; p < in->npoints; p++)
		total += in->values[p].n;
	b->point = xmalloc(sizeof(int) * (size_t)(in->npoints + 1));
	b->fit = xmalloc(sizeof(double) * (size_t)(in->npoints + 1));
	b->resid = xmalloc(sizeof(double) * (size_t)(in->npoints + 1));
	b->dev = xmalloc(sizeof(double) * (size_t)(total + 1));
	double mean = 0;
	for (int p = 0; p < in->npoints; p++) {
		const struct exp_values *v = &in->values[p];
		double y = model_aggregate_values(v, opt->aggregate);
		double f = pmnf_eval(fitted, &in->coords[(size_t)p * (size_t)in->nparams]);
		if (!v->n || !(y > 0) || !(f > 0) || !isfinite(f))
			continue;
		b->point[b->n] = p;
		b->fit[b->n] = f;
		b->resid[b->n] = y / f - 1;
		mean += b->resid[b->n++];
		for (int j = 0; j < v->n && v->n > 1; j++)
			b->dev[b->ndev++] = v->v[j] / y - 1;
	}
	if (!b->n)
		return -1;
	mean /= b->n;
	int k = fitted->nterms + 1;
	double inflate = b->n > k ? sqrt((double)b->n / (b->n - k)) : 1;
	for (int i = 0; i < b->n; i++)
		b->resid[i] = (b->resid[i] - mean) * inflate;
	return 0;
}

/* One replicate's values into vals (store: room for every repetition). */
static void boot_draw(const struct boot_base *b, const struct model_input *in, gsl_rng *r,
		      struct exp_values *vals, double *store)
{
	size_t off = 0;
	for (int p = 0; p < in->npoints; p++)
		vals[p] = (struct exp_values){ NULL, 0, 0 };
	for (int i = 0; i < b->n; i++) {
		int p = b->point[i], n = in->values[p].n;
		double m = b->fit[i] * (1 + b->resid[gsl_rng_uniform_int(r, (unsigned long)b->n)]);
		double *v = store + off, centre = 0;
		for (int j = 0; j < n; j++) {
			v[j] = b->ndev ? b->dev[gsl_rng_uniform_int(r, (unsigned long)b->ndev)] : 0;
			centre += v[j] / n;
		}
		for (int j = 0; j < n; j++)
			v[j] = fmax(m * (1 + v[j] - centre), 1e-300);
		vals[p] = (struct exp_values){ v, n, 0 };
		off += (size_t)n;
	}
}

int model_ensemble_fit(struct model_ensemble *en, struct modeler *ctx, const struct model_input *in,
		       const struct model_options *opt, const struct model_constraint *con,
		       const struct pmnf_model *fitted, int nboot, unsigned long seed, struct perr *err)
{
	memset(en, 0, sizeof(*en));
	struct model_options mo;
	if (opt)
		mo = *opt;
	else
		model_options_init(&mo);
	struct boot_base b;
	if (boot_base_init(&b, in, &mo, fitted) < 0) {
		boot_base_release(&b);
		return perr_set(err, "no point with a positive estimate to resample");
	}
	size_t total = 0;
	for (int p = 0; p < in->npoints; p++)
		total += (size_t)in->values[p].n;
	struct exp_values *vals = xcalloc((size_t)in->npoints + 1, sizeof(*vals));
	double *store = xmalloc(sizeof(double) * (total + 1));
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	en->m = xcalloc((size_t)(nboot > 0 ? nboot : 1), sizeof(*en->m));
	struct model_input rin = *in;
	rin.values = vals;
	for (int i = 0; i < nboot; i++) {
		boot_draw(&b, in, r, vals, store);
		struct perr e2;
		if (modeler_fit_ctx(ctx, &rin, &mo, con, &en->m[en->n], &e2) == 0)
			en->n++;
		else
			pmnf_release(&en->m[en->n]);
	}
	gsl_rng_free(r);
	free(vals);
	free(store);
	boot_base_release(&b);
	return 0;
}

int model_ensemble_alternatives(struct model_ensemble *en, struct modeler *ctx, const struct model_input *in,
				const struct model_options *opt, const struct model_constraint *con,
				struct perr *err)
{
	struct pmnf_model chosen;
	memset(en, 0, sizeof(*en));
	en->m = xcalloc(JOINT_MAX, sizeof(*en->m));
	int rc = modeler_fit_alts(ctx, in, opt, con, &chosen, en, err);
	pmnf_release(&chosen);
	return rc;
}

void model_ensemble_release(struct model_ensemble *en)
{
	for (int i = 0; i < en->n; i++)
		pmnf_release(&en->m[i]);
	free(en->m);
	memset(en, 0, sizeof(*en));
}

void model_ensemble_log_ratios(const struct model_ensemble *en, const double *x, double center, double *out)
{
	for (int i = 0; i < en->n; i++) {
		double q = pmnf_eval(&en->m[i], x) / center;
		out[i] = !(q > 1e-3) ? LOG_FLOOR : isfinite(q) ? log(q) : -LOG_FLOOR;
	}
}

double model_ensemble_log_var(const struct model_ensemble *en, const double *x, double center)
{
	if (en->n < 2 || !(center > 0))
		return 0;
	double *l = xmalloc(sizeof(double) * (size_t)en->n), mean = 0, var = 0;
	model_ensemble_log_ratios(en, x, center, l);
	for (int i = 0; i < en->n; i++)
		mean += l[i] / en->n;
	for (int i = 0; i < en->n; i++)
		var += (l[i] - mean) * (l[i] - mean) / (en->n - 1);
	free(l);
	return var;
}
