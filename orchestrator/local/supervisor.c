/* The local run's supervisor: the process, its notes, and who it is. */
#include "orchestrator/local/supervisor.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/local/mpi_world.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sched.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What /proc/PID/stat says of a process. */
struct proc_info {
	pid_t pid;
	char state;
	pid_t ppid, session;
	unsigned long long starttime;   /* clock ticks after boot */
};

static int proc_info(pid_t pid, struct proc_info *pi)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* the command name may hold spaces: fields restart after the last ')' */
	char *p = strrchr(buf, ')');
	int ppid, session;
	/* after ')': state(3) ppid(4) pgrp session(6) ... starttime(22) */
	if (!p || sscanf(p + 2, "%c %d %*d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 &pi->state, &ppid, &session, &pi->starttime) != 4)
		return -1;
	pi->pid = pid;
	pi->ppid = ppid;
	pi->session = session;
	return 0;
}

int supervisor_alive(pid_t pid, unsigned long long starttime)
{
	struct proc_info pi;
	return pid > 1 && proc_info(pid, &pi) == 0 && pi.state != 'Z' && pi.starttime == starttime;
}

int supervisor_parse_id(const char *id, pid_t *pid, unsigned long long *starttime)
{
	int p, n = 0;
	if (!id || sscanf(id, "%d:%llu%n", &p, starttime, &n) != 2 || id[n] || p <= 1)
		return -1;
	*pid = p;
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct proc_info *)a)->pid, y = ((const struct proc_info *)b)->pid;
	return (x > y) - (x < y);
}

/* Every process /proc lists, sorted by pid (*n of them; caller frees). */
static struct proc_info *all_procs(int *n)
{
	struct proc_info *v = NULL;
	size_t alloc = 0;
	*n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		struct proc_info pi;
		if (*end || pid <= 1 || proc_info((pid_t)pid, &pi))
			continue;
		XGROW(v, (size_t)*n + 1, alloc);
		v[(*n)++] = pi;
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(v, (size_t)*n, sizeof(*v), by_pid);
	return v;
}

/* Whether p descends from root (0: none), by the parents /proc gave. */
static int descends(const struct proc_info *v, int n, const struct proc_info *p, pid_t root)
{
	for (int hops = 0; root > 1 && p && hops < 4096; hops++) {
		if (p->ppid == root)
			return 1;
		struct proc_info key = { .pid = p->ppid };
		p = p->ppid > 1 ? bsearch(&key, v, (size_t)n, sizeof(*v), by_pid) : NULL;
	}
	return 0;
}

/*
 * SIGKILL every live process of session sid and every descendant of root
 * (0: none), but sid itself when spare; a few passes for what forks
 * meanwhile.  A supervisor is its run's child subreaper
 * (PR_SET_CHILD_SUBREAPER), so what a rank started in a session of its own
 * (setsid) and left behind stays its descendant and dies too.  How many
 * were signalled.
 */
