/*
 * Loading the measured data a command works on: INPUT is a campaign
 * directory (its store), or a file in one of Extra-P's formats.  Also the
 * campaign facts a report shows (title, placements, cost) and the mapping
 * of call paths to dependency-file functions.
 */
#ifndef PS_INPUT_H
#define PS_INPUT_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "designs/deps.h"

struct input_source {
	char *title;                    /* campaign name or file name; NULL if none */
	char *placements;               /* preformatted table of placements, or NULL */
	double core_hours_planned;      /* NaN when unknown */
	double core_hours_spent;        /* NaN when unknown */
};

void input_source_init(struct input_source *s);
void input_source_release(struct input_source *s);

/*
 * Load path into e (initialised, empty).  format NULL detects it: a
 * directory is a campaign; a file is Extra-P text.  Formats: "campaign",
 * "text".  metric NULL loads every metric.  Returns 0, or -1 with err set
 * ("FILE:LINE: message" for a bad file).
 */
int input_load(struct input_source *s, const char *path, const char *format, const char *metric,
	       struct experiment *e, struct perr *err);

/*
 * funcs[c] = the dependency function of call path c, or NULL.  A call
 * path's region is its last element; it matches the function of the same
 * name (the collectors' region matching refines this for signatures).
 */
int input_match_regions(const struct experiment *e, const struct deps *d,
			const struct dep_function **funcs, struct perr *err);

#endif
