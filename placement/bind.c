/*
 * perfsweep-bind's library part: rank discovery, binding with read-back
 * verification, running the application, and the per-rank JSON record.
 */
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/run_command.h"
#include "placement/bind.h"
#include "common/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A non-negative decimal integer, the whole string. */
static int parse_nonneg(const char *s, int *v)
{
	char *end;
	errno = 0;
	long n = strtol(s, &end, 10);
	if (!*s || *end || errno || n < 0 || n > 1 << 24)
		return -1;
	*v = (int)n;
	return 0;
}

int bind_parse_tasks_per_node(const char *s, int node, int *tasks)
{
	/* "4(x2),3,2(x10)": counts, each optionally repeated */
	const char *p = s;
	long long idx = 0;
	while (*p) {
		char *end;
		errno = 0;
		long n = strtol(p, &end, 10);
		if (end == p || errno || n < 0 || n > 1 << 24)
			return -1;
		long rep = 1;
		p = end;
		if (!strncmp(p, "(x", 2)) {
			rep = strtol(p + 2, &end, 10);
			if (end == p + 2 || *end != ')' || rep < 1 || rep > 1 << 24)
				return -1;
			p = end + 1;
		}
		if (node >= idx && node < idx + rep) {
			*tasks = (int)n;
			return 0;
		}
		idx += rep;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return -1;
}

/* The first of vars[] that is set; fills *v and *from.  1 found, 0 none, -1 bad. */
static int first_env(const char *const *vars, int *v, const char **from, struct perr *err)
{
	for (int i = 0; vars[i]; i++) {
		const char *s = getenv(vars[i]);
		if (!s)
			continue;
		if (parse_nonneg(s, v) < 0)
			return perr_set(err, "invalid %s '%s' (a non-negative integer)", vars[i], s);
		*from = vars[i];
		return 1;
	}
	return 0;
}

int bind_ranks_from_env(struct bind_ranks *r, struct perr *err)
{
	static const char *const local_vars[] = { "PERFSWEEP_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
						  "MPI_LOCALRANKID", "SLURM_LOCALID", NULL };
	static const char *const rank_vars[] = { "PERFSWEEP_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
						 "SLURM_PROCID", NULL };
	static const char *const rpn_vars[] = { "PERFSWEEP_RANKS_PER_NODE", "OMPI_COMM_WORLD_LOCAL_SIZE",
						"MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE", NULL };
	memset(r, 0, sizeof(*r));
	int f = first_env(local_vars, &r->local_rank, &r->local_from, err);
	if (f < 0)
		return -1;
	if (!f)
		return perr_set(err, "no local rank: set PERFSWEEP_LOCAL_RANK, or start under srun or "
				"mpirun (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID)");
	f = first_env(rank_vars, &r->rank, &r->rank_from, err);
	if (f < 0)
		return -1;
	if (!f)
		r->rank = r->local_rank;
	f = first_env(rpn_vars, &r->ranks_per_node, &r->rpn_from, err);
	if (f < 0)
		return -1;
	if (f && r->ranks_per_node < 1)
		return perr_set(err, "invalid %s '0' (at least 1)", r->rpn_from);
	if (!f) {
		const char *tpn = getenv("SLURM_TASKS_PER_NODE");
		if (tpn) {
			int node = 0;
			const char *nid = getenv("SLURM_NODEID");
			if (nid && parse_nonneg(nid, &node) < 0)
				return perr_set(err, "invalid SLURM_NODEID '%s'", nid);
			if (bind_parse_tasks_per_node(tpn, node, &r->ranks_per_node) < 0 ||
			    r->ranks_per_node < 1)
				return perr_set(err, "invalid SLURM_TASKS_PER_NODE '%s' for node %d", tpn,
						node);
			r->rpn_from = "SLURM_TASKS_PER_NODE";
		}
	}
	return 0;
}

int bind_apply(const struct topology *t, hwloc_const_bitmap_t set, hwloc_bitmap_t actual,
	       struct perr *err)
{
	char *want = NULL, *got = NULL;
	int r = 0;
	hwloc_bitmap_zero(actual);
	hwloc_bitmap_list_asprintf(&want, set);
	if (!topology_is_this_system(t)) {
		r = perr_set(err, "cannot bind to PUs %s: hwloc's topology is not this machine's "
			     "(is HWLOC_XMLFILE or HWLOC_SYNTHETIC set?)", want);
	} else if (hwloc_set_cpubind(t->hw, set, HWLOC_CPUBIND_PROCESS) < 0) {
		r = perr_set(err, "cannot bind to PUs %s: %s", want, strerror(errno));
	} else if (hwloc_get_cpubind(t->hw, actual, HWLOC_CPUBIND_PROCESS) < 0) {
		r = perr_set(err, "cannot read the binding back after binding to PUs %s: %s", want,
			     strerror(errno));
	} else if (!hwloc_bitmap_isequal(actual, set)) {
		hwloc_bitmap_list_asprintf(&got, actual);
		r = perr_set(err, "binding to PUs %s did not take: the process is bound to PUs %s", want,
			     got);
	}
	free(want);
	free(got);
	return r;
}

static volatile sig_atomic_t child_pid, in_slurm_step;

static void forward_signal(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	/* the terminal signals the whole foreground group, the child included */
	if ((sig == SIGINT || sig == SIGQUIT) && info && info->si_code != SI_USER &&
	    info->si_code != SI_QUEUE)
		return;
	/* slurmstepd (our parent) signals every process of the step itself */
	if (in_slurm_step && info && info->si_pid == getppid())
		return;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGINT, SIGQUIT };
#define NFORWARDED (int)(sizeof(forwarded) / sizeof(forwarded[0]))

/* The 1-minute load average, NaN when the system does not say. */
static double load_now(void)
{
	double l;
	return getloadavg(&l, 1) == 1 ? l : NAN;
}

static double seconds_of(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* What the child used (ru from wait4), over wall seconds. */
static void fill_usage(struct bind_usage *u, const struct rusage *ru, double wall)
{
	u->utime = seconds_of(ru->ru_utime);
	u->stime = seconds_of(ru->ru_stime);
	u->cpu_share = wall > 0 ? (u->utime + u->stime) / wall : NAN;
	u->maxrss_kb = ru->ru_maxrss;           /* Linux: kilobytes */
	u->nvcsw = ru->ru_nvcsw;
	u->nivcsw = ru->ru_nivcsw;
	u->load_end = load_now();
}

/* The run-queue delay of exited child pid's main thread, before it is reaped, and in *ran the
   seconds it ran (NaN unknown). */
static double zombie_delay(pid_t pid, double *ran)
{
	siginfo_t si;
	int r;
	do
		r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	while (r < 0 && errno == EINTR);
	char path[64];
	unsigned long long run, delay;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	FILE *f = r == 0 ? fopen(path, "re") : NULL;
	int got = f && fscanf(f, "%llu %llu", &run, &delay) == 2;
	if (f)
		fclose(f);
	*ran = got ? (double)run / 1e9 : NAN;
	return got ? (double)delay / 1e9 : NAN;
}

int bind_run(char *const *argv, struct bind_result *res, struct perr *err)
{
	memset(res, 0, sizeof(*res));
	res->usage.load_start = res->usage.load_end = res->usage.run_delay = res->usage.main_cpu = NAN;
	struct sigaction sa, old[NFORWARDED];
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigset_t block, prev;
	sigemptyset(&block);
	for (int i = 0; i < NFORWARDED; i++)
		sigaddset(&block, forwarded[i]);
	/* held until the child's pid is known, then forwarded */
	sigprocmask(SIG_BLOCK, &block, &prev);
	in_slurm_step = getenv("SLURM_STEP_ID") != NULL;
	/* a signal to our process group (the local backend's killpg) must reach
	   the app once, through us: give it a group of its own unless it runs in
	   the terminal's foreground, where the terminal signals the group, or in
	   a SLURM step, whose proctrack plugin may signal the task's group */
	struct child_process cp = {
		.argv = argv,
		.new_group = !in_slurm_step && !(isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp()),
		.pdeathsig = SIGKILL,
	};
	res->usage.load_start = load_now();
	double mono0 = mono_now();
	res->start = wall_now();
	/* the handlers after the fork: the app starts with our dispositions */
	int started = start_command(&cp) == 0;
	int start_errno = errno;
	for (int i = 0; i < NFORWARDED; i++)
		sigaction(forwarded[i], &sa, &old[i]);
	if (started)
		child_pid = cp.pid;
	sigprocmask(SIG_SETMASK, &prev, NULL);
	int r = 0;
	double delay = NAN, ran = NAN;
	if (started) {
		res->pid = cp.pid;
		delay = zombie_delay(cp.pid, &ran);
		if (finish_command(&cp) < 0) {
			res->exit_status = 126;
			r = perr_set(err, "cannot wait for '%s': %s", argv[0], strerror(errno));
		} else if (WIFSIGNALED(cp.status)) {
			res->signal = WTERMSIG(cp.status);
			res->exit_status = 128 + res->signal;
		} else {
			res->exit_status = command_exit_code(cp.status);
		}
	} else {
		res->exit_status = start_errno == ENOENT ? 127 : 126;
		r = perr_set(err, "cannot run '%s': %s", argv[0], strerror(start_errno));
	}
	res->wall = mono_now() - mono0;
	res->end = res->start + res->wall;
	if (started && cp.finished) {   /* what the rank used: wait4's */
		fill_usage(&res->usage, &cp.ru, res->wall);
		res->usage.run_delay = delay;
		res->usage.main_cpu = ran;
		res->have_usage = 1;
	}
	sigprocmask(SIG_BLOCK, &block, NULL);
	child_pid = 0;
	for (int i = 0; i < NFORWARDED; i++)
		sigaction(forwarded[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, &prev, NULL);
	return r;
}

const char *bind_node_name(void)
{
	static char host[256];
	const char *s = getenv("SLURMD_NODENAME");
	if (s && *s)
		return s;
	if (gethostname(host, sizeof(host) - 1) < 0)
		strcpy(host, "unknown");
	return host;
}

static json_t *list_or_null(hwloc_const_bitmap_t set)
{
	char *s = NULL;
	if (!set || hwloc_bitmap_list_asprintf(&s, set) < 0 || !s)
		return json_null();
	json_t *j = json_string(s);
	free(s);
	return j;
}

static json_t *real_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* The usage keys of a rank record (all null when u is NULL: the application did not run). */
static void usage_json(json_t *o, const struct bind_usage *u)
{
	json_object_set_new(o, "utime", u ? json_real(u->utime) : json_null());
	json_object_set_new(o, "stime", u ? json_real(u->stime) : json_null());
	json_object_set_new(o, "cpu_share", u ? real_or_null(u->cpu_share) : json_null());
	json_object_set_new(o, "maxrss_kb", u ? json_integer(u->maxrss_kb) : json_null());
	json_object_set_new(o, "nvcsw", u ? json_integer(u->nvcsw) : json_null());
	json_object_set_new(o, "nivcsw", u ? json_integer(u->nivcsw) : json_null());
	json_object_set_new(o, "load_start", u ? real_or_null(u->load_start) : json_null());
	json_object_set_new(o, "load_end", u ? real_or_null(u->load_end) : json_null());
	json_object_set_new(o, "run_delay", u ? real_or_null(u->run_delay) : json_null());
	json_object_set_new(o, "main_cpu", u ? real_or_null(u->main_cpu) : json_null());
}

int bind_record_write(const struct bind_record *rec, const char *dir, struct perr *err)
{
	json_t *o = json_object();
	json_object_set_new(o, "format", json_string("perfsweep-rank/1"));
	json_object_set_new(o, "rank", json_integer(rec->rank));
	json_object_set_new(o, "local_rank", json_integer(rec->local_rank));
	json_object_set_new(o, "ranks_per_node",
			    rec->ranks_per_node > 0 ? json_integer(rec->ranks_per_node) : json_null());
	json_object_set_new(o, "node", json_string(rec->node ? rec->node : ""));
	json_object_set_new(o, "policy", rec->policy ? json_string(rec->policy) : json_null());
	json_object_set_new(o, "cores_per_rank",
			    rec->cores_per_rank > 0   ? json_integer(rec->cores_per_rank)
			    : rec->cores_per_rank == 0 ? json_string("all")
						       : json_null());
	json_object_set_new(o, "cpuset", list_or_null(rec->cpuset));
	json_object_set_new(o, "cores", list_or_null(rec->cores));
	const struct bind_result *res = rec->result;
	json_object_set_new(o, "pid", res && res->pid ? json_integer(res->pid) : json_null());
	json_object_set_new(o, "start", res ? json_real(res->start) : json_null());
	json_object_set_new(o, "end", res ? json_real(res->end) : json_null());
	json_object_set_new(o, "wall", res ? json_real(res->wall) : json_null());
	usage_json(o, res && res->have_usage ? &res->usage : NULL);
	json_object_set_new(o, "exit_status", json_integer(res ? res->exit_status : rec->exit_status));
	json_object_set_new(o, "signal", res && res->signal ? json_integer(res->signal) : json_null());
	json_object_set_new(o, "error", rec->error ? json_string(rec->error) : json_null());
	json_t *args = json_array();
	for (int i = 0; rec->argv && rec->argv[i]; i++)
		json_array_append_new(args, json_string(rec->argv[i]));
	json_object_set_new(o, "argv", args);
	char *path = xasprintf("%s/rank-%d.json", dir, rec->rank);
	int r = 0;
	/* a termination signal now takes effect after the rename: no half record */
	sigset_t block, prev;
	sigemptyset(&block);
	for (int i = 0; i < NFORWARDED; i++)
		sigaddset(&block, forwarded[i]);
	sigprocmask(SIG_BLOCK, &block, &prev);
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	errno = 0;
	if (!text || fs_write_file_as(path, text, strlen(text), FS_ATOMIC_NOSYNC) < 0)
		r = perr_set(err, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
	sigprocmask(SIG_SETMASK, &prev, NULL);
	free(text);
	free(path);
	json_decref(o);
	return r;
}

static char *dup_or_null(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? xstrdup(v) : NULL;
}

static double num_or(json_t *o, const char *key, double dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

int bind_record_read(const char *path, struct bind_info *out, struct perr *err)
{
	memset(out, 0, sizeof(*out));
	json_error_t jerr;
	struct strbuf sb;
	const char *why;
	strbuf_init(&sb);
	if (fs_read_file(&sb, path, 0, &why)) {   /* a rank may leave a FIFO there */
		strbuf_release(&sb);
		return perr_set(err, "cannot read '%s': %s", path, why);
	}
	json_t *o = json_loadb(sb.buf, sb.len, 0, &jerr);
	strbuf_release(&sb);
	if (!o)
		return perr_set(err, "%s:%d: %s", path, jerr.line, jerr.text);
	const char *fmt = json_string_value(json_object_get(o, "format"));
	if (!json_is_object(o) || !fmt || strcmp(fmt, "perfsweep-rank/1") ||
	    !json_is_integer(json_object_get(o, "rank"))) {
		json_decref(o);
		return perr_set(err, "%s: not a perfsweep-rank/1 record", path);
	}
	out->rank = (int)json_integer_value(json_object_get(o, "rank"));
	out->local_rank = (int)num_or(o, "local_rank", 0);
	out->ranks_per_node = (int)num_or(o, "ranks_per_node", 0);
	out->node = dup_or_null(o, "node");
	out->policy = dup_or_null(o, "policy");
	out->cpuset = dup_or_null(o, "cpuset");
	out->cores = dup_or_null(o, "cores");
	out->error = dup_or_null(o, "error");
	out->start = num_or(o, "start", -1);
	out->end = num_or(o, "end", -1);
	out->wall = num_or(o, "wall", -1);
	out->exit_status = (int)num_or(o, "exit_status", 2);
	struct bind_usage *u = &out->usage;
	u->utime = num_or(o, "utime", NAN);
	u->stime = num_or(o, "stime", NAN);
	u->cpu_share = num_or(o, "cpu_share", NAN);
	u->maxrss_kb = (long long)num_or(o, "maxrss_kb", -1);
	u->nvcsw = (long long)num_or(o, "nvcsw", -1);
	u->nivcsw = (long long)num_or(o, "nivcsw", -1);
	u->load_start = num_or(o, "load_start", NAN);
	u->load_end = num_or(o, "load_end", NAN);
	u->run_delay = num_or(o, "run_delay", NAN);
	u->main_cpu = num_or(o, "main_cpu", NAN);
	out->have_usage = isfinite(u->utime) && isfinite(u->stime);
	json_decref(o);
	return 0;
}

void bind_info_release(struct bind_info *bi)
{
	free(bi->node);
	free(bi->policy);
	free(bi->cpuset);
	free(bi->cores);
	free(bi->error);
	memset(bi, 0, sizeof(*bi));
}

void bind_records_in(const char *dir, struct bind_info **out, int *n)
{
	*out = NULL;
	*n = 0;
	size_t alloc = 0;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		int r, len = 0;
		/* the prefix first: a run directory holds a dozen other files,
		   and a run's end reads it (sscanf costs thousands of instructions) */
		if (strncmp(e->d_name, "rank-", 5) ||
		    sscanf(e->d_name, "rank-%d.json%n", &r, &len) != 1 || e->d_name[len] || r < 0)
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct bind_info bi;
		struct perr rerr;
		if (bind_record_read(path, &bi, &rerr) == 0) {
			XGROW(*out, (size_t)*n + 1, alloc);
			(*out)[(*n)++] = bi;
		}
		free(path);
	}
	closedir(d);
}

void bind_infos_free(struct bind_info *bi, int n)
{
	for (int i = 0; i < n; i++)
		bind_info_release(&bi[i]);
	free(bi);
}

/* A record's cpuset (and its cores, when named) as bitmaps: 0, or -1 when it has none. */
static int record_sets(const struct bind_info *bi, hwloc_bitmap_t *pus, int *ncores)
{
	*pus = NULL;
	if (!bi->cpuset)
		return -1;
	*pus = hwloc_bitmap_alloc();
	if (hwloc_bitmap_list_sscanf(*pus, bi->cpuset) < 0 || hwloc_bitmap_iszero(*pus) ||
	    hwloc_bitmap_weight(*pus) < 0) {
		hwloc_bitmap_free(*pus);
		*pus = NULL;
		return -1;
	}
	*ncores = hwloc_bitmap_weight(*pus);
	hwloc_bitmap_t cores = hwloc_bitmap_alloc();
	if (bi->cores && hwloc_bitmap_list_sscanf(cores, bi->cores) == 0 && hwloc_bitmap_weight(cores) > 0)
		*ncores = hwloc_bitmap_weight(cores);
	hwloc_bitmap_free(cores);
	return 0;
}

void bind_allowed_shares(const struct bind_info *bi, int n, double *allowed)
{
	hwloc_bitmap_t *set = xcalloc((size_t)(n ? n : 1), sizeof(*set));
	int *ncores = xcalloc((size_t)(n ? n : 1), sizeof(int));
	for (int i = 0; i < n; i++)
		record_sets(&bi[i], &set[i], &ncores[i]);
	for (int i = 0; i < n; i++) {
		allowed[i] = NAN;
		if (!set[i])
			continue;
		/* the ranks of this node whose PUs meet this rank's share them */
		int sharing = 0;
		for (int j = 0; j < n; j++)
			sharing += set[j] && hwloc_bitmap_intersects(set[i], set[j]) &&
				   !strcmp(bi[i].node ? bi[i].node : "", bi[j].node ? bi[j].node : "");
		allowed[i] = (double)ncores[i] / sharing;
	}
	for (int i = 0; i < n; i++)
		if (set[i])
			hwloc_bitmap_free(set[i]);
	free(set);
	free(ncores);
}
