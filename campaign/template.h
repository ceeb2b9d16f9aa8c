/*
 * Command templates: "{name}" is replaced by a value, "{{" and "}}" stand
 * for literal braces.  The result is one argument: no shell, no splitting,
 * so a value such as "a;b" or "$(x)" reaches the program unchanged.
 */
#ifndef PS_TEMPLATE_H
#define PS_TEMPLATE_H

struct template_var {
	const char *name;
	const char *value;
};

/* Expand t; unknown names are left as they are (config_load rejects them). */
char *template_expand(const char *t, const struct template_var *vars, int nvars);
/* Format a parameter value as it appears in commands: integers without a point. */
void template_format_value(char *buf, unsigned long n, double v, int is_int);

#endif
