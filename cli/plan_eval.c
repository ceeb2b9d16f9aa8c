/* plan --evaluate: designs against DATA, printed (plan_eval.h). */
#include "cli/plan_eval.h"
#include "cli/cli.h"
#include "analysis/design_eval.h"
#include "analysis/model_pipeline.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/plan_build.h"
#include "validator/report.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What DATA was read into. */
struct eval_input {
	int is_truth;
	struct truth truth;
	struct input_data in;
	struct model_options mo;
};

/* DATA: a generated truth ("gen:..."), or measurements through the model pipeline. */
static int load_data(struct eval_input *ei, const struct campaign_config *cfg, const struct design_spec *s,
		     const char *data, struct eval_data *d, struct perr *err)
{
	memset(ei, 0, sizeof(*ei));
	memset(d, 0, sizeof(*d));
	d->deps = s->deps;
	ei->is_truth = truth_is_spec(data);
	if (ei->is_truth) {
		char **names = xmalloc(sizeof(char *) * (size_t)(s->nparams + 1));
		for (int k = 0; k < s->nparams; k++)
			names[k] = s->params[k].name;
		int rc = truth_parse(&ei->truth, data, s->nparams, names, err);
		free(names);
		d->truth = &ei->truth;
		return rc;
	}
	struct model_pipeline_options o = { .deps_path = cfg->dependencies };
	model_options_robust(&o.model);
	if (model_pipeline_load(&ei->in, data, &o, &ei->mo, err) < 0)
		return -1;
	if (!ei->in.e.npoints || !ei->in.e.nmetrics)
		return perr_set(err, "'%s' holds no measurements", data);
	int m = experiment_find_metric(&ei->in.e, "time");
	d->e = &ei->in.e;
	d->metric = m >= 0 ? m : 0;
	d->funcs = ei->in.have_deps ? ei->in.funcs : NULL;
	d->min_share = cfg->min_share;
	return 0;
}

static void eval_input_release(struct eval_input *ei)
{
	if (ei->is_truth)
		truth_release(&ei->truth);
	else
		input_data_release(&ei->in);
}

/* "12.3%" or "-". */
static void pct(char *buf, size_t n, double v)
{
	if (isfinite(v))
		snprintf(buf, n, "%.2f%%", 100 * v);
	else
		snprintf(buf, n, "-");
}

/* Held-out point h as "p=343,size=25". */
static void held_text(struct strbuf *sb, const struct eval_result *r, int h)
{
	point_text(sb, (const char *const *)r->params, &r->held[(size_t)h * (size_t)r->nparams], r->nparams, ",");
}

static void print_heading(FILE *f, const struct eval_result *r, const char *name, const char *data)
{
	fprintf(f, "plan --evaluate: the %s design of '%s' against %s", r->design, name, data);
	if (!strcmp(r->held_rule, EVAL_HELD_TRUTH))
		fprintf(f, " (%d seed%s)", r->nseeds, r->nseeds == 1 ? "" : "s");
	fputc('\n', f);
	struct strbuf sb;
	strbuf_init(&sb);
	for (int h = 0; h < r->nheld && h < 6; h++) {
		strbuf_addstr(&sb, h ? "; " : "");
		held_text(&sb, r, h);
	}
	fprintf(f, "held out: %s, %d point%s: %s%s\n", r->held_rule, r->nheld, r->nheld == 1 ? "" : "s", sb.buf,
		r->nheld > 6 ? "; ..." : "");
	strbuf_release(&sb);
	fprintf(f, "regions: %d; error: per region and seed the mean of |model - reference| / reference over the "
		"held-out points, then the median and the worst\n", r->nregions);
	fprintf(f, "full factorial %.4g core-hours; the design %.4g core-hours (%.1f%%)\n\n", r->full_cost,
		r->design_cost, 100 * r->share[0]);
}

/* The table: every budget, every strategy. */
static void print_table(FILE *f, const struct eval_result *r)
{
	fprintf(f, "%-18s %-9s %11s %7s %6s %5s %9s %9s\n", "budget", "strategy", "core-hours", "share", "points",
		"reps", "median", "worst");
	for (int b = 0; b < r->nbudgets; b++) {
		char label[64];
		if (b)
			snprintf(label, sizeof(label), "%.0f%%", 100 * r->share[b]);
		else
			snprintf(label, sizeof(label), "design %.1f%%", 100 * r->share[0]);
		for (int st = 0; st < EVAL_NSTRATEGIES; st++) {
			const struct eval_cell *c = eval_cell_at(r, st, b);
			char med[32], worst[32], share[32];
			pct(med, sizeof(med), c->median_error);
			pct(worst, sizeof(worst), c->worst_error);
			fprintf(f, "%-18s %-9s ", st ? "" : label, eval_strategy_name((enum eval_strategy)st));
			if (!c->feasible) {
				fprintf(f, "%11s %7s %6s %5s %9s %9s\n", "-", "-", "-", "-", "-", "-");
				continue;
			}
			snprintf(share, sizeof(share), "%.1f%%", 100 * c->spent / r->full_cost);
			fprintf(f, "%11.4g %7s %6d %5d %9s %9s\n", c->spent, share, c->points, c->repetitions, med,
				worst);
		}
	}
}

