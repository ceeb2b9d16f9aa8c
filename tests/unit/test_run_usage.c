/*
 * What runs used, from their files into the store and out to analysis:
 * the local backend's end note (runs/<id>/local.end, written here in its
 * documented format), perfsweep-bind's rank records with their usage, the
 * store's resources table, and the experiment analysis reads without the
 * disturbed runs (analysis/run_usage.h).
 */
#include "campaign/store.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/local/supervisor.h"
#include "orchestrator/run_bindings.h"
#include "analysis/run_usage.h"
#include "placement/bind.h"
#include "tests/lib/tap.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The end note as the local backend's supervisor writes it. */
static void write_end_note(const char *dir, int attempt, double wall, double utime, double stime)
{
	char *path = xasprintf("%s/local.end", dir);
	char *text = xasprintf("{\"attempt\": %d, \"exit\": 0, \"signal\": 0, \"timed_out\": false, \"timeout\": 120,"
			       " \"error\": null, \"ranks\": 2, \"started\": 1795643893.5, \"ended\": 1795643894.5,"
			       " \"wall\": %.17g, \"utime\": %.17g, \"stime\": %.17g, \"maxrss_kb\": 51200,"
			       " \"nvcsw\": 12, \"nivcsw\": 40}\n", attempt, wall, utime, stime);
	write_file(path, text);
	free(text);
	free(path);
}

static void test_end_note(const char *base)
{
	char *dir = xasprintf("%s/note", base);
	fs_mkdir_p(dir);
	struct sv_end le;
	is_int(supervisor_read_end(dir, &le), -1, "no end note: -1");
	write_end_note(dir, 2, 1.25, 2.0, 0.25);
	is_int(supervisor_read_end(dir, &le), 0, "the end note reads");
	ok(le.attempt == 2 && le.exit_status == 0 && le.ranks == 2 && !le.timed_out && le.timeout == 120,
	   "attempt, exit, ranks, timeout");
	ok(le.wall == 1.25 && le.utime == 2.0 && le.stime == 0.25 && le.maxrss_kb == 51200 && le.nvcsw == 12 &&
	   le.nivcsw == 40 && le.started == 1795643893.5 && le.ended == 1795643894.5 && !le.error[0],
	   "times, RSS, context switches");
	char *path = xasprintf("%s/local.end", dir);
	write_file(path, "{\"attempt\": 1,");
	is_int(supervisor_read_end(dir, &le), -1, "a half-written note is refused");
	free(path);
	free(dir);
}

/* A rank record with usage: cpu seconds of user time over wall seconds, bound to cpuset. */
static void write_rank(const char *dir, int rank, const char *cpuset, double wall, double utime, long long nivcsw)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	hwloc_bitmap_list_sscanf(set, cpuset);
	struct bind_result res = { .start = 100, .end = 100 + wall, .wall = wall, .pid = 4242, .have_usage = 1,
				   .usage = { .utime = utime, .stime = 0.01, .cpu_share = (utime + 0.01) / wall,
					      .maxrss_kb = 2048 + rank, .nvcsw = 3, .nivcsw = nivcsw,
					      .load_start = 0.5, .load_end = 0.75 } };
	char *argv[] = { "app", NULL };
	struct bind_record rec = { .rank = rank, .local_rank = rank, .ranks_per_node = 2, .node = "n1",
				   .policy = "explicit", .cores_per_rank = -1, .cpuset = set, .cores = set,
				   .result = &res, .argv = argv };
	struct perr err;
	if (bind_record_write(&rec, dir, &err) < 0)
		diag("%s", err.msg);
	hwloc_bitmap_free(set);
}

/* The census as the local backend's supervisor notes it: two CPUs, a busy loop on CPU 0. */
static char *census_text(int attempt)
{
	return xasprintf("{\"attempt\": %d, \"wall\": 2.0, \"cpus\": \"0\", \"samples\": 20, \"cost\": 0.01,"
			       " \"quiet_wait\": 3.5, \"quiet_gave_up\": false, \"quiet_cause\": \"\","
			       " \"schedstat\": true, \"pressure\": 0.9, \"foreign\": [0.8, 0.3], \"steal\": [0.0, 0.1],"
			       " \"ranks\": [{\"rank\": 0, \"run_delay\": 0.7, \"cpu\": 0.9},"
			       " {\"rank\": 1, \"run_delay\": 0.75, \"cpu\": 0.9}, {\"rank\": -1, \"run_delay\": 0.01,"
			       " \"cpu\": 0.01}],"
			       " \"causes\": [{\"pid\": 4242, \"comm\": \"busy\", \"cpu\": 0, \"seconds\": 0.78},"
			       " {\"pid\": 77, \"comm\": \"cc1\", \"cpu\": 1, \"seconds\": 0.3}]}\n", attempt);
}

