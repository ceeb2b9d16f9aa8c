/*
 * The local backend: runs on this machine, never through a shell.  Each
 * slot has a supervisor process (orchestrator/local/supervisor.h) in a
 * session of its own that serves its runs one after another: it starts a
 * run's ranks, outlives the orchestrator, and notes the run's start and end
 * in the run directory; the backend id is the supervisor's "PID:STARTTIME".
 * An orchestrator started after another died reads those notes
 * (take_over): it collects a run that finished meanwhile, adopts one whose
 * supervisor still lives (waiting for its end note, keeping its slot and
 * cores), and runs again only one that never started or was killed mid-way,
 * after killing what is left of it.
 */
#include "orchestrator/local/backend_local.h"
#include "orchestrator/local/mpi_world.h"
#include "orchestrator/local/supervisor.h"
#include "common/clock.h"
#include "common/strbuf.h"
#include "common/run_command.h"
#include "common/xalloc.h"
#include "placement/census.h"
#include "placement/core_alloc.h"
#include "placement/launch.h"
#include "placement/policy.h"
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Past its timeout by this much, a run's supervisor is killed too. */
#define BACKSTOP_GRACE 10.0

struct local_run {
	long long id;
	char *run_dir;
	char *store_id;             /* whose run it is: its notes must say so */
	int attempt;
	struct supervisor *sv;      /* the supervisor, when it is ours (one of local.svs) */
	pid_t pid;                  /* the supervisor, ours or adopted */
	unsigned long long starttime;
	double timeout;
	double deadline;            /* monotonic: the backstop, 0 none */
	int backstop;               /* killed at the backstop */
	hwloc_bitmap_t cores;       /* the units the core allocator gave it */
};

/* The quiet gate of the run at the head of the queue. */
struct quiet_gate {
	long long id;               /* the run it waits for, 0 none */
	struct census c;
	double first;               /* monotonic: when it began */
	double *was;                /* per CPU: foreign seconds at the last sample */
};

struct local {
	int jobs;
	struct supervisor *svs;     /* [jobs]: one per slot, serving its runs one after another */
	double wait_quiet;          /* the quiet gate's bound, seconds (0: none) */
	struct quiet_gate gate;
	struct local_run *runs;
	int n;
	size_t alloc;
	struct run_result *ready;   /* results of runs found finished when taken over */
	int nready;
	size_t ready_alloc;
	int have_topo;              /* the host topology loaded: cores are allocated */
	int told_foreign;           /* another store's live run was reported */
	struct topology topo;
	struct core_alloc cores;
};

static int local_capacity(struct backend *b)
{
	struct local *l = b->priv;
	return l->jobs - l->n;
}

static int local_inflight(struct backend *b)
{
	return ((struct local *)b->priv)->n;
}

/*
 * The units run rs needs, taken into set: 0 taken, 1 not free now (wait),
 * -1 never fits this machine (err).
 */
