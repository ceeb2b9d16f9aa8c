/* The collector set over a run's files: REG_NEWLINE anchors, which collectors
   matched nothing, and the fingerprint of a set. */
#include "collectors/collector_set.h"
#include "common/fsutil.h"
#include "tests/lib/tap.h"
#include <sys/inotify.h>
#include <unistd.h>

/* A pattern with the fields every test sets; the others zero. */
#define RX(r, m, p, s, f, a) { .region = r, .metric = m, .pattern = p, .stream = s, .file = f, .aggregate = a }

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[800];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The value of region/metric at rank in l, or -1 when absent (values here are positive). */
static double value(const struct measurement_list *l, const char *region, const char *metric, int rank)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->m[i].region, region) && !strcmp(l->m[i].metric, metric) && l->m[i].rank == rank)
			return l->m[i].value;
	return -1;
}

static void one(const char *dir, struct regex_pattern *p, struct collect_result *r)
{
	struct collector_set cs = { .nregex = 1, .regex = p };
	collector_set_run(&cs, dir, -1, r);
}

/* ^ and $ at line starts and ends; . and [^...] stay on their line. */
static void anchors(const char *dir)
{
	write_file(dir, "stdout", "header\npresetup: 9 s\nsetup: 1.5 s\nsetup: 2.5 s later\n"
				  "value 7 extra\nvalue 8\na\nb=3\naxb=4\n");
	struct collect_result r;
	struct regex_pattern p = RX("setup", "time", "^setup: ([0-9.]+) s$", "stdout", NULL, NULL);
	one(dir, &p, &r);
	is_rel(value(&r.ml, "setup", "time", 0), 1.5, 0, "^...$ takes the whole line 'setup: 1.5 s', not 'presetup' or 'later'");
	ok(!r.error && !r.nmissed, "and no problem");
	collect_result_release(&r);

	struct regex_pattern q = RX("v", "n", "value ([0-9]+)$", "stdout", NULL, "first");
	one(dir, &q, &r);
	is_rel(value(&r.ml, "v", "n", 0), 8, 0, "$ ends a line: the first value at a line end is 8");
	collect_result_release(&r);

	struct regex_pattern s = RX("x", "n", "a.b=([0-9]+)", "stdout", NULL, "sum");
	one(dir, &s, &r);
	is_rel(value(&r.ml, "x", "n", 0), 4, 0, ". never matches a newline: only 'axb=4' counts");
	collect_result_release(&r);

	struct regex_pattern u = RX("v", "sum", "^value ([0-9]+)\n", "stdout", NULL, "sum");
	write_file(dir, "stderr", "value 1\nvalue 2\nvalue 4\n");
	u.stream = "stderr";
	one(dir, &u, &r);
	is_rel(value(&r.ml, "v", "sum", 0), 7, 0, "a match that ends a line leaves the next line's ^ intact (1+2+4)");
	collect_result_release(&r);

	struct regex_pattern t = RX("h", "n", "^header$\n^presetup: ([0-9]+)", "stdout", NULL, NULL);
	one(dir, &t, &r);
	is_rel(value(&r.ml, "h", "n", 0), 9, 0, "an explicit \\n still spans two lines, anchored at both");
	collect_result_release(&r);
}

/* The collectors that matched nothing are named; the others are not. */
static void misses(const char *dir)
{
	struct regex_pattern p[] = {
		RX("setup", "time", "setup: ([0-9.]+) s", "stdout", NULL, NULL),
		RX("nope", "time", "nope: ([0-9.]+)", "stdout", NULL, NULL),
		RX("f", "gflops", "g=([0-9]+)", "stdout", "no-such-file.txt", NULL),
	};
	struct collector_set cs = { .wall = 1, .nregex = 3, .regex = p, .cubex = 1 };
	struct collect_result r;
	collector_set_run(&cs, dir, 2.25, &r);
	is_int(r.nmissed, 3, "three collectors matched nothing");
	if (r.nmissed == 3) {
		is_str(r.missed[0], "regex nope/time", "the pattern that never matched");
		is_str(r.missed[1], "regex f/gflops", "the pattern whose file is missing");
		is_str(r.missed[2], "cubex", "the profile that is missing");
	}
	ok(r.error && strstr(r.error, "pattern for nope/time never matched stdout") &&
	   strstr(r.error, "f/gflops: file 'no-such-file.txt' is missing"), "the error names them");
	is_rel(value(&r.ml, "main", "time", -1), 2.25, 0, "the wall time is the run's");
	is_rel(value(&r.ml, "setup", "time", 0), 2.5, 0, "the pattern that matched has its last value");
	collect_result_release(&r);
}

