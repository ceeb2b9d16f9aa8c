/*
 * The JSON form of a PMNF model (the stable contract of docs/modelling.md):
 * {"model": "<pmnf_format, round-trip digits>", "constant", "terms":
 * [{"coefficient", "factors": [{"parameter", "poly_exponent",
 * "log_exponent"}]}], "rss", "ar2", "smape", "re"}; non-finite numbers are
 * null.
 */
#ifndef PS_PMNF_JSON_H
#define PS_PMNF_JSON_H
#include "models/pmnf.h"
#include <jansson.h>

/* A new object; the caller owns the reference (json_decref). */
json_t *pmnf_json(const struct pmnf_model *m);

#endif
