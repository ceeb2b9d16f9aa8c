/* Wall-clock, monotonic and CPU time in seconds. */
#include "common/clock.h"
#include <time.h>

static double seconds(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double wall_now(void)
{
	return seconds(CLOCK_REALTIME);
}

double mono_now(void)
{
	return seconds(CLOCK_MONOTONIC);
}

double thread_cpu_now(void)
{
	return seconds(CLOCK_THREAD_CPUTIME_ID);
}
