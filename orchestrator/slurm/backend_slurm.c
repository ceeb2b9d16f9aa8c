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
#include "common/clock.h"
#include "common/run_command.h"
#include "orchestrator/slurm/backend_slurm.h"
#include "orchestrator/slurm/slurm_extra.h"
#include "orchestrator/slurm/slurm_compat.h"
#include "orchestrator/slurm/slurm_script.h"
#include "common/strbuf.h"
#include "common/fsutil.h"
#include "common/idmap.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define POLL_MIN 0.1          /* seconds between polls right after a change */
#define POLL_MAX 5.0          /* ... growing to this while nothing changes */
#define POLL_FACTOR 1.5       /* ... by this factor per quiet poll (backend.poll) */
#define OUTAGE_POLL 1.0       /* first retry interval while the controller is down */
#define POLL_PER_RECORD 0.001 /* seconds between polls per listed job we do not track */
#define POLL_CPU_SHARE 0.005  /* polling may take this share of a CPU (0.5%) */
#define POLL_SAFETY 30.0      /* seconds between polls while job notes tell us (poll.safety) */
/* seconds between reads of the job notes (poll.notes): each read is a
   wakeup, and at 0.1 s the wakeups, not the notes, were 40% of the
   orchestrator's CPU per run (docs/architecture.md).  A start or end is
   then seen up to this much later: its times come from the job's own
   record, and an array's throttle is the controller's; with arrays off,
   a freed slot's next job goes out that much later */
#define NOTES_SWEEP 0.5
#define SUBMIT_BACKOFF_MIN 0.2
#define SUBMIT_BACKOFF_MAX 30.0
#define ADOPT_PATIENCE 600.0  /* seconds adopt() waits for a down controller */
#define ARRAY_WINDOW 10000    /* runs queued in SLURM at once with job arrays */
#define POLL_ARRAYS 4         /* tracked tasks of at most this many arrays: ask for those */
#define ADOPT_REUSE 2.0       /* seconds adopt() reuses an array's records for its other tasks */

#define NO_TASK NO_VAL           /* sjob.task of a job of its own, not an array task */

struct sjob {
	long long run;
	uint32_t job;         /* its job id; of an array task: the array's */
	uint32_t task;        /* its array task id, or NO_TASK */
	int missing;          /* full job lists in a row that did not show it */
	int left_pending;     /* an array task its array's pending record no longer lists,
	                         before it started: cancelled (scancel) while pending */
	double timeout;       /* the run's own timeout (exit 124 of timeout(1)), 0 none */
	int running;          /* its start was reported ... */
	double started_at;    /* ... as this time, which its result repeats */
	char *run_dir;
	char *store;          /* the store whose job it is (its records must say so) */
};


struct slurm_backend {
	char *partition, *account, *qos;
	char *mpi;                        /* srun --mpi=, or NULL */
	int time_limit, max_inflight;
	int nextra;
	char **extra;
	struct slurm_extra xo;
	char *tres_per_node;               /* xo.gres with SLURM's prefix per item */

	struct sjob *jobs;
	size_t njobs, ajobs;
	struct idmap job_ix;              /* key_of(job, task) -> its index in jobs */
	struct run_result *ready;         /* finished, not yet returned by wait() */
	size_t nready, aready;

	double poll_min, poll_max, poll_factor, poll_safety;
	double notes_sweep;               /* seconds between reads of the notes */
	time_t last_update;               /* of the last job list we got */
	double next_poll, poll_interval;
	double poll_floor;                /* no sooner than this: the list's untracked jobs */
	int outage;                       /* the controller did not answer */
	int notes_live;                   /* job notes arrive: the controller is the safety net */
	double next_sweep;                /* of the events directories */
	struct events_dir { char *path; double seen; } *evdirs;   /* seen: its mtime when last read */
	size_t nevdirs, aevdirs;
	int had_outage;                   /* ... at some time since we started */
	/* the array adopt() loaded last, reused for its other tasks while
	   fresh: a resumed campaign adopts each task of an array in turn */
	job_info_msg_t *adopt_msg;
	uint32_t adopt_job;
	double adopt_at;

	/* Job arrays (backend.arrays): start() queues runs, flush() submits
	   runs of one shape as one array each; arrays counts each array's
	   unfinished tasks against its throttle ("%N"), which together with
	   single jobs stay within max_inflight. */
	int arrays;                       /* 1: on; 0: off (config, or refused by the controller) */
	int arrays_told;                  /* that they are refused was said (note) */
	uint32_t max_array;               /* the controller's MaxArraySize (0: not asked yet) */
	struct queued *queue;
	size_t nqueue, aqueue;
	struct qgroup { size_t rep, n; } *groups;   /* the queue's shapes: a run of each, how many */
	size_t ngroups, agroups;
	struct sarray { uint32_t job; int throttle, left; } *arr;
	size_t narr, aarr;
	unsigned long tag_seq;

	double submit_after;              /* back-off after a transient submit error */
	double submit_backoff;

	/* Jobs of this store found in SLURM that nobody tracks yet
	   ("ps:<campaign>:<id>.<attempt>" -> index into orphan_ids). */
	int scanned;
	char *scan_key;                   /* whose jobs: campaign, store id and directory */
	struct strmap orphans;
	struct orphan { uint32_t job, task; } *orphan_ids;   /* job 0: taken */
	size_t norphans, aorphans;
	/* Live jobs of other stores at the same path, left alone: told once. */
	uint32_t *foreign;
	size_t nforeign, aforeign;
	char *note;                       /* the next thing recover() tells, or NULL */
};

/* A run start() queued for the next array: what flush() needs of it. */
struct queued {
	long long run;
	int attempt, nodes, ranks, rpn;
	uint32_t tl;
	double timeout;
	char *run_dir, *store, *campaign, *campaign_dir, *point, *policy;
};

static int slurm_refs;

static int job_task_is_runs(const slurm_job_info_t *j, uint32_t task, const struct run_spec *rs,
			    int legacy);
static char *array_map(const struct slurm_comment *c);
static void arrays_refused(struct slurm_backend *sb, const char *why);


