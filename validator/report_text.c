/* The text validity report: one line per flag, notes and warnings, the checks, the verdict. */
#include "validator/report.h"
#include "common/strbuf.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_context_init(struct report_context *c)
{
	c->title = "perfsweep validity report";
	c->input = NULL;
	c->deps_path = NULL;
	c->placements = NULL;
	c->resources = NULL;
	c->core_hours_planned = NAN;
	c->core_hours_spent = NAN;
	c->budget_core_hours = NAN;
	c->gnuplot = NULL;
}

/* The key figure of a flag, e.g. "+48% over ranks_per_node, p=2e-07". */
static void key_figure(FILE *f, const struct validation *v, const struct vflag *fl)
{
	const struct vregion *r = &v->regions[fl->region];
	const char *pn = fl->param >= 0 ? v->e->params[fl->param] : NULL;
	switch (fl->kind) {
	case VFLAG_NOISE:
		fprintf(f, "%d/%d points CoV > %g, max %.3g", r->noise.nnoisy, r->noise.nmeasured,
			v->opt.cov_threshold, r->noise.max_cov);
		break;
	case VFLAG_SEGMENTED:
		fprintf(f, "change between %s=%g and %g, p=%.2g", pn, r->segment[fl->param].x_before,
			r->segment[fl->param].x_after, fl->p_value);
		break;
	case VFLAG_FALSE_DEPENDENCY:
		fprintf(f, "uses %s, cause %s", pn, fl->cause);
		if (!isnan(fl->growth))
			fprintf(f, ", %+.0f%% over %s", 100 * fl->growth, pn);
		break;
	default:
		fprintf(f, "%+.0f%% over %s, p=%.2g", 100 * fl->growth, pn, fl->p_value);
		if (!isnan(fl->share_first) && !isnan(fl->share_last))
			fprintf(f, ", CPU share %.2f -> %.2f", fl->share_first, fl->share_last);
		break;
	}
}

/* "run 12 at n=4 (rank 0 CPU share 0.49)" */
static void disturbed_run_text(struct strbuf *sb, const struct validation *v, const struct disturbed_run *d)
{
	strbuf_addf(sb, "run %lld", d->run);
	if (d->point >= 0) {
		strbuf_addstr(sb, " at ");
		validate_point_name(sb, v->e, d->point);
	}
	strbuf_addstr(sb, " (");
	disturbed_reason(sb, v->disturbed.res, d);
	strbuf_addch(sb, ')');
}

/* The disturbed check: a shared machine, the points to re-measure, the runs left out. */
static void disturbed_lines(FILE *f, const struct validation *v)
{
	const struct vdisturbed *d = &v->disturbed;
	const struct disturbed_result *res = d->res;
	if (!res)
		return;
	struct strbuf sb;
	strbuf_init(&sb);
	if (d->shared)
		fprintf(f, "BLOCKING disturbed: %d of %d runs (%.0f%%): the machine was shared; re-measure on a "
			"quiet or exclusive node\n", res->n, res->njudged, 100.0 * res->n / res->njudged);
	if (d->nremeasure) {
		for (int p = 0, k = 0; p < v->e->npoints; p++) {
			if (!d->remeasure[p])
				continue;
			if (k++ == 8) {
				strbuf_addstr(&sb, ", ...");
				break;
			}
			strbuf_addstr(&sb, k > 1 ? ", " : "");
			validate_point_name(&sb, v->e, p);
			strbuf_addf(&sb, " (%d of %d undisturbed)", d->kept[p], d->kept[p] + d->per_point[p]);
		}
		fprintf(f, "BLOCKING disturbed: too few undisturbed repetitions left at %d point%s: re-measure %s\n",
			d->nremeasure, d->nremeasure == 1 ? "" : "s", sb.buf);
		strbuf_reset(&sb);
	}
	for (int i = 0; i < res->n && i < 8; i++) {
		strbuf_addstr(&sb, i ? "; " : "");
		disturbed_run_text(&sb, v, &res->runs[i]);
	}
	if (res->n)
		fprintf(f, "note     disturbed: %d of %d runs left out of the models: %s%s\n", res->n, res->njudged,
			sb.buf, res->n > 8 ? "; ..." : "");
	else if (res->rule.min_cpu_share > 0)
		fprintf(f, "info     disturbed: none of %d runs (other programs took at most %g of any rank's cores%s)\n",
			res->njudged, 1 - res->rule.min_cpu_share,
			res->ncensus < res->njudged ? "; runs without the census: involuntary context switches within "
						       "10x the median" : "");
	else
		fprintf(f, "info     disturbed: none of %d runs (time taken by other programs not judged: "
			"analysis.min_cpu_share = 0)\n", res->njudged);
	strbuf_release(&sb);
}

