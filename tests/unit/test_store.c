/* Campaign store: plan, transitions, measurements, concurrent readers, resume, store ids. */
#include "campaign/store.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

static void make_plan(struct plan *pl, int reps)
{
	static double n[] = { 10, 20, 30 }, p[] = { 2, 4 };
	static struct plan_param params[] = { { "n", NULL, 3, n, 1 }, { "p", "ranks", 2, p, 1 } };
	struct design_spec spec = { .nparams = 2, .params = params, .repetitions = reps };
	struct perr err;
	plan_full_factorial(pl, &spec, &err);
}

static int hex_id(const char *id)
{
	if (!id || strlen(id) != STORE_ID_LEN)
		return 0;
	for (const char *p = id; *p; p++)
		if (!strchr("0123456789abcdef", *p))
			return 0;
	return 1;
}

static int state_of(struct store *st, long long id)
{
	struct run r;
	struct perr err = { 0 };
	if (store_load_run(st, id, &r, &err))
		return -1;
	int s = r.state;
	run_release(&r);
	return s;
}

/* A batch of changes is one transaction: readers see none of it until it
   ends, a change it refuses leaves the others, and an orchestrator killed
   inside it leaves the store as it was before the batch. */
static void test_batch(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/batch", tap_tmpdir());
	struct plan pl;
	make_plan(&pl, 1);
	struct store *st, *ro;
	struct perr err = { 0 };
	is_int(store_create(&st, dir, "camp", "slurm", "", &pl, &err), 0, "batch: store created");
	is_int(store_open(&ro, dir, STORE_READONLY, &err), 0, "batch: a reader");
	is_int(store_batch_begin(st, &err), 0, "batch begins");
	ok(store_batch_begin(st, &err) == -1, "a batch inside a batch is refused");
	is_int(store_mark_submitted(st, 1, "7_0", 100, &err), 0, "run 1 submitted in the batch");
	is_int(store_mark_submitted(st, 2, "7_1", 100, &err), 0, "run 2 submitted in the batch");
	is_int(store_mark_cancelled(st, 3, 100, "by hand", &err), 0, "run 3 cancelled in the batch");
	is_int(store_mark_running(st, 3, 101, &err), 1, "a change the state machine refuses, in the batch");
	is_int(store_mark_running(st, 2, 101, &err), 0, "and the next change applies");
	is_int(state_of(ro, 1), RUN_PENDING, "a reader sees nothing of an open batch");
	is_int(store_batch_end(st, &err), 0, "batch ends");
	is_int(state_of(ro, 1), RUN_SUBMITTED, "then it sees run 1 submitted");
	is_int(state_of(ro, 2), RUN_RUNNING, "run 2 running");
	is_int(state_of(ro, 3), RUN_CANCELLED, "and run 3 cancelled: the refused change undid nothing else");
	is_int(store_batch_end(st, &err), 0, "ending no batch does nothing");
	store_close(st);

	pid_t pid = fork();
	if (pid == 0) {   /* an orchestrator killed inside its batch */
		struct store *w;
		struct perr e2 = { 0 };
		if (store_open(&w, dir, 0, &e2) || store_batch_begin(w, &e2) ||
		    store_mark_submitted(w, 4, "8_0", 200, &e2) || store_mark_submitted(w, 5, "8_1", 200, &e2))
			_exit(2);
		_exit(0);   /* no store_batch_end, no close */
	}
	int ws = 0;
	waitpid(pid, &ws, 0);
	is_int(WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, 0, "the killed orchestrator had marked runs 4 and 5");
	ok(state_of(ro, 4) == RUN_PENDING && state_of(ro, 5) == RUN_PENDING,
	   "after it died inside its batch, runs 4 and 5 are still pending");
	is_int(store_open(&st, dir, 0, &err), 0, "and the store opens for writing");
	is_int(store_mark_submitted(st, 4, "9_0", 300, &err), 0, "run 4 is submitted afresh");
	store_close(st);
	store_close(ro);
	plan_release(&pl);
}