/* As a run noted before 2026-12: the census a note of its own. */
static void write_census_note(const char *dir, int attempt)
{
	char *path = xasprintf("%s/local.census", dir), *text = census_text(attempt);
	write_file(path, text);
	free(text);
	free(path);
}

/* The end note with the census census (JSON) in it. */
static void write_end_with(const char *dir, int attempt, double wall, double utime, double stime, const char *census)
{
	char *path = xasprintf("%s/local.end", dir);
	char *text = xasprintf("{\"attempt\": %d, \"exit\": 0, \"signal\": 0, \"timed_out\": false, \"timeout\": 120,"
			       " \"error\": null, \"ranks\": 2, \"started\": 1795643893.5, \"ended\": 1795643894.5,"
			       " \"wall\": %.17g, \"utime\": %.17g, \"stime\": %.17g, \"maxrss_kb\": 51200,"
			       " \"nvcsw\": 12, \"nivcsw\": 40, \"census\": %s}\n", attempt, wall, utime, stime, census);
	write_file(path, text);
	free(text);
	free(path);
}

/* As the supervisor notes it now: the end note with the census in it. */
static void write_end_note_census(const char *dir, int attempt, double wall, double utime, double stime)
{
	char *census = census_text(attempt);
	write_end_with(dir, attempt, wall, utime, stime, census);
	free(census);
}


static void make_plan(struct plan *pl, int reps)
{
	static double n[] = { 10, 20, 30 };
	static struct plan_param params[] = { { "n", NULL, 3, n, 1 } };
	struct design_spec spec = { .nparams = 1, .params = params, .repetitions = reps };
	struct perr err;
	plan_full_factorial(pl, &spec, &err);
}

static const struct run_resource *rank_of(const struct run_resource *r, int n, int rank)
{
	for (int i = 0; i < n; i++)
		if (r[i].rank == rank)
			return &r[i];
	return NULL;
}

/* Run id done with value v of region "k", its one rank at CPU share `share` (nivcsw 2/s): what it
   lacked a busy loop (pid 4242) took on its core while it waited. */
static void finish(struct store *st, long long id, double v, double share)
{
	struct perr err;
	struct measurement_list ml;
	measurement_list_init(&ml);
	measurement_list_add(&ml, 0, "k", "time", v);
	store_mark_submitted(st, id, "1", 100, &err);
	store_mark_done(st, id, 101, 0, 1, &ml, NULL, &err);
	measurement_list_release(&ml);
	struct run_resource r = { .rank = 0, .utime = share, .stime = 0, .wall = 1, .cpu_share = share,
				  .allowed_share = 1, .maxrss_kb = 1000, .nvcsw = 1, .nivcsw = 2,
				  .load_start = NAN, .load_end = NAN, .run_delay = 1 - share, .foreign = 1 - share,
				  .steal = 0, .pressure = NAN, .quiet_wait = NAN };
	struct run_cause c = { .rank = 0, .pid = 4242, .comm = "busy", .core = 0, .seconds = 1 - share };
	if (store_put_resources(st, id, &r, 1, &err) < 0 || store_put_causes(st, id, &c, 1, &err) < 0)
		diag("%s", err.msg);
}

/* The config stored with the campaign, read back through the config kit. */
#define CAMP_CONFIG "name = \"camp\";\napp = { command = [\"true\"]; };\n" \
	"parameters = ( { name = \"n\"; values = [10, 20, 30]; } );\n"

