/* The regex collector: numbers captured from a run's output, through PCRE2. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "collectors/regex_collect.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *aggregates[] = { "last", "first", "sum", "mean", "max", "min", NULL };

struct regex_prog {
	pcre2_code *code;
};

/* The PCRE2 text of an ERE: what differs is rewritten, each output byte's
   source offset kept in src (for error offsets). */
struct xlat {
	struct strbuf out;
	size_t *src, alloc;
};

static void emit(struct xlat *x, const char *s, size_t from)
{
	size_t n = strlen(s);
	XGROW(x->src, x->out.len + n, x->alloc);
	for (size_t i = 0; i < n; i++)
		x->src[x->out.len + i] = from;
	strbuf_add(&x->out, s, n);
}

static void emit_ch(struct xlat *x, char c, size_t from)
{
	char s[2] = { c, '\0' };
	emit(x, s, from);
}

/* A bracket expression at p[i] ('['): POSIX rules, so a backslash is itself
   and ']' first is a member; [^...] never matches a newline.  Returns the
   offset after it (an unclosed one is copied for PCRE2 to report). */
static size_t bracket(struct xlat *x, const char *p, size_t i)
{
	size_t j = i + 1;
	emit(x, "[", i);
	if (p[j] == '^') {
		emit(x, "^\\n", j);
		j++;
	}
	if (p[j] == ']')
		emit(x, "\\]", j++);
	while (p[j] && p[j] != ']') {
		if (p[j] == '[' && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
			char close[3] = { p[j + 1], ']', '\0' };
			const char *e = strstr(p + j + 2, close);
			if (e) {
				for (size_t k = j; k < (size_t)(e - p) + 2; k++)
					emit_ch(x, p[k], k);
				j = (size_t)(e - p) + 2;
				continue;
			}
		}
		if (p[j] == '\\' || p[j] == '[')
			emit_ch(x, '\\', j);
		emit_ch(x, p[j], j);
		j++;
	}
	if (p[j] == ']')
		emit(x, "]", j++);
	return j;
}

static void translate(struct xlat *x, const char *p)
{
	for (size_t i = 0; p[i];) {
		if (p[i] == '[') {
			i = bracket(x, p, i);
		} else if (p[i] == '\\' && p[i + 1]) {
			const char *as = p[i + 1] == '<' ? "\\b(?=\\w)" : p[i + 1] == '>' ? "\\b(?<=\\w)"
				       : p[i + 1] == '`' ? "\\A" : p[i + 1] == '\'' ? "\\z" : NULL;
			if (as) {
				emit(x, as, i);
			} else {
				emit_ch(x, p[i], i);
				emit_ch(x, p[i + 1], i + 1);
			}
			i += 2;
		} else if (p[i] == '{' && p[i + 1] == ',') {
			emit(x, "{0", i++);     /* ERE's {,n} is PCRE2's {0,n} */
		} else {
			emit_ch(x, p[i], i);
			i++;
		}
	}
}

/* Compile text; NULL with msg naming the source offset of the problem. */
static pcre2_code *compile(const char *text, const struct xlat *x, size_t shift, char *msg, size_t n)
{
	int ec;
	PCRE2_SIZE off;
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED,
					 PCRE2_MULTILINE | PCRE2_NEVER_UTF | PCRE2_NEVER_UCP |
					 PCRE2_NEVER_BACKSLASH_C, &ec, &off, cc);
	pcre2_compile_context_free(cc);
	if (!code) {
		PCRE2_UCHAR why[200];
		pcre2_get_error_message(ec, why, sizeof(why));
		off = off >= shift ? off - shift : 0;
		size_t at = off < x->out.len ? x->src[off] : x->out.len ? x->src[x->out.len - 1] + 1 : 0;
		snprintf(msg, n, "%s at offset %zu", (const char *)why, at);
	}
	return code;
}

