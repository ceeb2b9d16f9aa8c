/*
 * Command templates: "{name}" is replaced by a value, "{{" and "}}" stand
 * for literal braces.  The result is one argument: no shell, no splitting,
 * so a value such as "a;b" or "$(x)" reaches the program unchanged.
 */
#ifndef PS_TEMPLATE_H
#define PS_TEMPLATE_H
#include "common/error.h"

struct template_var {
	const char *name;
	const char *value;
};

/* Expand t; unknown names are left as they are (config_load rejects them). */
char *template_expand(const char *t, const struct template_var *vars, int nvars);
/*
 * An input template (app.template): the file from, expanded as a command
 * argument is (unknown names left as they are, so an input's own braces
 * survive), written as dir/to (to relative; its directories made).  0, or
 * -1 with err ("template 'FROM' -> 'TO': why").
 */
int template_fill_file(const char *from, const char *dir, const char *to, const struct template_var *vars,
		       int nvars, struct perr *err);
/* Does template text t use placeholder name ({name})? */
int template_uses(const char *t, const char *name);
/* Format a parameter value as it appears in commands: integers without a point. */
void template_format_value(char *buf, unsigned long n, double v, int is_int);

#endif
