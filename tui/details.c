/* Details of one run for the monitor: argv, per-rank binding, history, output tails. */
#include "tui/details.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tui/model.h"
#include "analysis/run_usage.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A run's JSON file, read as every input is (fs_read_file: a program may
   leave a FIFO or a huge file there): NULL with errno, and jerr's text. */
static json_t *load_json(const char *path, json_error_t *jerr)
{
	struct strbuf sb;
	const char *why;
	strbuf_init(&sb);
	json_t *j = NULL;
	if (fs_read_file(&sb, path, 0, &why)) {
		int e = errno;
		snprintf(jerr->text, sizeof(jerr->text), "%s", why);
		jerr->line = 0;
		errno = e;
	} else {
		j = json_loadb(sb.buf, sb.len, 0, jerr);
		errno = j ? 0 : EINVAL;
	}
	strbuf_release(&sb);
	return j;
}

static void lines_add(struct top_lines *l, const char *s, size_t len)
{
	l->v = xrealloc(l->v, sizeof(*l->v) * (size_t)(l->n + 1));
	l->v[l->n++] = xstrndup(s, len);
}

void top_lines_release(struct top_lines *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void top_lines_tail(struct top_lines *l, const char *path, int maxlines)
{
	enum { TAIL_BYTES = 64 * 1024 };
	top_lines_release(l);
	const char *why;
	int fd = fs_open_regular(path, 1, &why);      /* an application may leave a FIFO there */
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!f && fd >= 0)
		close(fd);
	if (!f || maxlines <= 0) {
		if (f)
			fclose(f);
		return;
	}
	char *buf = xmalloc(TAIL_BYTES + 1);
	long start = 0;
	if (fseek(f, 0, SEEK_END) == 0) {
		long size = ftell(f);
		start = size > TAIL_BYTES ? size - TAIL_BYTES : 0;
	}
	fseek(f, start, SEEK_SET);
	size_t n = fread(buf, 1, TAIL_BYTES, f);
	fclose(f);
	buf[n] = '\0';
	/* drop a partial first line when we started mid-file */
	char *p = buf;
	if (start > 0) {
		char *nl = memchr(buf, '\n', n);
		p = nl ? nl + 1 : buf + n;
	}
	char *end = buf + n;
	if (end > p && end[-1] == '\n')
		end--;
	if (end <= p) {
		free(buf);
		return;
	}
	/* start of the maxlines-th line from the end */
	char *first = end;
	for (int count = 0; first > p; first--)
		if (first[-1] == '\n' && ++count == maxlines)
			break;
	for (char *s = first; s <= end;) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (len && s[len - 1] == '\r')
			len--;
		lines_add(l, s, len);
		if (!nl)
			break;
		s = nl + 1;
	}
	free(buf);
}

static void json_scalar(struct strbuf *sb, json_t *v)
{
	if (json_is_string(v))
		strbuf_addstr(sb, json_string_value(v));
	else if (json_is_integer(v))
		strbuf_addf(sb, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		strbuf_addf(sb, "%g", json_real_value(v));
	else if (json_is_true(v))
		strbuf_addstr(sb, "true");
	else if (json_is_false(v))
		strbuf_addstr(sb, "false");
	else if (json_is_null(v))
		strbuf_addstr(sb, "null");
	else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		strbuf_addch(sb, '[');
		json_array_foreach(v, i, x) {
			if (i)
				strbuf_addch(sb, ',');
			json_scalar(sb, x);
		}
		strbuf_addch(sb, ']');
	} else if (json_is_object(v)) {
		const char *k;
		json_t *x;
		int first = 1;
		strbuf_addch(sb, '{');
		json_object_foreach(v, k, x) {
			strbuf_addf(sb, "%s%s=", first ? "" : " ", k);
			json_scalar(sb, x);
			first = 0;
		}
		strbuf_addch(sb, '}');
	}
}

