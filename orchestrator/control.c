/* Cancel and retry, through the store's transitions and the backends' cancel. */
#include "orchestrator/control.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include "orchestrator/backend.h"
#include "campaign/store.h"
#include <stdlib.h>
#include <string.h>

struct canceller {
	struct store *st;
	const struct cancel_options *o;
	struct cancel_result *r;
	const struct backend_entry *be;   /* the campaign's backend, NULL when unknown */
	struct backend *b;      /* opened by be->cancel_id when it needs one */
	char *abs_dir;          /* the campaign directory as its jobs name it */
};

static void add_line(char ***v, int *n, char *line)
{
	*v = xrealloc(*v, sizeof(**v) * (size_t)(*n + 1));
	(*v)[(*n)++] = line;
}

/* Stop run r's job or process group in flight (backend_id, as the store had
   it when the run was marked cancelled). */
static void kill_run(struct canceller *cc, const struct run *r, const char *backend_id)
{
	struct perr err;
	if (!cc->be) {
		add_line(&cc->r->errors, &cc->r->nerrors,
			 xasprintf("run %lld: its backend is not one this perfsweep has; its job '%s' is "
				   "left as it is", r->id, backend_id));
		return;
	}
	char *run_dir = store_run_path(cc->st, r->id);
	struct run_spec rs = { .id = r->id, .campaign_dir = cc->abs_dir, .store_id = store_id(cc->st),
			       .attempt = r->attempts, .run_dir = run_dir };
	int rc = cc->be->cancel_id(&cc->b, &rs, backend_id, &err);
	free(run_dir);
	if (rc < 0)
		add_line(&cc->r->errors, &cc->r->nerrors, xstrdup(err.msg));
	else
		cc->r->nkilled += rc;
}

/* A note for a requested run that is not live. */
static void not_live(struct canceller *cc, long long id, enum run_state state)
{
	if (cc->o->ids)
		add_line(&cc->r->notes, &cc->r->nnotes,
			 xasprintf("run %lld is %s: nothing to cancel", id, run_state_name(state)));
}

/*
 * Mark one run cancelled (the store first, so a running orchestrator
 * neither starts nor retries it), then kill the job or process group it had
 * in flight at that moment: the store says which in the same transaction,
 * so a run that a live orchestrator submitted meanwhile is killed too, and
 * one it is still starting is stopped by that orchestrator (its record of
 * the start is refused).  0 cancelled, 1 not live, -1 the store failed.
 */
static int cancel_run(struct canceller *cc, const struct run *r)
{
	struct perr err;
	int was = -1;
	char *bid = NULL;
	int rc = store_cancel_run(cc->st, r->id, wall_now(), cc->o->reason, &was, &bid, &err);
	if (rc < 0) {
		add_line(&cc->r->errors, &cc->r->nerrors, xasprintf("run %lld: %s", r->id, err.msg));
		return -1;
	}
	if (rc == 0 && run_is_in_flight((enum run_state)was) && bid && *bid)
		kill_run(cc, r, bid);
	if (rc == 1)            /* it finished meanwhile */
		not_live(cc, r->id, (enum run_state)was);
	free(bid);
	return rc;
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

/* Pending runs are cancelled before any in-flight one is killed: a kill
   frees a slot, and a running orchestrator would fill it with the next
   pending run if that run were still pending. */
static void cancel_runs(struct canceller *cc, const struct run *runs, int nruns)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nruns; i++) {
			const struct run *r = &runs[i];
			if (!wanted(cc->o, r->id) || (r->state == RUN_PENDING) != (pass == 0))
				continue;
			if (!run_is_live(r->state)) {
				not_live(cc, r->id, r->state);
				continue;
			}
			if (cancel_run(cc, r) == 0)
				cc->r->ncancelled++;
		}
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
	cc.be = backend_find(backend);
	free(backend);
	static const char *const jobs[2] = { "job", "jobs" };
	r->job_words = cc.be ? cc.be->job_words : jobs;
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
			int rc = store_retry_run(st, r.id, reason, err);
			if (rc < 0)
				ret = -1;
			else if (rc == 0)
				(*nretried)++;
		}
		run_release(&r);
	}
	store_close(st);
	return ret;
}
