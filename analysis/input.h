/*
 * The input-format registry: every format a command reads measurements
 * from (and, where it has one, its writer), in one table.  model, validate,
 * import, export and compare look formats up here, by name or by detection:
 *
 *   name      alias  reads                                     detected by
 *   campaign         a campaign directory (its store)          a directory with campaign.db
 *   scorep    cube   a folder of Score-P experiment            any other directory
 *                    directories (lulesh.p64.size30.r1/profile.cubex)
 *   text             an Extra-P text file                      any other file
 *   reference        a perfsweep reference (compare's base,    its first 4 KiB name
 *                    validator/reference.h)                    "perfsweep-reference"
 *   json             an Extra-P JSON file (either form)        .json, or content starting with { or [
 *   jsonl            an Extra-P JSON-lines file                .jsonl
 *
 * A new format is one row in input.c's table (a reader into a struct
 * experiment, a detector, optionally a writer).  Also here: the campaign
 * facts a report shows (title, placements, cost, and from the config it ran
 * with: its aggregate, which way its metrics are better, its dependency
 * file) and the mapping of call paths to dependency-file functions.
 */
#ifndef PS_INPUT_H
#define PS_INPUT_H
#include "collectors/experiment.h"
#include "analysis/run_usage.h"
#include "common/error.h"
#include "collectors/region_match.h"
#include "designs/deps.h"
#include <stdio.h>
#include <sys/stat.h>

struct input_source {
	char *title;                    /* campaign name or file name; NULL if none */
	char *placements;               /* preformatted table of placements, or NULL */
	double core_hours_planned;      /* NaN when unknown */
	double core_hours_spent;        /* NaN when unknown */
	char *aggregate;                /* the campaign's analysis.aggregate, or NULL */
	double min_share;               /* the campaign's analysis.min_share; NaN for other inputs */
	double budget_core_hours;       /* the stored budget (meta budget_core_hours); NaN if none */
	int include_retired;            /* set before input_load: a campaign's retired runs count too */
	char *rpn_name;                 /* the parameter with role "ranks_per_node", or NULL */
	char *deps_path;                /* a campaign's dependency file (campaign_deps_path), absolute,
					   whether or not it still exists; NULL if it names none */
	/* a campaign: its disturbed runs, left out of the experiment, and what
	   its runs used (analysis/run_usage.h); NULL for other inputs */
	struct run_usage *usage;
};

void input_source_init(struct input_source *s);
void input_source_release(struct input_source *s);

/* What a reader is asked for. */
struct input_request {
	const char *metric;     /* NULL: every metric */
	int detected;           /* the format was detected, not named (for the messages) */
	int include_retired;    /* a campaign's retired runs (docs/campaigns.md) count too */
};

enum {
	INPUT_DIR = 1,          /* reads a directory, not a file */
	INPUT_PROFILES = 2,     /* a folder of per-run profiles: import keeps each as one run */
	INPUT_STORE = 4,        /* a campaign store already: nothing to import */
};

struct input_format {
	const char *name;
	const char *alias;      /* another accepted name, or NULL */
	const char *what;       /* "an Extra-P JSON file" */
	unsigned flags;
	/* 1 when path (st its stat) is in this format; checked in table order */
	int (*detect)(const char *path, const struct stat *st);
	/* Read path into e (initialised, empty): 0, or -1 with err ("FILE:LINE: ..."). */
	int (*read)(struct input_source *s, const char *path, const struct input_request *rq,
		    struct experiment *e, struct perr *err);
	/* Write e in this format, or NULL when there is no writer. */
	int (*write)(FILE *f, const struct experiment *e, struct perr *err);
};

/* The i-th format of the table, NULL past the end. */
const struct input_format *input_format_at(int i);
/* The format called name (or with that alias), or NULL. */
const struct input_format *input_format_find(const char *name);
/* The format of path by content or extension: NULL with err set when path cannot be read. */
const struct input_format *input_format_detect(const char *path, struct perr *err);
/* "campaign, scorep, text, json or jsonl": the names, for messages. */
void input_format_names(char *buf, size_t n);

/*
 * Load path into e (initialised, empty), in format (a name or alias, NULL
 * to detect it).  metric NULL loads every metric.  Returns 0, or -1 with
 * err set ("FILE:LINE: message" for a bad file).
 */
int input_load(struct input_source *s, const char *path, const char *format, const char *metric,
	       struct experiment *e, struct perr *err);

/*
 * An input loaded for modelling or validation, and the dependency file
 * matched against its call paths (analysis/model_pipeline.h fills it).  Do
 * not copy: match points into d.
 */
struct input_data {
	struct experiment e;
	struct input_source src;
	char *deps_path;                /* the dependency file used, or NULL */
	char deps_note[1100];           /* "dependencies FILE" or "no dependency file" */
	int have_deps;                  /* then d, funcs and match are set */
	struct deps d;
	const struct dep_function **funcs;      /* per call path, NULL entries unmatched */
	struct region_match match;
};

/* Load path (format and metric as for input_load; include_retired: a
   campaign's retired runs too) into in.  Release in either way. */
int input_data_load(struct input_data *in, const char *path, const char *format, const char *metric,
		    int include_retired, struct perr *err);
void input_data_release(struct input_data *in);

/*
 * funcs[c] = the dependency function of call path c, or NULL, by the
 * collectors' region matching (m keeps the unmatched lists; release it
 * with region_match_release).
 */
int input_match_regions(const struct experiment *e, const struct deps *d,
			const struct dep_function **funcs, struct region_match *m, struct perr *err);

#endif
