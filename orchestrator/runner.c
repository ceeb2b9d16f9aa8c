/* The run engine: pending -> submitted -> running -> done | failed. */
#include "common/clock.h"
#include "orchestrator/runner.h"
#include "collectors/cubex_collect.h"
#include "collectors/regex_collect.h"
#include "collectors/wall.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/budget_watch.h"
#include "orchestrator/run_bindings.h"
#include "orchestrator/template.h"
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <ftw.h>
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

static void run_vars(struct run_vars *rv, const struct campaign_config *c, const struct store *st,
		     const struct run *r, const char **run_dir_out, const char *run_dir)
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
	add_var(rv, "rep", "%d", r->repetition);
	add_var(rv, "run", "%lld", r->id);
	add_var(rv, "nodes", "%d", r->nodes > 0 ? r->nodes : 1);
	add_var(rv, "ranks_per_node", "%d", r->ranks_per_node > 0 ? r->ranks_per_node : r->ranks);
	add_var(rv, "ranks", "%d", r->ranks > 0 ? r->ranks : 1);
	if (run_dir) {
		rv->v[rv->n].name = "run_dir";
		rv->v[rv->n].value = run_dir;
		rv->n++;
	}
	if (run_dir_out)
		*run_dir_out = run_dir;
}

/* A relative program path with a '/' resolves beside the config file. */
static char *resolve_program(const struct campaign_config *c, const char *p)
{
	if (p[0] == '/' || !strchr(p, '/'))
		return xstrdup(p);
	char *joined = xasprintf("%s/%s", c->dir, p);
	char *abs = realpath(joined, NULL);
	if (abs) {
		free(joined);
		return abs;
	}
	return joined;
}

char **runner_build_argv(const struct campaign_config *c, const struct store *st,
			 const struct run *r, const char *run_dir)
{
	struct run_vars rv;
	run_vars(&rv, c, st, r, NULL, run_dir);
	char **argv = xcalloc((size_t)c->app_argc + 1, sizeof(char *));
	for (int i = 0; i < c->app_argc; i++)
		argv[i] = template_expand(c->app_argv[i], rv.v, rv.n);
	char *prog = resolve_program(c, argv[0]);
	free(argv[0]);
	argv[0] = prog;
	return argv;
}