/* One note per region with outlying repetitions: count, values, where. */
static void outlier_notes(FILE *f, const struct validation *v)
{
	const struct experiment *e = v->e;
	for (int i = 0; i < v->nregions; i++) {
		const struct vregion *r = &v->regions[i];
		const struct noise_result *n = &r->noise;
		if (!n->noutliers)
			continue;
		struct strbuf sb;
		strbuf_init(&sb);
		for (int k = 0; k < n->noutliers && k < 8; k++) {
			const struct noise_outlier *o = &n->outliers[k];
			strbuf_addstr(&sb, k ? "; " : "");
			validate_point_name(&sb, e, o->point);
			strbuf_addf(&sb, ": %.4g, %.2gx the median (repetition %d of %d)", o->value, o->ratio,
				    o->rep + 1, o->nreps);
		}
		fprintf(f, "note     %s [%s] %d outlier%s at %s%s; left out of the model, rerun %s\n",
			e->callpaths[r->callpath], e->metrics[r->metric], n->noutliers,
			n->noutliers == 1 ? "" : "s", sb.buf, n->noutliers > 8 ? "; ..." : "",
			n->noutliers == 1 ? "it" : "them");
		strbuf_release(&sb);
	}
}

/* Warnings from the checks: unstable extrapolation, contention that could not be tested. */
static void check_warnings(FILE *f, const struct validation *v)
{
	const struct experiment *e = v->e;
	for (int i = 0; i < v->nchecks; i++) {
		const struct vcheck *c = &v->checks[i];
		const struct vregion *r = &v->regions[c->region];
		int unstable = !strcmp(c->check, "extrapolation") && c->status == VCHECK_FLAGGED;
		int untested = !strcmp(c->check, "contention") && c->status == VCHECK_NOT_TESTABLE;
		if (unstable || untested)
			fprintf(f, "warning  %s [%s] %s: %s\n", e->callpaths[r->callpath],
				e->metrics[r->metric], unstable ? "extrapolation" : "contention not testable",
				c->reason);
	}
}

/* Every contention test that ran in a modelled region: growth, p-value, the smallest growth flagged. */
static void contention_notes(FILE *f, const struct validation *v)
{
	const struct experiment *e = v->e;
	for (int i = 0; i < v->nchecks; i++) {
		const struct vcheck *c = &v->checks[i];
		const struct vregion *r = &v->regions[c->region];
		if (!strcmp(c->check, "contention") && c->status != VCHECK_NOT_TESTABLE)
			fprintf(f, "info     %s [%s] contention along %s %s: %s\n", e->callpaths[r->callpath],
				e->metrics[r->metric], e->params[c->param], vcheck_status_name(c->status), c->reason);
	}
}

/* The table of checks: one row per region, one column per check. */
static void checks_table(FILE *f, const struct validation *v)
{
	static const char *const cols[] = { "noise", "contention", "false-dependency", "segmented",
					     "volume", "extrapolation" };
	if (!v->nchecks)
		return;
	fprintf(f, "checks (+ passed, ! flagged, ? not testable, - not run):\n");
	fprintf(f, "  %-6s %-10s %-16s %-9s %-6s %-13s region\n", "noise", "contention",
		"false-dep", "segmented", "volume", "extrapolation");
	for (int ri = 0; ri < v->nregions; ri++) {
		const struct vregion *r = &v->regions[ri];
		fputs("  ", f);
		for (int c = 0; c < 6; c++) {
			char cell[32] = "";
			size_t n = 0;
			for (int i = 0; i < v->nchecks && n + 2 < sizeof(cell); i++)
				if (v->checks[i].region == ri && !strcmp(v->checks[i].check, cols[c]))
					cell[n++] = "+!?"[v->checks[i].status];
			if (!n)
				cell[n++] = '-';
			cell[n] = 0;
			static const int width[] = { 6, 10, 16, 9, 6, 13 };
			fprintf(f, "%-*s ", width[c], cell);
		}
		fprintf(f, "%s [%s]\n", v->e->callpaths[r->callpath], v->e->metrics[r->metric]);
	}
}

