/* Placeholder substitution in command arguments and environment entries. */
#include "campaign/template.h"
#include "common/fsutil.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
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

int template_uses(const char *t, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = t; *p; p++) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			p++;
			continue;
		}
		if (*p == '{' && !strncmp(p + 1, name, n) && p[n + 1] == '}')
			return 1;
	}
	return 0;
}

int template_fill_file(const char *from, const char *dir, const char *to, const struct template_var *vars,
		       int nvars, struct perr *err)
{
	struct strbuf in;
	const char *why = NULL;
	strbuf_init(&in);
	if (fs_read_regular(&in, from, &why)) {
		strbuf_release(&in);
		return perr_set(err, "template '%s' -> '%s': %s", from, to, why ? why : strerror(errno));
	}
	if (memchr(in.buf, '\0', in.len)) {
		strbuf_release(&in);
		return perr_set(err, "template '%s' -> '%s': the file holds a NUL byte; a template is text", from, to);
	}
	char *out = template_expand(in.buf, vars, nvars);
	strbuf_release(&in);
	char *path = xasprintf("%s/%s", dir, to), *slash = strrchr(path, '/');
	int rc = 0;
	*slash = '\0';
	if (fs_mkdir_p(path))
		rc = perr_set(err, "template '%s' -> '%s': cannot create '%s': %s", from, to, path, strerror(errno));
	*slash = '/';
	if (!rc && fs_write_file(path, out, strlen(out)))
		rc = perr_set(err, "template '%s' -> '%s': cannot write '%s': %s", from, to, path, strerror(errno));
	free(path);
	free(out);
	return rc;
}