void runner_free_argv(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Remove an earlier attempt's files so nothing of it is collected again. */
static void clean_run_dir(const char *run_dir)
{
	char *d = xstrdup(run_dir);
	nftw(d, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
	char *p = xasprintf("%s", run_dir);
	mkdir(p, 0755);
	free(p);
}

static void write_argv(const char *run_dir, char **argv)
{
	json_t *a = json_array();
	for (char **p = argv; *p; p++)
		json_array_append_new(a, json_string(*p));
	char *path = xasprintf("%s/argv.json", run_dir);
	json_dump_file(a, path, JSON_COMPACT);
	free(path);
	json_decref(a);
}

struct spec_buf {
	struct run_spec spec;
	char **argv;
	char **env;
	char *run_dir;
	char *workdir;
};

static void spec_build(struct spec_buf *sb, const struct campaign_config *c, struct store *st,
		       const struct run *r, const struct runner_options *o)
{
	memset(sb, 0, sizeof(*sb));
	sb->run_dir = store_run_dir(st, r->id);
	sb->argv = runner_build_argv(c, st, r, sb->run_dir);
	struct run_vars rv;
	run_vars(&rv, c, st, r, NULL, sb->run_dir);
	int ne = 0;
	sb->env = xcalloc((size_t)c->app_nenv + 10, sizeof(char *));
	for (int i = 0; i < c->app_nenv; i++)
		sb->env[ne++] = template_expand(c->app_env[i], rv.v, rv.n);
	sb->env[ne++] = xasprintf("PERFSWEEP_RUN_ID=%lld", r->id);
	sb->env[ne++] = xasprintf("PERFSWEEP_CAMPAIGN=%s", c->name);
	sb->env[ne++] = xasprintf("PERFSWEEP_REPETITION=%d", r->repetition);
	if (c->collect_cubex) {
		sb->env[ne++] = xasprintf("SCOREP_EXPERIMENT_DIRECTORY=%s/scorep", sb->run_dir);
		sb->env[ne++] = xstrdup("SCOREP_ENABLE_PROFILING=true");
	}
	if (c->app_workdir)
		sb->workdir = c->app_workdir[0] == '/' ? xstrdup(c->app_workdir)
						       : xasprintf("%s/%s", c->dir, c->app_workdir);
	struct run_spec *s = &sb->spec;
	s->id = r->id;
	s->campaign = c->name;
	s->campaign_dir = store_dir(st);
	s->argv = sb->argv;
	s->env = sb->env;
	s->workdir = sb->workdir;
	s->run_dir = sb->run_dir;
	s->timeout = c->app_timeout;
	s->ranks = r->ranks > 0 ? r->ranks : 1;
	s->nodes = r->nodes;
	s->ranks_per_node = r->ranks_per_node;
	s->policy = r->policy;
	s->cores_per_rank = c->cores_per_rank;
	s->map = c->placement_map;
	s->bind_path = o->bind_path;
	s->est_seconds = r->core_hours > 0 ? r->core_hours * 3600.0 / s->ranks : 0;
}

static void spec_release(struct spec_buf *sb)
{
	runner_free_argv(sb->argv);
	runner_free_argv(sb->env);
	free(sb->run_dir);
	free(sb->workdir);
}

/* Collect a finished run's measurements; never fails the run itself. */
static void collect(const struct campaign_config *c, const char *run_dir, const struct run_result *res,
		    struct measurement_list *ml, char **collect_error)
{
	struct perr err = { "" };
	struct strbuf errs;
	strbuf_init(&errs);
	if (c->collect_wall)
		collect_wall(run_dir, res->wall, ml, &err);
	char *rx_err = NULL;
	if (c->nregex && collect_regex(run_dir, c->regex, c->nregex, ml, &rx_err, &err))
		strbuf_addstr(&errs, err.msg);
	if (rx_err)
		strbuf_addf(&errs, "%s%s", errs.len ? "; " : "", rx_err);
	free(rx_err);
	if (c->collect_cubex) {
		char *dir = xasprintf("%s/scorep", run_dir);
		if (collect_cubex(dir, c->cubex_metrics, c->ncubex_metrics, ml, &err))
			strbuf_addf(&errs, "%s%s", errs.len ? "; " : "", err.msg);
		free(dir);
	}
	*collect_error = errs.len ? strbuf_detach(&errs) : NULL;
	strbuf_release(&errs);
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

struct queue {
	long long *ids;
	size_t head, n, alloc;
};

static void push(struct queue *q, long long id)
{
	XGROW(q->ids, q->n + 1, q->alloc);
	q->ids[q->n++] = id;
}

int runner_execute(struct store *st, const struct campaign_config *c, struct backend *b,
		   const struct runner_options *o, struct runner_stats *stats, struct perr *err)
{
	memset(stats, 0, sizeof(*stats));
	struct run *runs;
	int nruns;
	if (store_load_runs(st, 0, &runs, &nruns, err))
		return -1;
	struct queue q = { 0 };
	int ret = -1;
	int is_local = !strcmp(b->ops->name, "local");

	/* reconcile what an earlier orchestrator left in flight */
	for (int i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		if (r->state == RUN_SUBMITTED || r->state == RUN_RUNNING) {
			struct spec_buf sb;
			spec_build(&sb, c, st, r, o);
			sb.spec.attempt = r->attempts;
			int a = b->ops->adopt(b, &sb.spec, r->backend_id, err);
			spec_release(&sb);
			if (a < 0)
				goto done;
			if (a == 1) {
				stats->adopted++;
				event(o, r->id, "adopted", r->backend_id);
				continue;
			}
			if (store_mark_pending(st, r->id, "orchestrator restarted: run again", err))
				goto done;
			stats->rerun++;
			event(o, r->id, "rerun", "was in flight when the orchestrator stopped");
			r->state = RUN_PENDING;
		}
		if (r->state == RUN_PENDING)
			push(&q, r->id);
	}

	struct run_result res[32];
	struct budget_watch bw;
	budget_watch_init(&bw, st);
	for (;;) {
		if (o->stop && *o->stop) {
			stats->interrupted = 1;
			break;
		}
		while (!stats->budget_stopped && q.head < q.n && b->ops->capacity(b) > 0) {
			long long id = q.ids[q.head];
			struct run r;
			if (store_load_run(st, id, &r, err))
				goto done;
			if (r.state != RUN_PENDING) {   /* cancelled from outside meanwhile */
				q.head++;
				run_release(&r);
				continue;
			}
			if (budget_stop(&bw, st, &r, o, stats, err)) {
				run_release(&r);
				if (stats->budget_stopped)
					break;
				goto done;
			}
			struct spec_buf sb;
			spec_build(&sb, c, st, &r, o);
			sb.spec.attempt = r.attempts + 1;
			char *bid = NULL;
			struct perr serr = { "" };
			double t = wall_now();
			/* an earlier orchestrator may have submitted this very attempt and died
			   before recording it: take its job over, files and all */
			int rec = b->ops->recover ? b->ops->recover(b, &sb.spec, &bid, &serr) : 0;
			if (rec == 2) {
				spec_release(&sb);
				run_release(&r);
				break;
			}
			if (rec == 1) {
				spec_release(&sb);
				q.head++;
				stats->adopted++;
				event(o, id, "recovered", bid);
				int wr = store_mark_submitted(st, id, bid, t, err);
				free(bid);
				run_release(&r);
				if (wr)
					goto done;
				continue;
			}
			clean_run_dir(sb.run_dir);
			write_argv(sb.run_dir, sb.argv);
			int rc = rec < 0 ? -1 : b->ops->start(b, &sb.spec, &bid, &serr);
			spec_release(&sb);
			if (rc == 1) {          /* transient: try again after a wait */
				run_release(&r);
				break;
			}
			q.head++;
			if (rc < 0) {
				/* a run that cannot even start fails for good: retrying cannot help */
				if (store_mark_submitted(st, id, NULL, t, err) ||
				    store_mark_failed(st, id, wall_now(), -1, -1, serr.msg, 0, err)) {
					run_release(&r);
					goto done;
				}
				stats->failed++;
				event(o, id, "failed", serr.msg);
				run_release(&r);
				continue;
			}
			stats->started++;
			int wr = store_mark_submitted(st, id, bid, t, err);
			if (!wr && is_local)
				wr = store_mark_running(st, id, t, err);
			event(o, id, "started", bid);
			free(bid);
			run_release(&r);
			if (wr)
				goto done;
		}
		if ((q.head >= q.n || stats->budget_stopped) && b->ops->inflight(b) == 0)
			break;
		int n = b->ops->wait(b, 0.25, res, 32, err);
		if (n < 0)
			goto done;
		for (int i = 0; i < n; i++) {
			struct run_result *x = &res[i];
			if (x->running) {
				if (store_mark_running(st, x->id, x->started_at, err))
					goto done;
				continue;
			}
			struct run r;
			if (store_load_run(st, x->id, &r, err))
				goto done;
			if (r.state == RUN_CANCELLED) {
				stats->cancelled++;
				event(o, x->id, "cancelled", r.reason);
				run_release(&r);
				continue;
			}
			if (x->failed) {
				int retry = x->retry_free ? r.attempts < c->max_attempts + 8
							  : r.attempts < c->max_attempts;
				int fr = store_mark_failed(st, x->id, x->ended_at, x->exit_status, x->wall,
							   x->reason, retry, err);
				if (retry) {
					stats->retried++;
					push(&q, x->id);
					event(o, x->id, "retry", x->reason);
				} else {
					stats->failed++;
					event(o, x->id, "failed", x->reason);
				}
				run_release(&r);
				if (fr)
					goto done;
				continue;
			}
			char *run_dir = store_run_dir(st, x->id);
			struct measurement_list ml;
			measurement_list_init(&ml);
			char *cerr = NULL;
			collect(c, run_dir, x, &ml, &cerr);
			int dr = run_bindings_record(st, x->id, run_dir, err);
			dr = dr ? dr : store_mark_done(st, x->id, x->ended_at, x->exit_status, x->wall, &ml, cerr, err);
			stats->done++;
			event(o, x->id, cerr ? "done-with-collection-error" : "done", cerr);
			free(cerr);
			free(run_dir);
			measurement_list_release(&ml);
			run_release(&r);
			if (dr)
				goto done;
		}
	}
	ret = 0;
done:
	if (o->stop && *o->stop) {
		/* stopped by a signal: what is in flight runs again next time */
		struct run *left;
		int nleft;
		struct perr e2;
		if (!store_load_runs(st, 0, &left, &nleft, &e2)) {
			for (int i = 0; i < nleft; i++)
				if (left[i].state == RUN_SUBMITTED || left[i].state == RUN_RUNNING) {
					b->ops->cancel(b, left[i].id, left[i].backend_id, &e2);
					store_mark_pending(st, left[i].id, "interrupted: run again", &e2);
				}
			runs_free(left, nleft);
		}
	}
	runs_free(runs, nruns);
	free(q.ids);
	return ret;
}
