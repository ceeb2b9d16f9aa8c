/* Cancel and retry from the monitor, through the store's transitions. */
#include "common/clock.h"
#include "tui/actions.h"
#include "orchestrator/backend.h"
#include "orchestrator/store.h"
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>


int top_cancel_runs(const char *dir, const long long *ids, size_t n, int *ncancelled,
		    struct perr *err)
{
	struct store *st;
	*ncancelled = 0;
	if (store_open(&st, dir, 0, err) < 0)
		return -1;
	char *backend = store_get_meta(st, "backend");
	int is_slurm = backend && !strcmp(backend, "slurm");
	struct backend *b = NULL;
	int ret = 0;
	/* the same sequence as `perfsweep cancel`: the store first, so that a
	   running orchestrator neither starts nor retries the run, then the job */
	for (size_t i = 0; i < n && !ret; i++) {
		struct run r;
		if (store_load_run(st, ids[i], &r, err) < 0) {
			ret = -1;
			break;
		}
		int live = r.state == RUN_PENDING || r.state == RUN_SUBMITTED || r.state == RUN_RUNNING;
		int inflight = r.state != RUN_PENDING && r.backend_id && *r.backend_id;
		if (live && inflight && is_slurm && !b) {
			struct backend_config bc = { .type = "slurm" };
			if (backend_slurm_new(&b, &bc, err) < 0) {
				perr_prefix(err, "cannot cancel slurm jobs");
				ret = -1;
			}
		}
		if (!ret && live) {
			if (store_mark_cancelled(st, r.id, wall_now(), "cancelled from perfsweep top",
						 err) < 0)
				ret = -1;
			else
				(*ncancelled)++;
		}
		if (!ret && live && inflight) {
			if (is_slurm)
				ret = b->ops->cancel(b, r.id, r.backend_id, err);
			else
				backend_local_cancel_id(r.backend_id);
		}
		run_release(&r);
	}
	if (b)
		b->ops->free(b);
	free(backend);
	store_close(st);
	return ret;
}

int top_retry_runs(const char *dir, const long long *ids, size_t n, int *nretried,
		   struct perr *err)
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
			if (store_mark_pending(st, r.id, "retried from perfsweep top", err) < 0)
				ret = -1;
			else
				(*nretried)++;
		}
		run_release(&r);
	}
	store_close(st);
	return ret;
}
