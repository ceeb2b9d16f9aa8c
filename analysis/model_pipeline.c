/* The model pipeline: input, aggregate, dependency file, fits (model_pipeline.h). */
#include "analysis/model_pipeline.h"
#include "common/xalloc.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The campaign's analysis.aggregate, unless the command chose one. */
static int campaign_aggregate(const struct input_data *in, const char *path,
			      const struct model_pipeline_options *o, struct model_options *model,
			      struct perr *err)
{
	if (o->aggregate_set || !in->src.aggregate)
		return 0;
	/* campaign_open_config refuses an unknown one with FILE:LINE first; this
	   stays the one rule should another input carry an aggregate */
	if (model_aggregate_parse(in->src.aggregate, &model->aggregate) < 0)
		return perr_set(err, "'%s': unknown analysis.aggregate '%s'; use mean, median or min", path,
				in->src.aggregate);
	return 0;
}

/* The dependency file to use: the given one, else the campaign's, which must still be there. */
static int choose_deps(struct input_data *in, const struct model_pipeline_options *o, struct perr *err)
{
	if (o->deps_path) {
		in->deps_path = xstrdup(o->deps_path);
		return 0;
	}
	if (!o->campaign_deps || !in->src.deps_path)
		return 0;
	const char *p = in->src.deps_path, *name = in->src.title ? in->src.title : "?";
	if (access(p, R_OK))
		return errno == ENOENT
			? perr_set(err, "dependency file '%s' of campaign '%s' is missing; give --deps FILE or "
				   "restore it", p, name)
			: perr_set(err, "cannot read dependency file '%s' of campaign '%s': %s; give --deps FILE "
				   "or make it readable", p, name, strerror(errno));
	in->deps_path = xstrdup(p);
	return 0;
}

/* Read the dependency file and match its functions to the call paths. */
static int match_deps(struct input_data *in, struct perr *err)
{
	if (deps_read(&in->d, in->deps_path, err) < 0)
		return -1;
	in->have_deps = 1;
	snprintf(in->deps_note, sizeof(in->deps_note), "dependencies %s", in->deps_path);
	in->funcs = xcalloc((size_t)in->e.ncallpaths + 1, sizeof(*in->funcs));
	return input_match_regions(&in->e, &in->d, in->funcs, &in->match, err);
}

int model_pipeline_load(struct input_data *in, const char *path, const struct model_pipeline_options *o,
			struct model_options *model, struct perr *err)
{
	*model = o->model;
	if (input_data_load(in, path, o->format, o->metric, o->include_retired, o->view, err) < 0 ||
	    campaign_aggregate(in, path, o, model, err) < 0 || choose_deps(in, o, err) < 0)
		return -1;
	if (!o->all_params)
		input_leave_out(&in->e, in->src.unmodelled, in->src.nunmodelled);
	return in->deps_path ? match_deps(in, err) : 0;
}

/* The constrained model of f->func, when the data can meet the constraint
   (else the black box stands alone); in NULL: the series (cp, m) of e. */
static void fit_constrained(struct modeler *ctx, const struct experiment *e, int cp, int m,
			    const struct model_input *in, const struct model_options *opt,
			    const struct deps *d, struct model_fit *f)
{
	if (!f->func)
		return;
	struct model_constraint con = { d, f->func };
	struct perr cerr;
	int rc = in ? modeler_fit_ctx(ctx, in, opt, &con, &f->cm, &cerr)
		    : modeler_fit_series_ctx(ctx, e, cp, m, opt, &con, &f->cm, &cerr);
	if (rc == 0)
		f->constrained = 1;
	else
		pmnf_release(&f->cm);
}

int model_pipeline_fit(struct modeler *ctx, const struct input_data *in, int cp, int m,
		       const struct model_options *opt, struct model_fit *f, struct perr *err)
{
	memset(f, 0, sizeof(*f));
	if (modeler_fit_series_ctx(ctx, &in->e, cp, m, opt, NULL, &f->bb, err) < 0)
		return -1;
	f->func = in->have_deps ? in->funcs[cp] : NULL;
	fit_constrained(ctx, &in->e, cp, m, NULL, opt, &in->d, f);
	return 0;
}

int model_pipeline_fit_input(struct modeler *ctx, const struct model_input *in, const struct model_options *opt,
			     const struct deps *d, const struct dep_function *func, struct model_fit *f,
			     struct perr *err)
{
	memset(f, 0, sizeof(*f));
	if (modeler_fit_ctx(ctx, in, opt, NULL, &f->bb, err) < 0)
		return -1;
	f->func = d ? func : NULL;
	fit_constrained(ctx, NULL, -1, -1, in, opt, d, f);
	return 0;
}

void model_fit_release(struct model_fit *f)
{
	pmnf_release(&f->bb);
	if (f->constrained)
		pmnf_release(&f->cm);
	memset(f, 0, sizeof(*f));
}
