/* Cancel and retry, through the store's transitions and the backends' cancel. */
#include "engine/control.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include "engine/backend.h"
#include "campaign/store.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct canceller {
	struct store *st;
	const struct cancel_options *o;
	struct cancel_result *r;
	struct backend *b;      /* created on the first slurm job to cancel */
	char *abs_dir;          /* the campaign directory as its jobs name it */
};

static void add_line(char ***v, int *n, char *line)
{
	*v = xrealloc(*v, sizeof(**v) * (size_t)(*n + 1));
	(*v)[(*n)++] = line;
}

static int is_live(const struct run *r)
{
	return r->state == RUN_PENDING || r->state == RUN_SUBMITTED || r->state == RUN_RUNNING;
}

/* Stop an in-flight run's job or process group. */
static void kill_run(struct canceller *cc, const struct run *r)
{
	struct perr err;
	if (!cc->r->slurm) {
		cc->r->nkilled += backend_local_cancel_id(r->backend_id);
		return;
	}
	/* the backend kills only a job that carries this store's id and run */
	struct run_spec rs = { .id = r->id, .campaign_dir = cc->abs_dir, .store_id = store_id(cc->st),
			       .attempt = r->attempts };
	if (cc->b->ops->cancel(cc->b, &rs, r->backend_id, &err))
		add_line(&cc->r->errors, &cc->r->nerrors, xstrdup(err.msg));
	else
		cc->r->nkilled++;
}

/* Mark one run cancelled (the store first, so a running orchestrator does
   not retry it), then kill its job or process group.  0, or -1 if the store
   could not be changed. */
static int cancel_run(struct canceller *cc, const struct run *r)
{
	struct perr err;
	int inflight = r->state != RUN_PENDING && r->backend_id && *r->backend_id;
	if (inflight && cc->r->slurm && !cc->b) {
		struct backend_config bc = { .type = "slurm" };
		if (backend_slurm_new(&cc->b, &bc, &err)) {
			cc->b = NULL;
			add_line(&cc->r->errors, &cc->r->nerrors,
				 xasprintf("cannot cancel slurm job of run %lld: %s", r->id, err.msg));
			inflight = 0;
		}
	}
	if (store_mark_cancelled(cc->st, r->id, wall_now(), cc->o->reason, &err)) {
		add_line(&cc->r->errors, &cc->r->nerrors, xasprintf("run %lld: %s", r->id, err.msg));
		return -1;
	}
	if (inflight)
		kill_run(cc, r);
	return 0;
}

static int wanted(const struct cancel_options *o, long long id)
{
	if (!o->ids)
		return 1;
	for (size_t i = 0; i < o->nids; i++)
		if (o->ids[i] == id)
			return 1;
	return 0;
}

/* The requested ids that name no run. */
static void count_missing(const struct cancel_options *o, const struct run *runs, int nruns,
			  struct cancel_result *r)
{
	for (size_t i = 0; o->ids && i < o->nids; i++) {
		int found = 0;
		for (int k = 0; k < nruns && !found; k++)
			found = runs[k].id == o->ids[i];
		if (!found && !r->nmissing++)
			r->first_missing = o->ids[i];
	}
}

/* A second look at the runs that were pending, once a concurrent submission is over. */
static void recheck(struct canceller *cc, const long long *ids, int n)
{
	struct timespec pause = { (time_t)cc->o->recheck,
				  (long)((cc->o->recheck - (double)(time_t)cc->o->recheck) * 1e9) };
	nanosleep(&pause, NULL);
	for (int k = 0; k < n; k++) {
		struct run r;
		struct perr err;
		if (store_load_run(cc->st, ids[k], &r, &err))
			continue;
		if (r.state == RUN_SUBMITTED || r.state == RUN_RUNNING)
			cancel_run(cc, &r);
		run_release(&r);
	}
}

/* Pending runs are cancelled before any in-flight one is killed: a kill
   frees a slot, and a running orchestrator would fill it with the next
   pending run if that run were still pending. */
static void cancel_runs(struct canceller *cc, const struct run *runs, int nruns)
{
	long long *was_pending = xcalloc((size_t)nruns + 1, sizeof(long long));
	int npending = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nruns; i++) {
			const struct run *r = &runs[i];
			if (!wanted(cc->o, r->id) || (r->state == RUN_PENDING) != (pass == 0))
				continue;
			if (!is_live(r)) {
				if (cc->o->ids)
					add_line(&cc->r->notes, &cc->r->nnotes,
						 xasprintf("run %lld is %s: nothing to cancel", r->id,
							   run_state_name(r->state)));
				continue;
			}
			if (cancel_run(cc, r))
				continue;
			cc->r->ncancelled++;
			if (r->state == RUN_PENDING)
				was_pending[npending++] = r->id;
		}
	if (npending > 0 && cc->o->recheck > 0)
		recheck(cc, was_pending, npending);
	free(was_pending);
}

int campaign_cancel(const char *dir, const struct cancel_options *o, struct cancel_result *r,
		    struct perr *err)
{
	memset(r, 0, sizeof(*r));
	struct canceller cc = { .o = o, .r = r };
	if (store_open(&cc.st, dir, 0, err))
		return -1;
	cc.abs_dir = realpath(dir, NULL);
	if (!cc.abs_dir)
		cc.abs_dir = xstrdup(dir);
	struct run *runs = NULL;
	int nruns = 0;
	if (store_load_runs(cc.st, 0, &runs, &nruns, err)) {
		store_close(cc.st);
		free(cc.abs_dir);
		return -1;
	}
	char *backend = store_get_meta(cc.st, "backend");
	r->slurm = backend && !strcmp(backend, "slurm");
	free(backend);
	count_missing(o, runs, nruns, r);
	cancel_runs(&cc, runs, nruns);
	if (cc.b)
		cc.b->ops->free(cc.b);
	runs_free(runs, nruns);
	store_close(cc.st);
	free(cc.abs_dir);
	return 0;
}

void cancel_result_release(struct cancel_result *r)
{
	for (int i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	for (int i = 0; i < r->nerrors; i++)
		free(r->errors[i]);
	free(r->notes);
	free(r->errors);
	memset(r, 0, sizeof(*r));
}

int campaign_retry(const char *dir, const long long *ids, size_t n, const char *reason,
		   int *nretried, struct perr *err)
{
	struct store *st;
	*nretried = 0;
	if (store_open(&st, dir, 0, err) < 0)
		return -1;
	int ret = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		struct run r;
		if (store_load_run(st, ids[i], &r, err) < 0) {
			ret = -1;
			break;
		}
		if (r.state == RUN_FAILED) {
			if (store_mark_pending(st, r.id, reason, err) < 0)
				ret = -1;
			else
				(*nretried)++;
		}
		run_release(&r);
	}
	store_close(st);
	return ret;
}
