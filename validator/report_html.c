/*
 * The HTML validity report: a self-contained page (inline CSS and SVG) with
 * the verdict, the campaign's cost and budget, the contention study plotted
 * along its axis with the model in that axis, the flags, the table of
 * checks, the placements, and for every region one plot per parameter
 * (its longest line): the repetitions, the point estimates, the outlying
 * repetitions, the model and the constrained model (and, for a segmented
 * line, the model on each side).  gnuplot runs with fork/exec, never
 * through a shell.
 */
#include "common/fsutil.h"
#include "common/run_command.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "collectors/region_match.h"
#include "validator/report.h"
#include "validator/vline.h"
#include "models/points.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void html_escape(struct strbuf *sb, const char *s)
{
	strbuf_add_html(sb, s);
}

/* A gnuplot single-quoted string: '' stands for one quote. */
static void gp_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; s && *s; s++) {
		if (*s == '\'')
			strbuf_addch(sb, '\'');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

/* Run gnuplot on script; its messages go to errfile.  Returns 0 or -1 with err. */
static int run_gnuplot(const char *gnuplot, const char *script, const char *errfile, struct perr *err)
{
	char *argv[] = { (char *)gnuplot, (char *)script, NULL };
	struct child_process cp = { .argv = argv, .in = "/dev/null", .out = errfile, .err_to_out = 1 };
	if (start_command(&cp) < 0)
		return perr_set(err, "gnuplot failed: cannot run '%s': %s", gnuplot, strerror(errno));
	if (finish_command(&cp) < 0)
		return perr_set(err, "waiting for gnuplot: %s", strerror(errno));
	int status = cp.status;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	struct strbuf msg;
	strbuf_init(&msg);
	strbuf_read_file(&msg, errfile);
	if (msg.len && msg.buf[msg.len - 1] == '\n')
		msg.buf[--msg.len] = 0;
	for (char *p = msg.buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	int rc = perr_set(err, "gnuplot failed%s%s", msg.len ? ": " : "", msg.buf);
	strbuf_release(&msg);
	return rc;
}

/* The line a flag's plot follows: the longest along param (first of the longest). */
static int pick_line(const struct experiment *e, const struct exp_series *s, int param,
		     struct vline *out)
{
	struct vline *lines;
	int n = vlines_find(e, param, &lines);
	int best = -1, bestn = 0;
	for (int l = 0; l < n; l++) {
		int m = 0;
		for (int i = 0; i < lines[l].npoints; i++)
			m += s->at[lines[l].points[i]].n > 0;
		if (m > bestn) {
			bestn = m;
			best = l;
		}
	}
	if (best >= 0) {
		*out = lines[best];
		lines[best].points = NULL;
	}
	vlines_free(lines, n);
	return best >= 0;
}

struct curve {
	const struct pmnf_model *m;
	const char *what, *style;
	int one;                /* a one-parameter model (of the line's parameter) */
	double a, b;            /* x range */
};

/* Sample a model along the line (other coordinates from base) into the data file. */
static void write_curve(FILE *f, const struct pmnf_model *m, const double *base, int nparams,
			int param, double x0, double x1, int one_param)
{
	double c[16];
	for (int i = 0; i <= 100; i++) {
		double x = x0 + (x1 - x0) * i / 100.0;
		double y;
		if (one_param) {
			y = pmnf_eval(m, &x);
		} else {
			memcpy(c, base, sizeof(double) * (size_t)nparams);
			c[param] = x;
			y = pmnf_eval(m, c);
		}
		if (isfinite(y))
			fprintf(f, "%.17g %.17g\n", x, y);
	}
	fputs("\n\n", f);
}

/* One plot: its files, the line it follows and the gnuplot command being built. */
struct plot {
	const struct validation *v;
	const struct vregion *r;
	const struct exp_series *s;
	int param;
	int study;              /* the contention study: the model in the study axis */
	struct vline line;
	char *data, *script, *out, *errf;
	FILE *f;
	struct strbuf cmd;
	int nblocks;
	double x0, x1;
};

/* The x range of the line's points with values. */
static void line_range(struct plot *p)
{
	p->x0 = INFINITY;
	p->x1 = -INFINITY;
	for (int i = 0; i < p->line.npoints; i++)
		if (p->s->at[p->line.points[i]].n) {
			double x = experiment_coord(p->v->e, p->line.points[i], p->param);
			p->x0 = fmin(p->x0, x);
			p->x1 = fmax(p->x1, x);
		}
}

/*
 * The study plot's points: per value of the study axis, the mean over every
 * line of the point estimates, the level the model in that axis describes
 * (validator/contention.h).  Blocks 0 and 2 stay empty.
 */
static void plot_study_points(struct plot *p)
{
	const struct experiment *e = p->v->e;
	double scov = point_series_cov(p->s->at, e->npoints);
	enum point_side side = point_side_of_series(e, p->s);
	fputs("0 NaN\n\n\n", p->f);
	for (int i = 0; i < p->line.npoints; i++) {
		double x = experiment_coord(e, p->line.points[i], p->param), sum = 0;
		int n = 0;
		for (int q = 0; q < e->npoints; q++) {
			if (!p->s->at[q].n || experiment_coord(e, q, p->param) != x)
				continue;
			struct point_estimate pe;
			point_estimate(&p->s->at[q], p->v->opt.model.aggregate, 1, scov, side, &pe);
			sum += pe.value;
			n++;
		}
		if (n)
			fprintf(p->f, "%.17g %.17g\n", x, sum / n);
	}
	fputs("\n\n0 NaN\n\n\n", p->f);
	strbuf_addstr(&p->cmd, "plot ");
	gp_quote(&p->cmd, p->data);
	strbuf_addstr(&p->cmd, " index 1 using 1:2 with points pt 5 ps 0.8 lc rgb '#000000' title 'mean over the lines'");
	p->nblocks = 3;
}

/* Data blocks 0-2: repetitions, point estimates, outlying repetitions. */
static void plot_points(struct plot *p)
{
	const struct experiment *e = p->v->e;
	const struct noise_result *nr = &p->r->noise;
	enum model_aggregate how = p->v->opt.model.aggregate;
	double scov = point_series_cov(p->s->at, e->npoints);
	enum point_side side = point_side_of_series(e, p->s);
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < p->line.npoints; i++) {
			int pt = p->line.points[i];
			const struct exp_values *ev = &p->s->at[pt];
			double x = experiment_coord(e, pt, p->param);
			if (!ev->n)
				continue;
			if (pass == 0)
				for (int k = 0; k < ev->n; k++)
					fprintf(p->f, "%.17g %.17g\n", x, ev->v[k]);
			if (pass == 1) {
				struct point_estimate pe;
				point_estimate(ev, how, 1, scov, side, &pe);
				fprintf(p->f, "%.17g %.17g\n", x, pe.value);
			}
			for (int k = 0; pass == 2 && k < nr->noutliers; k++)
				if (nr->outliers[k].point == pt)
					fprintf(p->f, "%.17g %.17g\n", x, nr->outliers[k].value);
		}
		fputs(pass == 2 ? "0 NaN\n\n\n" : "\n\n", p->f);
	}
	strbuf_addstr(&p->cmd, "plot ");
	gp_quote(&p->cmd, p->data);
	strbuf_addstr(&p->cmd, " index 0 using 1:2 with points pt 7 ps 0.4 lc rgb '#999999' title 'repetitions', \\\n  ");
	gp_quote(&p->cmd, p->data);
	strbuf_addf(&p->cmd, " index 1 using 1:2 with points pt 5 ps 0.8 lc rgb '#000000' title 'point estimate (%s)', \\\n  ",
		    model_aggregate_name(how));
	gp_quote(&p->cmd, p->data);
	strbuf_addstr(&p->cmd, " index 2 using 1:2 with points pt 2 ps 1.2 lw 2 lc rgb '#d62728' title 'outliers (left out)'");
	p->nblocks = 3;
}