/* Each store has its own id: kept on reopen, new for a store made afresh at
   the same path, given to a store made before ids when opened for writing. */
static void test_store_id(void)
{
	char dir[600], first[STORE_ID_LEN + 1] = "";
	snprintf(dir, sizeof(dir), "%s/ids", tap_tmpdir());
	struct plan pl;
	make_plan(&pl, 1);
	struct store *st, *ro;
	struct perr err = { 0 };
	is_int(store_create(&st, dir, "camp", "slurm", "", &pl, &err), 0, "store created");
	ok(hex_id(store_id(st)), "it has an id of %d hex digits (%s)", STORE_ID_LEN, store_id(st));
	snprintf(first, sizeof(first), "%s", store_id(st) ? store_id(st) : "");
	char *meta = store_get_meta(st, "store_id");
	is_str(meta, first, "kept in the meta table as store_id");
	free(meta);
	store_close(st);
	is_int(store_create(&st, dir, "camp", "slurm", "", &pl, &err), 0, "reopened (resume)");
	is_str(store_id(st), first, "the same store keeps its id");
	store_close(st);
	is_int(store_open(&ro, dir, STORE_READONLY, &err), 0, "opened read-only");
	is_str(store_id(ro), first, "read-only too");
	store_close(ro);

	char *db = xasprintf("%s/campaign.db", dir);
	unlink(db);
	is_int(store_create(&st, dir, "camp", "slurm", "", &pl, &err), 0, "made afresh at the same path");
	ok(hex_id(store_id(st)) && strcmp(store_id(st), first), "with another id (%s)", store_id(st));
	store_close(st);

	/* a store from before store ids */
	sqlite3 *h;
	sqlite3_open(db, &h);
	is_int(sqlite3_exec(h, "DELETE FROM meta WHERE key = 'store_id'", NULL, NULL, NULL), SQLITE_OK,
	       "store id removed, as in a store made before them");
	sqlite3_close(h);
	is_int(store_open(&ro, dir, STORE_READONLY, &err), 0, "such a store opens read-only");
	ok(store_id(ro) == NULL, "without an id");
	store_close(ro);
	is_int(store_open(&st, dir, 0, &err), 0, "and for writing");
	ok(hex_id(store_id(st)), "which gives it one (%s)", store_id(st));
	snprintf(first, sizeof(first), "%s", store_id(st) ? store_id(st) : "");
	store_close(st);
	is_int(store_open(&ro, dir, STORE_READONLY, &err), 0, "reopened read-only");
	is_str(store_id(ro), first, "it kept the id it was given");
	store_close(ro);
	free(db);
	plan_release(&pl);
}