/* The models each strategy obtained at the design's own cost (the first seed). */
static void print_models(FILE *f, const struct eval_result *r)
{
	if (r->held_rule && !strcmp(r->held_rule, EVAL_HELD_TRUTH))
		fprintf(f, "\nmodels at the design's own cost (seed %lu):\n", r->seed);
	else
		fprintf(f, "\nmodels at the design's own cost:\n");
	for (int i = 0; i < r->nregions; i++) {
		fprintf(f, "  %s\n", r->regions[i]);
		for (int st = 0; st < EVAL_NSTRATEGIES; st++) {
			const struct eval_cell *c = eval_cell_at(r, st, 0);
			fprintf(f, "    %-9s %s\n", eval_strategy_name((enum eval_strategy)st),
				c->models && c->models[i] ? c->models[i] : "-");
		}
	}
}

/* The design at its own cost against the full factorial at 100%. */
static void print_verdict(FILE *f, const struct eval_result *r)
{
	const struct eval_cell *d = eval_cell_at(r, EVAL_DESIGN, 0);
	const struct eval_cell *full = eval_cell_at(r, EVAL_FULL, r->nbudgets - 1);
	if (!isfinite(d->median_error) || !isfinite(full->median_error) || r->share[r->nbudgets - 1] != 1)
		return;
	fprintf(f, "\nthe design at %.1f%% of the full factorial's core-hours: median error %.2f%%, the full "
		"factorial's %.2f%% (%.2fx)\n", 100 * r->share[0], 100 * d->median_error, 100 * full->median_error,
		full->median_error > 0 ? d->median_error / full->median_error : INFINITY);
}

