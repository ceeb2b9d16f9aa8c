/*
 * Reads of a whole store on a thread of its own (store.h): the caller
 * shows what it has at once and learns the answer a little later, as
 * interactive top does with the store's check and its flags.  Each task
 * has its own connection (SQLite connections are not shared between
 * threads here).
 */
#include "campaign/store_priv.h"
#include "common/xalloc.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define TASK_RUNNING 1
#define TASK_LEFT 2             /* stopped while it ran: the thread frees it */
/*
 * Stopping must not wait for a task: an interrupt ends its reading at
 * once, but between reads it may compute for seconds (top's flags at 10^6
 * runs: a quit waited 4.4 s so).  One still running after this long is
 * left to end and free itself.
 */
#define TASK_STOP_WAIT_MS 100

struct store_task {
	struct store *st;
	store_task_fn fn;
	void *state;
	pthread_t thread;
	int threaded;           /* the thread started (else it ran at start) */
	atomic_int status;      /* TASK_RUNNING, 0 done, -1 failed, TASK_LEFT */
	struct perr err;
};

static void task_free(struct store_task *t)
{
	store_close(t->st);
	free(t->state);
	free(t);
}

static void *task_thread(void *arg)
{
	struct store_task *t = arg;
	int rc = t->fn(t->st, t->state, &t->err);
	int running = TASK_RUNNING;
	if (!atomic_compare_exchange_strong(&t->status, &running, rc < 0 ? -1 : 0))
		task_free(t);           /* left by store_task_stop */
	return NULL;
}

struct store_task *store_task_start(const char *dir, store_task_fn fn, void *state, struct perr *err)
{
	struct store *st;
	if (store_open(&st, dir, STORE_READONLY | STORE_NOCHECK, err) < 0) {
		free(state);
		return NULL;
	}
	struct store_task *t = xcalloc(1, sizeof(*t));
	t->st = st;
	t->fn = fn;
	t->state = state;
	atomic_init(&t->status, TASK_RUNNING);
	/* where SQLite is not built thread-safe, or no thread is to be had: here and now */
	t->threaded = sqlite3_threadsafe() && !pthread_create(&t->thread, NULL, task_thread, t);
	if (!t->threaded)
		task_thread(t);
	return t;
}

int store_task_poll(struct store_task *t, struct perr *err)
{
	int s = atomic_load(&t->status);
	if (s < 0)
		*err = t->err;
	return s;
}

void *store_task_state(const struct store_task *t)
{
	return t->state;
}

void store_task_stop(struct store_task *t)
{
	if (!t)
		return;
	if (t->threaded && atomic_load(&t->status) == TASK_RUNNING) {
		sqlite3_interrupt(t->st->db);
		for (int ms = 0; ms < TASK_STOP_WAIT_MS && atomic_load(&t->status) == TASK_RUNNING; ms++)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		int running = TASK_RUNNING;
		if (atomic_compare_exchange_strong(&t->status, &running, TASK_LEFT)) {
			pthread_detach(t->thread);
			return;
		}
	}
	if (t->threaded)
		pthread_join(t->thread, NULL);
	task_free(t);
}

int store_check_task(struct store *st, void *state, struct perr *err)
{
	(void)state;
	return sdb_check_whole(st, err);
}