static void sleep_for(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Errors that may go away by themselves: controller or munge unreachable, busy, limits. */
static int slurm_transient(int e)
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

static const char *slurm_errstr(int e)
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
static uint32_t job_time_limit(const struct slurm_backend *sb, const struct run_spec *rs)
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
static char **job_env(const struct run_spec *rs, uint32_t *n)
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

static void env_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

/* A job script or an array's map, executable from its creation (no chmod
   after it: one less system call per run). */
static int write_executable(const char *path, const char *text, struct perr *err)
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
static uint64_t key_of(uint32_t job, uint32_t task)
{
	return (uint64_t)job << 32 | task;
}

/* The tracked job with this id (task: its array task, or NO_TASK): its index, or njobs. */
static size_t tracked(const struct slurm_backend *sb, uint32_t job, uint32_t task)
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
static char *job_text(uint32_t job, uint32_t task)
{
	return task == NO_TASK ? xasprintf("%u", job) : xasprintf("%u_%u", job, task);
}

/* The tracked jobs that are array tasks: the arrays' unfinished tasks. */
static size_t tasks_in_arrays(const struct slurm_backend *sb)
{
	size_t n = 0;
	for (size_t k = 0; k < sb->narr; k++)
		n += (size_t)sb->arr[k].left;
	return n;
}

/* Track job (task) as run's. */
static void track_job(struct slurm_backend *sb, long long run, double timeout, const char *run_dir,
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
static void track(struct slurm_backend *sb, const struct run_spec *rs, uint32_t job, uint32_t task)
{
	track_job(sb, rs->id, rs->timeout, rs->run_dir, rs->store_id, job, task);
}

static void untrack(struct slurm_backend *sb, size_t i)
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

/* A job is finished once its base state is past SUSPENDED: the batch script
   has ended and its exit code is set.  COMPLETING only says the node has not
   yet confirmed its epilog; after a controller restart that confirmation can
   take a minute, and the result does not depend on it. */
static int job_finished(uint32_t state)
{
	return (state & JOB_STATE_BASE) > JOB_SUSPENDED;
}

/* Whether run_dir holds marker (job.step-failed, job.step-aborted). */
static int has_marker(const char *run_dir, const char *marker)
{
	if (!run_dir)
		return 0;
	char *path = xasprintf("%s/%s", run_dir, marker);
	int there = !access(path, F_OK);
	free(path);
	return there;
}

/* srun said 0 but a rank never ended (slurm_script.c): the controller
   aborted the step, a node went down under it; not the program's fault */
#define STEP_ABORTED "job step aborted before every rank ended, see job.err"

/* What the job script's markers in run_dir say went wrong with its step
   (it could not start, or was aborted: the controller or a node, not the
   program), or NULL. */
static const char *step_trouble(const char *run_dir)
{
	return has_marker(run_dir, "job.step-failed")	 ? "job step could not start, see job.err"
	       : has_marker(run_dir, "job.step-aborted") ? STEP_ABORTED
							 : NULL;
}

/* The run result of a finished job. */
static void job_result(const slurm_job_info_t *j, long long run, double timeout,
		       const char *run_dir, struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	r->id = run;
	r->exit_status = -1;
	r->started_at = j->start_time > 0 ? (double)j->start_time : 0;
	r->ended_at = j->end_time > 0 ? (double)j->end_time : wall_now();
	r->wall = r->started_at > 0 && r->ended_at >= r->started_at ? r->ended_at - r->started_at : 0;
	int st = (int)j->exit_code;
	if (j->exit_code != NO_VAL) {
		if (WIFSIGNALED(st))
			r->exit_status = 128 + WTERMSIG(st);
		else if (WIFEXITED(st))
			r->exit_status = WEXITSTATUS(st);
	}
	uint32_t base = j->job_state & JOB_STATE_BASE;
	const char *why = NULL;
	switch (base) {
	case JOB_COMPLETE:
		if (r->exit_status == 0)
			return;
		why = "failed";
		break;
	case JOB_CANCELLED: why = "cancelled"; break;
	case JOB_TIMEOUT: why = "time limit reached"; break;
	case JOB_NODE_FAIL: why = "node failure"; r->retry_free = 1; break;
	case JOB_PREEMPTED: why = "preempted"; r->retry_free = 1; break;
	case JOB_BOOT_FAIL: why = "node boot failure"; r->retry_free = 1; break;
	case JOB_DEADLINE: why = "deadline reached"; break;
	case JOB_OOM: why = "out of memory"; break;
	default: why = "failed"; break;
	}
	r->failed = 1;
	char detail[160] = "";
	char jt[32];   /* the job as SLURM names it: "JOB" or "JOB_TASK" */
	if (j->array_task_id != NO_VAL && j->array_job_id)
		snprintf(jt, sizeof(jt), "%u_%u", j->array_job_id, j->array_task_id);
	else
		snprintf(jt, sizeof(jt), "%u", j->job_id);
	const char *trouble = base == JOB_FAILED || base == JOB_COMPLETE ? step_trouble(run_dir) : NULL;
	if (trouble) {
		r->retry_free = 1;
		snprintf(r->reason, sizeof(r->reason), "%s (slurm job %s)", trouble, jt);
		return;
	}
	if (base == JOB_FAILED || base == JOB_COMPLETE) {
		if (timeout > 0 && r->exit_status == 124)
			snprintf(detail, sizeof(detail), "timed out after %g s", timeout);
		else if (r->exit_status > 128)
			snprintf(detail, sizeof(detail), "killed by signal %d", r->exit_status - 128);
		else if (r->exit_status > 0)
			snprintf(detail, sizeof(detail), "exit status %d", r->exit_status);
		else if (j->state_reason != WAIT_NO_REASON)
			snprintf(detail, sizeof(detail), "%s%s%s",
				 slurm_job_reason_string((enum job_state_reason)j->state_reason),
				 j->state_desc ? ": " : "", j->state_desc ? j->state_desc : "");
		else
			snprintf(detail, sizeof(detail), "job failed");
		snprintf(r->reason, sizeof(r->reason), "%s (slurm job %s)", detail, jt);
	} else {
		snprintf(r->reason, sizeof(r->reason), "%s (slurm job %s)", why, jt);
	}
}

static void push_ready(struct slurm_backend *sb, const struct run_result *r)
{
	XGROW(sb->ready, sb->nready + 1, sb->aready);
	sb->ready[sb->nready++] = *r;
}

/* Tracked job i has started at t: reported once. */
static void job_started(struct slurm_backend *sb, size_t i, double t)
{
	struct sjob *sj = &sb->jobs[i];
	if (sj->running)
		return;
	sj->running = 1;
	sj->started_at = t;
	struct run_result r = { .id = sj->run, .running = 1, .exit_status = -1, .started_at = t };
	push_ready(sb, &r);
}

/* Tracked job i has ended with result r: reported with the start reported
   before (the controller and the job's own clock may differ by a second),
   and no longer tracked. */
static void job_ended(struct slurm_backend *sb, size_t i, struct run_result *r)
{
	const struct sjob *sj = &sb->jobs[i];
	if (sj->running && sj->started_at > 0) {
		r->started_at = sj->started_at;
		/* both clocks count whole seconds, read at different moments: a
		   job that ends within its start's second never ends before it */
		if (r->ended_at < r->started_at)
			r->ended_at = r->started_at;
		r->wall = r->ended_at - r->started_at;
	}
	push_ready(sb, r);
	untrack(sb, i);
}

/*
 * A job the controller no longer knows (purged after MinJobAge, or lost):
 * its result from the completion record its script left in run_dir, when
 * that record is this job's (job != 0) or this attempt's (job == 0) of
 * store store.  A record of another store is never taken, and one without
 * a store (perfsweep before store ids) only for its job.
 * 1: r filled; 0: no such record.
 */
static int result_from_record(const char *run_dir, const char *store, uint32_t job, uint32_t task,
			      int attempt, long long run, double timeout, int live, struct run_result *r)
{
	if (!run_dir)
		return 0;
	struct strbuf sb;
	strbuf_init(&sb);
	char *path = xasprintf("%s/job.done", run_dir);
	struct slurm_done d;
	int ok = !strbuf_read_file(&sb, path) && !slurm_done_parse(sb.buf, &d) &&
		 (d.store[0] ? store && !strcmp(d.store, store) : job != 0) &&
		 (job ? d.job == job && (task == NO_TASK ? d.task < 0 : d.task == (long)task)
		      : d.attempt == (attempt > 0 ? attempt : 1));
	free(path);
	strbuf_release(&sb);
	if (!ok)
		return 0;
	memset(r, 0, sizeof(*r));
	r->id = run;
	r->exit_status = d.exit_status;
	r->started_at = (double)d.start;
	r->ended_at = (double)d.end;
	r->wall = d.end >= d.start ? (double)(d.end - d.start) : 0;
	if (d.exit_status == 0)
		return 1;
	r->failed = 1;
	const char *what = step_trouble(run_dir);
	r->retry_free = what != NULL;
	char detail[64];
	if (!what && timeout > 0 && d.exit_status == 124)
		snprintf(detail, sizeof(detail), "timed out after %g s", timeout);
	else if (!what && d.exit_status > 128)
		snprintf(detail, sizeof(detail), "killed by signal %d", d.exit_status - 128);
	else
		snprintf(detail, sizeof(detail), "%s%d", what ? "" : "exit status ", what ? 0 : d.exit_status);
	char *jt = job_text(d.job, d.task < 0 ? NO_TASK : (uint32_t)d.task);
	snprintf(r->reason, sizeof(r->reason), "%s (slurm job %s%s)", what ? what : detail, jt,
		 live ? "" : ", from job.done");
	free(jt);
	return 1;
}

/* The longest wait between polls: poll.max, or poll.safety (at least
   poll.max) once job notes tell of starts and ends. */
static double poll_ceiling(const struct slurm_backend *sb)
{
	return sb->notes_live ? fmax(sb->poll_safety, sb->poll_max) : sb->poll_max;
}

/* The next poll: soon after a change, later and later while nothing changes;
   never sooner than the floor set by the size of the last list. */
static void poll_again(struct slurm_backend *sb, int changed)
{
	sb->poll_interval = changed ? sb->poll_min
				    : fmin(sb->poll_interval * sb->poll_factor, poll_ceiling(sb));
	sb->next_poll = wall_now() + fmax(sb->poll_interval, sb->poll_floor);
}

/*
 * A list of nrecords jobs of which ntracked are ours to track: the rest
 * (this user's finished jobs, kept for MinJobAge, and other jobs) cost the
 * controller and us the same work per poll but tell us nothing.  Space the
 * polls by POLL_PER_RECORD per such job, and by the poll's own CPU time
 * over POLL_CPU_SHARE (up to poll.max), so that polling costs a bounded
 * share of a CPU however long the list grows, instead of growing with the
 * campaign.
 */
static void poll_floor(struct slurm_backend *sb, uint32_t nrecords, size_t ntracked, double cpu)
{
	double untracked = nrecords > ntracked ? (double)(nrecords - ntracked) : 0;
	/* and by what the poll cost us: at most POLL_CPU_SHARE of a CPU, measured */
	sb->poll_floor = fmin(fmax(untracked * POLL_PER_RECORD, cpu / POLL_CPU_SHARE), poll_ceiling(sb));
}

/* A tracked job as the controller lists it: its start reported once, its
   result when it has finished.  Returns 2 when it finished, 1 when it
   started, 0 when nothing changed. */
static int poll_job(struct slurm_backend *sb, size_t i, const slurm_job_info_t *j)
{
	sb->jobs[i].missing = 0;
	if (job_finished(j->job_state)) {
		struct run_result r;
		job_result(j, sb->jobs[i].run, sb->jobs[i].timeout, sb->jobs[i].run_dir, &r);
		job_ended(sb, i, &r);
		return 2;
	}
	if (!sb->jobs[i].running && (j->job_state & JOB_STATE_BASE) == JOB_RUNNING) {
		job_started(sb, i, (double)j->start_time);
		return 1;
	}
	return 0;
}

/* A job missing from two lists in a row was purged (or the controller lost
   its state): its completion record says how it ended, else run it again. */
static int poll_missing(struct slurm_backend *sb)
{
	int changed = 0;
	for (size_t i = 0; i < sb->njobs;) {
		if (sb->jobs[i].missing < 2) {
			i++;
			continue;
		}
		struct run_result r = { .id = sb->jobs[i].run, .exit_status = -1, .failed = 1,
					.retry_free = 1, .ended_at = wall_now() };
		char *jt = job_text(sb->jobs[i].job, sb->jobs[i].task);
		char *out = sb->jobs[i].run_dir ? xasprintf("%s/job.out", sb->jobs[i].run_dir) : NULL;
		/* slurmd makes job.out when a task starts: without it, it never did */
		int never_ran = out && access(out, F_OK) && errno == ENOENT;
		free(out);
		if (sb->jobs[i].left_pending && !sb->jobs[i].running && never_ran) {
			/* what SLURM says of a cancelled job of its own (job_result) */
			r.retry_free = 0;
			snprintf(r.reason, sizeof(r.reason), "cancelled (slurm job %s, while it was pending)", jt);
		} else {
			snprintf(r.reason, sizeof(r.reason), "slurm job %s disappeared from the controller", jt);
		}
		free(jt);
		result_from_record(sb->jobs[i].run_dir, sb->jobs[i].store, sb->jobs[i].job, sb->jobs[i].task, 0,
				   sb->jobs[i].run, sb->jobs[i].timeout, 0, &r);
		job_ended(sb, i, &r);
		changed = 1;
	}
	return changed;
}

/* A tracked job's sort key: its job id, then its array task. */
struct job_key {
	uint64_t key;
	size_t i;
};

static int cmp_job(const void *a, const void *b)
{
	uint64_t x = ((const struct job_key *)a)->key, y = ((const struct job_key *)b)->key;
	return x < y ? -1 : x > y;
}

/* Whether task is in a job record's array_task_str ("3-9%2", "[1,4-7:3]"). */
static int task_in_str(const char *str, uint32_t task)
{
	if (!str)
		return 0;
	for (const char *p = str + (*str == '['); *p && *p != '%' && *p != ']';) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, step = 1;
		if (end == p)
			return 0;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (*end == ':')
			step = strtoul(end + 1, &end, 10);
		if (task >= lo && task <= hi && step > 0 && (task - lo) % step == 0)
			return 1;
		p = end + (*end == ',');
	}
	return 0;
}

/* The tracked job that job record j is (a job of its own or one array
   task); its index in ix, or n.  An array's record of tasks still pending
   (one record for them all) marks them seen and is no one's. */
static size_t record_of(struct slurm_backend *sb, const slurm_job_info_t *j, struct job_key *ix,
			size_t n, size_t *nseen)
{
	struct job_key want = { .key = key_of(j->job_id, NO_TASK) };
	if (j->array_job_id && j->array_task_id != NO_VAL) {
		want.key = key_of(j->array_job_id, j->array_task_id);
	} else if (j->array_job_id && j->array_task_str) {
		/* the first of this array's tasks, then on while they are the array's */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (ix[mid].key < key_of(j->array_job_id, 0))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && ix[lo].key >> 32 == j->array_job_id; lo++) {
			struct sjob *t = &sb->jobs[ix[lo].i];
			if (task_in_str(j->array_task_str, (uint32_t)ix[lo].key)) {
				t->missing = 0;
				(*nseen)++;
			} else if (!t->running) {   /* a record of its own says otherwise (missing = 0) */
				t->left_pending = 1;
			}
		}
		return n;
	}
	struct job_key *hit = bsearch(&want, ix, n, sizeof(*ix), cmp_job);
	return hit ? (size_t)(hit - ix) : n;
}

