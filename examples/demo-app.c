/*
 * demo-app: a small program with kernels of known cost, for trying
 * perfsweep end to end.  Each kernel is timed and printed on stdout as
 * "<kernel>: <seconds> s".
 *
 *   setup   constant time (~50 ms)
 *   dense   O(n^3 * i)       dense matrix multiply, 7.6n x 7.6n, in blocks that
 *                            stay in the L2 cache (no step when the matrices
 *                            outgrow the last-level cache)
 *   stream  O(n^2 * i)       a triad over 36864 n^2 elements per iteration,
 *                            streamed through the same 3 arrays of 16K doubles at
 *                            every n (384 KB, well inside the 1 MB private L2 cache:
 *                            a stable cost per element, no cache-size step as n
 *                            grows, and no DRAM or shared-L3 traffic that other
 *                            programs or virtual machines disturb; -a sets the
 *                            array length, e.g. -a 2097152 for 3 x 16 MB through
 *                            DRAM: the contention studies' memory-bound kernel)
 *   sort    O(n^2 log n * i) merge sort of 160 arrays of n^2 doubles per iteration
 *                            (after 4 untimed sorts),
 *                            one at a time (n^2 = 2^(2 log2 n) values: the
 *                            steps are proportional to n^2 log2 n)
 *   regime  O(n * i), x2 from n = 128: the variance of 330000 n generated values,
 *                            one pass below n = 128, the two-pass algorithm
 *                            (mean first, then the centred sum) from n = 128 on:
 *                            a regime change that does not depend on the hardware
 * Each kernel takes at least ~50 ms (CPU time, on the 2-core development
 * machine) at the demo's smallest point (n=72, i=1); every allocation and
 * initialisation happens before the kernel's clock starts.
 *
 * usage: demo-app -n SIZE [-i ITERS] [-k KERNELS] [-c cpu|wall] [-a LEN] [-w FACTOR] [-s SLEEP]
 *                 [--more KERNEL:FACTOR] [--log KERNEL] [--fail-once FILE] [--echo] [ARGS...]
 *   -k  comma-separated kernels to run (default: all)
 *   --more KERNEL:FACTOR  KERNEL does FACTOR times its work (a constant slowdown: 1.3 is 30%)
 *   --log KERNEL          KERNEL does log2(n) times its work (its cost gains a factor
 *                         log2(n): regime becomes O(n log n * i)); the two are "a new
 *                         version" for perfsweep compare (docs/compare.md); not for dense
 *   -a  doubles per stream array (default STREAM_LEN; the work, n^2 * i, does not change)
 *   -w  every kernel does FACTOR times its work, keeping its law in n and i (dense: its
 *       matrices FACTOR^(1/3) times the size): -w 0.5 halves a run (configs/demo.cfg
 *       runs -w 0.75, so that make demo stays within a minute)
 *   -c  the kernels' clock: wall (default) or cpu, the CPU time of the thread
 *   -s  sleep SLEEP seconds first (tests: a long run to interrupt)
 *   --fail-once FILE  exit 3 if FILE does not exist, after creating it (tests: retries)
 *   --echo  print every argument on its own line as "arg: <value>" (tests: no shell)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The kernels' clock: wall time (CLOCK_MONOTONIC), or with -c cpu the CPU
   time of this thread, which leaves out the time it waited for a core
   while other programs ran (cache and memory interference still count). */
static clockid_t kernel_clock = CLOCK_MONOTONIC;

