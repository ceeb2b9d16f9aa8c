/* Rank records and the end note of a finished run -> the store's bindings and resources. */
#include "orchestrator/run_bindings.h"
#include "common/xalloc.h"
#include "orchestrator/local/supervisor.h"
#include "placement/bind.h"
#include <math.h>
#include <stdlib.h>

/* A rank record's usage as a resource record. */
static void rank_resource(const struct bind_info *bi, double allowed, struct run_resource *x)
{
	const struct bind_usage *u = &bi->usage;
	*x = (struct run_resource){
		.rank = bi->rank, .utime = u->utime, .stime = u->stime, .wall = bi->wall >= 0 ? bi->wall : NAN,
		.cpu_share = u->cpu_share, .allowed_share = allowed, .maxrss_kb = u->maxrss_kb,
		.nvcsw = u->nvcsw, .nivcsw = u->nivcsw, .load_start = u->load_start, .load_end = u->load_end,
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
	};
	return use;
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
	if (!rc && nres)
		rc = store_put_resources(st, id, res, nres, err);
	free(res);
	bind_infos_free(bi, n);
	return rc;
}