int main(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/c1", tap_tmpdir());
	struct plan pl;
	make_plan(&pl, 2);
	struct store *st, *ro;
	struct perr err = { 0 };
	is_int(store_create(&st, dir, "camp", "local", "name = \"camp\";", &pl, &err), 0, "store created");
	struct store_counts cnt;
	store_counts(st, &cnt, &err);
	is_int(cnt.planned, 12, "6 points x 2 repetitions planned");
	is_int(cnt.pending, 12, "all pending");
	is_int(store_nparams(st), 2, "two parameters");
	is_str(store_param_role(st, 1), "ranks", "role stored");

	struct run r;
	store_load_run(st, 12, &r, &err);
	ok(r.values[0] == 30 && r.values[1] == 4 && r.repetition == 2, "last run is n=30, p=4, rep 2");
	is_int(r.ranks, 4, "ranks follow the ranks parameter");
	run_release(&r);

	is_int(store_open(&ro, dir, STORE_READONLY, &err), 0, "a reader opens while the writer holds it");
	long long seq0 = store_last_seq(ro);

	struct measurement_list ml;
	measurement_list_init(&ml);
	measurement_list_add(&ml, -1, "main", "time", 1.5);
	measurement_list_add(&ml, 0, "k", "time", 0.5);
	measurement_list_add(&ml, 1, "k", "time", 0.7);
	store_mark_submitted(st, 1, "123:4", 100, &err);
	store_mark_running(st, 1, 100.5, &err);
	is_int(store_mark_done(st, 1, 102, 0, 1.5, &ml, NULL, &err), 0, "run 1 done");
	/* a second report of the same completion is refused: done is final,
	   and its measurements are neither replaced nor added to */
	is_int(store_mark_done(st, 1, 103, 0, 1.5, &ml, NULL, &err), 1, "run 1 done again is refused");
	contains(err.msg, "run 1 is done: cannot mark it done", "and the refusal names the state");
	struct measurement_list got;
	measurement_list_init(&got);
	store_load_measurements(ro, 1, &got, &err);
	is_int(got.n, 3, "measurements of an earlier attempt are not counted twice");
	measurement_list_release(&got);

	store_mark_submitted(st, 2, "124:5", 100, &err);
	store_mark_failed(st, 2, 101, 3, 0.1, "exit status 3", 1, &err);
	store_load_run(ro, 2, &r, &err);
	is_int(r.state, RUN_PENDING, "a failed run with attempts left goes back to pending");
	is_int(r.attempts, 1, "the attempt is counted");
	is_str(r.reason, "exit status 3", "the reason is kept");
	run_release(&r);
	store_mark_submitted(st, 2, "125:5", 102, &err);
	store_mark_failed(st, 2, 103, 3, 0.1, "exit status 3", 0, &err);
	store_mark_cancelled(st, 3, 104, "cancelled by user", &err);

	struct run *changed;
	int nchanged;
	store_load_runs(ro, seq0, &changed, &nchanged, &err);
	is_int(nchanged, 3, "incremental read returns only the three changed runs");
	runs_free(changed, nchanged);

	struct run_event *ev;
	int nev;
	store_run_events(ro, 2, &ev, &nev, &err);
	is_int(nev, 4, "run 2 has four state events");
	ok(nev == 4 && ev[3].state == RUN_FAILED, "the last event is failed");
	run_events_free(ev, nev);

	store_counts(ro, &cnt, &err);
	ok(cnt.done == 1 && cnt.failed == 1 && cnt.cancelled == 1 && cnt.pending == 9,
	   "counts: 1 done, 1 failed, 1 cancelled, 9 pending");

	struct experiment e;
	experiment_init(&e);
	is_int(store_load_experiment(ro, NULL, &e, &err), 0, "experiment loads");
	int k = experiment_find_callpath(&e, "k"), m = experiment_find_metric(&e, "time");
	const struct exp_values *v = experiment_values(&e, k, m, 0);
	ok(v && v->n == 1 && fabs(v->v[0] - 0.6) < 1e-12, "per-rank values are averaged over ranks");
	v = experiment_values(&e, experiment_find_callpath(&e, "main"), m, 0);
	ok(v && v->n == 1 && v->v[0] == 1.5, "an aggregated (rank -1) value is used as is");
	experiment_release(&e);
	store_close(ro);
	store_close(st);

	/* resume: same campaign and plan reopens; another plan is refused */
	is_int(store_create(&st, dir, "camp", "local", "", &pl, &err), 0, "same campaign reopens");
	store_counts(st, &cnt, &err);
	is_int(cnt.done, 1, "nothing recorded is lost on reopen");
	store_close(st);
	struct plan pl2;
	make_plan(&pl2, 3);
	is_int(store_create(&st, dir, "camp", "local", "", &pl2, &err), 0, "a plan with more repetitions grows it");
	store_counts(st, &cnt, &err);
	ok(cnt.planned == 18 && cnt.done == 1, "six runs added, the done one kept");
	store_close(st);
	ok(store_create(&st, dir, "other", "local", "", &pl, &err) == -1, "another campaign is refused");
	plan_release(&pl2);
	plan_release(&pl);

	ok(store_open(&st, tap_tmpdir(), 0, &err) == -1, "a directory without a store is refused");
	contains(err.msg, "not a campaign directory", "with a clear reason");
	measurement_list_release(&ml);
	test_store_id();
	test_batch();
	return done_testing();
}
