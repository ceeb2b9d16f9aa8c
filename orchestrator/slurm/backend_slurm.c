/*
 * The SLURM backend: runs submitted, polled and cancelled through libslurm
 * (never by running sbatch/squeue/scancel); one batch job per run, or,
 * with backend.arrays (the default), one job array per batch of runs of
 * one shape ("Job arrays" below: start() queues, flush() submits).
 *
 * A run's job is named "ps:<campaign>:<run id>.<attempt>" (one name per
 * attempt) and its comment is "perfsweep <store id> <campaign dir> run <run
 * id> attempt <attempt>", so that a restarted orchestrator finds the jobs an
 * earlier one of the same store left behind (adopt() for recorded jobs;
 * recover(), and start() itself, take over the job of an attempt that was
 * submitted but never recorded instead of submitting it twice).  Only a job
 * whose comment carries the store's id, directory and run is adopted,
 * recovered or cancelled: a store made afresh at the same path (its
 * directory or campaign.db removed) has another id, and the jobs and
 * job.done records of the old one are left alone (its live jobs are told
 * of once, through recover()).  The job script (slurm_script.c, saved as
 * runs/<id>/job.sh) runs `srun --cpu-bind=none [perfsweep-bind ...] APP
 * ARGS`.
 *
 * A job's start and end reach us first as notes its script leaves in
 * runs/.events (slurm_script.c): one stat of that directory per poll.min
 * while nothing happens, a readdir when something did, and the result from
 * the run's own completion record; a JOB.gone note (SLURM's SIGTERM of a
 * cancelled or timed-out job) polls the controller at once.  Once notes
 * arrive, the controller is only the safety net for jobs that end without
 * one (cancelled while queued, lost with a node): asked every
 * poll.safety seconds (30; at least poll.max); what such a poll finds (a
 * note written while we asked) brings the next one no sooner.  Before the
 * first note, a start the controller lists does not either: notes will
 * tell of it and of the end.  Without notes (a run directory the nodes
 * cannot write), the controller is polled as follows.
 *
 * Polling loads this user's jobs only (slurm_load_job_user; after a
 * controller outage the incremental full list instead), with back-off
 * from backend.poll.min (0.1 s) by poll.factor (1.5) up to poll.max (5 s)
 * while nothing changes, and never more often than once per 1 ms for each
 * job in the last list that we do not track, nor than its own CPU time
 * allows for 0.5% of a CPU (up to poll.max): the user's finished jobs grow
 * with the campaign; an unreachable or rate-limiting controller is an
 * outage, not a failure: wait() keeps retrying and reports nothing.
 * Submission errors that may pass (busy nodes, EAGAIN, controller
 * unreachable or rate-limiting, job, QOS and association limits) make
 * start() return 1 and hold further submissions back with exponential
 * back-off; other errors fail the run with SLURM's message.
 *
 * Job arrays: runs handed over together whose job descriptions differ only
 * in the run go out as one array of at most MaxArraySize tasks; its script
 * runs/.arrays/<tag>.sh (slurm_script.h) is written before submission and
 * maps each task to its run, and the array's comment names it, so that
 * adopt() and recover() know every task after a restart.  A task is
 * tracked, noted and recorded as "ARRAYJOB_TASK"; each array's "%N"
 * throttle takes a share of max_inflight.  Where the controller takes no
 * arrays (MaxArraySize 0 or 1, an array refused), runs go out one job each
 * from then on, told once through recover()/flush().
 */
#include "orchestrator/slurm/backend_slurm_priv.h"
#include "common/clock.h"
#include "common/run_command.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <math.h>
#include <poll.h>
#include <sys/stat.h>

extern char **environ;

static int slurm_refs;

