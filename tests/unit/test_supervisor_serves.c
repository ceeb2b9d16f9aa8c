/* The local backend's supervisors serve one run after another: runs in a
   row share one supervisor, a cancel meant for an earlier run never stops
   the one it serves now, a supervisor that died between runs is replaced,
   and an idle one exits when its backend is done with it. */
#include "common/clock.h"
#include "common/xalloc.h"
#include "orchestrator/local/backend_local.h"
#include "orchestrator/local/supervisor.h"
#include "tests/lib/tap.h"
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

static char *run_dir(long long id)
{
	char *dir = xasprintf("%s/run-%lld", tap_tmpdir(), id);
	mkdir(dir, 0755);
	return dir;
}

/* Start run id of argv on b: its backend id, or NULL. */
static char *start(struct backend *b, long long id, char **argv, struct run_spec *rs)
{
	struct perr err = { 0 };
	*rs = (struct run_spec){ .id = id, .campaign = "t", .campaign_dir = tap_tmpdir(), .store_id = "s1",
				 .argv = argv, .run_dir = run_dir(id), .ranks = 1, .attempt = 1 };
	char *bid = NULL;
	int rc = b->ops->start(b, rs, &bid, &err);
	if (rc)
		diag("start of run %lld: %d %s", id, rc, err.msg);
	return rc ? NULL : bid;
}

/* The next result within seconds: 1 (in *res), or 0 none. */
static int result(struct backend *b, double seconds, struct run_result *res)
{
	struct perr err;
	double end = mono_now() + seconds;
	while (mono_now() < end)
		if (b->ops->wait(b, 0.05, res, 1, &err) == 1)
			return 1;
	return 0;
}

static int gone_within(pid_t pid, unsigned long long st, double seconds)
{
	double end = mono_now() + seconds;
	while (supervisor_alive(pid, st) && mono_now() < end) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return !supervisor_alive(pid, st);
}

int main(void)
{
	struct backend *b;
	struct perr err;
	struct run_spec rs1, rs2, rs3;
	struct run_result res;
	char *tru[] = { "/bin/true", NULL }, *slp[] = { "/bin/sleep", "30", NULL };
	if (!ok(backend_local_new(&b, 1, &err) == 0, "a local backend, one slot"))
		return done_testing();

	char *a = start(b, 1, tru, &rs1);
	ok(a && result(b, 10, &res) && res.id == 1 && !res.failed, "run 1 ends well");
	char *c = start(b, 2, tru, &rs2);
	ok(c && result(b, 10, &res) && res.id == 2 && !res.failed, "run 2 ends well");
	ok(a && c && !strcmp(a, c), "one supervisor served both (%s, %s)", a ? a : "-", c ? c : "-");
	struct sv_start s;
	ok(supervisor_read_start(rs2.run_dir, &s) == 0 && s.attempt == 1 && !strcmp(s.store, "s1"),
	   "run 2's start note is its own");

	/* run 3 on the same supervisor; a late cancel of run 2 must not stop it */
	char *d = start(b, 3, slp, &rs3);
	ok(d && a && !strcmp(d, a), "run 3 on the same supervisor");
	struct run_spec late = { .id = 2, .attempt = 1 };   /* no run_dir: only the token decides */
	is_int(backend_local_cancel_id(&late, d ? d : "x"), 1, "a cancel of run 2 is sent");
	ok(!result(b, 0.5, &res), "and run 3 runs on");
	struct run_spec now = { .id = 3, .attempt = 1, .run_dir = rs3.run_dir };
	is_int(backend_local_cancel_id(&now, d ? d : "x"), 1, "a cancel of run 3 is sent");
	int got = result(b, 10, &res);
	ok(got && res.id == 3 && res.exit_status == 128 + SIGKILL, "run 3 ends, killed (status %d)",
	   got ? res.exit_status : -1);
	struct run_spec done_run = { .id = 3, .attempt = 1, .run_dir = rs3.run_dir };
	is_int(backend_local_cancel_id(&done_run, d ? d : "x"), 0, "an ended run has nothing to cancel");

	/* the supervisor killed between runs: the next run gets a new one */
	pid_t pid;
	unsigned long long st;
	if (a && supervisor_parse_id(a, &pid, &st) == 0) {
		kill(pid, SIGKILL);
		gone_within(pid, st, 5);
	}
	char *e = NULL;
	free((char *)rs1.run_dir);
	rs1.run_dir = NULL;
	for (int i = 0; i < 50 && !e; i++) {   /* transient at first, maybe */
		free((char *)rs1.run_dir);
		e = start(b, 4, tru, &rs1);
	}
	ok(e && a && strcmp(e, a), "a new supervisor after the old one died (%s)", e ? e : "-");
	ok(result(b, 10, &res) && res.id == 4 && !res.failed, "and run 4 ends well");

	/* done with the backend: its idle supervisor exits */
	b->ops->free(b);
	ok(e && supervisor_parse_id(e, &pid, &st) == 0 && gone_within(pid, st, 5),
	   "the idle supervisor exits with its backend");
	free((char *)rs1.run_dir);
	free((char *)rs2.run_dir);
	free((char *)rs3.run_dir);
	free(a);
	free(c);
	free(d);
	free(e);
	return done_testing();
}
