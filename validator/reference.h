/*
 * A saved reference for `perfsweep compare`: one JSON file with, per
 * region (call path), metric and point, the repetitions, and the PMNF model
 * of each region (docs/compare.md):
 *
 *   {"format": "perfsweep-reference", "version": 1, "parameters": ["n", ...],
 *    "regions": [{"callpath", "metric",
 *                 "points": [{"coordinates": [..], "values": [..]}],
 *                 "model": {pmnf_json}}]}
 *
 * The model is written for readers; compare refits it from the values
 * (the modeller is deterministic, so it gets the same model).
 */
#ifndef PS_REFERENCE_H
#define PS_REFERENCE_H
#include "collectors/experiment.h"
#include "common/error.h"
#include <stdio.h>

/* Write e (every series with values) to f.  Returns 0, or -1 with err set. */
int reference_write(FILE *f, const struct experiment *e, struct perr *err);

/*
 * Read path (a regular file) into e (initialised, empty).  Returns 0, or -1
 * with err ("PATH: problem"): a point without values, a point or a region
 * given twice, a value that is no finite number are refused.
 */
int reference_read(struct experiment *e, const char *path, struct perr *err);
/* The same over the file's text buf[0..len) (path only names it). */
int reference_read_mem(struct experiment *e, const char *path, const char *buf, size_t len, struct perr *err);

/* 1 when the file at path looks like a reference (its first 4 KiB name the format). */
int reference_detect(const char *path);

#endif
