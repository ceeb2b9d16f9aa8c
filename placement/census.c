/* Who else runs on a run's cores: a census of /proc (census.h). */
#include "placement/census.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <hwloc.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One task seen (a thread; a single-threaded foreign process as a whole). */
struct census_task {
	uint64_t key;                   /* its tid, or PROCESS_KEY(pid) */
	pid_t tid, pid;
	unsigned long long ticks;       /* foreign: CPU time when last seen (a process key: the whole process's) */
	double delay, run;              /* own: schedstat's waiting and running seconds */
	int rank;                       /* own leader: its process's rank (-2: not read yet) */
	int own;
	int whole;                      /* ticks are the whole process's (a single-threaded one), not the thread's */
	unsigned gen;
};

/* The fields of a /proc stat line the census reads. */
struct stat_line {
	char comm[32];
	char state;
	pid_t ppid, session;
	unsigned long long ticks;       /* utime + stime */
	int threads;
	unsigned long long starttime;
	int cpu;                        /* field 39, -1 unknown */
};

/* A small file into buf (NUL-terminated): its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static int parse_stat(const char *buf, struct stat_line *s)
{
	const char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren || !close_paren[1])
		return -1;
	size_t len = (size_t)(close_paren - open_paren - 1);
	if (len >= sizeof(s->comm))
		len = sizeof(s->comm) - 1;
	memcpy(s->comm, open_paren + 1, len);
	s->comm[len] = '\0';
	/* fields restart after the last ')': the name may hold anything */
	char rest[1024];
	snprintf(rest, sizeof(rest), "%s", close_paren + 2);
	unsigned long long f[40] = { 0 };
	int n = 2;
	char *save = NULL;
	for (char *tok = strtok_r(rest, " \n", &save); tok && n < 39; tok = strtok_r(NULL, " \n", &save)) {
		if (++n == 3)
			s->state = tok[0];
		else
			f[n] = strtoull(tok, NULL, 10);
	}
	if (n < 22)
		return -1;
	s->ppid = (pid_t)f[4];
	s->session = (pid_t)f[6];
	s->ticks = f[14] + f[15];
	s->threads = (int)f[20];
	s->starttime = f[22];
	s->cpu = n >= 39 ? (int)f[39] : -1;
	return 0;
}

static int read_stat(const char *path, struct stat_line *s)
{
	char buf[1024];
	return read_small(path, buf, sizeof(buf)) > 0 ? parse_stat(buf, s) : -1;
}

void census_signals_probe(struct census_signals *s)
{
	char buf[4096];
	struct stat_line st;
	memset(s, 0, sizeof(*s));
	s->last_cpu = read_stat("/proc/self/stat", &st) == 0 && st.cpu >= 0;
	s->schedstat = read_small("/proc/self/schedstat", buf, sizeof(buf)) > 0;
	s->pressure = read_small("/proc/pressure/cpu", buf, sizeof(buf)) > 0 && strstr(buf, "total=");
	unsigned long long v[8];
	s->steal = read_small("/proc/stat", buf, sizeof(buf)) > 0 &&
		   sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
			  &v[5], &v[6], &v[7]) == 8;
}

void census_signals_describe(const struct census_signals *s, struct strbuf *sb)
{
	const char *name[] = { "foreign-task census", "run-queue delay", "CPU pressure", "steal time" };
	int have[] = { s->last_cpu, s->schedstat, s->pressure, s->steal };
	int k = 0;
	for (int i = 0; i < 4; i++)
		if (have[i])
			strbuf_addf(sb, "%s%s", k++ ? ", " : "", name[i]);
	if (!k)
		strbuf_addstr(sb, "none");
	for (int i = 0, m = 0; i < 4; i++)
		if (!have[i])
			strbuf_addf(sb, "%s%s", m++ ? ", " : (k ? "; no " : " (no "), name[i]);
	if (!k)
		strbuf_addch(sb, ')');
}

/* Per CPU from /proc/stat, in seconds: steal (a hypervisor's other guests)
   and busy (user, nice, system, irq, softirq: whatever ran there).  0, or
   -1 when it has no steal column.  One read (the CPUs' lines come first;
   the kernel makes the whole file at the first read, whatever its size)
   and no stdio: every run of the local backend reads it twice. */
