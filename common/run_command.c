/* Starting and reaping child processes: fork, set up, exec or call, wait4. */
#include "common/run_command.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* In the child: every caught signal back to its default, nothing blocked. */
static void child_signals(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa))
			continue;
		if (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
			sa.sa_handler = SIG_DFL;
			sa.sa_flags = 0;
			sigaction(sig, &sa, NULL);
		}
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the child: close every descriptor above 2 but those it keeps, with
   close_range over each gap (no listing of /proc/self/fd, no allocation:
   a vforked child must not touch the caller's heap). */
static void child_close_fds(const struct child_process *cp, int notify)
{
	int keep[CHILD_KEEP_FDS + 3], n = 0;
	keep[n++] = notify;
	if (cp->capture)
		keep[n++] = cp->pipe_fd;
	for (int i = 0; i < cp->nkeep && i < CHILD_KEEP_FDS; i++)
		keep[n++] = cp->keep_fd[i];
	for (int i = 1; i < n; i++)   /* insertion sort: a handful */
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	unsigned lo = 3;
	for (int i = 0; i <= n; i++) {
		unsigned hi = i < n ? (unsigned)keep[i] : ~0U;
		if (i < n && keep[i] < 3)
			continue;
		if (hi > lo && close_range(lo, hi - 1, 0) && errno == ENOSYS) {
			/* an old kernel: every descriptor up to the limit */
			struct rlimit rl;
			unsigned top = !getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 65536 ? (unsigned)rl.rlim_cur : 65536;
			for (unsigned fd = lo; fd < top && fd < hi; fd++)
				close((int)fd);
		}
		if (i < n && (unsigned)keep[i] + 1 > lo)
			lo = (unsigned)keep[i] + 1;
	}
}

/*
 * The environment a program starts with: the caller's, with env applied by
 * putenv's rule ("KEY=VALUE" replaces or adds KEY, "KEY" removes it).  Built
 * in the caller, before the vfork.  NULL-terminated; free the array only
 * (its strings are the caller's and env's).
 */
__attribute__((noinline)) static char **child_environ(char *const *env)
{
	extern char **environ;
	size_t n = 0, m = 0;
	while (environ[n])
		n++;
	for (char *const *e = env; e && *e; e++)
		m++;
	char **out = xcalloc(n + m + 1, sizeof(*out));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		out[k++] = environ[i];
	for (char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t klen = eq ? (size_t)(eq - *e) : strlen(*e);
		size_t w = 0;
		for (size_t i = 0; i < k; i++)   /* drop KEY's old entries */
			if (!(strncmp(out[i], *e, klen) == 0 && out[i][klen] == '='))
				out[w++] = out[i];
		k = w;
		if (eq)
			out[k++] = *e;
	}
	out[k] = NULL;
	return out;
}

/* Open path onto fd (in the child).  0 or -1 (errno). */
static int redirect(const char *path, int flags, int fd)
{
	int f = open(path, flags, 0644);
	if (f < 0)
		return -1;
	if (f != fd) {
		if (dup2(f, fd) < 0)
			return -1;
		close(f);
	}
	return 0;
}

/* In the child: set up, then exec or call.  Never returns; what failed
   goes to notify as an errno.  With envp (a program, vforked) it allocates
   nothing and writes no memory of the caller's but errno. */
_Noreturn static void child_run(struct child_process *cp, pid_t parent, int notify, char **envp)
{
	child_signals();
	if (cp->new_session)
		setsid();
	else if (cp->new_group)
		setpgid(0, 0);
	else if (cp->join_group > 0)
		setpgid(0, cp->join_group);
	if (cp->pdeathsig > 0) {
		prctl(PR_SET_PDEATHSIG, cp->pdeathsig);
		if (getppid() != parent)   /* the caller died before the line above */
			_exit(128 + cp->pdeathsig);
	}
	if (cp->close_fds)
		child_close_fds(cp, notify);
	int stage = CHILD_REDIRECT;
	/* capture: pipe_fd is the write end here (start_command) */
	if ((cp->capture && dup2(cp->pipe_fd, cp->capture) < 0) ||
	    (cp->in && redirect(cp->in, O_RDONLY, 0)) ||
	    (cp->out && cp->capture != 1 && redirect(cp->out, O_WRONLY | O_CREAT | O_TRUNC, 1)) ||
	    (cp->err && cp->capture != 2 && !cp->err_to_out && redirect(cp->err, O_WRONLY | O_CREAT | O_TRUNC, 2)) ||
	    (cp->err_to_out && dup2(1, 2) < 0))
		goto fail;
	stage = CHILD_DIR;
	if (cp->dir && chdir(cp->dir))
		goto fail;
	stage = CHILD_EXEC;
	if (!cp->argv) {
		for (char *const *e = cp->env; e && *e; e++)
			putenv(xstrdup(*e));
		close(notify);   /* no exec closes it: the caller waits for this */
		_exit(cp->fn(cp->data));
	}
	signal(SIGPIPE, SIG_DFL);   /* a caller ignores it for its own writes */
	execvpe(cp->argv[0], cp->argv, envp);
fail:;
	int e[2] = { errno, stage };
	ssize_t w = write(notify, e, sizeof(e));
	(void)w;
	_exit(e[0] == ENOENT ? 127 : 126);
}

int start_command(struct child_process *cp)
{
	cp->pid = 0;
	cp->exec_errno = 0;
	cp->exec_stage = 0;
	cp->finished = 0;
	int epfd[2] = { -1, -1 };
	if (cp->capture && pipe2(epfd, O_CLOEXEC))
		return -1;
	cp->pipe_fd = epfd[1];   /* the child's end, in the child */
	/* a close-on-exec pipe: EOF once the child runs, an errno if it cannot */
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC)) {
		int e = errno;
		if (cp->capture) {
			close(epfd[0]);
			close(epfd[1]);
		}
		cp->pipe_fd = -1;
		errno = e;
		return -1;
	}
	/* no handler of ours may run in the child before it resets them */
	sigset_t all, prev;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &prev);
	pid_t parent = getpid();
	/* A program is vforked: no copy of the caller's pages, the caller waits
	   until it execs.  fn runs code of ours in the child: a real fork. */
	char **envp = cp->argv ? child_environ(cp->env) : NULL;
	pid_t pid = cp->argv ? vfork() : fork();
	if (pid == 0) {
		close(pfd[0]);
		if (cp->capture)
			close(epfd[0]);
		child_run(cp, parent, pfd[1], envp);
	}
	int fork_errno = errno;
	free(envp);
	if (pid > 0 && (cp->new_group || cp->join_group > 0))
		setpgid(pid, cp->new_group ? pid : cp->join_group);   /* both sides: no race */
	sigprocmask(SIG_SETMASK, &prev, NULL);
	close(pfd[1]);
	if (cp->capture)
		close(epfd[1]);
	cp->pipe_fd = epfd[0];
	if (pid < 0) {
		close(pfd[0]);
		if (cp->capture)
			close(epfd[0]);
		cp->pipe_fd = -1;
		errno = fork_errno;
		return -1;
	}
	int e[2] = { 0, 0 };
	ssize_t got;
	do
		got = read(pfd[0], e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close(pfd[0]);
	cp->pid = pid;
	if (got == (ssize_t)sizeof(e)) {
		finish_command(cp);
		if (cp->capture)
			close(cp->pipe_fd);
		cp->pipe_fd = -1;
		cp->exec_errno = e[0];
		cp->exec_stage = e[1];
		errno = e[0];
		return -1;
	}
	return 0;
}

