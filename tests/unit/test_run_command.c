/*
 * common/run_command: real processes started, redirected, grouped, waited
 * for (with a limit) and reaped with their usage; and the local run's
 * supervisor ids (orchestrator/local/supervisor.h), which must never take a recycled
 * pid for the process they name.
 */
#include "common/run_command.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/local/backend_local.h"
#include "orchestrator/local/supervisor.h"
#include "tests/lib/tap.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>

static char *slurp(const char *path)
{
	struct strbuf sb;
	strbuf_init(&sb);
	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

static int child_fn(void *data)
{
	return *(int *)data;
}

/* The start time /proc gives pid (field 22), as the supervisor reads it. */
static unsigned long long starttime_of(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	char *text = slurp(path);
	unsigned long long t = 0;
	char *p = text ? strrchr(text, ')') : NULL;
	if (p)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &t);
	free(text);
	return t;
}

static void test_start_finish(void)
{
	const char *dir = tap_tmpdir();
	char *out = xasprintf("%s/out", dir);
	char *argv[] = { "/bin/sh", "-c", "echo to-out; echo to-err >&2; pwd; echo $RC_TEST; exit 3", NULL };
	char *env[] = { "RC_TEST=from-env", NULL };
	struct child_process cp = { .argv = argv, .env = env, .dir = "/", .in = "/dev/null",
				    .out = out, .err_to_out = 1 };
	is_int(start_command(&cp), 0, "a command starts");
	is_int(finish_command(&cp), 3, "its exit code comes back");
	char *text = slurp(out);
	is_str(text, "to-out\nto-err\n/\nfrom-env\n", "stdout and stderr in one file, its directory and environment");
	free(text);
	ok(cp.ru.ru_maxrss > 0, "wait4 gave its usage (max RSS %ld KiB)", cp.ru.ru_maxrss);

	char *missing[] = { "/nonexistent/prog", NULL };
	struct child_process bad = { .argv = missing };
	is_int(start_command(&bad), -1, "a program that does not exist does not start");
	is_int(bad.exec_errno, ENOENT, "and says why");

	int code = 7;
	struct child_process fn = { .fn = child_fn, .data = &code, .close_fds = 1 };
	is_int(start_command(&fn) == 0 ? finish_command(&fn) : -1, 7, "a function child's return is its exit code");
	free(out);
}

static char *read_all(int fd)
{
	struct strbuf sb;
	strbuf_init(&sb);
	char buf[256];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			strbuf_add(&sb, buf, (size_t)n);
	close(fd);
	return strbuf_detach(&sb);
}

static int say_to_stderr(void *data)
{
	fputs((const char *)data, stderr);
	return 4;
}

/* capture: one descriptor to a pipe, the other left where it was */
static void test_capture(void)
{
	const char *dir = tap_tmpdir();
	char *out = xasprintf("%s/cap-out", dir);
	char *argv[] = { "/bin/sh", "-c", "echo on-out; echo on-err >&2", NULL };
	struct child_process cp = { .argv = argv, .out = out, .capture = 2, .close_fds = 1 };
	if (ok(start_command(&cp) == 0 && cp.pipe_fd >= 0, "capture 2: the command starts with a pipe")) {
		char *got = read_all(cp.pipe_fd);
		is_str(got, "on-err\n", "stderr came through the pipe");
		free(got);
		is_int(finish_command(&cp), 0, "and it ended well");
		char *text = slurp(out);
		is_str(text, "on-out\n", "stdout still went to its file");
		free(text);
	}
	struct child_process fn = { .fn = say_to_stderr, .data = "from a function\n", .capture = 2 };
	if (ok(start_command(&fn) == 0, "a function child with its stderr captured starts")) {
		char *got = read_all(fn.pipe_fd);
		is_str(got, "from a function\n", "its stderr came through the pipe (the pipe closes when it ends)");
		free(got);
		is_int(finish_command(&fn), 4, "its return is its exit code");
	}
	char *echo[] = { "/bin/echo", "answer", NULL };
	struct child_process o = { .argv = echo, .capture = 1 };
	if (ok(start_command(&o) == 0, "capture 1 starts")) {
		char *got = read_all(o.pipe_fd);
		is_str(got, "answer\n", "stdout came through the pipe");
		free(got);
		finish_command(&o);
	}
	char *missing[] = { "/nonexistent/prog", NULL };
	struct child_process bad = { .argv = missing, .capture = 2 };
	ok(start_command(&bad) == -1 && bad.pipe_fd == -1, "a program that cannot start leaves no pipe open");
	free(out);
}

