/* Tests of the .cubex reader: real LULESH profiles, synthetic layouts, corrupt files. */
#include "collectors/cubex.h"
#include "collectors/scorep_dir.h"
#include "common/strbuf.h"
#include "tests/lib/tar_build.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"
#include <stdint.h>
#include <zlib.h>




static void put_u(struct strbuf *sb, uint64_t v, int n, int big)
{
	unsigned char b[8];
	for (int i = 0; i < n; i++)
		b[big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
	strbuf_add(sb, (const char *)b, (size_t)n);
}

static void put_d(struct strbuf *sb, double d, int big)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	put_u(sb, u, 8, big);
}

/* index: format 1 sparse (with positions) or 3 dense */
static void make_index(struct strbuf *sb, int format, const int *pos, int n, int big)
{
	strbuf_addstr(sb, "CUBEX.INDEX");
	put_u(sb, 1, 4, big);
	put_u(sb, 0, 2, big);
	strbuf_addch(sb, (char)format);
	if (format == 1) {
		put_u(sb, (uint64_t)n, 4, big);
		for (int i = 0; i < n; i++)
			put_u(sb, (uint64_t)pos[i], 4, big);
	}
}

static const char *ANCHOR =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<cube version=\"4.5\">\n"
	" <metrics>\n"
	"  <metric id=\"0\" type=\"INCLUSIVE\"><disp_name>Time</disp_name><uniq_name>time</uniq_name>"
	"<dtype>DOUBLE</dtype><uom>sec</uom></metric>\n"
	"  <metric id=\"1\" type=\"EXCLUSIVE\"><disp_name>Visits</disp_name><uniq_name>visits</uniq_name>"
	"<dtype>UINT64</dtype><uom>occ</uom>\n"
	"   <metric id=\"2\" type=\"EXCLUSIVE\"><uniq_name>bytes</uniq_name><dtype>INT64</dtype></metric>\n"
	"  </metric>\n"
	"  <metric id=\"3\" type=\"EXCLUSIVE\"><uniq_name>hist</uniq_name><dtype>HISTOGRAM(4)</dtype></metric>\n"
	"  <metric id=\"4\" type=\"EXCLUSIVE\"><uniq_name>empty</uniq_name><dtype>DOUBLE</dtype></metric>\n"
	" </metrics>\n"
	" <program>\n"
	"  <region id=\"7\"><name>A</name><mangled_name>A</mangled_name></region>\n"
	"  <region id=\"8\"><name>void B(int)</name></region>\n"
	"  <region id=\"9\"><name>C</name></region>\n"
	"  <region id=\"5\"><name>D</name></region>\n"
	"  <cnode id=\"0\" calleeId=\"7\">\n"
	"   <cnode id=\"1\" calleeId=\"8\"><cnode id=\"3\" calleeId=\"5\"/></cnode>\n"
	"   <cnode id=\"2\" calleeId=\"9\"/>\n"
	"  </cnode>\n"
	" </program>\n"
	" <system><systemtreenode Id=\"0\"><name>m</name>\n"
	"  <locationgroup Id=\"0\"><rank>0</rank><location Id=\"0\"><rank>0</rank></location></locationgroup>\n"
	"  <locationgroup Id=\"1\"><rank>1</rank><location Id=\"1\"><rank>0</rank></location></locationgroup>\n"
	" </systemtreenode></system>\n"
	"</cube>\n";