static int read_cpu_times(int ncpus, long hz, double *steal, double *busy)
{
	size_t size = 512 + (size_t)ncpus * 256;
	char stack[8192], *buf = size <= sizeof(stack) ? stack : xmalloc(size);
	ssize_t got = read_small("/proc/stat", buf, size);
	int found = 0;
	for (int i = 0; i < ncpus; i++)
		steal[i] = busy[i] = 0;
	for (char *line = got > 0 ? buf : NULL; line && !strncmp(line, "cpu", 3);) {
		char *end, *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (isdigit((unsigned char)line[3])) {
			long cpu = strtol(line + 3, &end, 10);
			unsigned long long v[8];
			int k = 0;
			for (; k < 8; k++) {
				char *from = end;
				v[k] = strtoull(from, &end, 10);
				if (end == from)
					break;
			}
			if (k == 8 && cpu >= 0 && cpu < ncpus) {
				steal[cpu] = (double)v[7] / (double)hz;
				busy[cpu] = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)hz;
				found = 1;
			}
		}
		line = next;
	}
	if (buf != stack)
		free(buf);
	return found ? 0 : -1;
}

/* PSI's cpu "some" total in seconds, NaN when the kernel has none. */
static double read_pressure(void)
{
	char buf[512];
	if (read_small("/proc/pressure/cpu", buf, sizeof(buf)) <= 0)
		return NAN;
	const char *t = strstr(buf, "total=");
	return t ? strtod(t + 6, NULL) / 1e6 : NAN;
}

/* Boot ticks now: /proc/uptime's clock, as a task's start time counts
   (CLOCK_BOOTTIME; no file to read). */
static unsigned long long boot_ticks(long hz)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_BOOTTIME, &ts))
		return 0;
	return (unsigned long long)ts.tv_sec * (unsigned long long)hz +
	       (unsigned long long)ts.tv_nsec / (1000000000ULL / (unsigned long long)hz);
}

/* Processes are held apart from their threads: a multi-threaded one's
   whole CPU time under this key, its leader thread's under its pid. */
#define PROCESS_KEY(pid) ((uint64_t)1 << 32 | (uint32_t)(pid))

static struct census_task *task_at(struct census *c, uint64_t key, pid_t tid, int *fresh)
{
	size_t i = idmap_get(&c->task_index, key);
	*fresh = i == IDMAP_NONE;
	if (*fresh) {
		XGROW(c->tasks, c->ntasks + 1, c->tasks_alloc);
		i = c->ntasks++;
		memset(&c->tasks[i], 0, sizeof(c->tasks[i]));
		c->tasks[i].key = key;
		c->tasks[i].tid = tid;
		c->tasks[i].rank = -2;
		idmap_put(&c->task_index, key, i);
	}
	c->tasks[i].gen = c->gen;
	return &c->tasks[i];
}

static struct census_task *task_of(struct census *c, pid_t tid, int *fresh)
{
	return task_at(c, (uint64_t)(uint32_t)tid, tid, fresh);
}

/* A task seen for the first time started its count at: what it has now (it
   ran before the census), or zero (it started after). */
static unsigned long long baseline(const struct census *c, unsigned long long now, unsigned long long starttime)
{
	return (c->samples > 0 || c->late) && starttime >= c->t0 ? 0 : now;
}

static void add_cause(struct census *c, pid_t pid, const char *comm, int cpu, double seconds)
{
	for (int i = 0; i < c->ncauses; i++)
		if (c->causes[i].pid == pid && c->causes[i].cpu == cpu) {
			c->causes[i].seconds += seconds;
			/* the name it has now (a launcher execs its program) */
			snprintf(c->causes[i].comm, sizeof(c->causes[i].comm), "%s", comm);
			return;
		}
	XGROW(c->causes, (size_t)c->ncauses + 1, c->causes_alloc);
	struct census_cause *x = &c->causes[c->ncauses++];
	x->pid = pid;
	snprintf(x->comm, sizeof(x->comm), "%s", comm);
	x->cpu = cpu;
	x->seconds = seconds;
}

/* A task's CPU time since it was last seen, put on its last CPU: into
   bucket (NULL: c->foreign, and its process named as a cause).  whole: s
   is a single-threaded process's stat, whose times include its ended
   threads': a task read the other way last time starts again. */
static void cpu_delta(struct census *c, struct census_task *t, int fresh, const struct stat_line *s,
		      pid_t pid, const char *comm, int whole, double *bucket)
{
	unsigned long long was = fresh ? baseline(c, s->ticks, s->starttime)
			       : t->whole != whole ? s->ticks : t->ticks;
	t->pid = pid;
	t->ticks = s->ticks;
	t->whole = whole;
	if (s->ticks <= was || s->cpu < 0 || s->cpu >= c->ncpus)
		return;
	double seconds = (double)(s->ticks - was) / (double)c->hz;
	if (bucket) {
		bucket[s->cpu] += seconds;
		return;
	}
	c->foreign[s->cpu] += seconds;
	add_cause(c, pid, comm, s->cpu, seconds);
}

