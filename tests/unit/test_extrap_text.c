/* Tests of the Extra-P text format reader and writer. */
#include "collectors/extrap_text.h"
#include "tests/lib/tap.h"

static int parse(struct experiment *e, const char *text, struct perr *err)
{
	experiment_init(e);
	return extrap_text_parse(e, text, strlen(text), "in.txt", err);
}

/* The error message of a bad input, or "(accepted)". */
static const char *bad(const char *text)
{
	static struct perr err;
	struct experiment e;
	int ret = parse(&e, text, &err);
	experiment_release(&e);
	return ret < 0 ? err.msg : "(accepted)";
}

static void test_read_files(void)
{
	struct experiment e;
	struct perr err;
	experiment_init(&e);
	ok(extrap_text_read(&e, tap_src("tests/data/extrap-text/one_parameter_1.txt"), &err) == 0,
	   "read one_parameter_1");
	is_int(e.nparams, 1, "one parameter");
	is_str(e.params[0], "x", "parameter name");
	is_int(e.npoints, 5, "five points");
	is_rel(experiment_coord(&e, 4, 0), 60, 0, "last point");
	is_int(e.ncallpaths, 1, "one region");
	is_str(e.callpaths[0], "compute", "region name");
	is_str(e.metrics[0], "time", "metric name");
	const struct exp_values *v = experiment_values(&e, 0, 0, 0);
	is_int(v ? v->n : 0, 6, "six repetitions");
	is_rel(v ? v->v[0] : 0, 82.00848518948744, 0, "first value exact");
	experiment_release(&e);

	experiment_init(&e);
	ok(extrap_text_read(&e, tap_src("tests/data/extrap-text/two_parameter_5.txt"), &err) == 0,
	   "read two_parameter_5 (tuples on one line, tabs, no METRIC)");
	is_int(e.nparams, 2, "two parameters");
	is_int(e.npoints, 25, "25 points");
	is_rel(experiment_coord(&e, 5, 1), 20, 0, "point 6 is (2 20)");
	is_str(e.metrics[0], EXTRAP_TEXT_DEFAULT_METRIC, "default metric name");
	experiment_release(&e);

	experiment_init(&e);
	ok(extrap_text_read(&e, tap_src("tests/data/extrap-text/one_parameter_6.txt"), &err) == 0,
	   "read one_parameter_6 (unparenthesised-style points '(1000) (2000)')");
	is_int(e.ncallpaths, 4, "four regions");
	v = experiment_values(&e, 3, 0, 0);
	is_int(v ? v->n : 0, 3, "met4 has three repetitions");
	experiment_release(&e);

	const char *files[] = { "input", "one_parameter_2", "one_parameter_3", "three_parameter_1",
				"two_parameter_1", "two_parameter_2", "one_parameter_segmented_1" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[128];
		snprintf(path, sizeof(path), "tests/data/extrap-text/%s.txt", files[i]);
		experiment_init(&e);
		int ret = extrap_text_read(&e, tap_src(path), &err);
		if (!ok(ret == 0, "read %s", files[i]))
			diag("%s", err.msg);
		experiment_release(&e);
	}

	experiment_init(&e);
	ok(extrap_text_read(&e, "/nonexistent/x.txt", &err) == -1, "missing file fails");
	is_str(err.msg, "cannot read '/nonexistent/x.txt': No such file or directory", "missing file message");
	experiment_release(&e);
}

