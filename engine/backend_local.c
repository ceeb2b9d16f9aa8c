/*
 * The local backend: runs on this machine with fork/exec, never a shell.
 * Each run is one process group (all its ranks), so a timeout or a cancel
 * kills everything it started.  The backend id is "PGID:STARTTIME" (the
 * leader's start time from /proc) so that a later orchestrator can tell a
 * leftover process from an unrelated one that reused the pid.
 */
#include "engine/backend.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include "placement/core_alloc.h"
#include "placement/launch.h"
#include "placement/policy.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct local_run {
	long long id;
	pid_t pgid;
	pid_t *pids;
	int npids, alive;
	int status;                 /* first non-zero exit status, else 0 */
	double t0;                  /* monotonic start */
	double started_at;          /* Unix start */
	double deadline;            /* monotonic, 0 = none */
	int timed_out;
	double timeout;
	char *reason;
	hwloc_bitmap_t cores;       /* the units the core allocator gave it */
};

struct local {
	int jobs;
	struct local_run *runs;
	int n;
	size_t alloc;
	int have_topo;              /* the host topology loaded: cores are allocated */
	struct topology topo;
	struct core_alloc cores;
};



/* Start time of a process (clock ticks since boot), or 0 if it is gone. */
static unsigned long long proc_starttime(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name may hold spaces: fields restart after the last ')' */
	char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	char state = 0;
	unsigned long long start = 0;
	/* after ')': state(3) ... starttime is field 22 */
	if (sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &state, &start) != 2)
		return 0;
	return state == 'Z' ? 0 : start;
}

static int local_capacity(struct backend *b)
{
	struct local *l = b->priv;
	return l->jobs - l->n;
}

static int local_inflight(struct backend *b)
{
	return ((struct local *)b->priv)->n;
}

#define ATTEMPT_FILE "local.attempt"

/*
 * In rank 0's child, before anything else: record "PGID:STARTTIME" in the
 * run directory, so that an orchestrator started after this one died finds
 * this attempt (recover) and kills it instead of running it twice.  Then,
 * if the orchestrator that forked us is gone already, do not start: it may
 * have died before the record existed, and its successor may have looked.
 */