static void test_groups_and_waiting(void)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct child_process a = { .argv = argv, .new_group = 1 };
	struct child_process s = { .argv = argv, .new_session = 1 };
	if (!ok(start_command(&a) == 0 && start_command(&s) == 0, "two sleepers start"))
		return;
	is_int(getpgid(a.pid), a.pid, "new_group: a process group of its own");
	is_int(getsid(s.pid), s.pid, "new_session: a session of its own");
	struct child_process *both[] = { &a, &s };
	is_int(wait_commands(both, 2, 0.05), 0, "waiting with a limit returns while they sleep");
	is_int(poll_command(&a), 0, "poll: still running");
	kill(a.pid, SIGKILL);
	is_int(wait_commands(both, 2, -1), 1, "one ends: wait_commands returns it");
	ok(a.finished && !s.finished, "the one that ended is reaped, the other not");
	is_int(command_exit_code(a.status), 128 + SIGKILL, "a signal's exit code is 128 + signal");

	/* supervisor ids: a pid with another start time is another process */
	unsigned long long st = starttime_of(s.pid);
	char *id = xasprintf("%d:%llu", (int)s.pid, st), *wrong = xasprintf("%d:%llu", (int)s.pid, st + 1);
	pid_t pid;
	unsigned long long start;
	ok(supervisor_parse_id(id, &pid, &start) == 0 && pid == s.pid && start == st, "an id parses");
	ok(supervisor_parse_id("12:x", &pid, &start) < 0 && supervisor_parse_id("1:5", &pid, &start) < 0,
	   "a malformed id, or pid 1, is no id");
	ok(supervisor_alive(s.pid, st) && !supervisor_alive(s.pid, st + 1), "alive: the pid and its start time");
	struct run_spec rs = { .id = 1, .attempt = 1 };
	is_int(backend_local_cancel_id(&rs, wrong), 0, "cancel with another start time kills nothing");
	is_int(poll_command(&s), 0, "and the process lives");
	is_int(supervisor_kill_run(s.pid, st, 0), 1, "killing a run kills its session");
	is_int(finish_command(&s), 128 + SIGKILL, "the leader is gone");
	ok(!supervisor_alive(s.pid, st), "and no longer alive");
	free(id);
	free(wrong);
}

/* close_fds keeps 0-2, the kept descriptors and nothing else; env follows
   putenv's rule: KEY=V replaces or adds, KEY removes */
static void test_fds_and_env(void)
{
	const char *dir = tap_tmpdir();
	char *out = xasprintf("%s/fds-out", dir);
	int lo[2], hi = -1, keep = -1;
	if (!ok(pipe(lo) == 0, "a pipe to leave open"))
		return;
	hi = fcntl(lo[0], F_DUPFD, 40);
	keep = fcntl(lo[0], F_DUPFD, 20);
	setenv("PS_TEST_OLD", "old", 1);
	setenv("PS_TEST_GONE", "here", 1);
	char *fdarg = xasprintf("ls /proc/self/fd | sort -n | tr '\\n' ' '; echo; "
				"echo \"$PS_TEST_OLD|$PS_TEST_NEW|${PS_TEST_GONE-unset}\"");
	char *argv[] = { "/bin/sh", "-c", fdarg, NULL };
	char *env[] = { "PS_TEST_OLD=replaced", "PS_TEST_NEW=added", "PS_TEST_GONE", NULL };
	struct child_process cp = { .argv = argv, .out = out, .close_fds = 1, .env = env,
				    .keep_fd = { keep }, .nkeep = 1 };
	if (ok(start_command(&cp) == 0, "a program with descriptors closed and an environment starts")) {
		is_int(finish_command(&cp), 0, "and ends well");
		char *text = slurp(out);
		/* the shell's own listing adds its directory descriptor (3) */
		char *want = xasprintf("0 1 2 3 %d \nreplaced|added|unset\n", keep);
		is_str(text, want, "only 0-2 and the kept one stay open; the environment is replaced, added to, removed from");
		free(want);
		free(text);
	}
	is_str(getenv("PS_TEST_OLD"), "old", "the caller's environment is as it was");
	ok(getenv("PS_TEST_GONE") != NULL, "and keeps what the child lost");
	close(lo[0]);
	close(lo[1]);
	close(hi);
	close(keep);
	free(fdarg);
	free(out);
}

int main(void)
{
	test_start_finish();
	test_capture();
	test_groups_and_waiting();
	test_fds_and_env();
	return done_testing();
}
