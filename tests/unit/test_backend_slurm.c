/*
 * The SLURM backend against a real cluster: tests/integration/70-slurm-backend.t
 * starts one with tests/slurm/cluster.sh and runs this program with
 * SLURM_CONF and PERFSWEEP_TEST_CLUSTER (the cluster directory) set.  Without
 * them it skips.  Partition "emu" has n1-n4 (2x18 cores, emulated), "real"
 * has r1-r2 with this machine's topology.
 */
#include "orchestrator/slurm/backend_slurm.h"
#include "orchestrator/slurm/slurm_compat.h"
#include "tests/lib/tap.h"
#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>
#include <time.h>

static const char *campaign_dir;
/* two stores made one after the other in campaign_dir */
#define STORE_A "0123456789abcdef0123456789abcdef"
#define STORE_B "fedcba9876543210fedcba9876543210"
static double seen_running[64];   /* start time reported for a run, by id */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A run spec for run id with its own directory under the scratch dir. */
static struct run_spec spec(long long id, char **argv, int ranks, int rpn)
{
	static char dirs[64][512];
	char *d = dirs[id % 64];
	snprintf(d, sizeof(dirs[0]), "%s/runs/%lld", campaign_dir, id);
	char parent[512];
	snprintf(parent, sizeof(parent), "%s/runs", campaign_dir);
	mkdir(parent, 0755);
	mkdir(d, 0755);
	struct run_spec rs = {
		.id = id, .campaign = "test", .campaign_dir = campaign_dir, .store_id = STORE_A,
		.argv = argv, .run_dir = d, .ranks = ranks, .ranks_per_node = rpn,
	};
	return rs;
}

static char *slurp(const char *dir, const char *name)
{
	static char buf[8][4096];
	static int k;
	char *b = buf[k++ & 7];
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	b[0] = 0;
	if (!f)
		return NULL;
	size_t n = fread(b, 1, sizeof(buf[0]) - 1, f);
	b[n] = 0;
	fclose(f);
	return b;
}

/* Wait (bounded) until run id's result comes back; other results are kept in extra. */
static int wait_run(struct backend *b, long long id, struct run_result *out, double limit)
{
	static struct run_result kept[32];
	static int nkept;
	for (int i = 0; i < nkept; i++)
		if (kept[i].id == id) {
			*out = kept[i];
			kept[i] = kept[--nkept];
			return 0;
		}
	double end = now() + limit;
	struct perr err = { 0 };
	while (now() < end) {
		struct run_result res[8];
		int n = b->ops->wait(b, 1.0, res, 8, &err);
		if (n < 0) {
			diag("wait failed: %s", err.msg);
			return -1;
		}
		int found = -1;
		for (int i = 0; i < n; i++) {
			if (res[i].running) {
				if (res[i].id >= 0 && res[i].id < 64)
					seen_running[res[i].id] = res[i].started_at;
				continue;
			}
			if (res[i].id == id && found < 0)
				found = i;
			else if (nkept < 32)
				kept[nkept++] = res[i];
		}
		if (found >= 0) {
			*out = res[found];
			return 0;
		}
	}
	diag("run %lld did not finish within %.0f s", id, limit);
	return -1;
}

static struct backend *new_backend(const char *partition, int max_inflight)
{
	struct backend_config cfg = { .type = "slurm", .partition = (char *)partition,
				      .max_inflight = max_inflight,
				      .no_arrays = 1 };   /* start() submits at once: one job per run */
	struct backend *b = NULL;
	struct perr err = { 0 };
	if (backend_slurm_new(&b, &cfg, &err)) {
		diag("backend_slurm_new: %s", err.msg);
		exit(1);
	}
	return b;
}

/* Number of jobs in SLURM with this name. */
static int count_jobs(const char *name)
{
	job_info_msg_t *msg = NULL;
	if (slurm_load_jobs(0, &msg, SHOW_ALL))
		return -1;
	int n = 0;
	for (uint32_t k = 0; k < msg->record_count; k++)
		n += msg->job_array[k].name && !strcmp(msg->job_array[k].name, name);
	slurm_free_job_info_msg(msg);
	return n;
}

