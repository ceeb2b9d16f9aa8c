/*
 * The SLURM backend, submitting: capacity and back-off, job descriptions,
 * the queue of runs for job arrays, flush() (arrays, or single jobs) and
 * start().
 */
#include "orchestrator/slurm/backend_slurm_priv.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include <math.h>
#include <sys/stat.h>

int sl_inflight(struct backend *b)
{
	struct slurm_backend *sb = b->priv;
	return (int)sb->njobs;
}

/* Tasks that may run at once now: each array's unfinished tasks up to its
   throttle, and every job of its own. */
static int throttle_used(const struct slurm_backend *sb)
{
	int used = 0;
	for (size_t k = 0; k < sb->narr; k++)
		used += sb->arr[k].left < sb->arr[k].throttle ? sb->arr[k].left : sb->arr[k].throttle;
	return used + (int)(sb->njobs - tasks_in_arrays(sb));
}

int sl_capacity(struct backend *b)
{
	struct slurm_backend *sb = b->priv;
	if (wall_now() < sb->submit_after)
		return 0;
	if (sb->arrays) {   /* queued runs wait for flush(); arrays throttle what runs */
		int c = ARRAY_WINDOW - (int)(sb->njobs + sb->nqueue);
		return c > 0 && throttle_used(sb) < sb->max_inflight ? c : 0;
	}
	int c = sb->max_inflight - (int)sb->njobs;
	return c > 0 ? c : 0;
}

void submit_backoff(struct slurm_backend *sb)
{
	sb->submit_backoff = sb->submit_backoff > 0 ? fmin(sb->submit_backoff * 2, SUBMIT_BACKOFF_MAX)
						    : SUBMIT_BACKOFF_MIN;
	sb->submit_after = wall_now() + sb->submit_backoff;
}

/* A run the backend cannot submit at all: -1 (err), else 0. */
static int check_spec(const struct run_spec *rs, struct perr *err)
{
	if (rs->ranks < 1)
		return perr_set(err, "run %lld: ranks must be at least 1", rs->id);
	if (!rs->argv || !rs->argv[0])
		return perr_set(err, "run %lld: no command to run", rs->id);
	if (!rs->run_dir || rs->run_dir[0] != '/')
		return perr_set(err, "run %lld: the run directory must be an absolute path", rs->id);
	if (backend_slurm_check_dir(rs->run_dir, err))
		return perr_prefix(err, "run %lld", rs->id);
	if (!rs->store_id || !*rs->store_id)
		return perr_set(err, "run %lld: no store id to name its job with", rs->id);
	int nodes = slurm_job_nodes(rs);
	if (nodes > 0 && rs->ranks_per_node > 0 && (long)nodes * rs->ranks_per_node < rs->ranks)
		return perr_set(err, "run %lld: %d ranks do not fit on %d nodes with %d ranks per node",
				rs->id, rs->ranks, nodes, rs->ranks_per_node);
	if (rs->ranks_per_node > UINT16_MAX - 2)
		return perr_set(err, "run %lld: %d ranks per node is too many", rs->id, rs->ranks_per_node);
	return 0;
}

/* The strings a job description points to, owned here. */
struct job_strings {
	char *name, *comment, *script, *out, *err;
	char **env;
};

static void job_strings_release(struct job_strings *js)
{
	free(js->name);
	free(js->comment);
	free(js->script);
	free(js->out);
	free(js->err);
	env_free(js->env);
}

