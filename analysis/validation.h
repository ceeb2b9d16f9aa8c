/*
 * Validating a campaign or another input: the pipeline `perfsweep validate`,
 * top's v key and refine share.  Load the measurements, the aggregate and
 * the dependency file (given, or the one the campaign names) through the
 * model pipeline (analysis/model_pipeline.h), and run the validator's
 * checks.  Nothing here prints: the caller reports c->v (validator/report.h).
 */
#ifndef PS_ORCH_VALIDATION_H
#define PS_ORCH_VALIDATION_H
#include "common/error.h"
#include "analysis/input.h"
#include "validator/validate.h"

struct campaign_validation_options {
	const char *format;             /* input format name, NULL: detect (input.h) */
	const char *deps_path;          /* dependency file; a bad one is an error */
	/* With deps_path NULL: use the dependency file a campaign names, if
	   any; a missing or bad one is an error (model_pipeline_load) */
	int campaign_deps;
	struct validate_options vo;     /* validate_options_init, then changes */
	/* 0: vo.model.aggregate is the campaign's analysis.aggregate when it has one */
	int aggregate_set;
	/* 0: vo.min_share is the campaign's analysis.min_share when it has one */
	int min_share_set;
	int include_retired;            /* a campaign's retired runs are validated too */
	int all_params;                 /* keep a campaign's model = false parameters (refine) */
	/* a campaign's runs under other analysis settings (NULL: its own); with
	   include_disturbed the disturbed check is not run (its runs are in) */
	const struct run_usage_view *view;
};

/* Everything the reports need.  Do not copy: v points into in. */
struct campaign_validation {
	int validated;                  /* 0: no measurements, nothing checked */
	struct input_data in;           /* the measurements and the dependency matching */
	struct validation v;            /* when validated */
};

/*
 * Validate the input at path.  Returns 0 (c->validated 0 when it holds no
 * measurements yet), or -1 with err set.  Release c either way.
 */
int campaign_validate(struct campaign_validation *c, const char *path,
		      const struct campaign_validation_options *o, struct perr *err);
void campaign_validation_release(struct campaign_validation *c);

#endif
