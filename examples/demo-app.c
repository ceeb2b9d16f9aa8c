/*
 * demo-app: a small program with kernels of known cost, for trying
 * perfsweep end to end.  Each kernel is timed and printed on stdout as
 * "<kernel>: <seconds> s".
 *
 *   setup   constant time (~50 ms)
 *   dense   O(n^3 * i)       dense matrix multiply, 4.8n x 4.8n
 *   stream  O(n^2 * i)       48 triads per iteration over 3 arrays of 192 n^2 doubles
 *                            (leaves the caches)
 *   sort    O(n^2 log n * i) qsort of 24 n^2 doubles
 *   regime  O(n * i), x2 from n = 128: the variance of 150000 n generated values,
 *                            one pass below n = 128, the two-pass algorithm
 *                            (mean first, then the centred sum) from n = 128 on:
 *                            a regime change that does not depend on the hardware
 * Each kernel takes at least ~50 ms at the demo's smallest point (n=80, i=1).
 * (stream and sort grow with n^2 so that, over the demo's range of n, their
 * leading terms stand out from the neighbouring exponents.)
 *
 * usage: demo-app -n SIZE [-i ITERS] [-k KERNELS] [-s SLEEP] [--fail-once FILE] [--echo] [ARGS...]
 *   -k  comma-separated kernels to run (default: all)
 *   -s  sleep SLEEP seconds first (tests: a long run to interrupt)
 *   --fail-once FILE  exit 3 if FILE does not exist, after creating it (tests: retries)
 *   --echo  print every argument on its own line as "arg: <value>" (tests: no shell)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile double sink;

#define SETUP_STEPS 14000000
#define DENSE_SCALE 4.8         /* matrix size per unit of n */
#define STREAM_PASSES 48        /* triads per iteration */
#define STREAM_SCALE 192        /* doubles per array per unit of n^2 */
#define SORT_SCALE 24           /* doubles per unit of n^2 */
#define REGIME_SCALE 150000     /* values per unit of n */
#define REGIME_SWITCH 128       /* n from which the two-pass algorithm runs */

/* Cache-line aligned arrays: malloc returns large blocks 16 bytes past a
   page boundary, which makes vector loads straddle lines and the timings
   of one size jump between two levels from run to run. */
static double *array(long n)
{
	size_t bytes = ((size_t)n * sizeof(double) + 63) / 64 * 64;
	double *p = aligned_alloc(64, bytes);
	if (!p) {
		fprintf(stderr, "demo-app: out of memory\n");
		exit(1);
	}
	memset(p, 0, bytes);
	return p;
}

static double setup(void)
{
	double t = now(), s = 0;
	for (int i = 0; i < SETUP_STEPS; i++)
		s += sqrt((double)i);
	sink += s;
	return now() - t;
}

static double dense(long n, long iters)
{
	n = (long)(n * DENSE_SCALE);
	double *a = array(n * n), *b = array(n * n), *c = array(n * n);
	for (long i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7) * 0.5;
		b[i] = (double)(i % 5) * 0.25;
	}
	double t = now();
	for (long it = 0; it < iters; it++)
		for (long i = 0; i < n; i++)
			for (long k = 0; k < n; k++) {
				double aik = a[i * n + k];
				for (long j = 0; j < n; j++)
					c[i * n + j] += aik * b[k * n + j];
			}
	t = now() - t;
	sink += c[n * n / 2];
	free(a);
	free(b);
	free(c);
	return t;
}