static void test_store_and_analysis(const char *base, const char *config, const char *label,
				    int want_disturbed)
{
	char *dir = xasprintf("%s/%s", base, label);
	struct plan pl;
	make_plan(&pl, 3);
	struct store *st;
	struct perr err = { 0 };
	if (store_create(&st, dir, "camp", "local", config, &pl, &err) < 0) {
		ok(0, "%s: store: %s", label, err.msg);
		return;
	}
	/* n=10: repetition 1 had its core (0.99), 2 and 3 half of it (0.5, 0.45; value 10);
	   n=20: every repetition its core; n=30: none (0.5, 0.4, 0.5) */
	struct run *runs;
	int nruns;
	store_load_runs(st, 0, &runs, &nruns, &err);
	for (int i = 0; i < nruns; i++) {
		double n = runs[i].values[0];
		int rep = runs[i].repetition;
		double sh = n == 20 ? 0.98 : n == 30 ? (rep == 2 ? 0.4 : 0.5) : rep == 1 ? 0.99 : rep == 2 ? 0.5 : 0.45;
		finish(st, runs[i].id, n == 10 && rep > 1 ? 10 : 1 + n / 100, sh);
	}
	runs_free(runs, nruns);
	struct experiment e;
	experiment_init(&e);
	struct run_usage u;
	is_int(run_usage_load(st, NULL, 0, &e, &u, &err), 0, "%s: loads", label);
	is_int(u.disturbed.njudged, 9, "%s: nine runs judged", label);
	is_int(u.disturbed.n, want_disturbed, "%s: %d disturbed", label, want_disturbed);
	is_int(e.npoints, 3, "%s: every point stays in the experiment", label);
	const struct exp_series *s = experiment_series(&e, 0, 0);
	int kept = 0;
	for (int p = 0; s && p < e.npoints; p++)
		kept += s->at[p].n;
	is_int(kept, 9 - want_disturbed, "%s: the disturbed runs' values are left out", label);
	if (want_disturbed) {
		int p30 = -1, left = 0;
		for (int p = 0; p < e.npoints; p++)
			if (experiment_coord(&e, p, 0) == 30)
				p30 = p;
		ok(p30 >= 0 && s && s->at[p30].n == 0, "%s: n=30 has no undisturbed value left", label);
		for (int i = 0; i < u.disturbed.n; i++)
			left += u.disturbed.runs[i].point == p30;
		is_int(left, 3, "%s: its three runs are listed at its point", label);
		double v = 0;
		for (int p = 0; s && p < e.npoints; p++)
			for (int i = 0; i < s->at[p].n; i++)
				v = fmax(v, s->at[p].v[i]);
		ok(v < 2, "%s: n=10's disturbed repetitions (value 10) are not in the experiment", label);
		ok(u.point_share && isnan(u.point_share[p30]), "%s: no share known where nothing was kept", label);
		const struct disturbed_run *d = u.disturbed.n ? &u.disturbed.runs[0] : NULL;
		ok(d && d->ncauses == 1 && d->causes[0].pid == 4242 && !strcmp(d->causes[0].comm, "busy") &&
		   d->causes[0].core == 0 && fabs(d->causes[0].share - (1 - d->share)) < 1e-12,
		   "%s: the busy loop is named with its share of the run", label);
	}
	int p10 = -1;
	for (int p = 0; p < e.npoints; p++)
		if (experiment_coord(&e, p, 0) == 10)
			p10 = p;
	/* n=10: runs 1, 4, 7 (0.99, 0.5, 0.45), kept: 1 (and 4 and 7 without the share test) */
	is_rel(u.point_share ? u.point_share[p10] : NAN, want_disturbed ? 0.99 : 0.5, 1e-12,
	       "%s: n=10's CPU share is the median of its kept runs' ranks", label);
	ok(u.table && strstr(u.table, "CPU share"), "%s: the per-point table", label);
	run_usage_release(&u);
	experiment_release(&e);

	/* the same runs, judged alone */
	struct disturbed_result r;
	is_int(run_usage_judge(st, 0, &r, &err), 0, "%s: judged alone", label);
	is_int(r.n, want_disturbed, "%s: the same runs", label);
	disturbed_result_release(&r);
	store_close(st);
	plan_release(&pl);
	free(dir);
}

