/* Usage lines, option lists and the man page's synopsis from the option rows (usage.h). */
#include "cli/usage.h"
#include "common/strbuf.h"
#include <ctype.h>
#include <string.h>

static int shown(const struct cli_option *o)
{
	return o->help != NULL;
}

/* The rows that refine the one named parent (NULL: the top-level rows). */
static int is_child(const struct cli_option *o, const char *parent)
{
	if (!parent)
		return !o->within;
	return o->within && !strcmp(o->within, parent);
}

static void text_rows(const struct cli_entry *c, const char *parent, struct strbuf *sb)
{
	for (const struct cli_option *o = c->options; o && o->name; o++) {
		if (!shown(o) || o->in_synopsis || !is_child(o, parent))
			continue;
		strbuf_addf(sb, " [--%s", o->name);
		if (o->arg)
			strbuf_addf(sb, " %s", o->arg);
		text_rows(c, o->name, sb);
		strbuf_addch(sb, ']');
	}
}

void cli_usage_text(const struct cli_entry *c, struct strbuf *sb)
{
	strbuf_addstr(sb, c->name);
	if (c->synopsis && *c->synopsis)
		strbuf_addf(sb, " %s", c->synopsis);
	text_rows(c, NULL, sb);
	for (const char *l = c->more_usage; l && *l;) {
		size_t n = strcspn(l, "\n");
		strbuf_addf(sb, "\n       perfsweep %.*s", (int)n, l);
		l += n + (l[n] == '\n');
	}
}

/* The short letter of row o, when the command takes it. */
static int short_key(const struct cli_entry *c, const struct cli_option *o)
{
	return o->key < 256 && isalpha(o->key) && c->shortopts && strchr(c->shortopts, o->key) ? o->key : 0;
}

void cli_options_text(const struct cli_entry *c, struct strbuf *sb)
{
	for (const struct cli_option *o = c->options; o && o->name; o++) {
		if (!shown(o))
			continue;
		size_t start = sb->len;
		int k = short_key(c, o);
		strbuf_addstr(sb, "  ");
		if (k)
			strbuf_addf(sb, "-%c, ", k);
		strbuf_addf(sb, "--%s", o->name);
		if (o->arg)
			strbuf_addf(sb, " %s", o->arg);
		size_t w = sb->len - start;
		/* the help in a column of its own, or on the next line past it */
		if (w < 28)
			strbuf_addf(sb, "%*s", (int)(30 - w), "");
		else
			strbuf_addf(sb, "\n%30s", "");
		strbuf_addf(sb, "%s\n", o->help);
	}
}

/* A placeholder as man pages write it: DIR as dir; a literal (publishable, 5%) as it is. */
static void add_arg(const char *w, size_t n, struct strbuf *sb)
{
	int caps = 1;
	for (size_t i = 0; i < n; i++)
		caps &= !islower((unsigned char)w[i]);
	for (size_t i = 0; i < n; i++)
		strbuf_addch(sb, caps ? (char)tolower((unsigned char)w[i]) : w[i]);
}

/* A word of a synopsis as mdoc: an option's name Fl, a placeholder Ar (lower case). */
static void mdoc_word(const char *w, size_t n, struct strbuf *sb)
{
	if (n > 2 && w[0] == '-' && w[1] == '-') {
		strbuf_addf(sb, ".Fl %.*s\n", (int)n - 1, w + 1);
		return;
	}
	if (n == 1 && w[0] == '|') {
		strbuf_addstr(sb, ".No \\&|\n");
		return;
	}
	strbuf_addstr(sb, ".Ar ");
	add_arg(w, n, sb);
	strbuf_addch(sb, '\n');
}

/* A written synopsis ("DIR | CONFIG", "[CAMPAIGN_DIR ...]", "(--cube DIR | --text FILE)"). */
static void mdoc_synopsis(const char *s, struct strbuf *sb)
{
	while (s && *s) {
		s += strspn(s, " ");
		size_t n = strcspn(s, " ");
		if (!n)
			break;
		const char *w = s;
		s += n;
		if (n == 9 && !strncmp(w, "[options]", 9)) {
			strbuf_addstr(sb, ".Op Ar options\n");
			continue;
		}
		for (; n && (*w == '[' || *w == '('); w++, n--)
			strbuf_addstr(sb, *w == '[' ? ".Oo\n" : ".Po\n");
		size_t closing = 0;
		while (closing < n && (w[n - 1 - closing] == ']' || w[n - 1 - closing] == ')'))
			closing++;
		if (n > closing) {
			if (n - closing == 3 && !strncmp(w, "...", 3))
				strbuf_addstr(sb, ".No ...\n");
			else
				mdoc_word(w, n - closing, sb);
		}
		for (size_t i = n - closing; i < n; i++)
			strbuf_addstr(sb, w[i] == ']' ? ".Oc\n" : ".Pc\n");
	}
}

static void mdoc_rows(const struct cli_entry *c, const char *parent, struct strbuf *sb)
{
	for (const struct cli_option *o = c->options; o && o->name; o++) {
		if (!shown(o) || o->in_synopsis || !is_child(o, parent))
			continue;
		int children = 0;
		for (const struct cli_option *q = c->options; q->name; q++)
			children |= shown(q) && !q->in_synopsis && is_child(q, o->name);
		strbuf_addstr(sb, children ? ".Oo\n.Fl -" : ".Op Fl -");
		strbuf_addstr(sb, o->name);
		if (o->arg) {
			strbuf_addstr(sb, " Ar ");
			add_arg(o->arg, strlen(o->arg), sb);
		}
		strbuf_addch(sb, '\n');
		if (children) {
			mdoc_rows(c, o->name, sb);
			strbuf_addstr(sb, ".Oc\n");
		}
	}
}

void cli_usage_mdoc(const struct cli_entry *c, struct strbuf *sb)
{
	strbuf_addf(sb, ".Nm\n.Cm %s\n", c->name);
	mdoc_synopsis(c->synopsis, sb);
	mdoc_rows(c, NULL, sb);
	for (const char *l = c->more_usage; l && *l;) {
		size_t n = strcspn(l, "\n"), cmd = strcspn(l, " ");
		strbuf_addf(sb, ".Nm\n.Cm %.*s\n", (int)cmd, l);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)(n > cmd ? n - cmd : 0), l + cmd);
		mdoc_synopsis(line, sb);
		l += n + (l[n] == '\n');
	}
}
