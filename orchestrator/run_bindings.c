/* Rank records, the end note and the census note of a finished run -> the store's bindings, resources and causes. */
#include "orchestrator/run_bindings.h"
#include "common/xalloc.h"
#include "orchestrator/local/supervisor.h"
#include "placement/bind.h"
#include "validator/disturbed.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A rank record's usage as a resource record. */
static void rank_resource(const struct bind_info *bi, double allowed, struct run_resource *x)
{
	const struct bind_usage *u = &bi->usage;
	*x = (struct run_resource){
		.rank = bi->rank, .utime = u->utime, .stime = u->stime, .wall = bi->wall >= 0 ? bi->wall : NAN,
		.cpu_share = u->cpu_share, .allowed_share = allowed, .maxrss_kb = u->maxrss_kb,
		.nvcsw = u->nvcsw, .nivcsw = u->nivcsw, .load_start = u->load_start, .load_end = u->load_end,
		.run_delay = u->run_delay, .foreign = NAN, .steal = NAN, .pressure = NAN, .quiet_wait = NAN,
	};
}

/* The end note's figures as the whole-run record (rank -1); 0 when there is none to use. */
static int run_resource(const char *run_dir, int attempt, struct run_resource *x)
{
	struct sv_end le;
	if (supervisor_read_end(run_dir, &le) != 0 || !(le.wall > 0))
		return 0;
	int use = !(attempt > 0 && le.attempt > 0 && le.attempt != attempt);
	double cpu = le.utime + le.stime;
	*x = (struct run_resource){
		.rank = -1, .utime = le.utime, .stime = le.stime, .wall = le.wall,
		.cpu_share = cpu / le.wall, .allowed_share = NAN,
		.maxrss_kb = le.maxrss_kb, .nvcsw = le.nvcsw, .nivcsw = le.nivcsw,
		.load_start = NAN, .load_end = NAN,
		.run_delay = NAN, .foreign = NAN, .steal = NAN, .pressure = NAN, .quiet_wait = NAN,
	};
	return use;
}

#define COVERED_SHARE 0.5   /* of a record's CPU time its delay's threads must have run, */
#define UNSEEN_WALL 0.05     /* unless the rest is less than this part of its wall time */

/* Whether CPU i is among cpus[0..n) (n < 0: every CPU). */
static int on(const int *cpus, int n, int i)
{
	for (int k = 0; k < n; k++)
		if (cpus[k] == i)
			return 1;
	return n < 0;
}

static void add_cause(struct run_cause **causes, int *ncauses, size_t *alloc, int rank, long pid, const char *comm,
		      int core, double seconds)
{
	XGROW(*causes, (size_t)*ncauses + 1, *alloc);
	struct run_cause *y = &(*causes)[(*ncauses)++];
	y->rank = rank;
	y->pid = pid;
	snprintf(y->comm, sizeof(y->comm), "%s", comm);
	y->core = core;
	y->seconds = seconds;
}

/*
 * What the census saw on cpus[0..n) (n < 0: every CPU), into x, and its
 * causes there into causes.  own: the CPU seconds the run's own processes
 * used there (wait4's, exact): what ran there beyond it, the foreign tasks
 * seen and perfsweep's own processes ran in tasks too short to be seen.
 */
static void census_into(const struct sv_census *c, int rank, const int *cpus, int n, double own, double main_cpu,
			struct run_resource *x, struct run_cause **causes, int *ncauses, size_t *alloc)
{
	double foreign = 0, steal = 0, unseen = -own, most = -1;
	int core = -1;
	for (int i = 0; i < c->ncpus; i++) {
		if (!on(cpus, n, i))
			continue;
		foreign += c->foreign ? c->foreign[i] : 0;
		steal += c->steal ? c->steal[i] : 0;
		double left = c->busy && c->ours && c->bind && c->foreign
			? c->busy[i] - c->foreign[i] - c->ours[i] - (rank >= 0 ? c->bind[i] : 0) : 0;
		unseen += left;
		if (left > most) {
			most = left;
			core = i;
		}
	}
	for (int i = 0; i < c->ncauses; i++)
		if (on(cpus, n, c->causes[i].cpu))
			add_cause(causes, ncauses, alloc, rank, c->causes[i].pid, c->causes[i].comm, c->causes[i].cpu,
				  c->causes[i].seconds);
	/* below a tick per CPU it is the clocks' granularity */
	if (c->busy && core >= 0 && unseen > 0.02 * (n < 0 ? c->ncpus : n)) {
		foreign += unseen;
		add_cause(causes, ncauses, alloc, rank, 0, DISTURBED_SHORT_TASKS, core, unseen);
	}
	x->foreign = c->foreign ? foreign : NAN;
	x->steal = c->steal ? steal : NAN;
	x->pressure = c->pressure;
	double delay = c->schedstat ? 0 : NAN, seen = 0;
	for (int i = 0; i < c->nranks; i++)
		if (rank < 0 || c->ranks[i].rank == rank) {
			delay += c->ranks[i].run_delay;
			seen += c->ranks[i].cpu;
		}
	/* the record's figure is the main thread's, read as it exited */
	x->run_delay = isnan(x->run_delay) ? delay : fmax(x->run_delay, isnan(delay) ? 0 : delay);
	/* A delay speaks for the threads it was read of.  Where they ran less
	   than half the record's CPU time (a program started by a launcher
	   script, which exited between the census's samples), and what ran
	   unseen is more than a twentieth of the wall time (what computes
	   while others take its core waits about as long as it runs; a program
	   that sleeps runs little, seen or not), the delay is unknown: the rule
	   then asks the involuntary switches (validator/disturbed.h). */
	double cpu = x->utime + x->stime, spoken = fmax(seen, isfinite(main_cpu) ? main_cpu : 0);
	double ran_unseen = cpu - spoken;
	if (isfinite(x->run_delay) && ran_unseen > (1 - COVERED_SHARE) * cpu && ran_unseen > UNSEEN_WALL * x->wall)
		x->run_delay = NAN;
}

