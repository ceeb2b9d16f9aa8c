/*
 * Text from input files on a terminal.  A region name, a parameter or a
 * file name read from a reference, an Extra-P file or a profile may hold
 * control characters; printed raw, ESC and its friends move the cursor,
 * retitle the window or rewrite what is shown.  Everything perfsweep prints
 * as text goes through display_escape once: C0 controls other than newline
 * and tab, DEL, C1 controls and bytes that are not UTF-8 become \xNN;
 * valid UTF-8 text is left as it is.
 */
#ifndef PS_DISPLAY_H
#define PS_DISPLAY_H
#include <stddef.h>
#include <stdio.h>

struct strbuf;

/* Append s[0..n) to sb, escaped for display. */
void display_escape(struct strbuf *sb, const char *s, size_t n);

/*
 * A stream whose text reaches out escaped by display_escape (a UTF-8
 * sequence split between two writes is kept whole).  fclose it to flush;
 * out stays open.  NULL when it cannot be made.
 */
FILE *display_stream(FILE *out);

#endif
