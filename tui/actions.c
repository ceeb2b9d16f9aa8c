/* Cancel and retry from the monitor, through the store's transitions. */
#include "tui/actions.h"
#include "orchestrator/backend.h"
#include "orchestrator/store.h"
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static double now_seconds(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

int top_cancel_runs(const char *dir, const long long *ids, size_t n, int *ncancelled,
		    struct perr *err)
{
	struct store *st;
	*ncancelled = 0;
	if (store_open(&st, dir, 0, err) < 0)
		return -1;
	char *backend = store_get_meta(st, "backend");
	int ret = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		struct run r;
		if (store_load_run(st, ids[i], &r, err) < 0) {
			ret = -1;
			break;
		}
		int inflight = r.state == RUN_SUBMITTED || r.state == RUN_RUNNING;
		if (r.state == RUN_PENDING || inflight) {
			if (store_mark_cancelled(st, r.id, now_seconds(), "cancelled from perfsweep top",
						 err) < 0)
				ret = -1;
			else
				(*ncancelled)++;
			if (!ret && inflight) {
				if (!backend || !strcmp(backend, "local"))
					backend_local_cancel_id(r.backend_id);
				else
					ret = perr_set(err, "run %lld marked cancelled, but stopping "
						       "'%s' jobs is not available here; use "
						       "'perfsweep cancel'", r.id, backend);
			}
		}
		run_release(&r);
	}
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