int regex_prog_compile(struct regex_prog **out, const char *pattern, int *groups, char *msg, size_t n)
{
	struct xlat x = { .src = NULL, .alloc = 0 };
	strbuf_init(&x.out);
	translate(&x, pattern);
	/* alone first, so that a pattern can never close the group around it */
	static const char head[] = "(?C1)(?:";
	pcre2_code *alone = compile(x.out.buf, &x, 0, msg, n), *code = NULL;
	if (alone) {
		char *wrapped = xasprintf("%s%s)", head, x.out.buf);
		code = compile(wrapped, &x, sizeof(head) - 1, msg, n);
		free(wrapped);
	}
	uint32_t cap = 0;
	if (code)
		pcre2_pattern_info(alone, PCRE2_INFO_CAPTURECOUNT, &cap);
	pcre2_code_free(alone);
	strbuf_release(&x.out);
	free(x.src);
	if (!code)
		return -1;
	*groups = (int)cap;
	*out = xcalloc(1, sizeof(**out));
	(*out)->code = code;
	return 0;
}

void regex_prog_free(struct regex_prog *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	free(re);
}

int regex_aggregate_valid(const char *name)
{
	for (const char **a = aggregates; *a; a++)
		if (!strcmp(*a, name))
			return 1;
	return 0;
}

/* One pattern's scan over one run's files: its limits and where it is. */
struct scan {
	const struct collect_limits *lim;
	double cpu_limit, cpu0, checked;
	double cpu_spent;               /* CPU seconds of its scans so far (files are read for all patterns) */
	size_t memory;                  /* bytes */
	size_t at;                      /* the start of the current match attempt */
	int over_cpu, interrupted;
	pcre2_match_context *mc;
};

static double clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* 0 to go on; 1 when interrupted or over the CPU limit.  The CPU clock is
   a system call, read only every 50 ms of wall time. */
static int scan_check(struct scan *s)
{
	if (s->lim && s->lim->stop && *s->lim->stop)
		return s->interrupted = 1;
	double w = clock_s(CLOCK_MONOTONIC);
	if (w - s->checked < 0.05)
		return 0;
	s->checked = w;
	if (clock_s(CLOCK_THREAD_CPUTIME_ID) - s->cpu0 > s->cpu_limit)
		return s->over_cpu = 1;
	return 0;
}

/* The callout at every start of a match attempt: where it is, and a check. */
static int on_callout(pcre2_callout_block *b, void *data)
{
	struct scan *s = data;
	s->at = b->start_match;
	return scan_check(s) ? PCRE2_ERROR_CALLOUT : 0;
}

static void scan_init(struct scan *s, const struct collect_limits *lim)
{
	memset(s, 0, sizeof(*s));
	s->lim = lim;
	s->cpu_limit = lim && lim->cpu_seconds > 0 ? lim->cpu_seconds : COLLECT_CPU_LIMIT_DEFAULT;
	long mb = lim && lim->memory_mb > 0 ? lim->memory_mb : COLLECT_MEMORY_LIMIT_DEFAULT;
	s->memory = (size_t)mb << 20;
	s->cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	s->checked = clock_s(CLOCK_MONOTONIC);
	s->mc = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(s->mc, REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(s->mc, REGEX_MATCH_LIMIT);
	pcre2_set_heap_limit(s->mc, (uint32_t)(mb * 1024 > UINT32_MAX ? UINT32_MAX : mb * 1024));
	pcre2_set_callout(s->mc, on_callout, s);
}

static void scan_release(struct scan *s)
{
	pcre2_match_context_free(s->mc);
}

static long memory_mb(const struct scan *s)
{
	return (long)(s->memory >> 20);
}

/* Why the scan of name stopped, into err. */
static int scan_failed(struct scan *s, int rc, const char *buf, size_t len, const char *name,
		       struct perr *err)
{
	size_t line = 1;
	for (size_t i = 0; i < s->at && i < len; i++)
		line += buf[i] == '\n';
	if (s->interrupted)
		return perr_set(err, "interrupted");
	if (s->over_cpu || rc == PCRE2_ERROR_CALLOUT)
		return perr_set(err, "stopped in %s after %g s of CPU time (collect.cpu_limit)", name,
				s->cpu_limit);
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT)
		return perr_set(err, "stopped at line %zu of %s: it backtracks too much there "
				"(more than %d steps from one start); simplify it", line, name, REGEX_MATCH_LIMIT);
	if (rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_NOMEMORY)
		return perr_set(err, "stopped at line %zu of %s: over the memory limit of %ld MiB "
				"(collect.memory_limit)", line, name, memory_mb(s));
	PCRE2_UCHAR why[200];
	pcre2_get_error_message(rc, why, sizeof(why));
	return perr_set(err, "stopped at line %zu of %s: %s", line, name, (const char *)why);
}

