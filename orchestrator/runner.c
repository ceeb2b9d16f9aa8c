/* The run engine: pending -> submitted -> running -> done | failed. */
#include "common/clock.h"
#include "common/point_text.h"
#include "orchestrator/runner.h"
#include "collectors/collector_set.h"
#include "common/strbuf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/budget_watch.h"
#include "orchestrator/run_bindings.h"
#include "orchestrator/run_setup.h"
#include "campaign/template.h"
#include "collectors/sanity.h"
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>



static void event(const struct runner_options *o, long long id, const char *what, const char *detail)
{
	if (o->event)
		o->event(o->ctx, id, what, detail);
}

/* Placeholder values of one run: its parameters and the built-ins. */
struct run_vars {
	struct template_var v[64];
	char buf[64][64];
	int n;
};

static void add_var(struct run_vars *rv, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_var(struct run_vars *rv, const char *name, const char *fmt, ...)
{
	if (rv->n >= 64)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rv->buf[rv->n], sizeof(rv->buf[0]), fmt, ap);
	va_end(ap);
	rv->v[rv->n].name = name;
	rv->v[rv->n].value = rv->buf[rv->n];
	rv->n++;
}

/* The paths a run's placeholders name: its directory, its set-up directory
   (NULL: none) and the config's directory. */
struct run_paths {
	const char *run_dir, *setup_dir, *config_dir;
};

/* The parameters' values of run r as placeholders (a set-up's too). */
static void param_vars(struct run_vars *rv, const struct campaign_config *c, const struct store *st,
		       const struct run *r)
{
	rv->n = 0;
	for (int k = 0; k < store_nparams(st) && rv->n < 56; k++) {
		int ck = config_find_param(c, store_param_name(st, k));
		template_format_value(rv->buf[rv->n], sizeof(rv->buf[0]), r->values[k],
				      ck >= 0 ? c->params[ck].is_int : 0);
		rv->v[rv->n].name = store_param_name(st, k);
		rv->v[rv->n].value = rv->buf[rv->n];
		rv->n++;
	}
}

static void add_path(struct run_vars *rv, const char *name, const char *path)
{
	if (!path || rv->n >= 64)
		return;
	rv->v[rv->n].name = name;
	rv->v[rv->n].value = path;
	rv->n++;
}

static void run_vars(struct run_vars *rv, const struct campaign_config *c, const struct store *st,
		     const struct run *r, const struct run_paths *rp)
{
	param_vars(rv, c, st, r);
	add_var(rv, "rep", "%d", r->repetition);
	add_var(rv, "run", "%lld", r->id);
	add_var(rv, "nodes", "%d", r->nodes > 0 ? r->nodes : 1);
	add_var(rv, "ranks_per_node", "%d", r->ranks_per_node > 0 ? r->ranks_per_node : r->ranks);
	add_var(rv, "ranks", "%d", r->ranks > 0 ? r->ranks : 1);
	add_path(rv, "run_dir", rp->run_dir);
	add_path(rv, "setup", rp->setup_dir);
	add_path(rv, "config_dir", rp->config_dir);
}

/* A relative program path with a '/' resolves beside the config file. */
static char *resolve_program(const struct campaign_config *c, const char *p)
{
	if (p[0] == '/' || !strchr(p, '/'))
		return xstrdup(p);
	char *joined = config_resolve(c, p);
	char *abs = realpath(joined, NULL);
	if (abs) {
		free(joined);
		return abs;
	}
	return joined;
}

/* The argv of a run, placeholders substituted (NULL-terminated; free with runner_free_argv). */
static char **build_argv(const struct campaign_config *c, const struct store *st, const struct run *r,
			 const struct run_paths *rp)
{
	struct run_vars rv;
	run_vars(&rv, c, st, r, rp);
	char **argv = xcalloc((size_t)c->app_argc + 1, sizeof(char *));
	for (int i = 0; i < c->app_argc; i++)
		argv[i] = template_expand(c->app_argv[i], rv.v, rv.n);
	char *prog = resolve_program(c, argv[0]);
	free(argv[0]);
	argv[0] = prog;
	return argv;
}