static double mtime_of(const struct stat *st)
{
	return (double)st->st_mtim.tv_sec + st->st_mtim.tv_nsec / 1e9;
}

/* One note "JOB.start", "JOB.done" or "JOB.gone" in directory dir: 1 when
   it told us a start or a result, 0 when it is used up (a gone note: poll
   the controller now) or not ours (removed), -1 when the run's record
   cannot be read yet (kept, read again). */
static int read_note(struct slurm_backend *sb, const char *dir, const char *name)
{
	char *end;
	errno = 0;
	unsigned long job = strtoul(name, &end, 10), task = NO_TASK;
	if (end != name && *end == '_' && end[1] >= '0' && end[1] <= '9')   /* an array task */
		task = strtoul(end + 1, &end, 10);
	if (end == name || errno || job == 0 || job >= NO_VAL || task > NO_TASK ||
	    (strcmp(end, ".start") && strcmp(end, ".done") && strcmp(end, ".gone")))
		return 0;   /* not a note (a temporary file, a stranger): leave it */
	char *path = xasprintf("%s/%s", dir, name);
	size_t i = tracked(sb, (uint32_t)job, (uint32_t)task);
	int told = 0;
	if (i == sb->njobs) {
		;   /* a job we no longer track: its record stays */
	} else if (!strcmp(end, ".gone")) {
		/* SLURM is ending it (cancel, time limit): the controller says how */
		sb->poll_interval = sb->poll_min;
		sb->next_poll = wall_now();
	} else if (!strcmp(end, ".done")) {
		struct sjob *sj = &sb->jobs[i];
		struct run_result r;
		if (!result_from_record(sj->run_dir, sj->store, sj->job, sj->task, 0, sj->run, sj->timeout, 1, &r)) {
			free(path);
			return -1;
		}
		if (r.failed && has_marker(sj->run_dir, "job.step-aborted")) {
			/* the controller knows why (a node failure): ask it now */
			sb->poll_interval = sb->poll_min;
			sb->next_poll = wall_now();
		} else {
			job_ended(sb, i, &r);
			told = 1;
		}
	} else if (!sb->jobs[i].running) {
		/* the note holds the script's start time, as job.done will; a
		   note caught before its line is written: now, in whole seconds
		   like the script's clock */
		struct strbuf sbuf;
		strbuf_init(&sbuf);
		double t = strbuf_read_file(&sbuf, path) ? 0 : strtod(sbuf.buf, NULL);
		strbuf_release(&sbuf);
		job_started(sb, i, t > 0 ? t : floor(wall_now()));
		told = 1;
	}
	unlink(path);
	free(path);
	return told;
}