static double now(void)
{
	struct timespec ts;
	clock_gettime(kernel_clock, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile double sink;

#define SETUP_STEPS 20000000
#define DENSE_SCALE 7.6         /* matrix size per unit of n */
#define DENSE_BLOCK 128         /* 128 x 128 doubles of b: 128 KB, inside the L2 cache */
#define STREAM_SCALE 36864      /* triad elements per iteration per unit of n^2 */
#define STREAM_LEN (16L << 10)  /* doubles per array: 3 arrays of 128 KB, in the L2 cache */
static long stream_len = STREAM_LEN;
#define STREAM_GAP 128          /* doubles between the arrays (1 KB): z[i] and x[i], y[i]
                                   are not 4 KB apart, which stalls loads behind stores */
#define SORT_ARRAYS 160         /* arrays of n^2 doubles sorted per iteration */
#define REGIME_SCALE 330000     /* values per unit of n */
#define REGIME_SWITCH 128       /* n from which the two-pass algorithm runs */

/* Per kernel, the factor on its work (--more, --log); dense has none. */
enum { K_SETUP, K_STREAM, K_SORT, K_REGIME, K_N };
static const char *const kernel_names[K_N] = { "setup", "stream", "sort", "regime" };
static double work[K_N] = { 1, 1, 1, 1 };
static double dense_scale = DENSE_SCALE;   /* -w f: times f^(1/3) */

/* Cache-line aligned arrays: malloc returns large blocks 16 bytes past a
   page boundary, which makes vector loads straddle lines and the timings
   of one size jump between two levels from run to run.  Large ones are
   2 MB aligned and asked for huge pages: touching fresh memory page by
   page is slow in a virtual machine (it is done before any clock starts,
   but it is most of a run's wall time). */
static double *array(long n)
{
	size_t align = (size_t)n * sizeof(double) >= (2u << 20) ? 2u << 20 : 64;
	size_t bytes = ((size_t)n * sizeof(double) + align - 1) / align * align;
	double *p = aligned_alloc(align, bytes);
	if (!p) {
		fprintf(stderr, "demo-app: out of memory\n");
		exit(1);
	}
#ifdef MADV_HUGEPAGE
	if (align > 64)
		madvise(p, bytes, MADV_HUGEPAGE);
#endif
	memset(p, 0, bytes);
	return p;
}

static double setup(void)
{
	double t = now(), s = 0;
	long steps = (long)(SETUP_STEPS * work[K_SETUP]);
	for (long i = 0; i < steps; i++)
		s += sqrt((double)i);
	sink += s;
	return now() - t;
}

/* c += a * b over the rows k in [kk, kk + DENSE_BLOCK) of b and its columns in [jj, jj + DENSE_BLOCK). */
static void dense_block(const double *a, const double *b, double *c, long n, long kk, long jj)
{
	long ke = kk + DENSE_BLOCK < n ? kk + DENSE_BLOCK : n, je = jj + DENSE_BLOCK < n ? jj + DENSE_BLOCK : n;
	for (long i = 0; i < n; i++)
		for (long k = kk; k < ke; k++) {
			double aik = a[i * n + k];
			const double *bk = &b[k * n];
			double *ci = &c[i * n];
			for (long j = jj; j < je; j++)
				ci[j] += aik * bk[j];
		}
}

static double dense(long n, long iters)
{
	n = (long)(n * dense_scale);
	double *a = array(n * n), *b = array(n * n), *c = array(n * n);
	for (long i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7) * 0.5;
		b[i] = (double)(i % 5) * 0.25;
	}
	double t = now();
	for (long it = 0; it < iters; it++)
		for (long kk = 0; kk < n; kk += DENSE_BLOCK)
			for (long jj = 0; jj < n; jj += DENSE_BLOCK)
				dense_block(a, b, c, n, kk, jj);
	t = now() - t;
	sink += c[n * n / 2];
	free(a);
	free(b);
	free(c);
	return t;
}

static double stream(long n, long iters)
{
	long len = stream_len, total = (long)((double)n * n * STREAM_SCALE * work[K_STREAM]);
	/* one block, so that the arrays' offsets from each other are fixed */
	double *block = array(3 * len + 2 * STREAM_GAP), *x = block, *y = x + len + STREAM_GAP, *z = y + len + STREAM_GAP;
	for (long i = 0; i < len; i++) {
		x[i] = 1.0;
		y[i] = 2.0;
		z[i] = 0.0;
	}
	double t = now();
	for (long it = 0; it < iters; it++)
		for (long done = 0; done < total; done += len) {
			long m = total - done < len ? total - done : len;
			for (long i = 0; i < m; i++)
				z[i] = x[i] + 3.0 * y[i];
		}
	t = now() - t;
	sink += z[len / 2];
	free(block);
	return t;
}

/* Sort v[0..len) with the buffer tmp (top-down merge sort: about len log2 len steps). */
static void merge_sort(double *v, double *tmp, long len)
{
	if (len < 2)
		return;
	long h = len / 2, i = 0, j = h, k = 0;
	merge_sort(v, tmp, h);
	merge_sort(v + h, tmp, len - h);
	while (i < h && j < len)
		tmp[k++] = v[j] < v[i] ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < len)
		tmp[k++] = v[j++];
	memcpy(v, tmp, (size_t)len * sizeof(double));
}