/* wait4 for cp: 1 reaped, 0 running (WNOHANG), -1 (errno). */
static int reap(struct child_process *cp, int options)
{
	if (cp->finished)
		return 1;
	if (cp->pid <= 0) {
		errno = ECHILD;
		return -1;
	}
	pid_t w;
	do
		w = wait4(cp->pid, &cp->status, options, &cp->ru);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -1;
	if (w == 0)
		return 0;
	cp->finished = 1;
	return 1;
}

int poll_command(struct child_process *cp)
{
	return reap(cp, WNOHANG);
}

int wait_commands(struct child_process *const *cps, int n, double timeout)
{
	sigset_t chld, prev;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* blocked, a SIGCHLD after the poll below stays pending for sigtimedwait */
	sigprocmask(SIG_BLOCK, &chld, &prev);
	double end = mono_now() + timeout;
	int got = 0, ret;
	for (;;) {
		int live = 0;
		for (int i = 0; i < n; i++) {
			if (cps[i]->finished)
				continue;
			int r = poll_command(cps[i]);
			if (r < 0) {
				got = -1;
				goto out;
			}
			got += r;
			live += !r;
		}
		double left = timeout < 0 ? 1 : end - mono_now();
		if (got || !live || left <= 0)
			break;
		left = left > 1 ? 1 : left;   /* look again now and then all the same */
		struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };
		sigtimedwait(&chld, NULL, &ts);
	}
out:
	ret = got;
	int e = errno;
	sigprocmask(SIG_SETMASK, &prev, NULL);
	errno = e;
	return ret;
}

int finish_command(struct child_process *cp)
{
	if (reap(cp, 0) < 0)
		return -1;
	return command_exit_code(cp->status);
}

int command_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