static int kill_procs(pid_t sid, pid_t root, int spare)
{
	/* a killed process may not be a zombie yet at the next pass: it counts once */
	pid_t *seen = NULL;
	int total = 0;
	for (int pass = 0; pass < 4; pass++) {
		int n, fresh = 0;
		struct proc_info *v = all_procs(&n);
		for (int i = 0; i < n; i++) {
			const struct proc_info *p = &v[i];
			if (p->state == 'Z' || (spare && p->pid == sid) || p->pid == getpid() ||
			    (p->session != sid && !descends(v, n, p, root)) || kill(p->pid, SIGKILL))
				continue;
			int k = 0;
			while (k < total && seen[k] != p->pid)
				k++;
			if (k == total) {
				seen = xrealloc(seen, sizeof(*seen) * (size_t)(total + 1));
				seen[total++] = p->pid;
				fresh++;
			}
		}
		free(v);
		if (!fresh)
			break;
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	free(seen);
	return total;
}

/* In the supervisor, everything of its run: its session and its descendants. */
static void kill_ranks_left(void)
{
	kill_procs(getpid(), getpid(), 1);
}

/* Whether the supervisor has a child, live or a zombie. */
static int has_child(void)
{
	siginfo_t si;
	return !(waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD);
}

/* The orphans of the ranks, ours as their subreaper. */
static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int supervisor_kill_run(pid_t pid, unsigned long long starttime, int spare)
{
	struct proc_info pi;
	if (pid <= 1)
		return 0;
	int alive = 0;
	if (proc_info(pid, &pi) == 0) {
		if (pi.starttime != starttime)
			return 0;   /* the pid is another process's now */
		if (pi.state != 'Z' && pi.session != pid)
			return killpg(pid, SIGKILL) == 0;   /* a run from before supervisors */
		alive = pi.state != 'Z';
	}
	/* a session outlives its leader: the number is not reused while it has
	   members; a live supervisor's descendants are its run's too */
	return kill_procs(pid, alive ? pid : 0, spare);
}

int supervisor_attempt(const struct run_spec *rs)
{
	return rs->attempt > 0 ? rs->attempt : 1;
}

/* ---- the notes ---- */

/*
 * The last note read or written, kept by its file's identity: a run's end
 * is read by the backend, the usage and the census in turn, a supervisor
 * reads its start note back before it notes the end, and a note is
 * replaced by a rename, never written in place, so the same device,
 * inode, size and change time are the same text.
 */
struct note_memo {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec ctime;
	json_t *o;
};
static _Thread_local struct note_memo memo;

static int memo_same(const struct note_memo *m, const char *path, const struct stat *st)
{
	return m->path && !strcmp(m->path, path) && m->dev == st->st_dev && m->ino == st->st_ino &&
	       m->size == st->st_size && m->ctime.tv_sec == st->st_ctim.tv_sec &&
	       m->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

void supervisor_forget_notes(const char *run_dir)
{
	size_t n = strlen(run_dir);
	if (memo.path && !strncmp(memo.path, run_dir, n) && memo.path[n] == '/') {
		json_decref(memo.o);
		free(memo.path);
		memset(&memo, 0, sizeof(memo));
	}
}

static void memo_keep(char *path, const struct stat *st, json_t *o)
{
	json_decref(memo.o);
	free(memo.path);
	memo = (struct note_memo){ .path = path, .dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
				   .ctime = st->st_ctim, .o = json_incref(o) };
}

static int write_note(const char *run_dir, const char *name, json_t *o)
{
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	char *path = xasprintf("%s/%s", run_dir, name);
	int r = text ? fs_write_file_as(path, text, strlen(text), FS_ATOMIC_NOSYNC) : -1;
	int e = errno;
	struct stat st;
	if (r == 0 && stat(path, &st) == 0)
		memo_keep(path, &st, o);
	else
		free(path);
	free(text);
	json_decref(o);
	errno = e;
	return r;
}

static int write_start(const char *run_dir, const struct sv_start *s)
{
	json_t *o = json_object();
	char id[64];
	snprintf(id, sizeof(id), "%d:%llu", (int)s->pid, s->starttime);
	json_object_set_new(o, "attempt", json_integer(s->attempt));
	json_object_set_new(o, "store", json_string(s->store));
	json_object_set_new(o, "supervisor", json_string(id));
	json_object_set_new(o, "started", json_real(s->started));
	json_object_set_new(o, "cores", json_string(s->cores));
	return write_note(run_dir, SV_START_NOTE, o);
}

/* The end note, with the census's object (NULL: none) as its "census". */
static int write_end(const char *run_dir, const struct sv_end *e, json_t *census)
{
	json_t *o = json_object();
	json_object_set_new(o, "attempt", json_integer(e->attempt));
	json_object_set_new(o, "store", json_string(e->store));
	json_object_set_new(o, "supervisor", json_string(e->supervisor));
	json_object_set_new(o, "exit", json_integer(e->exit_status));
	json_object_set_new(o, "signal", json_integer(e->signal));
	json_object_set_new(o, "timed_out", json_boolean(e->timed_out));
	json_object_set_new(o, "timeout", json_real(e->timeout));
	json_object_set_new(o, "error", e->error[0] ? json_string(e->error) : json_null());
	json_object_set_new(o, "ranks", json_integer(e->ranks));
	json_object_set_new(o, "started", json_real(e->started));
	json_object_set_new(o, "ended", json_real(e->ended));
	json_object_set_new(o, "wall", json_real(e->wall));
	json_object_set_new(o, "utime", json_real(e->utime));
	json_object_set_new(o, "stime", json_real(e->stime));
	json_object_set_new(o, "maxrss_kb", json_integer(e->maxrss_kb));
	json_object_set_new(o, "nvcsw", json_integer(e->nvcsw));
	json_object_set_new(o, "nivcsw", json_integer(e->nivcsw));
	if (census)
		json_object_set(o, "census", census);
	return write_note(run_dir, SV_END_NOTE, o);
}

static json_t *read_note(const char *run_dir, const char *name)
{
	char *path = xasprintf("%s/%s", run_dir, name);
	struct stat st;
	if (memo.o && !strcmp(memo.path, path) && stat(path, &st) == 0 && memo_same(&memo, path, &st)) {
		free(path);
		return json_incref(memo.o);
	}
	struct strbuf sb;
	const char *why;
	strbuf_init(&sb);
	/* the run's program may have put anything there */
	int fd = fs_open_regular(path, 0, &why);
	json_t *o = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && fs_read_fd_bounded(&sb, fd, 0, NULL, &why) == 0)
		o = json_loadb(sb.buf, sb.len, 0, NULL);
	if (fd >= 0)
		close(fd);
	strbuf_release(&sb);
	if (o && (!json_is_object(o) || !json_is_integer(json_object_get(o, "attempt")))) {
		json_decref(o);
		o = NULL;
	}
	if (o)
		memo_keep(path, &st, o);
	else
		free(path);
	return o;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : 0;
}

static void str(json_t *o, const char *key, char *buf, size_t size)
{
	const char *v = json_string_value(json_object_get(o, key));
	snprintf(buf, size, "%s", v ? v : "");
}

int supervisor_read_start(const char *run_dir, struct sv_start *s)
{
	memset(s, 0, sizeof(*s));
	json_t *o = read_note(run_dir, SV_START_NOTE);
	if (!o)
		return -1;
	s->attempt = (int)num(o, "attempt");
	str(o, "store", s->store, sizeof(s->store));
	s->started = num(o, "started");
	str(o, "cores", s->cores, sizeof(s->cores));
	int r = supervisor_parse_id(json_string_value(json_object_get(o, "supervisor")), &s->pid,
				    &s->starttime);
	json_decref(o);
	return r;
}

int supervisor_read_end(const char *run_dir, struct sv_end *e)
{
	memset(e, 0, sizeof(*e));
	json_t *o = read_note(run_dir, SV_END_NOTE);
	if (!o)
		return -1;
	e->attempt = (int)num(o, "attempt");
	str(o, "store", e->store, sizeof(e->store));
	str(o, "supervisor", e->supervisor, sizeof(e->supervisor));
	e->exit_status = (int)num(o, "exit");
	e->signal = (int)num(o, "signal");
	e->timed_out = json_is_true(json_object_get(o, "timed_out"));
	e->timeout = num(o, "timeout");
	str(o, "error", e->error, sizeof(e->error));
	e->ranks = (int)num(o, "ranks");
	e->started = num(o, "started");
	e->ended = num(o, "ended");
	e->wall = num(o, "wall");
	e->utime = num(o, "utime");
	e->stime = num(o, "stime");
	e->maxrss_kb = (long)num(o, "maxrss_kb");
	e->nvcsw = (long)num(o, "nvcsw");
	e->nivcsw = (long)num(o, "nivcsw");
	json_decref(o);
	return 0;
}

/* A per-CPU array of the census note, n entries (missing ones 0): NULL when null or not an array. */
static double *per_cpu_read(json_t *a, int n)
{
	if (!json_is_array(a))
		return NULL;
	double *v = xcalloc((size_t)n + 1, sizeof(double));
	for (size_t i = 0; i < json_array_size(a) && i < (size_t)n; i++)
		v[i] = json_is_number(json_array_get(a, i)) ? json_number_value(json_array_get(a, i)) : 0;
	return v;
}

static void census_lists(json_t *o, struct sv_census *c)
{
	json_t *ranks = json_object_get(o, "ranks"), *causes = json_object_get(o, "causes"), *x;
	size_t i;
	c->ranks = xcalloc(json_array_size(ranks) + 1, sizeof(*c->ranks));
	json_array_foreach(ranks, i, x)
		c->ranks[c->nranks++] = (struct census_rank){
			.rank = (int)num(x, "rank"), .run_delay = num(x, "run_delay"), .cpu = num(x, "cpu"),
		};
	c->causes = xcalloc(json_array_size(causes) + 1, sizeof(*c->causes));
	json_array_foreach(causes, i, x) {
		struct census_cause *k = &c->causes[c->ncauses++];
		k->pid = (long)num(x, "pid");
		str(x, "comm", k->comm, sizeof(k->comm));
		k->cpu = (int)num(x, "cpu");
		k->seconds = num(x, "seconds");
	}
}

int supervisor_read_census(const char *run_dir, struct sv_census *c)
{
	memset(c, 0, sizeof(*c));
	c->pressure = NAN;
	/* the end note's, or (a run ended before the census went into it) its own note */
	json_t *end = read_note(run_dir, SV_END_NOTE), *o = json_object_get(end, "census");
	if (json_is_object(o) && json_is_integer(json_object_get(o, "attempt")))
		json_incref(o);
	else
		o = read_note(run_dir, SV_CENSUS_NOTE);
	json_decref(end);
	if (!o)
		return -1;
	c->attempt = (int)num(o, "attempt");
	c->wall = num(o, "wall");
	str(o, "cpus", c->cpus, sizeof(c->cpus));
	c->samples = (int)num(o, "samples");
	c->cost = num(o, "cost");
	c->quiet_wait = num(o, "quiet_wait");
	c->quiet_gave_up = json_is_true(json_object_get(o, "quiet_gave_up"));
	str(o, "quiet_cause", c->quiet_cause, sizeof(c->quiet_cause));
	c->schedstat = json_is_true(json_object_get(o, "schedstat"));
	json_t *p = json_object_get(o, "pressure");
	c->pressure = json_is_number(p) ? json_number_value(p) : NAN;
	c->ncpus = (int)json_array_size(json_object_get(o, "foreign"));
	c->foreign = per_cpu_read(json_object_get(o, "foreign"), c->ncpus);
	c->steal = per_cpu_read(json_object_get(o, "steal"), c->ncpus);
	c->busy = per_cpu_read(json_object_get(o, "busy"), c->ncpus);
	c->ours = per_cpu_read(json_object_get(o, "ours"), c->ncpus);
	c->bind = per_cpu_read(json_object_get(o, "bind"), c->ncpus);
	census_lists(o, c);
	json_decref(o);
	return 0;
}

void sv_census_release(struct sv_census *c)
{
	free(c->foreign);
	free(c->steal);
	free(c->busy);
	free(c->ours);
	free(c->bind);
	free(c->ranks);
	free(c->causes);
	memset(c, 0, sizeof(*c));
}

/* ---- the supervisor process ---- */

/*
 * What the supervisor tells the orchestrator of each run: that it ended,
 * before which only what went wrong on the way, in this order: its start
 * note could not be written (noted), its ranks could not start (started).
 * One report per run that goes well: each wakes the orchestrator.
 */
enum sv_stage { SV_NOTED = 1, SV_STARTED, SV_ENDED };
struct sv_msg {
	int stage;
	int err;                    /* errno: the stage failed */
	int where;                  /* enum child_stage of a rank that could not start */
	int transient;              /* and trying later may work */
	int code;                   /* ended: 0 noted, or SV_EXIT_* (or 1: it never ran) */
	unsigned long long starttime;   /* the supervisor's */
};

/* What the supervisor works from for one run (the job it was sent). */
struct sv_args {
	const struct run_spec *rs;
	const struct launch_placement *lp;   /* NULL: no policy */
	const struct sv_cores *cores;
	pid_t orchestrator;
	int up, down;               /* pipes to and from the orchestrator */
};

/* A dead orchestrator: EPIPE, nothing to do. */
static void send_msg(int fd, const struct sv_msg *m)
{
	sv_pipe_write(fd, m, sizeof(*m));
}

static void exec_error(const struct run_spec *rs, int e, int where, char *buf, size_t size)
{
	const char *what = rs->mpi ? MPI_WORLD_LAUNCHER : rs->policy ? rs->bind_path : rs->argv[0];
	if (where == CHILD_DIR)
		snprintf(buf, size, "cannot enter the working directory '%s': %s",
			 rs->workdir ? rs->workdir : rs->run_dir, strerror(e));
	else if (where == CHILD_REDIRECT)
		snprintf(buf, size, "cannot write the output files in '%s': %s", rs->run_dir, strerror(e));
	else if (rs->mpi && e == ENOENT)
		snprintf(buf, size, "cannot execute '%s': %s; backend.mpi = \"%s\" needs it (package %s)",
			 what, strerror(e), rs->mpi, MPI_WORLD_PACKAGE);
	else
		snprintf(buf, size, "cannot execute '%s': %s", what, strerror(e));
}

/* The argv of every rank: perfsweep-bind's line first when there is a policy. */
static char **rank_argv(const struct sv_args *a, int *own)
{
	const struct run_spec *rs = a->rs;
	char **pre = a->lp ? launch_argv(rs->bind_path, a->lp) : NULL;
	int n = 0, k = 0, npre = 0;
	while (rs->argv[n])
		n++;
	while (pre && pre[npre])
		npre++;
	char **av = xcalloc((size_t)(n + npre + 1), sizeof(char *));
	for (int i = 0; i < npre; i++)
		av[k++] = pre[i];
	for (int i = 0; i < n; i++)
		av[k++] = rs->argv[i];
	free(pre);   /* its strings live in av now: av[0..*own) */
	*own = npre;
	return av;
}

/*
 * The environment rank i gets (NULL-terminated; free with env_free): the
 * run's own, then ours, which win.  A world's ranks (i < 0) take their rank
 * from mpirun (OMPI_COMM_WORLD_*).
 */
static char **rank_env(const struct run_spec *rs, int i)
{
	int nenv = 0, k;
	while (rs->env && rs->env[nenv])
		nenv++;
	char **env = xcalloc((size_t)nenv + 6, sizeof(char *));
	for (k = 0; k < nenv; k++)
		env[k] = xstrdup(rs->env[k]);
	if (i >= 0) {
		env[k++] = xasprintf("PERFSWEEP_LOCAL_RANK=%d", i);
		env[k++] = xasprintf("PERFSWEEP_RANK=%d", i);
	}
	env[k++] = xasprintf("PERFSWEEP_NRANKS=%d", rs->ranks);
	env[k++] = xasprintf("PERFSWEEP_RANKS_PER_NODE=%d",
			     rs->ranks_per_node > 0 ? rs->ranks_per_node : rs->ranks);
	env[k++] = xasprintf("PERFSWEEP_RUN_DIR=%s", rs->run_dir);
	return env;
}

static void env_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

/* Start rank i of a->rs as cps[i] (with a world: mpirun, i 0): 0, or -1
   (errno, cps[i].exec_errno). */
static int start_rank(const struct sv_args *a, char **argv, char **env, struct child_process *cps,
		      int i)
{
	const struct run_spec *rs = a->rs;
	char *out = i ? xasprintf("%s/rank-%d.stdout", rs->run_dir, i) : xasprintf("%s/stdout", rs->run_dir);
	char *err = i ? xasprintf("%s/rank-%d.stderr", rs->run_dir, i) : xasprintf("%s/stderr", rs->run_dir);
	struct child_process *cp = &cps[i];
	memset(cp, 0, sizeof(*cp));
	cp->argv = argv;
	cp->env = env;
	cp->dir = rs->workdir ? rs->workdir : rs->run_dir;
	cp->in = "/dev/null";
	cp->out = out;
	cp->err = err;
	/* one process group for all ranks; they die with their supervisor */
	cp->new_group = i == 0;
	cp->join_group = i ? cps[0].pid : 0;
	cp->pdeathsig = SIGKILL;
	int r = start_command(cp);
	int e = errno;
	free(out);
	free(err);
	errno = e;
	return r;
}

/* How many of the ranks cps[0..n) have not been reaped. */
static int live_ranks(const struct child_process *cps, int n)
{
	int live = 0;
	for (int i = 0; i < n; i++)
		live += !cps[i].finished;
	return live;
}

/* Whether every rank of cps[0..n) has ended by the monotonic time until
   (never past the run's timeout, which wait_ranks keeps). */
static int ranks_end_by(const struct run_spec *rs, struct child_process *cps, int n, double t0, double until)
{
	struct child_process **ptr = xcalloc((size_t)n, sizeof(*ptr));
	for (int i = 0; i < n; i++)
		ptr[i] = &cps[i];
	if (rs->timeout > 0 && t0 + rs->timeout < until)
		until = t0 + rs->timeout;
	int live;
	for (;;) {
		live = live_ranks(cps, n);
		double left = until - mono_now();
		if (!live || left <= 0 || wait_commands(ptr, n, left) < 0)
			break;
	}
	free(ptr);
	return !live;
}

/* A world past its timeout has this long after SIGTERM before SIGKILL. */
#define WORLD_TERM_GRACE 3.0

/* Wait for every rank, killing the run at its timeout; fill e. */
static void wait_ranks(const struct run_spec *rs, struct child_process *cps, int n, double t0,
		       struct sv_end *e)
{
	struct child_process **ptr = xcalloc((size_t)n, sizeof(*ptr));
	for (int i = 0; i < n; i++)
		ptr[i] = &cps[i];
	double deadline = rs->timeout > 0 ? t0 + rs->timeout : 0;
	int killed = 0;
	for (;;) {
		if (!live_ranks(cps, n))
			break;
		double left = -1;
		if (deadline > 0 && !killed) {
			left = deadline - mono_now();
			if (left <= 0 && rs->mpi && !e->timed_out) {
				/* mpirun ends its world and removes its shared memory
				   segments on SIGTERM; SIGKILL would leave them */
				e->timed_out = 1;
				kill(cps[0].pid, SIGTERM);
				deadline = mono_now() + WORLD_TERM_GRACE;
				left = WORLD_TERM_GRACE;
			} else if (left <= 0) {
				e->timed_out = killed = 1;
				kill_ranks_left();
				left = -1;
			}
		}
		if (wait_commands(ptr, n, left) < 0)
			break;   /* ECHILD: nothing left to wait for */
	}
	free(ptr);
	e->wall = mono_now() - t0;
	e->timeout = rs->timeout;
	for (int i = 0; i < n; i++) {
		const struct child_process *cp = &cps[i];
		int code = cp->finished ? command_exit_code(cp->status) : -1;
		if (code && !e->exit_status) {
			e->exit_status = code;
			e->signal = cp->finished && WIFSIGNALED(cp->status) ? WTERMSIG(cp->status) : 0;
		}
		e->utime += (double)cp->ru.ru_utime.tv_sec + cp->ru.ru_utime.tv_usec / 1e6;
		e->stime += (double)cp->ru.ru_stime.tv_sec + cp->ru.ru_stime.tv_usec / 1e6;
		if (cp->ru.ru_maxrss > e->maxrss_kb)
			e->maxrss_kb = cp->ru.ru_maxrss;
		e->nvcsw += cp->ru.ru_nvcsw;
		e->nivcsw += cp->ru.ru_nivcsw;
	}
}

/*
 * The census's sampler: a thread of the supervisor, so that sampling never
 * delays noticing a rank's end (the run's wall time), on the CPUs the run
 * was not given when the machine has any.
 */
struct sampler {
	struct census *c;
	const char *cpus;
	pid_t orchestrator;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	double first;               /* seconds before the first sample */
	int stop, running, begun;
};

/* Leave the run's CPUs to its ranks (this thread only). */
static void move_off(const char *cpus)
{
	int *v;
	int n = census_cpus_of(cpus, &v);
	cpu_set_t set;
	if (n > 0 && sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (int i = 0; i < n; i++)
			if (v[i] < CPU_SETSIZE)
				CPU_CLR(v[i], &set);
		if (CPU_COUNT(&set) > 0)
			sched_setaffinity(0, sizeof(set), &set);
	}
	free(v);
}

static void *sample_loop(void *arg)
{
	struct sampler *s = arg;
	move_off(s->cpus);
	/* the first sample CENSUS_FIRST_SAMPLE in, not as the ranks start: a
	   supervisor that just used CPU time would make its children wait for
	   theirs, and a run shorter than that needs no reading of /proc */
	double wait = s->first;
	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		struct timespec due;
		clock_gettime(CLOCK_REALTIME, &due);
		long ns = due.tv_nsec + (long)(wait * 1e9);
		wait = CENSUS_INTERVAL;
		due.tv_sec += ns / 1000000000L;
		due.tv_nsec = ns % 1000000000L;
		if (pthread_cond_timedwait(&s->wake, &s->lock, &due) == ETIMEDOUT && !s->stop) {
			pthread_mutex_unlock(&s->lock);
			census_sample(s->c);
			pthread_mutex_lock(&s->lock);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* The census of a run whose ranks just started: its thread comes later
   (sampler_thread), and only if they outlive the first sample's time. */
static void sampler_begin(struct sampler *s, struct census *c, const char *cpus, pid_t orchestrator)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->cpus = cpus;
	s->orchestrator = orchestrator;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	census_begin(c, getpid(), orchestrator);
}

/* The sampler's thread, first seconds before its first sample. */
static void sampler_thread(struct sampler *s, double first)
{
	s->first = first > 0 ? first : 0;
	s->begun = 1;
	/* the thread starts with every signal blocked: SIGCHLD stays the waiting thread's */
	sigset_t all, was;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	/* without a thread the census has its first and last samples only */
	s->running = pthread_create(&s->thread, NULL, sample_loop, s) == 0;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (!s->running)
		census_sample(s->c);
}

static void sampler_stop(struct sampler *s)
{
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	if (s->begun && s->running)
		pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
}

static json_t *real_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *per_cpu(const double *v, int n)
{
	if (!v)
		return json_null();
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

/* The end note's census (supervisor.h). */
static json_t *census_json(int attempt, const struct census *c, const struct sv_cores *cores)
{
	json_t *o = json_object(), *ranks = json_array(), *causes = json_array();
	json_object_set_new(o, "attempt", json_integer(attempt));
	json_object_set_new(o, "wall", json_real(c->mono_last - c->mono0));
	json_object_set_new(o, "cpus", json_string(cores->cpus ? cores->cpus : ""));
	json_object_set_new(o, "samples", json_integer(c->samples));
	json_object_set_new(o, "cost", json_real(c->cost));
	json_object_set_new(o, "quiet_wait", json_real(cores->quiet_waited));
	json_object_set_new(o, "quiet_gave_up", json_boolean(cores->quiet_gave_up));
	json_object_set_new(o, "quiet_cause", json_string(cores->quiet_cause ? cores->quiet_cause : ""));
	json_object_set_new(o, "schedstat", json_boolean(c->schedstat));
	json_object_set_new(o, "pressure", real_or_null(c->pressure_s));
	json_object_set_new(o, "foreign", per_cpu(c->foreign, c->ncpus));
	json_object_set_new(o, "steal", per_cpu(c->steal, c->ncpus));
	json_object_set_new(o, "busy", per_cpu(c->busy, c->ncpus));
	json_object_set_new(o, "ours", per_cpu(c->ours, c->ncpus));
	json_object_set_new(o, "bind", per_cpu(c->bind, c->ncpus));
	for (int i = 0; i < c->nranks; i++) {
		json_t *r = json_object();
		json_object_set_new(r, "rank", json_integer(c->ranks[i].rank));
		json_object_set_new(r, "run_delay", json_real(c->ranks[i].run_delay));
		json_object_set_new(r, "cpu", json_real(c->ranks[i].cpu));
		json_array_append_new(ranks, r);
	}
	for (int i = 0; i < c->ncauses && i < SV_CENSUS_CAUSES; i++) {
		json_t *x = json_object();
		json_object_set_new(x, "pid", json_integer(c->causes[i].pid));
		json_object_set_new(x, "comm", json_string(c->causes[i].comm));
		json_object_set_new(x, "cpu", json_integer(c->causes[i].cpu));
		json_object_set_new(x, "seconds", json_real(c->causes[i].seconds));
		json_array_append_new(causes, x);
	}
	json_object_set_new(o, "ranks", ranks);
	json_object_set_new(o, "causes", causes);
	return o;
}

/*
 * Note how the run ended, when run_dir is still s's: its start note is s's
 * or gone (a program that removed its run directory: it is made again).
 * A directory given meanwhile to another attempt or store (a run started
 * afresh there) gets nothing.  0 or SV_EXIT_*.
 */
static int note_end(const char *run_dir, const struct sv_start *s, const struct sv_end *e, json_t *census)
{
	struct sv_start now;
	if (supervisor_read_start(run_dir, &now) == 0 &&
	    (now.pid != s->pid || now.starttime != s->starttime || strcmp(now.store, s->store)))
		return SV_EXIT_TAKEN;
	if (write_end(run_dir, e, census) == 0)
		return 0;
	if (errno == ENOENT && fs_mkdir_p(run_dir) == 0 && write_end(run_dir, e, census) == 0)
		return 0;
	return SV_EXIT_NO_NOTE;
}

/*
 * A cancel from a process that is not the run's orchestrator
 * (supervisor_cancel): SIGUSR1 with the token of the run to stop.  The
 * supervisor may serve the next run by the time it comes: only the run
 * with that token is killed.
 */
static _Atomic long long serving_token;   /* the run served now, 0 none */
static _Atomic pid_t serving_group;       /* its ranks' process group, 0 not yet */
static volatile sig_atomic_t cancel_hit;

static long long run_token(long long run, int attempt)
{
	return run * 256 + (attempt & 255);
}

static void on_cancel(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	long long want = atomic_load(&serving_token);
	if (si->si_code != SI_QUEUE || !want || (long long)(intptr_t)si->si_value.sival_ptr != want)
		return;
	cancel_hit = 1;
	pid_t g = atomic_load(&serving_group);
	if (g > 0)
		kill(-g, SIGKILL);
}

/* Once noted: start the ranks, wait, note the end. */
static int supervise_ranks(const struct sv_args *a, const struct sv_start *s, struct sv_end *e)
{
	const struct run_spec *rs = a->rs;
	/* a world is one process, mpirun, that starts the ranks */
	int n = rs->mpi ? 1 : rs->ranks > 0 ? rs->ranks : 1, own = 0, code = 1;
	struct child_process *cps = xcalloc((size_t)n, sizeof(*cps));
	char **rargv = rank_argv(a, &own), **argv = rargv, **world_env = NULL, *world_dir = NULL;
	if (rs->mpi) {
		world_env = rank_env(rs, -1);
		world_dir = mpi_world_dir(s->pid, s->starttime);
		argv = mpi_world_argv(rs, world_env, rargv, world_dir);
		mpi_world_clear(rs->run_dir);
	}
	struct sv_msg m = { .stage = SV_STARTED };
	double t0 = mono_now();
	e->started = wall_now();
	e->ranks = rs->ranks > 0 ? rs->ranks : 1;
	int i = 0;
	for (; i < n; i++) {
		char **env = world_env ? world_env : rank_env(rs, i);
		int failed = start_rank(a, argv, env, cps, i);
		int errno_was = errno;
		if (env != world_env)
			env_free(env);
		errno = errno_was;
		if (failed) {
			m.err = errno ? errno : EIO;
			m.where = cps[i].exec_stage;
			m.transient = !cps[i].exec_errno && (errno == EAGAIN || errno == ENOMEM);
			break;
		}
		if (i == 0)
			atomic_store(&serving_group, cps[0].pid);
	}
	if (cancel_hit && i > 0)   /* cancelled before its group was known */
		kill(-cps[0].pid, SIGKILL);
	env_free(world_env);
	if (m.err) {   /* none runs without the others */
		kill_ranks_left();
		if (world_dir)
			mpi_world_remove(world_dir);
		for (int k = 0; k < i; k++)
			finish_command(&cps[k]);
		if (m.transient) {   /* as if never started: the orchestrator tries again */
			char *path = xasprintf("%s/" SV_START_NOTE, rs->run_dir);
			unlink(path);
			free(path);
		} else {
			e->exit_status = m.err == ENOENT ? 127 : 126;
			exec_error(rs, m.err, m.where, e->error, sizeof(e->error));
			e->ended = wall_now();
			write_end(rs->run_dir, e, NULL);
		}
		send_msg(a->up, &m);
		goto out;
	}
	/* started: its end says so (a report here would wake the orchestrator
	   once more per run for nothing) */
	struct census c;
	struct sampler smp;
	sampler_begin(&smp, &c, a->cores->cpus, a->orchestrator);
	/* a run over before its census's first sample needs no thread for it
	   (nor its stack and its start, a good part of such a run's cost) */
	if (!ranks_end_by(rs, cps, n, t0, t0 + CENSUS_FIRST_SAMPLE))
		sampler_thread(&smp, t0 + CENSUS_FIRST_SAMPLE - mono_now());
	wait_ranks(rs, cps, n, t0, e);
	sampler_stop(&smp);
	e->ended = e->started + e->wall;
	census_finish(&c);
	json_t *census = census_json(e->attempt, &c, a->cores);
	census_release(&c);
	/* what the ranks left behind in the session goes with them, and
	   what a world killed by SIGKILL left in its directory.  The run's
	   subreaper since before its first fork, the supervisor has a
	   descendant only while it has a child: else no walk of /proc. */
	reap_orphans();
	if (has_child()) {
		kill_ranks_left();
		reap_orphans();
	}
	if (world_dir)
		mpi_world_remove(world_dir);
	if (rs->mpi && !e->timed_out)
		mpi_world_check(rs, e->exit_status, e->error, sizeof(e->error));
	code = note_end(rs->run_dir, s, e, census);
	json_decref(census);
out:
	if (argv != rargv)
		free(argv);   /* a world's line: its own strings are few, and stay */
	for (int k = 0; k < own; k++)
		free(rargv[k]);
	free(rargv);
	free(world_dir);
	free(cps);
	return code;
}

/*
 * One run, from its start note to its end note: the code its end is
 * reported with (0, SV_EXIT_*, or 1: its note could not be written or its
 * ranks could not start), or -1 when the orchestrator was gone by the time
 * the note was written, which ends the supervisor.
 */
static int supervise_one(const struct sv_args *a, const struct sv_start *self)
{
	const struct run_spec *rs = a->rs;
	struct sv_start s = *self;
	s.attempt = supervisor_attempt(rs);
	s.started = wall_now();
	snprintf(s.store, sizeof(s.store), "%s", rs->store_id ? rs->store_id : "");
	snprintf(s.cores, sizeof(s.cores), "%s", a->cores->noted ? a->cores->noted : "");
	if (write_start(rs->run_dir, &s)) {
		struct sv_msg m = { .stage = SV_NOTED, .err = errno ? errno : EIO, .starttime = s.starttime };
		send_msg(a->up, &m);
		return 1;
	}
	/* The orchestrator alive once the note is there: should it die now, its
	   successor (which takes the campaign only then) finds the note.  Dead
	   already, it may have had no time to record the run, and its successor
	   may not find the note either: it starts the run itself. */
	if (getppid() != a->orchestrator) {
		char *path = xasprintf("%s/" SV_START_NOTE, rs->run_dir);
		unlink(path);
		free(path);
		return -1;
	}
	struct sv_end e = { .attempt = s.attempt };
	snprintf(e.store, sizeof(e.store), "%s", s.store);
	snprintf(e.supervisor, sizeof(e.supervisor), "%d:%llu", (int)s.pid, s.starttime);
	return supervise_ranks(a, &s, &e);
}

/* What a supervisor starts from: who its orchestrator is, and its pipes. */
struct sv_serve {
	pid_t orchestrator;
	int up, down;
};

/* The supervisor, in the forked child: the runs sent to it, one after
   another, until its orchestrator is done with it or gone. */
static int serve(void *data)
{
	const struct sv_serve *a = data;
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "perfsweep-sv", 0, 0, 0);
	/* what the ranks start in sessions of their own and leave behind
	   becomes our child, not init's: kill_procs finds it as a descendant */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_cancel;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	struct sv_start self = { .pid = getpid() };
	struct proc_info pi;
	if (proc_info(self.pid, &pi) == 0)
		self.starttime = pi.starttime;
	for (;;) {
		struct sv_job job;
		if (sv_job_read(a->down, &job))
			return 0;
		struct sv_args args = { &job.rs, job.has_lp ? &job.lp : NULL, &job.cores, a->orchestrator,
					a->up, a->down };
		cancel_hit = 0;
		atomic_store(&serving_group, 0);
		atomic_store(&serving_token, run_token(job.rs.id, supervisor_attempt(&job.rs)));
		int code = supervise_one(&args, &self);
		atomic_store(&serving_token, 0);
		atomic_store(&serving_group, 0);
		sv_job_release(&job);
		if (code < 0)
			return 0;
		struct sv_msg m = { .stage = SV_ENDED, .code = code, .starttime = self.starttime };
		send_msg(a->up, &m);
	}
}

/* ---- the orchestrator's side ---- */

/* sv is gone (its reports ended): what is left of it is reaped when it can be. */
static void lost(struct supervisor *sv)
{
	sv->gone = 1;
	sv->busy = 0;
	if (sv->up >= 0)
		close(sv->up);
	if (sv->down >= 0)
		close(sv->down);
	sv->up = sv->down = -1;
	if (sv->proc.pid > 0 && !sv->proc.finished)
		poll_command(&sv->proc);
}

/* A new idle supervisor in sv: 0, or 1 (no process now: try later). */
static int spawn(struct supervisor *sv)
{
	int up[2], down[2];
	memset(sv, 0, sizeof(*sv));
	sv->up = sv->down = -1;
	if (pipe2(up, O_CLOEXEC))
		return 1;
	if (pipe2(down, O_CLOEXEC)) {
		close(up[0]);
		close(up[1]);
		return 1;
	}
	struct sv_serve a = { getpid(), up[1], down[0] };
	struct child_process *p = &sv->proc;
	p->fn = serve;
	p->data = &a;
	p->new_session = 1;
	p->in = p->out = p->err = "/dev/null";
	p->close_fds = 1;
	p->keep_fd[0] = up[1];
	p->keep_fd[1] = down[0];
	p->nkeep = 2;
	int started = start_command(p) == 0;
	close(up[1]);
	close(down[0]);
	if (!started) {
		close(up[0]);
		close(down[1]);
		memset(sv, 0, sizeof(*sv));
		sv->up = sv->down = -1;
		return 1;
	}
	sv->up = up[0];
	sv->down = down[1];
	/* its start time is fixed at the fork: its name, from the first run */
	struct proc_info pi;
	sv->starttime = proc_info(sv->proc.pid, &pi) == 0 ? pi.starttime : 0;
	return 0;
}

/* The next report of sv: 0, or -1 when it is gone. */
static int report(struct supervisor *sv, struct sv_msg *m)
{
	if (sv->up < 0 || sv_pipe_read(sv->up, m, sizeof(*m))) {
		lost(sv);
		return -1;
	}
	return 0;
}

int supervisor_run(struct supervisor *sv, const struct run_spec *rs, const struct launch_placement *lp,
		   const struct sv_cores *cores, char **id)
{
	struct pollfd p = { .fd = sv->up, .events = POLLIN };
	if (!sv->gone && sv->proc.pid > 0 && poll(&p, 1, 0) > 0)
		lost(sv);   /* an idle one says nothing: it died since its last run */
	if (sv->proc.pid <= 0 || sv->gone) {
		if (sv->proc.pid > 0 && !sv->proc.finished)
			finish_command(&sv->proc);   /* gone: it has exited or is exiting */
		if (spawn(sv))
			return 1;   /* no process now: try later */
	}
	sv->ended = sv->code = sv->start_err = sv->start_transient = sv->note_err = 0;
	/* Nothing is waited for: what goes wrong on the way comes with the
	   run's end (supervisor_check), so that the next run starts while this
	   one's program is exec'd.  Dead once sent, it may have started the
	   ranks: an attempt like any other, which the backend finds ended
	   without its end note. */
	if (sv_job_send(sv->down, rs, lp, cores)) {
		lost(sv);
		return 1;
	}
	sv->busy = 1;
	*id = xasprintf("%d:%llu", (int)sv->proc.pid, sv->starttime);
	return 0;
}

int supervisor_check(struct supervisor *sv)
{
	if (sv->ended)
		return 1;
	struct pollfd p = { .fd = sv->up, .events = POLLIN };
	while (!sv->gone && poll(&p, 1, 0) > 0) {
		struct sv_msg m;
		if (report(sv, &m))
			break;
		if (m.stage == SV_NOTED) {   /* its start note could not be written */
			sv->note_err = m.err;
		} else if (m.stage == SV_STARTED) {   /* its ranks could not start */
			sv->start_err = m.err;
			sv->start_transient = m.transient;
		} else if (m.stage == SV_ENDED) {
			sv->ended = 1;
			sv->code = m.code;
			sv->busy = 0;
			return 1;
		}
	}
	return sv->gone && (sv->proc.finished || poll_command(&sv->proc) != 0);
}

int supervisor_fd(const struct supervisor *sv)
{
	return sv->gone ? -1 : sv->up;
}

void supervisor_close(struct supervisor *sv)
{
	int idle = !sv->busy;
	if (sv->down >= 0)
		close(sv->down);   /* an idle one reads its end, and exits */
	if (sv->up >= 0)
		close(sv->up);
	sv->up = sv->down = -1;
	if (idle && sv->proc.pid > 0 && !sv->proc.finished)
		finish_command(&sv->proc);
	memset(sv, 0, sizeof(*sv));
	sv->up = sv->down = -1;
}

int supervisor_cancel(const struct run_spec *rs, pid_t pid, unsigned long long starttime)
{
	struct sv_start s;
	struct sv_end e;
	struct proc_info pi;
	int attempt = supervisor_attempt(rs);
	/* a dead supervisor's leftovers, or a run from before supervisors (one
	   look at /proc: supervisor_alive's, and whether it leads its session) */
	if (proc_info(pid, &pi) || pi.state == 'Z' || pi.starttime != starttime || pi.session != pid)
		return supervisor_kill_run(pid, starttime, 1) > 0;
	/* it serves this attempt still, as far as its notes tell; the token
	   makes sure, should it have gone on to the next run meanwhile */
	if (rs->run_dir && (supervisor_read_start(rs->run_dir, &s) || s.pid != pid || s.starttime != starttime ||
			    s.attempt != attempt ||
			    (supervisor_read_end(rs->run_dir, &e) == 0 && e.attempt == attempt)))
		return 0;
	return supervisor_ask_cancel(pid, rs->id, attempt);
}

int supervisor_ask_cancel(pid_t pid, long long run, int attempt)
{
	union sigval v = { .sival_ptr = (void *)(intptr_t)run_token(run, attempt) };
	return sigqueue(pid, SIGUSR1, v) == 0;
}