/* The CPU seconds of the records res[0..n) whose ranks' cpusets lie within cpus[0..ncpus) (a rank's own and
   any other rank's on the same cores). */
static double own_cpu(const struct bind_info *bi, int nbi, const struct run_resource *res, int n, const int *cpus,
		      int ncpus)
{
	double sum = 0;
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < nbi && res[i].rank >= 0; k++) {
			int *v, m = bi[k].rank == res[i].rank ? census_cpus_of(bi[k].cpuset, &v) : -1, within = m > 0;
			for (int j = 0; j < m; j++)
				within &= on(cpus, ncpus, v[j]);
			if (m >= 0)
				free(v);
			if (within)
				sum += res[i].utime + res[i].stime;
		}
	}
	return sum;
}

/* Add the census's figures to the records res[0..n) (rank records from bi). */
static int add_census(const char *run_dir, int attempt, const struct bind_info *bi, int nbi,
		      struct run_resource *res, int n, struct run_cause **causes)
{
	struct sv_census c;
	int ncauses = 0;
	size_t alloc = 0;
	*causes = NULL;
	if (supervisor_read_census(run_dir, &c) == 0 && !(attempt > 0 && c.attempt > 0 && c.attempt != attempt)) {
		for (int i = 0; i < n; i++) {
			int *cpus = NULL, ncpus = -1;
			const char *list = res[i].rank >= 0 ? NULL : nbi ? c.cpus : "";
			for (int k = 0; k < nbi && res[i].rank >= 0; k++)
				if (bi[k].rank == res[i].rank)
					list = bi[k].cpuset;
			if (list && *list)
				ncpus = census_cpus_of(list, &cpus);
			if (res[i].rank >= 0 && ncpus < 0)
				ncpus = 0;      /* a rank whose binding is unknown: no foreign time known */
			double own = res[i].rank >= 0 ? own_cpu(bi, nbi, res, n, cpus, ncpus)
						      : res[i].utime + res[i].stime, main_cpu = NAN;
			for (int k = 0; k < nbi && res[i].rank >= 0; k++)
				if (bi[k].rank == res[i].rank)
					main_cpu = bi[k].usage.main_cpu;
			census_into(&c, res[i].rank, cpus, ncpus, own, main_cpu, &res[i], causes, &ncauses, &alloc);
			if (res[i].rank >= 0 && ncpus == 0)
				res[i].foreign = res[i].steal = NAN;
			if (res[i].rank < 0)
				res[i].quiet_wait = c.quiet_wait;
			free(cpus);
		}
	}
	sv_census_release(&c);
	return ncauses;
}

int run_bindings_record(struct store *st, long long id, const char *run_dir, int attempt,
			struct perr *err)
{
	struct bind_info *bi;
	int n;
	bind_records_in(run_dir, &bi, &n);
	struct run_resource *res = xcalloc((size_t)n + 1, sizeof(*res));
	int nres = run_resource(run_dir, attempt, &res[0]);
	int rc = 0;
	if (n) {
		struct run_binding *b = xcalloc((size_t)n, sizeof(*b));
		double *allowed = xcalloc((size_t)n, sizeof(double));
		bind_allowed_shares(bi, n, allowed);
		for (int i = 0; i < n; i++) {
			b[i].rank = bi[i].rank;
			b[i].node = bi[i].node;
			b[i].cpuset = bi[i].cpuset;
			b[i].cores = bi[i].cores;
			if (bi[i].have_usage)
				rank_resource(&bi[i], allowed[i], &res[nres++]);
		}
		rc = store_put_bindings(st, id, b, n, err);
		free(b);
		free(allowed);
	}
	struct run_cause *causes;
	int ncauses = add_census(run_dir, attempt, bi, n, res, nres, &causes);
	if (!rc && nres)
		rc = store_put_resources(st, id, res, nres, err);
	if (!rc)
		rc = store_put_causes(st, id, causes, ncauses, err);
	free(causes);
	free(res);
	bind_infos_free(bi, n);
	return rc;
}