void sleep_for(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Errors that may go away by themselves: controller or munge unreachable, busy, limits. */
int slurm_transient(int e)
{
	if (e == EAGAIN || e == ETIMEDOUT || e == ECONNREFUSED || e == ECONNRESET || e == EINTR ||
	    e == EHOSTUNREACH || e == ENETUNREACH)
		return 1;
	if (e >= SLURM_UNEXPECTED_MSG_ERROR && e <= SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR &&
	    e != SLURM_PROTOCOL_VERSION_ERROR && e != SLURM_PROTOCOL_IO_STREAM_VERSION_ERROR &&
	    e != SLURM_MPI_PLUGIN_NAME_INVALID && e != SLURM_PLUGIN_NAME_INVALID)
		return 1;
	if (e >= SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR &&
	    e <= SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR)
		return 1;
	if (e >= SLURM_PROTOCOL_SOCKET_IMPL_ZERO_RECV_LENGTH && e <= SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT)
		return 1;
	switch (e) {
	case PS_SLURMCTLD_COMMUNICATIONS_BACKOFF:     /* "Rate limit exceeded" */
	case PS_SLURMCTLD_COMMUNICATIONS_HARD_DROP:   /* the RPC queue dropped us */
	case ESLURM_ACCOUNTING_POLICY:   /* QOS or association limit: ours or others' jobs pass */
	case ESLURM_QOS_THRES:
	case ESLURM_NODES_BUSY:
	case ESLURM_PORTS_BUSY:
	case ESLURM_RESERVATION_BUSY:
	case ESLURM_IN_STANDBY_MODE:
	case ESLURM_IN_STANDBY_USE_BACKUP:
	case ESLURM_ERROR_ON_DESC_TO_RECORD_COPY:   /* MaxJobCount reached */
	case ESLURM_TRANSITION_STATE_NO_UPDATE:
	case ESLURM_AUTH_NET_ERROR:
	case ESLURM_AUTH_UNABLE_TO_SIGN:            /* munged not answering */
	case ESLURM_AUTH_FOPEN_ERROR:
		return 1;
	}
	return 0;
}

int backend_slurm_transient(int slurm_errno)
{
	return slurm_transient(slurm_errno);
}

/* slurmd removes a backslash from a job's output path (up to 25.05 "\\"
   stands for one; later releases drop every one): refused, whatever the
   release, rather than fail every job with "killed by signal 53". */
int backend_slurm_check_dir(const char *dir, struct perr *err)
{
	if (strchr(dir, '\\'))
		return perr_set(err, "'%s' contains a backslash, which slurm removes from the output "
				"paths of jobs: use a campaign directory without one", dir);
	return 0;
}

const char *slurm_errstr(int e)
{
	const char *s = slurm_strerror(e);
	return s && *s ? s : "unknown slurm error";
}

/* --gres "gpu:2,nic:1" as job_desc.tres_per_node ("gres:gpu:2,gres:nic:1";
   the prefix depends on the release, slurm_compat.h), or NULL. */
static char *gres_tres(const char *gres)
{
	if (!gres)
		return NULL;
	struct strbuf sb;
	strbuf_init(&sb);
	const char *p = gres;
	while (*p) {
		size_t l = strcspn(p, ",");
		if (sb.len)
			strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, PS_SLURM_GRES_PREFIX);
		strbuf_add(&sb, p, l);
		p += l + (p[l] == ',');
	}
	return strbuf_detach(&sb);
}

/* ---- job script --------------------------------------------------------- */

/* ---- job description ---------------------------------------------------- */

/* Minutes: the config's limit, else the run's timeout, else the estimate with a margin. */
uint32_t job_time_limit(const struct slurm_backend *sb, const struct run_spec *rs)
{
	if (sb->time_limit > 0)
		return (uint32_t)sb->time_limit;
	if (rs->timeout > 0)
		return (uint32_t)ceil(rs->timeout / 60.0) + 1;
	if (rs->est_seconds > 0)
		return (uint32_t)ceil((rs->est_seconds * 1.5 + 120) / 60.0);
	return NO_VAL;
}

/* Add "KEY=VALUE" to env, replacing an earlier entry of the same key. */
static void env_set(char ***env, size_t *cnt, size_t *alloc, struct strmap *keys, char *kv)
{
	size_t klen = strcspn(kv, "=");
	char *key = xstrndup(kv, klen);
	int at = strmap_get(keys, key);
	if (at >= 0) {
		free((*env)[at]);
		(*env)[at] = kv;
	} else {
		XGROW(*env, *cnt + 2, *alloc);
		strmap_put(keys, key, (int)*cnt);
		(*env)[(*cnt)++] = kv;
		(*env)[*cnt] = NULL;
	}
	free(key);
}

/* The job's environment: ours (like sbatch --export=ALL) minus SLURM_* but
   SLURM_CONF, then the run's additions, then PERFSWEEP_RUN_DIR/_ID/CAMPAIGN. */
