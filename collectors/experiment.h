/*
 * An experiment is the in-memory form of measured data, what Extra-P calls
 * an Experiment: named parameters, measurement points (one coordinate per
 * parameter), call paths, metrics, and per (callpath, metric, point) the
 * values of the repetitions.  Every reader (campaign store, Extra-P text,
 * JSON, JSON lines, Score-P profiles) produces one; the modeller and the
 * validator consume one.
 *
 * Invariants: all parameters are added before the first point; indices are
 * stable once returned; names are unique within their kind.
 */
#ifndef PS_EXPERIMENT_H
#define PS_EXPERIMENT_H
#include "common/idmap.h"
#include "common/strmap.h"
#include <stddef.h>

struct exp_values {
	double *v;      /* one value per repetition, in insertion order */
	int n;
	size_t alloc;
};

/* All values of one callpath and metric: at[point] for every point. */
struct exp_series {
	int callpath, metric;
	struct exp_values *at;  /* npoints entries (grown with the points) */
};

struct experiment {
	int nparams;
	char **params;
	int npoints;
	double *coords;         /* npoints x nparams, row-major */
	int ncallpaths;
	char **callpaths;       /* Extra-P notation: "main->foo->bar" */
	int nmetrics;
	char **metrics;
	int nseries;
	struct exp_series *series;
	/* private */
	size_t params_alloc, points_alloc, callpaths_alloc, metrics_alloc, series_alloc;
	struct strmap callpath_idx, metric_idx, series_idx;
	struct strmap better;   /* metric name -> enum exp_better, where a campaign says */
	struct idmap point_idx; /* a hash of a point's coordinates -> the point (experiment_point) */
	int point_idx_n;        /* points indexed: the first point_idx_n */
	int point_idx_clash;    /* two points share a hash: lookups that miss scan too */
	struct strmap resolution_idx;   /* "callpath\nmetric" -> index into resolutions */
	double *resolutions;
	size_t nresolutions, resolutions_alloc;
};

/* Which way a metric is better, when its campaign says (analysis.lower_is_better,
   higher_is_better); otherwise the modeller reads its name (models/points.h). */
enum exp_better {
	EXP_BETTER_UNSAID = 0,
	EXP_BETTER_LOWER,
	EXP_BETTER_HIGHER,
};

void experiment_init(struct experiment *e);
void experiment_release(struct experiment *e);

/* Find or add; return the index.  Parameters must precede points (-1 otherwise). */
int experiment_param(struct experiment *e, const char *name);
int experiment_find_param(const struct experiment *e, const char *name);
int experiment_point(struct experiment *e, const double *coords);
/* Leave parameter k out: its name and every point's coordinate go.  Only
   when the points stay apart without it (0); 1 leaves e as it was. */
int experiment_drop_param(struct experiment *e, int k);
int experiment_find_point(const struct experiment *e, const double *coords);
int experiment_callpath(struct experiment *e, const char *name);
int experiment_find_callpath(const struct experiment *e, const char *name);
int experiment_metric(struct experiment *e, const char *name);
int experiment_find_metric(const struct experiment *e, const char *name);

/* Say which way the metric named metric is better (it need not exist yet). */
void experiment_set_better(struct experiment *e, const char *metric, enum exp_better b);
/* What was said for metric (an index); EXP_BETTER_UNSAID if nothing. */
enum exp_better experiment_better(const struct experiment *e, int metric);

/* Say that the values of the region callpath's metric are printed in steps
   of resolution (> 0; neither need exist yet): the noise check does not
   call a spread within one step noisy (validator/noise.h). */
void experiment_set_resolution(struct experiment *e, const char *callpath, const char *metric, double resolution);
/* The resolution said for (callpath, metric), indices; 0 when nothing was said. */
double experiment_resolution(const struct experiment *e, int callpath, int metric);

/* Append one repetition value. */
void experiment_add(struct experiment *e, int callpath, int metric, int point, double v);
/* The series of a callpath and metric, or NULL if it has no values. */
const struct exp_series *experiment_series(const struct experiment *e, int callpath, int metric);
/* Values at one point of a series, or NULL/zero-length if none. */
const struct exp_values *experiment_values(const struct experiment *e, int callpath, int metric, int point);

/* Coordinate of point p for parameter k. */
static inline double experiment_coord(const struct experiment *e, int p, int k)
{
	return e->coords[(size_t)p * (size_t)e->nparams + (size_t)k];
}

#endif
