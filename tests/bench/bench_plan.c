/*
 * Planning speed: a 6-parameter campaign with 10 values each (a 10^6-point
 * full factorial) planned with the sparse and taint strategies, counted and
 * costed against the factorial without enumerating it.  Prints the time per
 * plan; `make bench` runs it.
 */
#include "designs/deps.h"
#include "designs/plan.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
	const char *root = getenv("PERFSWEEP_ROOT");
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/designs/six.deps", root ? root : ".");
	struct deps d;
	struct perr err;
	if (deps_read(&d, path, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	static double vals[6][10];
	struct plan_param pp[6];
	static char *names[] = { "a", "b", "c", "d", "e", "p" };
	for (int k = 0; k < 6; k++) {
		for (int i = 0; i < 10; i++)
			vals[k][i] = (i + 1) * (k == 5 ? 16 : 1);
		pp[k] = (struct plan_param){ names[k], k == 5 ? "ranks" : NULL, 10, vals[k], 1 };
	}
	int rpn[] = { 16, 32, 64 };
	const char *strategies[] = { "full", "taint", "sparse" };
	for (int s = DESIGN_TAINT; s <= DESIGN_SPARSE; s++) {
		struct design_spec spec = { .nparams = 6, .params = pp, .repetitions = 5, .deps = &d,
					    .strategy = s, .cost_model = "1e-3 * a^2 * b / p + c + log2(d) + e",
					    .charge = CHARGE_NODE, .cores_per_node = 64, .nrpn = 3, .rpn = rpn,
					    .budget_core_hours = 1e9 };
		struct plan pl;
		int reps = 20;
		double t0 = now();
		for (int r = 0; r < reps; r++) {
			if (plan_design(&pl, &spec, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				return 1;
			}
			if (r < reps - 1)
				plan_release(&pl);
		}
		double dt = (now() - t0) / reps;
		printf("plan %-6s 6 params x 10 values (10^6-point factorial x 3 placements): %d points, "
		       "factorial %lld points %.6g core-hours; %.3f ms per plan\n", strategies[s], pl.npoints,
		       pl.full_points, pl.full_core_hours, dt * 1e3);
		plan_release(&pl);
	}
	deps_release(&d);
	return 0;
}
