/* Structural differences between two libconfig trees. */
#include "campaign/config_diff.h"
#include "campaign/config.h"
#include "common/error.h"
#include "common/strbuf.h"
#include <stdio.h>
#include <string.h>

static int skipped(const char *name, const char *const *skip)
{
	for (const char *const *s = skip; s && *s; s++)
		if (name && !strcmp(*s, name))
			return 1;
	return 0;
}

/* Two scalars of the same type: equal? */
static int same_scalar(const config_setting_t *a, const config_setting_t *b)
{
	switch (config_setting_type(a)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return config_setting_get_int64(a) == config_setting_get_int64(b);
	case CONFIG_TYPE_FLOAT:
		return config_setting_get_float(a) == config_setting_get_float(b);
	case CONFIG_TYPE_BOOL:
		return !config_setting_get_bool(a) == !config_setting_get_bool(b);
	case CONFIG_TYPE_STRING:
		return !strcmp(config_setting_get_string(a), config_setting_get_string(b));
	default:
		return 1;
	}
}

/* One walk over two trees: every difference goes to fn; first_only stops at the first. */
struct walk {
	config_diff_fn fn;
	void *ctx;
	int first_only;
	int count;
	const config_setting_t *where;  /* the last difference's place in b (its group when b lacks it) */
};

/* A difference at path (a or b NULL where absent); 1 when the walk stops. */
static int differ(struct walk *w, const char *path, const config_setting_t *a, const config_setting_t *b,
		  const config_setting_t *where)
{
	w->count++;
	w->where = where;
	w->fn(w->ctx, path, a, b);
	return w->first_only;
}

static int diff(struct walk *w, const config_setting_t *a, const config_setting_t *b, const char *path,
		const char *const *skip);

/* The members of group a and of group b, by name. */
static int diff_group(struct walk *w, const config_setting_t *a, const config_setting_t *b, const char *path,
		      const char *const *skip)
{
	char sub[512];
	for (int pass = 0; pass < 2; pass++) {
		const config_setting_t *x = pass ? b : a, *y = pass ? a : b;
		for (int i = 0; i < config_setting_length(x); i++) {
			const config_setting_t *m = config_setting_get_elem(x, (unsigned)i);
			const char *name = config_setting_name(m);
			if (skipped(name, skip))
				continue;
			snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", name ? name : "?");
			const config_setting_t *o = config_setting_get_member(y, name);
			if (!o && differ(w, sub, pass ? NULL : m, pass ? m : NULL, pass ? m : y))
				return 1;
			if (o && !pass && diff(w, m, o, sub, NULL))
				return 1;
		}
	}
	return 0;
}

static int diff(struct walk *w, const config_setting_t *a, const config_setting_t *b, const char *path,
		const char *const *skip)
{
	int t = config_setting_type(a);
	if (t != config_setting_type(b))
		return differ(w, path, a, b, b);
	if (t == CONFIG_TYPE_GROUP)
		return diff_group(w, a, b, path, skip);
	if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
		if (config_setting_length(a) != config_setting_length(b))
			return differ(w, path, a, b, b);
		char sub[512];
		for (int i = 0; i < config_setting_length(a); i++) {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
			if (diff(w, config_setting_get_elem(a, (unsigned)i), config_setting_get_elem(b, (unsigned)i),
				 sub, NULL))
				return 1;
		}
		return 0;
	}
	return same_scalar(a, b) ? 0 : differ(w, path, a, b, b);
}

int config_diff_each(const config_setting_t *a, const config_setting_t *b, const char *const *skip,
		     config_diff_fn fn, void *ctx)
{
	struct walk w = { fn, ctx, 0, 0, NULL };
	diff(&w, a, b, "", skip);
	return w.count;
}

/* config_diff's first difference: its key. */
struct first {
	char *key;
	size_t n;
};

static void note_first(void *ctx, const char *key, const config_setting_t *a, const config_setting_t *b)
{
	struct first *f = ctx;
	(void)a;
	(void)b;
	snprintf(f->key, f->n, "%s", key);
}

int config_diff(const config_setting_t *a, const config_setting_t *b, const char *const *skip,
		char *key, size_t n, int *line)
{
	struct first f = { key, n };
	struct walk w = { note_first, &f, 1, 0, NULL };
	int d = diff(&w, a, b, "", skip);
	if (d)
		*line = w.where ? (int)config_setting_source_line(w.where) : 0;
	return d;
}

static void ignore(void *ctx, const char *key, const config_setting_t *a, const config_setting_t *b)
{
	(void)ctx;
	(void)key;
	(void)a;
	(void)b;
}

static int same(const config_setting_t *a, const config_setting_t *b)
{
	struct walk w = { ignore, NULL, 1, 0, NULL };
	return !diff(&w, a, b, "", NULL);
}