char **job_env(const struct run_spec *rs, uint32_t *n)
{
	size_t cnt = 0, alloc = 0;
	char **env = NULL;
	struct strmap keys;
	strmap_init(&keys);
	for (char **e = environ; e && *e; e++) {
		if (!strncmp(*e, "SLURM_", 6) && strncmp(*e, "SLURM_CONF=", 11))
			continue;
		if (!strchr(*e, '='))
			continue;
		env_set(&env, &cnt, &alloc, &keys, xstrdup(*e));
	}
	for (char *const *a = rs->env; a && *a; a++)
		if (strchr(*a, '='))
			env_set(&env, &cnt, &alloc, &keys, xstrdup(*a));
	if (rs->run_dir) {   /* an array's tasks: each run's job.sh sets its own */
		env_set(&env, &cnt, &alloc, &keys, xasprintf("PERFSWEEP_RUN_DIR=%s", rs->run_dir));
		env_set(&env, &cnt, &alloc, &keys, xasprintf("PERFSWEEP_RUN_ID=%lld", rs->id));
		env_set(&env, &cnt, &alloc, &keys,
			xasprintf("PERFSWEEP_CAMPAIGN=%s", rs->campaign ? rs->campaign : ""));
	}
	strmap_release(&keys);
	*n = (uint32_t)cnt;
	return env;
}

void env_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

/* A job script or an array's map, executable from its creation (no chmod
   after it: one less system call per run). */
