/* perfsweep compare's text, JSON and HTML reports (see compare_report.h). */
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/point_text.h"
#include "models/pmnf_json.h"
#include "validator/compare_report.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* validate's report style (validator/report_html.c), with green for improvements. */
static const char css[] =
	"body{font-family:sans-serif;max-width:80em;margin:2em auto;color:#222}table{border-collapse:collapse;"
	"margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}th{background:#f0f0f0}"
	".blocked{color:#b00;font-weight:bold}.publishable{color:#070;font-weight:bold}.blk{background:#fdd}"
	".good{background:#dfd}code{font-size:90%}";

static const char *const status_name[] = { "unchanged", "regression", "improvement" };

/* "n=10,i=2" */
static void add_point(struct strbuf *sb, const struct compare *c, const double *x)
{
	point_text(sb, (const char *const *)c->params, x, c->nparams, ",");
}

/* "+10.2% [+8.1%, +12.5%]"; an unbounded side prints as "inf". */
static void add_change(struct strbuf *sb, const struct compare_point *p)
{
	if (!isfinite(p->rel)) {
		strbuf_addstr(sb, "n/a");
		return;
	}
	strbuf_addf(sb, "%+.1f%% [", 100 * p->rel);
	if (isfinite(p->rel_lo) && p->rel_lo > -1)
		strbuf_addf(sb, "%+.1f%%, ", 100 * p->rel_lo);
	else
		strbuf_addstr(sb, "-inf, ");
	if (isfinite(p->rel_hi))
		strbuf_addf(sb, "%+.1f%%]", 100 * p->rel_hi);
	else
		strbuf_addstr(sb, "+inf]");
}

static void text_point(FILE *f, const struct compare *c, const struct compare_point *p)
{
	const struct compare_region *g = &c->regions[p->region];
	struct strbuf pt, ch;
	strbuf_init(&pt);
	strbuf_init(&ch);
	add_point(&pt, c, p->coords);
	add_change(&ch, p);
	fprintf(f, "%-11s %-24s %-8s %-16s %11.5g %11.5g  %-26s %8.2g%s\n", status_name[p->status],
		g->callpath, g->metric, pt.buf, p->base_median, p->new_median, ch.buf, p->p,
		p->reachable ? "" : " (cannot reach alpha)");
	strbuf_release(&pt);
	strbuf_release(&ch);
}

/* Why a changed leading term is not a scaling regression: the data decide (compare.h). */
static const char *unconfirmed_reason(const struct compare *c, const struct compare_region *g)
{
	static char fixed[160];
	int tested = 0, rising = 0;
	if (g->fixed.explains) {
		snprintf(fixed, sizeof(fixed), "a fixed part, the same on both sides, explains the trend: "
			 "new = %.4g + %.4g * (base - %.4g), the ratio levels off at %.4g", g->fixed.s, g->fixed.beta,
			 g->fixed.s, g->fixed.beta);
		return fixed;
	}
	for (int k = 0; k < c->nparams; k++) {
		const struct trend_param *tp = &g->trend.param[k];
		tested |= tp->tested;
		rising |= tp->tested && tp->p < c->opt.alpha && tp->slope > 0;
	}
	if (!tested)
		return "the data cannot test a trend (too few common points)";
	if (rising)
		return "the data show a trend, but it may add less than the tolerance at twice the largest value";
	return "models differ, data do not show a trend";
}

/* "+12.3%": the smallest slowdown the region's pooled test finds (compare_trend.h), or "n/a". */
static const char *detectable_text(const struct compare_trend *t)
{
	static char buf[32];
	if (!t->tested || !isfinite(t->detectable))
		return "n/a";
	snprintf(buf, sizeof(buf), "%+.1f%%", 100 * expm1(t->detectable));
	return buf;
}

/* What the region says for the verdict, in words. */
static const char *outcome_text(const struct compare *c, const struct compare_region *g)
{
	static char buf[160];
	if (!g->decides)
		snprintf(buf, sizeof(buf), "small (%.2g%% of the %s, under min_share %g%%): decides nothing",
			 100 * g->share, g->metric, 100 * c->opt.min_share);
	else if (g->outcome == CMP_REGRESSED)
		snprintf(buf, sizeof(buf), "regressed");
	else if (g->outcome == CMP_OK)
		snprintf(buf, sizeof(buf), "resolved: no slowdown beyond %g%%", 100 * c->opt.tolerance);
	else
		snprintf(buf, sizeof(buf), "INCONCLUSIVE: a slowdown of %g%% is not excluded", 100 * c->opt.tolerance);
	return buf;
}

/* "+10.2% [+8.1%, +12.5%]" of a log ratio and its interval. */
static void add_log_change(struct strbuf *sb, double l, double lo, double hi)
{
	strbuf_addf(sb, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * expm1(l), 100 * expm1(lo), 100 * expm1(hi));
}