void config_diff_span(const config_setting_t *a, const config_setting_t *b, int *from, int *a_end, int *b_end)
{
	int la = config_setting_length(a), lb = config_setting_length(b), p = 0, q = 0;
	while (p < la && p < lb && same(config_setting_get_elem(a, (unsigned)p), config_setting_get_elem(b, (unsigned)p)))
		p++;
	while (q < la - p && q < lb - p &&
	       same(config_setting_get_elem(a, (unsigned)(la - 1 - q)), config_setting_get_elem(b, (unsigned)(lb - 1 - q))))
		q++;
	*from = p;
	*a_end = la - q;
	*b_end = lb - q;
}

void config_value_text(const config_setting_t *s, struct strbuf *sb)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		strbuf_addf(sb, "%lld", config_setting_get_int64(s));
		return;
	case CONFIG_TYPE_FLOAT:
		strbuf_addf(sb, "%.17g", config_setting_get_float(s));
		return;
	case CONFIG_TYPE_BOOL:
		strbuf_addstr(sb, config_setting_get_bool(s) ? "true" : "false");
		return;
	case CONFIG_TYPE_STRING:
		strbuf_addf(sb, "\"%s\"", config_setting_get_string(s));
		return;
	default:
		break;
	}
	int group = config_setting_type(s) == CONFIG_TYPE_GROUP;
	int list = config_setting_type(s) == CONFIG_TYPE_LIST;
	strbuf_addstr(sb, group ? "{ " : list ? "( " : "[ ");
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
		if (i && !group)
			strbuf_addstr(sb, ", ");
		if (group)
			strbuf_addf(sb, "%s = ", config_setting_name(m));
		config_value_text(m, sb);
		if (group)
			strbuf_addstr(sb, "; ");
	}
	strbuf_addstr(sb, group ? "}" : list ? " )" : " ]");
}

int campaign_config_diff(const struct campaign_config *a, const struct campaign_config *b,
			 const char *const *skip, char *key, size_t n, int *line)
{
	return config_diff(config_root_setting(&a->cfg), config_root_setting(&b->cfg), skip, key, n, line);
}

static int is_sequence(const config_setting_t *s)
{
	return s && (config_setting_is_array(s) || config_setting_is_list(s));
}

/* The elements [from, to) of s, comma-separated, into sb; nothing for an empty range. */
static void add_elems(struct strbuf *sb, const config_setting_t *s, int from, int to)
{
	for (int i = from; i < to; i++) {
		strbuf_addstr(sb, i > from ? ", " : "");
		config_value_text(config_setting_get_elem(s, (unsigned)i), sb);
	}
}

struct text_walk {
	config_text_diff_fn fn;
	void *ctx;
};

/* One difference as text; of two sequences, only the elements that differ. */
static void text_diff(void *ctx, const char *key, const config_setting_t *a, const config_setting_t *b)
{
	const struct text_walk *w = ctx;
	struct strbuf k, v[2];
	strbuf_init(&k);
	strbuf_init(&v[0]);
	strbuf_init(&v[1]);
	strbuf_addstr(&k, key);
	int from, end[2];
	if (is_sequence(a) && is_sequence(b)) {
		config_diff_span(a, b, &from, &end[0], &end[1]);
		int last = (end[0] > end[1] ? end[0] : end[1]) - 1;
		strbuf_addf(&k, last > from ? "[%d..%d]" : "[%d]", from, last);
		add_elems(&v[0], a, from, end[0]);
		add_elems(&v[1], b, from, end[1]);
	} else {
		if (a)
			config_value_text(a, &v[0]);
		if (b)
			config_value_text(b, &v[1]);
	}
	w->fn(w->ctx, k.buf, v[0].len ? v[0].buf : NULL, v[1].len ? v[1].buf : NULL);
	strbuf_release(&k);
	strbuf_release(&v[0]);
	strbuf_release(&v[1]);
}

static int parse_text(config_t *cfg, const struct config_text *t, struct perr *err)
{
	config_set_include_dir(cfg, t->dir);
	if (config_read_string(cfg, t->text) == CONFIG_TRUE)
		return 0;
	return perr_set(err, "%s does not parse: %s", t->label, config_error_text(cfg));
}

int config_diff_texts(const struct config_text *a, const struct config_text *b, const char *const *skip,
		      config_text_diff_fn fn, void *ctx, struct perr *err)
{
	config_t cfg[2];
	config_init(&cfg[0]);
	config_init(&cfg[1]);
	int rc = -1;
	if (!parse_text(&cfg[0], a, err) && !parse_text(&cfg[1], b, err)) {
		struct text_walk w = { fn, ctx };
		rc = config_diff_each(config_root_setting(&cfg[0]), config_root_setting(&cfg[1]), skip,
				      text_diff, &w);
	}
	config_destroy(&cfg[0]);
	config_destroy(&cfg[1]);
	return rc;
}
