/* The validate pipeline over an input: the model pipeline's load, then the checks. */
#include "analysis/validation.h"
#include "analysis/model_pipeline.h"
#include <math.h>
#include <string.h>

int campaign_validate(struct campaign_validation *c, const char *path,
		      const struct campaign_validation_options *o, struct perr *err)
{
	memset(c, 0, sizeof(*c));
	struct model_pipeline_options po = {
		.format = o->format, .metric = o->vo.metric, .include_retired = o->include_retired, .view = o->view,
		.deps_path = o->deps_path, .campaign_deps = o->campaign_deps,
		.aggregate_set = o->aggregate_set, .model = o->vo.model, .all_params = o->all_params,
	};
	struct validate_options vo = o->vo;
	if (model_pipeline_load(&c->in, path, &po, &vo.model, err) < 0)
		return -1;
	if (!o->min_share_set && isfinite(c->in.src.min_share))   /* the campaign's analysis.min_share */
		vo.min_share = c->in.src.min_share;
	const struct run_usage *u = c->in.src.usage;
	/* measured runs that were all disturbed are still a verdict: re-measure them */
	int disturbed = u && u->disturbed.n > 0 && !u->included;
	if (c->in.e.npoints == 0 || (c->in.e.nseries == 0 && !disturbed))
		return 0;
	struct validate_input vin = { .e = &c->in.e, .deps = c->in.have_deps ? &c->in.d : NULL,
				      .funcs = c->in.funcs, .expect = validate_expect_expr,
				      .rpn_name = c->in.src.rpn_name,
				      .disturbed = u && u->disturbed.njudged && !u->included ? &u->disturbed : NULL,
				      .point_share = u ? u->point_share : NULL };
	c->validated = 1;
	return validate_run(&c->v, &vin, &vo, err);
}

void campaign_validation_release(struct campaign_validation *c)
{
	if (c->validated)
		validation_release(&c->v);
	input_data_release(&c->in);
	memset(c, 0, sizeof(*c));
}