static void test_bad_inputs(void)
{
	is_str(bad("PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nDATA 3\n"),
	       "in.txt:6: more DATA lines than points (2) for region 'r' metric 'time'", "more DATA lines than points");
	is_str(bad("PARAMETER x\nPOINTS 1 2 3\nREGION r\nDATA 1\nDATA 2\nREGION s\nDATA 1\nDATA 2\nDATA 3\n"),
	       "in.txt:5: fewer DATA lines (2) than points (3) for region 'r' metric 'time'", "fewer DATA lines than points");
	is_str(bad("PARAMETER x\nPOINTS 1 2 3\nREGION r\nDATA 1\nDATA 2\n"),
	       "in.txt:5: fewer DATA lines (2) than points (3) for region 'r' metric 'time'",
	       "fewer DATA lines at the end of the file");
	is_str(bad("PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1 2\nDATA 3 fast\n"),
	       "in.txt:5: 'fast' is not a number", "non-numeric value");
	is_str(bad("PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1 2\nDATA 3 4,5\n"),
	       "in.txt:5: '4,5' is not a number", "decimal comma is not a number");
	is_str(bad("PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1 nan\nDATA 3\n"),
	       "in.txt:4: 'nan' is not a finite number", "NaN value");
	is_str(bad("POINTS ( 1 ) ( 2 )\nREGION r\nDATA 1\nDATA 2\n"),
	       "in.txt:1: POINTS before any PARAMETER line", "no PARAMETER line (POINTS first)");
	is_str(bad("REGION r\nDATA 1\n"),
	       "in.txt:2: DATA before any PARAMETER line", "no PARAMETER line (DATA first)");
	is_str(bad("# only a comment\n\nREGION r\n"), "in.txt: no PARAMETER line", "no PARAMETER line at all");
	is_str(bad("PARAMETER p s\nPOINTS ( 1 2 ) ( 3 )\nREGION r\nDATA 1\nDATA 2\n"),
	       "in.txt:2: point 2 has 1 values, expected 2 (one per parameter)", "POINTS tuple of the wrong width");
	is_str(bad("PARAMETER p s\nPOINTS ( 1 2 3 )\n"),
	       "in.txt:2: point 1 has 3 values, expected 2 (one per parameter)", "POINTS tuple too wide");
	is_str(bad("PARAMETER p s\nPOINTS 1 2\n"),
	       "in.txt:2: POINTS needs parenthesised tuples for 2 parameters", "bare POINTS with two parameters");
	is_str(bad("PARAMETER p\nPOINTS ( 1 \nREGION r\n"), "in.txt:2: missing ')' in POINTS", "unclosed tuple");
	is_str(bad("PARAMETER p\nPOINTS 1 1\n"), "in.txt:2: duplicate point", "duplicate point");
	is_str(bad("PARAMETER p p\n"), "in.txt:1: duplicate parameter 'p'", "duplicate parameter");
	is_str(bad("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nREGION r\nDATA 1\nDATA 2\n"),
	       "in.txt:7: second DATA block for region 'r' metric 'time'", "repeated region/metric block");
	is_str(bad("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA\n"), "in.txt:4: DATA line has no values", "empty DATA");
	is_str(bad("PARAMETER p\nPOINTS 1 2\nREGION r\nDAT 1\n"), "in.txt:4: unknown field 'DAT'", "unknown field");
	is_str(bad("PARAMETER p\nPOINTS 1 2\nDATA 1\n"), "in.txt:3: DATA before any REGION line", "DATA without REGION");
	is_str(bad(""), "in.txt: no PARAMETER line", "empty file");
	is_str(bad("PARAMETER p\nPOINTS 1 2\n"), "in.txt: no DATA lines", "no DATA");
	is_str(bad("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nPOINTS 3\n"),
	       "in.txt:6: POINTS after DATA", "POINTS after DATA");
	is_str(bad("PARAMETER p\nPOINTS 1 2\nREGION\n"), "in.txt:3: REGION line has no name", "REGION without name");
	struct experiment e;
	struct perr err;
	experiment_init(&e);
	ok(extrap_text_parse(&e, "PARAMETER p\0", 12, "nul.txt", &err) == -1, "NUL byte rejected");
	is_str(err.msg, "nul.txt: not a text file (contains NUL bytes)", "NUL message");
	experiment_release(&e);
}

static void test_multi_metric(void)
{
	struct experiment e;
	struct perr err;
	int ret = parse(&e, "PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 7\nDATA 8 # trailing\n", &err);
	ok(ret == -1, "comments only at the start of a line");
	is_str(err.msg, "in.txt:5: '#' is not a number", "trailing comment message");
	experiment_release(&e);
	ret = parse(&e, "PARAMETER p\r\nPOINTS 1 2\r\nMETRIC a\r\nREGION r\r\nDATA 1 2\r\nDATA 3\r\n"
			"METRIC b\r\nDATA 5\r\nDATA 6\r\nREGION  s   t \r\n  DATA 7\nDATA 8\n", &err);
	if (!ok(ret == 0, "CRLF, METRIC before REGION, metric switch inside a region"))
		diag("%s", err.msg);
	is_int(e.nmetrics, 2, "two metrics");
	is_int(e.ncallpaths, 2, "two regions");
	is_str(e.callpaths[1], "s t", "region name whitespace collapsed");
	const struct exp_values *v = experiment_values(&e, experiment_find_callpath(&e, "s t"),
						       experiment_find_metric(&e, "b"), 1);
	is_rel(v ? v->v[0] : 0, 8, 0, "metric carries over to the next region");
	experiment_release(&e);
}

static void test_write_roundtrip(void)
{
	struct experiment e, back;
	struct perr err;
	experiment_init(&e);
	extrap_text_read(&e, tap_src("tests/data/extrap-text/two_parameter_1.txt"), &err);
	experiment_metric(&e, "other");
	char path[512];
	snprintf(path, sizeof(path), "%s/rt.txt", tap_tmpdir());
	FILE *f = fopen(path, "w");
	ok(extrap_text_write(f, &e, -1, &err) == 0, "write all metrics");
	fclose(f);
	experiment_init(&back);
	int ret = extrap_text_read(&back, path, &err);
	if (!ok(ret == 0, "read back"))
		diag("%s", err.msg);
	int same = back.npoints == e.npoints && back.nparams == e.nparams && back.ncallpaths == e.ncallpaths;
	for (int p = 0; same && p < e.npoints; p++) {
		for (int k = 0; k < e.nparams; k++)
			same &= experiment_coord(&e, p, k) == experiment_coord(&back, p, k);
		const struct exp_values *a = experiment_values(&e, 0, 0, p), *b = experiment_values(&back, 0, 0, p);
		same &= a && b && a->n == b->n && !memcmp(a->v, b->v, sizeof(double) * (size_t)a->n);
	}
	ok(same, "values and coordinates read back bit-identical");
	experiment_release(&back);

	/* a series with a gap cannot be written */
	int cp = experiment_callpath(&e, "gappy");
	experiment_add(&e, cp, 0, 0, 1.0);
	f = fopen(path, "w");
	ok(extrap_text_write(f, &e, 0, &err) == -1, "series with a missing point is refused");
	fclose(f);
	is_str(err.msg, "region 'gappy' metric 'metr' has no values at point 2; the text format needs every point",
	       "gap message");
	experiment_release(&e);
}

int main(void)
{
	test_read_files();
	test_bad_inputs();
	test_multi_metric();
	test_write_roundtrip();
	return done_testing();
}