/* Fill d for rs; the strings it points to live in js. */
static void fill_desc(job_desc_msg_t *d, struct job_strings *js, const struct slurm_backend *sb,
		      const struct run_spec *rs, int nodes, uint32_t tl)
{
	uint32_t env_size;
	js->comment = slurm_job_comment(rs);
	char *pat = slurm_file_pattern(rs->run_dir);
	js->out = xasprintf("%s/job.out", pat);
	js->err = xasprintf("%s/job.err", pat);
	free(pat);
	js->env = job_env(rs, &env_size);
	slurm_init_job_desc_msg(d);
	d->name = js->name;
	d->comment = js->comment;
	d->script = js->script;
	d->partition = sb->partition;
	d->account = sb->account;
	d->qos = sb->qos;
	if (nodes > 0)
		d->min_nodes = d->max_nodes = (uint32_t)nodes;
	d->num_tasks = (uint32_t)rs->ranks;
	if (rs->ranks_per_node > 0)
		d->ntasks_per_node = (uint16_t)rs->ranks_per_node;
	d->shared = JOB_SHARED_NONE;   /* exclusive nodes */
	d->time_limit = tl;
	d->work_dir = (char *)(rs->workdir ? rs->workdir : rs->run_dir);
	d->std_out = js->out;
	d->std_err = js->err;
	d->std_in = "/dev/null";
	d->user_id = getuid();
	d->group_id = getgid();
	d->environment = js->env;
	d->env_size = env_size;
	d->features = sb->xo.features;
	d->reservation = sb->xo.reservation;
	d->exc_nodes = sb->xo.exc_nodes;
	d->req_nodes = sb->xo.req_nodes;
	d->tres_per_node = sb->tres_per_node;
	d->licenses = sb->xo.licenses;
	d->wckey = sb->xo.wckey;
	if (sb->xo.mem_mb)
		d->pn_min_memory = sb->xo.mem_mb | (sb->xo.mem_per_cpu ? MEM_PER_CPU : 0);
	if (sb->xo.cpus_per_task)
		d->cpus_per_task = (uint16_t)sb->xo.cpus_per_task;
	if (sb->xo.nice_set)
		d->nice = (uint32_t)(NICE_OFFSET + sb->xo.nice);
	if (sb->xo.requeue >= 0)
		d->requeue = (uint16_t)sb->xo.requeue;
}

/* Render rs's script and save it as job.sh: 0 or -1 (err). */
static int write_script(struct job_strings *js, const struct slurm_backend *sb,
			const struct run_spec *rs, int nodes, uint32_t tl, struct perr *err)
{
	struct slurm_script_opts so = {
		.partition = sb->partition, .account = sb->account, .qos = sb->qos, .mpi = sb->mpi,
		.nextra = sb->nextra, .extra = sb->extra, .nodes = nodes,
		.time_limit = tl == NO_VAL ? 0 : tl,
	};
	if (slurm_script_render(&so, rs, &js->script, err))
		return -1;
	char *path = xasprintf("%s/job.sh", rs->run_dir);
	int rc = write_executable(path, js->script, err);
	free(path);
	return rc;
}

/* "slurm rejected the job for run 5 (point np=5, n=1; placement 5 ranks on 5 nodes, 1 per node, compact) in partition 'emu': why" */
static int job_refused(const struct slurm_backend *sb, const struct run_spec *rs, const char *why,
		       struct perr *err)
{
	int nodes = slurm_job_nodes(rs);
	char nn[32] = "", rpn[32] = "", part[96] = "";
	if (nodes > 0)
		snprintf(nn, sizeof(nn), " on %d node%s", nodes, nodes == 1 ? "" : "s");
	if (rs->ranks_per_node > 0)
		snprintf(rpn, sizeof(rpn), ", %d per node", rs->ranks_per_node);
	if (sb->partition)
		snprintf(part, sizeof(part), " in partition '%s'", sb->partition);
	return perr_set(err, "slurm rejected the job for run %lld (point %s; placement %d rank%s%s%s, %s)%s: %s",
			rs->id, rs->point ? rs->point : "?", rs->ranks, rs->ranks == 1 ? "" : "s", nn, rpn,
			rs->policy ? rs->policy : "unbound", part, why);
}

/* A submission SLURM refused: 1 (transient, back off) or -1 (err). */
static int submit_refused(struct slurm_backend *sb, const struct run_spec *rs, int e,
			  struct perr *err)
{
	if (slurm_transient(e)) {
		/* The job may have been created although the answer was lost:
		   look for it before submitting again. */
		if (e != ESLURM_NODES_BUSY && e != ESLURM_ACCOUNTING_POLICY && e != ESLURM_QOS_THRES)
			sb->scanned = 0;
		submit_backoff(sb);
		perr_set(err, "slurm is not accepting jobs now: %s", slurm_errstr(e));
		return 1;
	}
	return job_refused(sb, rs, slurm_errstr(e), err);
}

/* Accepted, but it could only wait for a partition that will never fit it. */
static int never_fits(int ec)
{
	return ec == ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE ||
	       ec == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE || ec == ESLURM_INVALID_NODE_COUNT ||
	       ec == ESLURM_TOO_MANY_REQUESTED_CPUS || ec == ESLURM_BAD_TASK_COUNT;
}