void report_text(FILE *f, const struct validation *v)
{
	const struct experiment *e = v->e;
	for (int i = 0; i < v->nflags; i++) {
		const struct vflag *fl = &v->flags[i];
		const struct vregion *r = &v->regions[fl->region];
		int located = fl->kind == VFLAG_SEGMENTED && !fl->blocking;
		fprintf(f, "%-8s %s [%s] %s%s: ", fl->blocking ? "BLOCKING" : located ? "result" : "warning",
			e->callpaths[r->callpath], e->metrics[r->metric], vflag_kind_name(fl->kind),
			located ? " (located)" : "");
		if (r->small)
			fprintf(f, "%.2g%% of the %s, under analysis.min_share %g: not blocking; ", 100 * r->share,
				e->metrics[r->metric], v->opt.min_share);
		key_figure(f, v, fl);
		fprintf(f, "\n         %s\n", fl->detail);
	}
	/* excluded parameters too small to flag: listed, so that every one is reported */
	for (int i = 0; i < v->nregions; i++) {
		const struct vregion *r = &v->regions[i];
		for (int k = 0; k < r->nexcluded; k++)
			if (!r->excluded[k].flagged)
				fprintf(f, "info     %s [%s] black-box uses %s (excluded by the dependencies), "
					"changing it by %.1f%% at most: noise, below %.0f%%; not flagged\n",
					e->callpaths[r->callpath], e->metrics[r->metric],
					e->params[r->excluded[k].param], 100 * r->excluded[k].effect,
					100 * v->opt.min_growth);
	}
	disturbed_lines(f, v);
	outlier_notes(f, v);
	check_warnings(f, v);
	contention_notes(f, v);
	for (int i = 0; i < v->nregions; i++) {
		const struct vregion *r = &v->regions[i];
		if (r->expected.tested && r->expected.consistent)
			fprintf(f, "info     %s [%s] consistent with the expected volume (%s): %.4g + %.4g * "
				"expect (p=%.2g)\n", e->callpaths[r->callpath], e->metrics[r->metric],
				r->func->expect, r->expected.c0, r->expected.c1, r->expected.p_value);
	}
	checks_table(f, v);
	const struct contention_summary *cs = &v->study;
	if (cs->param >= 0 && cs->ntested) {
		fprintf(f, "contention study: %d of %d regions grow significantly with %s", cs->nincreasing,
			cs->ntested, e->params[cs->param]);
		if (cs->program_region >= 0)
			fprintf(f, "; whole program (%s) %+.0f%% from %s=%g to %g (%.4g -> %.4g, p=%.2g)",
				e->callpaths[v->regions[cs->program_region].callpath], 100 * cs->program_growth,
				e->params[cs->param], cs->xmin, cs->xmax, cs->program_first, cs->program_last,
				cs->program_p);
		fputc('\n', f);
	}
	int nflagged = 0, nunreliable = 0;
	for (int i = 0; i < v->nregions; i++) {
		nflagged += v->regions[i].nflags > 0;
		nunreliable += v->regions[i].noise.unreliable;
	}
	fprintf(f, "verdict: %s (%d regions checked, %d flagged, %d flags, %d blocking",
		validation_publishable(v) ? "publishable" : "blocked", v->nregions, nflagged, v->nflags,
		v->nblocking);
	fprintf(f, "; selection %s, aggregate %s", model_selection_name(v->opt.model.selection),
		model_aggregate_name(v->opt.model.aggregate));
	if (nunreliable)
		fprintf(f, "; %d unreliable region%s not modelled", nunreliable, nunreliable == 1 ? "" : "s");
	if (v->disturbed.res && v->disturbed.res->n)
		fprintf(f, "; %d of %d runs disturbed, left out%s", v->disturbed.res->n, v->disturbed.res->njudged,
			v->disturbed.shared ? ": the machine was shared, re-measure on a quiet or exclusive node" : "");
	fputs(")\n", f);
}