static void test_record(const char *base)
{
	char *dir = xasprintf("%s/rec", base);
	struct plan pl;
	make_plan(&pl, 1);
	struct store *st;
	struct perr err = { 0 };
	if (store_create(&st, dir, "camp", "local", "name = \"camp\";", &pl, &err) < 0) {
		ok(0, "store: %s", err.msg);
		return;
	}
	char *run_dir = store_run_path(st, 1);
	fs_mkdir_p(run_dir);
	/* two ranks an explicit map gave one core, and the run's end note */
	write_rank(run_dir, 0, "0", 2.0, 0.95, 300);
	write_rank(run_dir, 1, "0", 2.0, 0.93, 310);
	write_end_note(run_dir, 1, 2.0, 1.9, 0.02);
	write_census_note(run_dir, 1);
	is_int(run_bindings_record(st, 1, run_dir, 1, &err), 0, "recorded");
	struct run_resource *r;
	int n;
	is_int(store_load_resources(st, 1, &r, &n, &err), 0, "resources read back");
	is_int(n, 3, "the whole run and its two ranks");
	const struct run_resource *w = rank_of(r, n, -1), *r0 = rank_of(r, n, 0), *r1 = rank_of(r, n, 1);
	ok(w && w->utime == 1.9 && w->stime == 0.02 && w->wall == 2.0 && w->maxrss_kb == 51200 && w->nvcsw == 12 &&
	   w->nivcsw == 40, "the whole run's record is the end note's");
	is_rel(w ? w->cpu_share : NAN, 1.92 / 2.0, 1e-12, "its share: CPU over wall, summed over the ranks");
	ok(w && isnan(w->allowed_share) && isnan(w->load_start), "no binding, no load for the whole run");
	ok(r0 && r0->utime == 0.95 && r0->stime == 0.01 && r0->wall == 2.0 && r0->maxrss_kb == 2048 &&
	   r0->nvcsw == 3 && r0->nivcsw == 300 && r0->load_start == 0.5 && r0->load_end == 0.75,
	   "rank 0's record is its rank record's");
	is_rel(r0 ? r0->cpu_share : NAN, 0.96 / 2.0, 1e-12, "rank 0's share");
	ok(r0 && r1 && r0->allowed_share == 0.5 && r1->allowed_share == 0.5,
	   "two ranks bound to one core may each have half of it");
	ok(r0 && r1 && r0->foreign == 0.8 && r1->foreign == 0.8 && r0->steal == 0 && r0->pressure == 0.9,
	   "each rank: the foreign time, steal and pressure of its core (CPU 0)");
	ok(r0 && r1 && r0->run_delay == 0.7 && r1->run_delay == 0.75, "each rank: its threads' run-queue delay");
	ok(w && w->foreign == 0.8 && fabs(w->run_delay - 1.46) < 1e-12 && w->quiet_wait == 3.5,
	   "the whole run: its cores' foreign time, every own task's delay, the quiet gate's wait");
	free(r);
	struct run_cause_row *cr;
	int ncr;
	is_int(store_load_causes(st, 1, 0, &cr, &ncr, &err), 0, "causes read back");
	int on1 = 0, busy = 0;
	for (int i = 0; i < ncr; i++) {
		on1 += cr[i].c.core == 1;
		busy += cr[i].c.pid == 4242 && !strcmp(cr[i].c.comm, "busy") && cr[i].c.seconds == 0.78;
	}
	ok(ncr == 3 && busy == 3 && !on1, "the busy loop on CPU 0, for each rank and the run; nothing off their core");
	free(cr);

	/* the census in the end note, as noted now: the same figures */
	char *run3 = store_run_path(st, 3);
	fs_mkdir_p(run3);
	write_rank(run3, 0, "0", 2.0, 0.95, 300);
	write_rank(run3, 1, "0", 2.0, 0.93, 310);
	write_end_note_census(run3, 1, 2.0, 1.9, 0.02);
	is_int(run_bindings_record(st, 3, run3, 1, &err), 0, "a run with the census in its end note recorded");
	store_load_resources(st, 3, &r, &n, &err);
	w = rank_of(r, n, -1), r0 = rank_of(r, n, 0);
	ok(n == 3 && w && r0 && r0->foreign == 0.8 && r0->run_delay == 0.7 && r0->pressure == 0.9 &&
	   w->foreign == 0.8 && w->quiet_wait == 3.5 && w->utime == 1.9,
	   "the end note's census gives each rank's and the whole run's figures");
	free(r);
	store_load_causes(st, 3, 0, &cr, &ncr, &err);
	ok(ncr == 3, "and its causes (%d)", ncr);
	free(cr);
	free(run3);

	/* one rank given two cores (a threaded rank) may use both */
	char *run2 = store_run_path(st, 2);
	fs_mkdir_p(run2);
	write_rank(run2, 0, "0-1", 1.0, 1.9, 5);
	is_int(run_bindings_record(st, 2, run2, 1, &err), 0, "a two-core rank recorded");
	store_load_resources(st, 2, &r, &n, &err);
	ok(n == 1 && r[0].allowed_share == 2 && isnan(r[0].foreign), "its allowed share is 2; no census, nothing known");
	free(r);
	free(run2);

	/* a stale note (another attempt) is not read: the rank records still count */
	write_end_note(run_dir, 1, 9.0, 1.0, 0.0);
	is_int(run_bindings_record(st, 1, run_dir, 2, &err), 0, "recorded again for attempt 2");
	store_load_resources(st, 1, &r, &n, &err);
	ok(n == 2 && !rank_of(r, n, -1), "attempt 1's note is left out of attempt 2");
	free(r);
	free(run_dir);
	store_close(st);
	plan_release(&pl);
	free(dir);
}

