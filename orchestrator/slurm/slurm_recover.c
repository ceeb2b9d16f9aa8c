/*
 * The SLURM backend, finding jobs again: whose job a record is, the jobs
 * of this store nobody tracks (orphans), taking over a submitted attempt's
 * job, recover(), cancel() and adopt().
 */
#include "orchestrator/slurm/backend_slurm_priv.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include <math.h>

/*
 * Whose job j (task: of an array job, its task; else NO_TASK) is for run
 * spec rs: 1 when its comment carries rs's store id, campaign directory
 * and run id (with legacy set, also the comment of a perfsweep before
 * store ids naming that directory and run: a job the store recorded before
 * it got its id), or, of an array task, when the array's comment carries
 * the store id and directory and its map names rs's run (and attempt, when
 * rs has one); else 0.
 */
int job_task_is_runs(const slurm_job_info_t *j, uint32_t task, const struct run_spec *rs,
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
char *array_map(const struct slurm_comment *c)
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

int sl_recover(struct backend *b, const struct run_spec *rs, char **backend_id,
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

int sl_cancel(struct backend *b, const struct run_spec *rs, const char *backend_id,
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

int sl_adopt(struct backend *b, const struct run_spec *rs, const char *backend_id,
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