static void runner_free_argv(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/* Remove an earlier attempt's files so nothing of it is collected again,
   and make the directory afresh: 0, or -1 (err names the path). */
static int clean_run_dir(const char *run_dir, struct perr *err)
{
	return run_dir_afresh(run_dir, err);
}

static void write_argv(const char *run_dir, char **argv)
{
	json_t *a = json_array();
	for (char **p = argv; *p; p++)
		json_array_append_new(a, json_string(*p));
	char *path = xasprintf("%s/argv.json", run_dir);
	char *text = json_dumps(a, JSON_COMPACT);
	if (text)   /* a record for the user: a run goes on without it */
		fs_write_in_place(path, text, strlen(text), 0666);
	free(text);
	free(path);
	json_decref(a);
}

struct queue {
	long long *ids;
	size_t head, n, alloc;
};

static void push(struct queue *q, long long id)
{
	XGROW(q->ids, q->n + 1, q->alloc);
	q->ids[q->n++] = id;
}

/* One execution of a campaign: what every step below reads and changes. */
struct engine {
	struct store *st;
	const struct campaign_config *c;
	struct backend *b;
	const struct runner_options *o;
	struct runner_stats *stats;
	struct queue q;          /* pending runs, in the order they start */
	struct queue live;       /* runs the backend has (started, adopted, recovered)
	                            whose result is not applied yet */
	struct budget_watch bw;  /* stops new starts past the budget */
	int starts_running;      /* the backend's: a started run is running */
	struct run_setup setup;  /* set-up steps, once per distinct values */
	char *config_dir;        /* {config_dir} */
	int threads_k;           /* the store's role "threads" parameter, or -1 */
	int join_starts;         /* results and starts may share a commit held open */
	int held_open;           /* such a commit is open now */
	double held_since;       /* since then (wall_now) */
};

struct spec_buf {
	struct run_spec spec;
	char **argv;
	char **env;
	char *run_dir;
	char *setup_dir;
	char *workdir;
	char *point;
	char cores[RUN_CORES_TEXT];
};

/* "np=4, n=10": the run's parameter values. */
static char *run_point_text(struct store *st, const struct run *r)
{
	const char *names[64];
	int n = store_nparams(st) < 64 ? store_nparams(st) : 64;
	for (int k = 0; k < n; k++)
		names[k] = store_param_name(st, k);
	struct strbuf sb;
	strbuf_init(&sb);
	point_text(&sb, names, r->values, n, ", ");
	return strbuf_detach(&sb);
}

/* OMP_NUM_THREADS: each rank's threads, unless app.env sets it (a thread-MPI run's 1). */
static char *threads_env(const struct engine *e, const struct run *r)
{
	const struct campaign_config *c = e->c;
	int t = e->threads_k >= 0 ? (int)r->values[e->threads_k] : c->threads_per_rank;
	for (int i = 0; i < c->app_nenv; i++)
		if (!strncmp(c->app_env[i], "OMP_NUM_THREADS=", 16))
			return NULL;
	return t > 0 ? xasprintf("OMP_NUM_THREADS=%d", t) : NULL;
}

/* The environment of run r: app.env, then perfsweep's own variables. */
static char **run_env(const struct engine *e, const struct run *r, const struct run_vars *rv,
		      const char *run_dir)
{
	const struct campaign_config *c = e->c;
	int ne = 0;
	char **env = xcalloc((size_t)c->app_nenv + 10, sizeof(char *));
	for (int i = 0; i < c->app_nenv; i++)
		env[ne++] = template_expand(c->app_env[i], rv->v, rv->n);
	env[ne++] = xasprintf("PERFSWEEP_RUN_ID=%lld", r->id);
	env[ne++] = xasprintf("PERFSWEEP_CAMPAIGN=%s", c->name);
	env[ne++] = xasprintf("PERFSWEEP_REPETITION=%d", r->repetition);
	if (c->collect_cubex) {
		env[ne++] = xasprintf("SCOREP_EXPERIMENT_DIRECTORY=%s/scorep", run_dir);
		env[ne++] = xstrdup("SCOREP_ENABLE_PROFILING=true");
	}
	if ((env[ne] = threads_env(e, r)))
		ne++;
	return env;
}

static void spec_build(struct spec_buf *sb, const struct engine *e, const struct run *r)
{
	const struct campaign_config *c = e->c;
	struct store *st = e->st;
	memset(sb, 0, sizeof(*sb));
	sb->run_dir = store_run_path(st, r->id);   /* made by clean_run_dir, when it starts */
	sb->setup_dir = run_setup_dir(&e->setup, st, r->values);
	struct run_paths rp = { sb->run_dir, sb->setup_dir, e->config_dir };
	sb->argv = build_argv(c, st, r, &rp);
	struct run_vars rv;
	run_vars(&rv, c, st, r, &rp);
	sb->env = run_env(e, r, &rv, sb->run_dir);
	if (c->app_workdir)
		sb->workdir = xstrdup(c->app_workdir);
	struct run_spec *s = &sb->spec;
	s->id = r->id;
	s->campaign = c->name;
	s->campaign_dir = store_dir(st);
	s->store_id = store_id(st);
	s->argv = sb->argv;
	s->env = sb->env;
	s->workdir = sb->workdir;
	s->run_dir = sb->run_dir;
	s->timeout = c->app_timeout;
	s->ranks = r->ranks > 0 ? r->ranks : 1;
	s->nodes = r->nodes;
	s->ranks_per_node = r->ranks_per_node;
	s->policy = r->policy;
	/* the point's own: a threads parameter gives each point its cores */
	s->cores_per_rank = run_cores_per_rank(r, sb->cores) ? sb->cores : c->cores_per_rank;
	s->map = c->placement_map;
	s->bind_path = e->o->bind_path;
	s->mpi = c->backend.mpi;
	s->est_seconds = run_planned_seconds(r);
	sb->point = run_point_text(st, r);
	s->point = sb->point;
}

static void spec_release(struct spec_buf *sb)
{
	runner_free_argv(sb->argv);
	runner_free_argv(sb->env);
	free(sb->run_dir);
	free(sb->setup_dir);
	free(sb->point);
	free(sb->workdir);
}

/* Before starting r: 1 when the budget stops new starts (said once), -1 err. */
static int budget_stop(const struct budget_watch *bw, struct store *st, const struct run *r,
		       const struct runner_options *o, struct runner_stats *stats, struct perr *err)
{
	char why[300];
	int rc = budget_watch_check(bw, st, r->core_hours, why, sizeof(why), err);
	if (rc == 1) {
		stats->budget_stopped = 1;
		event(o, r->id, "budget", why);
	}
	return rc;
}


static void live_add(struct engine *e, long long id)
{
	for (size_t i = 0; i < e->live.n; i++)
		if (e->live.ids[i] == id)
			return;
	push(&e->live, id);
}

/* The result of id arrived: it no longer keeps the engine waiting. */
static void live_remove(struct engine *e, long long id)
{
	for (size_t i = 0; i < e->live.n; i++)
		if (e->live.ids[i] == id) {
			e->live.ids[i] = e->live.ids[--e->live.n];
			return;
		}
}

/* A run that left the plan while an earlier orchestrator had it in flight:
   its job or process is stopped, it stays retired. */
static int settle_retired(struct engine *e, const struct run *r, struct perr *err)
{
	if (r->backend_id) {
		struct spec_buf sb;
		spec_build(&sb, e, r);
		sb.spec.attempt = r->attempts;
		int rc = e->b->ops->cancel(e->b, &sb.spec, r->backend_id, err);
		spec_release(&sb);
		if (rc)
			return -1;
	}
	event(e->o, r->id, "stopped", "left the plan while in flight");
	return store_settle_retired(e->st, r->id, err);
}

/* What the engine says of an earlier orchestrator's attempt, by its fate. */
static const struct {
	const char *what, *detail;
} fate_words[] = {
	[FATE_UNKNOWN] = { NULL, NULL },
	[FATE_RUNNING] = { "adopted", "still running" },
	[FATE_FINISHED] = { "collected", "finished while no orchestrator ran" },
	[FATE_NEVER_STARTED] = { "rerun", "never started" },
	[FATE_KILLED] = { "rerun", "killed mid-way" },
};

/* An earlier orchestrator's attempt at r, taken over: the engine waits for
   its result (and a local one, still running, is running). */
static int taken_over(struct engine *e, long long id, enum attempt_fate fate, const char *what,
		      const char *detail, struct perr *err)
{
	live_add(e, id);
	e->stats->adopted++;
	event(e->o, id, fate_words[fate].what ? fate_words[fate].what : what,
	      fate_words[fate].detail ? fate_words[fate].detail : detail);
	if (e->starts_running && fate == FATE_RUNNING)   /* refused: cancelled, its result says so */
		return store_mark_running(e->st, id, wall_now(), err) < 0 ? -1 : 0;
	return 0;
}

/* 1 when the options let the engine start run id (runner_options.only). */
static int wanted(const struct runner_options *o, long long id)
{
	for (int i = 0; o->only && i < o->nonly; i++)
		if (o->only[i] == id)
			return 1;
	return !o->only;
}

/*
 * The in-flight run r's attempt ended without a result through no fault of
 * the program (why: "killed mid-way", ...): pending again, said as
 * "PREFIX: run again (why)", while the one bound on attempts allows
 * (run_may_start_again), else failed for good, saying so.  0 pending, 2
 * failed for good, 1 refused (cancelled meanwhile), -1 err.
 */
static int start_again(struct engine *e, const struct run *r, const char *prefix, const char *why,
		       struct perr *err)
{
	int max = e->c->max_attempts;
	if (run_may_start_again(r->attempts, max, 1)) {
		char *reason = xasprintf("%s%srun again (%s)", prefix ? prefix : "", prefix ? ": " : "", why);
		int rc = store_mark_pending(e->st, r->id, reason, err);
		free(reason);
		return rc;
	}
	char *reason = xasprintf("gave up after %d attempt%s: %s (max_attempts = %d, and %d more for "
				 "attempts that end without a result; perfsweep top's r key retries it)",
				 r->attempts, r->attempts == 1 ? "" : "s", why, max, RUN_FREE_ATTEMPTS);
	int rc = store_mark_failed(e->st, r->id, wall_now(), -1, -1, reason, 0, err);
	if (!rc) {
		e->stats->failed++;
		event(e->o, r->id, "failed", reason);
	}
	free(reason);
	return rc ? rc : 2;
}

/* Runs an earlier orchestrator left in flight: adopted by the backend or
   pending again; every pending run the options want joins the queue.  0 or -1 (err). */
static int reconcile(struct engine *e, struct perr *err)
{
	struct run *runs;
	int nruns, ret = -1;
	if (store_load_runs(e->st, 0, &runs, &nruns, err))
		return -1;
	for (int i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		if (r->state == RUN_RETIRED && run_is_in_flight(r->retired_from)) {
			if (settle_retired(e, r, err))
				goto done;
			continue;
		}
		if (run_is_in_flight(r->state)) {
			struct spec_buf sb;
			spec_build(&sb, e, r);
			sb.spec.attempt = r->attempts;
			enum attempt_fate fate = FATE_UNKNOWN;
			int a = e->b->ops->adopt(e->b, &sb.spec, r->backend_id, &fate, err);
			spec_release(&sb);
			if (a < 0)
				goto done;
			if (a == 1) {
				if (taken_over(e, r->id, fate, "adopted", r->backend_id, err))
					goto done;
				continue;
			}
			const char *why = fate_words[fate].detail ? fate_words[fate].detail
								  : "was in flight when the orchestrator stopped";
			int mr = start_again(e, r, "orchestrator restarted", why, err);
			if (mr == 1 || mr == 2)
				continue;       /* cancelled meanwhile, or failed for good */
			if (mr)
				goto done;
			e->stats->rerun++;
			event(e->o, r->id, "rerun", why);
			r->state = RUN_PENDING;
		}
		if (r->state == RUN_PENDING && wanted(e->o, r->id))
			push(&e->q, r->id);
	}
	ret = 0;
done:
	runs_free(runs, nruns);
	return ret;
}

/* A run that cannot even start fails for good: retrying cannot help. */
static int start_failed(struct engine *e, long long id, double t, const char *why, struct perr *err)
{
	int rc = store_mark_submitted(e->st, id, NULL, t, err);
	if (!rc)
		rc = store_mark_failed(e->st, id, wall_now(), -1, -1, why, 0, err);
	if (rc == 1)            /* cancelled meanwhile: it stays cancelled */
		return 0;
	if (rc)
		return -1;
	e->stats->failed++;
	event(e->o, id, "failed", why);
	return 0;
}

/* The backend has a job or process for run id (bid), but the store refused
   to record it: the run was cancelled meanwhile.  Stop what was started; its
   result still arrives through wait and finds the run cancelled. */
static int started_after_cancel(struct engine *e, const struct run_spec *rs, const char *bid,
				struct perr *err)
{
	event(e->o, rs->id, "cancelled", "cancelled while it was being started");
	return e->b->ops->cancel(e->b, rs, bid, err) ? -1 : 0;
}

/*
 * What a run's attempt needs before it starts: its set-up (once per
 * distinct values), its directory afresh, its input templates, argv.json.
 * 0 ready; 1 stopped by a signal during the set-up; -1 it cannot start
 * (serr says why: a set-up step failed, a template cannot be filled).
 */
static int prepare_inputs(struct engine *e, const struct run *r, struct spec_buf *sb, struct perr *serr)
{
	const struct campaign_config *c = e->c;
	struct run_vars rv;
	if (sb->setup_dir) {    /* parameters and paths only: once for every run of these values */
		const char *why = NULL;
		param_vars(&rv, c, e->st, r);
		add_path(&rv, "setup", sb->setup_dir);
		add_path(&rv, "config_dir", e->config_dir);
		int su = run_setup_prepare(&e->setup, sb->setup_dir, rv.v, rv.n, e->o->stop, &why, serr);
		if (su == 2)
			return 1;
		if (su == 1)
			return perr_set(serr, "%s", why);
		if (su < 0)
			return -1;
	}
	if (clean_run_dir(sb->run_dir, serr))
		return -1;
	struct run_paths rp = { sb->run_dir, sb->setup_dir, e->config_dir };
	run_vars(&rv, c, e->st, r, &rp);
	for (int i = 0; i < c->ntemplates; i++)
		if (!c->templates[i].setup &&
		    template_fill_file(c->templates[i].from, sb->run_dir, c->templates[i].to, rv.v, rv.n, serr))
			return -1;
	write_argv(sb->run_dir, sb->argv);
	return 0;
}

static int end_batch(struct store *st, int rc, struct perr *err);

/* Start (or recover) the pending run r.  0: dealt with, next one; 1: the
   backend cannot take it now, try again later; -1 (err). */
static int start_run(struct engine *e, const struct run *r, struct perr *err)
{
	struct spec_buf sb;
	spec_build(&sb, e, r);
	sb.spec.attempt = r->attempts + 1;
	char *bid = NULL;
	struct perr serr = { 0 };
	double t = wall_now();
	/* an earlier orchestrator may have submitted this very attempt and died
	   before recording it: take its job over, files and all */
	enum attempt_fate fate = FATE_UNKNOWN;
	int rec = e->b->ops->recover ? e->b->ops->recover(e->b, &sb.spec, &bid, &fate, &serr) : 0;
	if (rec >= 0 && serr.msg[0]) {
		event(e->o, 0, "warning", serr.msg);   /* jobs of another store, left alone */
		serr.msg[0] = '\0';
	}
	if (rec == 2) {
		spec_release(&sb);
		return 1;
	}
	if (rec == 1) {
		int wr = store_mark_submitted(e->st, r->id, bid, t, err);
		if (wr == 1) {          /* cancelled meanwhile: stop what was taken over */
			live_add(e, r->id);
			wr = started_after_cancel(e, &sb.spec, bid, err);
		} else if (!wr) {
			wr = taken_over(e, r->id, fate, "recovered", bid, err);
		}
		spec_release(&sb);
		free(bid);
		return wr ? -1 : 0;
	}
	if (rec == 0 && fate == FATE_KILLED) {   /* unrecorded, killed mid-way: run afresh */
		e->stats->rerun++;
		event(e->o, r->id, fate_words[fate].what, fate_words[fate].detail);
	}
	int rc = rec < 0 ? -1 : prepare_inputs(e, r, &sb, &serr);
	if (rc == 1) {   /* stopped during its set-up: it stays pending */
		spec_release(&sb);
		return 1;
	}
	rc = rc < 0 ? -1 : e->b->ops->start(e->b, &sb.spec, &bid, &serr);
	if (rc == 2) {   /* queued: flush_started records it */
		spec_release(&sb);
		return 0;
	}
	if (rc) {
		spec_release(&sb);
		return rc == 1 ? 1      /* transient: try again after a wait */
			       : start_failed(e, r->id, t, serr.msg, err);
	}
	live_add(e, r->id);
	e->stats->started++;
	if (e->starts_running)  /* its program runs now: after set-up steps and the quiet gate */
		t = wall_now();
	/* submitted and running: one commit, the results' when it is held open */
	int own = e->starts_running && !e->held_open;
	int wr = own && store_batch_begin(e->st, err) ? -1 : 0;
	if (!wr)
		wr = store_mark_submitted(e->st, r->id, bid, t, err);
	if (!wr && e->starts_running)
		wr = store_mark_running(e->st, r->id, t, err);
	if (own && end_batch(e->st, wr < 0, err) && wr >= 0)
		wr = -1;
	if (wr == 1)
		wr = started_after_cancel(e, &sb.spec, bid, err);
	else if (!wr)
		event(e->o, r->id, "started", bid);
	spec_release(&sb);
	free(bid);
	return wr ? -1 : 0;
}

static int start_some(struct engine *e, struct perr *err);

/* End the store batch, if one is open, after work that returned rc: 0, or
   -1 when rc was or the commit fails (err keeps the first error). */
static int end_batch(struct store *st, int rc, struct perr *err)
{
	struct perr later = { 0 };
	return (store_batch_end(st, rc ? &later : err) || rc) ? -1 : 0;
}

/* Record what the backend submitted of the runs its start() queued
   (SLURM job arrays): as start_run does for one run.  0 or -1 (err). */
static int flush_started(struct engine *e, struct perr *err)
{
	if (!e->b->ops->flush)
		return 0;
	struct backend_flushed *f;
	struct perr serr = { 0 };
	double t = wall_now();
	int n = e->b->ops->flush(e->b, &f, &serr);
	if (n < 0)
		return perr_set(err, "%s", serr.msg);
	if (serr.msg[0])
		event(e->o, 0, "warning", serr.msg);   /* arrays refused: one job per run */
	int mine = n > 1 && !e->held_open;   /* one commit for the array */
	int rc = mine ? store_batch_begin(e->st, err) : 0;
	for (int i = 0; i < n && !rc; i++) {
		if (f[i].rc == 1) {          /* transient: start it again later */
			push(&e->q, f[i].id);
			continue;
		}
		if (f[i].rc < 0) {
			rc = start_failed(e, f[i].id, t, f[i].why, err);
			continue;
		}
		live_add(e, f[i].id);
		e->stats->started++;
		int wr = store_mark_submitted(e->st, f[i].id, f[i].backend_id, t, err);
		if (wr == 1) {
			struct run r;
			if (store_load_run(e->st, f[i].id, &r, err)) {
				rc = -1;
				break;
			}
			struct spec_buf sb;
			spec_build(&sb, e, &r);
			sb.spec.attempt = r.attempts + 1;
			wr = started_after_cancel(e, &sb.spec, f[i].backend_id, err);
			spec_release(&sb);
			run_release(&r);
		} else if (!wr) {
			event(e->o, f[i].id, "started", f[i].backend_id);
		}
		rc = wr ? -1 : 0;
	}
	if (mine)
		rc = end_batch(e->st, rc, err);
	backend_flushed_free(f, n);
	return rc;
}

/* Start queued runs while the backend has room, then submit what the
   backend queued.  0 or -1 (err). */
static int start_queued(struct engine *e, struct perr *err)
{
	int rc = start_some(e, err);
	return flush_started(e, err) || rc ? -1 : 0;
}

/* Hand queued runs to the backend while it has room.  0 or -1 (err). */
static int start_some(struct engine *e, struct perr *err)
{
	while (!e->stats->budget_stopped && e->q.head < e->q.n && e->b->ops->capacity(e->b) > 0) {
		long long id = e->q.ids[e->q.head];
		struct run r;
		if (store_load_run(e->st, id, &r, err))
			return -1;
		int rc = 0;   /* not pending: cancelled from outside meanwhile */
		if (r.state == RUN_PENDING) {
			rc = budget_stop(&e->bw, e->st, &r, e->o, e->stats, err);
			if (rc == 0)
				rc = start_run(e, &r, err);
		}
		run_release(&r);
		if (rc < 0)
			return -1;
		if (rc == 1)
			break;
		e->q.head++;
	}
	return 0;
}

/* A result the store refused: the run was cancelled while it ran, or the
   report repeats one already applied. */
static int refused_result(struct engine *e, long long id, struct perr *err)
{
	struct run r;
	if (store_load_run(e->st, id, &r, err))
		return -1;
	int rc = 0;
	if (r.state == RUN_CANCELLED) {
		e->stats->cancelled++;
		event(e->o, id, "cancelled", r.reason);
	} else {   /* a repeated report of a run already settled: nothing to apply */
		event(e->o, id, "ignored", err->msg);
	}
	run_release(&r);
	return rc;
}

/* A failed attempt: retried while attempts are left. */
static int apply_failure(struct engine *e, const struct run_result *x, const struct run *r,
			 struct perr *err)
{
	int retry = !x->unstartable && run_may_start_again(r->attempts, e->c->max_attempts, x->retry_free);
	/* what a failed attempt used is worth keeping too: a rank that starved */
	char *run_dir = store_run_path(e->st, x->id);
	int br = run_bindings_record(e->st, x->id, run_dir, r->attempts, err);
	free(run_dir);
	if (br)
		return -1;
	int fr = store_mark_failed(e->st, x->id, x->ended_at, x->exit_status, x->wall, x->reason,
				   retry, err);
	if (fr)
		return fr == 1 ? refused_result(e, x->id, err) : -1;
	if (retry) {
		e->stats->retried++;
		push(&e->q, x->id);
		event(e->o, x->id, "retry", x->reason);
	} else {
		e->stats->failed++;
		event(e->o, x->id, "failed", x->reason);
	}
	return 0;
}

/* The sanity checks of a run that exited 0: 0 passed; 1 failed, applied as
   a failed attempt (retried while attempts are left); -1 err. */
static int insane(struct engine *e, const struct run_result *x, const struct run *r, const char *run_dir,
		  struct perr *err)
{
	struct collect_limits lim = { .cpu_seconds = e->c->collect_cpu_limit,
				      .memory_mb = e->c->collect_memory_limit, .stop = e->o->stop };
	char *why = NULL;
	struct perr serr;
	int rc = sanity_check_run(run_dir, e->c->sanity, e->c->nsanity, &lim, &why, &serr);
	if (rc < 0 && e->o->stop && *e->o->stop)
		rc = 0;         /* interrupted: the collectors leave the run for next time */
	else if (rc < 0) {   /* a pattern stopped by a limit proves nothing good either */
		why = xasprintf("sanity check failed: %s", serr.msg);
		rc = 1;
	}
	if (rc == 1) {
		struct run_result failed = *x;
		failed.failed = 1;
		snprintf(failed.reason, sizeof(failed.reason), "%s", why);
		rc = apply_failure(e, &failed, r, err) ? -1 : 1;
	}
	free(why);
	return rc;
}

/* A successful attempt: collect its measurements and mark it done. */
static int apply_success(struct engine *e, const struct run_result *x, const struct run *r,
			 struct perr *err)
{
	char *run_dir = store_run_path(e->st, x->id);
	if (e->c->nsanity) {    /* output without what a good run prints: a failed attempt */
		int sr = insane(e, x, r, run_dir, err);
		if (sr) {
			free(run_dir);
			return sr < 0 ? -1 : 0;
		}
	}
	struct collector_set cs;
	struct collect_result cr;
	config_collectors(e->c, &cs);
	cs.limits.stop = e->o->stop;
	collector_set_run(&cs, run_dir, x->wall, &cr);
	if (cr.interrupted) {   /* left running: stop_inflight makes it pending */
		free(run_dir);
		collect_result_release(&cr);
		return 0;
	}
	int dr = run_bindings_record(e->st, x->id, run_dir, r->attempts, err);
	if (!dr)
		dr = store_mark_collected(e->st, x->id, x->ended_at, x->exit_status, x->wall, &cr, err);
	if (dr == 1) {
		dr = refused_result(e, x->id, err);
	} else if (!dr) {
		e->stats->done++;
		event(e->o, x->id, cr.error ? "done-with-collection-error" : "done", cr.error);
	}
	free(run_dir);
	collect_result_release(&cr);
	return dr ? -1 : 0;
}

/* Apply one report from the backend to the store.  0 or -1 (err).  The
   store's run-state machine refuses reports that come after a cancel. */
static int apply_result(struct engine *e, const struct run_result *x, struct perr *err)
{
	if (x->running)
		return store_mark_running(e->st, x->id, x->started_at, err) < 0 ? -1 : 0;
	live_remove(e, x->id);
	struct run r;
	if (store_load_run(e->st, x->id, &r, err))
		return -1;
	int rc;
	if (!run_is_in_flight(r.state)) {
		rc = refused_result(e, x->id, err);
	} else if (x->rerun) {   /* killed mid-way: not the program's doing */
		rc = start_again(e, &r, NULL, x->reason, err);
		if (rc == 1) {
			rc = refused_result(e, x->id, err);
		} else if (rc == 2) {
			rc = 0;
		} else if (!rc) {
			push(&e->q, x->id);
			e->stats->again++;
			event(e->o, x->id, "rerun", x->reason);
		}
	} else if (x->failed) {
		rc = apply_failure(e, x, &r, err);
	} else {
		rc = apply_success(e, x, &r, err);
	}
	run_release(&r);
	return rc;
}

/* Stopped by a signal: what is in flight runs again next time. */
static void stop_inflight(struct engine *e)
{
	struct run *left;
	int nleft;
	struct perr e2;
	if (store_load_runs(e->st, 0, &left, &nleft, &e2))
		return;
	for (int i = 0; i < nleft; i++)
		if (run_is_in_flight(left[i].state)) {
			struct spec_buf sb;
			spec_build(&sb, e, &left[i]);
			sb.spec.attempt = left[i].attempts;
			e->b->ops->cancel(e->b, &sb.spec, left[i].backend_id, &e2);
			spec_release(&sb);
			store_mark_pending(e->st, left[i].id, "interrupted: run again", &e2);
		}
	runs_free(left, nleft);
}

/* The end of a run: nothing may be left submitted or running in the store. */
static int check_settled(struct store *st, struct perr *err)
{
	struct store_counts cnt;
	if (store_counts(st, &cnt, err))
		return -1;
	if (cnt.submitted + cnt.running > 0)
		return perr_set(err, "%lld runs are still submitted or running and nothing reports "
				"on them; run the same command again to resume them",
				cnt.submitted + cnt.running);
	return 0;
}

void runner_stats_add(struct runner_stats *sum, const struct runner_stats *s)
{
	sum->started += s->started;
	sum->done += s->done;
	sum->failed += s->failed;
	sum->retried += s->retried;
	sum->adopted += s->adopted;
	sum->rerun += s->rerun;
	sum->again += s->again;
	sum->cancelled += s->cancelled;
	sum->interrupted |= s->interrupted;
	sum->budget_stopped |= s->budget_stopped;
}

#define BATCH_HOLD 0.5    /* seconds a batch of results holds the store */
#define GROUP_HOLD 0.05   /* seconds a commit stays open for the results and starts after it */

/* End the commit held open, if one is.  0 or -1 (err). */
static int end_held(struct engine *e, struct perr *err)
{
	if (!e->held_open)
		return 0;
	e->held_open = 0;
	return end_batch(e->st, 0, err);
}

/*
 * Apply what one wait reported, in one commit (store_batch_begin) held no
 * longer than BATCH_HOLD: collectors run inside it, and a cancel from
 * another process waits for it.  Where starts cannot wait (no quiet gate,
 * no set-up steps), the commit stays open up to GROUP_HOLD for the runs
 * started next and the results after them (runner_execute ends it): short
 * runs share one commit, not two each.  What a commit held open has not
 * yet recorded is in the runs' notes, which a later orchestrator takes
 * over (docs/architecture.md).  0 or -1 (err).
 */
static int apply_results(struct engine *e, const struct run_result *res, int n, struct perr *err)
{
	/* one result too: its state, values and usage are several writes */
	if (n <= 0)
		return 0;
	if (!e->held_open) {
		if (store_batch_begin(e->st, err))
			return -1;
		e->held_since = wall_now();
	}
	e->held_open = 0;
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		rc = apply_result(e, &res[i], err);
		if (!rc && i + 1 < n && wall_now() - e->held_since > BATCH_HOLD) {
			rc = store_batch_end(e->st, err) || store_batch_begin(e->st, err) ? -1 : 0;
			e->held_since = wall_now();
		}
	}
	if (!rc && e->join_starts && wall_now() - e->held_since < GROUP_HOLD) {
		e->held_open = 1;
		return 0;
	}
	return end_batch(e->st, rc, err);
}