/* The curves of the plot: black box, constrained, the two regimes of a flagged segment. */
static void plot_curves(struct plot *p)
{
	const struct vregion *r = p->r;
	const struct experiment *e = p->v->e;
	const double *base = &e->coords[(size_t)p->line.points[0] * (size_t)e->nparams];
	struct curve curves[4];
	int nc = 0;
	if (p->study)
		curves[nc++] = (struct curve){ &r->growth[p->param].model, "model in the study axis",
					       "lw 2 lc rgb '#d62728'", 1, p->x0, p->x1 };
	else if (r->modelled)
		curves[nc++] = (struct curve){ &r->black_box, "model", "lw 2 lc rgb '#1f77b4'", 0, p->x0, p->x1 };
	if (r->has_constrained && !p->study)
		curves[nc++] = (struct curve){ &r->constrained, "constrained", "lw 2 dt 2 lc rgb '#ff7f0e'", 0, p->x0, p->x1 };
	int flagged = 0;
	for (int i = 0; i < p->v->nflags; i++)
		flagged |= &p->v->regions[p->v->flags[i].region] == r &&
			   p->v->flags[i].kind == VFLAG_SEGMENTED && p->v->flags[i].param == p->param;
	if (flagged && !p->study) {
		const struct segment_result *sr = &r->segment[p->param];
		curves[nc++] = (struct curve){ &sr->left, "left regime", "lw 2 lc rgb '#2ca02c'", 1, p->x0, sr->x_before };
		curves[nc++] = (struct curve){ &sr->right, "right regime", "lw 2 lc rgb '#9467bd'", 1, sr->x_after, p->x1 };
	}
	for (int i = 0; i < nc; i++) {
		write_curve(p->f, curves[i].m, base, e->nparams, p->param, curves[i].a, curves[i].b, curves[i].one);
		char *ms = pmnf_format(curves[i].m, 4);
		char *title = xasprintf("%s: %s", curves[i].what, ms);
		strbuf_addstr(&p->cmd, ", \\\n  ");
		gp_quote(&p->cmd, p->data);
		strbuf_addf(&p->cmd, " index %d using 1:2 with lines %s title ", p->nblocks++, curves[i].style);
		gp_quote(&p->cmd, title);
		free(ms);
		free(title);
	}
	strbuf_addch(&p->cmd, '\n');
}

