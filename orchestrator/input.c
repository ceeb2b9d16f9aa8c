/* Loading a command's input: campaign directory or Extra-P text file. */
#include "orchestrator/input.h"
#include "collectors/extrap_text.h"
#include "common/xalloc.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void input_source_init(struct input_source *s)
{
	memset(s, 0, sizeof(*s));
	s->core_hours_planned = NAN;
	s->core_hours_spent = NAN;
}

void input_source_release(struct input_source *s)
{
	free(s->title);
	free(s->placements);
	input_source_init(s);
}

/* Keep only one metric of a freshly read experiment (copying the values). */
static int keep_metric(struct experiment *e, const char *metric, const char *path, struct perr *err)
{
	int m = experiment_find_metric(e, metric);
	if (m < 0)
		return perr_set(err, "%s: no metric '%s'", path, metric);
	struct experiment out;
	experiment_init(&out);
	for (int k = 0; k < e->nparams; k++)
		experiment_param(&out, e->params[k]);
	for (int p = 0; p < e->npoints; p++)
		experiment_point(&out, &e->coords[(size_t)p * (size_t)e->nparams]);
	int om = experiment_metric(&out, metric);
	for (int c = 0; c < e->ncallpaths; c++) {
		const struct exp_series *s = experiment_series(e, c, m);
		if (!s)
			continue;
		int oc = experiment_callpath(&out, e->callpaths[c]);
		for (int p = 0; p < e->npoints; p++)
			for (int r = 0; r < s->at[p].n; r++)
				experiment_add(&out, oc, om, p, s->at[p].v[r]);
	}
	experiment_release(e);
	*e = out;
	return 0;
}

static int load_campaign(struct input_source *s, const char *path, const char *metric,
			 struct experiment *e, struct perr *err)
{
	(void)s;
	(void)metric;
	(void)e;
	return perr_set(err, "'%s' is a directory: reading campaign stores is not available in this "
			"build", path);
}

int input_load(struct input_source *s, const char *path, const char *format, const char *metric,
	       struct experiment *e, struct perr *err)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return perr_set(err, "cannot read '%s': %s", path, strerror(errno));
	if (!format)
		format = S_ISDIR(st.st_mode) ? "campaign" : "text";
	if (!strcmp(format, "campaign")) {
		if (!S_ISDIR(st.st_mode))
			return perr_set(err, "'%s' is not a campaign directory", path);
		return load_campaign(s, path, metric, e, err);
	}
	if (!strcmp(format, "text")) {
		if (S_ISDIR(st.st_mode))
			return perr_set(err, "'%s' is a directory, not an Extra-P text file", path);
		if (extrap_text_read(e, path, err) < 0)
			return -1;
		const char *slash = strrchr(path, '/');
		s->title = xstrdup(slash ? slash + 1 : path);
		return metric ? keep_metric(e, metric, path, err) : 0;
	}
	return perr_set(err, "unknown input format '%s' (expected campaign or text)", format);
}

int input_match_regions(const struct experiment *e, const struct deps *d,
			const struct dep_function **funcs, struct perr *err)
{
	(void)err;
	for (int c = 0; c < e->ncallpaths; c++) {
		const char *cp = e->callpaths[c];
		const char *leaf = cp, *arrow;
		while ((arrow = strstr(leaf, "->")))
			leaf = arrow + 2;
		funcs[c] = deps_find_function(d, leaf);
	}
	return 0;
}