/* The backend's entry says whether a started run is running (a backend
   outside the registry, as a test's, is asked nothing). */
static int runs_at_once(const struct backend *b)
{
	const struct backend_entry *be = backend_find(b->ops->name);
	return be && be->starts_running;
}

int runner_execute(struct store *st, const struct campaign_config *c, struct backend *b,
		   const struct runner_options *o, struct runner_stats *stats, struct perr *err)
{
	memset(stats, 0, sizeof(*stats));
	struct engine e = { .st = st, .c = c, .b = b, .o = o, .stats = stats,
			    .starts_running = runs_at_once(b), .threads_k = -1 };
	int ret = -1;
	run_setup_init(&e.setup, c, st);
	e.config_dir = config_dir_abs(c);
	for (int k = 0; k < store_nparams(st); k++)
		if (store_param_role(st, k) && !strcmp(store_param_role(st, k), "threads"))
			e.threads_k = k;
	if (reconcile(&e, err))
		goto done;
	struct run_result res[32];
	budget_watch_init(&e.bw, st);
	/* a start that can wait (the quiet gate, set-up steps) holds no commit open */
	e.join_starts = e.starts_running && c->backend.wait_quiet <= 0 && c->nsteps == 0;
	for (;;) {
		if (o->stop && *o->stop) {
			stats->interrupted = 1;
			break;
		}
		if (start_queued(&e, err))
			goto done;
		double open_for = e.held_open ? GROUP_HOLD - (wall_now() - e.held_since) : 0.25;
		if (e.held_open && open_for <= 0) {
			if (end_held(&e, err))
				goto done;
			open_for = 0.25;
		}
		/* adopted and recovered jobs count until their results are applied,
		   even when the backend has them ready and nothing in flight */
		int idle = (e.q.head >= e.q.n || stats->budget_stopped) && b->ops->inflight(b) == 0;
		if (idle && e.live.n == 0)
			break;
		int n = b->ops->wait(b, open_for, res, 32, err);
		if (n < 0)
			goto done;
		if (n == 0 && end_held(&e, err))   /* nothing came while it was open */
			goto done;
		if (idle && n == 0)
			break;   /* nothing left to report: check_settled() tells */
		if (apply_results(&e, res, n, err))
			goto done;
	}
	if (end_held(&e, err))
		goto done;
	ret = stats->interrupted ? 0 : check_settled(st, err);
done:
	if (e.held_open) {   /* after an error: what it holds is kept, the first error told */
		struct perr later = { 0 };
		e.held_open = 0;
		end_batch(st, 0, &later);
	}
	if (o->stop && *o->stop)
		stop_inflight(&e);
	free(e.q.ids);
	free(e.live.ids);
	run_setup_release(&e.setup);
	free(e.config_dir);
	return ret;
}