/* The script's header: terminal, title, axis labels (the line's fixed coordinates). */
static void plot_header(struct plot *p, FILE *f)
{
	const struct experiment *e = p->v->e;
	const double *base = &e->coords[(size_t)p->line.points[0] * (size_t)e->nparams];
	struct strbuf hdr, xl;
	strbuf_init(&hdr);
	strbuf_init(&xl);
	strbuf_addstr(&hdr, "set terminal svg size 900,460 noenhanced font 'sans,11' background '#ffffff'\nset output ");
	gp_quote(&hdr, p->out);
	strbuf_addstr(&hdr, "\nset title ");
	char *t = xasprintf("%s [%s] along %s", region_callpath_leaf(e->callpaths[p->r->callpath]),
			    e->metrics[p->r->metric], e->params[p->param]);
	gp_quote(&hdr, t);
	free(t);
	strbuf_addstr(&xl, e->params[p->param]);
	if (p->study && e->nparams > 1)
		strbuf_addstr(&xl, "  (mean over the other parameters");
	for (int k = 0; k < e->nparams && !p->study; k++)
		if (k != p->param)
			strbuf_addf(&xl, "%s%s=%g", xl.len == strlen(e->params[p->param]) ? "  (" : ", ",
				    e->params[k], base[k]);
	if (e->nparams > 1)
		strbuf_addch(&xl, ')');
	strbuf_addstr(&hdr, "\nset xlabel ");
	gp_quote(&hdr, xl.buf);
	strbuf_addstr(&hdr, "\nset ylabel ");
	gp_quote(&hdr, e->metrics[p->r->metric]);
	strbuf_addstr(&hdr, "\nset key below left Left reverse font ',9'\nset grid\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\n");
	fputs(hdr.buf, f);
	strbuf_release(&hdr);
	strbuf_release(&xl);
}

/* Write the script, run gnuplot, read the SVG into *svg. */
static int plot_render(struct plot *p, const char *gnuplot, char **svg, struct perr *err)
{
	FILE *f = fopen(p->script, "w");
	if (!f)
		return perr_set(err, "cannot write '%s': %s", p->script, strerror(errno));
	plot_header(p, f);
	fputs(p->cmd.buf, f);
	if (fclose(f))
		return perr_set(err, "cannot write '%s': %s", p->script, strerror(errno));
	if (run_gnuplot(gnuplot, p->script, p->errf, err) < 0)
		return -1;
	struct strbuf sb;
	strbuf_init(&sb);
	if (strbuf_read_file(&sb, p->out) < 0) {
		strbuf_release(&sb);
		return perr_set(err, "gnuplot wrote no '%s'", p->out);
	}
	char *start = strstr(sb.buf, "<svg");
	*svg = xstrdup(start ? start : sb.buf);
	strbuf_release(&sb);
	return 1;
}

/* Draw region r along param (its longest line); *svg gets the SVG text, NULL when there is no line. */
static int plot_region(const struct validation *v, const struct vregion *r, int param, int study,
		       const char *dir, int n, const char *gnuplot, char **svg, struct perr *err)
{
	const struct experiment *e = v->e;
	struct plot p = { .v = v, .r = r, .param = param, .study = study };
	p.s = experiment_series(e, r->callpath, r->metric);
	*svg = NULL;
	if (!p.s || e->nparams > 16 || !pick_line(e, p.s, param, &p.line))
		return 0;
	p.data = xasprintf("%s/plot%d.dat", dir, n);
	p.script = xasprintf("%s/plot%d.gp", dir, n);
	p.out = xasprintf("%s/plot%d.svg", dir, n);
	p.errf = xasprintf("%s/plot%d.err", dir, n);
	strbuf_init(&p.cmd);
	int rc = -1;
	p.f = fopen(p.data, "w");
	if (!p.f) {
		perr_set(err, "cannot write '%s': %s", p.data, strerror(errno));
	} else {
		line_range(&p);
		if (study)
			plot_study_points(&p);
		else
			plot_points(&p);
		plot_curves(&p);
		if (fclose(p.f))
			perr_set(err, "cannot write '%s': %s", p.data, strerror(errno));
		else
			rc = plot_render(&p, gnuplot, svg, err);
	}
	unlink(p.data);
	unlink(p.script);
	unlink(p.out);
	unlink(p.errf);
	free(p.data);
	free(p.script);
	free(p.out);
	free(p.errf);
	free(p.line.points);
	strbuf_release(&p.cmd);
	return rc;
}

