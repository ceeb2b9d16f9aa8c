/*
 * perfsweep compare's report in three forms: a text table, the JSON
 * contract, and a self-contained HTML page (validate's style sheet).
 *
 * JSON contract (stable; fields are only ever added):
 *   {"regressions": [POINT], "improvements": [POINT], "unchanged": N,
 *    "models": [{"callpath", "metric", "base", "new", "leading_term_changed",
 *                "predicted_ratio", "scaling_regression", "region", "trend", ...}],
 *    "not_compared": [...], "config_diff": [{"key", "base", "new"}], ...}
 * (docs/compare.md has every field);
 * POINT = {"callpath", "metric", "point": {param: value}, "base_median",
 *          "new_median", "change", "ci": [lo, hi], "p_value", "p_min",
 *          "reachable", "n_base", "n_new", "exact"};
 * base/new are models as in docs/modelling.md plus "leading_term";
 * predicted_ratio is NEW/BASE at the largest common point, predicted_ratio_2x
 * at twice it.  Non-finite numbers are null.
 */
#ifndef PS_COMPARE_REPORT_H
#define PS_COMPARE_REPORT_H
#include "common/error.h"
#include "validator/compare.h"
#include <jansson.h>
#include <stdio.h>

/* The table of points (regressions and improvements first), the models and the verdict. */
void compare_report_text(FILE *f, const struct compare *c, const char *base, const char *new);

/* The JSON document; the caller owns the reference. */
json_t *compare_report_json(const struct compare *c, const char *base, const char *new);

/* Write the HTML page to path.  Returns 0, or -1 with err set. */
int compare_report_html(const char *path, const struct compare *c, const char *base, const char *new,
			struct perr *err);

#endif
