/*
 * A small OpenMP program for perfsweep's tests of threaded ranks, input
 * templates and sanity checks (tests/integration/44-*.t):
 *
 *   threads-app [-t T] [-n N] [-i FILE] [-c] [-q]
 *
 * runs N million iterations of arithmetic on each of its threads (T given,
 * as GROMACS's -ntmpi gives its thread count, else OpenMP's default, i.e.
 * OMP_NUM_THREADS), prints "threads: T (OMP_NUM_THREADS=...)", each line
 * of FILE as "input: LINE", "work: S s" (wall seconds; with -c the
 * process's CPU seconds, which a busy machine does not inflate) and, unless -q,
 * "Finished threads-app".  Build: cc -fopenmp -O2 threads-app.c.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int t = 0, quiet = 0, cpu = 0, opt;
	long n = 1;
	const char *input = NULL;
	while ((opt = getopt(argc, argv, "t:n:i:cq")) != -1) {
		switch (opt) {
		case 't': t = atoi(optarg); break;
		case 'n': n = atol(optarg); break;
		case 'i': input = optarg; break;
		case 'c': cpu = 1; break;
		case 'q': quiet = 1; break;
		default: return 2;
		}
	}
	if (t > 0)
		omp_set_num_threads(t);
	if (input) {
		FILE *f = fopen(input, "r");
		char line[512];
		if (!f) {
			perror(input);
			return 1;
		}
		while (fgets(line, sizeof(line), f))
			printf("input: %s", line);
		fclose(f);
	}
	const char *env = getenv("OMP_NUM_THREADS");
	struct timespec c0, c1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	double start = omp_get_wtime(), sink = 0;
	int used = 0;
#pragma omp parallel reduction(+ : sink)
	{
#pragma omp single
		used = omp_get_num_threads();
		double x = 1.0;
		for (long i = 0; i < n * 1000000L; i++)
			x = x * 1.0000001 + 1e-9;
		sink += x;
	}
	printf("threads: %d (OMP_NUM_THREADS=%s)\n", used, env ? env : "unset");
	double wall = omp_get_wtime() - start;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	printf("work: %.6f s\n", cpu ? (double)(c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9 : wall);
	if (sink < 0)
		printf("impossible\n");
	if (!quiet)
		printf("Finished threads-app\n");
	return 0;
}
