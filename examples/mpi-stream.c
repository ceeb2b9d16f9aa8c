/*
 * mpi-stream: a minimal MPI program for perfsweep's local MPI worlds
 * (backend.mpi = "openmpi").  It says which world it is in, "world P rank
 * R" from every rank, then each rank runs a memory-bound triad
 * a[i] = b[i] + s * c[i] over arrays of LEN doubles ITERS times, all ranks
 * at once (a barrier before the clock starts), and rank 0 prints the
 * slowest rank's time as "triad: <seconds> s" and the sum of the ranks'
 * bandwidths as "bandwidth: <GB/s> GB/s".
 *
 *   usage: mpi-stream [-a LEN] [-i ITERS] [-x CODE] [-s SECONDS]
 *     -a LEN      doubles per array (default 2097152: 3 x 16 MiB, through DRAM)
 *     -i ITERS    triads (default 10)
 *     -x CODE     rank 1 (rank 0 in a world of one) exits with CODE after
 *                 the greeting: for tests of a failing rank
 *     -s SECONDS  every rank sleeps this long after the greeting: for tests
 *                 of a world that hangs past its timeout
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long arg(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0) {
		fprintf(stderr, "mpi-stream: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long len = 2097152, iters = 10, code = -1, nap = 0;
	int opt;
	while ((opt = getopt(argc, argv, "a:i:x:s:")) != -1) {
		switch (opt) {
		case 'a': len = arg(optarg, "array length"); break;
		case 'i': iters = arg(optarg, "iteration count"); break;
		case 'x': code = arg(optarg, "exit code"); break;
		case 's': nap = arg(optarg, "sleep"); break;
		default:
			fprintf(stderr, "usage: mpi-stream [-a LEN] [-i ITERS] [-x CODE] [-s SECONDS]\n");
			return 2;
		}
	}
	if (len < 1 || iters < 1) {
		fprintf(stderr, "mpi-stream: the array length and the iteration count must be positive\n");
		return 2;
	}
	MPI_Init(&argc, &argv);
	int size, rank;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("world %d rank %d\n", size, rank);
	fflush(stdout);
	if (code >= 0 && rank == (size > 1 ? 1 : 0))
		exit((int)code);   /* without MPI_Finalize: a rank that dies */
	if (nap > 0)
		sleep((unsigned)nap);
	double *a = malloc(sizeof(double) * (size_t)len), *b = malloc(sizeof(double) * (size_t)len),
	       *c = malloc(sizeof(double) * (size_t)len);
	if (!a || !b || !c) {
		fprintf(stderr, "mpi-stream: rank %d: out of memory for 3 arrays of %ld doubles\n", rank, len);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (long i = 0; i < len; i++) {
		a[i] = 0;
		b[i] = 1;
		c[i] = 2;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (long k = 0; k < iters; k++) {
		double s = 3.0 + (double)k;
		for (long i = 0; i < len; i++)
			a[i] = b[i] + s * c[i];
	}
	double t = MPI_Wtime() - t0, slowest, gbs = 24.0 * (double)len * (double)iters / t / 1e9, total;
	/* the result is used: the loop stays */
	if (a[len / 2] < 0)
		printf("impossible\n");
	MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&gbs, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("triad: %.6f s\nbandwidth: %.3f GB/s\n", slowest, total);
	free(a);
	free(b);
	free(c);
	MPI_Finalize();
	return 0;
}
