/*
 * The SLURM backend, polling: a job's state and result (its record, its
 * job.done), the poll's pace, the job notes in runs/.events, the
 * controller's job lists, and wait().  backend_slurm.c says how.
 */
#include "orchestrator/slurm/backend_slurm_priv.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include <math.h>
#include <sys/stat.h>
#include <dirent.h>

/* A job is finished once its base state is past SUSPENDED: the batch script
   has ended and its exit code is set.  COMPLETING only says the node has not
   yet confirmed its epilog; after a controller restart that confirmation can
   take a minute, and the result does not depend on it. */
int job_finished(uint32_t state)
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
void job_result(const slurm_job_info_t *j, long long run, double timeout,
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

void push_ready(struct slurm_backend *sb, const struct run_result *r)
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
int result_from_record(const char *run_dir, const char *store, uint32_t job, uint32_t task,
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
int task_in_str(const char *str, uint32_t task)
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

int sl_wait(struct backend *b, double timeout, struct run_result *res, int max,
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