/* ---- job arrays ------------------------------------------------------------ */

void queue_release(struct queued *q)
{
	free(q->run_dir);
	free(q->store);
	free(q->campaign);
	free(q->campaign_dir);
	free(q->point);
	free(q->policy);
}

/* Whether two queued runs can be tasks of one array: everything in the job
   description but the run itself is the same. */
static int same_shape(const struct queued *a, const struct queued *b)
{
	return a->nodes == b->nodes && a->ranks == b->ranks && a->rpn == b->rpn && a->tl == b->tl &&
	       !strcmp(a->store, b->store) && !strcmp(a->campaign, b->campaign) &&
	       !strcmp(a->campaign_dir, b->campaign_dir);
}

/*
 * The controller's MaxArraySize, asked once: 0, or -1 when it cannot be
 * asked now.  Arrays of at most one task are no arrays: then runs go out
 * as jobs of their own and a note says so (once).
 */
static int array_limit(struct slurm_backend *sb, struct perr *err)
{
	(void)err;
	if (sb->max_array)
		return 0;
	slurm_conf_t *conf = NULL;
	if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) {
		int e = slurm_get_errno();
		if (slurm_transient(e)) {
			submit_backoff(sb);
			return -1;
		}
		sb->max_array = 1;   /* cannot tell: as if refused */
	} else {
		sb->max_array = conf->max_array_sz;
		slurm_free_ctl_conf(conf);
	}
	if (sb->max_array <= 1)
		arrays_refused(sb, "MaxArraySize is 0 or 1");
	return 0;
}

/* The controller does not take job arrays: jobs of their own from now on, said once. */
void arrays_refused(struct slurm_backend *sb, const char *why)
{
	sb->arrays = 0;
	if (sb->arrays_told)
		return;
	sb->arrays_told = 1;
	char *n = xasprintf("slurm does not take job arrays here (%s): one job per run instead "
			    "(set backend.arrays = false; to say so)", why);
	if (sb->note) {
		char *both = xasprintf("%s; %s", sb->note, n);
		free(n);
		n = both;
		free(sb->note);
	}
	sb->note = n;
}

/* Queue rs for the next array: 0; 1 when no array may take it now (the
   tasks of the arrays in flight and queued would pass max_inflight). */
static int queue_run(struct slurm_backend *sb, const struct run_spec *rs, int nodes, uint32_t tl)
{
	struct queued q = { .run = rs->id, .attempt = rs->attempt > 0 ? rs->attempt : 1,
			    .nodes = nodes, .ranks = rs->ranks, .rpn = rs->ranks_per_node, .tl = tl,
			    .timeout = rs->timeout, .run_dir = xstrdup(rs->run_dir),
			    .store = xstrdup(rs->store_id), .campaign = xstrdup(rs->campaign ? rs->campaign : ""),
			    .campaign_dir = xstrdup(rs->campaign_dir ? rs->campaign_dir : ""),
			    .point = rs->point ? xstrdup(rs->point) : NULL,
			    .policy = rs->policy ? xstrdup(rs->policy) : NULL };
	/* every array needs a task slot: chunks of MaxArraySize tasks per shape */
	size_t chunks = 0, g = sb->ngroups;
	for (size_t i = 0; i < sb->ngroups; i++) {
		chunks += (sb->groups[i].n + sb->max_array - 1) / sb->max_array;
		if (same_shape(&sb->queue[sb->groups[i].rep], &q))
			g = i;
	}
	int new_chunk = g == sb->ngroups || sb->groups[g].n % sb->max_array == 0;
	if (new_chunk && throttle_used(sb) + (int)chunks + 1 > sb->max_inflight) {
		queue_release(&q);
		return 1;
	}
	if (g == sb->ngroups) {
		XGROW(sb->groups, sb->ngroups + 1, sb->agroups);
		sb->groups[sb->ngroups++] = (struct qgroup){ .rep = sb->nqueue };
	}
	sb->groups[g].n++;
	XGROW(sb->queue, sb->nqueue + 1, sb->aqueue);
	sb->queue[sb->nqueue++] = q;
	return 0;
}

/* Take back the run queued last. */
static void unqueue_last(struct slurm_backend *sb)
{
	struct queued *q = &sb->queue[--sb->nqueue];
	for (size_t i = 0; i < sb->ngroups; i++)
		if (same_shape(&sb->queue[sb->groups[i].rep < sb->nqueue ? sb->groups[i].rep : sb->nqueue], q) &&
		    --sb->groups[i].n == 0)
			sb->groups[i] = sb->groups[--sb->ngroups];
	queue_release(q);
}

