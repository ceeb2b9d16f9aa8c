/* Where the lines sit: anchors by cost and noise (anchor.h). */
#include "designs/anchor.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/expr.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ANCHOR_PASSES 4
#define ANCHOR_MIN_GAIN 1.25

/* The lines through one set of anchors, as the choice weighs them. */
struct figure {
	double loginfo;         /* summed log of each line's information */
	int nlines;
	double cost;            /* core-seconds of one run of every line point */
	double lo, hi;          /* shortest and longest run, seconds */
	int below;              /* runs under the floor */
};

/* Line k through the anchors base into f. */
static void line_figure(const struct anchor_input *in, const int *base, int k, double *v, double *u,
			struct figure *f)
{
	const struct design_spec *s = in->s;
	const struct plan_param *p = &s->params[k];
	double mean = 0, info = 0;
	for (int i = 0; i < p->nvalues; i++) {
		for (int j = 0; j < s->nparams; j++)
			v[j] = s->params[j].values[base[j]];
		v[k] = p->values[i];
		double t = expr_eval(in->cost, v);
		t = t > 1e-12 ? t : 1e-12;
		u[i] = log(t);
		mean += u[i] / p->nvalues;
		f->cost += t * in->resources(in->ctx, v);
		f->lo = fmin(f->lo, t);
		f->hi = fmax(f->hi, t);
		f->below += t < in->floor;
		u[p->nvalues + i] = 1 / (1 + (in->floor / t) * (in->floor / t));
	}
	for (int i = 0; i < p->nvalues; i++)
		info += (u[i] - mean) * (u[i] - mean) * u[p->nvalues + i];
	f->loginfo += log(info > 1e-12 ? info : 1e-12);     /* below: no variation, only rounding */
	f->nlines++;
}

/* Every modelled parameter's line through base. */
static void figure_of(const struct anchor_input *in, const int *base, struct figure *f)
{
	const struct design_spec *s = in->s;
	int most = 1;
	for (int k = 0; k < s->nparams; k++)
		most = s->params[k].nvalues > most ? s->params[k].nvalues : most;
	double *v = xmalloc(sizeof(double) * (size_t)(s->nparams + 1));
	double *u = xmalloc(sizeof(double) * (size_t)(2 * most + 1));
	*f = (struct figure){ 0, 0, 0, INFINITY, 0, 0 };
	for (int k = 0; k < s->nparams; k++)
		if (in->modelled[k])
			line_figure(in, base, k, v, u, f);
	free(v);
	free(u);
}

/* The log of the lines' geometric mean information per core-second, or -inf
   when the lines do not fit the budget at min_repetitions. */
static double worth(const struct anchor_input *in, const struct figure *f)
{
	double budget = in->s->budget_core_hours;
	if (budget > 0 && f->cost * in->min_repetitions / 3600.0 > budget * (1 + 1e-9))
		return -INFINITY;
	return f->nlines && f->cost > 0 ? f->loginfo / f->nlines - log(f->cost) : -INFINITY;
}

/* "anchors n=140, i=6 (not 100, 2): ..." for the parameters that moved. */
static char *explain(const struct anchor_input *in, const int *from, const int *to,
		     const struct figure *f0, const struct figure *f1, double gain)
{
	const struct design_spec *s = in->s;
	struct strbuf sb, was;
	strbuf_init(&sb);
	strbuf_init(&was);
	strbuf_addstr(&sb, "lines anchored at ");
	for (int k = 0, n = 0; k < s->nparams; k++) {
		if (from[k] == to[k])
			continue;
		char a[32], b[32];
		value_text(a, sizeof(a), s->params[k].values[to[k]]);
		value_text(b, sizeof(b), s->params[k].values[from[k]]);
		strbuf_addf(&sb, "%s%s=%s", n ? ", " : "", s->params[k].name, a);
		strbuf_addf(&was, "%s%s", n++ ? ", " : "", b);
	}
	strbuf_addf(&sb, " (not the smallest, %s): %.2gx the information about the laws per core-hour "
		    "(est. %.3g-%.3g s per run, %d below min_run_seconds %g s; at the smallest values "
		    "%.3g-%.3g s, %d below)", was.buf, gain, f1->lo, f1->hi, f1->below, in->floor, f0->lo,
		    f0->hi, f0->below);
	strbuf_release(&was);
	return strbuf_detach(&sb);
}

char *anchor_choose(const struct anchor_input *in, int *base)
{
	const struct design_spec *s = in->s;
	int n = s->nparams, nmod = 0;
	for (int k = 0; k < n; k++)
		nmod += in->modelled[k] != 0;
	if (nmod < 2)
		return NULL;    /* one line: nothing else sits on an anchor */
	int *from = xmalloc(sizeof(int) * (size_t)n), *trial = xmalloc(sizeof(int) * (size_t)n);
	memcpy(from, base, sizeof(int) * (size_t)n);
	struct figure f0, f;
	figure_of(in, base, &f0);
	double best = worth(in, &f0), start = best;
	for (int pass = 0, changed = 1; pass < ANCHOR_PASSES && changed && isfinite(best); pass++) {
		changed = 0;
		for (int j = 0; j < n; j++) {
			if (!in->modelled[j] || in->fixed[j])
				continue;
			for (int i = 0; i < s->params[j].nvalues; i++) {
				memcpy(trial, base, sizeof(int) * (size_t)n);
				trial[j] = i;
				figure_of(in, trial, &f);
				double w = worth(in, &f);
				if (w > best + 1e-9) {
					best = w;
					base[j] = i;
					changed = 1;
				}
			}
		}
	}
	char *why = NULL;
	if (!(best - start >= log(ANCHOR_MIN_GAIN)))   /* not worth leaving the smallest values */
		memcpy(base, from, sizeof(int) * (size_t)n);
	if (memcmp(from, base, sizeof(int) * (size_t)n)) {
		figure_of(in, base, &f);
		why = explain(in, from, base, &f0, &f, exp(best - start));
	}
	free(from);
	free(trial);
	return why;
}