static void record_attempt(const char *run_dir, pid_t parent)
{
	char *path = xasprintf("%s/" ATTEMPT_FILE, run_dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(path);
	if (fd >= 0) {
		char buf[64];
		int n = snprintf(buf, sizeof(buf), "%d:%llu\n", (int)getpid(), proc_starttime(getpid()));
		if (write(fd, buf, (size_t)n) != n)
			_exit(127);
		close(fd);
	}
	if (getppid() != parent)
		_exit(127);
}

/* In the child: redirect output, set the environment, exec.  Never returns. */
static void child_exec(const struct run_spec *rs, const struct launch_placement *lp, int rank,
		       int errfd)
{
	char *out = rank ? xasprintf("%s/rank-%d.stdout", rs->run_dir, rank)
			 : xasprintf("%s/stdout", rs->run_dir);
	char *errp = rank ? xasprintf("%s/rank-%d.stderr", rs->run_dir, rank)
			  : xasprintf("%s/stderr", rs->run_dir);
	int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int fi = open("/dev/null", O_RDONLY);
	if (fo < 0 || fe < 0 || fi < 0 || dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
		goto fail;
	close(fo);
	close(fe);
	close(fi);
	if (chdir(rs->workdir ? rs->workdir : rs->run_dir))
		goto fail;
	for (char *const *e = rs->env; e && *e; e++)
		putenv(xstrdup(*e));
	char buf[32];
	snprintf(buf, sizeof(buf), "%d", rank);
	setenv("PERFSWEEP_LOCAL_RANK", buf, 1);
	setenv("PERFSWEEP_RANK", buf, 1);
	snprintf(buf, sizeof(buf), "%d", rs->ranks);
	setenv("PERFSWEEP_NRANKS", buf, 1);
	snprintf(buf, sizeof(buf), "%d", rs->ranks_per_node > 0 ? rs->ranks_per_node : rs->ranks);
	setenv("PERFSWEEP_RANKS_PER_NODE", buf, 1);
	setenv("PERFSWEEP_RUN_DIR", rs->run_dir, 1);
	signal(SIGPIPE, SIG_DFL);
	if (rs->policy) {
		char **pre = launch_argv(rs->bind_path, lp);
		int n = 0, k = 0;
		while (rs->argv[n])
			n++;
		char **av = xcalloc((size_t)n + 16, sizeof(char *));
		for (char **a = pre; *a; a++)
			av[k++] = *a;
		for (int i = 0; i < n; i++)
			av[k++] = rs->argv[i];
		execv(rs->bind_path, av);
	} else {
		execvp(rs->argv[0], rs->argv);
	}
fail:;
	int e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void kill_run(struct local_run *r, int sig)
{
	if (r->pgid > 0)
		killpg(r->pgid, sig);
}

/*
 * The units run rs needs, taken into set: 0 taken, 1 not free now (wait),
 * -1 never fits this machine (err).
 */
static int take_cores(struct local *l, const struct run_spec *rs, hwloc_bitmap_t set, struct perr *err)
{
	int units = l->topo.nunits, ranks = rs->ranks > 0 ? rs->ranks : 1;
	if (!rs->policy)        /* unbound: a core per rank, at most all of them */
		return core_alloc_take(&l->cores, ranks < units ? ranks : units, 0, set);
	if (!strcmp(rs->policy, "explicit")) {
		struct policy p;
		policy_init(&p);
		int rc = rs->map ? policy_load_map(&p, rs->map, err)
				 : perr_set(err, "the explicit policy needs a placement map");
		for (int i = 0; rc == 0 && i < p.nsets; i++)
			hwloc_bitmap_or(set, set, p.sets[i]);
		policy_release(&p);
		if (rc)
			return -1;
		if (hwloc_bitmap_last(set) >= units)
			return perr_set(err, "the placement map names core %d, but this machine has %d usable "
					"cores (0-%d)", hwloc_bitmap_last(set), units, units - 1);
		return core_alloc_take_set(&l->cores, set);
	}
	int rpn = rs->ranks_per_node > 0 ? rs->ranks_per_node : ranks, cpr = 1;
	if (rs->cores_per_rank && policy_parse_cores_per_rank(rs->cores_per_rank, &cpr, err) < 0)
		return -1;
	long need = cpr == 0 ? units : (long)rpn * cpr;
	if (need > units)
		return perr_set(err, "%d ranks of %d core%s each need %ld cores, but this machine has %d "
				"usable cores", rpn, cpr, cpr == 1 ? "" : "s", need, units);
	return core_alloc_take(&l->cores, (int)need, !strcmp(rs->policy, "spread"), set);
}

static int spawn_ranks(struct local_run *r, const struct run_spec *rs,
		       const struct launch_placement *lp, struct perr *err);

static int local_start(struct backend *b, const struct run_spec *rs, char **backend_id,
		       struct perr *err)
{
	struct local *l = b->priv;
	hwloc_bitmap_t cores = hwloc_bitmap_alloc();
	char *within = NULL;
	int rc = l->have_topo ? take_cores(l, rs, cores, err) : 0;
	if (rc) {
		hwloc_bitmap_free(cores);
		return rc;
	}
	struct launch_placement lp = {
		.policy = rs->policy,
		.ranks_per_node = rs->ranks_per_node > 0 ? rs->ranks_per_node : rs->ranks,
		.cores_per_rank = rs->cores_per_rank,
		.map = rs->map,
	};
	if (l->have_topo && rs->policy && strcmp(rs->policy, "explicit") &&
	    hwloc_bitmap_list_asprintf(&within, cores) >= 0)
		lp.within = within;
	XGROW(l->runs, (size_t)l->n + 1, l->alloc);
	struct local_run *r = &l->runs[l->n];
	memset(r, 0, sizeof(*r));
	r->cores = cores;
	rc = spawn_ranks(r, rs, &lp, err);
	free(within);
	if (rc) {
		core_alloc_give(&l->cores, cores);
		hwloc_bitmap_free(cores);
		return rc;
	}
	*backend_id = xasprintf("%d:%llu", (int)r->pgid, proc_starttime(r->pgid));
	l->n++;
	return 0;
}

/* Fork and exec every rank of run r.  0, 1 (transient) or -1 (err). */
static int spawn_ranks(struct local_run *r, const struct run_spec *rs,
		       const struct launch_placement *lp, struct perr *err)
{
	r->id = rs->id;
	r->npids = rs->ranks > 0 ? rs->ranks : 1;
	r->pids = xcalloc((size_t)r->npids, sizeof(pid_t));
	r->t0 = mono_now();
	r->started_at = wall_now();
	r->timeout = rs->timeout;
	r->deadline = rs->timeout > 0 ? r->t0 + rs->timeout : 0;
	pid_t parent = getpid();
	for (int i = 0; i < r->npids; i++) {
		/* a close-on-exec pipe tells the parent whether exec worked */
		int pfd[2];
		if (pipe2(pfd, O_CLOEXEC)) {
			kill_run(r, SIGKILL);
			return perr_set(err, "pipe: %s", strerror(errno));
		}
		pid_t pid = fork();
		if (pid < 0) {
			close(pfd[0]);
			close(pfd[1]);
			kill_run(r, SIGKILL);
			/* reap what was started */
			for (int j = 0; j < i; j++)
				waitpid(r->pids[j], NULL, 0);
			free(r->pids);
			return 1;   /* transient: try again later */
		}
		if (pid == 0) {
			close(pfd[0]);
			setpgid(0, i == 0 ? 0 : r->pgid);
			if (i == 0)
				record_attempt(rs->run_dir, parent);
			child_exec(rs, lp, i, pfd[1]);
		}
		if (i == 0)
			r->pgid = pid;
		setpgid(pid, r->pgid);   /* both sides set it: no race */
		r->pids[i] = pid;
		r->alive++;
		close(pfd[1]);
		int e = 0;
		ssize_t got = read(pfd[0], &e, sizeof(e));
		close(pfd[0]);
		if (got == (ssize_t)sizeof(e)) {
			kill_run(r, SIGKILL);
			for (int j = 0; j <= i; j++)
				waitpid(r->pids[j], NULL, 0);
			free(r->pids);
			const char *what = rs->policy ? rs->bind_path : rs->argv[0];
			return perr_set(err, "cannot execute '%s': %s", what, strerror(e));
		}
	}
	return 0;
}

static void finish(struct local_run *r, struct run_result *res)
{
	memset(res, 0, sizeof(*res));
	res->id = r->id;
	res->started_at = r->started_at;
	res->wall = mono_now() - r->t0;
	res->ended_at = r->started_at + res->wall;
	res->exit_status = r->status;
	if (r->timed_out) {
		res->failed = 1;
		res->exit_status = 128 + SIGKILL;
		snprintf(res->reason, sizeof(res->reason), "timed out after %g s", r->timeout);
	} else if (r->status) {
		res->failed = 1;
		if (r->status > 128)
			snprintf(res->reason, sizeof(res->reason), "killed by signal %d (%s)",
				 r->status - 128, strsignal(r->status - 128));
		else
			snprintf(res->reason, sizeof(res->reason), "exit status %d", r->status);
	}
	free(r->pids);
}

static int local_wait(struct backend *b, double timeout, struct run_result *res, int max,
		      struct perr *err)
{
	(void)err;
	struct local *l = b->priv;
	double end = mono_now() + timeout;
	int got = 0;
	for (;;) {
		for (int i = 0; i < l->n && got < max;) {
			struct local_run *r = &l->runs[i];
			for (int k = 0; k < r->npids; k++) {
				int st;
				if (r->pids[k] <= 0 || waitpid(r->pids[k], &st, WNOHANG) != r->pids[k])
					continue;
				r->pids[k] = -1;
				r->alive--;
				int code = WIFEXITED(st) ? WEXITSTATUS(st)
					 : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
				if (code && !r->status)
					r->status = code;
			}
			if (r->alive > 0 && r->deadline > 0 && mono_now() > r->deadline && !r->timed_out) {
				r->timed_out = 1;
				kill_run(r, SIGKILL);
			}
			if (r->alive == 0) {
				/* the group may hold grandchildren the ranks left behind */
				kill_run(r, SIGKILL);
				finish(r, &res[got++]);
				core_alloc_give(&l->cores, r->cores);
				hwloc_bitmap_free(r->cores);
				l->runs[i] = l->runs[--l->n];
				continue;
			}
			i++;
		}
		if (got || mono_now() >= end || l->n == 0)
			return got;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* Parse "PGID:STARTTIME"; returns the pgid if that process is still the same one. */
static pid_t live_group(const char *backend_id)
{
	int pgid;
	unsigned long long start;
	if (!backend_id || sscanf(backend_id, "%d:%llu", &pgid, &start) != 2 || pgid <= 1)
		return 0;
	unsigned long long now_start = proc_starttime(pgid);
	return (now_start && now_start == start) ? pgid : 0;
}

static int local_cancel(struct backend *b, const struct run_spec *rs, const char *backend_id,
			struct perr *err)
{
	(void)err;
	struct local *l = b ? b->priv : NULL;
	for (int i = 0; l && i < l->n; i++)
		if (l->runs[i].id == rs->id) {
			kill_run(&l->runs[i], SIGKILL);
			return 0;
		}
	pid_t pg = live_group(backend_id);
	if (pg > 0)
		killpg(pg, SIGKILL);
	return 0;
}

/*
 * A local run cannot be waited for by a new process: kill what is left of
 * it and have the runner execute it again.
 */
static int local_adopt(struct backend *b, const struct run_spec *rs, const char *backend_id,
		       struct perr *err)
{
	(void)b;
	(void)rs;
	(void)err;
	pid_t pg = live_group(backend_id);
	if (pg > 0)
		killpg(pg, SIGKILL);
	return 0;
}

/*
 * Before a fresh attempt: an earlier orchestrator may have started this run
 * and died before recording it.  Its rank 0 recorded itself in the run
 * directory (record_attempt): kill what is left of it.  Always 0: the run
 * starts afresh.
 */
static int local_recover(struct backend *b, const struct run_spec *rs, char **backend_id,
			 struct perr *err)
{
	(void)b;
	(void)backend_id;
	(void)err;
	char *path = xasprintf("%s/" ATTEMPT_FILE, rs->run_dir);
	FILE *f = fopen(path, "r");
	free(path);
	char id[64] = "";
	if (f) {
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		fclose(f);
	}
	pid_t pg = live_group(id);
	if (pg > 0)
		killpg(pg, SIGKILL);
	return 0;
}

static void local_free(struct backend *b)
{
	struct local *l = b->priv;
	for (int i = 0; i < l->n; i++) {
		kill_run(&l->runs[i], SIGKILL);
		for (int k = 0; k < l->runs[i].npids; k++)
			if (l->runs[i].pids[k] > 0)
				waitpid(l->runs[i].pids[k], NULL, 0);
		free(l->runs[i].pids);
		hwloc_bitmap_free(l->runs[i].cores);
	}
	if (l->have_topo) {
		core_alloc_release(&l->cores);
		topology_release(&l->topo);
	}
	free(l->runs);
	free(l);
	free(b);
}

static const struct backend_ops local_ops = {
	.name = "local",
	.capacity = local_capacity,
	.start = local_start,
	.wait = local_wait,
	.cancel = local_cancel,
	.adopt = local_adopt,
	.recover = local_recover,
	.inflight = local_inflight,
	.free = local_free,
};

int backend_local_new(struct backend **out, int jobs, struct perr *err)
{
	if (jobs < 1)
		return perr_set(err, "--jobs must be at least 1, not %d", jobs);
	struct backend *b = xcalloc(1, sizeof(*b));
	struct local *l = xcalloc(1, sizeof(*l));
	l->jobs = jobs;
	struct perr terr;
	if (topology_load(&l->topo, NULL, NULL, &terr) == 0) {
		l->have_topo = 1;
		core_alloc_init(&l->cores, &l->topo);
	}
	b->ops = &local_ops;
	b->priv = l;
	*out = b;
	return 0;
}

int backend_local_cancel_id(const char *backend_id)
{
	pid_t pg = live_group(backend_id);
	if (pg <= 0)
		return 0;
	killpg(pg, SIGKILL);
	return 1;
}