/* cnodes in document order: A(0) B(1) D(2) C(3); wide order: A B C D */
static void build_synthetic(struct strbuf *out, const char *anchor, int corrupt)
{
	struct strbuf ix, dx;
	strbuf_init(&ix);
	strbuf_init(&dx);
	strbuf_init(out);
	tar_add(out, "anchor.xml", anchor, strlen(anchor));

	/* time: inclusive, dense, plain; rows in wide order A B C D */
	make_index(&ix, 3, NULL, 0, 0);
	strbuf_addstr(&dx, "CUBEX.DATA");
	const double t[4][2] = { { 10, 20 }, { 6, 12 }, { 3, 5 }, { 2, 4 } };
	for (int r = 0; r < 4; r++)
		for (int l = 0; l < 2; l++)
			put_d(&dx, t[r][l], 0);
	if (corrupt == 1)
		dx.len -= 8;    /* truncated data */
	tar_add(out, "0.index", ix.buf, ix.len);
	tar_add(out, "0.data", dx.buf, dx.len);

	/* visits: exclusive, sparse (B at dfs position 1, D at 2), zlib-compressed per row */
	strbuf_reset(&ix);
	strbuf_reset(&dx);
	const int vp[2] = { 1, corrupt == 2 ? 9 : 2 };
	make_index(&ix, 1, vp, 2, 0);
	const uint64_t vv[2][2] = { { 1, 2 }, { 7, 9 } };
	unsigned char zrow[2][64];
	uLongf zlen[2];
	for (int r = 0; r < 2; r++) {
		unsigned char raw[16];
		for (int l = 0; l < 2; l++)
			for (int b = 0; b < 8; b++)
				raw[l * 8 + b] = (unsigned char)(vv[r][l] >> (8 * b));
		zlen[r] = sizeof(zrow[r]);
		compress(zrow[r], &zlen[r], raw, sizeof(raw));
	}
	strbuf_addstr(&dx, "ZCUBEX.DATA");
	put_u(&dx, 2, 8, 0);
	uint64_t at = 0;
	for (int r = 0; r < 2; r++) {
		put_u(&dx, (uint64_t)r * 16, 8, 0);
		put_u(&dx, at, 8, 0);
		put_u(&dx, zlen[r], 8, 0);
		at += zlen[r];
	}
	for (int r = 0; r < 2; r++)
		strbuf_add(&dx, (const char *)zrow[r], zlen[r]);
	if (corrupt == 3)
		dx.buf[dx.len - 3] ^= 0x55;     /* corrupt zlib stream */
	tar_add(out, "1.index", ix.buf, ix.len);
	tar_add(out, "1.data", dx.buf, dx.len);

	/* bytes: exclusive INT64, big-endian sparse: C at dfs position 3 */
	strbuf_reset(&ix);
	strbuf_reset(&dx);
	const int bp[1] = { 3 };
	make_index(&ix, 1, bp, 1, 1);
	strbuf_addstr(&dx, "CUBEX.DATA");
	put_u(&dx, (uint64_t)(int64_t)-5, 8, 1);
	put_u(&dx, 5, 8, 1);
	tar_add(out, "2.index", ix.buf, ix.len);
	tar_add(out, "2.data", dx.buf, dx.len);

	/* hist: an unsupported type, with data */
	strbuf_reset(&ix);
	strbuf_reset(&dx);
	make_index(&ix, 3, NULL, 0, 0);
	strbuf_addstr(&dx, "CUBEX.DATA");
	tar_add(out, "3.index", ix.buf, ix.len);
	tar_add(out, "3.data", dx.buf, dx.len);
	tar_end(out);
	strbuf_release(&ix);
	strbuf_release(&dx);
}

static int find_cnode(const struct cubex *c, const char *path)
{
	for (int i = 0; i < c->ncnodes; i++)
		if (!strcmp(c->cnodes[i].callpath, path))
			return i;
	return -1;
}