static int take_cores(struct local *l, const struct run_spec *rs, hwloc_bitmap_t set, struct perr *err)
{
	int units = l->topo.nunits, ranks = rs->ranks > 0 ? rs->ranks : 1;
	if (!rs->policy && rs->mpi && ranks > units)   /* plan refuses it first */
		return perr_set(err, "a world of %d rank%s needs %d core%s, but this machine has %d usable "
				"core%s", ranks, ranks == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s", units,
				units == 1 ? "" : "s");
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

/* A new entry for run rs in l->runs (not counted yet). */
static struct local_run *new_run(struct local *l, const struct run_spec *rs, hwloc_bitmap_t cores)
{
	XGROW(l->runs, (size_t)l->n + 1, l->alloc);
	struct local_run *r = &l->runs[l->n];
	memset(r, 0, sizeof(*r));
	r->id = rs->id;
	r->run_dir = xstrdup(rs->run_dir);
	r->store_id = xstrdup(rs->store_id ? rs->store_id : "");
	r->attempt = supervisor_attempt(rs);
	r->timeout = rs->timeout;
	r->cores = cores;
	return r;
}

/* Run i ended: its slot and cores are free. */
static void drop_run(struct local *l, int i)
{
	struct local_run *r = &l->runs[i];
	if (l->have_topo)
		core_alloc_give(&l->cores, r->cores);
	hwloc_bitmap_free(r->cores);
	free(r->run_dir);
	free(r->store_id);
	l->runs[i] = l->runs[--l->n];
}

/* The OS CPUs of units, as a list ("0-3"); caller frees. */
static char *cpus_of_units(const struct local *l, hwloc_const_bitmap_t units)
{
	hwloc_bitmap_t pus = hwloc_bitmap_alloc();
	int u;
	hwloc_bitmap_foreach_begin(u, units)
		if (u < l->topo.nunits)
			hwloc_bitmap_or(pus, pus, l->topo.unit_pus[u]);
	hwloc_bitmap_foreach_end();
	char *s = NULL;
	if (hwloc_bitmap_list_asprintf(&s, pus) < 0)
		s = NULL;
	hwloc_bitmap_free(pus);
	return s;
}

static void gate_end(struct quiet_gate *g)
{
	if (g->id)
		census_release(&g->c);
	free(g->was);
	memset(g, 0, sizeof(*g));
}

/*
 * The quiet gate before run rs starts on cpus: 0 go (quiet, or waited up
 * to the bound: cores says how long and who was there), 1 not yet (start
 * it again later).  Each call looks once, a CENSUS_QUIET_WINDOW after the
 * last; with no run in flight it sleeps until then (the run loop would
 * not).
 */
static int quiet_gate(struct local *l, const struct run_spec *rs, const char *cpus, struct sv_cores *cores,
		      char *cause, size_t size)
{
	struct quiet_gate *g = &l->gate;
	int *v;
	int n = census_cpus_of(cpus, &v);
	if (l->wait_quiet <= 0 || n <= 0) {
		free(v);
		return 0;
	}
	if (g->id != rs->id) {
		gate_end(g);
		g->id = rs->id;
		census_start(&g->c, 0, getpid());
		g->first = mono_now();
		g->was = xcalloc((size_t)g->c.ncpus, sizeof(double));
		memcpy(g->was, g->c.foreign, sizeof(double) * (size_t)g->c.ncpus);
	}
	double due = g->c.mono_last + CENSUS_QUIET_WINDOW - mono_now();
	if (due > 0 && l->n) {
		free(v);
		return 1;
	}
	if (due > 0) {
		struct timespec ts = { (time_t)due, (long)((due - (double)(time_t)due) * 1e9) };
		nanosleep(&ts, NULL);
	}
	double span = mono_now() - g->c.mono_last;
	census_sample(&g->c);
	double busy = 0;
	for (int i = 0; i < n; i++)
		if (v[i] < g->c.ncpus)
			busy = fmax(busy, g->c.foreign[v[i]] - g->was[v[i]]);
	memcpy(g->was, g->c.foreign, sizeof(double) * (size_t)g->c.ncpus);
	double waited = mono_now() - g->first;
	int quiet = busy < CENSUS_QUIET_SHARE * span;
	if (!quiet && waited < l->wait_quiet) {
		free(v);
		return 1;
	}
	cores->quiet_waited = waited;
	cores->quiet_gave_up = !quiet;
	const struct census_cause *top = quiet ? NULL : census_top_cause(&g->c, v, n);
	if (top) {
		snprintf(cause, size, "pid %ld (%s) on core %d", top->pid, top->comm, top->cpu);
		cores->quiet_cause = cause;
	}
	free(v);
	gate_end(g);
	return 0;
}

/* A slot's supervisor that serves no run now (one is free while capacity is). */
static struct supervisor *idle_supervisor(struct local *l)
{
	for (int j = 0; j < l->jobs; j++) {
		int taken = 0;
		for (int i = 0; i < l->n && !taken; i++)
			taken = l->runs[i].sv == &l->svs[j];
		if (!taken)
			return &l->svs[j];
	}
	return NULL;   /* unreachable: capacity() said there is room */
}

static int local_start(struct backend *b, const struct run_spec *rs, char **backend_id,
		       struct perr *err)
{
	struct local *l = b->priv;
	hwloc_bitmap_t cores = hwloc_bitmap_alloc();
	char *within = NULL, *noted = NULL;
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
	if (l->have_topo && hwloc_bitmap_list_asprintf(&noted, cores) >= 0 && rs->policy &&
	    strcmp(rs->policy, "explicit"))
		lp.within = within = xstrdup(noted);
	char *cpus = l->have_topo ? cpus_of_units(l, cores) : NULL, cause[96];
	struct sv_cores svc = { .noted = noted ? noted : "", .cpus = cpus };
	if (quiet_gate(l, rs, cpus, &svc, cause, sizeof(cause))) {
		core_alloc_give(&l->cores, cores);
		hwloc_bitmap_free(cores);
		free(within);
		free(noted);
		free(cpus);
		return 1;
	}
	supervisor_forget_notes(rs->run_dir);
	struct local_run *r = new_run(l, rs, cores);
	r->sv = idle_supervisor(l);
	rc = supervisor_run(r->sv, rs, rs->policy ? &lp : NULL, &svc, backend_id);
	free(within);
	free(noted);
	free(cpus);
	if (rc) {
		if (l->have_topo)
			core_alloc_give(&l->cores, cores);
		hwloc_bitmap_free(cores);
		free(r->run_dir);
		free(r->store_id);
		return rc;
	}
	supervisor_parse_id(*backend_id, &r->pid, &r->starttime);
	r->deadline = rs->timeout > 0 ? mono_now() + rs->timeout + BACKSTOP_GRACE : 0;
	l->n++;
	return 0;
}

/*
 * Whether a note of store note_store by supervisor note_sv ("PID:STARTTIME",
 * "" unknown) is the run's of store store_id: its store's id, or, in a note
 * from before store ids, the supervisor the store recorded (recorded_sv,
 * NULL none).  A store made afresh at the same path never takes another
 * store's notes.
 */
static int note_is_ours(const char *note_store, const char *note_sv, const char *store_id,
			const char *recorded_sv)
{
	if (note_store[0])
		return store_id && !strcmp(note_store, store_id);
	return recorded_sv && note_sv[0] && !strcmp(note_sv, recorded_sv);
}

/* run_dir's start note, when it is this attempt's of store_id. */
static int read_own_start(const char *run_dir, int attempt, const char *store_id, const char *recorded_sv,
			  struct sv_start *s)
{
	if (supervisor_read_start(run_dir, s) || s->attempt != attempt)
		return 0;
	char sv[64];
	snprintf(sv, sizeof(sv), "%d:%llu", (int)s->pid, s->starttime);
	return note_is_ours(s->store, sv, store_id, recorded_sv);
}

/* run_dir's end note, when it is this attempt's of store_id (a note from
   before store ids: when its start note is the recorded supervisor's). */
static int read_own_end(const char *run_dir, int attempt, const char *store_id, const char *recorded_sv,
			struct sv_end *e)
{
	if (supervisor_read_end(run_dir, e) || e->attempt != attempt)
		return 0;
	if (e->store[0])
		return note_is_ours(e->store, e->supervisor, store_id, recorded_sv);
	struct sv_start s;
	return read_own_start(run_dir, attempt, store_id, recorded_sv, &s);
}

/* The result an end note tells. */
static void result_from_note(const struct sv_end *e, long long id, struct run_result *res)
{
	memset(res, 0, sizeof(*res));
	res->id = id;
	res->started_at = e->started;
	res->ended_at = e->ended;
	res->wall = e->wall;
	res->exit_status = e->exit_status;
	int st = e->exit_status;
	res->failed = e->timed_out || e->error[0] || st;
	if (e->timed_out) {
		res->exit_status = 128 + SIGKILL;
		snprintf(res->reason, sizeof(res->reason), "timed out after %g s", e->timeout);
	} else if (e->error[0]) {
		snprintf(res->reason, sizeof(res->reason), "%s", e->error);
	} else if (st > 128) {
		snprintf(res->reason, sizeof(res->reason), "killed by signal %d (%s)", st - 128,
			 strsignal(st - 128));
	} else if (st) {
		snprintf(res->reason, sizeof(res->reason), "exit status %d", st);
	}
}

/*
 * Run r's supervisor ended without an end note of this attempt: res says
 * why, as far as its exit tells.  Our own supervisor's exit status says
 * when the ranks ended but the note could not be written or was lost (the
 * program removed or took its run directory): a failure of the run.  A
 * supervisor killed (by a signal, or one we adopted and only saw vanish)
 * killed the run mid-way: it runs again, within the bound on attempts.
 */
static void ended_without_note(const struct local_run *r, const char *sv_id, struct run_result *res)
{
	/* ours: the code it reported the run's end with, or how it died */
	const struct child_process *sv = r->sv && !r->sv->ended && r->sv->proc.finished ? &r->sv->proc : NULL;
	int code = r->sv && r->sv->ended ? r->sv->code : sv && WIFEXITED(sv->status) ? WEXITSTATUS(sv->status) : -1;
	struct sv_start s;
	if (r->sv && r->sv->start_err && r->sv->start_transient) {   /* no process or memory then */
		res->rerun = 1;
		snprintf(res->reason, sizeof(res->reason), "its ranks could not start then (%s): run again",
			 strerror(r->sv->start_err));
		return;
	}
	if (code == SV_EXIT_NO_NOTE)
		snprintf(res->reason, sizeof(res->reason), "it ended, but its end note could not be written "
			 "in '%s' (the program removed or replaced its run directory)", r->run_dir);
	else if (code == SV_EXIT_TAKEN)
		snprintf(res->reason, sizeof(res->reason), "it ended, but its run directory '%s' was given "
			 "to another attempt or campaign store meanwhile", r->run_dir);
	else if (code == 0)
		snprintf(res->reason, sizeof(res->reason), "it ended, but its end note '%s/%s' is gone",
			 r->run_dir, SV_END_NOTE);
	if (res->reason[0])
		return;
	res->rerun = 1;
	if (sv && WIFSIGNALED(sv->status))
		snprintf(res->reason, sizeof(res->reason), "killed mid-way: its supervisor was killed by "
			 "signal %d (%s)", WTERMSIG(sv->status), strsignal(WTERMSIG(sv->status)));
	else if (read_own_start(r->run_dir, r->attempt, r->store_id, sv_id, &s))
		snprintf(res->reason, sizeof(res->reason), "killed mid-way");
	else
		snprintf(res->reason, sizeof(res->reason), "killed mid-way: its supervisor ended without "
			 "notes in '%s'", r->run_dir);
}

/* Whether run r ended; then res says how.  A supervisor that died without
   its end note: what is left of the run is killed, and ended_without_note
   says why. */
static int check_run(struct local_run *r, struct run_result *res)
{
	int gone = r->sv ? supervisor_check(r->sv) : !supervisor_alive(r->pid, r->starttime);
	if (!gone) {
		if (r->deadline > 0 && mono_now() > r->deadline && !r->backstop) {
			r->backstop = 1;   /* its supervisor did not end it in time: end both */
			supervisor_kill_run(r->pid, r->starttime, 0);
		}
		return 0;
	}
	char sv_id[64];
	snprintf(sv_id, sizeof(sv_id), "%d:%llu", (int)r->pid, r->starttime);
	if (r->sv && r->sv->note_err) {   /* it never ran: nowhere to note it, as a start that failed */
		memset(res, 0, sizeof(*res));
		res->id = r->id;
		res->exit_status = -1;
		res->failed = res->unstartable = 1;
		res->ended_at = wall_now();
		snprintf(res->reason, sizeof(res->reason), "cannot write '%s/%s': %s", r->run_dir, SV_START_NOTE,
			 strerror(r->sv->note_err));
		return 1;
	}
	struct sv_end e;
	if (read_own_end(r->run_dir, r->attempt, r->store_id, sv_id, &e)) {
		result_from_note(&e, r->id, res);
		/* its ranks could not start: the note says why, as a start would */
		res->unstartable = r->sv && r->sv->start_err && !r->sv->start_transient;
		return 1;
	}
	memset(res, 0, sizeof(*res));
	res->id = r->id;
	res->exit_status = -1;
	res->failed = 1;
	res->ended_at = wall_now();
	if (r->backstop) {
		res->exit_status = 128 + SIGKILL;
		snprintf(res->reason, sizeof(res->reason), "timed out after %g s", r->timeout);
		return 1;
	}
	supervisor_kill_run(r->pid, r->starttime, 0);
	mpi_world_sweep(supervisor_alive);   /* a killed supervisor's world left its segments */
	ended_without_note(r, sv_id, res);
	return 1;
}

/* Sleep until a run may have changed, at most left seconds: our own
   supervisors' reports wake us (a run's end, or the end of their pipe when
   they die); adopted ones, and ours that died and are not reaped yet, are
   looked at often. */
static void await_change(struct local *l, double left)
{
	struct pollfd *fds = xcalloc((size_t)l->n + 1, sizeof(*fds));
	int nfd = 0;
	for (int i = 0; i < l->n; i++) {
		int fd = l->runs[i].sv ? supervisor_fd(l->runs[i].sv) : -1;
		if (fd >= 0)
			fds[nfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	if (nfd < l->n && left > 0.02)
		left = 0.02;
	poll(fds, (nfds_t)nfd, left > 0 ? (int)ceil(left * 1000) : 0);
	free(fds);
}

static int local_wait(struct backend *b, double timeout, struct run_result *res, int max,
		      struct perr *err)
{
	(void)err;
	struct local *l = b->priv;
	double end = mono_now() + timeout;
	int got = 0;
	for (;;) {
		while (got < max && l->nready > 0)
			res[got++] = l->ready[--l->nready];
		for (int i = 0; i < l->n && got < max;) {
			if (check_run(&l->runs[i], &res[got])) {
				got++;
				drop_run(l, i);
			} else {
				i++;
			}
		}
		double left = end - mono_now();
		if (got || left <= 0 || l->n == 0)
			return got;
		await_change(l, left);
	}
}

static int local_cancel(struct backend *b, const struct run_spec *rs, const char *backend_id,
			struct perr *err)
{
	(void)err;
	struct local *l = b ? b->priv : NULL;
	for (int i = 0; l && i < l->n; i++)
		if (l->runs[i].id == rs->id) {
			/* its supervisor stays to note how the run ended; ours may be
			   starting its ranks still: it is asked, and kills them as
			   they start */
			if (l->runs[i].sv)
				supervisor_ask_cancel(l->runs[i].pid, l->runs[i].id, l->runs[i].attempt);
			else
				supervisor_kill_run(l->runs[i].pid, l->runs[i].starttime, 1);
			return 0;
		}
	backend_local_cancel_id(rs, backend_id);
	return 0;
}

/* A run that finished while no orchestrator ran: its result waits for wait(). */
static void push_ready(struct local *l, long long id, const struct sv_end *e)
{
	XGROW(l->ready, (size_t)l->nready + 1, l->ready_alloc);
	result_from_note(e, id, &l->ready[l->nready++]);
}

/* Watch a supervisor an earlier orchestrator started; it keeps its cores. */
static void adopt_live(struct local *l, const struct run_spec *rs, const struct sv_start *s)
{
	hwloc_bitmap_t cores = hwloc_bitmap_alloc();
	/* cores this machine no longer has, or someone holds: it holds none */
	if (!l->have_topo || !s->cores[0] || hwloc_bitmap_list_sscanf(cores, s->cores) < 0 ||
	    hwloc_bitmap_last(cores) >= l->topo.nunits || core_alloc_take_set(&l->cores, cores))
		hwloc_bitmap_zero(cores);
	struct local_run *r = new_run(l, rs, cores);
	r->pid = s->pid;
	r->starttime = s->starttime;
	if (rs->timeout > 0)
		r->deadline = mono_now() + (s->started + rs->timeout - wall_now()) + BACKSTOP_GRACE;
	l->n++;
}

/* The run directory holds a live run of another store (made earlier at
   this path): left alone, said once (in err, as recover() may). */
static void foreign_run(struct local *l, const struct run_spec *rs, struct perr *err)
{
	struct sv_start s;
	if (!err || l->told_foreign || supervisor_read_start(rs->run_dir, &s) || !s.store[0] ||
	    (rs->store_id && !strcmp(s.store, rs->store_id)) || !supervisor_alive(s.pid, s.starttime))
		return;
	l->told_foreign = 1;
	perr_set(err, "local runs of another campaign store made earlier in this directory are still "
		 "running; left alone (kill them if unwanted): run %lld's supervisor, pid %d", rs->id,
		 (int)s.pid);
}

/*
 * What became of the attempt rs of a run an earlier orchestrator of this
 * store started (its notes in the run directory, this store's only): 1
 * finished or still running, taken over (*id: its supervisor); 0 never
 * started or killed mid-way, what is left of it killed (and of old_id, a
 * run from before supervisors).  Another store's notes and runs are never
 * taken, nor killed.
 */
static int take_over(struct local *l, const struct run_spec *rs, const char *old_id,
		     enum attempt_fate *fate, char **id, struct perr *err)
{
	struct sv_start s;
	struct sv_end e;
	struct stat st;
	if (!old_id && lstat(rs->run_dir, &st) && errno == ENOENT) {   /* no directory, no notes */
		*fate = FATE_NEVER_STARTED;
		return 0;
	}
	int want = supervisor_attempt(rs);
	int noted = read_own_start(rs->run_dir, want, rs->store_id, old_id, &s);
	int alive = noted && supervisor_alive(s.pid, s.starttime);
	if (!noted)
		foreign_run(l, rs, err);
	/* the end note after the liveness: a supervisor notes, then exits */
	if (read_own_end(rs->run_dir, want, rs->store_id, old_id, &e)) {
		push_ready(l, rs->id, &e);
		*fate = FATE_FINISHED;
	} else if (alive) {
		adopt_live(l, rs, &s);
		*fate = FATE_RUNNING;
	} else {
		pid_t pid;
		unsigned long long start;
		if (noted)
			supervisor_kill_run(s.pid, s.starttime, 0);
		else if (old_id && !supervisor_parse_id(old_id, &pid, &start))
			supervisor_kill_run(pid, start, 0);
		*fate = noted ? FATE_KILLED : FATE_NEVER_STARTED;
		return 0;
	}
	if (id)
		*id = noted ? xasprintf("%d:%llu", (int)s.pid, s.starttime) : xstrdup("");
	return 1;
}

static int local_adopt(struct backend *b, const struct run_spec *rs, const char *backend_id,
		       enum attempt_fate *fate, struct perr *err)
{
	(void)err;
	return take_over(b->priv, rs, backend_id, fate, NULL, NULL);
}

/* Before a fresh attempt: an earlier orchestrator may have started this
   very attempt and died before recording it. */
static int local_recover(struct backend *b, const struct run_spec *rs, char **backend_id,
			 enum attempt_fate *fate, struct perr *err)
{
	return take_over(b->priv, rs, NULL, fate, backend_id, err);
}

/* Runs in flight stay: their supervisors note how they end, for whoever
   runs the campaign next. */
static void local_free(struct backend *b)
{
	struct local *l = b->priv;
	for (int j = 0; j < l->jobs; j++)
		supervisor_close(&l->svs[j]);
	free(l->svs);
	for (int i = 0; i < l->n; i++) {
		hwloc_bitmap_free(l->runs[i].cores);
		free(l->runs[i].run_dir);
		free(l->runs[i].store_id);
	}
	if (l->have_topo) {
		core_alloc_release(&l->cores);
		topology_release(&l->topo);
	}
	gate_end(&l->gate);
	free(l->runs);
	free(l->ready);
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
	l->svs = xcalloc((size_t)jobs, sizeof(*l->svs));
	for (int j = 0; j < jobs; j++)
		l->svs[j].up = l->svs[j].down = -1;
	struct perr terr;
	if (topology_load(&l->topo, NULL, NULL, &terr) == 0) {
		l->have_topo = 1;
		core_alloc_init(&l->cores, &l->topo);
	}
	/* what worlds of supervisors killed meanwhile left in /dev/shm */
	mpi_world_sweep(supervisor_alive);
	b->ops = &local_ops;
	b->priv = l;
	*out = b;
	return 0;
}

void backend_local_wait_quiet(struct backend *b, double seconds)
{
	((struct local *)b->priv)->wait_quiet = seconds > 0 ? seconds : 0;
}

int backend_local_cancel_id(const struct run_spec *rs, const char *backend_id)
{
	pid_t pid;
	unsigned long long start;
	if (supervisor_parse_id(backend_id, &pid, &start))
		return 0;
	return supervisor_cancel(rs, pid, start);
}
