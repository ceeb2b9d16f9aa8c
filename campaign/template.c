/* Placeholder substitution in command arguments and environment entries. */
#include "campaign/template.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *template_expand(const char *t, const struct template_var *vars, int nvars)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (const char *p = t; *p; p++) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			strbuf_addch(&sb, *p++);
			continue;
		}
		const char *end = *p == '{' ? strchr(p, '}') : NULL;
		if (!end) {
			strbuf_addch(&sb, *p);
			continue;
		}
		size_t len = (size_t)(end - p - 1);
		int found = 0;
		for (int i = 0; i < nvars && !found; i++)
			if (strlen(vars[i].name) == len && !strncmp(vars[i].name, p + 1, len)) {
				strbuf_addstr(&sb, vars[i].value);
				found = 1;
			}
		if (!found)
			strbuf_add(&sb, p, (size_t)(end - p + 1));
		p = end;
	}
	return strbuf_detach(&sb);
}

void template_format_value(char *buf, unsigned long n, double v, int is_int)
{
	if (is_int)
		snprintf(buf, n, "%.0f", v);
	else
		value_text(buf, n, v);
}