/* One line per rank-<r>.json: "rank 0: key=value ...". */
static void load_binding(struct top_lines *l, const char *run_dir)
{
	for (int r = 0; r < 4096; r++) {
		char *path = xasprintf("%s/rank-%d.json", run_dir, r);
		json_error_t jerr;
		json_t *j = load_json(path, &jerr);
		if (!j && errno == ENOENT) {
			free(path);
			break;
		}
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_addf(&sb, "rank %d: ", r);
		if (!j) {
			strbuf_addf(&sb, "unreadable (%s:%d: %s)", path, jerr.line, jerr.text);
		} else if (json_is_object(j) && json_is_string(json_object_get(j, "format")) &&
			   !strcmp(json_string_value(json_object_get(j, "format")), "perfsweep-rank/1")) {
			/* placement/bind.c's record: where the rank ran and on what */
			static const char *const keys[][2] = {
				{ "node", "node" }, { "local_rank", "local" }, { "cores", "cores" },
				{ "cpuset", "cpus" }, { "policy", "policy" }, { "pid", "pid" },
				{ "exit_status", "exit" }, { "signal", "signal" }, { "error", "error" },
			};
			int first = 1;
			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
				json_t *x = json_object_get(j, keys[k][0]);
				if (!x || json_is_null(x) || (json_is_string(x) && !*json_string_value(x)))
					continue;
				strbuf_addf(&sb, "%s%s ", first ? "" : "  ", keys[k][1]);
				json_scalar(&sb, x);
				first = 0;
			}
		} else if (json_is_object(j)) {
			const char *k;
			json_t *x;
			int first = 1;
			json_object_foreach(j, k, x) {
				if (!strcmp(k, "rank"))
					continue;
				strbuf_addf(&sb, "%s%s=", first ? "" : " ", k);
				json_scalar(&sb, x);
				first = 0;
			}
		} else {
			json_scalar(&sb, j);
		}
		json_decref(j);
		lines_add(l, sb.buf, sb.len);
		strbuf_release(&sb);
		free(path);
	}
}

/* The command line the run engine recorded (runs/<id>/argv.json), or NULL.
   Arguments with blanks or quotes are shown single-quoted, as a shell would need. */
static char *load_argv(const char *run_dir)
{
	char *path = xasprintf("%s/argv.json", run_dir);
	json_error_t jerr;
	json_t *a = load_json(path, &jerr);
	free(path);
	if (!a)
		return NULL;
	if (!json_is_array(a)) {
		json_decref(a);
		return NULL;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) {
		const char *arg = json_is_string(x) ? json_string_value(x) : "?";
		if (i)
			strbuf_addch(&sb, ' ');
		if (!*arg || strpbrk(arg, " \t'\"\\$")) {
			strbuf_addch(&sb, '\'');
			for (const char *p = arg; *p; p++) {
				if (*p == '\'')
					strbuf_addstr(&sb, "'\\''");
				else
					strbuf_addch(&sb, *p);
			}
			strbuf_addch(&sb, '\'');
		} else {
			strbuf_addstr(&sb, arg);
		}
	}
	json_decref(a);
	char *line = strbuf_detach(&sb);
	strbuf_release(&sb);    /* detach re-initialises it */
	return line;
}