/* An optional pattern that matches nothing is neither an error nor a miss,
   unless a limit stopped it; scale multiplies what it captures. */
static void optional_and_scale(const char *dir)
{
	write_file(dir, "stdout", "Force 0.167\n98.5% CPU use\n");
	struct regex_pattern p[] = {
		RX("Force", "time", "^Force ([0-9.]+)", "stdout", NULL, NULL),
		{ .region = "Comm_coord", .metric = "time", .pattern = "^Comm. coord. ([0-9.]+)", .stream = "stdout",
		  .optional = 1, .resolution = 0.001 },
		{ .region = "log", .metric = "time", .pattern = "t=([0-9.]+)", .stream = "stdout", .file = "md.log",
		  .optional = 1 },
		{ .region = "loop", .metric = "cpu_share", .pattern = "^([0-9.]+)% CPU use", .stream = "stdout", .scale = 0.01 },
	};
	struct collector_set cs = { .nregex = 4, .regex = p };
	struct collect_result r;
	collector_set_run(&cs, dir, -1, &r);
	ok(!r.error, "an optional pattern that never matches is no collection error (%s)", r.error ? r.error : "none");
	is_int(r.nmissed, 0, "nor a miss");
	is_rel(value(&r.ml, "Comm_coord", "time", 0), -1, 0, "and leaves its region without a value");
	is_rel(value(&r.ml, "Force", "time", 0), 0.167, 0, "the other patterns are read as before");
	is_rel(value(&r.ml, "loop", "cpu_share", 0), 0.985, 1e-12, "scale 0.01 turns 98.5%% into 0.985");
	collect_result_release(&r);

	/* stopped by a limit, an optional pattern is a problem like any other */
	char big[800];
	snprintf(big, sizeof(big), "%s/md.log", dir);
	FILE *f = fopen(big, "w");
	for (int i = 0; i < 30000; i++)
		fputs("0123456789012345678901234567890123456789 v=1\n", f);
	fclose(f);
	cs.limits.memory_mb = 1;
	collector_set_run(&cs, dir, -1, &r);
	ok(r.error && strstr(r.error, "'md.log' is larger than the memory limit"), "an optional pattern over its limit "
	   "is an error: %s", r.error ? r.error : "none");
	is_int(r.nmissed, 1, "and a miss");
	collect_result_release(&r);
	unlink(big);
}

/* Output is bytes: NUL and invalid UTF-8 are characters like any other. */
static void bytes(const char *dir)
{
	char path[800];
	snprintf(path, sizeof(path), "%s/stdout", dir);
	FILE *f = fopen(path, "w");
	fwrite("warn\0ing\xff\xfe\nt: 4.5\nt: 4\0.5\n", 1, 25, f);
	fclose(f);
	struct collect_result r;
	struct regex_pattern p = RX("r", "t", "^t: ([0-9.]+)", "stdout", NULL, "sum");
	one(dir, &p, &r);
	is_rel(value(&r.ml, "r", "t", 0), 8.5, 0, "values after a NUL byte are read (4.5 + 4: a NUL ends a number)");
	collect_result_release(&r);
}

/* POSIX meaning kept over PCRE2: brackets, word boundaries, {,n}. */
static void ere(const char *dir)
{
	write_file(dir, "stdout", "a\\b=1\nx\ny=2\nfoo=3 food=4\nzz=5\n");
	struct collect_result r;
	struct regex_pattern p = RX("b", "n", "a[\\]b=([0-9])", "stdout", NULL, NULL);
	one(dir, &p, &r);
	is_rel(value(&r.ml, "b", "n", 0), 1, 0, "a backslash inside brackets is itself");
	collect_result_release(&r);
	struct regex_pattern q = RX("s", "n", "x[^=]y=([0-9])", "stdout", NULL, NULL);
	one(dir, &q, &r);
	ok(r.nmissed == 1, "[^...] never matches a newline");
	collect_result_release(&r);
	struct regex_pattern w = RX("w", "n", "\\<foo=([0-9])\\>", "stdout", NULL, NULL);
	one(dir, &w, &r);
	is_rel(value(&r.ml, "w", "n", 0), 3, 0, "\\< and \\> are word boundaries");
	collect_result_release(&r);
	struct regex_pattern z = RX("z", "n", "^z{,3}=([0-9])", "stdout", NULL, NULL);
	one(dir, &z, &r);
	is_rel(value(&r.ml, "z", "n", 0), 5, 0, "{,n} is {0,n}");
	collect_result_release(&r);
}