static void test_synthetic(void)
{
	struct strbuf sb;
	struct perr err = { 0 };
	struct cubex c;
	build_synthetic(&sb, ANCHOR, 0);
	if (!ok(cubex_open_mem(&c, "synthetic.cubex", sb.buf, sb.len, &err) == 0, "synthetic profile opens")) {
		diag("%s", err.msg);
		strbuf_release(&sb);
		return;
	}
	is_int(c.nmetrics, 5, "nested metrics are all found");
	is_int(c.ncnodes, 4, "four cnodes");
	is_int(c.nlocations, 2, "two locations");
	int A = find_cnode(&c, "A"), B = find_cnode(&c, "A->void B(int)"), C = find_cnode(&c, "A->C"),
	    D = find_cnode(&c, "A->void B(int)->D");
	ok(A == 0 && B == 1 && D == 2 && C == 3, "call paths in Extra-P notation, document order (A=%d B=%d D=%d C=%d)",
	   A, B, D, C);
	is_int(c.locations[1].rank, 1, "location 1 has rank 1");

	double *v = NULL;
	int m = cubex_find_metric(&c, "time");
	ok(cubex_read_metric(&c, m, CUBEX_AS_STORED, &v, &err) == 0, "time reads");
	/* dense inclusive rows are in wide order A B C D */
	ok(v && v[A * 2] == 10 && v[B * 2 + 1] == 12 && v[C * 2] == 3 && v[D * 2 + 1] == 4,
	   "dense inclusive rows follow the wide cnode order");
	free(v);
	ok(cubex_read_metric(&c, m, CUBEX_EXCL, &v, &err) == 0, "time exclusive");
	ok(v && v[A * 2] == 1 && v[A * 2 + 1] == 3 && v[B * 2] == 4 && v[B * 2 + 1] == 8 && v[D * 2] == 2,
	   "exclusive = inclusive minus children (A: %g %g, B: %g %g)", v ? v[0] : -1, v ? v[1] : -1,
	   v ? v[B * 2] : -1, v ? v[B * 2 + 1] : -1);
	free(v);

	m = cubex_find_metric(&c, "Visits");
	ok(m >= 0 && !strcmp(c.metrics[m].name, "visits"), "metrics are found by display name too");
	ok(cubex_read_metric(&c, m, CUBEX_AS_STORED, &v, &err) == 0, "compressed sparse visits read: %s", err.msg);
	ok(v && v[A * 2] == 0 && v[B * 2] == 1 && v[B * 2 + 1] == 2 && v[D * 2] == 7 && v[D * 2 + 1] == 9 &&
	   v[C * 2] == 0, "sparse rows land on their cnodes, missing rows are zero");
	free(v);
	ok(cubex_read_metric(&c, m, CUBEX_INCL, &v, &err) == 0, "visits inclusive");
	ok(v && v[A * 2] == 8 && v[A * 2 + 1] == 11 && v[B * 2] == 8, "inclusive = exclusive plus subtree");
	free(v);

	m = cubex_find_metric(&c, "bytes");
	ok(cubex_read_metric(&c, m, CUBEX_AS_STORED, &v, &err) == 0, "big-endian INT64 reads");
	ok(v && v[C * 2] == -5 && v[C * 2 + 1] == 5, "big-endian signed values decode (%g %g)", v ? v[C * 2] : 0,
	   v ? v[C * 2 + 1] : 0);
	free(v);

	m = cubex_find_metric(&c, "empty");
	ok(cubex_read_metric(&c, m, CUBEX_EXCL, &v, &err) == 0 && v && v[0] == 0 && v[7] == 0,
	   "a metric without data files reads as zeros");
	free(v);

	m = cubex_find_metric(&c, "hist");
	v = NULL;
	ok(cubex_read_metric(&c, m, CUBEX_EXCL, &v, &err) < 0 && !v, "unsupported type fails");
	contains(err.msg, "unknown or unsupported data type 'HISTOGRAM(4)'", "and names the type");

	struct measurement_list ml;
	measurement_list_init(&ml);
	ok(cubex_collect(&c, NULL, 0, CUBEX_MEAN, 1, &ml, &err) == 0, "collect time and visits");
	is_int(ml.n, 2 * 4 * 3, "per metric and call path: one aggregate and two ranks");
	int seen = 0;
	for (int i = 0; i < ml.n; i++) {
		const struct measurement *x = &ml.m[i];
		if (!strcmp(x->metric, "time") && !strcmp(x->region, "A->void B(int)") && x->rank == -1) {
			is_rel(x->value, 6.0, 0, "mean exclusive time of B over ranks");
			seen++;
		}
		if (!strcmp(x->metric, "visits") && !strcmp(x->region, "A->void B(int)->D") && x->rank == 1) {
			is_rel(x->value, 9.0, 0, "per-rank value keeps its rank");
			seen++;
		}
	}
	is_int(seen, 2, "both checked measurements are present");
	measurement_list_release(&ml);
	char *bad[] = { "nosuch" };
	ok(cubex_collect(&c, bad, 1, CUBEX_MEAN, 0, &ml, &err) < 0, "unknown metric fails");
	contains(err.msg, "no metric 'nosuch'", "and names it");
	measurement_list_release(&ml);
	cubex_release(&c);
	strbuf_release(&sb);

	/* corrupt variants of the synthetic profile */
	static const struct { int corrupt; const char *metric, *want; } cv[] = {
		{ 1, "time", "0.data: truncated data" },
		{ 2, "visits", "1.index: bad index: entry 1 is 9" },
		{ 3, "visits", "1.data: corrupt compressed segment 1" },
	};
	for (size_t i = 0; i < sizeof(cv) / sizeof(cv[0]); i++) {
		build_synthetic(&sb, ANCHOR, cv[i].corrupt);
		if (cubex_open_mem(&c, "bad.cubex", sb.buf, sb.len, &err) == 0) {
			v = NULL;
			ok(cubex_read_metric(&c, cubex_find_metric(&c, cv[i].metric), CUBEX_EXCL, &v, &err) < 0,
			   "corrupt variant %d fails", cv[i].corrupt);
			contains(err.msg, cv[i].want, "with a clear reason");
			free(v);
			cubex_release(&c);
		} else {
			ok(0, "corrupt variant %d should open: %s", cv[i].corrupt, err.msg);
		}
		strbuf_release(&sb);
	}
}

