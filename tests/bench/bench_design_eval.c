/*
 * What a reduced design costs in accuracy (docs/designs.md, "Evaluating a
 * design"; analysis/design_eval.h): the tables of issue 46.
 *
 *  1. Generated truths (models/truth.h), 5% noise, 100 seeds each (seed s:
 *     random function s, measured under seed s): 2 parameters and 3
 *     parameters over 4..64 (5 values each), 5 repetitions, the sparse
 *     design with the truth's own dependency structure, run time = the
 *     truth (one rank).  Per strategy and budget the median over the seeds
 *     of the relative error at the points one step beyond, and of the
 *     core-hours spent as a share of the full factorial's.
 *  2. LULESH on Piz Daint (tests/data/lulesh: p x size, p = 343 and
 *     size = 45 held out), tests/data/lulesh/evaluate.cfg.
 *  3. refine --for accuracy on generated 2-parameter campaigns (12 x 100
 *     seeds: the count per block shows the seeds' scatter): rounds until
 *     50% extra core-hours, against spending them on more repetitions of
 *     every point (tests/lib/accuracy_rounds.h).
 *
 * Pass a number to run fewer seeds (e.g. 10 for a quick look).
 */
#include "analysis/design_eval.h"
#include "analysis/model_pipeline.h"
#include "campaign/config.h"
#include "orchestrator/plan_build.h"
#include "tests/lib/accuracy_rounds.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NB 11   /* budgets: the design's own, 10% .. 100% */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *a, int n)
{
	if (!n)
		return NAN;
	qsort(a, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

/* Per strategy and budget, over the seeds: errors and spent shares. */
struct table {
	int n[EVAL_NSTRATEGIES][NB];
	double *err[EVAL_NSTRATEGIES][NB], *share[EVAL_NSTRATEGIES][NB];
	double *own;            /* the design's own share of the full factorial */
	int nown;
};

static void table_add(struct table *t, const struct eval_result *r)
{
	t->own[t->nown++] = r->share[0];
	for (int st = 0; st < EVAL_NSTRATEGIES; st++)
		for (int b = 0; b < NB && b < r->nbudgets; b++) {
			const struct eval_cell *c = eval_cell_at(r, st, b);
			if (!c->feasible || !isfinite(c->median_error))
				continue;
			t->err[st][b][t->n[st][b]] = c->median_error;
			t->share[st][b][t->n[st][b]++] = c->spent / r->full_cost;
		}
}

static void print_table(struct table *t, int nseeds)
{
	printf("| budget | strategy | feasible | core-hours (share of full) | median error |\n|---|---|---|---|---|\n");
	for (int b = 0; b < NB; b++)
		for (int st = 0; st < EVAL_NSTRATEGIES; st++) {
			int n = t->n[st][b];
			char label[32];
			snprintf(label, sizeof(label), b ? "%d%%" : "design's own", b * 10);
			printf("| %s | %s | %d/%d | %.1f%% | %.2f%% |\n", st ? "" : label,
			       eval_strategy_name((enum eval_strategy)st), n, nseeds,
			       100 * median(t->share[st][b], n), 100 * median(t->err[st][b], n));
		}
}

/* The headline: the design against the full factorial, and the others at equal core-hours. */
static void print_headline(struct table *t)
{
	double full = median(t->err[EVAL_FULL][NB - 1], t->n[EVAL_FULL][NB - 1]);
	double own = median(t->own, t->nown), design = median(t->err[EVAL_DESIGN][0], t->n[EVAL_DESIGN][0]);
	printf("\nthe design at its own cost: %.1f%% of the full factorial's core-hours (median), median error "
	       "%.2f%% against the full factorial's %.2f%% (%.2fx)\n", 100 * own, 100 * design, 100 * full,
	       design / full);
	printf("at the same core-hours: lines only %.2f%%, cheapest first %.2f%%, disagree %.2f%%\n",
	       100 * median(t->err[EVAL_LINES][0], t->n[EVAL_LINES][0]),
	       100 * median(t->err[EVAL_CHEAPEST][0], t->n[EVAL_CHEAPEST][0]),
	       100 * median(t->err[EVAL_DISAGREE][0], t->n[EVAL_DISAGREE][0]));
	int met = 0;
	for (int b = 1; b <= 3 && !met; b++) {
		double e = median(t->err[EVAL_DESIGN][b], t->n[EVAL_DESIGN][b]);
		if (e <= 1.25 * full) {
			printf("target met: within 1.25x the full factorial's error at %d%% of its core-hours (%.2f%%)\n",
			       10 * b, 100 * e);
			met = 1;
		}
	}
	if (!met)
		printf("target not met: at 30%% of the full factorial's core-hours the design's median error is "
		       "%.2f%%, %.2fx the full factorial's\n", 100 * median(t->err[EVAL_DESIGN][3], t->n[EVAL_DESIGN][3]),
		       median(t->err[EVAL_DESIGN][3], t->n[EVAL_DESIGN][3]) / full);
}

/* The design's median error with its chosen anchors against the smallest values as the baseline. */
static void print_anchors(struct table *chosen, struct table *smallest)
{
	printf("\nline anchors: the design's median error with the anchors chosen by cost and noise, and with the "
	       "smallest values (design.baseline)\n\n| budget | chosen | smallest |\n|---|---|---|\n");
	for (int b = 0; b < NB; b++) {
		char label[32];
		snprintf(label, sizeof(label), b ? "%d%%" : "design's own", b * 10);
		printf("| %s | %.2f%% | %.2f%% |\n", label,
		       100 * median(chosen->err[EVAL_DESIGN][b], chosen->n[EVAL_DESIGN][b]),
		       100 * median(smallest->err[EVAL_DESIGN][b], smallest->n[EVAL_DESIGN][b]));
	}
}

static void table_init(struct table *t, int nseeds)
{
	memset(t, 0, sizeof(*t));
	t->own = calloc((size_t)nseeds, sizeof(double));
	for (int st = 0; st < EVAL_NSTRATEGIES; st++)
		for (int b = 0; b < NB; b++) {
			t->err[st][b] = calloc((size_t)nseeds, sizeof(double));
			t->share[st][b] = calloc((size_t)nseeds, sizeof(double));
		}
}

static void table_release(struct table *t)
{
	for (int st = 0; st < EVAL_NSTRATEGIES; st++)
		for (int b = 0; b < NB; b++) {
			free(t->err[st][b]);
			free(t->share[st][b]);
		}
	free(t->own);
}

/* Seed s's function evaluated into t (with the smallest values as the baseline when smallest). */
static void evaluate_seed(int np, int s, int smallest, struct table *t)
{
	static double V[] = { 4, 8, 16, 32, 64 };
	static double base[3] = { 4, 4, 4 };
	char *names[] = { "x", "y", "z" };
	struct plan_param pp[3];
	double mid[3] = { 16, 16, 16 };
	for (int k = 0; k < 3; k++)
		pp[k] = (struct plan_param){ names[k], NULL, 5, V, 1 };
	struct truth tr;
	struct deps d;
	struct perr err;
	struct eval_result r;
	truth_random(&tr, np, names, mid, (unsigned long)s, 0.05);
	truth_deps(&tr, &d, &err);
	struct design_spec spec = { .nparams = np, .params = pp, .repetitions = 5, .strategy = DESIGN_SPARSE,
				    .deps = &d, .cost_model = tr.text, .baseline = smallest ? base : NULL };
	struct eval_data data = { .truth = &tr, .deps = &d };
	struct eval_options o;
	eval_options_init(&o);
	if (design_evaluate(&r, &spec, &data, &o, &err) == 0)
		table_add(t, &r);
	else
		printf("seed %d: %s\n", s, err.msg);
	eval_result_release(&r);
	deps_release(&d);
	truth_release(&tr);
}

static void generated(int np, int nseeds)
{
	struct table t, small;
	table_init(&t, nseeds);
	table_init(&small, nseeds);
	clock_t c0 = clock();
	for (int s = 1; s <= nseeds; s++) {
		evaluate_seed(np, s, 0, &t);
		evaluate_seed(np, s, 1, &small);
	}
	printf("\n## %d parameters, 5%% noise, %d seeds (%.1f s CPU)\n\n", np, nseeds,
	       (double)(clock() - c0) / CLOCKS_PER_SEC);
	print_table(&t, nseeds);
	print_headline(&t);
	print_anchors(&t, &small);
	table_release(&t);
	table_release(&small);
}

/* The LULESH table through the same pipeline as plan --evaluate. */
static void lulesh(void)
{
	const char *root = getenv("PERFSWEEP_ROOT") ? getenv("PERFSWEEP_ROOT") : ".";
	char cfgpath[1024], data[1024];
	snprintf(cfgpath, sizeof(cfgpath), "%s/tests/data/lulesh/evaluate.cfg", root);
	snprintf(data, sizeof(data), "%s/tests/data/lulesh", root);
	struct campaign_config cfg;
	struct perr err;
	struct input_data in;
	struct model_options mo;
	struct eval_result r;
	memset(&in, 0, sizeof(in));
	memset(&r, 0, sizeof(r));
	printf("\n## LULESH on Piz Daint: p x size, p = 343 and size = 45 held out\n\n");
	struct plan_spec *ps = config_load(&cfg, cfgpath, &err) ? NULL : plan_spec_build(&cfg, &err);
	struct model_pipeline_options o = { .deps_path = cfg.dependencies };
	model_options_robust(&o.model);
	if (!ps || model_pipeline_load(&in, data, &o, &mo, &err) < 0) {
		printf("cannot evaluate: %s\n", err.msg);
	} else {
		struct eval_data d = { .e = &in.e, .metric = experiment_find_metric(&in.e, "time"),
				       .funcs = in.have_deps ? in.funcs : NULL, .deps = plan_spec_design(ps)->deps,
				       .min_share = cfg.min_share };
		struct eval_options eo;
		eval_options_init(&eo);
		eo.model = mo;
		if (design_evaluate(&r, plan_spec_design(ps), &d, &eo, &err) < 0) {
			printf("cannot evaluate: %s\n", err.msg);
		} else {
			struct table t;
			memset(&t, 0, sizeof(t));
			double own;
			t.own = &own;
			for (int st = 0; st < EVAL_NSTRATEGIES; st++)
				for (int b = 0; b < NB; b++) {
					t.err[st][b] = calloc(1, sizeof(double));
					t.share[st][b] = calloc(1, sizeof(double));
				}
			table_add(&t, &r);
			printf("%d regions (matched to the dependency file, above min_share), %d held-out points; "
			       "the error per region is its mean over them, the median over the regions:\n\n",
			       r.nregions, r.nheld);
			print_table(&t, 1);
			print_headline(&t);
			printf("\nworst region: design at its own cost %.1f%%, full factorial at 100%% %.1f%%\n",
			       100 * eval_cell_at(&r, EVAL_DESIGN, 0)->worst_error,
			       100 * eval_cell_at(&r, EVAL_FULL, NB - 1)->worst_error);
			for (int st = 0; st < EVAL_NSTRATEGIES; st++)
				for (int b = 0; b < NB; b++) {
					free(t.err[st][b]);
					free(t.share[st][b]);
				}
		}
	}
	eval_result_release(&r);
	input_data_release(&in);
	plan_spec_free(ps);
	config_release(&cfg);
}

/* refine --for accuracy against more repetitions, 50% extra core-hours: blocks of nseeds seeds, and all of them. */
#define ACC_BLOCKS 12
static void accuracy(int nseeds)
{
	char *names[] = { "x", "y" };
	double mid[2] = { 16, 16 };
	int all = ACC_BLOCKS * nseeds;
	double *before = calloc((size_t)all, sizeof(double)), *after[2], *extra = calloc((size_t)all, sizeof(double));
	int halved[ACC_BLOCKS][2] = { { 0 } }, fell[2] = { 0, 0 }, n = 0, inblock[ACC_BLOCKS] = { 0 };
	after[0] = calloc((size_t)all, sizeof(double));
	after[1] = calloc((size_t)all, sizeof(double));
	for (int s = 1; s <= all; s++) {
		struct truth t;
		int blk = (s - 1) / nseeds;
		truth_random(&t, 2, names, mid, (unsigned long)s, 0.05);
		for (int way = 0; way < 2; way++) {
			struct accuracy_rounds a = { .uniform = way };
			if (accuracy_rounds_run(&t, 3, 0.5, &a) < 0)
				continue;
			double h = accuracy_rounds_halved(&a);
			halved[blk][way] += !isnan(h) && h <= 0.5 + 1e-9;
			fell[way] += a.error[a.nrounds] < a.error[0];
			after[way][n] = a.error[a.nrounds];
			if (!way) {
				before[n] = a.error[0];
				extra[n] = a.extra[a.nrounds] / a.spent0;
			} else {
				n++;
				inblock[blk]++;
			}
		}
		truth_release(&t);
	}
	printf("\n## refine --for accuracy: 2 parameters, 5%% noise, seeds 1-%d, target x = y = 128, 50%% extra core-hours\n\n",
	       all);
	printf("error halved, per %d seeds:\n\n| seeds | refine --for accuracy | more repetitions of every point |\n|---|---|---|\n",
	       nseeds);
	int tot[2] = { 0, 0 };
	for (int b = 0; b < ACC_BLOCKS; b++) {
		printf("| %d-%d | %d of %d | %d of %d |\n", b * nseeds + 1, (b + 1) * nseeds, halved[b][0], inblock[b],
		       halved[b][1], inblock[b]);
		tot[0] += halved[b][0];
		tot[1] += halved[b][1];
	}
	printf("| all | **%d of %d** | %d of %d |\n\n", tot[0], n, tot[1], n);
	printf("| spent on | error fell | median error before | after | median extra core-hours |\n");
	printf("|---|---|---|---|---|\n");
	double mb = median(before, n), me = median(extra, n);
	printf("| refine --for accuracy | %d of %d | %.2f%% | %.2f%% | %.0f%% |\n", fell[0], n, 100 * mb,
	       100 * median(after[0], n), 100 * me);
	printf("| more repetitions of every point | %d of %d | %.2f%% | %.2f%% | 50%% |\n", fell[1], n, 100 * mb,
	       100 * median(after[1], n));
	free(before);
	free(after[0]);
	free(after[1]);
	free(extra);
}

int main(int argc, char **argv)
{
	int nseeds = argc > 1 ? atoi(argv[1]) : 100;
	if (nseeds < 1)
		nseeds = 100;
	printf("# bench_design_eval: plan --evaluate and refine --for accuracy (docs/designs.md)\n");
	generated(2, nseeds);
	generated(3, nseeds);
	lulesh();
	accuracy(nseeds);
	return 0;
}
