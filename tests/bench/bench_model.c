/*
 * Modelling throughput: callpaths per second for generated experiments of
 * 1000 callpaths with 1, 2 and 3 parameters (5, 25 and 125 points, 5
 * repetitions), best CPU time of three rounds, compared with Extra-P 4.2.5's ~8 ms (one parameter) and
 * ~24 ms (two parameters) per callpath on this class of machine.
 */
#include "models/hypothesis.h"
#include "models/modeler.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NCALLPATHS 1000
#define REPS 5

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* CPU time of this process: the machine is shared, wall time also measures the neighbours. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void add(struct experiment *e, int cp, int p, double v)
{
	for (int r = 0; r < REPS; r++)
		experiment_add(e, cp, 0, p, v * (1 + 0.02 * (uniform() - 0.5)));
}

/* An experiment whose callpaths follow random PMNF functions with 2% noise. */
static void generate(struct experiment *e, int np)
{
	static const double xs[5] = { 4, 8, 16, 32, 64 };
	static const char *names[3] = { "p", "n", "s" };
	const struct hyp_exponent *h;
	int nh = hypothesis_defaults(&h);
	experiment_init(e);
	for (int k = 0; k < np; k++)
		experiment_param(e, names[k]);
	int npts = np == 1 ? 5 : np == 2 ? 25 : 125;
	for (int i = 0; i < npts; i++) {
		double c[3] = { xs[i % 5], xs[(i / 5) % 5], xs[i / 25] };
		experiment_point(e, c);
	}
	experiment_metric(e, "time");
	for (int cp = 0; cp < NCALLPATHS; cp++) {
		char name[32];
		snprintf(name, sizeof(name), "main->f%d", cp);
		experiment_callpath(e, name);
		int ex[3] = { (int)(uniform() * nh), (int)(uniform() * nh), (int)(uniform() * nh) };
		int sum = uniform() < 0.5;
		double c0 = 1 + 100 * uniform(), c1 = 0.1 + uniform();
		for (int i = 0; i < npts; i++) {
			double v = sum ? c0 : 1;
			for (int k = 0; k < np; k++) {
				double x = experiment_coord(e, i, k);
				double t = pow(x, hyp_poly(&h[ex[k]])) * pow(log2(x), h[ex[k]].log);
				v = sum ? v + c1 * t : v * t;
			}
			add(e, cp, i, sum ? v : c0 + c1 * v);
		}
	}
}

/* bench_model [NPARAMS]: all of 1..3 parameters by default; best CPU time of 3 rounds, per selection. */
int main(int argc, char **argv)
{
	static const double extrap_ms[4] = { 0, 8, 24, 0 };
	int failed = 0, from = 1, to = 3;
	if (argc > 1)
		from = to = atoi(argv[1]);
	for (int sel = 0; sel < 2; sel++)
	for (int np = from; np <= to && np >= 1 && np <= 3; np++) {
		struct model_options opt;
		if (sel)
			model_options_robust(&opt);
		else
			model_options_init(&opt);
		struct experiment e;
		struct perr err;
		double dt = 1e30, dw = 1e30, check = 0;
		generate(&e, np);
		for (int round = 0; round < 3; round++) {
			struct modeler *ctx = modeler_new();
			double t0 = now(), w0 = wall();
			check = 0;
			for (int cp = 0; cp < NCALLPATHS; cp++) {
				struct pmnf_model m;
				if (modeler_fit_series_ctx(ctx, &e, cp, 0, &opt, NULL, &m, &err) < 0) {
					fprintf(stderr, "bench_model: %s\n", err.msg);
					failed = 1;
				}
				check += m.smape;
				pmnf_release(&m);
			}
			double t = now() - t0, w = wall() - w0;
			if (t < dt)
				dt = t;
			if (w < dw)
				dw = w;
			modeler_free(ctx);
		}
		double per = dt / NCALLPATHS * 1e3;
		printf("%-6s model %d parameter%s, %3d points x %d reps: %8.0f callpaths/s (%.3f ms/callpath)",
		       model_selection_name(opt.selection), np, np > 1 ? "s" : " ", e.npoints, REPS,
		       NCALLPATHS / dt, per);
		if (extrap_ms[np] > 0)
			printf("  vs Extra-P %2.0f ms: %.0fx", extrap_ms[np], extrap_ms[np] / per);
		printf("  [wall %.0f/s, mean smape %.3g%%]\n", NCALLPATHS / dw, check / NCALLPATHS);
		experiment_release(&e);
	}
	return failed;
}
