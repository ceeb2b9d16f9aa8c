/* A campaign's collectors run over one run's files. */
#include "collectors/collector_set.h"
#include "collectors/cubex_collect.h"
#include "collectors/wall.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_missed(struct collect_result *r, char *name)
{
	r->missed = xrealloc(r->missed, ((size_t)r->nmissed + 1) * sizeof(char *));
	r->missed[r->nmissed++] = name;
}

static void add_problem(struct strbuf *errs, const char *what)
{
	strbuf_addf(errs, "%s%s", errs->len ? "; " : "", what);
}

/* The regex patterns: their values, problems and the patterns that missed. */
static void run_regex(const struct collector_set *cs, const char *run_dir, struct collect_result *out,
		      struct strbuf *errs)
{
	struct perr err = { 0 };
	char *rx_err = NULL;
	unsigned char *missed = xcalloc((size_t)cs->nregex, 1);
	int rc = collect_regex(run_dir, cs->regex, cs->nregex, &cs->limits, &out->ml, &rx_err, missed, &err);
	if (rc < 0) {
		add_problem(errs, err.msg);
		memset(missed, 1, (size_t)cs->nregex);
	}
	out->interrupted = rc > 0;
	if (rx_err)
		add_problem(errs, rx_err);
	for (int i = 0; i < cs->nregex; i++)
		if (missed[i])
			add_missed(out, xasprintf("regex %s/%s", cs->regex[i].region, cs->regex[i].metric));
	free(rx_err);
	free(missed);
}

void collector_set_run(const struct collector_set *cs, const char *run_dir, double wall,
		       struct collect_result *out)
{
	struct perr err = { 0 };
	struct strbuf errs;
	memset(out, 0, sizeof(*out));
	measurement_list_init(&out->ml);
	strbuf_init(&errs);
	if (cs->wall)
		collect_wall(run_dir, wall, &out->ml, &err);
	if (cs->nregex)
		run_regex(cs, run_dir, out, &errs);
	if (cs->cubex && !out->interrupted) {
		char *dir = xasprintf("%s/%s", run_dir, CUBEX_SCOREP_SUBDIR);
		if (collect_cubex(dir, cs->cubex_metrics, cs->ncubex_metrics, &out->ml, &err)) {
			add_problem(&errs, err.msg);
			add_missed(out, xstrdup("cubex"));
		}
		free(dir);
	}
	if (errs.len)
		out->error = strbuf_detach(&errs);
	strbuf_release(&errs);
}

void collect_result_release(struct collect_result *r)
{
	measurement_list_release(&r->ml);
	free(r->error);
	for (int i = 0; i < r->nmissed; i++)
		free(r->missed[i]);
	free(r->missed);
	memset(r, 0, sizeof(*r));
}

/* One field of the canonical description: its length, then its bytes. */
static void field(struct strbuf *sb, const char *s)
{
	strbuf_addf(sb, "%zu:%s", s ? strlen(s) : (size_t)0, s ? s : "");
}

char *collector_set_fingerprint(const struct collector_set *cs)
{
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "wall=%d;regex=%d;", cs->wall ? 1 : 0, cs->nregex);
	for (int i = 0; i < cs->nregex; i++) {
		const struct regex_pattern *p = &cs->regex[i];
		field(&sb, p->region);
		field(&sb, p->metric);
		field(&sb, p->pattern);
		field(&sb, p->file ? NULL : p->stream);
		field(&sb, p->file);
		field(&sb, p->aggregate ? p->aggregate : "last");
		if (p->scale != 0 && p->scale != 1)     /* only then: the fingerprints of earlier sets stay */
			strbuf_addf(&sb, "scale=%.17g;", p->scale);
	}
	strbuf_addf(&sb, "cubex=%d;", cs->cubex ? cs->ncubex_metrics : -1);
	for (int i = 0; cs->cubex && i < cs->ncubex_metrics; i++)
		field(&sb, cs->cubex_metrics[i]);
	uint64_t h = 1469598103934665603ULL;       /* FNV-1a */
	for (size_t i = 0; i < sb.len; i++)
		h = (h ^ (unsigned char)sb.buf[i]) * 1099511628211ULL;
	strbuf_release(&sb);
	return xasprintf("%016llx", (unsigned long long)h);
}
