/* common/ and the experiment container. */
#include "collectors/experiment.h"
#include "common/display.h"
#include "common/fsutil.h"
#include "common/idmap.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "designs/plan.h"
#include "tests/lib/tap.h"
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>

static void test_strmap(void)
{
	struct strmap m;
	strmap_init(&m);
	char key[32];
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		strmap_put(&m, key, i * 3);
	}
	int good = 1;
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		good &= strmap_get(&m, key) == i * 3;
	}
	ok(good, "strmap finds all 1000 keys after growth");
	is_int(strmap_get(&m, "absent"), -1, "strmap returns -1 for an absent key");
	strmap_put(&m, "k5", 7);
	is_int(strmap_get(&m, "k5"), 7, "strmap_put replaces");
	is_int((long long)m.count, 1000, "replacing does not add");
	strmap_release(&m);
}

/* Random puts and deletes (fixed seed) against a plain array: every key's
   value, after every step, as the array says; with keys that share their
   high half (one job's array tasks), so probe chains are long and
   deletions must shift entries back. */
static void test_idmap(void)
{
	enum { NKEYS = 4096, STEPS = 200000 };
	static size_t want[NKEYS];
	struct idmap m;
	idmap_init(&m);
	ok(idmap_get(&m, 42) == IDMAP_NONE, "an empty idmap has no key");
	idmap_del(&m, 42);
	for (int k = 0; k < NKEYS; k++)
		want[k] = IDMAP_NONE;
	unsigned seed = 12345;
	int bad = 0;
	size_t live = 0, maxlive = 0;
	for (int step = 0; step < STEPS && !bad; step++) {
		seed = seed * 1103515245u + 12345u;
		int k = (int)((seed >> 8) % NKEYS);
		uint64_t key = (uint64_t)(1000 + k % 3) << 32 | (uint64_t)(k / 3);
		if ((seed >> 4) % 3) {   /* put twice as often as delete: the map fills and grows */
			live += want[k] == IDMAP_NONE;
			want[k] = (size_t)step;
			idmap_put(&m, key, (size_t)step);
		} else {
			live -= want[k] != IDMAP_NONE;
			want[k] = IDMAP_NONE;
			idmap_del(&m, key);
		}
		maxlive = live > maxlive ? live : maxlive;
		if (step % 997 == 0 || step == STEPS - 1)
			for (int j = 0; j < NKEYS; j++)
				bad |= idmap_get(&m, (uint64_t)(1000 + j % 3) << 32 | (uint64_t)(j / 3)) != want[j];
	}
	ok(!bad, "idmap agrees with a plain array over 200,000 random puts and deletes");
	ok(m.count == live && maxlive > NKEYS / 2, "idmap counts its keys (%zu live, at most %zu)", live,
	   maxlive);
	idmap_release(&m);
}

static void test_strbuf(void)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; i < 100; i++)
		strbuf_addf(&sb, "%d,", i);
	is_int((long long)sb.len, 290, "strbuf length after 100 appends");
	ok(!strncmp(sb.buf, "0,1,2,", 6) && !strcmp(sb.buf + sb.len - 3, "99,"), "strbuf content");
	/* a text longer than the room left: formatted again after growing */
	char *big = xmalloc(10001);
	memset(big, 'x', 10000);
	big[10000] = '\0';
	strbuf_addf(&sb, "[%s]%d", big, 7);
	ok(sb.len == 290 + 10003 && !strncmp(sb.buf + 290, "[xx", 3) &&
	   !strcmp(sb.buf + sb.len - 2, "]7") && strlen(sb.buf) == sb.len,
	   "strbuf_addf of a text longer than its room");
	strbuf_addf(&sb, "%s", "");
	ok(sb.len == 290 + 10003 && sb.buf[sb.len] == '\0', "strbuf_addf of nothing adds nothing");
	free(big);
	strbuf_release(&sb);
}

static void test_experiment(void)
{
	struct experiment e;
	experiment_init(&e);
	is_int(experiment_param(&e, "p"), 0, "first parameter index");
	is_int(experiment_param(&e, "n"), 1, "second parameter index");
	double c1[] = { 1, 10 }, c2[] = { 2, 10 };
	int p1 = experiment_point(&e, c1);
	int cp = experiment_callpath(&e, "main->foo");
	int m = experiment_metric(&e, "time");
	experiment_add(&e, cp, m, p1, 1.5);
	int p2 = experiment_point(&e, c2);   /* a point added after a series exists */
	experiment_add(&e, cp, m, p2, 2.5);
	experiment_add(&e, cp, m, p2, 3.5);
	is_int(experiment_param(&e, "q"), -1, "no parameter after points");
	is_int(experiment_point(&e, c1), p1, "points are found again");
	is_int(experiment_find_callpath(&e, "main->foo"), cp, "callpath lookup");
	const struct exp_values *v = experiment_values(&e, cp, m, p2);
	ok(v && v->n == 2 && v->v[1] == 3.5, "two repetitions at the second point");
	ok(experiment_values(&e, cp, 5, p1) == NULL, "no series for an unknown metric");
	experiment_release(&e);
}