/* Every thread of foreign process pid (its name comm). */
static void foreign_threads(struct census *c, pid_t pid, const char *comm)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t tid = (pid_t)atoi(e->d_name);
		struct stat_line s;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
		if (read_stat(path, &s))
			continue;
		int fresh;
		struct census_task *t = task_of(c, tid, &fresh);
		cpu_delta(c, t, fresh, &s, pid, comm, 0, NULL);
	}
	closedir(d);
}

/* The rank in process pid's environment, -1 without one; -2 (not known
   yet) when it cannot be read or is empty: a process in the middle of an
   exec shows none, and the rank it is about to run is then taken for the
   whole run's, its waits and CPU with it. */
static int rank_of(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -2;
	static const char *const vars[] = { "PERFSWEEP_RANK=", "OMPI_COMM_WORLD_RANK=" };
	struct strbuf sb;
	strbuf_init(&sb);
	char buf[4096];
	ssize_t n;
	while (sb.len < (1 << 20) && (n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&sb, buf, (size_t)n);
	close(fd);
	int rank = sb.len ? -1 : -2;
	for (int v = 0; v < 2 && rank < 0; v++)
		for (size_t at = 0; at < sb.len; at += strlen(sb.buf + at) + 1)
			if (!strncmp(sb.buf + at, vars[v], strlen(vars[v]))) {
				rank = atoi(sb.buf + at + strlen(vars[v]));
				break;
			}
	strbuf_release(&sb);
	return rank;
}

/* Every thread of own process pid: its waiting and running time so far. */
static void own_threads(struct census *c, pid_t pid)
{
	int fresh;
	struct census_task *leader = task_of(c, pid, &fresh);
	if (leader->rank == -2)
		leader->rank = rank_of(pid);
	int rank = leader->rank;
	char path[80];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t tid = (pid_t)atoi(e->d_name);
		char buf[256];
		unsigned long long run, delay;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
		if (read_small(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%llu %llu", &run, &delay) != 2)
			continue;
		struct census_task *t = task_of(c, tid, &fresh);
		t->own = 1;
		t->pid = pid;
		t->run = (double)run / 1e9;
		t->delay = (double)delay / 1e9;
		if (tid != pid)
			t->rank = rank;
	}
	closedir(d);
}

/* The sessions of one sample already looked at: excluded or not. */
struct sessions {
	pid_t sid[64];
	unsigned char excluded[64];
	int n;
};

/* perfsweep's own: the orchestrator, and the sessions its supervisors lead. */
static int excluded(const struct census *c, struct sessions *seen, pid_t pid, pid_t sid)
{
	if (c->orchestrator > 0 && pid == c->orchestrator)
		return 1;
	if (c->orchestrator <= 0 || sid <= 1)
		return 0;
	for (int i = 0; i < seen->n; i++)
		if (seen->sid[i] == sid)
			return seen->excluded[i];
	char path[64];
	struct stat_line leader;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)sid);
	int ex = read_stat(path, &leader) == 0 && leader.ppid == c->orchestrator;
	if (seen->n < 64) {
		seen->sid[seen->n] = sid;
		seen->excluded[seen->n++] = (unsigned char)ex;
	}
	return ex;
}

/* One process in a sample. */
static void sample_process(struct census *c, struct sessions *seen, pid_t pid)
{
	char path[64];
	struct stat_line s;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_stat(path, &s) || pid == c->self)
		return;
	int fresh;
	int own = c->session > 0 && s.session == c->session;
	/* a rank's launcher waits before and after its program's clock */
	if (own && strcmp(s.comm, "perfsweep-bind")) {
		own_threads(c, pid);
		return;
	}
	double *bucket = own ? c->bind : excluded(c, seen, pid, s.session) ? c->ours : NULL;
	if (bucket || s.threads <= 1) {
		struct census_task *t = task_of(c, pid, &fresh);
		cpu_delta(c, t, fresh, &s, pid, s.comm, 1, bucket);
		return;
	}
	/* threads are read only when the process used CPU time since */
	struct census_task *p = task_at(c, PROCESS_KEY(pid), pid, &fresh);
	unsigned long long was = p->ticks;
	p->ticks = s.ticks;
	if (fresh || s.ticks > was)
		foreign_threads(c, pid, s.comm);
}

