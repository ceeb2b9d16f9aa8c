/*
 * Extra-P's text input format (docs/formats.md): PARAMETER, POINTS,
 * REGION, METRIC and DATA lines, one DATA line per point with one value
 * per repetition.  The reader fills a struct experiment; the writer emits
 * a file Extra-P (and this reader) reads back with the same values.
 *
 * Invariants: on error the reader leaves e valid but partially filled
 * (release it) and err holds one line "FILE:LINE: message".  Numbers are
 * read and written in the C locale whatever the process locale is.
 */
#ifndef PS_EXTRAP_TEXT_H
#define PS_EXTRAP_TEXT_H
#include "collectors/experiment.h"
#include "common/error.h"
#include <stddef.h>
#include <stdio.h>

/* The metric name used when DATA comes before any METRIC line. */
#define EXTRAP_TEXT_DEFAULT_METRIC "time"

/* Read path into e (initialised by the caller, normally empty). */
int extrap_text_read(struct experiment *e, const char *path, struct perr *err);
/* The same on a buffer; name is used in error messages (the fuzz target's entry). */
int extrap_text_parse(struct experiment *e, const char *text, size_t len, const char *name,
		      struct perr *err);
/*
 * Write the series of one metric (metric >= 0) or of all metrics (-1).
 * Every written series needs values at every point (the format has no
 * gaps); a series with no values at all is skipped.  Values are written
 * with 17 significant digits, so they read back bit-identical.
 */
int extrap_text_write(FILE *f, const struct experiment *e, int metric, struct perr *err);

#endif