/* One line per resource record: "rank 0: CPU share 0.99 (user 0.98 s, ...)". */
static void load_resources(struct top_lines *l, struct store *st, long long id, struct perr *err)
{
	struct run_resource *rs;
	int n;
	if (store_load_resources(st, id, &rs, &n, err) < 0)
		return;
	for (int i = 0; i < n; i++) {
		const struct run_resource *x = &rs[i];
		struct strbuf sb;
		strbuf_init(&sb);
		if (x->rank >= 0)
			strbuf_addf(&sb, "rank %d: ", x->rank);
		else
			strbuf_addstr(&sb, "whole run: ");
		strbuf_addf(&sb, "CPU share %.2f", x->cpu_share);
		if (isfinite(x->allowed_share) && x->allowed_share != 1)
			strbuf_addf(&sb, " of %.2g allowed", x->allowed_share);
		strbuf_addf(&sb, " (user %.3g s, sys %.3g s, wall %.3g s)", x->utime, x->stime, x->wall);
		if (x->maxrss_kb >= 0)
			strbuf_addf(&sb, "  max RSS %.1f MB", (double)x->maxrss_kb / 1024);
		if (x->nvcsw >= 0 && x->nivcsw >= 0)
			strbuf_addf(&sb, "  switches %lld vol, %lld invol", x->nvcsw, x->nivcsw);
		if (isfinite(x->load_start) && isfinite(x->load_end))
			strbuf_addf(&sb, "  load %.2f -> %.2f", x->load_start, x->load_end);
		if (isfinite(x->run_delay))
			strbuf_addf(&sb, "  waited for a CPU %.3g s", x->run_delay);
		if (isfinite(x->foreign))
			strbuf_addf(&sb, "  others on its cores %.3g s", x->foreign);
		if (isfinite(x->steal) && x->steal > 0)
			strbuf_addf(&sb, "  steal %.3g s", x->steal);
		if (isfinite(x->quiet_wait) && x->quiet_wait > 0)
			strbuf_addf(&sb, "  quiet gate %.1f s", x->quiet_wait);
		lines_add(l, sb.buf, sb.len);
		strbuf_release(&sb);
	}
	free(rs);
}

/* Why run id counts as disturbed under the campaign's rule (NULL: it does not), and who took its time. */
static char *disturbed_text(struct store *st, long long id, struct top_details *d, struct perr *err)
{
	struct disturbed_result res;
	char *why = NULL;
	if (run_usage_judge(st, 0, &res, err) == 0)
		for (int i = 0; i < res.n && !why; i++)
			if (res.runs[i].run == id) {
				struct strbuf sb;
				strbuf_init(&sb);
				disturbed_reason(&sb, &res, &res.runs[i]);
				why = strbuf_detach(&sb);
				d->causes = res.runs[i].causes;
				d->ncauses = res.runs[i].ncauses;
				res.runs[i].causes = NULL;
				res.runs[i].ncauses = 0;
			}
	disturbed_result_release(&res);
	return why;
}

int top_details_load(struct top_details *d, struct top_model *m, long long id, int maxlines,
		     struct perr *err)
{
	struct top_details nd;
	memset(&nd, 0, sizeof(nd));
	nd.id = id;
	if (store_load_run(m->st, id, &nd.run, err) < 0)
		return -1;
	if (store_run_events(m->st, id, &nd.ev, &nd.nev, err) < 0) {
		run_release(&nd.run);
		return -1;
	}
	char *dir = store_run_path(m->st, id);   /* a viewer makes nothing */
	nd.argv = load_argv(dir);
	load_binding(&nd.bind, dir);
	struct perr rerr;   /* what a run used is shown when it can be read */
	load_resources(&nd.res, m->st, id, &rerr);
	nd.disturbed = disturbed_text(m->st, id, &nd, &rerr);
	char *p = xasprintf("%s/stdout", dir);
	top_lines_tail(&nd.out, p, maxlines);
	free(p);
	p = xasprintf("%s/stderr", dir);
	top_lines_tail(&nd.err, p, maxlines);
	free(p);
	free(dir);
	nd.live = run_is_in_flight(nd.run.state);
	top_details_release(d);
	*d = nd;
	return 0;
}

void top_details_release(struct top_details *d)
{
	if (d->id)
		run_release(&d->run);
	run_events_free(d->ev, d->nev);
	free(d->argv);
	top_lines_release(&d->bind);
	top_lines_release(&d->res);
	free(d->disturbed);
	free(d->causes);
	top_lines_release(&d->out);
	top_lines_release(&d->err);
	memset(d, 0, sizeof(*d));
}