/* Forget foreign tasks not seen in this sample (own ones keep their last figures). */
static void prune(struct census *c)
{
	size_t k = 0;
	for (size_t i = 0; i < c->ntasks; i++)
		if (c->tasks[i].own || c->tasks[i].gen == c->gen)
			c->tasks[k++] = c->tasks[i];
	if (k == c->ntasks)
		return;
	c->ntasks = k;
	idmap_release(&c->task_index);
	for (size_t i = 0; i < k; i++)
		idmap_put(&c->task_index, c->tasks[i].key, i);
}

void census_sample(struct census *c)
{
	double cpu0 = thread_cpu_now();
	c->gen++;
	struct sessions seen = { .n = 0 };
	DIR *d = opendir("/proc");
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (isdigit((unsigned char)e->d_name[0]))
				sample_process(c, &seen, (pid_t)atoi(e->d_name));
		closedir(d);
	}
	if (c->gen % 64 == 0)
		prune(c);
	c->samples++;
	c->mono_last = mono_now();
	double spent = thread_cpu_now() - cpu0;
	int cpu = sched_getcpu();
	c->cost += spent;
	if (cpu >= 0 && cpu < c->ncpus)
		c->ours[cpu] += spent;
}

void census_start(struct census *c, pid_t session, pid_t orchestrator)
{
	census_begin(c, session, orchestrator);
	c->late = 0;
	census_sample(c);
}

/*
 * The machine-wide figures the last census of this thread ended with
 * (/proc/stat per CPU, PSI): the next one's start when it begins within a
 * clock tick of that end.  /proc/stat counts in ticks, so they are the same
 * figures read again; PSI differs by what the gap between the two held.
 * A supervisor serving short runs one after another reads each file once
 * a run instead of twice.
 */
static _Thread_local struct {
	double mono;
	int ncpus;
	double *steal, *busy;   /* NULL: no steal column */
	double pressure;
} last_end = { .mono = -1 };

/* Keep the end figures read now: steal and busy per CPU (NULL: none), pressure. */
static void keep_end(int ncpus, const double *steal, const double *busy, double pressure)
{
	if (last_end.ncpus != ncpus) {
		free(last_end.steal);
		free(last_end.busy);
		last_end.steal = xcalloc((size_t)ncpus, sizeof(double));
		last_end.busy = xcalloc((size_t)ncpus, sizeof(double));
		last_end.ncpus = ncpus;
	}
	last_end.mono = steal ? mono_now() : -1;
	if (steal) {
		memcpy(last_end.steal, steal, sizeof(double) * (size_t)ncpus);
		memcpy(last_end.busy, busy, sizeof(double) * (size_t)ncpus);
	}
	last_end.pressure = pressure;
}

/* The start figures into c: those the last census ended with, if fresh; 0, or -1 to read them. */
static int start_as_last_end(struct census *c)
{
	if (last_end.mono < 0 || last_end.ncpus != c->ncpus || mono_now() - last_end.mono >= 1.0 / (double)c->hz)
		return -1;
	memcpy(c->steal0, last_end.steal, sizeof(double) * (size_t)c->ncpus);
	memcpy(c->busy0, last_end.busy, sizeof(double) * (size_t)c->ncpus);
	c->pressure0 = last_end.pressure;
	return 0;
}

void census_begin(struct census *c, pid_t session, pid_t orchestrator)
{
	/* the same for the process's life (glibc reads a file for the first) */
	static _Atomic int ncpus, schedstat;
	static _Atomic long hz;
	if (!ncpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF), t = sysconf(_SC_CLK_TCK);
		char buf[256];
		hz = t > 0 ? t : 100;
		schedstat = read_small("/proc/self/schedstat", buf, sizeof(buf)) > 0;
		ncpus = n > 0 ? (int)n : 1;
	}
	memset(c, 0, sizeof(*c));
	c->late = 1;
	c->ncpus = ncpus;
	c->hz = hz;
	c->self = getpid();
	c->session = session;
	c->orchestrator = orchestrator;
	c->foreign = xcalloc((size_t)c->ncpus, sizeof(double));
	c->ours = xcalloc((size_t)c->ncpus, sizeof(double));
	c->bind = xcalloc((size_t)c->ncpus, sizeof(double));
	idmap_init(&c->task_index);
	c->steal0 = xcalloc((size_t)c->ncpus, sizeof(double));
	c->busy0 = xcalloc((size_t)c->ncpus, sizeof(double));
	if (start_as_last_end(c) == 0) {
		/* as read a moment ago */
	} else if (read_cpu_times(c->ncpus, c->hz, c->steal0, c->busy0)) {
		free(c->steal0);
		free(c->busy0);
		c->steal0 = c->busy0 = NULL;
		c->pressure0 = read_pressure();
	} else {
		c->pressure0 = read_pressure();
	}
	c->schedstat = schedstat;
	c->steal_s = c->pressure_s = NAN;
	/* a tick early: a task started in the same tick counts from zero */
	unsigned long long now = boot_ticks(c->hz);
	c->t0 = now > 0 ? now - 1 : 0;
	c->mono0 = c->mono_last = mono_now();
}