/* A capture that is a finite number, all of it. */
static int parse_number(const char *s, size_t len, double *v)
{
	if (!len || len > 4096)
		return 0;
	char stack[64], *num = len < sizeof(stack) ? stack : xmalloc(len + 1);
	memcpy(num, s, len);
	num[len] = '\0';
	char *end;
	*v = strtod(num, &end);
	int ok = end == num + len && isfinite(*v);
	if (num != stack)
		free(num);
	return ok;
}

/* Fold v into the aggregate of n values so far. */
static void fold(const char *agg, double *acc, int n, double v)
{
	if (!n || !strcmp(agg, "last"))
		*acc = v;
	else if (!strcmp(agg, "sum") || !strcmp(agg, "mean"))
		*acc += v;
	else if (!strcmp(agg, "max"))
		*acc = v > *acc ? v : *acc;
	else if (!strcmp(agg, "min"))
		*acc = v < *acc ? v : *acc;
}

/* All matches in buf: the number of numeric ones, aggregated into *out, or
   -1 with err. */
static int scan_buffer(struct scan *s, const struct regex_prog *re, const char *agg, const char *buf,
		       size_t len, const char *name, double *out, struct perr *err)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
	const PCRE2_SPTR subject = (PCRE2_SPTR)(len ? buf : "");
	size_t pos = 0;
	int n = 0, rc;
	double acc = 0;
	while (pos < len || (!pos && !len)) {
		rc = pcre2_match(re->code, subject, len, pos, 0, md, s->mc);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		if (rc < 0 || scan_check(s)) {
			pcre2_match_data_free(md);
			return scan_failed(s, rc < 0 ? rc : PCRE2_ERROR_CALLOUT, buf, len, name, err);
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		double v;
		if (rc > 1 && ov[2] != PCRE2_UNSET && parse_number(buf + ov[2], ov[3] - ov[2], &v))
			fold(agg, &acc, n++, v);
		/* an empty match (or one ending before pos, \K) moves on by one byte */
		pos = ov[1] > pos ? ov[1] : pos + 1;
		if (!len)
			break;
	}
	pcre2_match_data_free(md);
	if (n && !strcmp(agg, "mean"))
		acc /= n;
	*out = acc;
	return n;
}

int regex_scan_mem(const struct regex_prog *re, const char *agg, const char *buf, size_t len,
		   const struct collect_limits *lim, double *value, int *interrupted, struct perr *err)
{
	struct scan s;
	scan_init(&s, lim);
	int n = scan_buffer(&s, re, agg, buf, len, "the input", value, err);
	*interrupted = s.interrupted;
	scan_release(&s);
	return n;
}

