/*
 * How a parameter value and a point ("n=72, i=5") are written, everywhere:
 * integers without a point or exponent, other values in the shortest form
 * that reads back to the same double (0.1, not 0.10000000000000001).
 */
#ifndef PS_POINT_TEXT_H
#define PS_POINT_TEXT_H
#include "common/strbuf.h"
#include <stddef.h>

/* v into buf (n bytes; 32 always suffice). */
void value_text(char *buf, size_t n, double v);
/* "NAME=VALUE" for each of the n parameters, joined by sep (", ", ",", " "). */
void point_text(struct strbuf *sb, const char *const *names, const double *values, int n, const char *sep);

#endif
