/*
 * A small TAP producer for the C unit tests, run by prove.  Every check
 * prints what was expected and what was got when it fails.  Include it in
 * exactly one file per test program.
 *
 *   int main(void) { ok(1 + 1 == 2, "sum"); is_int(f(), 3, "f"); return done_testing(); }
 */
#ifndef PS_TAP_H
#define PS_TAP_H
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_n, tap_failed;

static inline int tap_vok(int pass, const char *fmt, va_list ap)
{
	printf("%s %d - ", pass ? "ok" : "not ok", ++tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	if (!pass)
		tap_failed++;
	return pass;
}

static inline int __attribute__((format(printf, 2, 3))) ok(int pass, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(pass, fmt, ap);
	va_end(ap);
	return pass;
}

/*
 * A known bug, reported as TAP's TODO: "not ok N - ... # TODO why" while it
 * fails (prove shows it, the suite does not fail on it), "ok ... # TODO"
 * once it is fixed (prove says it passed unexpectedly).  For a failure
 * that is understood to be the code's, not the test's, and said in an issue.
 */
static inline int __attribute__((format(printf, 3, 4))) todo_ok(int pass, const char *why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s %d - ", pass ? "ok" : "not ok", ++tap_n);
	vprintf(fmt, ap);
	printf(" # TODO %s\n", why);
	fflush(stdout);
	va_end(ap);
	return pass;
}

static inline void __attribute__((format(printf, 1, 2))) diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

#define is_int(got, want, ...) do { long long g_ = (got), w_ = (want); \
	if (!ok(g_ == w_, __VA_ARGS__)) diag("  got: %lld\n#  expected: %lld", g_, w_); } while (0)

#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
	if (!ok(g_ && w_ && !strcmp(g_, w_), __VA_ARGS__)) \
		diag("  got: '%s'\n#  expected: '%s'", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)

/* Relative tolerance; NaN always fails (as GSL's gsl_test_rel). */
#define is_rel(got, want, tol, ...) do { double g_ = (got), w_ = (want); \
	int p_ = !isnan(g_) && !isnan(w_) && (w_ == 0 ? fabs(g_) <= (tol) : fabs(g_ - w_) <= (tol) * fabs(w_)); \
	if (!ok(p_, __VA_ARGS__)) diag("  got: %.17g\n#  expected: %.17g (rel tol %g)", g_, w_, (double)(tol)); } while (0)

#define contains(hay, needle, ...) do { const char *h_ = (hay), *n_ = (needle); \
	if (!ok(h_ && strstr(h_, n_), __VA_ARGS__)) diag("  '%s'\n#  does not contain '%s'", h_ ? h_ : "(null)", n_); } while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* A fresh scratch directory for this test program (removed by the caller's OS tmp cleaner). */
static inline const char *tap_tmpdir(void)
{
	static char dir[256];
	if (!dir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/perfsweep-test-XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return dir;
}

/* Path of a file under the source tree (PERFSWEEP_ROOT, or the current directory). */
static inline const char *tap_src(const char *rel)
{
	static char buf[4][1024];
	static int k;
	const char *root = getenv("PERFSWEEP_ROOT");
	char *b = buf[k++ & 3];
	snprintf(b, sizeof(buf[0]), "%s/%s", root ? root : ".", rel);
	return b;
}

#endif