/* A run spec with what a queued run keeps (no argv: its job.sh is written). */
static struct run_spec queued_spec(const struct queued *q)
{
	return (struct run_spec){ .id = q->run, .campaign = q->campaign, .campaign_dir = q->campaign_dir,
				  .store_id = q->store, .run_dir = q->run_dir, .timeout = q->timeout,
				  .ranks = q->ranks, .nodes = q->nodes, .ranks_per_node = q->rpn,
				  .attempt = q->attempt, .point = q->point, .policy = q->policy };
}

/* Submit queued run q as a job of its own, its script from its job.sh. */
static void flush_single(struct slurm_backend *sb, const struct queued *q, struct backend_flushed *f)
{
	struct run_spec rs = queued_spec(q);
	struct perr err = { PERR_GENERIC, "" };
	f->id = q->run;
	struct job_strings js = { .name = slurm_job_name(q->campaign, q->run, q->attempt) };
	struct strbuf text;
	strbuf_init(&text);
	char *path = xasprintf("%s/job.sh", q->run_dir);
	if (strbuf_read_file(&text, path)) {
		f->rc = -1;
		snprintf(f->why, sizeof(f->why), "cannot read '%s': %s", path, strerror(errno));
		free(path);
		strbuf_release(&text);
		job_strings_release(&js);
		return;
	}
	free(path);
	js.script = strbuf_detach(&text);
	job_desc_msg_t d;
	fill_desc(&d, &js, sb, &rs, q->nodes, q->tl);
	submit_response_msg_t *resp = NULL;
	int rc = slurm_submit_batch_job(&d, &resp);
	int e = rc == SLURM_SUCCESS ? 0 : slurm_get_errno();
	job_strings_release(&js);
	if (rc != SLURM_SUCCESS) {
		f->rc = submit_refused(sb, &rs, e, &err);
		snprintf(f->why, sizeof(f->why), "%s", err.msg);
		return;
	}
	uint32_t job = resp->job_id;
	int ec = (int)resp->error_code;
	slurm_free_submit_response_response_msg(resp);
	if (never_fits(ec)) {
		slurm_kill_job(job, SIGKILL, 0);
		f->rc = job_refused(sb, &rs, slurm_errstr(ec), &err);
		snprintf(f->why, sizeof(f->why), "%s", err.msg);
		return;
	}
	track(sb, &rs, job, NO_TASK);
	f->backend_id = xasprintf("%u", job);
}

/* Errors that say this controller takes no arrays (or not this large). */
static int array_error(int e)
{
	return e == ESLURM_INVALID_ARRAY;
}

/*
 * Submit queued runs q[0..n-1] (one shape) as one array with this
 * throttle; f[i] says how run q[i] went.  Returns 0, or 1 when the
 * controller refused arrays (nothing submitted: submit them singly).
 */