int regex_find_mem(const struct regex_prog *re, const char *buf, size_t len, const char *name,
		   const struct collect_limits *lim, struct perr *err)
{
	struct scan s;
	scan_init(&s, lim);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
	int rc = pcre2_match(re->code, (PCRE2_SPTR)(len ? buf : ""), len, 0, 0, md, s.mc);
	int found = rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : scan_failed(&s, rc, buf, len, name, err);
	pcre2_match_data_free(md);
	scan_release(&s);
	return found;
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

/* One pattern: its compiled form, its scan and what it found so far. */
struct pat_run {
	const struct regex_pattern *p;
	struct regex_prog *re;
	const char *agg;
	struct scan s;
	struct measurement_list ml;
	struct strbuf problems;
	int matched;                    /* files where it matched */
	int failed;                     /* a limit stopped it: its values are dropped */
	int refused;                    /* files it may not read (named in problems) */
	int absent;                     /* its named file is missing */
};

static void problem(struct pat_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct pat_run *r, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	strbuf_addf(&r->problems, "%s%s", r->problems.len ? "; " : "", msg);
}

/* One file of the run directory and the patterns that read it. */
struct run_file {
	char *name;
	int rank;
	int named;                      /* some pattern names it (file = ...): missing is a problem */
	int *pats, npats;
	size_t alloc;
};

struct file_list {
	struct run_file *f;
	int n;
	size_t alloc;
};

/* Pattern i reads name (for rank): one entry per file, whatever reads it. */
static void want_file(struct file_list *fl, const char *name, int rank, int named, int i)
{
	struct run_file *f = NULL;
	for (int k = 0; k < fl->n && !f; k++)
		if (!strcmp(fl->f[k].name, name))
			f = &fl->f[k];
	if (!f) {
		XGROW(fl->f, (size_t)fl->n + 1, fl->alloc);
		f = &fl->f[fl->n++];
		memset(f, 0, sizeof(*f));
		f->name = xstrdup(name);
		f->rank = rank;
	}
	f->named |= named;
	XGROW(f->pats, (size_t)f->npats + 1, f->alloc);
	f->pats[f->npats++] = i;
}

static void file_list_release(struct file_list *fl)
{
	for (int k = 0; k < fl->n; k++) {
		free(fl->f[k].name);
		free(fl->f[k].pats);
	}
	free(fl->f);
}

/* The files every pattern reads: its named file, or its stream of every
   rank (the directory listed once per stream). */
static void list_files(const char *run_dir, const struct pat_run *runs, int npats, struct file_list *fl)
{
	static const char *const streams[] = { "stdout", "stderr" };
	memset(fl, 0, sizeof(*fl));
	for (int i = 0; i < npats; i++)
		if (runs[i].p->file)
			want_file(fl, runs[i].p->file, 0, 1, i);
	for (size_t s = 0; s < sizeof(streams) / sizeof(streams[0]); s++) {
		int *ranks = NULL, nranks = -1;
		for (int i = 0; i < npats; i++) {
			if (runs[i].p->file || strcmp(runs[i].p->stream, streams[s]))
				continue;
			if (nranks < 0)
				nranks = list_ranks(run_dir, streams[s], &ranks);
			want_file(fl, streams[s], 0, 0, i);
			for (int k = 0; k < nranks; k++) {
				char *name = xasprintf("rank-%d.%s", ranks[k], streams[s]);
				want_file(fl, name, ranks[k], 0, i);
				free(name);
			}
		}
		free(ranks);
	}
}

/* Pattern r over the text of file f (read once for every pattern; too
   large: past the memory limit, not read). */
static void scan_text(struct pat_run *r, const struct run_file *f, const struct strbuf *text, int too_large)
{
	if (r->failed || r->s.interrupted)
		return;
	if (too_large || text->len > r->s.memory) {
		problem(r, "pattern for %s/%s: '%s' is larger than the memory limit of %ld MiB "
			"(collect.memory_limit)", r->p->region, r->p->metric, f->name, memory_mb(&r->s));
		r->failed = 1;
		return;
	}
	struct perr err;
	double v;
	/* its CPU limit counts its own scans only */
	r->s.cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID) - r->s.cpu_spent;
	int n = scan_buffer(&r->s, r->re, r->agg, text->buf, text->len, f->name, &v, &err);
	r->s.cpu_spent = clock_s(CLOCK_THREAD_CPUTIME_ID) - r->s.cpu0;
	if (n < 0 && !r->s.interrupted)
		problem(r, "pattern for %s/%s %s", r->p->region, r->p->metric, err.msg);
	if (n > 0) {
		measurement_list_add(&r->ml, f->rank, r->p->region, r->p->metric, r->p->scale ? v * r->p->scale : v);
		r->matched++;
	}
	r->failed = n < 0;
}

/*
 * Read file f of the run directory once, bounded by the memory limit and
 * stopped by lim->stop between reads, and give it to every pattern that
 * reads it.  1 when stop interrupted the read, else 0.
 */
