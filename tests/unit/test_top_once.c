/*
 * `perfsweep top --once` against a fixed store: every state, a budget that
 * is overrun, a noisy point, and no run in flight (so nothing on the screen
 * depends on the clock).  The whole 80x24 screen is compared with the
 * expected text, from the library and from the real program.
 */
#include "tests/lib/tap.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "campaign/store.h"
#include "tui/top.h"

#define T0 1700000000.0

static struct perr err;

static void must(int rc, const char *what)
{
	if (rc < 0) {
		diag("%s: %s", what, err.msg);
		exit(2);
	}
}

static void done_with(struct store *st, long long id, double t, double wall, double value)
{
	struct measurement_list ml;
	char bid[32];
	snprintf(bid, sizeof(bid), "%lld:77", 4000 + id);
	measurement_list_init(&ml);
	measurement_list_add(&ml, 0, "main", "time", value);
	must(store_mark_submitted(st, id, bid, t, &err), "submitted");
	must(store_mark_running(st, id, t, &err), "running");
	must(store_mark_done(st, id, t + wall, 0, wall, &ml, NULL, &err), "done");
	measurement_list_release(&ml);
}

static char *fixed_store(void)
{
	char *dir = xasprintf("%s/fixed", tap_tmpdir());
	double av[2] = { 1, 2 }, bv[2] = { 10, 20 };
	struct plan_param params[2] = {
		{ .name = "a", .nvalues = 2, .values = av, .is_int = 1 },
		{ .name = "b", .nvalues = 2, .values = bv, .is_int = 1 },
	};
	struct design_spec spec = { .nparams = 2, .params = params, .repetitions = 3 };
	struct plan pl;
	struct store *st;
	must(plan_full_factorial(&pl, &spec, &err), "plan");
	for (int i = 0; i < pl.npoints; i++)
		pl.points[i].core_hours = 3 * 360.0 / 3600 * 2;   /* 0.2 core hours per run */
	must(store_create(&st, dir, "fixed", "local", "name = \"fixed\";", &pl, &err), "create");
	plan_release(&pl);
	must(store_set_meta(st, "budget_core_hours", "1.5", &err), "budget");
	/* a=1 b=10: quiet; a=1 b=20: noisy (CoV 0.5) */
	static const double v[6] = { 10, 10.1, 9.9, 10, 15, 5 };
	for (long long id = 1; id <= 6; id++)
		done_with(st, id, T0 + 400 * (double)(id - 1), 360 * (double)id, v[id - 1]);
	must(store_mark_submitted(st, 7, "4007:77", T0 + 3000, &err), "submitted");
	must(store_mark_running(st, 7, T0 + 3000, &err), "running");
	must(store_mark_failed(st, 7, T0 + 3012, 3, 12, "exit status 3", 0, &err), "failed");
	must(store_mark_cancelled(st, 8, T0 + 3100, "by hand", &err), "cancelled");
	store_close(st);
	return dir;
}

static const char expected[] =
"perfsweep top  fixed (local)                       elapsed 1:09:20  ETA - (idle)\n"
"runs   [############!!xx........]  67% 6/12 done 0 run 4 pend 1 fail 1 canc\n"
"core-h [############|####.......] 2.10 spent +0 run / 1.50 budget OVER +1.40\n"
"flags  1 of 2 points above CoV 0.1 (worst 0.50 at a=1 b=20: main time)\n"
" ID^ POINT                 PLACEMENT     REP STATE     JOB   ATT  ELAPSED  EXIT\n"
"   1 a=1 b=10              1r              1 done      4001    1     6:00     0\n"
"   2 a=1 b=10              1r              2 done      4002    1    12:00     0\n"
"   3 a=1 b=10              1r              3 done      4003    1    18:00     0\n"
"   4 a=1 b=20              1r              1 done      4004    1    24:00     0\n"
"   5 a=1 b=20              1r              2 done      4005    1    30:00     0\n"
"   6 a=1 b=20              1r              3 done      4006    1    36:00     0\n"
"   7 a=2 b=10              1r              1 failed    4007    1      12s     3\n"
"   8 a=2 b=10              1r              2 cancelled -       0        -     -\n"
"   9 a=2 b=10              1r              3 pending   -       0        -     -\n"
"  10 a=2 b=20              1r              1 pending   -       0        -     -\n"
"  11 a=2 b=20              1r              2 pending   -       0        -     -\n"
"  12 a=2 b=20              1r              3 pending   -       0        -     -\n"
"\n"
"\n"
"\n"
"\n"
"\n"
"\n"
"12/12 runs  ?:help /:filter <>:sort Enter:details c:cancel q:quit\n";

static char *snapshot(char *dir, int w, int h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *dirs[1] = { dir };
	if (top_snapshot(dirs, 1, w, h, f, &err) < 0)
		diag("top_snapshot: %s", err.msg);
	fclose(f);
	return buf;
}

static void first_diff(const char *got, const char *want)
{
	int line = 1;
	const char *g = got, *w = want;
	while (*g && *g == *w) {
		if (*g == '\n')
			line++;
		g++;
		w++;
	}
	if (*g || *w)
		diag("first difference on line %d:\n#   got:      '%.80s'\n#   expected: '%.80s'", line, g, w);
}

int main(void)
{
	char *dir = fixed_store();
	char *got = snapshot(dir, 80, 24);
	ok(got && !strcmp(got, expected), "the 80x24 snapshot of the fixed store");
	if (got && strcmp(got, expected)) {
		first_diff(got, expected);
		diag("whole screen:\n%s", got);
	}
	free(got);

	/* the real program prints the same */
	/* the build under test: bin/, or build-san/bin for sanitized builds */
	const char *bindir = getenv("PERFSWEEP_BIN") ? getenv("PERFSWEEP_BIN") : tap_src("bin");
	char *cmd = xasprintf("COLUMNS=80 LINES=24 '%s/perfsweep' top '%s' --once", bindir, dir);
	FILE *p = popen(cmd, "r");
	struct strbuf sb;
	strbuf_init(&sb);
	char chunk[4096];
	size_t n;
	while (p && (n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		strbuf_add(&sb, chunk, n);
	int rc = p ? pclose(p) : -1;
	is_int(rc, 0, "perfsweep top --once exits 0");
	/* 127: no program there (run from elsewhere without PERFSWEEP_ROOT or
	   PERFSWEEP_BIN, or a make relinking it): say which was run */
	if (rc != 0)
		diag("ran: %s", cmd);
	ok(!strcmp(sb.buf, expected), "perfsweep top --once prints the same screen");
	if (strcmp(sb.buf, expected))
		first_diff(sb.buf, expected);
	strbuf_release(&sb);
	free(cmd);

	/* a small screen clips, never wraps */
	got = snapshot(dir, 40, 10);
	int lines = 0, wide = 0;
	for (char *s = got, *nl; s && (nl = strchr(s, '\n')); s = nl + 1) {
		lines++;
		if (nl - s > 40)
			wide++;
	}
	is_int(lines, 10, "a 40x10 snapshot has 10 rows");
	is_int(wide, 0, "none wider than 40 columns");
	contains(got, "perfsweep top  fixed", "and still starts with the header");
	free(got);

	/* two campaigns: one screen each */
	char *dirs[2] = { dir, dir };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ok(top_snapshot(dirs, 2, 80, 24, f, &err) == 0, "two campaigns");
	fclose(f);
	contains(buf, "fixed (local)  [2/2]", "the second screen says which campaign it is");
	free(buf);
	free(dir);
	return done_testing();
}