static int flush_array(struct slurm_backend *sb, const struct queued *q, int n, int throttle,
		       struct backend_flushed *f)
{
	struct run_spec rs = queued_spec(&q[0]);
	struct perr err = { PERR_GENERIC, "" };
	struct slurm_array_task *t = xcalloc((size_t)n, sizeof(*t));
	for (int i = 0; i < n; i++) {
		t[i] = (struct slurm_array_task){ q[i].run, q[i].attempt, q[i].run_dir };
		f[i].id = q[i].run;
	}
	char tag[SLURM_ARRAY_TAG_LEN + 1];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(tag, sizeof(tag), "%08lx%08lx",
		 ((unsigned long)now.tv_sec ^ ((unsigned long)getpid() << 12)) & 0xffffffffUL,
		 ((++sb->tag_seq << 20) ^ (unsigned long)(now.tv_nsec / 1000)) & 0xffffffffUL);
	struct job_strings js = { .name = xasprintf("ps:%s:array", q[0].campaign),
				  .comment = NULL };
	char *dir = slurm_arrays_dir(q[0].campaign_dir);
	char *map = xasprintf("%s/%s.sh", dir, tag);
	/* the map goes to disk before the array exists: a restarted
	   orchestrator finds which run each task is */
	int bad = slurm_array_render(q[0].store, t, n, &js.script, &err) ||
		  ((mkdir(dir, 0755) && errno != EEXIST)
			   ? perr_set(&err, "cannot make '%s': %s", dir, strerror(errno))
			   : write_executable(map, js.script, &err));
	free(t);
	if (bad) {
		for (int i = 0; i < n; i++) {
			f[i].rc = -1;
			snprintf(f[i].why, sizeof(f[i].why), "%s", err.msg);
		}
		free(dir);
		free(map);
		job_strings_release(&js);
		return 0;
	}
	job_desc_msg_t d;
	uint32_t env_size;
	fill_desc(&d, &js, sb, &rs, q[0].nodes, q[0].tl);
	free(js.comment);
	js.comment = slurm_array_comment(q[0].store, q[0].campaign_dir, tag);
	d.comment = js.comment;
	env_free(js.env);
	struct run_spec base = { .campaign = q[0].campaign };
	js.env = job_env(&base, &env_size);
	d.environment = js.env;
	d.env_size = env_size;
	d.std_out = "/dev/null";   /* each task writes its run's job.out and job.err */
	d.std_err = "/dev/null";
	d.work_dir = dir;
	char *inx = xasprintf("0-%d%%%d", n - 1, throttle);
	d.array_inx = inx;
	submit_response_msg_t *resp = NULL;
	int rc = slurm_submit_batch_job(&d, &resp);
	int e = rc == SLURM_SUCCESS ? 0 : slurm_get_errno();
	job_strings_release(&js);
	free(inx);
	free(dir);
	if (rc != SLURM_SUCCESS) {
		if (array_error(e)) {
			unlink(map);
			free(map);
			arrays_refused(sb, slurm_errstr(e));
			return 1;
		}
		free(map);
		int r = submit_refused(sb, &rs, e, &err);
		for (int i = 0; i < n; i++) {
			f[i].rc = r;
			if (r < 0)   /* the message names the first run: each its own */
				job_refused(sb, &(struct run_spec){ .id = q[i].run, .ranks = q[i].ranks,
					.nodes = q[i].nodes, .ranks_per_node = q[i].rpn, .point = q[i].point,
					.policy = q[i].policy }, slurm_errstr(e), &err);
			snprintf(f[i].why, sizeof(f[i].why), "%s", err.msg);
		}
		return 0;
	}
	free(map);
	sb->submit_backoff = 0;
	sb->submit_after = 0;
	uint32_t job = resp->job_id;
	int ec = (int)resp->error_code;
	slurm_free_submit_response_response_msg(resp);
	if (never_fits(ec)) {
		slurm_kill_job(job, SIGKILL, 0);
		for (int i = 0; i < n; i++) {
			f[i].rc = -1;
			job_refused(sb, &(struct run_spec){ .id = q[i].run, .ranks = q[i].ranks,
				.nodes = q[i].nodes, .ranks_per_node = q[i].rpn, .point = q[i].point,
				.policy = q[i].policy }, slurm_errstr(ec), &err);
			snprintf(f[i].why, sizeof(f[i].why), "%s", err.msg);
		}
		return 0;
	}
	XGROW(sb->arr, sb->narr + 1, sb->aarr);
	sb->arr[sb->narr++] = (struct sarray){ .job = job, .throttle = throttle };
	for (int i = 0; i < n; i++) {
		track_job(sb, q[i].run, q[i].timeout, q[i].run_dir, q[i].store, job, (uint32_t)i);
		f[i].backend_id = job_text(job, (uint32_t)i);
	}
	return 0;
}

void backend_flushed_free(struct backend_flushed *f, int n)
{
	for (int i = 0; f && i < n; i++)
		free(f[i].backend_id);
	free(f);
}

/*
 * Submit the queued runs: per shape, arrays of at most MaxArraySize tasks
 * whose throttles share what max_inflight leaves (each at least 1); a
 * shape with one run goes out as a job of its own.
 */