static int scan_run_file(const char *run_dir, const struct run_file *f, struct pat_run *runs,
			 const struct collect_limits *lim)
{
	const char *why;
	int fd = fs_open_beneath(run_dir, f->name, &why);
	if (fd < 0) {
		for (int k = 0; k < f->npats; k++) {
			struct pat_run *r = &runs[f->pats[k]];
			if (errno == ENOENT) {
				r->absent |= r->p->file != NULL;
			} else {
				problem(r, "pattern for %s/%s cannot read '%s' in the run directory: %s", r->p->region,
					r->p->metric, f->name, why);
				r->refused++;
			}
		}
		return 0;
	}
	struct strbuf text;
	strbuf_init(&text);
	/* one byte past the limit: a larger file is each pattern's problem */
	int rc = fs_read_fd_bounded(&text, fd, runs[f->pats[0]].s.memory + 1, lim ? lim->stop : NULL, &why);
	int e = errno;
	close(fd);
	int interrupted = rc && e == EINTR;
	for (int k = 0; k < f->npats && !interrupted; k++) {
		struct pat_run *r = &runs[f->pats[k]];
		if (!rc || e == EFBIG) {
			scan_text(r, f, &text, rc != 0);
		} else if (!r->failed) {
			problem(r, "pattern for %s/%s cannot read '%s' in the run directory: %s", r->p->region,
				r->p->metric, f->name, why);
			r->refused++;
		}
		interrupted = r->s.interrupted;
	}
	strbuf_release(&text);
	return interrupted;
}

/* What pattern r yielded, once every file was read: 1 when it matched (its
   values count), else 0 with its problem said. */
static int pattern_result(struct pat_run *r)
{
	const char *what = r->p->file ? r->p->file : r->p->stream;
	if (r->p->file && r->absent && !r->p->optional)
		problem(r, "%s/%s: file '%s' is missing in the run directory", r->p->region, r->p->metric,
			r->p->file);
	else if (!r->matched && !r->failed && !r->refused && !r->absent && !r->p->optional)
		problem(r, "pattern for %s/%s never matched %s", r->p->region, r->p->metric, what);
	return r->matched > 0 && !r->failed;
}

int collect_regex(const char *run_dir, const struct regex_pattern *pats, int npats,
		  const struct collect_limits *lim, struct measurement_list *out, char **collect_error,
		  unsigned char *missed, struct perr *err)
{
	*collect_error = NULL;
	struct pat_run *runs = xcalloc((size_t)npats + 1, sizeof(*runs));
	int ncompiled = 0, rc = 0, interrupted = 0;
	for (; ncompiled < npats; ncompiled++) {
		struct pat_run *r = &runs[ncompiled];
		char msg[256];
		int groups;
		r->p = &pats[ncompiled];
		if (regex_prog_compile(&r->re, r->p->pattern, &groups, msg, sizeof(msg))) {
			rc = perr_set(err, "invalid pattern '%s': %s", r->p->pattern, msg);
			break;
		}
		r->agg = r->p->aggregate ? r->p->aggregate : "last";
		scan_init(&r->s, lim);
		measurement_list_init(&r->ml);
		strbuf_init(&r->problems);
	}
	struct file_list fl = { 0 };
	if (!rc)
		list_files(run_dir, runs, npats, &fl);
	for (int k = 0; !rc && k < fl.n && !interrupted; k++)
		interrupted = (lim && lim->stop && *lim->stop) || scan_run_file(run_dir, &fl.f[k], runs, lim);
	struct strbuf problems;
	strbuf_init(&problems);
	for (int i = 0; !rc && !interrupted && i < npats; i++) {
		struct pat_run *r = &runs[i];
		int matched = pattern_result(r);
		for (int k = 0; matched && k < r->ml.n; k++)
			measurement_list_add(out, r->ml.m[k].rank, r->ml.m[k].region, r->ml.m[k].metric,
					     r->ml.m[k].value);
		if (missed)
			missed[i] = !matched && (!r->p->optional || r->failed || r->refused);
		if (r->problems.len)
			strbuf_addf(&problems, "%s%s", problems.len ? "; " : "", r->problems.buf);
	}
	for (int i = 0; i < ncompiled; i++) {
		measurement_list_release(&runs[i].ml);
		strbuf_release(&runs[i].problems);
		scan_release(&runs[i].s);
		regex_prog_free(runs[i].re);
	}
	file_list_release(&fl);
	free(runs);
	if (problems.len)
		*collect_error = strbuf_detach(&problems);
	strbuf_release(&problems);
	return rc ? -1 : interrupted;
}
