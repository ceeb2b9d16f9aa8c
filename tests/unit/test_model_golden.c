/*
 * The models chosen do not change: generated experiments (fixed seeds; one,
 * two and three parameters; noise from 0.5% to 20%, outlying repetitions,
 * points with one, two or three repetitions, constant series, series with
 * zero and negative values) go through the Extra-P text writer and reader
 * and are modelled with both selections and two aggregates; every model
 * (its terms, coefficients, p-value, LOO SMAPE, quality figures) and
 * validate's unreliable verdict must equal tests/data/models/golden.txt,
 * numbers within 1e-12 relative.  The file was written by the modeller
 * before its speed work (`test_model_golden.t --write FILE`), so a faster
 * path that chose another model, or another coefficient, fails here.
 */
#include "collectors/extrap_text.h"
#include "models/hypothesis.h"
#include "models/modeler.h"
#include "tests/lib/gen_truth.h"
#include "tests/lib/tap.h"
#include "validator/validate.h"
#include <errno.h>

#define TOL 1e-12

/* One building block's value. */
static double block(const struct hyp_exponent *h, double x)
{
	return pow(x, hyp_poly(h)) * pow(log2(x), h->log);
}

/* The repetitions of one point: 1..5 values of truth t with relative noise, maybe one outlier. */
static void measure(struct experiment *e, struct gen_rng *r, int cp, int p, double t, double noise,
		    int reps, double outlier)
{
	for (int k = 0; k < reps; k++) {
		double v = t * (1 + noise * gen_normal(r));
		if (k == 0 && outlier > 0)
			v *= outlier;
		experiment_add(e, cp, 0, p, v);
	}
}

/* One series' shape: noise, repetitions, outliers, constant or signed values. */
struct shape {
	double noise, outlier;
	int reps, few_reps_point, constant, offset;
};

static void random_shape(struct gen_rng *r, struct shape *s)
{
	static const double noises[] = { 0.005, 0.02, 0.05, 0.2 };
	double u = gen_uniform(r);
	s->noise = noises[(int)(gen_uniform(r) * 4)];
	s->reps = u < 0.05 ? 1 : u < 0.1 ? 2 : u < 0.2 ? 3 : 5;
	s->few_reps_point = gen_uniform(r) < 0.1 ? (int)(gen_uniform(r) * 5) : -1;
	s->outlier = gen_uniform(r) < 0.2 ? 1.5 + 2 * gen_uniform(r) : 0;
	s->constant = gen_uniform(r) < 0.1;
	/* a few series cross zero: Extra-P's rule still models them, the robust one falls back */
	s->offset = gen_uniform(r) < 0.03;
}

/* np parameters on 5 values each (4..64), ncp callpaths of random PMNF truths. */
static void generate(struct experiment *e, int np, int ncp, unsigned long long seed)
{
	static const double xs[5] = { 4, 8, 16, 32, 64 };
	static char *names[3] = { "p", "n", "s" };
	const struct hyp_exponent *h;
	int nh = hypothesis_defaults(&h), npts = np == 1 ? 5 : np == 2 ? 25 : 125;
	struct gen_rng r;
	gen_rng_seed(&r, seed);
	experiment_init(e);
	for (int k = 0; k < np; k++)
		experiment_param(e, names[k]);
	for (int i = 0; i < npts; i++) {
		double c[3] = { xs[i % 5], xs[(i / 5) % 5], xs[i / 25] };
		experiment_point(e, c);
	}
	experiment_metric(e, "time");
	for (int cp = 0; cp < ncp; cp++) {
		char name[32];
		struct shape s;
		snprintf(name, sizeof(name), "main->f%d", cp);
		experiment_callpath(e, name);
		random_shape(&r, &s);
		int ex[3] = { (int)(gen_uniform(&r) * nh), (int)(gen_uniform(&r) * nh), (int)(gen_uniform(&r) * nh) };
		int sum = gen_uniform(&r) < 0.5;
		double c0 = 1 + 100 * gen_uniform(&r), c1 = 0.1 + gen_uniform(&r);
		for (int i = 0; i < npts; i++) {
			double v = sum ? c0 : 1;
			for (int k = 0; k < np && !s.constant; k++) {
				double t = block(&h[ex[k]], experiment_coord(e, i, k));
				v = sum ? v + c1 * t : v * t;
			}
			double truth = s.constant ? c0 : sum ? v : c0 + c1 * v;
			if (s.offset)
				truth -= c0 * 1.5;
			measure(e, &r, cp, i, truth, s.noise, i == s.few_reps_point ? 1 : s.reps,
				gen_uniform(&r) < 0.3 ? s.outlier : 0);
		}
	}
}

/* The experiment as Extra-P text, read back (the way `perfsweep model FILE` gets it). */
static int round_trip(const struct experiment *in, struct experiment *out)
{
	char *buf = NULL;
	size_t len = 0;
	struct perr err;
	FILE *f = open_memstream(&buf, &len);
	int rc = f && extrap_text_write(f, in, -1, &err) == 0 ? 0 : -1;
	if (f)
		fclose(f);
	experiment_init(out);
	if (!rc && extrap_text_parse(out, buf, len, "golden.txt", &err) < 0) {
		diag("%s", err.msg);
		rc = -1;
	}
	free(buf);
	return rc;
}

