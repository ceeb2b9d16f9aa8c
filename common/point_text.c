/* The one way values and points are written (point_text.h). */
#include "common/point_text.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void value_text(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, n, "%.0f", v);
		return;
	}
	snprintf(buf, n, "%.17g", v);   /* NaN, inf, and the fallback */
	for (int prec = 1; prec <= 17 && isfinite(v); prec++) {
		char tmp[64];
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v) {
			snprintf(buf, n, "%s", tmp);
			return;
		}
	}
}

void point_text(struct strbuf *sb, const char *const *names, const double *values, int n, const char *sep)
{
	for (int k = 0; k < n; k++) {
		char v[32];
		value_text(v, sizeof(v), values[k]);
		strbuf_addf(sb, "%s%s=%s", k ? sep : "", names[k], v);
	}
}