/* Fill v with len pseudo-random values from *seed (an LCG: no library call in the loop). */
static void fill_random(double *v, long len, unsigned *seed)
{
	for (long i = 0; i < len; i++) {
		*seed = *seed * 1103515245u + 12345u;
		v[i] = (double)(*seed >> 8);
	}
}

static double sort(long n, long iters)
{
	long len = n * n;
	double *v = array(len), *tmp = array(len), t = 0;
	unsigned s = 12345, w = 777;
	/* four untimed sorts first: the first sorts of a run cost more than the
	   rest (at n = 72, i = 1 took up to 10% more per iteration than i = 2..5),
	   which made the models give i an offset */
	for (int k = 0; k < 4; k++) {
		fill_random(v, len, &w);
		merge_sort(v, tmp, len);
	}
	for (long it = 0; it < (long)(iters * SORT_ARRAYS * work[K_SORT]); it++) {
		fill_random(v, len, &s);
		double t0 = now();
		merge_sort(v, tmp, len);
		t += now() - t0;
	}
	sink += v[len / 2];
	free(v);
	free(tmp);
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
	long len = (long)((double)n * REGIME_SCALE * work[K_REGIME]);
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

/* --more KERNEL:FACTOR (factor > 0) or --log KERNEL: multiply the kernel's work; -1 if bad. */
static int more_work(const char *opt, const char *arg, long n)
{
	const char *colon = strchr(arg, ':');
	size_t len = strcmp(opt, "--log") ? (colon ? (size_t)(colon - arg) : strlen(arg)) : strlen(arg);
	for (int k = 0; k < K_N; k++) {
		if (strlen(kernel_names[k]) != len || strncmp(arg, kernel_names[k], len))
			continue;
		if (!strcmp(opt, "--log")) {
			work[k] *= log2((double)n);
			return 0;
		}
		char *end;
		double f = colon ? strtod(colon + 1, &end) : 0;
		if (!colon || *end || !(f > 0))
			return -1;
		work[k] *= f;
		return 0;
	}
	return -1;
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
	const char *kernels = NULL, *fail_once = NULL, *more[8][2];
	int echo = 0, nmore = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--echo")) {
			echo = 1;
		} else if ((!strcmp(argv[i], "--more") || !strcmp(argv[i], "--log")) && i + 1 < argc && nmore < 8) {
			more[nmore][0] = argv[i];
			more[nmore++][1] = argv[++i];
		} else if (!strcmp(argv[i], "--fail-once") && i + 1 < argc) {
			fail_once = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1] && strchr("nikcasw", argv[i][1]) && !argv[i][2] && i + 1 < argc) {
			char o = argv[i][1];
			const char *v = argv[++i];
			char *end;
			if (o == 'k') {
				kernels = v;
				continue;
			}
			if (o == 'c') {
				if (strcmp(v, "cpu") && strcmp(v, "wall")) {
					fprintf(stderr, "demo-app: bad clock '%s'; write -c cpu or -c wall\n", v);
					return 2;
				}
				kernel_clock = strcmp(v, "cpu") ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
				continue;
			}
			double x = strtod(v, &end);
			if (*end || x < 0 || (o == 'a' && x < 1) || (o == 'w' && !(x > 0))) {
				fprintf(stderr, "demo-app: bad value '%s' for -%c\n", v, o);
				return 2;
			}
			if (o == 'n')
				n = (long)x;
			else if (o == 'i')
				iters = (long)x;
			else if (o == 'a')
				stream_len = (long)x;
			else if (o == 'w') {
				for (int k = 0; k < K_N; k++)
					work[k] *= x;
				dense_scale *= cbrt(x);
			}
			else
				nap = x;
		} else if (!echo) {
			fprintf(stderr, "usage: demo-app -n SIZE [-i ITERS] [-k KERNELS] [-c cpu|wall] [-a LEN] [-w FACTOR] [-s SLEEP] "
				"[--more KERNEL:FACTOR] [--log KERNEL] [--fail-once FILE] [--echo]\n");
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
	/* after the loop: --log needs n */
	for (int i = 0; i < nmore; i++)
		if (more_work(more[i][0], more[i][1], n) < 0) {
			fprintf(stderr, "demo-app: bad %s '%s'; write %s\n", more[i][0], more[i][1],
				strcmp(more[i][0], "--log") ? "--more KERNEL:FACTOR, e.g. --more stream:1.3"
							   : "--log KERNEL, e.g. --log regime");
			return 2;
		}
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
