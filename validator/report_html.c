/*
 * The HTML validity report: a self-contained page (inline CSS and SVG) with
 * the verdict, a summary table of flags, the campaign's placements and
 * cost, and per flagged region one plot drawn by gnuplot: the measurements
 * with their repetition spread along the flag's parameter, the black-box
 * model and the constrained model (and, for a segmented line, the model on
 * each side).  gnuplot runs with fork/exec, never through a shell.
 */
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "collectors/region_match.h"
#include "validator/report.h"
#include "validator/vline.h"
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
	pid_t pid = fork();
	if (pid < 0)
		return perr_set(err, "cannot start gnuplot: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		execlp(gnuplot, gnuplot, script, (char *)NULL);
		dprintf(2, "cannot run '%s': %s\n", gnuplot, strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return perr_set(err, "waiting for gnuplot: %s", strerror(errno));
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

/* The parameter a region's plot shows. */
static int plot_param(const struct validation *v, const struct vregion *r)
{
	for (int i = 0; i < v->nflags; i++)
		if (&v->regions[v->flags[i].region] == r && v->flags[i].param >= 0)
			return v->flags[i].param;
	/* noise only: the parameter with the most values */
	int best = 0, bestn = -1;
	for (int k = 0; k < v->e->nparams; k++) {
		struct vline *lines;
		int n = vlines_find(v->e, k, &lines);
		int m = 0;
		for (int l = 0; l < n; l++)
			if (lines[l].npoints > m)
				m = lines[l].npoints;
		vlines_free(lines, n);
		if (m > bestn) {
			bestn = m;
			best = k;
		}
	}
	return best;
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

/* Draw one region's plot; *svg gets the SVG text (without XML prolog). */
static int plot_region(const struct validation *v, const struct vregion *r, const char *dir, int n,
		       const char *gnuplot, char **svg, struct perr *err)
{
	const struct experiment *e = v->e;
	const struct exp_series *s = experiment_series(e, r->callpath, r->metric);
	int param = plot_param(v, r);
	struct vline line;
	*svg = NULL;
	if (!s || e->nparams > 16 || !pick_line(e, s, param, &line))
		return 0;
	char *data = xasprintf("%s/plot%d.dat", dir, n);
	char *script = xasprintf("%s/plot%d.gp", dir, n);
	char *out = xasprintf("%s/plot%d.svg", dir, n);
	char *errf = xasprintf("%s/plot%d.err", dir, n);
	int rc = -1;
	FILE *f = fopen(data, "w");
	if (!f) {
		perr_set(err, "cannot write '%s': %s", data, strerror(errno));
		goto out;
	}
	const double *base = &e->coords[(size_t)line.points[0] * (size_t)e->nparams];
	double x0 = INFINITY, x1 = -INFINITY;
	/* block 0: every repetition; block 1: mean, min, max */
	for (int i = 0; i < line.npoints; i++) {
		const struct exp_values *ev = &s->at[line.points[i]];
		double x = experiment_coord(e, line.points[i], param);
		for (int k = 0; k < ev->n; k++)
			fprintf(f, "%.17g %.17g\n", x, ev->v[k]);
		if (ev->n) {
			x0 = fmin(x0, x);
			x1 = fmax(x1, x);
		}
	}
	fputs("\n\n", f);
	for (int i = 0; i < line.npoints; i++) {
		const struct exp_values *ev = &s->at[line.points[i]];
		if (!ev->n)
			continue;
		double sum = 0, lo = INFINITY, hi = -INFINITY;
		for (int k = 0; k < ev->n; k++) {
			sum += ev->v[k];
			lo = fmin(lo, ev->v[k]);
			hi = fmax(hi, ev->v[k]);
		}
		fprintf(f, "%.17g %.17g %.17g %.17g\n", experiment_coord(e, line.points[i], param),
			sum / ev->n, lo, hi);
	}
	fputs("\n\n", f);
	int nblocks = 2;
	struct strbuf plot;
	strbuf_init(&plot);
	strbuf_addstr(&plot, "plot ");
	gp_quote(&plot, data);
	strbuf_addstr(&plot, " index 0 using 1:2 with points pt 7 ps 0.4 lc rgb '#999999' title 'repetitions', \\\n  ");
	gp_quote(&plot, data);
	strbuf_addstr(&plot, " index 1 using 1:2:3:4 with yerrorbars pt 7 ps 0.7 lc rgb '#000000' title 'mean (min..max)'");
	struct curve curves[4];
	int nc = 0;
	if (r->modelled)
		curves[nc++] = (struct curve){ &r->black_box, "black-box", "lw 2 lc rgb '#1f77b4'", 0, x0, x1 };
	if (r->has_constrained)
		curves[nc++] = (struct curve){ &r->constrained, "constrained", "lw 2 dt 2 lc rgb '#d62728'", 0, x0, x1 };
	if (r->segment_tested && r->segment_tested[param]) {
		const struct segment_result *sr = &r->segment[param];
		int flagged = 0;
		for (int i = 0; i < v->nflags; i++)
			flagged |= &v->regions[v->flags[i].region] == r && v->flags[i].kind == VFLAG_SEGMENTED &&
				   v->flags[i].param == param;
		if (flagged) {
			curves[nc++] = (struct curve){ &sr->left, "left regime", "lw 2 lc rgb '#2ca02c'", 1, x0, sr->x_before };
			curves[nc++] = (struct curve){ &sr->right, "right regime", "lw 2 lc rgb '#9467bd'", 1, sr->x_after, x1 };
		}
	}
	for (int i = 0; i < nc; i++) {
		write_curve(f, curves[i].m, base, e->nparams, param, curves[i].a, curves[i].b, curves[i].one);
		char *ms = pmnf_format(curves[i].m, 4);
		char *title = xasprintf("%s: %s", curves[i].what, ms);
		strbuf_addstr(&plot, ", \\\n  ");
		gp_quote(&plot, data);
		strbuf_addf(&plot, " index %d using 1:2 with lines %s title ", nblocks++, curves[i].style);
		gp_quote(&plot, title);
		free(ms);
		free(title);
	}
	strbuf_addch(&plot, '\n');
	if (fclose(f)) {
		perr_set(err, "cannot write '%s': %s", data, strerror(errno));
		strbuf_release(&plot);
		goto out;
	}
	f = fopen(script, "w");
	if (!f) {
		perr_set(err, "cannot write '%s': %s", script, strerror(errno));
		strbuf_release(&plot);
		goto out;
	}
	struct strbuf hdr;
	strbuf_init(&hdr);
	strbuf_addstr(&hdr, "set terminal svg size 900,500 noenhanced font 'sans,11' background '#ffffff'\nset output ");
	gp_quote(&hdr, out);
	strbuf_addstr(&hdr, "\nset title ");
	char *t = xasprintf("%s [%s]", region_callpath_leaf(e->callpaths[r->callpath]), e->metrics[r->metric]);
	gp_quote(&hdr, t);
	free(t);
	strbuf_addstr(&hdr, "\nset xlabel ");
	struct strbuf xl;
	strbuf_init(&xl);
	strbuf_addstr(&xl, e->params[param]);
	for (int k = 0; k < e->nparams; k++)
		if (k != param)
			strbuf_addf(&xl, "%s%s=%g", xl.len == strlen(e->params[param]) ? "  (" : ", ",
				    e->params[k], base[k]);
	if (e->nparams > 1)
		strbuf_addch(&xl, ')');
	gp_quote(&hdr, xl.buf);
	strbuf_release(&xl);
	strbuf_addstr(&hdr, "\nset ylabel ");
	gp_quote(&hdr, e->metrics[r->metric]);
	strbuf_addstr(&hdr, "\nset key below left Left reverse font ',9'\nset grid\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\n");
	fputs(hdr.buf, f);
	fputs(plot.buf, f);
	strbuf_release(&hdr);
	strbuf_release(&plot);
	if (fclose(f)) {
		perr_set(err, "cannot write '%s': %s", script, strerror(errno));
		goto out;
	}
	if (run_gnuplot(gnuplot, script, errf, err) < 0)
		goto out;
	struct strbuf sb;
	strbuf_init(&sb);
	if (strbuf_read_file(&sb, out) < 0) {
		perr_set(err, "gnuplot wrote no '%s'", out);
		strbuf_release(&sb);
		goto out;
	}
	char *start = strstr(sb.buf, "<svg");
	*svg = xstrdup(start ? start : sb.buf);
	strbuf_release(&sb);
	rc = 1;
out:
	unlink(data);
	unlink(script);
	unlink(out);
	unlink(errf);
	free(data);
	free(script);
	free(out);
	free(errf);
	free(line.points);
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
	"code{font-size:90%}";

int report_html(const char *path, const struct validation *v, const struct report_context *c,
		struct perr *err)
{
	const struct experiment *e = v->e;
	struct report_context defaults;
	if (!c) {
		report_context_init(&defaults);
		c = &defaults;
	}
	const char *gnuplot = c->gnuplot ? c->gnuplot : "gnuplot";
	struct strbuf h;
	strbuf_init(&h);
	strbuf_addstr(&h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
	html_escape(&h, c->title);
	strbuf_addf(&h, "</title><style>%s</style></head><body>\n<h1>", css);
	html_escape(&h, c->title);
	strbuf_addstr(&h, "</h1>\n");
	int pub = validation_publishable(v);
	strbuf_addf(&h, "<p>Verdict: <span class=\"%s\">%s</span> &mdash; %d regions checked, %d flags, "
		    "%d blocking.</p>\n", pub ? "publishable" : "blocked", pub ? "publishable" : "blocked",
		    v->nregions, v->nflags, v->nblocking);
	strbuf_addstr(&h, "<table><tr><th>input</th><td>");
	html_escape(&h, c->input ? c->input : "");
	strbuf_addstr(&h, "</td></tr><tr><th>dependencies</th><td>");
	html_escape(&h, c->deps_path ? c->deps_path : "none (no false-dependency, volume or parameter contention checks)");
	strbuf_addf(&h, "</td></tr><tr><th>parameters</th><td>");
	for (int k = 0; k < e->nparams; k++) {
		strbuf_addstr(&h, k ? ", " : "");
		html_escape(&h, e->params[k]);
	}
	strbuf_addf(&h, "</td></tr><tr><th>points</th><td>%d</td></tr>", e->npoints);
	strbuf_addstr(&h, "<tr><th>cost (core-hours)</th><td>planned ");
	fmt_num(&h, c->core_hours_planned, "%.4g");
	strbuf_addstr(&h, ", spent ");
	fmt_num(&h, c->core_hours_spent, "%.4g");
	strbuf_addf(&h, "</td></tr><tr><th>thresholds</th><td>CoV %g, alpha %g, growth %g, "
		    "segment lines &ge; %d points%s</td></tr></table>\n", v->opt.cov_threshold, v->opt.alpha,
		    v->opt.min_growth, v->opt.segment_points, v->opt.strict ? ", strict" : "");
	const struct contention_summary *cs = &v->study;
	if (cs->param >= 0 && cs->ntested) {
		strbuf_addf(&h, "<h2>Contention study</h2>\n<p>%d of %d regions grow significantly with ",
			    cs->nincreasing, cs->ntested);
		html_escape(&h, e->params[cs->param]);
		if (cs->program_region >= 0) {
			strbuf_addstr(&h, "; the whole program (<code>");
			html_escape(&h, e->callpaths[v->regions[cs->program_region].callpath]);
			strbuf_addf(&h, "</code>) changes %+.0f%% from %g to %g (%.4g &rarr; %.4g, p=%.2g).",
				    100 * cs->program_growth, cs->xmin, cs->xmax, cs->program_first,
				    cs->program_last, cs->program_p);
		}
		strbuf_addstr(&h, "</p>\n");
	}
	strbuf_addstr(&h, "<h2>Flags</h2>\n");
	if (!v->nflags) {
		strbuf_addstr(&h, "<p>No flags.</p>\n");
	} else {
		strbuf_addstr(&h, "<table><tr><th>region</th><th>metric</th><th>kind</th><th>parameter</th>"
			      "<th>growth</th><th>p</th><th>blocks</th><th>detail</th></tr>\n");
		for (int i = 0; i < v->nflags; i++) {
			const struct vflag *f = &v->flags[i];
			const struct vregion *r = &v->regions[f->region];
			strbuf_addf(&h, "<tr class=\"%s\"><td><a href=\"#r%d\"><code>", f->blocking ? "blk" : "warn",
				    f->region);
			html_escape(&h, e->callpaths[r->callpath]);
			strbuf_addstr(&h, "</code></a></td><td>");
			html_escape(&h, e->metrics[r->metric]);
			strbuf_addf(&h, "</td><td>%s</td><td>", vflag_kind_name(f->kind));
			html_escape(&h, f->param >= 0 ? e->params[f->param] : "");
			strbuf_addstr(&h, "</td><td>");
			if (isfinite(f->growth))
				strbuf_addf(&h, "%+.1f%%", 100 * f->growth);
			strbuf_addstr(&h, "</td><td>");
			if (isfinite(f->p_value))
				strbuf_addf(&h, "%.2g", f->p_value);
			strbuf_addf(&h, "</td><td>%s</td><td>", f->blocking ? "yes" : "no");
			html_escape(&h, f->detail);
			strbuf_addstr(&h, "</td></tr>\n");
		}
		strbuf_addstr(&h, "</table>\n");
	}
	if (c->placements) {
		strbuf_addstr(&h, "<h2>Placements</h2>\n<pre>");
		html_escape(&h, c->placements);
		strbuf_addstr(&h, "</pre>\n");
	}

	const char *tmp = getenv("TMPDIR");
	char *tdir = xasprintf("%s/perfsweep-report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tdir)) {
		perr_set(err, "cannot create a temporary directory '%s': %s", tdir, strerror(errno));
		free(tdir);
		strbuf_release(&h);
		return -1;
	}
	int rc = 0, nplots = 0;
	for (int i = 0; i < v->nregions && !rc; i++) {
		const struct vregion *r = &v->regions[i];
		if (!r->nflags)
			continue;
		strbuf_addf(&h, "<div class=\"region\" id=\"r%d\"><h3><code>", i);
		html_escape(&h, e->callpaths[r->callpath]);
		strbuf_addstr(&h, "</code> [");
		html_escape(&h, e->metrics[r->metric]);
		strbuf_addstr(&h, "]</h3>\n<p>");
		if (r->modelled) {
			char *bb = pmnf_format(&r->black_box, 4);
			strbuf_addstr(&h, "black-box: <code>");
			html_escape(&h, bb);
			strbuf_addf(&h, "</code> (adj. R&sup2; %.4f, SMAPE %.2f%%)", r->black_box.ar2, r->black_box.smape);
			free(bb);
		} else {
			strbuf_addstr(&h, "not modelled (unreliable data)");
		}
		if (r->has_constrained) {
			char *cm = pmnf_format(&r->constrained, 4);
			strbuf_addstr(&h, "<br>constrained: <code>");
			html_escape(&h, cm);
			strbuf_addf(&h, "</code> (adj. R&sup2; %.4f, SMAPE %.2f%%)", r->constrained.ar2, r->constrained.smape);
			free(cm);
		}
		strbuf_addstr(&h, "</p>\n");
		char *svg;
		int pr = plot_region(v, r, tdir, nplots++, gnuplot, &svg, err);
		if (pr < 0) {
			rc = -1;
			break;
		}
		if (svg) {
			strbuf_addstr(&h, svg);
			strbuf_addch(&h, '\n');
			free(svg);
		}
		strbuf_addstr(&h, "</div>\n");
	}
	rmdir(tdir);
	free(tdir);
	if (rc) {
		strbuf_release(&h);
		return -1;
	}
	strbuf_addstr(&h, "</body></html>\n");
	FILE *f = fopen(path, "w");
	if (!f) {
		strbuf_release(&h);
		return perr_set(err, "cannot write '%s': %s", path, strerror(errno));
	}
	size_t w = fwrite(h.buf, 1, h.len, f);
	int bad = w != h.len;
	bad |= fclose(f) != 0;
	strbuf_release(&h);
	if (bad)
		return perr_set(err, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}