/*
 * The notes job scripts left since the last sweep (slurm_script.c): a
 * directory is read only when its time changed, or while that time is still
 * within a second of now (it has the kernel's clock tick: a note written in
 * the tick of our last read would not change it).  Returns 1 when a note
 * told us something.
 */
static int sweep_notes(struct slurm_backend *sb)
{
	int changed = 0;
	double now = wall_now();
	for (size_t k = 0; k < sb->nevdirs; k++) {
		struct events_dir *ed = &sb->evdirs[k];
		struct stat st;
		if (stat(ed->path, &st))
			continue;
		double mt = mtime_of(&st);
		if (mt == ed->seen && now - mt > 1.0)
			continue;
		DIR *d = opendir(ed->path);
		if (!d)
			continue;
		/* ends before starts: a job that started and ended since the
		   last sweep is stored done once, never running for no time */
		int again = 0;
		size_t nstart = 0, astart = 0;
		char **starts = NULL;
		for (struct dirent *de; (de = readdir(d));) {
			size_t len = strlen(de->d_name);
			if (len > 6 && !strcmp(de->d_name + len - 6, ".start")) {
				XGROW(starts, nstart + 1, astart);
				starts[nstart++] = xstrdup(de->d_name);
				continue;
			}
			int rc = read_note(sb, ed->path, de->d_name);
			again |= rc < 0;
			changed |= rc > 0;
		}
		closedir(d);
		for (size_t s = 0; s < nstart; s++) {
			changed |= read_note(sb, ed->path, starts[s]) > 0;
			free(starts[s]);
		}
		free(starts);
		ed->seen = again ? -1 : mt;
	}
	if (changed && !sb->notes_live) {
		/* from now on the notes tell: the controller only checks on them */
		sb->notes_live = 1;
		sb->poll_interval = fmax(sb->poll_interval, sb->poll_max);
		sb->next_poll = fmax(sb->next_poll, now + sb->poll_interval);
	}
	return changed;
}

