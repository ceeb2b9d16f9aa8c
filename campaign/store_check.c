/*
 * A reader's check of a whole store on a thread of its own (store.h): the
 * caller shows the runs at once and learns a little later whether the file
 * is sound, and still refuses a corrupt store, only not before its first
 * screen.  The thread has its own connection (SQLite connections are not
 * shared between threads here); stopping interrupts the check.
 */
#include "campaign/store_priv.h"
#include "common/xalloc.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct store_check {
	struct store *st;
	pthread_t thread;
	int threaded;           /* the thread started (else it checked at start) */
	atomic_int state;       /* 1 running, 0 sound, -1 not */
	struct perr err;
};

static void *check_thread(void *arg)
{
	struct store_check *c = arg;
	int rc = sdb_check_whole(c->st, &c->err);
	atomic_store(&c->state, rc < 0 ? -1 : 0);
	return NULL;
}

struct store_check *store_check_start(const char *dir, struct perr *err)
{
	struct store *st;
	if (store_open(&st, dir, STORE_READONLY | STORE_NOCHECK, err) < 0)
		return NULL;
	struct store_check *c = xcalloc(1, sizeof(*c));
	c->st = st;
	atomic_init(&c->state, 1);
	c->threaded = store_threadsafe() && !pthread_create(&c->thread, NULL, check_thread, c);
	if (!c->threaded)
		check_thread(c);        /* no thread to spare: check now, as store_open would */
	return c;
}

int store_check_poll(struct store_check *c, struct perr *err)
{
	int s = atomic_load(&c->state);
	if (s < 0)
		*err = c->err;
	return s;
}

int store_threadsafe(void)
{
	return sqlite3_threadsafe() != 0;
}

void store_interrupt(struct store *st)
{
	sqlite3_interrupt(st->db);
}

void store_check_stop(struct store_check *c)
{
	if (!c)
		return;
	if (atomic_load(&c->state) == 1)
		store_interrupt(c->st);
	if (c->threaded)
		pthread_join(c->thread, NULL);
	store_close(c->st);
	free(c);
}