/* A census of one rank on CPU 0 that saw its tasks run cpu seconds and wait delay, beside
   foreign seconds of others there. */
static char *census_of(double cpu, double delay, double foreign)
{
	return xasprintf("{\"attempt\": 1, \"wall\": 1.0, \"cpus\": \"0\", \"samples\": 2, \"cost\": 0.001,"
			 " \"quiet_wait\": 0, \"quiet_gave_up\": false, \"quiet_cause\": \"\", \"schedstat\": true,"
			 " \"pressure\": 0.1, \"foreign\": [%.17g, 0.0], \"steal\": [0.0, 0.0],"
			 " \"ranks\": [{\"rank\": 0, \"run_delay\": %.17g, \"cpu\": %.17g}], \"causes\": []}",
			 foreign, delay, cpu);
}

/* Run id's rank 0 (main thread ran main_cpu, waited 0.001 s) and end note with census; its rank 0 record. */
static struct run_resource rank0_seen(struct store *st, long long id, double wall, double utime, double main_cpu,
				      const char *census)
{
	struct perr err = { 0 };
	char *dir = store_run_path(st, id);
	fs_mkdir_p(dir);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	hwloc_bitmap_list_sscanf(set, "0");
	struct bind_result res = { .start = 100, .end = 100 + wall, .wall = wall, .pid = 4242, .have_usage = 1,
				   .usage = { .utime = utime, .stime = 0, .cpu_share = utime / wall, .maxrss_kb = 2048,
					      .nvcsw = 3, .nivcsw = 60, .load_start = 0.5, .load_end = 0.5,
					      .run_delay = 0.001, .main_cpu = main_cpu } };
	char *argv[] = { "app", NULL };
	struct bind_record rec = { .rank = 0, .local_rank = 0, .ranks_per_node = 1, .node = "n1",
				   .policy = "compact", .cores_per_rank = -1, .cpuset = set, .cores = set,
				   .result = &res, .argv = argv };
	bind_record_write(&rec, dir, &err);
	hwloc_bitmap_free(set);
	write_end_with(dir, 1, wall, utime, 0, census);
	struct run_resource *r, out = { .rank = -2 };
	int n;
	if (run_bindings_record(st, id, dir, 1, &err) == 0 && store_load_resources(st, id, &r, &n, &err) == 0) {
		const struct run_resource *r0 = rank_of(r, n, 0);
		if (r0)
			out = *r0;
		free(r);
	}
	free(dir);
	return out;
}

/* A delay is known only for the threads it was read of. */
static void test_delay_coverage(const char *base)
{
	char *dir = xasprintf("%s/cover", base);
	struct plan pl;
	make_plan(&pl, 2);
	struct store *st;
	struct perr err = { 0 };
	if (store_create(&st, dir, "camp", "local", "name = \"camp\";", &pl, &err) < 0) {
		ok(0, "store: %s", err.msg);
		return;
	}
	/* a launcher script's shell (main thread 0.002 s), its program unseen between samples */
	char *c = census_of(0.003, 0.002, 0.12);
	struct run_resource r = rank0_seen(st, 1, 0.25, 0.2, 0.002, c);
	ok(r.rank == 0 && isnan(r.run_delay) && r.foreign == 0.12,
	   "a program the census never saw: its delay is unknown, its core's foreign time known");
	free(c);
	/* the same program seen running most of its time */
	c = census_of(0.15, 0.11, 0.12);
	r = rank0_seen(st, 2, 0.25, 0.2, 0.002, c);
	ok(r.rank == 0 && fabs(r.run_delay - 0.11) < 1e-12, "seen for most of its CPU time: the census's delay");
	free(c);
	/* the main thread, read as it exited, speaks for it as well */
	c = census_of(0.003, 0.002, 0.12);
	r = rank0_seen(st, 3, 0.25, 0.2, 0.19, c);
	ok(r.rank == 0 && fabs(r.run_delay - 0.002) < 1e-12, "or its main thread ran most of it: that delay");
	free(c);
	/* a program that sleeps: little CPU, seen or not, and its delay stands */
	c = census_of(0.0, 0.0, 0.3);
	r = rank0_seen(st, 4, 1.5, 0.004, 0.0, c);
	ok(r.rank == 0 && isfinite(r.run_delay) && r.run_delay < 0.01,
	   "a program that sleeps runs little unseen: its delay is known (it took nothing)");
	free(c);
	store_close(st);
	plan_release(&pl);
	free(dir);
}