/* The arrays of the tracked jobs (ids[0..n)): n when every tracked job is
   an array task and they are tasks of at most POLL_ARRAYS arrays, else 0.
   sb->arr holds each array with tracked tasks, and how many. */
static int tracked_arrays(const struct slurm_backend *sb, uint32_t *ids)
{
	if (tasks_in_arrays(sb) != sb->njobs || sb->narr > POLL_ARRAYS)
		return 0;
	for (size_t k = 0; k < sb->narr; k++)
		ids[k] = sb->arr[k].job;
	return (int)sb->narr;
}

/*
 * The controller's records of our jobs, in msgs[0..*nmsg) (at most
 * POLL_ARRAYS).  When every tracked job is a task of a few arrays, only
 * those arrays' records, one request each (slurm_load_job of an array's id
 * sends its tasks): the user's other jobs, the earlier campaigns' that the
 * controller keeps for MinJobAge among them, are neither sent nor unpacked
 * and hashed (about 5 us a record here).  Otherwise this user's list, or,
 * after an outage, the full list when it changed.  0, or the failed call's
 * SLURM errno (nothing loaded).
 */
static int load_records(struct slurm_backend *sb, job_info_msg_t **msgs, int *nmsg)
{
	uint32_t ids[POLL_ARRAYS];
	int na = sb->had_outage ? 0 : tracked_arrays(sb, ids);
	*nmsg = 0;
	if (!na) {
		/* after a controller outage, this user's list has been seen to miss
		   a job's end (70-slurm-backend.t): the incremental full list from
		   then on */
		int rc = sb->had_outage ? slurm_load_jobs(sb->last_update, &msgs[0], SHOW_ALL)
					: slurm_load_job_user(&msgs[0], (uint32_t)getuid(), SHOW_ALL);
		if (rc != SLURM_SUCCESS)
			return slurm_get_errno();
		*nmsg = 1;
		return 0;
	}
	for (int k = 0; k < na; k++) {
		job_info_msg_t *m = NULL;
		if (slurm_load_job(&m, ids[k], SHOW_ALL) == SLURM_SUCCESS) {
			msgs[(*nmsg)++] = m;
			continue;
		}
		int e = slurm_get_errno();
		if (e == ESLURM_INVALID_JOB_ID)
			continue;   /* the whole array purged: its tasks go missing */
		while (*nmsg > 0)
			slurm_free_job_info_msg(msgs[--*nmsg]);
		return e;
	}
	return 0;
}

/*
 * One poll of the controller.  Returns 0 (also during an outage) or -1.
 * It loads our arrays or this user's jobs only (load_records), so its cost
 * follows our own jobs, not the cluster's: other users' jobs, queued or
 * kept after they finished, are never sent.
 */
static int poll_jobs(struct slurm_backend *sb, struct perr *err)
{
	job_info_msg_t *msgs[POLL_ARRAYS];
	int nmsg = 0;
	double cpu0 = thread_cpu_now();
	int e = load_records(sb, msgs, &nmsg);
	if (e) {
		if (e == SLURM_NO_CHANGE_IN_DATA) {
			poll_again(sb, 0);
			return 0;
		}
		if (!slurm_transient(e))
			return perr_set(err, "cannot load slurm jobs: %s", slurm_errstr(e));
		sb->outage = sb->had_outage = 1;   /* wait: never fail a run because of an outage */
		sb->poll_interval = fmin(fmax(sb->poll_interval * 2, OUTAGE_POLL), sb->poll_max);
		sb->next_poll = wall_now() + sb->poll_interval;
		return 0;
	}
	/* every record of every list, in one array */
	uint32_t nrec = 0;
	for (int m = 0; m < nmsg; m++)
		nrec += msgs[m]->record_count;
	const slurm_job_info_t **rec = xcalloc((size_t)nrec + 1, sizeof(*rec));
	for (int m = 0, k = 0; m < nmsg; m++)
		for (uint32_t r = 0; r < msgs[m]->record_count; r++)
			rec[k++] = &msgs[m]->job_array[r];
	/* a restarted controller may date its list before ours: ask for all */
	if (nmsg)
		sb->last_update = sb->outage ? 0 : msgs[0]->last_update;
	sb->outage = 0;
	/* tracked jobs by id and array task, sorted */
	size_t n = sb->njobs;
	struct job_key *ix = xcalloc(n + 1, sizeof(*ix));
	for (size_t i = 0; i < n; i++) {
		sb->jobs[i].missing++;
		ix[i] = (struct job_key){ key_of(sb->jobs[i].job, sb->jobs[i].task), i };
	}
	qsort(ix, n, sizeof(*ix), cmp_job);
	/* results first, removals last: untrack() moves jobs around */
	uint32_t *done = xcalloc(n + 1, sizeof(*done));
	size_t ndone = 0, nseen = 0;
	int changed = 0;
	for (uint32_t k = 0; k < nrec; k++) {
		const slurm_job_info_t *j = rec[k];
		size_t h = record_of(sb, j, ix, n, &nseen);
		if (h == n)
			continue;
		size_t i = ix[h].i;
		sb->jobs[i].missing = 0;
		nseen++;
		if (job_finished(j->job_state))
			done[ndone++] = (uint32_t)k;
		else if (poll_job(sb, i, j) && !sb->nevdirs)
			changed = 1;   /* a start: where notes may come, theirs to tell */
	}
	for (size_t d = 0; d < ndone; d++) {
		const slurm_job_info_t *j = rec[done[d]];
		size_t i = j->array_job_id && j->array_task_id != NO_VAL
				   ? tracked(sb, j->array_job_id, j->array_task_id)
				   : tracked(sb, j->job_id, NO_TASK);
		if (i < sb->njobs)
			changed |= poll_job(sb, i, j) > 0;
	}
	free(done);
	free(ix);
	free(rec);
	changed |= poll_missing(sb);
	while (nmsg > 0)
		slurm_free_job_info_msg(msgs[--nmsg]);
	poll_floor(sb, nrec, nseen, thread_cpu_now() - cpu0);
	/* with notes telling, what this poll found was a note not yet swept
	   (written under load between our sweep and the list): no news */
	poll_again(sb, changed && !sb->notes_live);
	return 0;
}

/*
 * Whose job j (task: of an array job, its task; else NO_TASK) is for run
 * spec rs: 1 when its comment carries rs's store id, campaign directory
 * and run id (with legacy set, also the comment of a perfsweep before
 * store ids naming that directory and run: a job the store recorded before
 * it got its id), or, of an array task, when the array's comment carries
 * the store id and directory and its map names rs's run (and attempt, when
 * rs has one); else 0.
 */
