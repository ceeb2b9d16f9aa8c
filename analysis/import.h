/*
 * Importing measurements into a new campaign store, so that model,
 * validate and export can use them: a folder of Score-P experiment
 * directories (each profile one run) or an Extra-P file (each repetition
 * of each point one run).  Every run is stored as a done run of backend
 * "import"; its measurements carry rank -1 (already aggregated over ranks).
 * Every source file is read before the store is created, so a bad one
 * leaves nothing behind.  Each run is stored in its own transactions.
 */
#ifndef PS_IMPORT_H
#define PS_IMPORT_H
#include "collectors/cubex.h"
#include "collectors/region_match.h"
#include "common/error.h"
#include "designs/deps.h"
#include "analysis/input.h"

struct import_options {
	const char *source;
	const struct input_format *format;      /* not a campaign (INPUT_STORE) */
	const char *label;      /* how the source was named ("cube", "text", ...): stored as import_format */
	const char *out;        /* the new campaign directory */
	const char *deps_path;  /* dependency file to match against the call paths, or NULL */
	const char *params;     /* "p,size": parameters to keep, in this order (NULL: the varying ones) */
	const char *metrics;    /* "time,visits", profiles only (NULL: every metric with data) */
	enum cubex_aggr aggr;   /* profiles only: over ranks */
	const char *name;       /* campaign name; NULL: the source's base name */
};

struct import_result {
	char *campaign;
	int nruns, npoints;
	int nparams;
	char **params;
	int ncallpaths, nmetrics;
	long long nmeasurements;
	int have_deps;          /* then d and match describe the dependency matching */
	struct deps d;
	struct region_match match;
};

/* Import o->source into o->out.  Returns 0, or -1 with err set.  Release r either way. */
int import_campaign(const struct import_options *o, struct import_result *r, struct perr *err);
void import_result_release(struct import_result *r);

#endif
