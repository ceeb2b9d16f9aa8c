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
#include "collectors/region_match.h"
#include "designs/deps.h"

struct input_source {
	char *title;                    /* campaign name or file name; NULL if none */
	char *placements;               /* preformatted table of placements, or NULL */
	double core_hours_planned;      /* NaN when unknown */
	double core_hours_spent;        /* NaN when unknown */
	char *aggregate;                /* the campaign's analysis.aggregate, or NULL */
	double budget_core_hours;       /* the stored budget (meta budget_core_hours); NaN if none */
};

void input_source_init(struct input_source *s);
void input_source_release(struct input_source *s);

/*
 * Load path into e (initialised, empty).  format NULL detects it: a
 * directory with campaign.db is a campaign, another directory a folder of
 * Score-P experiment directories (lulesh.p64.size30.r1/profile.cubex); a
 * file ending in .json or .jsonl is Extra-P JSON or JSON lines, any other
 * Extra-P text.  Formats: "campaign", "scorep", "text", "json", "jsonl".
 * metric NULL loads every metric.  Returns 0, or -1 with err set
 * ("FILE:LINE: message" for a bad file).
 */
int input_load(struct input_source *s, const char *path, const char *format, const char *metric,
	       struct experiment *e, struct perr *err);

/*
 * funcs[c] = the dependency function of call path c, or NULL, by the
 * collectors' region matching (m keeps the unmatched lists; release it
 * with region_match_release).
 */
int input_match_regions(const struct experiment *e, const struct deps *d,
			const struct dep_function **funcs, struct region_match *m, struct perr *err);

#endif