static int job_task_is_runs(const slurm_job_info_t *j, uint32_t task, const struct run_spec *rs,
			    int legacy)
{
	struct slurm_comment c;
	if (j->user_id != getuid() || slurm_comment_parse(j->comment, &c))
		return 0;
	if (c.array[0] || task != NO_TASK) {
		if (!c.array[0] || task == NO_TASK || !slurm_comment_is_dir(&c, rs->store_id, rs->campaign_dir))
			return 0;
		char *map = array_map(&c);
		long long run = 0;
		int attempt = 0;
		int ok = map && !slurm_array_lookup(map, task, &run, &attempt) && run == rs->id &&
			 (rs->attempt <= 0 || attempt == rs->attempt);
		free(map);
		return ok;
	}
	if (slurm_comment_is(&c, rs->store_id, rs->campaign_dir, rs->id))
		return 1;
	return legacy && !c.store[0] && slurm_comment_is(&c, "", rs->campaign_dir, rs->id);
}

/* A job of another store at this path that is still live: told once (sb->note). */
static void foreign_job(struct slurm_backend *sb, const slurm_job_info_t *j)
{
	if (job_finished(j->job_state))
		return;
	for (size_t k = 0; k < sb->nforeign; k++)
		if (sb->foreign[k] == (j->array_job_id ? j->array_job_id : j->job_id))
			return;
	XGROW(sb->foreign, sb->nforeign + 1, sb->aforeign);
	sb->foreign[sb->nforeign++] = j->array_job_id ? j->array_job_id : j->job_id;
	struct strbuf t;
	strbuf_init(&t);
	if (sb->note) {
		strbuf_addstr(&t, sb->note);
		strbuf_addstr(&t, ", ");
		free(sb->note);
	} else {
		strbuf_addstr(&t, "slurm jobs of another campaign store made earlier in this directory "
			      "are queued or running; left alone (scancel them if unwanted): ");
	}
	strbuf_addf(&t, "%u (%s)", j->array_job_id ? j->array_job_id : j->job_id, j->name);
	sb->note = strbuf_detach(&t);
}

static void add_orphan(struct slurm_backend *sb, const char *name, uint32_t job, uint32_t task)
{
	XGROW(sb->orphan_ids, sb->norphans + 1, sb->aorphans);
	sb->orphan_ids[sb->norphans] = (struct orphan){ job, task };
	strmap_put(&sb->orphans, name, (int)sb->norphans);
	sb->norphans++;
}

/* The text of the map of the array with comment c, or NULL (caller frees). */
static char *array_map(const struct slurm_comment *c)
{
	char *dir = xasprintf("%.*s", (int)c->dir_len, c->dir);
	char *ad = slurm_arrays_dir(dir);
	char *path = xasprintf("%s/%s.sh", ad, c->array);
	struct strbuf t;
	strbuf_init(&t);
	int bad = strbuf_read_file(&t, path);
	free(path);
	free(ad);
	free(dir);
	if (bad) {
		strbuf_release(&t);
		return NULL;
	}
	return strbuf_detach(&t);
}

/* Every task of array job (comment c) as an orphan, by its run's job name. */
static void array_orphans(struct slurm_backend *sb, const struct run_spec *rs,
			  const struct slurm_comment *c, uint32_t job)
{
	char *map = array_map(c);
	long long run;
	int attempt;
	for (unsigned long t = 0; map && !slurm_array_lookup(map, t, &run, &attempt); t++) {
		if (tracked(sb, job, (uint32_t)t) < sb->njobs)
			continue;
		char *name = slurm_job_name(rs->campaign, run, attempt);
		add_orphan(sb, name, job, (uint32_t)t);
		free(name);
	}
	free(map);
}

/* Find the jobs of this store left by an earlier orchestrator (queued,
   running or finished): our own jobs only, so this stays cheap on a busy
   cluster.  Live jobs of other stores in this directory are told of once. */
static int scan_orphans(struct slurm_backend *sb, const struct run_spec *rs, const char *key,
			struct perr *err)
{
	job_info_msg_t *msg = NULL;
	if (slurm_load_job_user(&msg, (uint32_t)getuid(), SHOW_ALL) != SLURM_SUCCESS) {
		int e = slurm_get_errno();
		if (slurm_transient(e))
			return 1;
		return perr_set(err, "cannot load slurm jobs: %s", slurm_errstr(e));
	}
	strmap_release(&sb->orphans);
	strmap_init(&sb->orphans);
	sb->norphans = 0;
	free(sb->scan_key);
	sb->scan_key = xstrdup(key);
	char *prefix = xasprintf("ps:%s:", rs->campaign ? rs->campaign : "");
	const char *dir = rs->campaign_dir ? rs->campaign_dir : "";
	uid_t uid = getuid();
	struct strmap arrays_seen;
	strmap_init(&arrays_seen);
	for (uint32_t k = 0; k < msg->record_count; k++) {
		const slurm_job_info_t *j = &msg->job_array[k];
		struct slurm_comment c;
		if (j->user_id != uid || !j->name || strncmp(j->name, prefix, strlen(prefix)) ||
		    slurm_comment_parse(j->comment, &c) || c.dir_len != strlen(dir) ||
		    strncmp(c.dir, dir, c.dir_len))
			continue;
		if (strcmp(c.store, rs->store_id ? rs->store_id : "-")) {
			foreign_job(sb, j);
			continue;
		}
		if (c.array[0]) {   /* an array: its map names its tasks' runs, read once */
			if (j->array_job_id && strmap_get(&arrays_seen, c.array) < 0) {
				strmap_put(&arrays_seen, c.array, 1);
				array_orphans(sb, rs, &c, j->array_job_id);
			}
			continue;
		}
		char *name = slurm_job_name(rs->campaign, c.run, c.attempt);
		int named = !strcmp(name, j->name);
		free(name);
		if (!named || tracked(sb, j->job_id, NO_TASK) < sb->njobs)
			continue;
		add_orphan(sb, j->name, j->job_id, NO_TASK);
	}
	strmap_release(&arrays_seen);
	free(prefix);
	slurm_free_job_info_msg(msg);
	sb->scanned = 1;
	return 0;
}

/* ---- backend operations --------------------------------------------------- */

static int sl_inflight(struct backend *b)
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

static int sl_capacity(struct backend *b)
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

static void submit_backoff(struct slurm_backend *sb)
{
	sb->submit_backoff = sb->submit_backoff > 0 ? fmin(sb->submit_backoff * 2, SUBMIT_BACKOFF_MAX)
						    : SUBMIT_BACKOFF_MIN;
	sb->submit_after = wall_now() + sb->submit_backoff;
}