/* Own tasks' figures summed per rank into c->ranks. */
static void sum_ranks(struct census *c)
{
	c->nranks = 0;
	for (size_t i = 0; i < c->ntasks; i++) {
		const struct census_task *t = &c->tasks[i];
		if (!t->own)
			continue;
		int rank = t->rank >= -1 ? t->rank : -1, k = 0;
		while (k < c->nranks && c->ranks[k].rank != rank)
			k++;
		if (k == c->nranks) {
			XGROW(c->ranks, (size_t)c->nranks + 1, c->ranks_alloc);
			c->ranks[c->nranks++] = (struct census_rank){ .rank = rank };
		}
		c->ranks[k].run_delay += t->delay;
		c->ranks[k].cpu += t->run;
	}
}

static int by_seconds(const void *a, const void *b)
{
	double x = ((const struct census_cause *)a)->seconds, y = ((const struct census_cause *)b)->seconds;
	return (x < y) - (x > y);
}

void census_finish(struct census *c)
{
	if (c->samples > 0 || !c->late)
		census_sample(c);
	else
		c->mono_last = mono_now();
	sum_ranks(c);
	if (c->ncauses > 1)   /* qsort wants an array, even of none */
		qsort(c->causes, (size_t)c->ncauses, sizeof(*c->causes), by_seconds);
	double p = read_pressure();
	int have = 0;
	if (c->steal0) {
		c->steal = xcalloc((size_t)c->ncpus, sizeof(double));
		c->busy = xcalloc((size_t)c->ncpus, sizeof(double));
		if (read_cpu_times(c->ncpus, c->hz, c->steal, c->busy) == 0) {
			have = 1;
			keep_end(c->ncpus, c->steal, c->busy, p);
			c->steal_s = 0;
			for (int i = 0; i < c->ncpus; i++) {
				c->steal[i] = fmax(0, c->steal[i] - c->steal0[i]);
				c->busy[i] = fmax(0, c->busy[i] - c->busy0[i]);
				c->steal_s += c->steal[i];
			}
		} else {
			free(c->steal);
			free(c->busy);
			c->steal = c->busy = NULL;
		}
	}
	if (!have)
		keep_end(c->ncpus, NULL, NULL, p);
	if (isfinite(p) && isfinite(c->pressure0))
		c->pressure_s = fmax(0, p - c->pressure0);
}

void census_release(struct census *c)
{
	free(c->foreign);
	free(c->causes);
	free(c->ranks);
	free(c->tasks);
	idmap_release(&c->task_index);
	free(c->steal0);
	free(c->steal);
	free(c->busy0);
	free(c->busy);
	free(c->ours);
	free(c->bind);
	memset(c, 0, sizeof(*c));
}

static int has_cpu(const int *cpus, int n, int cpu)
{
	for (int i = 0; i < n; i++)
		if (cpus[i] == cpu)
			return 1;
	return 0;
}

double census_foreign_on(const struct census *c, const int *cpus, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		if (cpus[i] >= 0 && cpus[i] < c->ncpus)
			s += c->foreign[cpus[i]];
	return s;
}

const struct census_cause *census_top_cause(const struct census *c, const int *cpus, int n)
{
	const struct census_cause *best = NULL;
	for (int i = 0; i < c->ncauses; i++)
		if (has_cpu(cpus, n, c->causes[i].cpu) && (!best || c->causes[i].seconds > best->seconds))
			best = &c->causes[i];
	return best;
}

int census_cpus_of(const char *list, int **cpus)
{
	*cpus = NULL;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!list || hwloc_bitmap_list_sscanf(set, list) < 0 || hwloc_bitmap_weight(set) < 0) {
		hwloc_bitmap_free(set);
		return -1;
	}
	int n = hwloc_bitmap_weight(set), k = 0;
	*cpus = xcalloc((size_t)n + 1, sizeof(int));
	int i;
	hwloc_bitmap_foreach_begin(i, set)
		(*cpus)[k++] = i;
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(set);
	return k;
}
