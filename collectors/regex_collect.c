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
	const struct regex_prog *re;
	const char *agg;
	struct scan s;
	struct measurement_list ml;
	struct strbuf *problems;
	int failed;                     /* a limit stopped it: its values are dropped */
	int refused;                    /* files it may not read (named in problems) */
};

static void problem(struct pat_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct pat_run *r, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	strbuf_addf(r->problems, "%s%s", r->problems->len ? "; " : "", msg);
}

/*
 * Scan the file name of the run directory for rank: 1 when it matched, 0
 * when it did not or is absent (*absent = 1), -1 when a limit stopped the
 * pattern (a problem is added).
 */
static int scan_file(struct pat_run *r, const char *run_dir, const char *name, int rank, int *absent)
{
	const char *why;
	*absent = 0;
	int fd = fs_open_beneath(run_dir, name, &why);
	if (fd < 0) {
		if (errno == ENOENT)
			return *absent = 1, 0;
		problem(r, "pattern for %s/%s cannot read '%s' in the run directory: %s", r->p->region,
			r->p->metric, name, why);
		r->refused++;
		return 0;
	}
	struct stat st;
	struct strbuf text;
	strbuf_init(&text);
	int rc = 0;
	if (!fstat(fd, &st) && (size_t)st.st_size > r->s.memory) {
		problem(r, "pattern for %s/%s: '%s' is larger than the memory limit of %ld MiB "
			"(collect.memory_limit)", r->p->region, r->p->metric, name, memory_mb(&r->s));
		rc = -1;
	} else if (fs_read_fd(&text, fd)) {
		problem(r, "pattern for %s/%s cannot read '%s' in the run directory: %s", r->p->region,
			r->p->metric, name, strerror(errno));
		r->refused++;
	} else if (text.len > r->s.memory) {   /* it grew meanwhile */
		problem(r, "pattern for %s/%s: '%s' is larger than the memory limit of %ld MiB "
			"(collect.memory_limit)", r->p->region, r->p->metric, name, memory_mb(&r->s));
		rc = -1;
	} else {
		struct perr err;
		double v;
		int n = scan_buffer(&r->s, r->re, r->agg, text.buf, text.len, name, &v, &err);
		if (n < 0 && !r->s.interrupted)
			problem(r, "pattern for %s/%s %s", r->p->region, r->p->metric, err.msg);
		if (n > 0)
			measurement_list_add(&r->ml, rank, r->p->region, r->p->metric,
					     r->p->scale != 0 ? v * r->p->scale : v);
		rc = n < 0 ? -1 : n > 0;
	}
	close(fd);
	strbuf_release(&text);
	return rc;
}

/* One pattern over its named file, stored as rank 0; 1 when it matched. */
static int collect_file(struct pat_run *r, const char *run_dir)
{
	int absent, rc = scan_file(r, run_dir, r->p->file, 0, &absent);
	if (absent && !r->p->optional)
		problem(r, "%s/%s: file '%s' is missing in the run directory", r->p->region, r->p->metric,
			r->p->file);
	else if (rc == 0 && !r->refused && !absent && !r->p->optional)
		problem(r, "pattern for %s/%s never matched %s", r->p->region, r->p->metric, r->p->file);
	r->failed = rc < 0;
	return rc > 0;
}

/* One pattern over the output stream of every rank; 1 when it matched in
   at least one. */
static int collect_stream(struct pat_run *r, const char *run_dir)
{
	int *ranks, nranks = list_ranks(run_dir, r->p->stream, &ranks);
	int matched = 0;
	for (int k = -1; k < nranks && !r->failed; k++) {
		int rank = k < 0 ? 0 : ranks[k], absent;
		char *name = k < 0 ? xstrdup(r->p->stream) : xasprintf("rank-%d.%s", rank, r->p->stream);
		int rc = scan_file(r, run_dir, name, rank, &absent);
		matched += rc > 0;
		r->failed = rc < 0;
		free(name);
	}
	free(ranks);
	if (!matched && !r->failed && !r->refused && !r->p->optional)
		problem(r, "pattern for %s/%s never matched %s", r->p->region, r->p->metric, r->p->stream);
	return matched > 0 && !r->failed;
}

int collect_regex(const char *run_dir, const struct regex_pattern *pats, int npats,
		  const struct collect_limits *lim, struct measurement_list *out, char **collect_error,
		  unsigned char *missed, struct perr *err)
{
	struct strbuf problems;
	strbuf_init(&problems);
	*collect_error = NULL;
	int interrupted = 0;
	for (int i = 0; i < npats && !interrupted; i++) {
		struct pat_run r = { .p = &pats[i], .problems = &problems };
		struct regex_prog *re;
		char msg[256];
		int groups;
		if (regex_prog_compile(&re, r.p->pattern, &groups, msg, sizeof(msg))) {
			strbuf_release(&problems);
			return perr_set(err, "invalid pattern '%s': %s", r.p->pattern, msg);
		}
		r.re = re;
		r.agg = r.p->aggregate ? r.p->aggregate : "last";
		scan_init(&r.s, lim);
		measurement_list_init(&r.ml);
		int matched = r.p->file ? collect_file(&r, run_dir) : collect_stream(&r, run_dir);
		interrupted = r.s.interrupted;
		for (int k = 0; matched && k < r.ml.n; k++)
			measurement_list_add(out, r.ml.m[k].rank, r.ml.m[k].region, r.ml.m[k].metric,
					     r.ml.m[k].value);
		if (missed)     /* an optional pattern that found nothing is no miss; a stopped one is */
			missed[i] = !matched && (!r.p->optional || r.failed || r.refused);
		measurement_list_release(&r.ml);
		scan_release(&r.s);
		regex_prog_free(re);
	}
	if (problems.len && !interrupted)
		*collect_error = strbuf_detach(&problems);
	strbuf_release(&problems);
	return interrupted;
}