/* 1 when no point of region r can reach alpha alone. */
static int none_reachable(const struct compare *c, int r)
{
	for (int i = 0; i < c->ncmp; i++)
		if (c->points[i].region == r && c->points[i].reachable)
			return 0;
	return 1;
}

/* The region-level test and the trend along each parameter. */
static void text_level(FILE *f, const struct compare *c, const struct compare_region *g)
{
	const struct compare_trend *t = &g->trend;
	if (!t->tested) {
		fputs("  all points together: not tested (no point with positive values and repetitions)\n", f);
		return;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	add_log_change(&sb, t->level, t->level_lo, t->level_hi);
	fprintf(f, "  all %d points together%s: %s, %s, p %.2g%s\n", t->npoints, t->paired ? " (paired)" : "",
		status_name[g->status], sb.buf, t->level_p,
		g->status != CMP_UNCHANGED && none_reachable(c, (int)(g - c->regions))
			? " (no single point could have shown it)" : "");
	fprintf(f, "  %s; detectable %s", outcome_text(c, g), detectable_text(t));
	if (t->npoints >= 2 && t->point_p_max < c->opt.alpha)
		fprintf(f, "; every point slower on its own (largest p %.2g)", t->point_p_max);
	fputc('\n', f);
	for (int k = 0; k < c->nparams; k++) {
		const struct trend_param *tp = &t->param[k];
		if (!tp->varies)
			continue;
		if (!tp->tested) {
			fprintf(f, "  trend along %s: not tested (too few points)\n", c->params[k]);
			continue;
		}
		fprintf(f, "  trend along %s: slope %+.3f [%+.3f, %+.3f], p %.2g; new/base %.4g at %s=%g%s\n",
			c->params[k], tp->slope, tp->lo, tp->hi, tp->p, tp->ratio_2x, c->params[k], 2 * tp->xmax,
			g->scaling[k] > 0 ? "  SCALING REGRESSION" : g->scaling[k] < 0 ? "  scales better" : "");
	}
	strbuf_release(&sb);
}

static void text_model(FILE *f, const struct compare *c, const struct compare_region *g)
{
	fprintf(f, "%s [%s]%s\n", g->callpath, g->metric,
		g->noisy == CMP_NOISY_BASE ? "  (noisy in base)" : g->noisy == CMP_NOISY_NEW ? "  (noisy in new)"
		: g->noisy ? "  (noisy in base and new)" : "");
	text_level(f, c, g);
	if (!g->modelled) {
		fprintf(f, "  not modelled: %s\n", g->fit_error ? g->fit_error : "no model");
		return;
	}
	const struct pmnf_model *m[2] = { &g->base, &g->new };
	int lead[2] = { g->base_lead, g->new_lead };
	for (int s = 0; s < 2; s++) {
		char *ms = pmnf_format(m[s], 4), *ls = pmnf_format_term(m[s], lead[s]);
		fprintf(f, "  %-5s %s   (leading term %s)\n", s ? "new:" : "base:", ms, ls);
		free(ms);
		free(ls);
	}
	struct strbuf pt;
	strbuf_init(&pt);
	add_point(&pt, c, c->largest);
	fprintf(f, "  leading term %s; predicted new/base %.4g at %s, %.4g at twice that%s\n",
		!g->leading_changed ? "unchanged" : g->leading_grew ? "grew" : "changed (did not grow)",
		g->ratio, pt.buf, g->ratio_2x, g->regression ? "  SCALING REGRESSION" : "");
	if ((g->leading_changed || g->fixed.explains) && !g->regression)
		fprintf(f, "  not a scaling regression: %s\n", unconfirmed_reason(c, g));
	else if (!g->leading_changed && g->regression)
		fputs("  the models keep their leading term, but the data show the ratio growing\n", f);
	strbuf_release(&pt);
}

/* The stored configs' differences and the machines, when both inputs are campaigns. */
static void text_inputs(FILE *f, const struct compare *c)
{
	const struct compare_inputs *in = &c->inputs;
	if (!in->campaigns)
		return;
	if (in->config_note)
		fprintf(f, "configs: %s\n", in->config_note);
	else if (!in->ndiffs)
		fputs("configs: the same (but the campaign name)\n", f);
	else
		fprintf(f, "configs: %d difference%s\n", in->ndiffs, in->ndiffs == 1 ? "" : "s");
	for (int i = 0; i < in->ndiffs; i++) {
		const struct compare_diff *d = &in->diffs[i];
		fprintf(f, "  %-28s %s -> %s\n", d->key, d->base ? d->base : "(absent)", d->new ? d->new : "(absent)");
	}
	const struct compare_machine *m = in->machine;
	static const char *const what[] = { "hostname", "cpu model", "cores" };
	const char *v[2][3] = { { m[0].hostname, m[0].cpu_model, m[0].ncores },
				{ m[1].hostname, m[1].cpu_model, m[1].ncores } };
	int differ = 0;
	for (int s = 0; s < 2; s++)
		if (!v[s][0])
			fprintf(f, "machine: not recorded in %s (made before perfsweep recorded it)\n", s ? "new" : "base");
	for (int k = 0; k < 3 && v[0][0] && v[1][0]; k++)
		differ |= strcmp(v[0][k] ? v[0][k] : "", v[1][k] ? v[1][k] : "") != 0;
	if (v[0][0] && v[1][0] && !differ)
		fprintf(f, "machine: the same (%s, %s, %s cores)\n", v[0][0], v[0][1] ? v[0][1] : "?",
			v[0][2] ? v[0][2] : "?");
	for (int k = 0; k < 3 && differ; k++)
		fprintf(f, "  machine %-20s %s -> %s\n", what[k], v[0][k] ? v[0][k] : "?", v[1][k] ? v[1][k] : "?");
	fputc('\n', f);
}

/* "re-measure base n=8, n=16; new n=32": a noisy region's noisy points. */
static void add_remeasure(struct strbuf *sb, const struct compare *c, const struct compare_region *g)
{
	strbuf_addstr(sb, "re-measure");
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < g->nremeasure[s]; i++) {
			strbuf_addstr(sb, i ? ", " : s && g->nremeasure[0] ? "; new " : s ? " new " : " base ");
			add_point(sb, c, g->remeasure[s] + (size_t)i * (size_t)c->nparams);
		}
}