int sl_flush(struct backend *b, struct backend_flushed **out, struct perr *err)
{
	struct slurm_backend *sb = b->priv;
	*out = NULL;
	if (!sb->nqueue)
		return 0;
	size_t n = sb->nqueue;
	struct queued *q = sb->queue;
	sb->queue = NULL;
	sb->nqueue = sb->aqueue = 0;
	sb->ngroups = 0;
	struct backend_flushed *f = xcalloc(n, sizeof(*f));
	/* runs grouped by shape, in queue order */
	struct queued *g = xcalloc(n, sizeof(*g));
	size_t *at = xcalloc(n, sizeof(*at));   /* where f's entries go */
	char *used = xcalloc(n, 1);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = i; k < n && !(k == i && used[i]); k++)
			if (!used[k] && same_shape(&q[i], &q[k])) {
				used[k] = 1;
				at[ng] = k;
				g[ng++] = q[k];
			}
	/* chunks: runs [lo, hi) of one shape, MaxArraySize at most */
	size_t nchunks = 0;
	for (size_t lo = 0; lo < n;) {
		size_t hi = lo + 1;
		while (hi < n && hi - lo < sb->max_array && same_shape(&g[lo], &g[hi]))
			hi++;
		nchunks++;
		lo = hi;
	}
	int budget = sb->max_inflight - throttle_used(sb);
	int share = budget / (int)nchunks, extra = budget % (int)nchunks;
	struct backend_flushed *gf = xcalloc(n, sizeof(*gf));
	for (size_t lo = 0; lo < n;) {
		size_t hi = lo + 1;
		while (hi < n && hi - lo < sb->max_array && same_shape(&g[lo], &g[hi]))
			hi++;
		int throttle = share + (extra > 0);
		extra -= extra > 0;
		if (throttle < 1)
			throttle = 1;
		if (throttle > (int)(hi - lo))
			throttle = (int)(hi - lo);
		if (!sb->arrays || hi - lo == 1 ||
		    flush_array(sb, g + lo, (int)(hi - lo), throttle, gf + lo))
			for (size_t i = lo; i < hi; i++)
				flush_single(sb, &g[i], &gf[i]);
		lo = hi;
	}
	for (size_t i = 0; i < n; i++) {
		f[at[i]] = gf[i];
		queue_release(&g[i]);
	}
	free(gf);
	free(g);
	free(at);
	free(used);
	free(q);
	if (sb->note) {
		perr_set(err, "%s", sb->note);
		free(sb->note);
		sb->note = NULL;
	}
	*out = f;
	return (int)n;
}

int sl_start(struct backend *b, const struct run_spec *rs, char **backend_id,
		    struct perr *err)
{
	struct slurm_backend *sb = b->priv;
	if (check_spec(rs, err))
		return -1;
	if (wall_now() < sb->submit_after ||
	    (sb->arrays ? sl_capacity(b) == 0 : (int)sb->njobs >= sb->max_inflight))
		return 1;
	/* the caller has asked recover() first: a job an earlier orchestrator
	   submitted for this attempt has been taken over, not started again */
	int nodes = slurm_job_nodes(rs);
	uint32_t tl = job_time_limit(sb, rs);
	if (sb->arrays && array_limit(sb, err) < 0)
		return 1;   /* cannot ask the controller now: try later */
	struct job_strings js = { .name = slurm_job_name(rs->campaign, rs->id, rs->attempt) };
	if (sb->arrays) {
		int rc = queue_run(sb, rs, nodes, tl);
		if (rc == 0 && write_script(&js, sb, rs, nodes, tl, err)) {
			unqueue_last(sb);
			rc = -1;
		}
		job_strings_release(&js);
		return rc == 0 ? 2 : rc;
	}
	if (write_script(&js, sb, rs, nodes, tl, err)) {
		job_strings_release(&js);
		return -1;
	}
	job_desc_msg_t d;
	fill_desc(&d, &js, sb, rs, nodes, tl);
	submit_response_msg_t *resp = NULL;
	int rc = slurm_submit_batch_job(&d, &resp);
	int e = rc == SLURM_SUCCESS ? 0 : slurm_get_errno();
	job_strings_release(&js);
	if (rc != SLURM_SUCCESS)
		return submit_refused(sb, rs, e, err);
	sb->submit_backoff = 0;
	sb->submit_after = 0;
	uint32_t job = resp->job_id;
	int ec = (int)resp->error_code;
	slurm_free_submit_response_response_msg(resp);
	if (never_fits(ec)) {
		/* withdraw it and fail the run */
		slurm_kill_job(job, SIGKILL, 0);
		return job_refused(sb, rs, slurm_errstr(ec), err);
	}
	track(sb, rs, job, NO_TASK);
	*backend_id = xasprintf("%u", job);
	return 0;
}