/* A region's own CPU share (collect.regex, metric cpu_share): the point's share, not modelled. */
static void test_region_share(const char *base)
{
	char *dir = xasprintf("%s/region", base);
	struct plan pl;
	make_plan(&pl, 2);
	struct store *st;
	struct perr err = { 0 };
	if (store_create(&st, dir, "camp", "local", "name = \"camp\";", &pl, &err) < 0) {
		ok(0, "store: %s", err.msg);
		return;
	}
	struct run *runs;
	int nruns;
	store_load_runs(st, 0, &runs, &nruns, &err);
	for (int i = 0; i < nruns; i++) {
		/* the process waited half its time (MPI start-up); its loop kept 0.98 of a core busy */
		struct measurement_list ml;
		measurement_list_init(&ml);
		measurement_list_add(&ml, 0, "Loop", "time", 1 + runs[i].values[0] / 100);
		measurement_list_add(&ml, 0, "Loop", "cpu_share", runs[i].values[0] == 20 ? 0.97 : 0.98);
		store_mark_submitted(st, runs[i].id, "1", 100, &err);
		store_mark_done(st, runs[i].id, 101, 0, 1, &ml, NULL, &err);
		measurement_list_release(&ml);
		struct run_resource r = { .rank = 0, .utime = 0.5, .stime = 0, .wall = 1, .cpu_share = 0.5,
					  .allowed_share = 1, .maxrss_kb = 1000, .nvcsw = 600, .nivcsw = 2,
					  .load_start = NAN, .load_end = NAN, .run_delay = 0.01, .foreign = 0,
					  .steal = 0, .pressure = NAN, .quiet_wait = NAN };
		store_put_resources(st, runs[i].id, &r, 1, &err);
	}
	runs_free(runs, nruns);
	struct experiment e;
	experiment_init(&e);
	struct run_usage u;
	is_int(run_usage_load(st, NULL, 0, &e, &u, &err), 0, "region share: loads");
	ok(experiment_find_metric(&e, "cpu_share") < 0 && experiment_find_metric(&e, "time") >= 0,
	   "region share: cpu_share is not a metric to model");
	int ok_shares = u.point_share != NULL;
	for (int p = 0; ok_shares && p < e.npoints; p++)
		ok_shares = u.point_share[p] == (experiment_coord(&e, p, 0) == 20 ? 0.97 : 0.98);
	ok(ok_shares, "region share: each point's share is its region's, not the process's 0.5");
	is_int(u.disturbed.n, 0, "region share: a process that waited is not disturbed");
	run_usage_release(&u);
	experiment_release(&e);
	experiment_init(&e);
	is_int(run_usage_load(st, "cpu_share", 0, &e, &u, &err), 0, "region share: asked for by name");
	ok(e.nmetrics == 1 && !strcmp(e.metrics[0], "cpu_share"), "region share: then it is there");
	run_usage_release(&u);
	experiment_release(&e);
	store_close(st);
	plan_release(&pl);
	free(dir);
}

int main(void)
{
	const char *base = tap_tmpdir();
	test_end_note(base);
	test_record(base);
	test_delay_coverage(base);
	test_store_and_analysis(base, CAMP_CONFIG, "default", 5);
	test_store_and_analysis(base, CAMP_CONFIG "analysis = { min_cpu_share = 0.0; };\n", "share0", 0);
	test_region_share(base);
	return done_testing();
}