/* Two call sites of the same function give one call path whose values add up. */
static void test_duplicate_callpaths(void)
{
	static const char *anchor =
		"<?xml version=\"1.0\"?>\n<cube version=\"4.5\"><metrics>"
		"<metric id=\"0\" type=\"EXCLUSIVE\"><uniq_name>visits</uniq_name><dtype>UINT64</dtype></metric>"
		"</metrics><program><region id=\"0\"><name>A</name></region><region id=\"1\"><name>B</name></region>"
		"<cnode id=\"0\" calleeId=\"0\"><cnode id=\"1\" calleeId=\"1\"/><cnode id=\"2\" calleeId=\"1\"/></cnode>"
		"</program><system><systemtreenode Id=\"0\">"
		"<locationgroup Id=\"0\"><rank>0</rank><location Id=\"0\"/></locationgroup>"
		"<locationgroup Id=\"1\"><rank>1</rank><location Id=\"1\"/></locationgroup>"
		"</systemtreenode></system></cube>";
	struct strbuf sb, ix, dx;
	strbuf_init(&sb);
	strbuf_init(&ix);
	strbuf_init(&dx);
	tar_add(&sb, "anchor.xml", anchor, strlen(anchor));
	make_index(&ix, 3, NULL, 0, 0);
	strbuf_addstr(&dx, "CUBEX.DATA");
	const uint64_t v[6] = { 0, 0, 1, 2, 10, 20 };
	for (int i = 0; i < 6; i++)
		put_u(&dx, v[i], 8, 0);
	tar_add(&sb, "0.index", ix.buf, ix.len);
	tar_add(&sb, "0.data", dx.buf, dx.len);
	tar_end(&sb);
	struct cubex c;
	struct perr err;
	if (!ok(cubex_open_mem(&c, "dup.cubex", sb.buf, sb.len, &err) == 0, "profile with two call sites opens")) {
		diag("%s", err.msg);
	} else {
		struct measurement_list ml;
		measurement_list_init(&ml);
		char *m[] = { "visits" };
		ok(cubex_collect(&c, m, 1, CUBEX_MEAN, 0, &ml, &err) == 0 && ml.n == 2, "two call paths collected");
		double b = -1;
		for (int i = 0; i < ml.n; i++)
			if (!strcmp(ml.m[i].region, "A->B"))
				b = ml.m[i].value;
		is_rel(b, 16.5, 0, "collector: both call sites add up per rank, then the mean");
		measurement_list_release(&ml);
		struct experiment e;
		experiment_init(&e);
		experiment_param(&e, "x");
		double x = 1;
		struct scorep_read_opts o = { .metrics = m, .nmetrics = 1, .aggr = CUBEX_MAX };
		ok(scorep_profile_add(&e, &c, &x, &o, &err) == 0 && e.ncallpaths == 2, "profile added to an experiment");
		const struct exp_values *ev = experiment_values(&e, experiment_find_callpath(&e, "A->B"), 0, 0);
		ok(ev && ev->n == 1 && ev->v[0] == 22, "experiment: one value, max over ranks of the sums");
		experiment_release(&e);
		cubex_release(&c);
	}
	strbuf_release(&sb);
	strbuf_release(&ix);
	strbuf_release(&dx);
}