/* 1 when region g is listed as not compared: it decides and its test cannot tell. */
static int unresolved(const struct compare_region *g)
{
	return g->decides && g->outcome == CMP_INCONCLUSIVE;
}

/* The regions the pooled test could not resolve, with what it could have detected. */
static void text_not_compared(FILE *f, const struct compare *c)
{
	if (!c->nnot_compared)
		return;
	fprintf(f, "\nnot resolved (the data can neither show nor exclude a slowdown of %g%%):\n", 100 * c->opt.tolerance);
	for (int r = 0; r < c->nregions; r++) {
		const struct compare_region *g = &c->regions[r];
		if (!unresolved(g))
			continue;
		struct strbuf sb;
		strbuf_init(&sb);
		if (g->trend.tested)
			add_log_change(&sb, g->trend.level, g->trend.level_lo, g->trend.level_hi);
		else
			strbuf_addstr(&sb, "not tested (no point with positive values and repetitions)");
		strbuf_addf(&sb, "; detectable %s", detectable_text(&g->trend));
		if (g->noisy) {
			strbuf_addf(&sb, "; noisy in %s: ", g->noisy == CMP_NOISY_BASE ? "base" : g->noisy == CMP_NOISY_NEW
				    ? "new" : "base and new");
			add_remeasure(&sb, c, g);
		}
		fprintf(f, "  %s [%s]: %s\n", g->callpath, g->metric, sb.buf);
		strbuf_release(&sb);
	}
}

/* What the runs of campaigns lost to disturbance: a line each, when there is something to say. */
static void text_disturbed(FILE *f, const struct compare *c)
{
	const struct compare_inputs *in = &c->inputs;
	if (in->paired)
		fprintf(f, "pairs: %d (each new run beside its base run in time); %d lost to a disturbed run, "
			"left out on both sides\n", in->pairs, in->pairs_lost);
	for (int s = 0; s < 2 && !in->paired; s++)
		if (in->judged[s])
			fprintf(f, "%s: %d of %d runs disturbed, left out\n", s ? "new" : "base", in->disturbed[s],
				in->judged[s]);
}

/* The verdict line. */
static void text_verdict(FILE *f, const struct compare *c)
{
	int v = compare_verdict(c);
	const struct compare_inputs *in = &c->inputs;
	if (v == COMPARE_REGRESSION) {
		fputs("verdict: regression\n", f);
	} else if (v == COMPARE_INCONCLUSIVE && in->shared) {
		if (in->paired)
			fprintf(f, "verdict: inconclusive: the machine was shared (%d of %d pairs lost to disturbed "
				"runs); run again on a quiet machine\n", in->pairs_lost, in->pairs);
		else
			fprintf(f, "verdict: inconclusive: the machine was shared (%d of %d base runs, %d of %d new "
				"runs disturbed); run again on a quiet machine\n", in->disturbed[0], in->judged[0],
				in->disturbed[1], in->judged[1]);
	} else if (v == COMPARE_INCONCLUSIVE) {
		fprintf(f, "verdict: inconclusive: %d region%s not resolved (listed above with the slowdown each "
			"could have shown); add repetitions, or raise --tolerance\n", c->nnot_compared,
			c->nnot_compared == 1 ? "" : "s");
	} else {
		fputs("verdict: no regression\n", f);
	}
}