static double stream(long n, long iters)
{
	long len = n * n * STREAM_SCALE;
	double *x = array(len), *y = array(len), *z = array(len);
	for (long i = 0; i < len; i++) {
		x[i] = 1.0;
		y[i] = 2.0;
		z[i] = 0.0;
	}
	double t = now();
	for (long it = 0; it < iters * STREAM_PASSES; it++)
		for (long i = 0; i < len; i++)
			z[i] = x[i] + 3.0 * y[i];
	t = now() - t;
	sink += z[len / 2];
	free(x);
	free(y);
	free(z);
	return t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double sort(long n, long iters)
{
	long len = n * n * SORT_SCALE;
	double *v = array(len), t = 0;
	unsigned s = 12345;
	for (long it = 0; it < iters; it++) {
		for (long i = 0; i < len; i++) {
			s = s * 1103515245u + 12345u;
			v[i] = (double)(s >> 8);
		}
		double t0 = now();
		qsort(v, (size_t)len, sizeof(double), cmp);
		t += now() - t0;
	}
	sink += v[len / 2];
	free(v);
	return t;
}

/* The j-th generated value (no memory traffic: the kernel is compute-bound). */
static double value(long j)
{
	return sqrt((double)j + 0.5);
}

/* Variance of n*REGIME_SCALE values, one pass below REGIME_SWITCH, two passes from it on. */
static double regime(long n, long iters)
{
	long len = n * REGIME_SCALE;
	double t = now(), var = 0;
	for (long it = 0; it < iters; it++) {
		double s = 0, s2 = 0;
		if (n < REGIME_SWITCH) {
			for (long j = 0; j < len; j++) {
				double x = value(j + it);
				s += x;
				s2 += x * x;
			}
			var += s2 / len - (s / len) * (s / len);
			continue;
		}
		for (long j = 0; j < len; j++)
			s += value(j + it);
		double mean = s / len;
		for (long j = 0; j < len; j++) {
			double d = value(j + it) - mean;
			s2 += d * d;
		}
		var += s2 / len;
	}
	sink += var;
	return now() - t;
}

static int wanted(const char *list, const char *k)
{
	if (!list)
		return 1;
	size_t n = strlen(k);
	for (const char *p = list; (p = strstr(p, k)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long n = 0, iters = 1;
	double nap = 0;
	const char *kernels = NULL, *fail_once = NULL;
	int echo = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--echo")) {
			echo = 1;
		} else if (!strcmp(argv[i], "--fail-once") && i + 1 < argc) {
			fail_once = argv[++i];
		} else if (argv[i][0] == '-' && strchr("niks", argv[i][1]) && !argv[i][2] && i + 1 < argc) {
			char o = argv[i][1];
			const char *v = argv[++i];
			char *end;
			if (o == 'k') {
				kernels = v;
				continue;
			}
			double x = strtod(v, &end);
			if (*end || x < 0) {
				fprintf(stderr, "demo-app: bad value '%s' for -%c\n", v, o);
				return 2;
			}
			if (o == 'n')
				n = (long)x;
			else if (o == 'i')
				iters = (long)x;
			else
				nap = x;
		} else if (!echo) {
			fprintf(stderr, "usage: demo-app -n SIZE [-i ITERS] [-k KERNELS] [-s SLEEP] [--fail-once FILE] [--echo]\n");
			return 2;
		}
	}
	if (echo)
		for (int i = 1; i < argc; i++)
			printf("arg: %s\n", argv[i]);
	if (fail_once && access(fail_once, F_OK)) {
		FILE *f = fopen(fail_once, "w");
		if (f)
			fclose(f);
		fprintf(stderr, "demo-app: failing once on purpose\n");
		return 3;
	}
	if (nap > 0) {
		struct timespec ts = { (time_t)nap, (long)((nap - (time_t)nap) * 1e9) };
		nanosleep(&ts, NULL);
	}
	if (n <= 0)
		return echo ? 0 : (fprintf(stderr, "demo-app: -n SIZE is required\n"), 2);
	/* each kernel reports its compute time, without allocation and set-up */
	double t0 = now();
	if (wanted(kernels, "setup"))
		printf("setup: %.9f s\n", setup());
	if (wanted(kernels, "dense"))
		printf("dense: %.9f s\n", dense(n, iters));
	if (wanted(kernels, "stream"))
		printf("stream: %.9f s\n", stream(n, iters));
	if (wanted(kernels, "sort"))
		printf("sort: %.9f s\n", sort(n, iters));
	if (wanted(kernels, "regime"))
		printf("regime: %.9f s\n", regime(n, iters));
	printf("total: %.9f s\n", now() - t0);
	return 0;
}