int write_executable(const char *path, const char *text, struct perr *err)
{
	if (fs_write_in_place(path, text, strlen(text), 0755))
		return perr_set(err, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* ---- job tracking --------------------------------------------------------- */

/* Read the events directory of run_dir too (made here, if need be). */
static void watch_events(struct slurm_backend *sb, const char *run_dir)
{
	char *path = slurm_events_dir(run_dir);
	for (size_t k = 0; k < sb->nevdirs; k++)
		if (!strcmp(sb->evdirs[k].path, path)) {
			free(path);
			return;
		}
	struct stat st;
	if ((mkdir(path, 0755) && errno != EEXIST) || stat(path, &st) || !S_ISDIR(st.st_mode)) {
		free(path);   /* no notes then: the controller tells */
		return;
	}
	XGROW(sb->evdirs, sb->nevdirs + 1, sb->aevdirs);
	sb->evdirs[sb->nevdirs++] = (struct events_dir){ .path = path, .seen = -1 };
}

/* A job's key in job_ix and the polls' sorted index: its id, then its array task. */
uint64_t key_of(uint32_t job, uint32_t task)
{
	return (uint64_t)job << 32 | task;
}

/* The tracked job with this id (task: its array task, or NO_TASK): its index, or njobs. */
size_t tracked(const struct slurm_backend *sb, uint32_t job, uint32_t task)
{
	/* by index, not a scan: an array window tracks up to ARRAY_WINDOW
	   tasks, and every note and finished record is looked up */
	size_t i = idmap_get(&sb->job_ix, key_of(job, task));
	return i == IDMAP_NONE ? sb->njobs : i;
}

/* The array job: its index in sb->arr, or narr. */
static size_t array_of(const struct slurm_backend *sb, uint32_t job)
{
	size_t k = 0;
	while (k < sb->narr && sb->arr[k].job != job)
		k++;
	return k;
}

/* "JOB" or, of an array task, "JOB_TASK" (SLURM's notation; caller frees). */
char *job_text(uint32_t job, uint32_t task)
{
	return task == NO_TASK ? xasprintf("%u", job) : xasprintf("%u_%u", job, task);
}

/* The tracked jobs that are array tasks: the arrays' unfinished tasks. */
size_t tasks_in_arrays(const struct slurm_backend *sb)
{
	size_t n = 0;
	for (size_t k = 0; k < sb->narr; k++)
		n += (size_t)sb->arr[k].left;
	return n;
}

/* Track job (task) as run's. */
void track_job(struct slurm_backend *sb, long long run, double timeout, const char *run_dir,
		      const char *store, uint32_t job, uint32_t task)
{
	if (tracked(sb, job, task) < sb->njobs)
		return;
	XGROW(sb->jobs, sb->njobs + 1, sb->ajobs);
	idmap_put(&sb->job_ix, key_of(job, task), sb->njobs);
	sb->jobs[sb->njobs++] = (struct sjob){ .run = run, .job = job, .task = task, .timeout = timeout,
					       .run_dir = run_dir ? xstrdup(run_dir) : NULL,
					       .store = store ? xstrdup(store) : NULL };
	size_t k = task == NO_TASK ? sb->narr : array_of(sb, job);
	if (task != NO_TASK && k == sb->narr) {   /* adopted: throttle unknown, count it as 1 */
		XGROW(sb->arr, sb->narr + 1, sb->aarr);
		sb->arr[sb->narr++] = (struct sarray){ .job = job, .throttle = 1 };
	}
	if (k < sb->narr)
		sb->arr[k].left++;
	if (run_dir)
		watch_events(sb, run_dir);
	if (sb->notes_live)
		return;   /* its notes will tell */
	sb->poll_interval = sb->poll_min;
	if (sb->next_poll > wall_now() + sb->poll_min)
		sb->next_poll = wall_now() + sb->poll_min;
}

/* Track job (task) as run rs's. */
void track(struct slurm_backend *sb, const struct run_spec *rs, uint32_t job, uint32_t task)
{
	track_job(sb, rs->id, rs->timeout, rs->run_dir, rs->store_id, job, task);
}

void untrack(struct slurm_backend *sb, size_t i)
{
	size_t k = sb->jobs[i].task == NO_TASK ? sb->narr : array_of(sb, sb->jobs[i].job);
	if (k < sb->narr && --sb->arr[k].left <= 0)
		sb->arr[k] = sb->arr[--sb->narr];
	free(sb->jobs[i].run_dir);
	free(sb->jobs[i].store);
	idmap_del(&sb->job_ix, key_of(sb->jobs[i].job, sb->jobs[i].task));
	sb->jobs[i] = sb->jobs[--sb->njobs];
	if (i < sb->njobs)
		idmap_put(&sb->job_ix, key_of(sb->jobs[i].job, sb->jobs[i].task), i);
}


static void sl_free(struct backend *b)
{
	if (!b)
		return;
	struct slurm_backend *sb = b->priv;
	free(sb->partition);
	free(sb->mpi);
	free(sb->account);
	free(sb->qos);
	for (int i = 0; i < sb->nextra; i++)
		free(sb->extra[i]);
	free(sb->extra);
	slurm_extra_release(&sb->xo);
	free(sb->tres_per_node);
	if (sb->adopt_msg)
		slurm_free_job_info_msg(sb->adopt_msg);
	for (size_t i = 0; i < sb->njobs; i++) {
		free(sb->jobs[i].run_dir);
		free(sb->jobs[i].store);
	}
	free(sb->jobs);
	idmap_release(&sb->job_ix);
	for (size_t i = 0; i < sb->nqueue; i++)
		queue_release(&sb->queue[i]);
	free(sb->queue);
	free(sb->groups);
	free(sb->arr);
	free(sb->ready);
	free(sb->scan_key);
	free(sb->foreign);
	free(sb->note);
	for (size_t k = 0; k < sb->nevdirs; k++)
		free(sb->evdirs[k].path);
	free(sb->evdirs);
	strmap_release(&sb->orphans);
	free(sb->orphan_ids);
	free(sb);
	free(b);
	if (--slurm_refs == 0)
		slurm_fini();
}

static const struct backend_ops slurm_ops = {
	.name = "slurm",
	.capacity = sl_capacity,
	.start = sl_start,
	.wait = sl_wait,
	.cancel = sl_cancel,
	.adopt = sl_adopt,
	.recover = sl_recover,
	.flush = sl_flush,
	.inflight = sl_inflight,
	.free = sl_free,
};

/* libslurm calls fatal() (exits) without a config, and retries for a minute on a missing SLURM_CONF. */
static int check_slurm_conf(struct perr *err)
{
	const char *conf = getenv("SLURM_CONF");
	struct stat st;
	if (conf && *conf) {
		if (stat(conf, &st) || !S_ISREG(st.st_mode))
			return perr_set(err, "slurm config '%s' (from SLURM_CONF) does not exist", conf);
		return 0;
	}
	if (stat(PS_SLURM_DEFAULT_CONF, &st) || !S_ISREG(st.st_mode))
		return perr_set(err, "no slurm config: SLURM_CONF is unset and '%s' does not exist "
				"(set SLURM_CONF to your cluster's slurm.conf)", PS_SLURM_DEFAULT_CONF);
	return 0;
}

static int probe_child(void *data)
{
	(void)data;
	slurm_init(NULL);
	return 0;
}

/*
 * libslurm calls fatal() -- exit(1) -- on a config it cannot parse.  Try
 * slurm_init in a child first and turn its death into an error that quotes
 * libslurm's own first complaint.
 */
static int probe_slurm_conf(struct perr *err)
{
	const char *conf = getenv("SLURM_CONF");
	if (!conf || !*conf)
		conf = PS_SLURM_DEFAULT_CONF;
	struct child_process cp = { .fn = probe_child, .capture = 2 };
	if (start_command(&cp))
		return 0;   /* cannot probe: let libslurm speak for itself */
	char buf[2048];
	size_t len = 0;
	ssize_t n;
	while ((n = read(cp.pipe_fd, buf + len, sizeof(buf) - 1 - len)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			len += (size_t)n;
	buf[len] = '\0';
	close(cp.pipe_fd);
	if (finish_command(&cp) == 0)
		return 0;
	/* "prog: error: MESSAGE" lines: keep the first message */
	const char *why = "libslurm cannot use it";
	char *line = strstr(buf, "error: ");
	if (!line)
		line = strstr(buf, "fatal: ");
	if (line) {
		line += 7;
		line[strcspn(line, "\n")] = '\0';
		why = line;
	}
	return perr_set(err, "cannot read slurm config '%s': %s", conf, why);
}

static char *dup_or_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

int backend_slurm_new(struct backend **bp, const struct backend_config *cfg, struct perr *err)
{
	struct slurm_extra xo;
	if (cfg && cfg->time_limit < 0)
		return perr_set(err, "slurm time_limit must not be negative (minutes, 0 = from the estimate)");
	if (cfg && cfg->max_inflight < 0)
		return perr_set(err, "slurm max_inflight must not be negative (0 = 64)");
	if (slurm_extra_parse(&xo, cfg ? cfg->nextra : 0, cfg ? cfg->extra : NULL, err)) {
		slurm_extra_release(&xo);
		return -1;
	}
	if (check_slurm_conf(err) || (slurm_refs == 0 && probe_slurm_conf(err))) {
		slurm_extra_release(&xo);
		return -1;
	}
	if (slurm_refs++ == 0)
		slurm_init(NULL);
	struct slurm_backend *sb = xcalloc(1, sizeof(*sb));
	sb->xo = xo;
	sb->tres_per_node = gres_tres(xo.gres);
	if (cfg) {
		sb->partition = dup_or_null(cfg->partition);
		sb->mpi = dup_or_null(cfg->mpi);
		sb->account = dup_or_null(cfg->account);
		sb->qos = dup_or_null(cfg->qos);
		sb->time_limit = cfg->time_limit;
		sb->max_inflight = cfg->max_inflight;
		sb->nextra = cfg->nextra;
		sb->extra = xcalloc((size_t)cfg->nextra + 1, sizeof(char *));
		for (int i = 0; i < cfg->nextra; i++)
			sb->extra[i] = xstrdup(cfg->extra[i]);
	}
	if (sb->max_inflight <= 0)
		sb->max_inflight = 64;
	/* PERFSWEEP_SLURM_ARRAYS=0: the test suite's lane without arrays */
	const char *ea = getenv("PERFSWEEP_SLURM_ARRAYS");
	sb->arrays = !(cfg && cfg->no_arrays) && !(ea && !strcmp(ea, "0"));
	sb->poll_min = cfg && cfg->poll_min > 0 ? cfg->poll_min : POLL_MIN;
	sb->poll_max = cfg && cfg->poll_max > 0 ? cfg->poll_max : fmax(POLL_MAX, sb->poll_min);
	sb->poll_factor = cfg && cfg->poll_factor >= 1 ? cfg->poll_factor : POLL_FACTOR;
	sb->poll_safety = cfg && cfg->poll_safety > 0 ? cfg->poll_safety : POLL_SAFETY;
	sb->notes_sweep = cfg && cfg->poll_notes > 0 ? cfg->poll_notes : NOTES_SWEEP;
	sb->poll_interval = sb->poll_min;
	strmap_init(&sb->orphans);
	struct backend *b = xcalloc(1, sizeof(*b));
	b->ops = &slurm_ops;
	b->priv = sb;
	*bp = b;
	return 0;
}

/* The nodes of partition p (index pairs into the node table) with their CPUs. */
static void partition_nodes(const partition_info_t *p, const node_info_msg_t *nm, struct slurm_partition *out)
{
	size_t alloc = 0;
	for (int i = 0; p->node_inx && p->node_inx[i] >= 0 && p->node_inx[i + 1] >= 0; i += 2)
		for (int k = p->node_inx[i]; k <= p->node_inx[i + 1]; k++) {
			if (k < 0 || (uint32_t)k >= nm->record_count)
				continue;
			XGROW(out->cpus, (size_t)out->nnodes + 1, alloc);
			out->cpus[out->nnodes++] = nm->node_array[k].cpus;
		}
}

/* In the asking child: one line "ok NAME MAX_NODES CPUS..." or "no" (no such partition) to fd. */
/* In a child: the answer on stdout. */
static int partition_answer(void *data)
{
	const char *partition = data;
	int fd = 1;
	slurm_init(NULL);
	partition_info_msg_t *pm = NULL;
	node_info_msg_t *nm = NULL;
	if (slurm_load_partitions(0, &pm, SHOW_ALL) != SLURM_SUCCESS ||
	    slurm_load_node(0, &nm, SHOW_ALL) != SLURM_SUCCESS)
		return 0;
	const partition_info_t *p = NULL;
	for (uint32_t i = 0; i < pm->record_count && !p; i++) {
		const partition_info_t *q = &pm->partition_array[i];
		if (partition ? !strcmp(q->name, partition) : (q->flags & PART_FLAG_DEFAULT) != 0)
			p = q;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	if (!p) {
		strbuf_addstr(&sb, "no\n");
	} else {
		struct slurm_partition sp = { .nnodes = 0 };
		partition_nodes(p, nm, &sp);
		strbuf_addf(&sb, "ok %.63s %u", p->name, p->max_nodes == INFINITE ? 0u : p->max_nodes);
		for (int k = 0; k < sp.nnodes; k++)
			strbuf_addf(&sb, " %d", sp.cpus[k]);
		strbuf_addch(&sb, '\n');
		free(sp.cpus);
	}
	if (write(fd, sb.buf, sb.len) < 0)
		return 1;
	return 0;
}

/* Read the child's answer within limit seconds; NULL when it did not answer in time. */
static char *read_answer(int fd, pid_t pid, double limit)
{
	struct strbuf sb;
	strbuf_init(&sb);
	double end = wall_now() + limit;
	char buf[4096];
	for (;;) {
		double left = end - wall_now();
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) == 0) {
			kill(pid, SIGKILL);
			strbuf_release(&sb);
			return NULL;
		}
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf_add(&sb, buf, (size_t)n);
	}
	return strbuf_detach(&sb);
}

/* Parse "ok NAME MAX_NODES CPUS..." into out: 1, or 0 when it is not such a line. */
static int parse_answer(char *text, struct slurm_partition *out)
{
	char *save = NULL, *w = strtok_r(text, " \n", &save);
	if (!w || strcmp(w, "ok") || !(w = strtok_r(NULL, " \n", &save)))
		return 0;
	snprintf(out->name, sizeof(out->name), "%s", w);
	if (!(w = strtok_r(NULL, " \n", &save)))
		return 0;
	out->max_nodes = atoi(w);
	size_t alloc = 0;
	while ((w = strtok_r(NULL, " \n", &save))) {
		XGROW(out->cpus, (size_t)out->nnodes + 1, alloc);
		out->cpus[out->nnodes++] = atoi(w);
	}
	return 1;
}

/*
 * libslurm waits seconds for a controller that is down, so a child asks
 * and the answer counts only if it comes within PARTITION_WAIT seconds.
 */
#define PARTITION_WAIT 1.5

int backend_slurm_partition(const char *partition, struct slurm_partition *out, struct perr *err)
{
	memset(out, 0, sizeof(*out));
	struct perr e2;
	if (check_slurm_conf(&e2) || (slurm_refs == 0 && probe_slurm_conf(&e2)))
		return 0;   /* no controller to ask */
	struct child_process cp = { .fn = partition_answer, .data = (void *)partition, .capture = 1 };
	if (start_command(&cp))
		return 0;
	char *text = read_answer(cp.pipe_fd, cp.pid, PARTITION_WAIT);
	close(cp.pipe_fd);
	finish_command(&cp);
	int rc = 0;
	if (text && !strncmp(text, "no", 2))
		rc = partition ? perr_set_kind(err, PERR_BACKEND, "slurm has no partition '%s'", partition)
			       : perr_set_kind(err, PERR_BACKEND, "slurm has no default partition; set "
					       "backend.partition");
	else if (text && parse_answer(text, out))
		rc = 1;
	else
		slurm_partition_release(out);
	free(text);
	return rc;
}

void slurm_partition_release(struct slurm_partition *p)
{
	free(p->cpus);
	memset(p, 0, sizeof(*p));
}
