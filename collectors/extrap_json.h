/*
 * Extra-P's JSON input formats, read into and written from a struct
 * experiment (docs/formats-json-cubex.md):
 *
 *  - JSON (*.json), the current form:
 *      {"parameters": ["p", "size"],
 *       "measurements": {"<callpath>": {"<metric>": [
 *           {"point": [27, 25], "values": [1.5, 1.6]}, ...]}}}
 *    and, read only, the older id-based form ("callpaths", "metrics",
 *    "coordinates" with "parameter_value_pairs", "measurements" with ids);
 *  - JSON Lines (*.jsonl): one object per line,
 *      {"params": {"p": 27, "size": 25}, "callpath": "main", "metric": "time",
 *       "value": 1.5}      ("value" may be a list of repetitions; without
 *                           "callpath"/"metric" Extra-P uses "<root>" and
 *                           "<default>").
 *
 * Values are written with 17 significant digits, so a write/read round
 * trip reproduces every finite double exactly.  JSON has no NaN or
 * infinity: writing one is an error.  Errors name the file and the JSON
 * path or line: "f.json: measurements.main.time[2].point: ...".
 */
#ifndef PS_EXTRAP_JSON_H
#define PS_EXTRAP_JSON_H
#include "collectors/experiment.h"
#include "common/error.h"
#include <jansson.h>
#include <stdio.h>

/* Read a JSON file (either form; a file of JSON lines is accepted too). */
int extrap_json_read(struct experiment *e, const char *path, struct perr *err);
/* Read a JSON Lines file. */
int extrap_jsonl_read(struct experiment *e, const char *path, struct perr *err);
/* The same from memory; name is used in messages. */
int extrap_json_read_mem(struct experiment *e, const char *name, const char *buf, size_t len,
			 struct perr *err);
int extrap_jsonl_read_mem(struct experiment *e, const char *name, const char *buf, size_t len,
			  struct perr *err);

/* Write e.  Returns 0, or -1 with err (non-finite value, write error). */
int extrap_json_write(FILE *f, const struct experiment *e, struct perr *err);
int extrap_jsonl_write(FILE *f, const struct experiment *e, struct perr *err);
/*
 * The same, and annotate(ctx, callpath, metric, point, line) may add fields
 * to each line before it is written (readers ignore fields they do not know).
 */
typedef void (*jsonl_annotate_fn)(void *ctx, int callpath, int metric, int point, json_t *line);
int extrap_jsonl_write_annotated(FILE *f, const struct experiment *e, jsonl_annotate_fn annotate,
				 void *ctx, struct perr *err);

#endif