/* An unrecorded attempt whose job ran and was purged: its record, if any. */
static int take_over_record(struct slurm_backend *sb, const struct run_spec *rs, char **backend_id,
			    enum attempt_fate *fate)
{
	struct run_result r;
	if (!result_from_record(rs->run_dir, rs->store_id, 0, NO_TASK, rs->attempt, rs->id, rs->timeout, 0, &r)) {
		*fate = FATE_UNKNOWN;
		return 0;
	}
	push_ready(sb, &r);
	*backend_id = xstrdup("job.done");
	return 1;
}

/*
 * The record of job (an array's task, or NO_TASK) in msg, or NULL; *pending
 * set when it is the array's one record of its tasks still pending.
 */
static const slurm_job_info_t *find_record(const job_info_msg_t *msg, uint32_t job, uint32_t task,
					   int *pending)
{
	*pending = 0;
	for (uint32_t k = 0; k < msg->record_count; k++) {
		const slurm_job_info_t *j = &msg->job_array[k];
		if (task == NO_TASK ? j->job_id == job && !j->array_job_id
				    : j->array_job_id == job && j->array_task_id == task)
			return j;
	}
	for (uint32_t k = 0; task != NO_TASK && k < msg->record_count; k++) {
		const slurm_job_info_t *j = &msg->job_array[k];
		if (j->array_job_id == job && j->array_task_id == NO_VAL &&
		    task_in_str(j->array_task_str, task)) {
			*pending = 1;
			return j;
		}
	}
	return NULL;
}

/*
 * The job of this attempt left by an earlier orchestrator, if any: tracked
 * when it is still queued or running, its result made ready when it has
 * finished.  1: taken over; 0: none; 2: the controller cannot tell now; -1.
 */
static int take_over(struct slurm_backend *sb, const struct run_spec *rs, char **backend_id,
		     enum attempt_fate *fate, struct perr *err)
{
	/* scanned for another campaign, store or directory: scan again */
	char *key = xasprintf("%s\n%s\n%s", rs->campaign ? rs->campaign : "",
			      rs->store_id ? rs->store_id : "", rs->campaign_dir ? rs->campaign_dir : "");
	int rescan = !sb->scanned || strcmp(sb->scan_key, key);
	int rc = rescan ? scan_orphans(sb, rs, key, err) : 0;
	free(key);
	if (rc > 0)
		submit_backoff(sb);
	if (rc)
		return rc > 0 ? 2 : -1;
	char *name = slurm_job_name(rs->campaign, rs->id, rs->attempt);
	int oi = strmap_get(&sb->orphans, name);
	free(name);
	*fate = FATE_FINISHED;   /* unless tracked below */
	if (oi < 0 || !sb->orphan_ids[oi].job)
		return take_over_record(sb, rs, backend_id, fate);
	uint32_t job = sb->orphan_ids[oi].job, task = sb->orphan_ids[oi].task;
	job_info_msg_t *msg = NULL;
	if (slurm_load_job(&msg, job, SHOW_ALL) != SLURM_SUCCESS) {
		int e = slurm_get_errno();
		if (e == ESLURM_INVALID_JOB_ID) {   /* purged meanwhile: only its record is left */
			sb->orphan_ids[oi].job = 0;
			return take_over_record(sb, rs, backend_id, fate);
		}
		if (slurm_transient(e))
			return 2;
		return perr_set(err, "cannot look up slurm job %u of run %lld: %s", job, rs->id,
				slurm_errstr(e));
	}
	sb->orphan_ids[oi].job = 0;
	int pending = 0;
	const slurm_job_info_t *j = find_record(msg, job, task, &pending);
	if (!j && task != NO_TASK) {   /* an array task purged before the rest: its record */
		slurm_free_job_info_msg(msg);
		return take_over_record(sb, rs, backend_id, fate);
	}
	if (j && !pending && job_finished(j->job_state)) {
		struct run_result r;
		job_result(j, rs->id, rs->timeout, rs->run_dir, &r);
		push_ready(sb, &r);
	} else {
		track(sb, rs, job, task);
		*fate = FATE_RUNNING;
	}
	slurm_free_job_info_msg(msg);
	*backend_id = job_text(job, task);
	return 1;
}

