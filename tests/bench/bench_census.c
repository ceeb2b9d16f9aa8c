/*
 * What the census of foreign tasks (placement/census.h) costs: it samples
 * this machine's tasks every CENSUS_INTERVAL while a local run runs, from
 * the run's supervisor.  Over SECONDS (argument, default 10) it prints the
 * CPU time per sample and per second of run (the share of one core the
 * sampler takes), the tasks it saw, the foreign CPU time it counted per CPU
 * against what the CPUs could have given (a sanity check: never more), and
 * the five processes with the most time.  The figures go into
 * docs/validation.md ("What the census costs") with the load average.
 */
#include "common/clock.h"
#include "placement/census.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	double load[3] = { NAN, NAN, NAN };
	getloadavg(load, 3);
	struct census c;
	double t0 = mono_now();
	census_start(&c, 0, 0);
	double first = c.cost;
	while (mono_now() - t0 < seconds) {
		struct timespec ts = { 0, (long)(CENSUS_INTERVAL * 1e9) };
		nanosleep(&ts, NULL);
		census_sample(&c);
	}
	census_finish(&c);
	double wall = c.mono_last - c.mono0;
	printf("census: %d samples over %.1f s (every %.2f s), load average %.2f %.2f %.2f\n", c.samples, wall,
	       CENSUS_INTERVAL, load[0], load[1], load[2]);
	printf("  first sample (every task): %.2f ms CPU\n", 1e3 * first);
	printf("  per sample: %.3f ms CPU; per second of run: %.2f ms (%.2f%% of one core)\n",
	       1e3 * (c.cost - first) / (c.samples - 1), 1e3 * (c.cost - first) / wall,
	       100 * (c.cost - first) / wall);
	printf("  tasks held: %zu\n", c.ntasks);
	double total = 0;
	for (int i = 0; i < c.ncpus; i++) {
		printf("  cpu %d: foreign %.2f s of %.2f s (%.0f%%)%s\n", i, c.foreign[i], wall, 100 * c.foreign[i] / wall,
		       c.foreign[i] > wall * 1.05 ? "  MORE THAN THE CPU HAD" : "");
		total += c.foreign[i];
	}
	for (int i = 0; i < c.ncauses && i < 5; i++)
		printf("  pid %ld (%s) on cpu %d: %.2f s\n", c.causes[i].pid, c.causes[i].comm, c.causes[i].cpu,
		       c.causes[i].seconds);
	int bad = total > wall * c.ncpus * 1.05;
	census_release(&c);
	return bad;
}