static void expect_open_error(const char *what, const void *buf, size_t len, const char *want)
{
	struct cubex c;
	struct perr err = { 0 };
	int rc = cubex_open_mem(&c, "x.cubex", buf, len, &err);
	ok(rc < 0, "%s: rejected", what);
	contains(err.msg, want, "%s: clear error", what);
	if (rc == 0)
		cubex_release(&c);
}

static void test_corrupt(void)
{
	struct strbuf real;
	strbuf_init(&real);
	if (strbuf_read_file(&real, tap_src("tests/data/lulesh/lulesh.p27.size25.r1/profile.cubex")) < 0) {
		ok(0, "read the p27 profile");
		return;
	}
	expect_open_error("empty file", "", 0, "not a tar archive");
	expect_open_error("garbage", "hello world, this is not a tar file at all", 43, "not a tar archive");
	char junk[2048];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7 + 3);
	expect_open_error("random bytes", junk, sizeof(junk), "not a tar archive (bad header checksum)");
	/* truncated: anchor.xml is the last member of Score-P's archives, cut into it */
	expect_open_error("truncated tar", real.buf, real.len - 3000, "truncated tar archive");
	expect_open_error("truncated tar, header only", real.buf, 600, "truncated tar archive");

	/* a truncation that cuts a data member (the 0.data of the p27 file is first) */
	struct cubex c;
	struct perr err = { 0 };

	/* garbage XML */
	struct strbuf sb;
	build_synthetic(&sb, "<?xml version=\"1.0\"?>\n<cube><metrics><metric id=\"0\"></cube>", 0);
	expect_open_error("garbage XML", sb.buf, sb.len, "anchor.xml:2: malformed XML");
	strbuf_release(&sb);
	build_synthetic(&sb, "\x01\x02 not xml at all", 0);
	expect_open_error("binary anchor", sb.buf, sb.len, "anchor.xml:1: malformed XML");
	strbuf_release(&sb);
	build_synthetic(&sb, "<?xml version=\"1.0\"?>\n<cube><metrics/><program>"
			"<region id=\"0\"><name>a</name></region><cnode id=\"0\" calleeId=\"4\"/></program>"
			"<system/></cube>", 0);
	expect_open_error("cnode with unknown region", sb.buf, sb.len, "cnode 0 calls unknown region 4");
	strbuf_release(&sb);
	build_synthetic(&sb, "<?xml version=\"1.0\"?>\n<notcube/>", 0);
	expect_open_error("wrong root", sb.buf, sb.len, "root element is not <cube>");
	strbuf_release(&sb);

	/* a wrong header checksum is tolerated when the ustar magic is there (CubeLib 4.8's bug) */
	build_synthetic(&sb, ANCHOR, 0);
	sb.buf[160] = 'x';      /* linkname of the first member: the checksum no longer fits */
	if (ok(cubex_open_mem(&c, "cksum.cubex", sb.buf, sb.len, &err) == 0, "bad checksum with ustar magic opens"))
		cubex_release(&c);
	memset(sb.buf + 257, 0, 8); /* without the magic it is not a tar archive */
	expect_open_error("bad checksum without magic", sb.buf, sb.len, "not a tar archive (bad header checksum)");
	strbuf_release(&sb);

	/* missing anchor */
	strbuf_init(&sb);
	tar_add(&sb, "0.index", "CUBEX.INDEX", 11);
	tar_end(&sb);
	expect_open_error("missing anchor", sb.buf, sb.len, "missing anchor.xml");
	strbuf_release(&sb);

	/* bad index in the real file: patch 1.index's entry count */
	struct strbuf p;
	strbuf_init(&p);
	strbuf_add(&p, real.buf, real.len);
	char *ixp = memmem(p.buf, p.len, "CUBEX.INDEX", 11);
	ixp = ixp ? memmem(ixp + 1, p.len - (size_t)(ixp + 1 - p.buf), "CUBEX.INDEX", 11) : NULL;
	if (ok(ixp != NULL, "found the second index in the real profile")) {
		ixp[18] = 0x7f;        /* 127 entries in a 70-byte index */
		if (cubex_open_mem(&c, "patched.cubex", p.buf, p.len, &err) == 0) {
			double *v = NULL;
			ok(cubex_read_metric(&c, cubex_find_metric(&c, "time"), CUBEX_EXCL, &v, &err) < 0,
			   "bad index entry count fails");
			contains(err.msg, "1.index: bad index: 127 entries", "bad index: clear error");
			free(v);
			cubex_release(&c);
		} else {
			ok(0, "patched profile should open: %s", err.msg);
		}
	}
	strbuf_release(&p);

	/* every truncation length must fail cleanly or succeed, never crash */
	int fails = 0, oks = 0;
	for (size_t n = 0; n < real.len; n += 997) {
		if (cubex_open_mem(&c, "cut.cubex", real.buf, n, &err) == 0) {
			double *v = NULL;
			for (int m = 0; m < c.nmetrics; m++) {
				if (cubex_read_metric(&c, m, CUBEX_EXCL, &v, &err) == 0)
					free(v);
				v = NULL;
			}
			cubex_release(&c);
			oks++;
		} else {
			fails++;
		}
	}
	ok(fails > 0, "truncations fail cleanly (%d failed, %d opened)", fails, oks);
	strbuf_release(&real);
}

