/* The regex collector: numbers captured from a run's output. */
#include "collectors/regex_collect.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *aggregates[] = { "last", "first", "sum", "mean", "max", "min", NULL };

int regex_compile(regex_t *re, const char *pattern, char *msg, size_t n)
{
	int rc = regcomp(re, pattern, REG_EXTENDED | REG_NEWLINE);
	if (!rc)
		return 0;
	regerror(rc, re, msg, n);
	return -1;
}

int regex_aggregate_valid(const char *name)
{
	for (const char **a = aggregates; *a; a++)
		if (!strcmp(*a, name))
			return 1;
	return 0;
}

/* All matches of re in text, aggregated; returns the number of matches. */
static int scan(const regex_t *re, const char *text, const char *agg, double *out)
{
	regmatch_t m[2];
	const char *p = text;
	int n = 0;
	double acc = 0;
	/* a search that starts mid-line must not take its start for a line start */
	while (*p && !regexec(re, p, 2, m, p == text || p[-1] == '\n' ? 0 : REG_NOTBOL)) {
		if (m[1].rm_so >= 0) {
			char num[64];
			size_t len = (size_t)(m[1].rm_eo - m[1].rm_so);
			if (len >= sizeof(num))
				len = sizeof(num) - 1;
			memcpy(num, p + m[1].rm_so, len);
			num[len] = '\0';
			char *end;
			double v = strtod(num, &end);
			if (end != num && !*end && isfinite(v)) {
				if (!n || !strcmp(agg, "last"))
					acc = v;
				else if (!strcmp(agg, "sum") || !strcmp(agg, "mean"))
					acc += v;
				else if (!strcmp(agg, "max"))
					acc = v > acc ? v : acc;
				else if (!strcmp(agg, "min"))
					acc = v < acc ? v : acc;
				n++;
			}
		}
		p += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
	}
	if (n && !strcmp(agg, "mean"))
		acc /= n;
	*out = acc;
	return n;
}

/* Rank numbers r with a file rank-<r>.<stream> in the run directory. */
static int list_ranks(const char *run_dir, const char *stream, int **ranks)
{
	DIR *d = opendir(run_dir);
	int n = 0;
	size_t alloc = 0;
	*ranks = NULL;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		int r, len = 0;
		char suffix[16];
		if (sscanf(e->d_name, "rank-%d.%15[a-z]%n", &r, suffix, &len) == 2 &&
		    !e->d_name[len] && !strcmp(suffix, stream) && r > 0) {
			XGROW(*ranks, (size_t)n + 1, alloc);
			(*ranks)[n++] = r;
		}
	}
	closedir(d);
	return n;
}

int regex_file_valid(const char *file, const char **why)
{
	if (!*file)
		return *why = "file is empty", 0;
	if (file[0] == '/')
		return *why = "file must be relative to the run directory", 0;
	for (const char *p = file; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return *why = "file contains a control character", 0;
	for (const char *p = file; *p;) {
		size_t len = strcspn(p, "/");
		if (len == 2 && !strncmp(p, "..", 2))
			return *why = "file must stay inside the run directory (no '..')", 0;
		p += len;
		p += *p == '/';
	}
	return 1;
}

/* One pattern over one named file of the run directory, stored as rank 0;
   returns 1 when it matched. */
static int collect_file(const char *run_dir, const struct regex_pattern *p, const regex_t *re,
			 const char *agg, struct measurement_list *out, struct strbuf *problems)
{
	struct strbuf text;
	strbuf_init(&text);
	char *path = xasprintf("%s/%s", run_dir, p->file);
	double v;
	int matched = 0;
	if (strbuf_read_file(&text, path))
		strbuf_addf(problems, "%s%s/%s: file '%s' is missing in the run directory", problems->len ? "; " : "",
			    p->region, p->metric, p->file);
	else if ((matched = scan(re, text.buf, agg, &v) > 0))
		measurement_list_add(out, 0, p->region, p->metric, v);
	else
		strbuf_addf(problems, "%spattern for %s/%s never matched %s", problems->len ? "; " : "",
			    p->region, p->metric, p->file);
	free(path);
	strbuf_release(&text);
	return matched;
}

/* One pattern over the output stream of every rank; returns 1 when it
   matched in at least one. */
static int collect_stream(const char *run_dir, const struct regex_pattern *p, const regex_t *re,
			   const char *agg, struct measurement_list *out, struct strbuf *problems)
{
	struct strbuf text;
	strbuf_init(&text);
	int *ranks, nranks = list_ranks(run_dir, p->stream, &ranks);
	int matched = 0;
	for (int k = -1; k < nranks; k++) {
		int rank = k < 0 ? 0 : ranks[k];
		char *path = k < 0 ? xasprintf("%s/%s", run_dir, p->stream)
				   : xasprintf("%s/rank-%d.%s", run_dir, rank, p->stream);
		strbuf_reset(&text);
		double v;
		if (!strbuf_read_file(&text, path) && scan(re, text.buf, agg, &v)) {
			measurement_list_add(out, rank, p->region, p->metric, v);
			matched++;
		}
		free(path);
	}
	free(ranks);
	strbuf_release(&text);
	if (!matched)
		strbuf_addf(problems, "%spattern for %s/%s never matched %s", problems->len ? "; " : "",
			    p->region, p->metric, p->stream);
	return matched > 0;
}

int collect_regex(const char *run_dir, const struct regex_pattern *pats, int npats,
		  struct measurement_list *out, char **collect_error, unsigned char *missed,
		  struct perr *err)
{
	struct strbuf problems;
	strbuf_init(&problems);
	*collect_error = NULL;
	for (int i = 0; i < npats; i++) {
		const struct regex_pattern *p = &pats[i];
		regex_t re;
		char msg[256];
		if (regex_compile(&re, p->pattern, msg, sizeof(msg))) {
			strbuf_release(&problems);
			return perr_set(err, "invalid pattern '%s': %s", p->pattern, msg);
		}
		const char *agg = p->aggregate ? p->aggregate : "last";
		int matched = p->file ? collect_file(run_dir, p, &re, agg, out, &problems)
				      : collect_stream(run_dir, p, &re, agg, out, &problems);
		if (missed)
			missed[i] = !matched;
		regfree(&re);
	}
	if (problems.len)
		*collect_error = strbuf_detach(&problems);
	strbuf_release(&problems);
	return 0;
}