/* One model on one line: terms with their factors, then every figure selection sets. */
static void model_line(FILE *out, const char *tag, int cp, const struct pmnf_model *m, int unreliable)
{
	fprintf(out, "%s %d c %.17g", tag, cp, m->constant);
	for (int t = 0; t < m->nterms; t++) {
		fprintf(out, " t %.17g", m->terms[t].coef);
		for (int f = 0; f < m->terms[t].nfactors; f++) {
			const struct pmnf_factor *fa = &m->terms[t].factors[f];
			fprintf(out, " f %d %.17g %.17g", fa->param, fa->poly_exp, fa->log_exp);
		}
	}
	fprintf(out, " p %.17g cv %.17g smape %.17g rss %.17g ar2 %.17g re %.17g n %d u %d\n", m->lof_p,
		m->cv_smape, m->smape, m->rss, m->ar2, m->re, m->npoints, unreliable);
}

/* Model every callpath of e with selection sel and aggregate agg into out. */
static void model_all(FILE *out, const struct experiment *e, const char *tag, enum model_selection sel,
		      enum model_aggregate agg)
{
	struct model_options opt;
	struct modeler *ctx = modeler_new();
	model_options_init(&opt);
	opt.selection = sel;
	opt.aggregate = agg;
	for (int cp = 0; cp < e->ncallpaths; cp++) {
		struct pmnf_model m;
		struct perr err;
		char *why = NULL;
		if (modeler_fit_series_ctx(ctx, e, cp, 0, &opt, NULL, &m, &err) < 0)
			fprintf(out, "%s %d error %s\n", tag, cp, err.msg);
		else
			model_line(out, tag, cp, &m, validate_series_unreliable(e, cp, 0, NULL, &why));
		free(why);
		pmnf_release(&m);
	}
	modeler_free(ctx);
}

/* Every case: 240 one-parameter, 40 two-parameter and 8 three-parameter callpaths. */
static int write_models(FILE *out)
{
	static const int ncp[4] = { 0, 240, 40, 8 };
	for (int np = 1; np <= 3; np++) {
		struct experiment gen, e;
		generate(&gen, np, ncp[np], 4700 + (unsigned long long)np);
		int rc = round_trip(&gen, &e);
		experiment_release(&gen);
		if (rc < 0)
			return -1;
		char tag[32];
		snprintf(tag, sizeof(tag), "robust-mean-%d", np);
		model_all(out, &e, tag, MODEL_SELECT_ROBUST, MODEL_MEAN);
		snprintf(tag, sizeof(tag), "robust-median-%d", np);
		model_all(out, &e, tag, MODEL_SELECT_ROBUST, MODEL_MEDIAN);
		snprintf(tag, sizeof(tag), "extrap-mean-%d", np);
		model_all(out, &e, tag, MODEL_SELECT_EXTRAP, MODEL_MEAN);
		experiment_release(&e);
	}
	return 0;
}

/* Are two tokens equal: the same text, or numbers within TOL relative (NaN equals NaN)? */
static int token_equal(const char *a, const char *b)
{
	char *ea, *eb;
	if (!strcmp(a, b))
		return 1;
	double x = strtod(a, &ea), y = strtod(b, &eb);
	if (*ea || *eb || ea == a || eb == b)
		return 0;
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	return fabs(x - y) <= TOL * fmax(fabs(x), fabs(y)) || x == y;
}

static int lines_equal(const char *want, const char *got)
{
	char a[4096], b[4096], *sa, *sb;
	snprintf(a, sizeof(a), "%s", want);
	snprintf(b, sizeof(b), "%s", got);
	char *ta = strtok_r(a, " \n", &sa), *tb = strtok_r(b, " \n", &sb);
	for (; ta && tb; ta = strtok_r(NULL, " \n", &sa), tb = strtok_r(NULL, " \n", &sb))
		if (!token_equal(ta, tb))
			return 0;
	return !ta && !tb;
}

/* Compare the models now with the golden file, line by line; count and show the differences. */
static void compare(FILE *golden, FILE *now)
{
	char want[4096], got[4096];
	int lines = 0, diff = 0, missing = 0;
	while (fgets(want, sizeof(want), golden)) {
		lines++;
		if (!fgets(got, sizeof(got), now)) {
			missing++;
			continue;
		}
		if (!lines_equal(want, got) && ++diff <= 5)
			diag("line %d\n  want: %s  got:  %s", lines, want, got);
	}
	int extra = fgets(got, sizeof(got), now) != NULL;
	ok(lines > 800, "golden file has the models (%d lines)", lines);
	ok(!missing && !extra, "as many models as the golden file (%d missing, extra: %d)", missing, extra);
	ok(diff == 0, "every model equals the golden one within %g (%d differ)", TOL, diff);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write")) {
		FILE *f = fopen(argv[2], "w");
		int rc = !f || write_models(f) < 0;
		if (f)
			rc |= fclose(f) != 0;
		return rc;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *now = open_memstream(&buf, &len);
	ok(write_models(now) == 0, "generated experiments round-trip through the text format");
	fclose(now);
	FILE *golden = fopen(tap_src("tests/data/models/golden.txt"), "r"), *in = fmemopen(buf, len, "r");
	ok(golden != NULL, "golden file opens (%s)", golden ? "" : strerror(errno));
	if (golden && in)
		compare(golden, in);
	if (golden)
		fclose(golden);
	if (in)
		fclose(in);
	free(buf);
	return done_testing();
}