/* The limits: a file larger than the memory limit, a runaway pattern, the stop flag. */
static void limits(const char *dir)
{
	char path[800];
	snprintf(path, sizeof(path), "%s/big.txt", dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 30000; i++)
		fputs("0123456789012345678901234567890123456789 v=1\n", f);
	fclose(f);
	struct regex_pattern p = RX("m", "v", "v=([0-9])", "stdout", "big.txt", NULL);
	struct collector_set cs = { .nregex = 1, .regex = &p, .limits = { .memory_mb = 1 } };
	struct collect_result r;
	collector_set_run(&cs, dir, -1, &r);
	ok(r.error && strstr(r.error, "'big.txt' is larger than the memory limit of 1 MiB (collect.memory_limit)"),
	   "a file over the memory limit is a collection error: %s", r.error ? r.error : "none");
	is_int(r.nmissed, 1, "and the pattern yields nothing");
	collect_result_release(&r);

	struct regex_prog *re;
	char msg[256];
	int groups;
	is_int(regex_prog_compile(&re, "((a|a)*)*b([0-9])", &groups, msg, sizeof(msg)), 0, "a runaway pattern compiles");
	is_int(groups, 3, "with its 3 groups");
	char buf[200];
	memset(buf, 'a', sizeof(buf));
	memcpy(buf + sizeof(buf) - 3, "bx\n", 3);
	double v;
	int interrupted;
	struct perr err;
	is_int(regex_scan_mem(re, "last", buf, sizeof(buf), NULL, &v, &interrupted, &err), -1, "the match limit stops it");
	ok(strstr(err.msg, "backtracks too much") != NULL, "saying so: %s", err.msg);
	regex_prog_free(re);

	volatile sig_atomic_t stop = 1;
	struct collect_limits lim = { .stop = &stop };
	regex_prog_compile(&re, "t: ([0-9]+)", &groups, msg, sizeof(msg));
	is_int(regex_scan_mem(re, "last", "t: 1\n", 5, &lim, &v, &interrupted, &err), -1, "a set stop flag stops a scan");
	is_int(interrupted, 1, "as interrupted");
	regex_prog_free(re);
	is_int(regex_prog_compile(&re, "a)(b", &groups, msg, sizeof(msg)), -1, "a pattern cannot close the group around it");
	ok(strstr(msg, "offset 1") != NULL, "the offset is the pattern's own: %s", msg);
}

/* scale: LAMMPS's "98.5% CPU use" as a region's CPU share in cores. */
static void scaled(const char *dir)
{
	write_file(dir, "stdout", "Loop time of 1.25 on 1 procs\n98.5% CPU use with 1 MPI tasks x 1 OpenMP threads\n");
	struct collect_result r;
	struct regex_pattern p = RX("Loop", "cpu_share", "([0-9.]+)% CPU use", "stdout", NULL, NULL);
	p.scale = 0.01;
	one(dir, &p, &r);
	is_rel(value(&r.ml, "Loop", "cpu_share", 0), 0.985, 1e-12, "scale 0.01: 98.5%% CPU use is 0.985 of a core");
	collect_result_release(&r);
}

/* Opens and reads of path seen by inotify while collecting: counted in
   *opens and *reads. */