static int cluster(const char *what)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s %s %s >/dev/null", tap_src("tests/slurm/cluster.sh"), what,
		 getenv("PERFSWEEP_TEST_CLUSTER"));
	return system(cmd);
}

int main(void)
{
	const char *conf = getenv("SLURM_CONF");
	if (!conf || !getenv("PERFSWEEP_TEST_CLUSTER") || access(conf, R_OK)) {
		puts("1..0 # SKIP no cluster");
		return 0;
	}
	campaign_dir = tap_tmpdir();
	struct perr err = { 0 };
	enum attempt_fate fate = FATE_UNKNOWN;
	struct backend *b = NULL;
	char saved[1024];
	snprintf(saved, sizeof(saved), "%s", conf);

	/* Missing configuration: a clear error, before libslurm could exit. */
	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	struct backend_config cfg0 = { .type = "slurm" };
	is_int(backend_slurm_new(&b, &cfg0, &err), -1, "missing SLURM_CONF file is an error");
	contains(err.msg, "'/nonexistent/slurm.conf' (from SLURM_CONF) does not exist", "error names the file");
	unsetenv("SLURM_CONF");
	if (access(PS_SLURM_DEFAULT_CONF, F_OK)) {
		is_int(backend_slurm_new(&b, &cfg0, &err), -1, "no SLURM_CONF and no /etc/slurm is an error");
		contains(err.msg, "SLURM_CONF is unset", "error says what is missing");
	}
	/* A config libslurm cannot parse: an error, not an exit. */
	char badconf[1024];
	snprintf(badconf, sizeof(badconf), "%s/bad-slurm.conf", campaign_dir);
	FILE *bf = fopen(badconf, "w");
	if (bf) {
		fputs("ClusterName=x\nNoSuchKey=1\n", bf);
		fclose(bf);
	}
	setenv("SLURM_CONF", badconf, 1);
	is_int(backend_slurm_new(&b, &cfg0, &err), -1, "unparsable slurm config is an error, not an exit");
	contains(err.msg, "cannot read slurm config '", "error names the config");
	contains(err.msg, "NoSuchKey", "and quotes libslurm's complaint");
	setenv("SLURM_CONF", saved, 1);

	/* Unsupported extra options are refused up front. */
	char *bad_extra[] = { "--mem=4X" }, *bad_extra2[] = { "--frobnicate=1" };
	struct backend_config cfgx = { .type = "slurm", .nextra = 1, .extra = bad_extra };
	is_int(backend_slurm_new(&b, &cfgx, &err), -1, "bad --mem value refused");
	contains(err.msg, "bad memory size in slurm extra option '--mem=4X'", "error names the option");
	cfgx.extra = bad_extra2;
	is_int(backend_slurm_new(&b, &cfgx, &err), -1, "unknown extra option refused");
	contains(err.msg, "unsupported slurm extra option '--frobnicate=1'", "error names the option");

	b = new_backend("emu", 0);
	char *id = NULL;
	struct run_result r;

	/* 1. One rank, output in the run directory. */
	char *a1[] = { "/bin/sh", "-c", "echo hello $PERFSWEEP_RUN_ID on $SLURMD_NODENAME; echo oops >&2", NULL };
	struct run_spec rs1 = spec(1, a1, 1, 0);
	is_int(b->ops->start(b, &rs1, &id, &err), 0, "start a one-rank run");
	ok(id && atoi(id) > 0, "backend id is a job id (%s)", id ? id : "null");
	is_int(b->ops->inflight(b), 1, "one run in flight");
	free(id);
	id = NULL;
	if (!wait_run(b, 1, &r, 60)) {
		is_int(r.failed, 0, "run 1 succeeded (%s)", r.reason);
		is_int(r.exit_status, 0, "run 1 exit status");
		ok(r.started_at > 0 && r.ended_at >= r.started_at, "run 1 start and end times");
	} else {
		ok(0, "run 1 finished");
	}
	contains(slurp(rs1.run_dir, "stdout"), "hello 1 on n", "rank 0's stdout in runs/1/stdout");
	is_str(slurp(rs1.run_dir, "stderr"), "oops\n", "rank 0's stderr in runs/1/stderr");
	contains(slurp(rs1.run_dir, "job.sh"), "srun --cpu-bind=none", "job script kept and uses srun --cpu-bind=none");
	contains(slurp(rs1.run_dir, "job.sh"), "#SBATCH --exclusive", "job script documents exclusive use");
	is_int(b->ops->inflight(b), 0, "nothing in flight");

	/* 2. A failing run. */
	char *a2[] = { "/bin/sh", "-c", "exit 3", NULL };
	struct run_spec rs2 = spec(2, a2, 1, 0);
	is_int(b->ops->start(b, &rs2, &id, &err), 0, "start a failing run");
	free(id);
	id = NULL;
	if (!wait_run(b, 2, &r, 60)) {
		is_int(r.failed, 1, "run 2 failed");
		is_int(r.exit_status, 3, "run 2 exit status 3");
		is_int(r.retry_free, 0, "a program failure uses up an attempt");
		contains(r.reason, "exit status 3 (slurm job", "reason names the exit status and job");
	} else {
		ok(0, "run 2 finished");
	}

	/* 3. Eight ranks, two per node: four exclusive nodes, recorded in the job. */
	char *a3[] = { "/bin/sh", "-c", "echo $SLURM_PROCID $SLURM_LOCALID $SLURMD_NODENAME", NULL };
	struct run_spec rs3 = spec(3, a3, 8, 2);
	is_int(b->ops->start(b, &rs3, &id, &err), 0, "start 8 ranks with 2 per node");
	uint32_t job3 = id ? (uint32_t)atoi(id) : 0;
	free(id);
	id = NULL;
	if (!wait_run(b, 3, &r, 60))
		is_int(r.failed, 0, "run 3 succeeded (%s)", r.reason);
	/* the controller counts a job's nodes down while they finish its
	   epilog (COMPLETING): read its record once it has none left, or it
	   may say 1 node (seen beside the other lane) */
	job_info_msg_t *msg = NULL;
	for (double until3 = now() + 30;;) {
		if (slurm_load_job(&msg, job3, SHOW_DETAIL) == 0 && msg->record_count == 1 &&
		    (msg->job_array[0].job_state & JOB_COMPLETING) && now() < until3) {
			slurm_free_job_info_msg(msg);
			msg = NULL;
			usleep(100000);
			continue;
		}
		break;
	}
	if (msg && msg->record_count == 1) {
		slurm_job_info_t *j = &msg->job_array[0];
		is_int(j->num_nodes, 4, "job record: 4 nodes");
		is_int(j->ntasks_per_node, 2, "job record: 2 tasks per node");
		is_int(j->num_tasks, 8, "job record: 8 tasks");
		is_int(j->shared, 0, "job record: exclusive");
		contains(j->comment, campaign_dir, "job comment names the campaign directory");
		is_str(j->name, "ps:test:3.1", "job name names campaign and run");
	} else {
		ok(0, "job %u is in slurm", job3);
	}
	if (msg)
		slurm_free_job_info_msg(msg);
	int per_node[5] = { 0 }, ranks_ok = 1;
	for (int rk = 0; rk < 8; rk++) {
		char fn[64];
		if (rk == 0)
			snprintf(fn, sizeof(fn), "stdout");
		else
			snprintf(fn, sizeof(fn), "rank-%d.stdout", rk);
		const char *s = slurp(rs3.run_dir, fn);
		int p = -1, l = -1, node = 0;
		if (!s || sscanf(s, "%d %d n%d", &p, &l, &node) != 3 || p != rk || node < 1 || node > 4) {
			ranks_ok = 0;
			diag("%s: '%s'", fn, s ? s : "(missing)");
			continue;
		}
		per_node[node]++;
	}
	ok(ranks_ok, "every rank wrote its own file in the run directory");
	ok(per_node[1] == 2 && per_node[2] == 2 && per_node[3] == 2 && per_node[4] == 2,
	   "two ranks on each of n1-n4 (%d %d %d %d)", per_node[1], per_node[2], per_node[3], per_node[4]);

	/* 4. Permanent errors fail with SLURM's message. */
	struct backend *bx = new_backend("nosuchpartition", 0);
	struct run_spec rs4 = spec(4, a1, 1, 0);
	is_int(bx->ops->start(bx, &rs4, &id, &err), -1, "unknown partition is a permanent error");
	contains(err.msg, "Invalid partition name", "slurm's message is kept");
	bx->ops->free(bx);
	struct run_spec rs5 = spec(5, a1, 10, 2);   /* 5 nodes, emu has 4 */
	int rc5 = b->ops->start(b, &rs5, &id, &err);
	is_int(rc5, -1, "more nodes than the partition has is a permanent error");
	contains(err.msg, "slurm rejected the job for run 5", "error names the run");
	diag("slurm said: %s", err.msg);
	if (rc5 == 0) {
		b->ops->cancel(b, &rs5, id, &err);
		free(id);
		id = NULL;
	}
	struct run_spec rs5b = spec(5, a1, 5, 2);
	rs5b.nodes = 2;
	is_int(b->ops->start(b, &rs5b, &id, &err), -1, "5 ranks on 2 nodes of 2 refused");
	contains(err.msg, "5 ranks do not fit on 2 nodes with 2 ranks per node", "error explains");

	/* 5. Throttle and cancel. */
	struct backend *bt = new_backend("emu", 2);
	char *sleeper[] = { "/bin/sleep", "30", NULL };
	char *ids[2] = { NULL, NULL };
	struct run_spec rs6 = spec(6, sleeper, 1, 0), rs7 = spec(7, sleeper, 1, 0), rs8 = spec(8, sleeper, 1, 0);
	is_int(bt->ops->capacity(bt), 2, "capacity is max_inflight");
	is_int(bt->ops->start(bt, &rs6, &ids[0], &err), 0, "start run 6");
	is_int(bt->ops->start(bt, &rs7, &ids[1], &err), 0, "start run 7");
	is_int(bt->ops->capacity(bt), 0, "no capacity with 2 in flight");
	is_int(bt->ops->start(bt, &rs8, &id, &err), 1, "a third start is deferred");
	is_int(bt->ops->cancel(bt, &rs6, ids[0], &err), 0, "cancel run 6");
	is_int(bt->ops->cancel(bt, &rs7, ids[1], &err), 0, "cancel run 7");
	if (!wait_run(bt, 6, &r, 30)) {
		is_int(r.failed, 1, "cancelled run reported as not successful");
		contains(r.reason, "cancelled", "reason says cancelled");
	} else {
		ok(0, "run 6 reported");
	}
	ok(!wait_run(bt, 7, &r, 30), "run 7 reported after cancel");
	is_int(bt->ops->cancel(bt, &rs7, ids[1], &err), 0, "cancelling a finished job is fine");
	is_int(bt->ops->cancel(bt, &rs7, "x12", &err), -1, "a bad job id is an error");
	free(ids[0]);
	free(ids[1]);
	bt->ops->free(bt);

	/* 6. A new orchestrator adopts a running job; a job of another run is not adopted. */
	char *a9[] = { "/bin/sh", "-c", "sleep 1; echo adopted", NULL };
	struct run_spec rs9 = spec(9, a9, 1, 0);
	struct backend *b1 = new_backend("emu", 0);
	is_int(b1->ops->start(b1, &rs9, &id, &err), 0, "start run 9");
	char *id9 = id;
	id = NULL;
	b1->ops->free(b1);   /* the orchestrator "dies" */
	struct backend *b2 = new_backend("emu", 0);
	struct run_spec rs10 = spec(10, a9, 1, 0);
	is_int(b2->ops->adopt(b2, &rs10, id9, &fate, &err), 0, "job of run 9 is not adopted as run 10");
	is_int(b2->ops->adopt(b2, &rs9, "4000000", &fate, &err), 0, "an unknown job is gone");
	is_int(b2->ops->adopt(b2, &rs9, id9, &fate, &err), 1, "run 9 adopted");
	if (!wait_run(b2, 9, &r, 60)) {
		is_int(r.failed, 0, "adopted run finishes (%s)", r.reason);
		is_str(slurp(rs9.run_dir, "stdout"), "adopted\n", "adopted run's output");
	} else {
		ok(0, "run 9 finished");
	}
	free(id9);
	b2->ops->free(b2);

	/* 7. A run whose job an earlier orchestrator submitted is taken over by
	   recover() (which the runner asks before start), not submitted again. */
	char *a11[] = { "/bin/sh", "-c", "sleep 3; echo once", NULL };
	struct run_spec rs11 = spec(11, a11, 1, 0);
	b1 = new_backend("emu", 0);
	is_int(b1->ops->start(b1, &rs11, &id, &err), 0, "start run 11");
	char *id11 = id;
	id = NULL;
	b1->ops->free(b1);
	struct backend *b3 = new_backend("emu", 0);
	fate = FATE_UNKNOWN;
	is_int(b3->ops->recover(b3, &rs11, &id, &fate, &err), 1, "recover run 11 after a restart");
	is_str(id, id11, "the queued job is taken over, not submitted again");
	is_int(count_jobs("ps:test:11.1"), 1, "exactly one job for run 11");
	free(id);
	id = NULL;
	ok(!wait_run(b3, 11, &r, 60) && !r.failed, "run 11 finishes once");
	ok(seen_running[11] > 0 && seen_running[11] == r.started_at,
	   "run 11's start was reported before its end (%.0f, %.0f)", seen_running[11], r.started_at);
	free(id11);
	b3->ops->free(b3);

	/* 7b. An attempt submitted by an orchestrator that died before recording
	   it, and finished meanwhile, is recovered with its result, not rerun. */
	char *a30[] = { "/bin/sh", "-c", "echo recovered-once", NULL };
	struct run_spec rs30 = spec(30, a30, 1, 0);
	b1 = new_backend("emu", 0);
	is_int(b1->ops->start(b1, &rs30, &id, &err), 0, "start run 30");
	char *id30 = id;
	id = NULL;
	b1->ops->free(b1);   /* died before the store recorded the job */
	int finished = 0;
	for (int i = 0; i < 300 && !finished; i++) {
		job_info_msg_t *jm = NULL;
		if (slurm_load_job(&jm, (uint32_t)atoi(id30), SHOW_ALL) == 0 && jm->record_count == 1) {
			uint32_t stt = jm->job_array[0].job_state;
			finished = (stt & JOB_STATE_BASE) > JOB_SUSPENDED && !(stt & JOB_COMPLETING);
		}
		if (jm)
			slurm_free_job_info_msg(jm);
		if (!finished)
			usleep(100000);
	}
	ok(finished, "run 30's job finished while no orchestrator watched it");
	struct backend *b4 = new_backend("emu", 0);
	ok(b4->ops->recover != NULL, "the slurm backend can recover unrecorded attempts");
	is_int(b4->ops->recover(b4, &rs30, &id, &fate, &err), 1, "the finished attempt is recovered");
	is_str(id, id30, "with the job it ran as");
	free(id);
	id = NULL;
	ok(!wait_run(b4, 30, &r, 30) && !r.failed, "its result comes through wait");
	is_str(slurp(rs30.run_dir, "stdout"), "recovered-once\n", "its output is kept");
	is_int(count_jobs("ps:test:30.1"), 1, "and it was submitted exactly once");
	struct run_spec rs30b = rs30;
	rs30b.attempt = 2;
	is_int(b4->ops->recover(b4, &rs30b, &id, &fate, &err), 0, "a later attempt finds nothing to recover");
	free(id30);
	b4->ops->free(b4);

	/* 7c. A job of another store made before in the same campaign directory
	   is neither adopted, nor recovered, nor cancelled, and is told of once. */
	char hold[1024], holdcmd[1200];
	snprintf(hold, sizeof(hold), "%s/hold", campaign_dir);
	snprintf(holdcmd, sizeof(holdcmd), "while [ -e '%s' ]; do sleep 0.1; done; echo held", hold);
	FILE *hf = fopen(hold, "w");
	if (hf)
		fclose(hf);
	char *a31[] = { "/bin/sh", "-c", holdcmd, NULL };
	struct run_spec rs31 = spec(31, a31, 1, 0), rs31b = rs31, rs32b = spec(32, a1, 1, 0);
	rs31b.store_id = rs32b.store_id = STORE_B;
	b1 = new_backend("emu", 0);
	is_int(b1->ops->start(b1, &rs31, &id, &err), 0, "store A starts run 31");
	char *id31 = id;
	id = NULL;
	b1->ops->free(b1);
	b4 = new_backend("emu", 0);
	is_int(b4->ops->adopt(b4, &rs31b, id31, &fate, &err), 0, "store B does not adopt store A's job as its run 31");
	err.msg[0] = '\0';
	is_int(b4->ops->recover(b4, &rs31b, &id, &fate, &err), 0, "nor recover it");
	contains(err.msg, "another campaign store", "it is told of as another store's job");
	contains(err.msg, id31, "by its id");
	err.msg[0] = '\0';
	is_int(b4->ops->recover(b4, &rs32b, &id, &fate, &err), 0, "another run of store B recovers nothing");
	is_str(err.msg, "", "and the job is not told of again");
	is_int(b4->ops->cancel(b4, &rs31b, id31, &err), 0, "cancelling it as store B's run 31 is no error");
	job_info_msg_t *m31 = NULL;
	int live31 = !slurm_load_job(&m31, (uint32_t)atoi(id31), SHOW_ALL) && m31->record_count == 1 &&
		     (m31->job_array[0].job_state & JOB_STATE_BASE) <= JOB_RUNNING;
	if (m31)
		slurm_free_job_info_msg(m31);
	ok(live31, "and it did not cancel store A's job");
	b4->ops->free(b4);
	unlink(hold);
	b4 = new_backend("emu", 0);
	is_int(b4->ops->adopt(b4, &rs31, id31, &fate, &err), 1, "store A adopts its own job");
	ok(!wait_run(b4, 31, &r, 60) && !r.failed, "which finishes (%s)", r.reason);
	is_str(slurp(rs31.run_dir, "stdout"), "held\n", "its output is its own");
	free(id31);
	b4->ops->free(b4);

	/* 8. The run's own timeout. */
	struct run_spec rs12 = spec(12, sleeper, 1, 0);
	rs12.timeout = 1;
	is_int(b->ops->start(b, &rs12, &id, &err), 0, "start a run with a 1 s timeout");
	free(id);
	id = NULL;
	if (!wait_run(b, 12, &r, 60)) {
		is_int(r.failed, 1, "timed-out run failed");
		contains(r.reason, "timed out after 1 s", "reason says timed out");
	} else {
		ok(0, "run 12 finished");
	}

	/* 8b. Binding through perfsweep-bind on the partition with the real topology. */
	char bindbuf[1024];
	const char *bindir = getenv("PERFSWEEP_BIN");
	snprintf(bindbuf, sizeof(bindbuf), "%s/perfsweep-bind", bindir ? bindir : tap_src("bin"));
	const char *bind = bindbuf;
	if (bind[0] == '/' && !access(bind, X_OK)) {
		struct backend *br = new_backend("real", 0);
		char *a16[] = { "/bin/sh", "-c", "grep Cpus_allowed_list: /proc/self/status", NULL };
		struct run_spec rs16 = spec(15, a16, 4, 2);
		rs16.policy = "compact";
		rs16.bind_path = bind;
		is_int(br->ops->start(br, &rs16, &id, &err), 0, "start 4 bound ranks on r1-r2");
		free(id);
		id = NULL;
		if (!wait_run(br, 15, &r, 60))
			is_int(r.failed, 0, "bound run succeeded (%s)", r.reason);
		char seen[2][2][64] = { { "", "" }, { "", "" } };
		int recs = 0;
		for (int rk = 0; rk < 4; rk++) {
			char path[1024], fn[64];
			snprintf(path, sizeof(path), "%s/rank-%d.json", rs16.run_dir, rk);
			json_error_t je;
			json_t *o = json_load_file(path, 0, &je);
			const char *node = json_string_value(json_object_get(o, "node"));
			const char *cpuset = json_string_value(json_object_get(o, "cpuset"));
			int local = (int)json_integer_value(json_object_get(o, "local_rank"));
			if (!o || !node || !cpuset || (strcmp(node, "r1") && strcmp(node, "r2")) ||
			    local < 0 || local > 1) {
				diag("%s: %s", path, o ? "unexpected record" : je.text);
				json_decref(o);
				continue;
			}
			recs++;
			snprintf(seen[node[1] - '1'][local], sizeof(seen[0][0]), "%s", cpuset);
			snprintf(fn, sizeof(fn), rk ? "rank-%d.stdout" : "stdout", rk);
			char want[128];
			snprintf(want, sizeof(want), "Cpus_allowed_list:\t%s\n", cpuset);
			is_str(slurp(rs16.run_dir, fn), want, "rank %d runs bound to the recorded cpuset %s", rk, cpuset);
			json_decref(o);
		}
		is_int(recs, 4, "a binding record from each rank on r1/r2");
		ok(seen[0][0][0] && seen[0][1][0] && strcmp(seen[0][0], seen[0][1]) &&
		   !strcmp(seen[0][0], seen[1][0]) && !strcmp(seen[0][1], seen[1][1]),
		   "local ranks 0 and 1 bound to different cores, the same on both nodes (%s %s | %s %s)",
		   seen[0][0], seen[0][1], seen[1][0], seen[1][1]);
		contains(slurp(rs16.run_dir, "job.sh"), "perfsweep-bind' --policy 'compact' --ranks-per-node 2 --",
			 "job script launches ranks through perfsweep-bind");
		br->ops->free(br);
	} else {
		ok(1, "# SKIP bin/perfsweep-bind not built");
	}

	/* 8c. A node failure: retried without using up an attempt. */
	char *noreq[] = { "--no-requeue" };
	struct backend_config cfgn = { .type = "slurm", .partition = "emu", .nextra = 1, .extra = noreq,
				       .no_arrays = 1 };
	struct backend *bn = NULL;
	if (backend_slurm_new(&bn, &cfgn, &err)) {
		ok(0, "backend with --no-requeue: %s", err.msg);
	} else {
		/* far longer than the wait below: under load a 30 s sleep could end
		   before the controller acts on the downed node, and pass as done */
		char *long_sleeper[] = { "/bin/sleep", "600", NULL };
		struct run_spec rs16 = spec(16, long_sleeper, 1, 0);
		is_int(bn->ops->start(bn, &rs16, &id, &err), 0, "start a run whose node will fail");
		uint32_t job16 = id ? (uint32_t)atoi(id) : 0;
		free(id);
		id = NULL;
		char node[64] = "";
		double until16 = now() + 30;
		while (!node[0] && now() < until16) {
			job_info_msg_t *m = NULL;
			if (!slurm_load_job(&m, job16, 0) && m->record_count == 1 &&
			    (m->job_array[0].job_state & JOB_STATE_BASE) == JOB_RUNNING && m->job_array[0].nodes)
				snprintf(node, sizeof(node), "%s", m->job_array[0].nodes);
			if (m)
				slurm_free_job_info_msg(m);
			if (!node[0])
				usleep(100000);
		}
		ok(node[0] != 0, "run 16 is running on %s", node[0] ? node : "(nothing)");
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "scontrol update nodename=%s state=down reason=perfsweep-test", node);
		is_int(node[0] ? system(cmd) : -1, 0, "node %s set down", node);
		if (!wait_run(bn, 16, &r, 60)) {
			/* srun says 0 when its step is aborted under it (about one
			   suite in three, beside the other lane, before the job
			   script counted its ranks' ends): never a success */
			if (r.failed != 1) {
				diag("run 16: exit %d, wall %.1f s, reason '%s'", r.exit_status, r.wall, r.reason);
				const char *files[] = { "job.done", "job.err", "job.out", "stderr", "stdout" };
				for (size_t f = 0; f < sizeof(files) / sizeof(*files); f++) {
					const char *t = slurp(rs16.run_dir, files[f]);
					diag("%s: %s", files[f], t ? t : "(none)");
				}
			}
			is_int(r.failed, 1, "run on the failed node did not succeed");
			is_int(r.retry_free, 1, "node failure does not use up an attempt");
			contains(r.reason, "node failure", "reason says node failure");
		} else {
			ok(0, "run 16 reported");
		}
		/* ReturnToService=2 may bring it back by itself; resume it otherwise */
		snprintf(cmd, sizeof(cmd),
			 "scontrol update nodename=%s state=resume >/dev/null 2>&1; "
			 "for i in $(seq 150); do case $(sinfo -h -n %s -o %%t) in "
			 "*down*|*drain*|*fail*) sleep 0.2 ;; *) exit 0 ;; esac; done; exit 1", node, node);
		is_int(node[0] ? system(cmd) : -1, 0, "node %s back in service", node);
		bn->ops->free(bn);
	}

	/* 8d. srun could never start the step (fake srun, as if the controller
	   stayed down): not the program's fault. */
	const char *fake = getenv("PERFSWEEP_TEST_FAKE_SRUN");
	if (fake) {
		char path_env[1200], count_env[1200];
		snprintf(path_env, sizeof(path_env), "PATH=%s:/usr/bin:/bin", fake);
		struct run_spec rs17 = spec(17, a1, 1, 0);
		snprintf(count_env, sizeof(count_env), "FAKE_COUNT=%s/count", rs17.run_dir);
		char *env17[] = { path_env, count_env, "FAKE_FAILS=99", "PERFSWEEP_STEP_PAUSE=0", NULL };
		rs17.env = env17;
		is_int(b->ops->start(b, &rs17, &id, &err), 0, "start a run whose step never starts");
		free(id);
		id = NULL;
		if (!wait_run(b, 17, &r, 60)) {
			is_int(r.failed, 1, "the run did not succeed");
			is_int(r.retry_free, 1, "a step that never started does not use up an attempt");
			contains(r.reason, "job step could not start", "reason says so");
		} else {
			ok(0, "run 17 reported");
		}
	}

	/* 9. Controller outage: nothing fails, the run completes after the restart. */
	char *a13[] = { "/bin/sh", "-c", "sleep 3; echo survived", NULL };
	struct run_spec rs13 = spec(13, a13, 1, 0), rs14 = spec(14, a1, 1, 0);
	is_int(b->ops->start(b, &rs13, &id, &err), 0, "start run 13");
	free(id);
	id = NULL;
	/* The outage must fall while the program runs, not while its step is
	   being created: on a loaded machine the job can take seconds to start,
	   and a step created during an outage is a different case (8d). */
	char started[1100];
	snprintf(started, sizeof(started), "%s/stdout", rs13.run_dir);
	double start_by = now() + 60;
	while (access(started, F_OK) && now() < start_by)
		usleep(100000);
	ok(!access(started, F_OK), "run 13's program started");
	is_int(cluster("ctld-stop"), 0, "slurmctld stopped");
	struct run_result res[4];
	/* the jobs' own notes still tell of starts and ends: nothing fails */
	int n = b->ops->wait(b, 2.0, res, 4, &err), bad = n < 0, got13 = 0;
	struct run_result r13 = { 0 };
	for (int k = 0; k < n; k++) {
		bad |= res[k].failed;
		if (res[k].id == 13 && !res[k].running) {
			got13 = 1;
			r13 = res[k];
		}
	}
	ok(!bad, "wait during the outage fails nothing and reports no error (%d reports)", n);
	if (n < 0)
		diag("%s", err.msg);
	is_int(b->ops->start(b, &rs14, &id, &err), 1, "start during the outage is deferred");
	diag("deferred: %s", err.msg);
	sleep(2);
	is_int(cluster("ctld-start"), 0, "slurmctld restarted");
	if (got13 || !wait_run(b, 13, &r, 60)) {
		if (got13)
			r = r13;
		is_int(r.failed, 0, "run 13 completed across the outage (%s)", r.reason);
		is_str(slurp(rs13.run_dir, "stdout"), "survived\n", "run 13 output");
	} else {
		ok(0, "run 13 finished");
	}
	/* The deferred start goes through once the back-off has passed. */
	double until = now() + 60;
	int rc14 = 1;
	while (rc14 == 1 && now() < until) {
		rc14 = b->ops->start(b, &rs14, &id, &err);
		if (rc14 == 1)
			usleep(200000);
	}
	is_int(rc14, 0, "run 14 submitted after the outage");
	free(id);
	id = NULL;
	ok(!wait_run(b, 14, &r, 60) && !r.failed, "run 14 done");
	is_int(count_jobs("ps:test:14.1"), 1, "exactly one job for run 14");

	b->ops->free(b);
	return done_testing();
}