static void fmt_num(struct strbuf *sb, double x, const char *fmt)
{
	if (isfinite(x))
		strbuf_addf(sb, fmt, x);
	else
		strbuf_addstr(sb, "&ndash;");
}

static const char css[] =
	"body{font-family:sans-serif;max-width:70em;margin:2em auto;color:#222}"
	"table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;"
	"text-align:left;vertical-align:top}th{background:#f0f0f0}.blocked{color:#b00;font-weight:bold}"
	".publishable{color:#070;font-weight:bold}.blk{background:#fdd}.warn{background:#ffd}"
	"pre{background:#f6f6f6;padding:.6em;overflow:auto}.region{margin-top:2em;border-top:1px solid #ccc}"
	"code{font-size:90%}.ok{color:#070}.na{color:#888}td .blk{color:#b00;font-weight:bold}"
	"svg{max-width:100%;height:auto}";

/* Title, verdict and the summary table (budget only when the store has one). */
static void html_summary(struct strbuf *h, const struct validation *v, const struct report_context *c)
{
	const struct experiment *e = v->e;
	strbuf_addstr(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
	html_escape(h, c->title);
	strbuf_addf(h, "</title><style>%s</style></head><body>\n<h1>", css);
	html_escape(h, c->title);
	strbuf_addstr(h, "</h1>\n");
	int pub = validation_publishable(v);
	strbuf_addf(h, "<p>Verdict: <span class=\"%s\">%s</span> &mdash; %d regions checked, %d flags, "
		    "%d blocking.</p>\n", pub ? "publishable" : "blocked", pub ? "publishable" : "blocked",
		    v->nregions, v->nflags, v->nblocking);
	strbuf_addstr(h, "<table><tr><th>input</th><td>");
	html_escape(h, c->input ? c->input : "");
	strbuf_addstr(h, "</td></tr><tr><th>dependencies</th><td>");
	html_escape(h, c->deps_path ? c->deps_path : "none (no false-dependency, volume or parameter contention checks)");
	strbuf_addf(h, "</td></tr><tr><th>parameters</th><td>");
	for (int k = 0; k < e->nparams; k++) {
		strbuf_addstr(h, k ? ", " : "");
		html_escape(h, e->params[k]);
	}
	strbuf_addf(h, "</td></tr><tr><th>points</th><td>%d</td></tr>", e->npoints);
	if (isfinite(c->core_hours_planned) || isfinite(c->core_hours_spent)) {
		strbuf_addstr(h, "<tr><th>cost (core-hours)</th><td>planned ");
		fmt_num(h, c->core_hours_planned, "%.4g");
		strbuf_addstr(h, ", spent ");
		fmt_num(h, c->core_hours_spent, "%.4g");
		strbuf_addstr(h, "</td></tr>");
	}
	if (isfinite(c->budget_core_hours)) {
		strbuf_addstr(h, "<tr><th>budget (core-hours)</th><td>");
		fmt_num(h, c->budget_core_hours, "%.4g");
		strbuf_addstr(h, "</td></tr>");
	}
	strbuf_addf(h, "<tr><th>model</th><td>selection %s, point estimate %s (outliers left out)</td></tr>",
		    model_selection_name(v->opt.model.selection), model_aggregate_name(v->opt.model.aggregate));
	strbuf_addf(h, "<tr><th>thresholds</th><td>CoV %g, alpha %g, growth %g, detectable growth &le; %g, "
		    "segment lines &ge; %d points%s</td></tr></table>\n", v->opt.cov_threshold, v->opt.alpha,
		    v->opt.min_growth, v->opt.max_detectable, v->opt.segment_points, v->opt.strict ? ", strict" : "");
}

/* The disturbed check: its verdict and every run it left out. */
static void html_disturbed(struct strbuf *h, const struct validation *v)
{
	const struct vdisturbed *d = &v->disturbed;
	const struct disturbed_result *res = d->res;
	if (!res)
		return;
	strbuf_addf(h, "<h2>Disturbed runs</h2>\n<p>%d of %d runs disturbed (other programs took more than %g "
		    "of a rank's cores: foreign tasks that ran there while it waited for them, or steal time; "
		    "without the census, involuntary context switches above %gx the median of %.3g per CPU "
		    "second), left out of the models.", res->n, res->njudged, 1 - res->rule.min_cpu_share,
		    res->rule.nivcsw_factor, res->median_cpu_rate);
	if (d->shared)
		strbuf_addstr(h, " <span class=\"blocked\">The machine was shared: re-measure on a quiet or "
			      "exclusive node.</span>");
	if (d->nremeasure)
		strbuf_addf(h, " <span class=\"blocked\">%d point%s left with too few undisturbed repetitions: "
			    "re-measure them.</span>", d->nremeasure, d->nremeasure == 1 ? "" : "s");
	strbuf_addstr(h, "</p>\n");
	if (!res->n)
		return;
	strbuf_addstr(h, "<table><tr><th>run</th><th>point</th><th>repetition</th><th>rank</th>"
		      "<th>CPU share</th><th>allowed</th><th>taken by others</th><th>invol. switches/s</th>"
		      "<th>who</th><th>re-measure</th></tr>\n");
	for (int i = 0; i < res->n; i++) {
		const struct disturbed_run *r = &res->runs[i];
		struct strbuf pn;
		strbuf_init(&pn);
		if (r->point >= 0)
			validate_point_name(&pn, v->e, r->point);
		strbuf_addf(h, "<tr><td>%lld</td><td>", r->run);
		html_escape(h, pn.buf);
		strbuf_addf(h, "</td><td>%d</td><td>%s%d</td><td>%.3f</td><td>%.3g</td><td>", r->repetition,
			    r->rank < 0 ? "all of " : "", r->rank < 0 ? 0 : r->rank, r->share, r->allowed);
		fmt_num(h, r->taken, "%.2f");
		strbuf_addstr(h, "</td><td>");
		fmt_num(h, r->rate, "%.1f");
		strbuf_addstr(h, "</td><td>");
		strbuf_reset(&pn);
		disturbed_causes_text(&pn, r->causes, r->ncauses, r->ncauses);
		html_escape(h, pn.buf);
		strbuf_addf(h, "</td><td>%s</td></tr>\n", r->point >= 0 && d->remeasure[r->point] ? "yes" : "");
		strbuf_release(&pn);
	}
	strbuf_addstr(h, "</table>\n");
}

/* The region the study plot shows: the whole program, else the one growing most. */
static int study_region(const struct validation *v)
{
	const struct contention_summary *cs = &v->study;
	int best = cs->program_region;
	if (best >= 0)
		return best;
	for (int i = 0; i < v->nregions; i++)
		if (v->regions[i].modelled && v->regions[i].growth_tested && v->regions[i].growth_tested[cs->param] &&
		    (best < 0 || v->regions[i].growth[cs->param].growth >
				 v->regions[best].growth[cs->param].growth))
			best = i;
	return best;
}

/* The contention study: its summary and a region along the study axis, with the model in it. */
static int html_study(struct strbuf *h, const struct validation *v, const char *dir, int *nplots,
		      const char *gnuplot, struct perr *err)
{
	const struct experiment *e = v->e;
	const struct contention_summary *cs = &v->study;
	if (cs->param < 0 || !cs->ntested)
		return 0;
	strbuf_addf(h, "<h2>Contention study</h2>\n<p>%d of %d regions grow significantly with ",
		    cs->nincreasing, cs->ntested);
	html_escape(h, e->params[cs->param]);
	if (cs->program_region >= 0) {
		strbuf_addstr(h, "; the whole program (<code>");
		html_escape(h, e->callpaths[v->regions[cs->program_region].callpath]);
		strbuf_addf(h, "</code>) changes %+.0f%% from %g to %g (%.4g &rarr; %.4g, p=%.2g)",
			    100 * cs->program_growth, cs->xmin, cs->xmax, cs->program_first,
			    cs->program_last, cs->program_p);
	}
	int ri = study_region(v);
	strbuf_addstr(h, ".</p>\n");
	if (ri < 0)
		return 0;
	char *svg;
	if (plot_region(v, &v->regions[ri], cs->param, 1, dir, (*nplots)++, gnuplot, &svg, err) < 0)
		return -1;
	if (svg) {
		strbuf_addstr(h, svg);
		strbuf_addch(h, '\n');
		free(svg);
	}
	return 0;
}

static void html_flags(struct strbuf *h, const struct validation *v)
{
	const struct experiment *e = v->e;
	strbuf_addstr(h, "<h2>Flags</h2>\n");
	if (!v->nflags) {
		strbuf_addstr(h, "<p>No flags.</p>\n");
		return;
	}
	strbuf_addstr(h, "<table><tr><th>region</th><th>metric</th><th>kind</th><th>parameter</th>"
		      "<th>growth</th><th>p</th><th>blocks</th><th>detail</th></tr>\n");
	for (int i = 0; i < v->nflags; i++) {
		const struct vflag *f = &v->flags[i];
		const struct vregion *r = &v->regions[f->region];
		strbuf_addf(h, "<tr class=\"%s\"><td><a href=\"#r%d\"><code>", f->blocking ? "blk" : "warn",
			    f->region);
		html_escape(h, e->callpaths[r->callpath]);
		strbuf_addstr(h, "</code></a></td><td>");
		html_escape(h, e->metrics[r->metric]);
		strbuf_addf(h, "</td><td>%s</td><td>", vflag_kind_name(f->kind));
		html_escape(h, f->param >= 0 ? e->params[f->param] : "");
		strbuf_addstr(h, "</td><td>");
		if (isfinite(f->growth))
			strbuf_addf(h, "%+.1f%%", 100 * f->growth);
		strbuf_addstr(h, "</td><td>");
		if (isfinite(f->p_value))
			strbuf_addf(h, "%.2g", f->p_value);
		strbuf_addf(h, "</td><td>%s</td><td>", f->blocking ? "yes" : "no");
		html_escape(h, f->detail);
		strbuf_addstr(h, "</td></tr>\n");
	}
	strbuf_addstr(h, "</table>\n");
}

/* The checks: one row per region, one cell per check with each parameter's status. */
static void html_checks(struct strbuf *h, const struct validation *v)
{
	static const char *const cols[] = { "noise", "contention", "false-dependency", "segmented",
					     "volume", "extrapolation" };
	static const char *const cls[] = { "ok", "blk", "na" };
	if (!v->nchecks)
		return;
	strbuf_addstr(h, "<h2>Checks</h2>\n<p>Green passed, red flagged, grey not testable; hover for the "
		      "reason.</p>\n<table><tr><th>region</th>");
	for (int c = 0; c < 6; c++)
		strbuf_addf(h, "<th>%s</th>", cols[c]);
	strbuf_addstr(h, "</tr>\n");
	for (int ri = 0; ri < v->nregions; ri++) {
		strbuf_addf(h, "<tr><td><a href=\"#r%d\"><code>", ri);
		html_escape(h, region_callpath_leaf(v->e->callpaths[v->regions[ri].callpath]));
		strbuf_addstr(h, "</code></a></td>");
		for (int c = 0; c < 6; c++) {
			strbuf_addstr(h, "<td>");
			for (int i = 0; i < v->nchecks; i++) {
				const struct vcheck *k = &v->checks[i];
				if (k->region != ri || strcmp(k->check, cols[c]))
					continue;
				strbuf_addf(h, "<span class=\"%s\" title=\"", cls[k->status]);
				html_escape(h, k->reason);
				strbuf_addstr(h, "\">");
				html_escape(h, k->param >= 0 ? v->e->params[k->param] : "all");
				strbuf_addf(h, ": %s</span> ", vcheck_status_name(k->status));
			}
			strbuf_addstr(h, "</td>");
		}
		strbuf_addstr(h, "</tr>\n");
	}
	strbuf_addstr(h, "</table>\n");
}

/* A region's models, expected volume and outliers, as text. */
static void html_region_text(struct strbuf *h, const struct validation *v, const struct vregion *r)
{
	if (r->modelled) {
		char *bb = pmnf_format(&r->black_box, 4);
		strbuf_addstr(h, "black-box: <code>");
		html_escape(h, bb);
		strbuf_addf(h, "</code> (adj. R&sup2; %.4f, SMAPE %.2f%%)", r->black_box.ar2, r->black_box.smape);
		free(bb);
	} else {
		strbuf_addstr(h, "not modelled (unreliable data)");
	}
	if (r->has_constrained) {
		char *cm = pmnf_format(&r->constrained, 4);
		strbuf_addstr(h, "<br>constrained: <code>");
		html_escape(h, cm);
		strbuf_addf(h, "</code> (adj. R&sup2; %.4f, SMAPE %.2f%%)", r->constrained.ar2, r->constrained.smape);
		free(cm);
	}
	if (r->expected.tested) {
		strbuf_addf(h, "<br>expected volume <code>");
		html_escape(h, r->func->expect);
		strbuf_addf(h, "</code>: %s (%.4g + %.4g &times; expect, p=%.2g)", r->expected.consistent ?
			    "consistent" : "rejected", r->expected.c0, r->expected.c1, r->expected.p_value);
	}
	for (int i = 0; i < r->noise.noutliers; i++) {
		const struct noise_outlier *o = &r->noise.outliers[i];
		struct strbuf pn;
		strbuf_init(&pn);
		validate_point_name(&pn, v->e, o->point);
		strbuf_addstr(h, i ? "; " : "<br>outliers (left out, rerun them): ");
		html_escape(h, pn.buf);
		strbuf_addf(h, " repetition %d of %d: %.4g (%.2g&times; the median)", o->rep + 1, o->nreps,
			    o->value, o->ratio);
		strbuf_release(&pn);
	}
	for (int i = 0; i < v->nchecks; i++) {
		const struct vcheck *c = &v->checks[i];
		if (&v->regions[c->region] != r || strcmp(c->check, "contention") || c->param < 0 ||
		    !r->growth_tested[c->param])
			continue;
		strbuf_addf(h, "<br>contention along <code>%s</code> (%s): ", v->e->params[c->param],
			    vcheck_status_name(c->status));
		html_escape(h, c->reason);
	}
}

/* Every region: its models and one plot per parameter line. */
static int html_regions(struct strbuf *h, const struct validation *v, const char *dir, int *nplots,
			const char *gnuplot, struct perr *err)
{
	const struct experiment *e = v->e;
	strbuf_addstr(h, "<h2>Regions</h2>\n");
	for (int i = 0; i < v->nregions; i++) {
		const struct vregion *r = &v->regions[i];
		strbuf_addf(h, "<div class=\"region\" id=\"r%d\"><h3><code>", i);
		html_escape(h, e->callpaths[r->callpath]);
		strbuf_addstr(h, "</code> [");
		html_escape(h, e->metrics[r->metric]);
		strbuf_addstr(h, "]</h3>\n<p>");
		html_region_text(h, v, r);
		strbuf_addstr(h, "</p>\n");
		for (int k = 0; k < e->nparams; k++) {
			char *svg;
			if (plot_region(v, r, k, 0, dir, (*nplots)++, gnuplot, &svg, err) < 0)
				return -1;
			if (svg) {
				strbuf_addstr(h, svg);
				strbuf_addch(h, '\n');
				free(svg);
			}
		}
		strbuf_addstr(h, "</div>\n");
	}
	return 0;
}

static int write_file(const char *path, const struct strbuf *h, struct perr *err)
{
	if (fs_write_file(path, h->buf, h->len))
		return perr_set(err, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int report_html(const char *path, const struct validation *v, const struct report_context *c,
		struct perr *err)
{
	struct report_context defaults;
	if (!c) {
		report_context_init(&defaults);
		c = &defaults;
	}
	const char *gnuplot = c->gnuplot ? c->gnuplot : "gnuplot";
	const char *tmp = getenv("TMPDIR");
	char *tdir = xasprintf("%s/perfsweep-report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tdir)) {
		perr_set(err, "cannot create a temporary directory '%s': %s", tdir, strerror(errno));
		free(tdir);
		return -1;
	}
	struct strbuf h;
	strbuf_init(&h);
	int nplots = 0, rc = 0;
	html_summary(&h, v, c);
	if (html_study(&h, v, tdir, &nplots, gnuplot, err) < 0)
		rc = -1;
	if (!rc) {
		html_flags(&h, v);
		html_disturbed(&h, v);
		html_checks(&h, v);
	}
	if (!rc && c->placements) {
		strbuf_addstr(&h, "<h2>Placements</h2>\n<pre>");
		html_escape(&h, c->placements);
		strbuf_addstr(&h, "</pre>\n");
	}
	if (!rc && c->resources) {
		strbuf_addstr(&h, "<h2>Resources</h2>\n<p>What the runs used, per point (perfsweep-bind's rank "
			      "records, the local backend's end notes): the ranks' CPU share (CPU time over wall "
			      "time), the largest resident set, involuntary context switches per second.</p>\n<pre>");
		html_escape(&h, c->resources);
		strbuf_addstr(&h, "</pre>\n");
	}
	if (!rc && html_regions(&h, v, tdir, &nplots, gnuplot, err) < 0)
		rc = -1;
	rmdir(tdir);
	free(tdir);
	strbuf_addstr(&h, "</body></html>\n");
	if (!rc)
		rc = write_file(path, &h, err);
	strbuf_release(&h);
	return rc;
}

/* ---- a figure of curves, on a page of its own (report_html_figure) ---- */

/* The curves' points, one gnuplot data block each; *nplotted gets the curves with a point. */
static int figure_data(const struct report_figure *fig, const char *path, int *plotted, struct perr *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return perr_set(err, "cannot write '%s': %s", path, strerror(errno));
	for (int c = 0; c < fig->ncurves; c++) {
		const struct report_curve *rc = &fig->curves[c];
		plotted[c] = 0;
		for (int i = 0; i < rc->n; i++)
			if (isfinite(rc->x[i]) && isfinite(rc->y[i]) && (!fig->logy || rc->y[i] > 0)) {
				fprintf(f, "%.17g %.17g\n", rc->x[i], rc->y[i]);
				plotted[c]++;
			}
		fprintf(f, "\n\n");
	}
	if (fclose(f))
		return perr_set(err, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* The gnuplot script of fig over the data in data, drawing into out. */
static void figure_script(struct strbuf *gp, const struct report_figure *fig, const char *data, const char *out,
			  const int *plotted)
{
	strbuf_addstr(gp, "set terminal svg size 900,500 noenhanced font 'sans,11' background '#ffffff'\nset output ");
	gp_quote(gp, out);
	strbuf_addstr(gp, "\nset title ");
	gp_quote(gp, fig->title ? fig->title : "");
	strbuf_addstr(gp, "\nset xlabel ");
	gp_quote(gp, fig->xlabel ? fig->xlabel : "");
	strbuf_addstr(gp, "\nset ylabel ");
	gp_quote(gp, fig->ylabel ? fig->ylabel : "");
	strbuf_addf(gp, "\nset key outside right top font ',10'\nset grid\n%s", fig->logy ? "set logscale y\n" : "");
	strbuf_addstr(gp, "plot ");
	for (int c = 0, first = 1; c < fig->ncurves; c++) {
		if (!plotted[c])
			continue;
		strbuf_addstr(gp, first ? "" : ", ");
		gp_quote(gp, data);
		strbuf_addf(gp, " index %d using 1:2 with linespoints lw 2 pt %d title ", c, 5 + 2 * c);
		gp_quote(gp, fig->curves[c].name);
		first = 0;
	}
	strbuf_addch(gp, '\n');
}

/* Draw fig into the temporary directory dir; *svg gets the SVG, NULL when no curve has a point. */
static int figure_svg(const struct report_figure *fig, const char *dir, char **svg, struct perr *err)
{
	char *data = xasprintf("%s/figure.dat", dir), *script = xasprintf("%s/figure.gp", dir);
	char *out = xasprintf("%s/figure.svg", dir), *errf = xasprintf("%s/figure.err", dir);
	int *plotted = xcalloc((size_t)fig->ncurves + 1, sizeof(int)), any = 0, rc;
	struct strbuf gp;
	strbuf_init(&gp);
	*svg = NULL;
	rc = figure_data(fig, data, plotted, err);
	for (int c = 0; c < fig->ncurves; c++)
		any |= plotted[c] > 0;
	if (rc == 0 && any) {
		figure_script(&gp, fig, data, out, plotted);
		if (fs_write_file(script, gp.buf, gp.len))
			rc = perr_set(err, "cannot write '%s': %s", script, strerror(errno));
		if (rc == 0)
			rc = run_gnuplot(fig->gnuplot ? fig->gnuplot : "gnuplot", script, errf, err);
		struct strbuf sb;
		strbuf_init(&sb);
		if (rc == 0 && strbuf_read_file(&sb, out) < 0)
			rc = perr_set(err, "gnuplot wrote no '%s'", out);
		if (rc == 0)
			*svg = xstrdup(strstr(sb.buf, "<svg") ? strstr(sb.buf, "<svg") : sb.buf);
		strbuf_release(&sb);
	}
	unlink(data);
	unlink(script);
	unlink(out);
	unlink(errf);
	strbuf_release(&gp);
	free(plotted);
	free(data);
	free(script);
	free(out);
	free(errf);
	return rc;
}

int report_html_figure(const char *path, const struct report_figure *fig, struct perr *err)
{
	const char *tmp = getenv("TMPDIR");
	char *tdir = xasprintf("%s/perfsweep-figure-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tdir)) {
		perr_set(err, "cannot create a temporary directory '%s': %s", tdir, strerror(errno));
		free(tdir);
		return -1;
	}
	char *svg = NULL;
	int rc = figure_svg(fig, tdir, &svg, err);
	rmdir(tdir);
	free(tdir);
	struct strbuf h;
	strbuf_init(&h);
	strbuf_addstr(&h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
	html_escape(&h, fig->title ? fig->title : "");
	strbuf_addf(&h, "</title><style>%s</style></head><body>\n<h1>", css);
	html_escape(&h, fig->title ? fig->title : "");
	strbuf_addstr(&h, "</h1>\n");
	strbuf_addstr(&h, svg ? svg : "<p>No curve has a point to plot.</p>");
	if (fig->text) {
		strbuf_addstr(&h, "\n<pre>");
		html_escape(&h, fig->text);
		strbuf_addstr(&h, "</pre>\n");
	}
	strbuf_addstr(&h, "</body></html>\n");
	if (rc == 0)
		rc = write_file(path, &h, err);
	strbuf_release(&h);
	free(svg);
	return rc;
}