static void count_io(int ifd, int *opens, int *reads)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	*opens = *reads = 0;
	while ((n = read(ifd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			*opens += (ev->mask & IN_OPEN) != 0;
			*reads += (ev->mask & IN_ACCESS) != 0;
			p += sizeof(*ev) + ev->len;
		}
}

/* A run's output is read once for all its patterns, and a stop flag is
   looked at while it is read: with the flag set nothing of it is read. */
static void read_once(const char *dir)
{
	char path[800];
	snprintf(path, sizeof(path), "%s/stdout", dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 20000; i++)   /* 1 MB: 16 reads of 64 KiB */
		fprintf(f, "%-40d a=1 b=2 c=3 d=4 e=5\n", i);
	fclose(f);
	struct regex_pattern p[5] = {
		RX("r", "a", "a=([0-9])", "stdout", NULL, NULL), RX("r", "b", "b=([0-9])", "stdout", NULL, NULL),
		RX("r", "c", "c=([0-9])", "stdout", NULL, NULL), RX("r", "d", "d=([0-9])", "stdout", NULL, NULL),
		RX("r", "e", "e=([0-9])", "stdout", NULL, NULL),
	};
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ok(ifd >= 0 && inotify_add_watch(ifd, path, IN_OPEN | IN_ACCESS) >= 0, "inotify watches stdout");
	struct collector_set cs = { .nregex = 5, .regex = p };
	struct collect_result r;
	collector_set_run(&cs, dir, -1, &r);
	int opens, reads;
	count_io(ifd, &opens, &reads);
	is_int(r.ml.n, 5, "five patterns over stdout give five values");
	is_int(opens, 1, "stdout is opened once for the five patterns");
	ok(reads >= 1 && reads <= 17, "and read once (%d reads of 64 KiB or less)", reads);
	collect_result_release(&r);

	volatile sig_atomic_t stop = 1;
	cs.limits.stop = &stop;
	collector_set_run(&cs, dir, -1, &r);
	count_io(ifd, &opens, &reads);
	is_int(r.interrupted, 1, "a set stop flag interrupts the collection");
	is_int(reads, 0, "before anything of stdout is read");
	collect_result_release(&r);
	close(ifd);
	unlink(path);
}

static void fingerprints(void)
{
	struct regex_pattern a = RX("r", "time", "t: ([0-9]+)", "stdout", NULL, NULL);
	struct regex_pattern b = RX("r", "time", "t: ([0-9]+)", "stdout", NULL, "last");
	struct regex_pattern c = RX("r", "time", "T: ([0-9]+)", "stdout", NULL, NULL);
	struct regex_pattern d = RX("r", "time", "t: ([0-9]+)", "stdout", "out.txt", NULL);
	struct regex_pattern e = RX("r", "time", "t: ([0-9]+)", "stderr", "out.txt", NULL);
	char *m[] = { "time", "visits" };
	struct collector_set sa = { .wall = 1, .nregex = 1, .regex = &a };
	struct collector_set sb = { .wall = 1, .nregex = 1, .regex = &b };
	struct collector_set sc = { .wall = 1, .nregex = 1, .regex = &c };
	struct collector_set sw = { .wall = 0, .nregex = 1, .regex = &a };
	struct collector_set sd = { .nregex = 1, .regex = &d }, se = { .nregex = 1, .regex = &e };
	struct collector_set sx = { .wall = 1, .nregex = 1, .regex = &a, .cubex = 1, .ncubex_metrics = 2,
				    .cubex_metrics = m };
	char *fa = collector_set_fingerprint(&sa), *fb = collector_set_fingerprint(&sb);
	char *fc = collector_set_fingerprint(&sc), *fw = collector_set_fingerprint(&sw);
	char *fd = collector_set_fingerprint(&sd), *fe = collector_set_fingerprint(&se);
	char *fx = collector_set_fingerprint(&sx);
	is_str(fa, fb, "the default aggregate spelt out is the same set");
	ok(strcmp(fa, fc), "a changed pattern changes the fingerprint");
	ok(strcmp(fa, fw), "wall off changes it");
	ok(strcmp(fa, fx), "a cubex collector changes it");
	is_str(fd, fe, "a pattern over a file ignores the stream");
	is_int((long long)strlen(fa), 16, "16 hex digits");
	struct regex_pattern o = a, k = a;
	o.optional = 1;
	o.resolution = 0.001;
	k.scale = 0.01;
	struct collector_set so = { .wall = 1, .nregex = 1, .regex = &o }, sk = { .wall = 1, .nregex = 1, .regex = &k };
	char *fo = collector_set_fingerprint(&so), *fk = collector_set_fingerprint(&sk);
	is_str(fo, fa, "optional and resolution change no value: the same set");
	ok(strcmp(fk, fa), "a scale changes the values: another set");
	free(fo), free(fk);
	free(fa), free(fb), free(fc), free(fw), free(fd), free(fe), free(fx);
}

int main(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/run", tap_tmpdir());
	fs_mkdir_p(dir);
	anchors(dir);
	misses(dir);
	optional_and_scale(dir);
	bytes(dir);
	ere(dir);
	limits(dir);
	scaled(dir);
	read_once(dir);
	fingerprints();
	return done_testing();
}