void compare_report_text(FILE *f, const struct compare *c, const char *base, const char *new)
{
	fprintf(f, "base: %s\nnew:  %s\n", base, new);
	text_inputs(f, c);
	fprintf(f, "%d common points; tolerance %g%%, alpha %g per point "
		"(Mann-Whitney, Hodges-Lehmann interval at %g%%)\n\n", c->npoints,
		100 * c->opt.tolerance, c->opt.alpha, 100 * (1 - c->opt.alpha));
	fprintf(f, "%-11s %-24s %-8s %-16s %11s %11s  %-26s %8s\n", "status", "region", "metric", "point",
		"base median", "new median", "change [interval]", "p");
	for (int s = 1; s <= 3; s++)
		for (int i = 0; i < c->ncmp; i++)
			if ((int)c->points[i].status == s % 3)
				text_point(f, c, &c->points[i]);
	text_not_compared(f, c);
	fprintf(f, "\nregions (all common points together: weighted mean log ratio and its trend per "
		"parameter, one-sided t bounds at %g%%) and models:\n", 100 * (1 - c->opt.alpha));
	for (int r = 0; r < c->nregions; r++)
		text_model(f, c, &c->regions[r]);
	fprintf(f, "\n%d regressions, %d improvements, %d unchanged; regions: %d regressions, %d improvements",
		c->nregressions, c->nimprovements, c->nunchanged, c->nregion_regressions, c->nregion_improvements);
	if (c->nmodel_regressions)
		fprintf(f, "; %d scaling regressions", c->nmodel_regressions);
	if (c->nnot_compared)
		fprintf(f, "; %d not resolved", c->nnot_compared);
	if (c->nsmall)
		fprintf(f, "; %d under min_share", c->nsmall);
	fputc('\n', f);
	text_disturbed(f, c);
	if (c->nunreachable)
		fprintf(f, "note: %d points cannot reach p < %g with their repetitions "
			"(Mann-Whitney needs 5 + 5 for 0.01, 4 + 4 for 0.05)\n", c->nunreachable, c->opt.alpha);
	if (c->only_base || c->only_new)
		fprintf(f, "note: %d region/metric pairs only in base, %d only in new (not compared)\n",
			c->only_base, c->only_new);
	text_verdict(f, c);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *point_json(const struct compare *c, const struct compare_point *p)
{
	const struct compare_region *g = &c->regions[p->region];
	json_t *o = json_object(), *x = json_object();
	json_object_set_new(o, "callpath", json_string(g->callpath));
	json_object_set_new(o, "metric", json_string(g->metric));
	for (int k = 0; k < c->nparams; k++)
		json_object_set_new(x, c->params[k], json_real(p->coords[k]));
	json_object_set_new(o, "point", x);
	json_object_set_new(o, "base_median", num(p->base_median));
	json_object_set_new(o, "new_median", num(p->new_median));
	json_object_set_new(o, "change", num(p->rel));
	json_object_set_new(o, "ci", json_pack("[o,o]", num(p->rel_lo), num(p->rel_hi)));
	json_object_set_new(o, "p_value", num(p->p));
	json_object_set_new(o, "p_min", num(p->p_min));
	json_object_set_new(o, "reachable", json_boolean(p->reachable));
	json_object_set_new(o, "n_base", json_integer(p->nbase));
	json_object_set_new(o, "n_new", json_integer(p->nnew));
	json_object_set_new(o, "exact", json_boolean(p->exact));
	return o;
}

static json_t *side_json(const struct compare_region *g, int s)
{
	if (!g->modelled)
		return json_null();
	const struct pmnf_model *m = s ? &g->new : &g->base;
	json_t *o = pmnf_json(m);
	char *lt = pmnf_format_term(m, s ? g->new_lead : g->base_lead);
	json_object_set_new(o, "leading_term", json_string(lt));
	free(lt);
	return o;
}

static json_t *coords_json(const struct compare *c, const double *x)
{
	json_t *o = json_object();
	for (int k = 0; k < c->nparams; k++)
		json_object_set_new(o, c->params[k], json_real(x[k]));
	return o;
}

/* {param: {"tested", "slope", "ci", "p", "ratio_2x", "scaling"}}: the trend along each parameter. */
static json_t *trend_json(const struct compare *c, const struct compare_region *g)
{
	json_t *o = json_object();
	for (int k = 0; k < c->nparams; k++) {
		const struct trend_param *tp = &g->trend.param[k];
		json_t *t = json_object();
		json_object_set_new(t, "tested", json_boolean(tp->tested));
		if (tp->tested) {
			json_object_set_new(t, "slope", num(tp->slope));
			json_object_set_new(t, "ci", json_pack("[o,o]", num(tp->lo), num(tp->hi)));
			json_object_set_new(t, "p", num(tp->p));
			json_object_set_new(t, "ratio_2x", num(tp->ratio_2x));
			json_object_set_new(t, "at", json_real(2 * tp->xmax));
			json_object_set_new(t, "scaling", g->scaling[k] > 0 ? json_string("regression")
							  : g->scaling[k] < 0 ? json_string("improvement") : json_null());
		}
		json_object_set_new(o, c->params[k], t);
	}
	return o;
}

/* The region-level test: {"status", "change", "ci", "p_value", "points", "detectable", ...}, or null. */
static json_t *level_json(const struct compare_region *g)
{
	const struct compare_trend *t = &g->trend;
	if (!t->tested)
		return json_null();
	json_t *o = json_pack("{s:s,s:o,s:[o,o],s:o,s:i}", "status", status_name[g->status], "change",
			      num(expm1(t->level)), "ci", num(expm1(t->level_lo)), num(expm1(t->level_hi)),
			      "p_value", num(t->level_p), "points", t->npoints);
	json_object_set_new(o, "detectable", num(expm1(t->detectable)));
	json_object_set_new(o, "resolved", json_boolean(g->resolved));
	json_object_set_new(o, "se", num(t->level_se));
	json_object_set_new(o, "df", num(t->df));
	json_object_set_new(o, "tau2", num(t->tau2));
	json_object_set_new(o, "paired", json_boolean(t->paired));
	json_object_set_new(o, "point_p_max", num(t->point_p_max));
	json_object_set_new(o, "pass_se", num(t->pass_se));
	json_object_set_new(o, "by_passes", json_boolean(t->by_passes));
	json_object_set_new(o, "level_df", num(t->level_df));
	return o;
}

static const char *const outcome_name[] = { "ok", "regression", "inconclusive" };

/* ["base", "new"]: the sides a region is noisy on. */
static json_t *noisy_json(const struct compare_region *g)
{
	json_t *in = json_array();
	for (int s = 0; s < 2; s++)
		if (g->noisy & (s ? CMP_NOISY_NEW : CMP_NOISY_BASE))
			json_array_append_new(in, json_string(s ? "new" : "base"));
	return in;
}

/* {"explains", "value", "factor", "fit_p", "trend_p"}: compare_fixed.h */
static json_t *fixed_json(const struct fixed_part *fp)
{
	json_t *o = json_object();
	json_object_set_new(o, "explains", json_boolean(fp->explains));
	json_object_set_new(o, "value", num(fp->s));
	json_object_set_new(o, "factor", num(fp->beta));
	json_object_set_new(o, "fit_p", num(fp->fit_p));
	json_object_set_new(o, "trend_p", num(fp->trend_p));
	return o;
}

static json_t *model_json(const struct compare *c, const struct compare_region *g)
{
	json_t *o = json_object(), *sp = json_array();
	json_object_set_new(o, "callpath", json_string(g->callpath));
	json_object_set_new(o, "metric", json_string(g->metric));
	json_object_set_new(o, "base", side_json(g, 0));
	json_object_set_new(o, "new", side_json(g, 1));
	json_object_set_new(o, "leading_term_changed", json_boolean(g->leading_changed));
	json_object_set_new(o, "predicted_ratio", num(g->ratio));
	json_object_set_new(o, "leading_term_grew", json_boolean(g->leading_grew));
	json_object_set_new(o, "predicted_ratio_2x", num(g->ratio_2x));
	json_object_set_new(o, "largest_point", coords_json(c, c->largest));
	json_object_set_new(o, "scaling_regression", json_boolean(g->regression));
	for (int k = 0; k < c->nparams; k++)
		if (g->scaling[k] > 0)
			json_array_append_new(sp, json_string(c->params[k]));
	json_object_set_new(o, "scaling_parameters", sp);
	json_object_set_new(o, "region", level_json(g));
	json_object_set_new(o, "trend", trend_json(c, g));
	json_object_set_new(o, "outcome", json_string(outcome_name[g->outcome]));
	json_object_set_new(o, "share", num(g->share));
	json_object_set_new(o, "decides", json_boolean(g->decides));
	json_object_set_new(o, "noisy_in", noisy_json(g));
	if ((g->leading_changed || g->fixed.explains) && !g->regression)
		json_object_set_new(o, "not_confirmed", json_string(unconfirmed_reason(c, g)));
	if (g->fixed.tested)
		json_object_set_new(o, "fixed_part", fixed_json(&g->fixed));
	if (g->fit_error)
		json_object_set_new(o, "error", json_string(g->fit_error));
	return o;
}

/* [{"callpath", "metric", "noisy_in", "remeasure": {"base": [point], "new": [point]}, "reason",
    "detectable", "change", "ci"}]: the regions that decide and are not resolved */
static json_t *not_compared_json(const struct compare *c)
{
	json_t *a = json_array();
	for (int r = 0; r < c->nregions; r++) {
		const struct compare_region *g = &c->regions[r];
		if (!unresolved(g))
			continue;
		json_t *re = json_object();
		for (int s = 0; s < 2; s++) {
			json_t *pts = json_array();
			for (int i = 0; i < g->nremeasure[s]; i++)
				json_array_append_new(pts, coords_json(c, g->remeasure[s] + (size_t)i * (size_t)c->nparams));
			json_object_set_new(re, s ? "new" : "base", pts);
		}
		const struct compare_trend *t = &g->trend;
		json_t *o = json_pack("{s:s,s:s,s:o,s:o}", "callpath", g->callpath, "metric", g->metric,
				      "noisy_in", noisy_json(g), "remeasure", re);
		json_object_set_new(o, "reason", json_string(t->tested ? "not resolved: the data can neither show "
							     "nor exclude a slowdown of the tolerance"
							     : "not tested: no point with positive values"));
		json_object_set_new(o, "detectable", t->tested ? num(expm1(t->detectable)) : json_null());
		json_object_set_new(o, "change", t->tested ? num(expm1(t->level)) : json_null());
		json_object_set_new(o, "ci", t->tested ? json_pack("[o,o]", num(expm1(t->level_lo)),
								   num(expm1(t->level_hi))) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

/* "disturbed": {"base": {"judged", "left_out"}, "new": ...}, "pairs", "machine_shared". */
static void disturbed_json(json_t *o, const struct compare *c)
{
	const struct compare_inputs *in = &c->inputs;
	json_t *d = json_object();
	for (int s = 0; s < 2; s++)
		json_object_set_new(d, s ? "new" : "base", json_pack("{s:i,s:i}", "judged", in->judged[s], "left_out",
								     in->disturbed[s]));
	json_object_set_new(o, "disturbed", d);
	json_object_set_new(o, "pairs", in->paired ? json_pack("{s:i,s:i}", "pairs", in->pairs, "lost",
							       in->pairs_lost) : json_null());
	json_object_set_new(o, "machine_shared", json_boolean(in->shared));
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* "config_diff": [{"key", "base", "new"}] and, for campaigns, "machines". */
static void inputs_json(json_t *o, const struct compare *c)
{
	const struct compare_inputs *in = &c->inputs;
	json_t *d = json_array();
	for (int i = 0; i < in->ndiffs; i++)
		json_array_append_new(d, json_pack("{s:s,s:o,s:o}", "key", in->diffs[i].key, "base",
						   str_or_null(in->diffs[i].base), "new", str_or_null(in->diffs[i].new)));
	json_object_set_new(o, "config_diff", d);
	if (!in->campaigns)
		return;
	if (in->config_note)
		json_object_set_new(o, "config_note", json_string(in->config_note));
	json_t *m = json_object();
	for (int s = 0; s < 2; s++) {
		const struct compare_machine *x = &in->machine[s];
		json_object_set_new(m, s ? "new" : "base",
				    json_pack("{s:o,s:o,s:o}", "hostname", str_or_null(x->hostname), "cpu_model",
					      str_or_null(x->cpu_model), "ncores", str_or_null(x->ncores)));
	}
	json_object_set_new(o, "machines", m);
}

json_t *compare_report_json(const struct compare *c, const char *base, const char *new)
{
	json_t *o = json_object(), *reg = json_array(), *imp = json_array(), *models = json_array();
	for (int i = 0; i < c->ncmp; i++)
		if (c->points[i].status != CMP_UNCHANGED)
			json_array_append_new(c->points[i].status == CMP_REGRESSION ? reg : imp,
					      point_json(c, &c->points[i]));
	for (int r = 0; r < c->nregions; r++)
		json_array_append_new(models, model_json(c, &c->regions[r]));
	json_object_set_new(o, "regressions", reg);
	json_object_set_new(o, "improvements", imp);
	json_object_set_new(o, "unchanged", json_integer(c->nunchanged));
	json_object_set_new(o, "models", models);
	json_object_set_new(o, "verdict", json_string(compare_verdict_name(compare_verdict(c))));
	json_object_set_new(o, "exit_status", json_integer(compare_verdict(c)));
	json_object_set_new(o, "base", json_string(base));
	json_object_set_new(o, "new", json_string(new));
	json_object_set_new(o, "tolerance", json_real(c->opt.tolerance));
	json_object_set_new(o, "alpha", json_real(c->opt.alpha));
	json_object_set_new(o, "common_points", json_integer(c->npoints));
	json_object_set_new(o, "unreachable", json_integer(c->nunreachable));
	json_object_set_new(o, "region_regressions", json_integer(c->nregion_regressions));
	json_object_set_new(o, "region_improvements", json_integer(c->nregion_improvements));
	json_object_set_new(o, "scaling_regressions", json_integer(c->nmodel_regressions));
	json_object_set_new(o, "not_compared", not_compared_json(c));
	json_object_set_new(o, "inconclusive", json_integer(c->nnot_compared));
	json_object_set_new(o, "small_regions", json_integer(c->nsmall));
	json_object_set_new(o, "min_share", json_real(c->opt.min_share));
	disturbed_json(o, c);
	inputs_json(o, c);
	return o;
}

static void html_points(struct strbuf *h, const struct compare *c)
{
	strbuf_addstr(h, "<h2>Points</h2>\n<table><tr><th>status</th><th>region</th><th>metric</th>"
		      "<th>point</th><th>base median</th><th>new median</th><th>change [interval]</th>"
		      "<th>p</th><th>reps</th></tr>\n");
	for (int s = 1; s <= 3; s++)
		for (int i = 0; i < c->ncmp; i++) {
			const struct compare_point *p = &c->points[i];
			if ((int)p->status != s % 3)
				continue;
			const struct compare_region *g = &c->regions[p->region];
			strbuf_addf(h, "<tr class=\"%s\"><td>%s</td><td><code>",
				    p->status == CMP_REGRESSION ? "blk" : p->status == CMP_IMPROVEMENT ? "good" : "",
				    status_name[p->status]);
			strbuf_add_html(h, g->callpath);
			strbuf_addstr(h, "</code></td><td>");
			strbuf_add_html(h, g->metric);
			strbuf_addstr(h, "</td><td>");
			struct strbuf t;
			strbuf_init(&t);
			add_point(&t, c, p->coords);
			strbuf_add_html(h, t.buf);
			strbuf_reset(&t);
			add_change(&t, p);
			strbuf_addf(h, "</td><td>%.5g</td><td>%.5g</td><td>%s</td><td>%.2g%s</td><td>%d + %d</td></tr>\n",
				    p->base_median, p->new_median, t.buf, p->p,
				    p->reachable ? "" : " (cannot reach &alpha;)", p->nbase, p->nnew);
			strbuf_release(&t);
		}
	strbuf_addstr(h, "</table>\n");
}

/* Two cells: the region-level change and the trend per parameter. */
static void html_level(struct strbuf *h, const struct compare *c, const struct compare_region *g)
{
	const struct compare_trend *t = &g->trend;
	if (!t->tested) {
		strbuf_addstr(h, "<td>not tested</td><td></td>");
		return;
	}
	strbuf_addf(h, "<td>%s ", status_name[g->status]);
	add_log_change(h, t->level, t->level_lo, t->level_hi);
	strbuf_addf(h, ", p %.2g; ", t->level_p);
	strbuf_add_html(h, outcome_text(c, g));
	strbuf_addf(h, "; detectable %s</td><td>", detectable_text(t));
	for (int k = 0; k < c->nparams; k++) {
		const struct trend_param *tp = &t->param[k];
		strbuf_addstr(h, k ? "<br>" : "");
		strbuf_add_html(h, c->params[k]);
		if (!tp->tested)
			strbuf_addstr(h, ": not tested");
		else
			strbuf_addf(h, ": slope %+.3f [%+.3f, %+.3f], p %.2g%s", tp->slope, tp->lo, tp->hi, tp->p,
				    g->scaling[k] > 0 ? " <b>scaling regression</b>" : g->scaling[k] < 0 ? " (scales better)" : "");
	}
	strbuf_addstr(h, "</td>");
}

/* The stored configs' differences, when both inputs are campaigns. */
static void html_inputs(struct strbuf *h, const struct compare *c)
{
	const struct compare_inputs *in = &c->inputs;
	if (!in->campaigns)
		return;
	strbuf_addstr(h, "<h2>What changed</h2>\n");
	if (in->config_note) {
		strbuf_addstr(h, "<p>");
		strbuf_add_html(h, in->config_note);
		strbuf_addstr(h, "</p>\n");
	}
	strbuf_addstr(h, "<table><tr><th>setting</th><th>base</th><th>new</th></tr>\n");
	for (int i = 0; i < in->ndiffs; i++) {
		const char *v[3] = { in->diffs[i].key, in->diffs[i].base, in->diffs[i].new };
		strbuf_addstr(h, "<tr>");
		for (int k = 0; k < 3; k++) {
			strbuf_addstr(h, "<td><code>");
			strbuf_add_html(h, v[k] ? v[k] : "(absent)");
			strbuf_addstr(h, "</code></td>");
		}
		strbuf_addstr(h, "</tr>\n");
	}
	static const char *const what[] = { "hostname", "cpu model", "cores" };
	for (int k = 0; k < 3; k++) {
		const struct compare_machine *m = in->machine;
		const char *v[2] = { k == 0 ? m[0].hostname : k == 1 ? m[0].cpu_model : m[0].ncores,
				     k == 0 ? m[1].hostname : k == 1 ? m[1].cpu_model : m[1].ncores };
		strbuf_addf(h, "<tr><td>machine %s</td>", what[k]);
		for (int s = 0; s < 2; s++) {
			strbuf_addstr(h, "<td>");
			strbuf_add_html(h, v[s] ? v[s] : "not recorded");
			strbuf_addstr(h, "</td>");
		}
		strbuf_addstr(h, "</tr>\n");
	}
	strbuf_addstr(h, "</table>\n");
}

static void html_models(struct strbuf *h, const struct compare *c)
{
	strbuf_addstr(h, "<h2>Regions and models</h2>\n<table><tr><th>region</th><th>metric</th><th>all points "
		      "together</th><th>trend of new/base</th><th>base</th><th>new</th>"
		      "<th>leading term</th><th>predicted new/base</th></tr>\n");
	for (int r = 0; r < c->nregions; r++) {
		const struct compare_region *g = &c->regions[r];
		strbuf_addf(h, "<tr class=\"%s\"><td><code>",
			    g->regression || g->status == CMP_REGRESSION ? "blk" : "");
		strbuf_add_html(h, g->callpath);
		strbuf_addstr(h, "</code></td><td>");
		strbuf_add_html(h, g->metric);
		strbuf_addstr(h, "</td>");
		html_level(h, c, g);
		if (!g->modelled) {
			strbuf_addstr(h, "<td colspan=\"4\">not modelled: ");
			strbuf_add_html(h, g->fit_error);
			strbuf_addstr(h, "</td></tr>\n");
			continue;
		}
		char *s[4] = { pmnf_format(&g->base, 4), pmnf_format(&g->new, 4),
			       pmnf_format_term(&g->base, g->base_lead), pmnf_format_term(&g->new, g->new_lead) };
		for (int i = 0; i < 2; i++) {
			strbuf_addstr(h, "<td><code>");
			strbuf_add_html(h, s[i]);
			strbuf_addstr(h, "</code></td>");
		}
		strbuf_addstr(h, "<td><code>");
		strbuf_add_html(h, s[2]);
		strbuf_addstr(h, "</code> &rarr; <code>");
		strbuf_add_html(h, s[3]);
		strbuf_addf(h, "</code> (%s)</td><td>%.4g at the largest point, %.4g at twice it</td></tr>\n",
			    !g->leading_changed ? "unchanged" : g->leading_grew ? "grew" : "changed",
			    g->ratio, g->ratio_2x);
		for (int i = 0; i < 4; i++)
			free(s[i]);
	}
	strbuf_addstr(h, "</table>\n");
}

int compare_report_html(const char *path, const struct compare *c, const char *base, const char *new,
			struct perr *err)
{
	struct strbuf h;
	strbuf_init(&h);
	strbuf_addf(&h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perfsweep "
		    "compare</title><style>%s</style></head><body>\n<h1>perfsweep compare</h1>\n", css);
	int v = compare_verdict(c);
	strbuf_addf(&h, "<p>Verdict: <span class=\"%s\">%s</span> &mdash; %d regressions, %d improvements, "
		    "%d unchanged; regions: %d regressions, %d scaling regressions, %d not resolved."
		    "</p>\n<table><tr><th>base</th><td>",
		    v ? "blocked" : "publishable", v == COMPARE_OK ? "no regression" : compare_verdict_name(v), c->nregressions,
		    c->nimprovements, c->nunchanged, c->nregion_regressions, c->nmodel_regressions,
		    c->nnot_compared);
	strbuf_add_html(&h, base);
	strbuf_addstr(&h, "</td></tr><tr><th>new</th><td>");
	strbuf_add_html(&h, new);
	strbuf_addf(&h, "</td></tr><tr><th>common points</th><td>%d</td></tr><tr><th>thresholds</th><td>"
		    "tolerance %g%%, alpha %g per point (Mann-Whitney; Hodges-Lehmann interval at %g%%)</td></tr>"
		    "</table>\n", c->npoints, 100 * c->opt.tolerance, c->opt.alpha, 100 * (1 - c->opt.alpha));
	if (c->nunreachable)
		strbuf_addf(&h, "<p>%d points cannot reach p &lt; %g with their repetitions (Mann-Whitney "
			    "needs 5 + 5 for 0.01).</p>\n", c->nunreachable, c->opt.alpha);
	html_inputs(&h, c);
	html_points(&h, c);
	html_models(&h, c);
	strbuf_addstr(&h, "</body></html>\n");
	int wbad = fs_write_file(path, h.buf, h.len);
	int e = errno;
	strbuf_release(&h);
	return wbad ? perr_set(err, "cannot write '%s': %s", path, strerror(e)) : 0;
}