static int sl_recover(struct backend *b, const struct run_spec *rs, char **backend_id,
		      enum attempt_fate *fate, struct perr *err)
{
	struct slurm_backend *sb = b->priv;
	if (!rs->store_id || !*rs->store_id)
		return 0;   /* no store to own a job */
	int rc = take_over(sb, rs, backend_id, fate, err);
	if (rc >= 0 && sb->note) {
		perr_set(err, "%s", sb->note);
		free(sb->note);
		sb->note = NULL;
	}
	return rc;
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

static void queue_release(struct queued *q)
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
static void arrays_refused(struct slurm_backend *sb, const char *why)
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
static int sl_flush(struct backend *b, struct backend_flushed **out, struct perr *err)
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

static int sl_start(struct backend *b, const struct run_spec *rs, char **backend_id,
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

static int sl_wait(struct backend *b, double timeout, struct run_result *res, int max,
		   struct perr *err)
{
	struct slurm_backend *sb = b->priv;
	double deadline = wall_now() + (timeout > 0 ? timeout : 0);
	for (;;) {
		if (sb->nready > 0 && max > 0) {
			int n = (int)sb->nready < max ? (int)sb->nready : max;
			memcpy(res, sb->ready, (size_t)n * sizeof(*res));
			memmove(sb->ready, sb->ready + n, (sb->nready - (size_t)n) * sizeof(*res));
			sb->nready -= (size_t)n;
			return n;
		}
		double t = wall_now();
		if (sb->njobs == 0) {
			/* Nothing to wait for: do not let a caller spin while a
			   submission back-off runs, but return once it is over. */
			double until = fmin(deadline, sb->submit_after > t ? sb->submit_after : t);
			sleep_for(until - t);
			return 0;
		}
		if (t >= sb->next_sweep) {
			/* often until the first note: it ends the polling */
			sb->next_sweep = t + (sb->notes_live ? sb->notes_sweep : sb->poll_min);
			if (sweep_notes(sb))
				continue;
		}
		if (t >= sb->next_poll) {
			/* the notes first: what they tell is no news from the controller */
			if (sb->notes_live)
				sweep_notes(sb);
			if (poll_jobs(sb, err))
				return -1;
			if (sb->nready)
				continue;
			t = wall_now();
		}
		if (t >= deadline)
			return 0;
		sleep_for(fmin(fmin(sb->next_poll, sb->next_sweep), deadline) - t);
	}
}

/* A backend id: "JOB", or "JOB_TASK" of an array task (task NO_TASK for "JOB"). */
static int parse_job_id(const char *s, uint32_t *job, uint32_t *task)
{
	char *end;
	errno = 0;
	unsigned long v = s && *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : 0, t = NO_TASK;
	if (v && *end == '_' && end[1] >= '0' && end[1] <= '9') {
		t = strtoul(end + 1, &end, 10);
		if (t >= NO_VAL)
			return -1;
	}
	if (!v || errno || *end || v >= NO_VAL)
		return -1;
	*job = (uint32_t)v;
	*task = (uint32_t)t;
	return 0;
}

/* Whether job (task) is run rs's and not finished (legacy: see
   job_task_is_runs): 1; 0 when it is gone, finished or not rs's; -1 when the
   controller does not answer (slurm_get_errno says why). */
static int live_job_of(uint32_t job, uint32_t task, const struct run_spec *rs)
{
	job_info_msg_t *msg = NULL;
	if (slurm_load_job(&msg, job, SHOW_ALL) != SLURM_SUCCESS)
		return slurm_get_errno() == ESLURM_INVALID_JOB_ID ? 0 : -1;
	int pending;
	const slurm_job_info_t *j = find_record(msg, job, task, &pending);
	int live = j && (pending || !job_finished(j->job_state)) && job_task_is_runs(j, task, rs, 1);
	slurm_free_job_info_msg(msg);
	return live;
}

static int sl_cancel(struct backend *b, const struct run_spec *rs, const char *backend_id,
		     struct perr *err)
{
	struct slurm_backend *sb = b->priv;
	uint32_t job, task;
	if (parse_job_id(backend_id, &job, &task))
		return perr_set(err, "run %lld: '%s' is not a slurm job id", rs->id,
				backend_id ? backend_id : "");
	/* a job we track is ours; any other is killed only if it is rs's */
	int ours = tracked(sb, job, task) < sb->njobs;
	char *jt = job_text(job, task);
	double give_up = wall_now() + 60;
	for (double pause = 0.2;; pause = fmin(pause * 2, 5)) {
		int live = ours ? 1 : live_job_of(job, task, rs);
		if (live == 0) {
			free(jt);
			return 0;   /* nothing of this run's to cancel */
		}
		/* "JOB_TASK" kills that array task only */
		if (live > 0 && slurm_kill_job2(jt, SIGKILL, 0, NULL) == SLURM_SUCCESS)
			break;
		int e = slurm_get_errno();
		if (e == ESLURM_ALREADY_DONE || e == ESLURM_INVALID_JOB_ID)
			break;
		if (!slurm_transient(e) || wall_now() + pause > give_up) {
			perr_set(err, "cannot cancel slurm job %s of run %lld: %s", jt, rs->id,
				 slurm_errstr(e));
			free(jt);
			return -1;
		}
		sleep_for(pause);
	}
	free(jt);
	/* Still tracked: the cancelled state comes back through wait(). */
	if (ours) {
		sb->poll_interval = sb->poll_min;
		sb->next_poll = wall_now();
	}
	return 0;
}

static int adopt_from_record(struct slurm_backend *sb, const struct run_spec *rs, uint32_t job,
			     uint32_t task)
{
	struct run_result r;
	if (!result_from_record(rs->run_dir, rs->store_id, job, task, 0, rs->id, rs->timeout, 0, &r))
		return 0;
	push_ready(sb, &r);
	return 1;
}

static int sl_adopt(struct backend *b, const struct run_spec *rs, const char *backend_id,
		    enum attempt_fate *fate, struct perr *err)
{
	struct slurm_backend *sb = b->priv;
	uint32_t job, task;
	if (parse_job_id(backend_id, &job, &task) || !rs->store_id || !*rs->store_id)
		return 0;   /* no job was recorded (or no store owns one): nothing to adopt */
	if (tracked(sb, job, task) < sb->njobs)
		return 1;
	job_info_msg_t *msg = NULL;
	/* the array's records as loaded for its previous task: loading them
	   for each task made resuming N tasks of one array read N^2 records
	   (a task seen pending or running there is tracked and polled, one
	   seen finished has finished) */
	if (task != NO_TASK && sb->adopt_msg && sb->adopt_job == job &&
	    wall_now() - sb->adopt_at < ADOPT_REUSE)
		msg = sb->adopt_msg;
	double give_up = wall_now() + ADOPT_PATIENCE;
	for (double pause = 0.2; !msg; pause = fmin(pause * 2, 5)) {
		if (slurm_load_job(&msg, job, SHOW_ALL) == SLURM_SUCCESS) {
			if (task != NO_TASK) {
				if (sb->adopt_msg)
					slurm_free_job_info_msg(sb->adopt_msg);
				sb->adopt_msg = msg;
				sb->adopt_job = job;
				sb->adopt_at = wall_now();
			}
			break;
		}
		msg = NULL;
		int e = slurm_get_errno();
		if (e == ESLURM_INVALID_JOB_ID) {   /* purged: its record may say how it ended */
			*fate = FATE_FINISHED;
			return adopt_from_record(sb, rs, job, task);
		}
		if (!slurm_transient(e))
			return perr_set(err, "cannot look up slurm job %u of run %lld: %s", job, rs->id,
					slurm_errstr(e));
		if (wall_now() + pause > give_up)
			return perr_set(err, "slurm controller unreachable for %.0f s: %s",
					ADOPT_PATIENCE, slurm_errstr(e));
		sleep_for(pause);
	}
	int adopted = 0, pending;
	const slurm_job_info_t *j = find_record(msg, job, task, &pending);
	char *name = slurm_job_name(rs->campaign, rs->id, rs->attempt);
	/* the recorded id may be another store's job since (ids reused); an
	   array task's name is the array's, its map names the run */
	if (j && (task != NO_TASK || (j->name && !strcmp(j->name, name))) &&
	    job_task_is_runs(j, task, rs, 1)) {
		adopted = 1;
		if (!pending && job_finished(j->job_state)) {
			struct run_result r;
			job_result(j, rs->id, rs->timeout, rs->run_dir, &r);
			push_ready(sb, &r);
			*fate = FATE_FINISHED;
		} else {
			track(sb, rs, job, task);
			*fate = FATE_RUNNING;
		}
	} else if (!j && task != NO_TASK) {   /* the task was purged before the rest */
		*fate = FATE_FINISHED;
		adopted = adopt_from_record(sb, rs, job, task);
	}
	free(name);
	if (msg != sb->adopt_msg)
		slurm_free_job_info_msg(msg);
	return adopted;
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
