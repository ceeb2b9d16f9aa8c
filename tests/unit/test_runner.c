/*
 * The run engine (orchestrator/runner.c) driven by a fake backend: an ops
 * table in this file that scripts what each run does.  No process, no
 * cluster: a real store in a scratch directory, and the engine's decisions
 * checked there.
 *
 *   run 1: start fails for good            -> failed, SLURM-like reason kept
 *   run 2: starts and succeeds (wall 1.25)  -> done, wall measured
 *   run 3: fails (exit 3), then succeeds    -> retried once, done, 2 attempts
 *   run 4: recover() finds it already run   -> done, never started again
 *   run 5: transient start failure once     -> started on the next try
 */
#include "orchestrator/runner.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"

#define NRUNS 5

struct fake {
	int starts[NRUNS + 1];      /* start() calls per run */
	int recovers[NRUNS + 1];
	int adopts[NRUNS + 1];
	int transient_left;         /* run 5: transient failures still to give */
	int adopt_finished;         /* adopt(): the recorded job finished meanwhile */
	struct run_result ready[16];
	int nready;
	int inflight;               /* started, result not yet returned by wait() */
};

static void ready(struct fake *f, long long id, int failed, int status, double wall)
{
	struct run_result r = { .id = id, .exit_status = status, .started_at = 100,
				.ended_at = 100 + wall, .wall = wall, .failed = failed };
	if (failed)
		snprintf(r.reason, sizeof(r.reason), "exit status %d (fake job)", status);
	f->ready[f->nready++] = r;
}

static int f_capacity(struct backend *b)
{
	struct fake *f = b->priv;
	return f->inflight < 2 ? 2 - f->inflight : 0;
}

static int f_start(struct backend *b, const struct run_spec *rs, char **bid, struct perr *err)
{
	struct fake *f = b->priv;
	f->starts[rs->id]++;
	if (rs->id == 1)
		return perr_set(err, "Invalid partition name specified");
	if (rs->id == 5 && f->transient_left > 0) {
		f->transient_left--;
		return 1;
	}
	int fail = rs->id == 3 && rs->attempt == 1;
	ready(f, rs->id, fail, fail ? 3 : 0, rs->id == 2 ? 1.25 : 0.5);
	f->inflight++;
	*bid = xasprintf("fake-%lld.%d", rs->id, rs->attempt);
	return 0;
}

static int f_wait(struct backend *b, double timeout, struct run_result *res, int max,
		  struct perr *err)
{
	(void)timeout;
	(void)err;
	struct fake *f = b->priv;
	int n = 0;
	while (n < max && f->nready > 0) {
		res[n++] = f->ready[0];
		memmove(f->ready, f->ready + 1, (size_t)--f->nready * sizeof(f->ready[0]));
		if (f->inflight > 0)
			f->inflight--;
	}
	return n;
}

static int f_cancel(struct backend *b, const struct run_spec *rs, const char *bid, struct perr *err)
{
	(void)b, (void)rs, (void)bid, (void)err;
	return 0;
}

/* A recorded job: it finished while no orchestrator was there. */
static int f_adopt(struct backend *b, const struct run_spec *rs, const char *bid,
		   enum attempt_fate *fate, struct perr *err)
{
	(void)bid, (void)fate, (void)err;
	struct fake *f = b->priv;
	f->adopts[rs->id]++;
	if (!f->adopt_finished)
		return 0;
	ready(f, rs->id, 0, 0, 0.75);   /* reported through wait(), not tracked as in flight */
	return 1;
}

static int f_recover(struct backend *b, const struct run_spec *rs, char **bid,
		     enum attempt_fate *fate, struct perr *err)
{
	(void)fate, (void)err;
	struct fake *f = b->priv;
	f->recovers[rs->id]++;
	if (rs->id != 4)
		return 0;
	ready(f, 4, 0, 0, 0.5);
	f->inflight++;
	*bid = xstrdup("fake-4.1");
	return 1;
}

static int f_inflight(struct backend *b)
{
	return ((struct fake *)b->priv)->inflight;
}

static const struct backend_ops fake_ops = {
	.name = "fake", .capacity = f_capacity, .start = f_start, .wait = f_wait,
	.cancel = f_cancel, .adopt = f_adopt, .recover = f_recover, .inflight = f_inflight,
};

static void make_store(struct store **st, const char *dir)
{
	static double n[NRUNS] = { 1, 2, 3, 4, 5 };
	static struct plan_param params[] = { { "n", NULL, NRUNS, n, 1 } };
	struct design_spec spec = { .nparams = 1, .params = params, .repetitions = 1 };
	struct plan pl;
	struct perr err = { 0 };
	plan_full_factorial(&pl, &spec, &err);
	if (store_create(st, dir, "fake", "fake", "name = \"fake\";", &pl, &err)) {
		printf("Bail out! cannot create a store: %s\n", err.msg);
		exit(2);
	}
	plan_release(&pl);
}

