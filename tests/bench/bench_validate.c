/*
 * Validation throughput: regions per second for generated experiments of
 * 200 call paths with a dependency file: (a) size x p x ranks_per_node
 * (5 x 5 x 5 points, 5 repetitions; contention, false-dependency and noise
 * checks on every region), (b) one parameter with 10 points (the segment
 * test on every region).  Every fifth region slows down with ranks per
 * node, every seventh has two regimes.
 */
#include "tests/unit/validate_gen.h"
#include "validator/validate.h"
#include <math.h>
#include <stdio.h>
#include <time.h>

#define NREGIONS 200

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double truth3(const double *x, void *ctx)
{
	int i = *(int *)ctx;
	double t = 1e-3 * (1 + i % 3) * x[0] * x[0] * log2(x[1]);
	return i % 5 == 0 ? t * (1 + 0.3 * (x[2] - 1) / 15) : t;
}

static double truth1(const double *x, void *ctx)
{
	int i = *(int *)ctx;
	if (i % 7 == 0 && x[0] > 12)
		return 50 + 2 * x[0];
	return 4 + (1 + i % 4) * x[0];
}

static int run(const char *what, struct experiment *e, struct deps *d)
{
	const struct dep_function **funcs = xcalloc((size_t)e->ncallpaths, sizeof(*funcs));
	for (int c = 0; c < e->ncallpaths && d; c++)
		funcs[c] = &d->funcs[0];
	struct validate_input in = { .e = e, .deps = d, .funcs = d ? funcs : NULL };
	struct validation v;
	struct perr err;
	double t0 = now();
	int rc = validate_run(&v, &in, NULL, &err);
	double t = now() - t0;
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", what, err.msg);
		free(funcs);
		return 1;
	}
	printf("%-44s %4d regions %7.3f s  %8.0f regions/s  %d flags, %d blocking\n", what, v.nregions, t,
	       v.nregions / t, v.nflags, v.nblocking);
	validation_release(&v);
	free(funcs);
	return 0;
}

int main(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 1);
	int bad = 0;

	static const double sizes[] = { 10, 20, 30, 40, 50 }, ps[] = { 2, 4, 8, 16, 32 },
			    rpns[] = { 1, 4, 8, 12, 16 };
	const double *v3[] = { sizes, ps, rpns };
	int n3[] = { 5, 5, 5 };
	struct experiment e;
	experiment_init(&e);
	experiment_param(&e, "size");
	experiment_param(&e, "p");
	experiment_param(&e, VALIDATE_RPN_PARAM);
	for (int i = 0; i < NREGIONS; i++) {
		char name[32];
		snprintf(name, sizeof(name), "main->k%d", i);
		gen_grid(&e, name, 5, 0.02, truth3, &i, v3, n3, rng);
	}
	const char *dp[] = { "size", "p" };
	struct deps d;
	gen_deps_init(&d, 2, dp);
	int both[] = { 0, 1 };
	gen_deps_func(&d, "k", 2, both, NULL);
	bad |= run("3 parameters, 125 points x 5 reps, deps", &e, &d);
	gen_deps_release(&d);
	experiment_release(&e);

	static const double xs[] = { 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 };
	const double *v1[] = { xs };
	int n1[] = { 10 };
	experiment_init(&e);
	experiment_param(&e, "x");
	for (int i = 0; i < NREGIONS; i++) {
		char name[32];
		snprintf(name, sizeof(name), "main->s%d", i);
		gen_grid(&e, name, 5, 0.02, truth1, &i, v1, n1, rng);
	}
	bad |= run("1 parameter, 10 points x 5 reps (segments)", &e, NULL);
	experiment_release(&e);
	gsl_rng_free(rng);
	return bad;
}