static void test_lulesh(void)
{
	static const int P[] = { 27, 64, 125, 216, 343 };
	static const int S[] = { 25, 30, 35, 40, 45 };
	int opened = 0, trees = 0;
	char first_tree[4096] = "";
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++) {
			char rel[256];
			snprintf(rel, sizeof(rel), "tests/data/lulesh/lulesh.p%d.size%d.r1/profile.cubex", P[i], S[j]);
			struct cubex c;
			struct perr err;
			if (cubex_open(&c, tap_src(rel), &err) < 0) {
				diag("%s", err.msg);
				continue;
			}
			opened += c.nlocations == P[i];
			char tree[4096] = "";
			for (int k = 0; k < c.ncnodes; k++) {
				strncat(tree, c.cnodes[k].callpath, sizeof(tree) - strlen(tree) - 2);
				strcat(tree, "\n");
			}
			if (!first_tree[0])
				snprintf(first_tree, sizeof(first_tree), "%s", tree);
			trees += c.ncnodes == 12 && !strcmp(tree, first_tree);
			cubex_release(&c);
		}
	is_int(opened, 25, "all 25 LULESH profiles open with p locations");
	is_int(trees, 25, "all have the same 12-node call tree");
	contains(first_tree, "lulesh2.0->int main(int, char**)->void CalcTimeConstraintsForElems(Domain&)->"
		 "void CalcHydroConstraintForElems(Domain&, Index_t, Index_t*, Real_t, Real_t&)\n",
		 "deepest call path");

	/* bit-exact against the independent decoder (expected.py: tarfile + ElementTree + numpy.mean) */
	FILE *f = fopen(tap_src("tests/data/lulesh/expected.tsv"), "r");
	if (!ok(f != NULL, "expected.tsv present"))
		return;
	char line[2048], cur[256] = "";
	struct cubex c;
	int have = 0, checked = 0, exact = 0;
	double *vals[16] = { 0 };
	struct perr err;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *file = strtok(line, "\t"), *metric = strtok(NULL, "\t"), *path = strtok(NULL, "\t"),
		     *hex = strtok(NULL, "\t");
		if (!hex)
			continue;
		if (strcmp(file, cur)) {
			if (have) {
				for (int m = 0; m < 16; m++)
					free(vals[m]), vals[m] = NULL;
				cubex_release(&c);
			}
			char rel[512];
			snprintf(rel, sizeof(rel), "tests/data/lulesh/%s/profile.cubex", file);
			have = cubex_open(&c, tap_src(rel), &err) == 0;
			snprintf(cur, sizeof(cur), "%s", file);
		}
		if (!have)
			continue;
		int m = cubex_find_metric(&c, metric), k = find_cnode(&c, path);
		if (m < 0 || m >= 16 || k < 0)
			continue;
		if (!vals[m] && cubex_read_metric(&c, m, CUBEX_EXCL, &vals[m], &err) < 0)
			continue;
		double want = strtod(hex, NULL);
		double got = cubex_aggregate(&vals[m][(size_t)k * c.nlocations], c.nlocations, CUBEX_MEAN);
		checked++;
		if (memcmp(&got, &want, sizeof(double)) == 0)
			exact++;
		else
			diag("%s %s %s: got %a, expected %a", file, metric, path, got, want);
	}
	fclose(f);
	if (have) {
		for (int m = 0; m < 16; m++)
			free(vals[m]);
		cubex_release(&c);
	}
	ok(checked >= 100, "compared %d call-path values with the reference", checked);
	is_int(exact, checked, "every value is bit-identical to numpy.mean of the independent decoding");

	/* one value by hand: p27.size25, MPI_Init, visits is 1 on every rank */
	if (cubex_open(&c, tap_src("tests/data/lulesh/lulesh.p27.size25.r1/profile.cubex"), &err) == 0) {
		struct measurement_list ml;
		measurement_list_init(&ml);
		char *mets[] = { "visits", "time" };
		ok(cubex_collect(&c, mets, 2, CUBEX_SUM, 0, &ml, &err) == 0, "collect with sum");
		int found = 0;
		for (int i = 0; i < ml.n; i++)
			if (!strcmp(ml.m[i].metric, "visits") &&
			    !strcmp(ml.m[i].region, "lulesh2.0->int main(int, char**)->MPI_Init")) {
				is_rel(ml.m[i].value, 27.0, 0, "sum of MPI_Init visits over 27 ranks");
				found = 1;
			}
		ok(found, "MPI_Init call path collected");
		measurement_list_release(&ml);
		cubex_release(&c);
	}
}

static void test_aggregate(void)
{
	double v[300];
	for (int i = 0; i < 300; i++)
		v[i] = 1.0 / (i + 1);
	is_rel(cubex_aggregate(v, 300, CUBEX_MAX), 1.0, 0, "max");
	is_rel(cubex_aggregate(v, 300, CUBEX_MIN), 1.0 / 300, 0, "min");
	double naive = 0;
	for (int i = 0; i < 300; i++)
		naive += v[i];
	is_rel(cubex_aggregate(v, 300, CUBEX_SUM), naive, 1e-14, "pairwise sum equals the naive sum closely");
	is_rel(cubex_aggregate(v, 300, CUBEX_MEAN), naive / 300, 1e-14, "mean");
	is_int(cubex_aggr_parse("max"), CUBEX_MAX, "parse max");
	is_int(cubex_aggr_parse("median"), -1, "unknown aggregation");
	is_str(cubex_aggr_name(CUBEX_MEAN), "mean", "name of mean");
}

int main(void)
{
	test_synthetic();
	test_duplicate_callpaths();
	test_corrupt();
	test_lulesh();
	test_aggregate();
	return done_testing();
}
