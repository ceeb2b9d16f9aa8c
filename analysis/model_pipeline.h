/*
 * The one model pipeline: an input (a campaign store or a file, through the
 * input registry, analysis/input.h) -> the options of its analysis (a
 * campaign's analysis.aggregate unless one was given) -> the dependency
 * file (given, or the campaign's own) matched to its call paths -> PMNF
 * fits (models/), black box and constrained by the dependencies.
 * `perfsweep model` fits every series through it; validation
 * (analysis/validation.h: validate, top's v key, refine, run --until) loads
 * through it and fits inside the validator.  Nothing here prints.
 *
 * One rule for every command: an unknown aggregate is refused, whether it
 * comes from an option (the command's parser) or from a campaign's config
 * (FILE:LINE, campaign_open_config); a campaign's dependency file that is
 * gone is an error naming it, never a silent run without it.
 */
#ifndef PS_MODEL_PIPELINE_H
#define PS_MODEL_PIPELINE_H
#include "common/error.h"
#include "analysis/input.h"
#include "models/modeler.h"

struct model_pipeline_options {
	const char *format;             /* input format name, NULL: detect (input.h) */
	const char *metric;             /* NULL: every metric */
	int include_retired;            /* a campaign's retired runs count too */
	const struct run_usage_view *view;      /* a campaign's runs under other analysis settings
						   (--min-cpu-share, --include-disturbed); NULL: its own */
	const char *deps_path;          /* a dependency file (--deps): overrides the campaign's */
	int campaign_deps;              /* with deps_path NULL: the campaign's own dependency file */
	int aggregate_set;              /* 0: a campaign's analysis.aggregate replaces model.aggregate */
	int all_params;                 /* keep a campaign's model = false parameters (refine) */
	struct model_options model;     /* model_options_robust, then changes */
};

/*
 * Load path into in and match the dependency file to its call paths; *model
 * gets the options in force (o->model with the campaign's aggregate).
 * Returns 0 (in may hold no measurements), or -1 with err: the input, the
 * campaign's config, a bad dependency file, or a campaign dependency file
 * that is missing ("dependency file 'F' of campaign 'C' is missing; ...").
 * Release in either way (input_data_release).
 */
int model_pipeline_load(struct input_data *in, const char *path, const struct model_pipeline_options *o,
			struct model_options *model, struct perr *err);

/* One series' models: the black box, and the one constrained by its function's dependencies. */
struct model_fit {
	struct pmnf_model bb;
	struct pmnf_model cm;
	int constrained;                /* cm is set: the series' call path matched a function */
	const struct dep_function *func;        /* that function, or NULL */
};

/* Fit series (cp, m) of in.  0, or -1 with err (the black box failed).  Release f either way. */
int model_pipeline_fit(struct modeler *ctx, const struct input_data *in, int cp, int m,
		       const struct model_options *opt, struct model_fit *f, struct perr *err);
/*
 * The same two models of plain measurements (a design's points: plan
 * --evaluate), with func the matched function of d (NULL: black box only).
 * 0, or -1 with err.  Release f either way.
 */
int model_pipeline_fit_input(struct modeler *ctx, const struct model_input *in, const struct model_options *opt,
			     const struct deps *d, const struct dep_function *func, struct model_fit *f,
			     struct perr *err);
/* The model commands report: the constrained one when there is one, else the black box. */
static inline const struct pmnf_model *model_fit_chosen(const struct model_fit *f)
{
	return f->constrained ? &f->cm : &f->bb;
}
void model_fit_release(struct model_fit *f);

#endif