static void test_full_factorial(void)
{
	double a[] = { 1, 2, 3 }, b[] = { 10, 20 };
	struct plan_param params[] = { { "a", NULL, 3, a, 1 }, { "b", NULL, 2, b, 1 } };
	struct design_spec spec = { .nparams = 2, .params = params, .repetitions = 4 };
	struct plan pl;
	struct perr err;
	is_int(plan_full_factorial(&pl, &spec, &err), 0, "full factorial builds");
	is_int(pl.npoints, 6, "3 x 2 points");
	is_int(pl.runs, 24, "6 points x 4 repetitions");
	ok(pl.points[5].values[0] == 3 && pl.points[5].values[1] == 20, "last point is (3, 20)");
	plan_release(&pl);
}

/* Opening files someone else wrote: regular files only, nothing through a link. */
static void test_fs_open(void)
{
	char d[600], p[700];
	snprintf(d, sizeof(d), "%s/open", tap_tmpdir());
	snprintf(p, sizeof(p), "%s/sub", d);
	fs_mkdir_p(p);
	snprintf(p, sizeof(p), "%s/sub/f.txt", d);
	FILE *f = fopen(p, "w");
	fputs("x", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/fifo", d);
	mkfifo(p, 0644);
	snprintf(p, sizeof(p), "%s/link", d);
	symlink("sub/f.txt", p);
	snprintf(p, sizeof(p), "%s/dlink", d);
	symlink("sub", p);
	const char *why = "";
	int fd = fs_open_beneath(d, "sub/f.txt", &why);
	ok(fd >= 0, "a regular file below the directory opens");
	if (fd >= 0)
		close(fd);
	fd = fs_open_beneath(d, "./sub//f.txt", &why);
	ok(fd >= 0, "'.' and empty components are fine");
	if (fd >= 0)
		close(fd);
	is_int(fs_open_beneath(d, "fifo", &why), -1, "a FIFO is refused (without blocking)");
	is_str(why, "it is a FIFO, not a regular file", "and named");
	is_int(fs_open_beneath(d, "link", &why), -1, "a symlink is refused");
	is_str(why, "it is a symbolic link", "and named");
	is_int(fs_open_beneath(d, "dlink/f.txt", &why), -1, "a path through a symlinked directory is refused");
	is_str(why, "it goes through a symbolic link", "and named");
	is_int(fs_open_beneath(d, "sub/../sub/f.txt", &why), -1, "'..' is refused");
	is_int(fs_open_beneath(d, "sub", &why), -1, "a directory is refused");
	is_str(why, "it is a directory", "and named");
	is_int(fs_open_beneath(d, "/etc/passwd", &why), -1, "an absolute path is refused");
	is_int(fs_open_beneath(d, "none", &why), -1, "a missing file fails");
	is_int(errno, ENOENT, "with ENOENT");
	is_int(fs_open_regular("/dev/zero", 0, &why), -1, "fs_open_regular refuses a device");
	is_str(why, "it is a device, not a regular file", "and names it");
	snprintf(p, sizeof(p), "%s/link", d);
	fd = fs_open_regular(p, 0, &why);
	ok(fd >= 0, "fs_open_regular follows a link to a regular file");
	if (fd >= 0)
		close(fd);
	is_int(fs_open_regular(p, 1, &why), -1, "but not with nofollow");
	/* fs_write_in_place: the whole text, a longer old file cut, the mode given */
	snprintf(p, sizeof(p), "%s/job.sh", d);
	struct strbuf sb;
	strbuf_init(&sb);
	ok(!fs_write_in_place(p, "a much longer first text\n", 25, 0755) && !fs_write_in_place(p, "#!/bin/sh\n", 10, 0755),
	   "fs_write_in_place writes, and writes over");
	ok(!strbuf_read_file(&sb, p) && !strcmp(sb.buf, "#!/bin/sh\n"), "the file holds the new text only");
	struct stat st;
	mode_t um = umask(022);
	umask(um);
	ok(!stat(p, &st) && (st.st_mode & 0777) == (0755 & ~um), "with the mode given, less the umask");
	snprintf(p, sizeof(p), "%s/none/job.sh", d);
	ok(fs_write_in_place(p, "x", 1, 0644) == -1 && errno == ENOENT, "a missing directory fails with ENOENT");
	strbuf_release(&sb);
}

/* A file written for a user replaces the old one only when complete. */
static void test_fs_atomic(void)
{
	char p[700];
	snprintf(p, sizeof(p), "%s/out.txt", tap_tmpdir());
	FILE *f = fopen(p, "w");
	fputs("old\n", f);
	fclose(f);
	chmod(p, 0640);
	struct fs_atomic a;
	is_int(fs_atomic_open(&a, p), 0, "fs_atomic_open");
	fputs("half", a.f);
	fs_atomic_abort(&a);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_read_file(&sb, p);
	is_str(sb.buf, "old\n", "an aborted write leaves the old file");
	is_int(fs_write_file(p, "new\n", 4), 0, "fs_write_file");
	strbuf_reset(&sb);
	strbuf_read_file(&sb, p);
	is_str(sb.buf, "new\n", "replaces it when complete");
	struct stat st;
	stat(p, &st);
	is_int(st.st_mode & 0777, 0640, "keeping its mode");
	char q[720];
	snprintf(q, sizeof(q), "%s/nodir/out.txt", tap_tmpdir());
	is_int(fs_write_file(q, "x", 1), -1, "a missing directory fails");
	strbuf_release(&sb);
}

/* Text from inputs on a terminal: controls escaped, UTF-8 kept. */
static void test_display(void)
{
	struct strbuf sb;
	strbuf_init(&sb);
	const char in[] = "a\x1b[31mb\tc\nd\x7f \xc3\xa9 \xc2\x9b \xff \xe2\x82";
	display_escape(&sb, in, sizeof(in) - 1);
	is_str(sb.buf, "a\\x1b[31mb\tc\nd\\x7f \xc3\xa9 \\xc2\\x9b \\xff \\xe2\\x82",
	       "ESC, DEL, C1, invalid and cut UTF-8 escaped; tab, newline and UTF-8 kept");
	strbuf_reset(&sb);
	char path[700];
	snprintf(path, sizeof(path), "%s/display.txt", tap_tmpdir());
	FILE *out = fopen(path, "w"), *d = display_stream(out);
	setvbuf(d, NULL, _IONBF, 0);    /* every fputs is one write: é split between two */
	fputs("x\xc3", d);
	fputs("\xa9\x1b", d);
	fclose(d);
	fclose(out);
	strbuf_read_file(&sb, path);
	is_str(sb.buf, "x\xc3\xa9\\x1b", "a stream keeps a UTF-8 sequence split between writes");
	strbuf_release(&sb);
}

/* The one reader of input files: regular files of bounded size only. */
static void test_fs_read_file(void)
{
	char d[600], p[700];
	snprintf(d, sizeof(d), "%s/read", tap_tmpdir());
	fs_mkdir_p(d);
	const char *why = "";
	struct strbuf sb;
	strbuf_init(&sb);
	snprintf(p, sizeof(p), "%s/small", d);
	ok(!fs_write_in_place(p, "0123456789", 10, 0644), "a 10-byte file");
	ok(!fs_read_file(&sb, p, 10, &why) && sb.len == 10, "is read whole with a limit of 10 bytes");
	sb.len = 0;
	is_int(fs_read_file(&sb, p, 9, &why), -1, "and refused with a limit of 9");
	is_int(errno, EFBIG, "with EFBIG");
	is_str(why, "it is larger than 9 bytes", "naming the limit");
	is_int(fs_read_file(&sb, "/dev/zero", 0, &why), -1, "/dev/zero is refused");
	is_str(why, "it is a device, not a regular file", "as a device");
	snprintf(p, sizeof(p), "%s/fifo", d);
	mkfifo(p, 0644);
	is_int(fs_read_file(&sb, p, 0, &why), -1, "a FIFO is refused, without blocking");
	is_str(why, "it is a FIFO, not a regular file", "as a FIFO");
	sb.len = 0;
	/* a file of /proc says it has 0 bytes: the limit holds while reading */
	is_int(fs_read_file(&sb, "/proc/self/maps", 16, &why), -1, "a /proc file that says 0 bytes is cut at the limit");
	is_int((int)sb.len <= 16, 1, "no more than the limit was kept");
	is_int(strbuf_read_file(&sb, "/dev/zero"), -1, "strbuf_read_file refuses /dev/zero too");
	volatile sig_atomic_t stop = 1;
	snprintf(p, sizeof(p), "%s/small", d);
	int fd = fs_open_regular(p, 0, &why);
	is_int(fs_read_fd_bounded(&sb, fd, 0, &stop, &why), -1, "a set stop flag ends the read");
	is_int(errno, EINTR, "with EINTR");
	close(fd);
	strbuf_release(&sb);
}

int main(void)
{
	test_fs_open();
	test_fs_read_file();
	test_fs_atomic();
	test_display();
	test_strmap();
	test_idmap();
	test_strbuf();
	test_experiment();
	test_full_factorial();
	return done_testing();
}
