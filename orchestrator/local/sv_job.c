/* A run handed to a long-lived supervisor, one frame over a pipe. */
#include "orchestrator/local/sv_job.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A frame larger than this is not one of ours (argv and env of a run are
   far smaller). */
#define SV_JOB_MAX (64u << 20)

static void put(struct strbuf *sb, const void *p, size_t n)
{
	strbuf_add(sb, p, n);
}

static void put_i64(struct strbuf *sb, long long v)
{
	int64_t x = v;
	put(sb, &x, sizeof(x));
}

static void put_f64(struct strbuf *sb, double v)
{
	put(sb, &v, sizeof(v));
}

/* A string: its length + 1 (0: NULL), then its bytes and a NUL. */
static void put_str(struct strbuf *sb, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) + 1 : 0;
	put(sb, &n, sizeof(n));
	if (s)
		put(sb, s, n);
}

static void put_strv(struct strbuf *sb, char *const *v)
{
	uint32_t n = 0;
	while (v && v[n])
		n++;
	put(sb, &n, sizeof(n));
	for (uint32_t i = 0; i < n; i++)
		put_str(sb, v[i]);
}

int sv_pipe_write(int fd, const void *buf, size_t n)
{
	sigset_t pipe_set, was;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &was);
	const char *p = buf;
	int rc = 0;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = -1;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	int e = errno;
	if (rc && e == EPIPE && !sigismember(&was, SIGPIPE)) {
		struct timespec now = { 0, 0 };   /* the SIGPIPE of that write, taken here */
		sigtimedwait(&pipe_set, NULL, &now);
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	errno = e;
	return rc;
}

int sv_job_send(int fd, const struct run_spec *rs, const struct launch_placement *lp,
		const struct sv_cores *cores)
{
	struct strbuf sb;
	strbuf_init(&sb);
	uint32_t len = 0;
	put(&sb, &len, sizeof(len));   /* filled in below */
	put_i64(&sb, rs->id);
	put_str(&sb, rs->campaign);
	put_str(&sb, rs->campaign_dir);
	put_str(&sb, rs->store_id);
	put_strv(&sb, rs->argv);
	put_strv(&sb, rs->env);
	put_str(&sb, rs->workdir);
	put_str(&sb, rs->run_dir);
	put_f64(&sb, rs->timeout);
	put_i64(&sb, rs->ranks);
	put_i64(&sb, rs->nodes);
	put_i64(&sb, rs->ranks_per_node);
	put_str(&sb, rs->policy);
	put_str(&sb, rs->cores_per_rank);
	put_str(&sb, rs->map);
	put_str(&sb, rs->bind_path);
	put_f64(&sb, rs->est_seconds);
	put_i64(&sb, rs->attempt);
	put_str(&sb, rs->point);
	put_str(&sb, rs->mpi);
	put_i64(&sb, lp != NULL);
	put_str(&sb, lp ? lp->policy : NULL);
	put_i64(&sb, lp ? lp->ranks_per_node : 0);
	put_str(&sb, lp ? lp->cores_per_rank : NULL);
	put_str(&sb, lp ? lp->map : NULL);
	put_str(&sb, lp ? lp->within : NULL);
	put_str(&sb, cores->noted);
	put_str(&sb, cores->cpus);
	put_f64(&sb, cores->quiet_waited);
	put_i64(&sb, cores->quiet_gave_up);
	put_str(&sb, cores->quiet_cause);
	len = (uint32_t)(sb.len - sizeof(len));
	memcpy(sb.buf, &len, sizeof(len));
	int rc = sv_pipe_write(fd, sb.buf, sb.len);
	int e = errno;
	strbuf_release(&sb);
	errno = e;
	return rc;
}

int sv_pipe_read(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* The reader of a frame: where it is, and whether it ran past the end. */
struct frame {
	char *p, *end;
	int bad;
};

static void take(struct frame *f, void *out, size_t n)
{
	if (f->bad || (size_t)(f->end - f->p) < n) {
		f->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, f->p, n);
	f->p += n;
}

static long long take_i64(struct frame *f)
{
	int64_t x;
	take(f, &x, sizeof(x));
	return x;
}

static int take_int(struct frame *f)
{
	long long x = take_i64(f);
	if (x < INT_MIN || x > INT_MAX) {
		f->bad = 1;
		return 0;
	}
	return (int)x;
}

static double take_f64(struct frame *f)
{
	double x;
	take(f, &x, sizeof(x));
	return x;
}

static char *take_str(struct frame *f)
{
	uint32_t n;
	take(f, &n, sizeof(n));
	if (f->bad || !n)
		return NULL;
	if ((size_t)(f->end - f->p) < n || f->p[n - 1] != '\0') {
		f->bad = 1;
		return NULL;
	}
	char *s = f->p;
	f->p += n;
	return s;
}

static char **take_strv(struct frame *f)
{
	uint32_t n;
	take(f, &n, sizeof(n));
	if (f->bad || n > (uint32_t)(f->end - f->p) / sizeof(uint32_t)) {
		f->bad = 1;
		return NULL;
	}
	char **v = xcalloc((size_t)n + 1, sizeof(*v));
	for (uint32_t i = 0; i < n && !f->bad; i++)
		v[i] = take_str(f);
	return v;
}

int sv_job_read(int fd, struct sv_job *job)
{
	memset(job, 0, sizeof(*job));
	uint32_t len;
	if (sv_pipe_read(fd, &len, sizeof(len)) || len > SV_JOB_MAX)
		return -1;
	job->buf = xmalloc((size_t)len + 1);
	if (sv_pipe_read(fd, job->buf, len)) {
		sv_job_release(job);
		return -1;
	}
	struct frame f = { job->buf, job->buf + len, 0 };
	struct run_spec *rs = &job->rs;
	rs->id = take_i64(&f);
	rs->campaign = take_str(&f);
	rs->campaign_dir = take_str(&f);
	rs->store_id = take_str(&f);
	rs->argv = job->argv = take_strv(&f);
	rs->env = job->env = take_strv(&f);
	rs->workdir = take_str(&f);
	rs->run_dir = take_str(&f);
	rs->timeout = take_f64(&f);
	rs->ranks = take_int(&f);
	rs->nodes = take_int(&f);
	rs->ranks_per_node = take_int(&f);
	rs->policy = take_str(&f);
	rs->cores_per_rank = take_str(&f);
	rs->map = take_str(&f);
	rs->bind_path = take_str(&f);
	rs->est_seconds = take_f64(&f);
	rs->attempt = take_int(&f);
	rs->point = take_str(&f);
	rs->mpi = take_str(&f);
	job->has_lp = take_int(&f);
	job->lp.policy = take_str(&f);
	job->lp.ranks_per_node = take_int(&f);
	job->lp.cores_per_rank = take_str(&f);
	job->lp.map = take_str(&f);
	job->lp.within = take_str(&f);
	job->cores.noted = take_str(&f);
	job->cores.cpus = take_str(&f);
	job->cores.quiet_waited = take_f64(&f);
	job->cores.quiet_gave_up = take_int(&f);
	job->cores.quiet_cause = take_str(&f);
	if (f.bad || f.p != f.end || !rs->argv || !rs->argv[0] || !rs->run_dir ||
	    (job->has_lp != 0 && job->has_lp != 1)) {
		sv_job_release(job);
		return -1;
	}
	if (!job->has_lp)   /* no policy: no line, whatever the frame held */
		memset(&job->lp, 0, sizeof(job->lp));
	return 0;
}

void sv_job_release(struct sv_job *job)
{
	free(job->argv);
	free(job->env);
	free(job->buf);
	memset(job, 0, sizeof(*job));
}