static struct run load(struct store *st, long long id)
{
	struct run r;
	struct perr err;
	store_load_run(st, id, &r, &err);
	return r;
}

static double wall_of(struct store *st, long long id)
{
	struct measurement_list ml;
	struct perr err;
	measurement_list_init(&ml);
	store_load_measurements(st, id, &ml, &err);
	double w = -1;
	for (int i = 0; i < ml.n; i++)
		if (!strcmp(ml.m[i].metric, "time"))
			w = ml.m[i].value;
	measurement_list_release(&ml);
	return w;
}

static struct campaign_config config(void)
{
	static char *argv[] = { "prog", NULL };
	struct campaign_config c = { .name = "fake", .dir = "/nonexistent", .app_argc = 1,
				     .app_argv = argv, .max_attempts = 2, .collect_wall = 1 };
	return c;
}

/* One campaign through the engine: start failure, result, retry, recover. */
static void test_engine(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/engine", tap_tmpdir());
	struct store *st;
	make_store(&st, dir);
	struct campaign_config c = config();
	struct fake f = { .transient_left = 1 };
	struct backend b = { &fake_ops, &f };
	struct runner_options o = { 0 };
	struct runner_stats stats;
	struct perr err = { 0 };
	is_int(runner_execute(st, &c, &b, &o, &stats, &err), 0, "the campaign runs to its end");

	struct run r = load(st, 1);
	is_int(r.state, RUN_FAILED, "run 1: a start failure fails the run");
	is_str(r.reason, "Invalid partition name specified", "run 1: the backend's reason is kept");
	is_int(f.starts[1], 1, "run 1: a permanent start failure is not retried");
	run_release(&r);

	r = load(st, 2);
	is_int(r.state, RUN_DONE, "run 2: done");
	is_rel(wall_of(st, 2), 1.25, 1e-12, "run 2: the reported wall time is measured");
	run_release(&r);

	r = load(st, 3);
	is_int(r.state, RUN_DONE, "run 3: done after a retry");
	is_int(r.attempts, 2, "run 3: two attempts counted");
	is_int(f.starts[3], 2, "run 3: started twice");
	run_release(&r);

	r = load(st, 4);
	is_int(r.state, RUN_DONE, "run 4: the recovered job's result is applied");
	is_int(f.starts[4], 0, "run 4: a recovered run is not started again");
	is_str(r.backend_id, "fake-4.1", "run 4: the recovered job is recorded");
	run_release(&r);

	r = load(st, 5);
	is_int(r.state, RUN_DONE, "run 5: started after a transient refusal");
	is_int(r.attempts, 1, "run 5: a transient refusal costs no attempt");
	run_release(&r);

	is_int(stats.done, 4, "4 runs done");
	is_int(stats.failed, 1, "1 run failed");
	is_int(stats.retried, 1, "1 retry");
	is_int(stats.adopted, 1, "1 recovered");
	store_close(st);
}

/*
 * Resume: two runs were recorded in flight when the orchestrator died, and
 * their jobs finished meanwhile.  adopt() takes them over with results
 * ready but nothing left in flight; the engine must still apply them.
 */
static void test_adopt_finished(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/adopt", tap_tmpdir());
	struct store *st;
	make_store(&st, dir);
	struct perr err = { 0 };
	for (long long id = 1; id <= NRUNS; id++) {
		store_mark_submitted(st, id, "job", 100, &err);
		if (id > 2) {
			struct measurement_list ml;
			measurement_list_init(&ml);
			store_mark_done(st, id, 101, 0, 1, &ml, NULL, &err);
		}
	}
	struct campaign_config c = config();
	struct fake f = { .adopt_finished = 1 };
	struct backend b = { &fake_ops, &f };
	struct runner_options o = { 0 };
	struct runner_stats stats;
	is_int(runner_execute(st, &c, &b, &o, &stats, &err), 0, "resume runs to its end");
	is_int(stats.adopted, 2, "two runs adopted");
	struct store_counts cnt;
	store_counts(st, &cnt, &err);
	is_int(cnt.done, NRUNS, "adopted runs whose jobs finished are collected");
	is_int(f.starts[1] + f.starts[2], 0, "and never started again");
	is_rel(wall_of(st, 1), 0.75, 1e-12, "the adopted job's wall time is measured");
	store_close(st);
}

int main(void)
{
	test_engine();
	test_adopt_finished();

	return done_testing();
}
