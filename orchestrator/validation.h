/*
 * Validating a campaign or another input: the pipeline `perfsweep validate`
 * and top's v key share.  Load the measurements through the input registry,
 * read the dependency file (given, or the one the campaign names), match its
 * functions to the call paths, and run the validator's checks.  Nothing
 * here prints: the caller reports c->v (validator/report.h).
 */
#ifndef PS_ORCH_VALIDATION_H
#define PS_ORCH_VALIDATION_H
#include "collectors/experiment.h"
#include "collectors/region_match.h"
#include "common/error.h"
#include "designs/deps.h"
#include "orchestrator/input.h"
#include "validator/validate.h"

struct campaign_validation_options {
	const char *format;             /* input format name, NULL: detect (input.h) */
	const char *deps_path;          /* dependency file; a bad one is an error */
	/* With deps_path NULL and a campaign directory: use the dependency file
	   the campaign names (import's, or the stored config's `dependencies`
	   resolved beside the campaign directory) when it can be read; a bad
	   one is only noted in deps_note. */
	int campaign_deps;
	struct validate_options vo;     /* validate_options_init, then changes */
};

/* Everything the reports need.  Do not copy: v points into e and d. */
struct campaign_validation {
	int validated;                  /* 0: no measurements, nothing checked */
	struct experiment e;
	struct input_source src;
	char *deps_path;                /* the dependency file used, or NULL */
	char deps_note[1100];           /* "dependencies FILE", "no dependency file", or why not used */
	struct deps d;
	int have_deps;
	const struct dep_function **funcs;      /* per call path, when have_deps */
	struct region_match match;              /* when have_deps */
	struct validation v;                    /* when validated */
};

/*
 * Validate the input at path.  Returns 0 (c->validated 0 when it holds no
 * measurements yet), or -1 with err set.  Release c either way.
 */
int campaign_validate(struct campaign_validation *c, const char *path,
		      const struct campaign_validation_options *o, struct perr *err);
void campaign_validation_release(struct campaign_validation *c);

/* The dependency file a campaign directory names and that can be read, or NULL (caller frees). */
char *campaign_deps_path(const char *dir);

#endif
