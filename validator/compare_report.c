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

/* Why a grown leading term is not a scaling regression. */
static const char *unconfirmed_reason(const struct compare *c, const struct compare_region *g)
{
	const struct compare_point *top = g->top >= 0 ? &c->points[g->top] : NULL;
	if (!(g->ratio_2x > 1 + c->opt.tolerance))
		return "the predicted ratio at twice the largest point is within the tolerance";
	if (!top)
		return "the largest common point has no values in this region";
	if (!top->reachable)
		return "the largest point's repetitions cannot reach p < alpha; add repetitions";
	return "the largest point is not significantly slower";
}

static void text_model(FILE *f, const struct compare *c, const struct compare_region *g)
{
	fprintf(f, "%s [%s]\n", g->callpath, g->metric);
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
	if (g->leading_grew && !g->regression)
		fprintf(f, "  not a scaling regression: %s\n", unconfirmed_reason(c, g));
	strbuf_release(&pt);
}

void compare_report_text(FILE *f, const struct compare *c, const char *base, const char *new)
{
	fprintf(f, "base: %s\nnew:  %s\n%d common points; tolerance %g%%, alpha %g per point "
		"(Mann-Whitney, Hodges-Lehmann interval at %g%%)\n\n", base, new, c->npoints,
		100 * c->opt.tolerance, c->opt.alpha, 100 * (1 - c->opt.alpha));
	fprintf(f, "%-11s %-24s %-8s %-16s %11s %11s  %-26s %8s\n", "status", "region", "metric", "point",
		"base median", "new median", "change [interval]", "p");
	for (int s = 1; s <= 3; s++)
		for (int i = 0; i < c->ncmp; i++)
			if ((int)c->points[i].status == s % 3)
				text_point(f, c, &c->points[i]);
	fputs("\nmodels (median of the repetitions):\n", f);
	for (int r = 0; r < c->nregions; r++)
		text_model(f, c, &c->regions[r]);
	fprintf(f, "\n%d regressions, %d improvements, %d unchanged", c->nregressions, c->nimprovements,
		c->nunchanged);
	if (c->nmodel_regressions)
		fprintf(f, "; %d scaling regressions", c->nmodel_regressions);
	fputc('\n', f);
	if (c->nunreachable)
		fprintf(f, "note: %d points cannot reach p < %g with their repetitions "
			"(Mann-Whitney needs 5 + 5 for 0.01, 4 + 4 for 0.05)\n", c->nunreachable, c->opt.alpha);
	if (c->only_base || c->only_new)
		fprintf(f, "note: %d region/metric pairs only in base, %d only in new (not compared)\n",
			c->only_base, c->only_new);
	if (!compare_verdict(c) && c->nunreachable)
		fprintf(f, "verdict: no regression, but %d points could not have shown one at alpha %g\n",
			c->nunreachable, c->opt.alpha);
	else
		fprintf(f, "verdict: %s\n", compare_verdict(c) ? "regression" : "no regression");
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

static json_t *model_json(const struct compare *c, const struct compare_region *g)
{
	json_t *o = json_object(), *x = json_object();
	json_object_set_new(o, "callpath", json_string(g->callpath));
	json_object_set_new(o, "metric", json_string(g->metric));
	json_object_set_new(o, "base", side_json(g, 0));
	json_object_set_new(o, "new", side_json(g, 1));
	json_object_set_new(o, "leading_term_changed", json_boolean(g->leading_changed));
	json_object_set_new(o, "predicted_ratio", num(g->ratio));
	json_object_set_new(o, "leading_term_grew", json_boolean(g->leading_grew));
	json_object_set_new(o, "predicted_ratio_2x", num(g->ratio_2x));
	for (int k = 0; k < c->nparams; k++)
		json_object_set_new(x, c->params[k], json_real(c->largest[k]));
	json_object_set_new(o, "largest_point", x);
	json_object_set_new(o, "scaling_regression", json_boolean(g->regression));
	if (g->leading_grew && !g->regression)
		json_object_set_new(o, "not_confirmed", json_string(unconfirmed_reason(c, g)));
	if (g->fit_error)
		json_object_set_new(o, "error", json_string(g->fit_error));
	return o;
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
	json_object_set_new(o, "verdict", json_string(compare_verdict(c) ? "regression" : "ok"));
	json_object_set_new(o, "base", json_string(base));
	json_object_set_new(o, "new", json_string(new));
	json_object_set_new(o, "tolerance", json_real(c->opt.tolerance));
	json_object_set_new(o, "alpha", json_real(c->opt.alpha));
	json_object_set_new(o, "common_points", json_integer(c->npoints));
	json_object_set_new(o, "unreachable", json_integer(c->nunreachable));
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

static void html_models(struct strbuf *h, const struct compare *c)
{
	strbuf_addstr(h, "<h2>Models</h2>\n<table><tr><th>region</th><th>metric</th><th>base</th><th>new</th>"
		      "<th>leading term</th><th>predicted new/base</th></tr>\n");
	for (int r = 0; r < c->nregions; r++) {
		const struct compare_region *g = &c->regions[r];
		strbuf_addf(h, "<tr class=\"%s\"><td><code>", g->regression ? "blk" : "");
		strbuf_add_html(h, g->callpath);
		strbuf_addstr(h, "</code></td><td>");
		strbuf_add_html(h, g->metric);
		strbuf_addstr(h, "</td>");
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
	int bad = compare_verdict(c) != 0;
	strbuf_addf(&h, "<p>Verdict: <span class=\"%s\">%s</span> &mdash; %d regressions, %d improvements, "
		    "%d unchanged, %d scaling regressions.</p>\n<table><tr><th>base</th><td>",
		    bad ? "blocked" : "publishable", bad ? "regression" : "no regression", c->nregressions,
		    c->nimprovements, c->nunchanged, c->nmodel_regressions);
	strbuf_add_html(&h, base);
	strbuf_addstr(&h, "</td></tr><tr><th>new</th><td>");
	strbuf_add_html(&h, new);
	strbuf_addf(&h, "</td></tr><tr><th>common points</th><td>%d</td></tr><tr><th>thresholds</th><td>"
		    "tolerance %g%%, alpha %g per point (Mann-Whitney; Hodges-Lehmann interval at %g%%)</td></tr>"
		    "</table>\n", c->npoints, 100 * c->opt.tolerance, c->opt.alpha, 100 * (1 - c->opt.alpha));
	if (c->nunreachable)
		strbuf_addf(&h, "<p>%d points cannot reach p &lt; %g with their repetitions (Mann-Whitney "
			    "needs 5 + 5 for 0.01).</p>\n", c->nunreachable, c->opt.alpha);
	html_points(&h, c);
	html_models(&h, c);
	strbuf_addstr(&h, "</body></html>\n");
	int wbad = fs_write_file(path, h.buf, h.len);
	int e = errno;
	strbuf_release(&h);
	return wbad ? perr_set(err, "cannot write '%s': %s", path, strerror(e)) : 0;
}