static json_t *num_json(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A parameter value: an integer when it is one, as plan --json writes them. */
static json_t *value_json(double v)
{
	return v == floor(v) && fabs(v) < 1e15 ? json_integer((json_int_t)v) : json_real(v);
}

static json_t *cell_json(const struct eval_result *r, int st, int b)
{
	const struct eval_cell *c = eval_cell_at(r, st, b);
	json_t *o = json_object();
	json_object_set_new(o, "strategy", json_string(eval_strategy_name((enum eval_strategy)st)));
	json_object_set_new(o, "feasible", json_boolean(c->feasible));
	json_object_set_new(o, "core_hours", num_json(c->feasible ? c->spent : NAN));
	json_object_set_new(o, "points", c->feasible ? json_integer(c->points) : json_null());
	json_object_set_new(o, "repetitions", c->feasible ? json_integer(c->repetitions) : json_null());
	json_object_set_new(o, "median_error", num_json(c->median_error));
	json_object_set_new(o, "worst_error", num_json(c->worst_error));
	json_object_set_new(o, "errors", json_integer(c->nerrors));
	json_t *models = json_array();
	for (int i = 0; c->models && i < r->nregions; i++) {
		json_t *m = json_object();
		json_object_set_new(m, "region", json_string(r->regions[i]));
		json_object_set_new(m, "model", c->models[i] ? json_string(c->models[i]) : json_null());
		json_array_append_new(models, m);
	}
	json_object_set_new(o, "models", models);
	return o;
}

/* The --json contract (docs/designs.md, "Evaluating a design"). */
static json_t *eval_json(const struct eval_result *r, const char *data)
{
	json_t *root = json_object(), *held = json_array(), *regions = json_array(), *budgets = json_array();
	json_object_set_new(root, "data", json_string(data));
	json_object_set_new(root, "design", json_string(r->design));
	json_object_set_new(root, "seeds", json_integer(r->nseeds));
	json_object_set_new(root, "first_seed", json_integer((json_int_t)r->seed));
	json_object_set_new(root, "held_out_rule", json_string(r->held_rule));
	for (int h = 0; h < r->nheld; h++) {
		json_t *p = json_object();
		for (int k = 0; k < r->nparams; k++)
			json_object_set_new(p, r->params[k], value_json(r->held[(size_t)h * (size_t)r->nparams + (size_t)k]));
		json_array_append_new(held, p);
	}
	json_object_set_new(root, "held_out", held);
	for (int i = 0; i < r->nregions; i++)
		json_array_append_new(regions, json_string(r->regions[i]));
	json_object_set_new(root, "regions", regions);
	json_object_set_new(root, "full_core_hours", num_json(r->full_cost));
	json_object_set_new(root, "design_core_hours", num_json(r->design_cost));
	for (int b = 0; b < r->nbudgets; b++) {
		json_t *o = json_object(), *cells = json_array();
		json_object_set_new(o, "share", num_json(r->share[b]));
		json_object_set_new(o, "core_hours", num_json(eval_cell_at(r, 0, b)->budget));
		json_object_set_new(o, "design_own", json_boolean(b == 0));
		for (int st = 0; st < EVAL_NSTRATEGIES; st++)
			json_array_append_new(cells, cell_json(r, st, b));
		json_object_set_new(o, "strategies", cells);
		json_array_append_new(budgets, o);
	}
	json_object_set_new(root, "budgets", budgets);
	return root;
}

/* The page: the table and the median error against core-hours, one line per strategy. */
static int write_html(const struct eval_result *r, const char *path, const char *text, const char *name,
		      struct perr *err)
{
	struct report_curve curves[EVAL_NSTRATEGIES];
	double *x = xcalloc((size_t)EVAL_NSTRATEGIES * (size_t)r->nbudgets + 1, sizeof(double));
	double *y = xcalloc((size_t)EVAL_NSTRATEGIES * (size_t)r->nbudgets + 1, sizeof(double));
	for (int st = 0; st < EVAL_NSTRATEGIES; st++) {
		struct report_curve *c = &curves[st];
		c->name = eval_strategy_name((enum eval_strategy)st);
		c->x = x + st * r->nbudgets;
		c->y = y + st * r->nbudgets;
		c->n = 0;
		for (int b = 1; b < r->nbudgets; b++) {        /* the fractions, in order */
			const struct eval_cell *cell = eval_cell_at(r, st, b);
			if (cell->feasible && isfinite(cell->median_error)) {
				x[st * r->nbudgets + c->n] = cell->spent;
				y[st * r->nbudgets + c->n++] = 100 * cell->median_error;
			}
		}
	}
	char *title = xasprintf("%s: the %s design against other strategies", name, r->design);
	struct report_figure fig = { .title = title, .text = text, .xlabel = "core-hours spent",
				     .ylabel = "median relative prediction error at the held-out points (%)",
				     .curves = curves, .ncurves = EVAL_NSTRATEGIES, .logy = 1,
				     .gnuplot = getenv("PERFSWEEP_GNUPLOT") };
	int rc = report_html_figure(path, &fig, err);
	free(title);
	free(x);
	free(y);
	return rc;
}

/* Table, models and verdict into f. */
static void print_all(FILE *f, const struct eval_result *r, const char *name, const char *data)
{
	print_heading(f, r, name, data);
	print_table(f, r);
	print_models(f, r);
	print_verdict(f, r);
}

int plan_evaluate(const struct campaign_config *cfg, const char *data, int json, const char *html)
{
	struct perr err;
	struct plan_spec *ps = plan_spec_build(cfg, &err);
	if (!ps)
		return cli_error(EXIT_USAGE, "%s", err.msg);
	struct eval_input ei;
	struct eval_data d;
	struct eval_options o;
	struct eval_result r;
	eval_options_init(&o);
	memset(&r, 0, sizeof(r));
	int rc = load_data(&ei, cfg, plan_spec_design(ps), data, &d, &err);
	if (rc == 0) {
		o.model = ei.is_truth ? o.model : ei.mo;
		rc = design_evaluate(&r, plan_spec_design(ps), &d, &o, &err);
	}
	const char *name = cfg->name ? cfg->name : "?";
	if (rc == 0 && html) {
		char *text = NULL;
		size_t len = 0;
		FILE *mf = open_memstream(&text, &len);
		print_all(mf, &r, name, data);
		fclose(mf);
		rc = write_html(&r, html, text, name, &err);
		free(text);
	}
	if (rc == 0 && json) {
		json_t *j = eval_json(&r, data);
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
		fputc('\n', stdout);
		json_decref(j);
	} else if (rc == 0) {
		cli_display_stdout();
		print_all(stdout, &r, name, data);
	}
	eval_result_release(&r);
	eval_input_release(&ei);
	plan_spec_free(ps);
	return rc ? cli_error(EXIT_USAGE, "%s", err.msg) : EXIT_OK;
}
