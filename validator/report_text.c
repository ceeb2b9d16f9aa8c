/* The text validity report: one line per flag, then the verdict. */
#include "validator/report.h"
#include <math.h>

void report_context_init(struct report_context *c)
{
	c->title = "perfsweep validity report";
	c->input = NULL;
	c->deps_path = NULL;
	c->placements = NULL;
	c->core_hours_planned = NAN;
	c->core_hours_spent = NAN;
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
		break;
	}
}

void report_text(FILE *f, const struct validation *v)
{
	const struct experiment *e = v->e;
	for (int i = 0; i < v->nflags; i++) {
		const struct vflag *fl = &v->flags[i];
		const struct vregion *r = &v->regions[fl->region];
		fprintf(f, "%-8s %s [%s] %s: ", fl->blocking ? "BLOCKING" : "warning",
			e->callpaths[r->callpath], e->metrics[r->metric], vflag_kind_name(fl->kind));
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
	if (nunreliable)
		fprintf(f, "; %d unreliable region%s not modelled", nunreliable, nunreliable == 1 ? "" : "s");
	fputs(")\n", f);
}
