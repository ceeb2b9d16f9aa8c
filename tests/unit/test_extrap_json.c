/* Tests of Extra-P's JSON and JSON Lines formats: reading, writing, lossless round trips. */
#include "tests/lib/exp_compare.h"
#include "collectors/extrap_json.h"
#include "collectors/scorep_dir.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"
#include <float.h>

static char *slurp(FILE *f, size_t *len)
{
	fflush(f);
	long n = ftell(f);
	rewind(f);
	char *b = xmalloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	b[*len] = '\0';
	return b;
}

typedef int (*writer)(FILE *, const struct experiment *, struct perr *);
typedef int (*reader)(struct experiment *, const char *, const char *, size_t, struct perr *);

/* write e, read it back, compare */
static void round_trip(const char *what, const struct experiment *e, writer w, reader r)
{
	struct perr err = { 0 };
	FILE *f = tmpfile();
	int wrc = w(f, e, &err);
	ok(wrc == 0, "%s: written", what);
	if (wrc) {
		diag("%s", err.msg);
		fclose(f);
		return;
	}
	size_t len;
	char *buf = slurp(f, &len);
	fclose(f);
	struct experiment back;
	experiment_init(&back);
	int rrc = r(&back, what, buf, len, &err);
	ok(rrc == 0, "%s: read back", what);
	if (rrc)
		diag("%s", err.msg);
	char why[512] = "";
	int diff = experiment_compare(e, &back, why, sizeof(why));
	ok(!diff, "%s: round trip is lossless", what);
	if (diff)
		diag("%s", why);
	/* and a second generation writes the same bytes */
	f = tmpfile();
	w(f, &back, &err);
	size_t len2;
	char *buf2 = slurp(f, &len2);
	fclose(f);
	ok(len == len2 && !memcmp(buf, buf2, len), "%s: rewriting gives identical bytes", what);
	free(buf);
	free(buf2);
	experiment_release(&back);
}

static void build_tricky(struct experiment *e)
{
	experiment_init(e);
	experiment_param(e, "p");
	experiment_param(e, "size");
	const double pts[][2] = { { 27, 25 }, { 64, 30.5 }, { 1e-300, -2 } };
	const char *cps[] = { "main", "main->foo \"quoted\"", "main->void CommSend(Domain&, Real_t& (Domain::**)(Index_t))",
			      "main->naïve ünïcode" };
	const double vals[] = { 0.1, 1.0 / 3, DBL_MIN / 4 /* subnormal */, -0.0, 1e308, 123456789.123456789,
				DBL_EPSILON, 2.5 };
	int k = 0;
	for (int p = 0; p < 3; p++) {
		int pi = experiment_point(e, pts[p]);
		for (int c = 0; c < 4; c++) {
			int ci = experiment_callpath(e, cps[c]);
			int time = experiment_metric(e, "time"), visits = experiment_metric(e, "visits");
			for (int r = 0; r <= p; r++)
				experiment_add(e, ci, time, pi, vals[k++ % 8]);
			if (c != 2 || p != 1)   /* a gap: one point without visits */
				experiment_add(e, ci, visits, pi, 1000 + c);
		}
	}
}

static void test_round_trips(void)
{
	struct experiment e;
	build_tricky(&e);
	round_trip("json", &e, extrap_json_write, extrap_json_read_mem);
	round_trip("jsonl", &e, extrap_jsonl_write, extrap_jsonl_read_mem);
	experiment_release(&e);

	/* the 25 LULESH profiles, every metric with data */
	struct scorep_read_opts o = { .aggr = CUBEX_MEAN };
	struct perr err;
	experiment_init(&e);
	if (scorep_dir_read(&e, tap_src("tests/data/lulesh"), &o, &err) == 0) {
		ok(e.npoints == 25 && e.ncallpaths == 12, "LULESH: 25 points, 12 call paths");
		round_trip("lulesh json", &e, extrap_json_write, extrap_json_read_mem);
		round_trip("lulesh jsonl", &e, extrap_jsonl_write, extrap_jsonl_read_mem);
	} else {
		ok(0, "read LULESH: %s", err.msg);
	}
	experiment_release(&e);
}

static int read_str(struct experiment *e, reader r, const char *text, struct perr *err)
{
	experiment_init(e);
	return r(e, "t.json", text, strlen(text), err);
}

static double value(const struct experiment *e, const char *cp, const char *metric, const double *pt, int i)
{
	int c = experiment_find_callpath(e, cp), m = experiment_find_metric(e, metric),
	    p = experiment_find_point(e, pt);
	if (c < 0 || m < 0 || p < 0)
		return NAN;
	const struct exp_values *v = experiment_values(e, c, m, p);
	return v && i < v->n ? v->v[i] : NAN;
}

static void test_reading(void)
{
	struct experiment e;
	struct perr err = { 0 };
	/* the documented current form */
	const char *doc =
		"{\"parameters\": [\"x\", \"y\"],\n"
		" \"measurements\": {\"main\": {\"time\": [{\"point\": [1, 2], \"values\": [3, 4.5]},\n"
		"                                       {\"point\": [2, 2], \"values\": [5]}]},\n"
		"                  \"main->f\": {\"time\": [{\"point\": [1, 2], \"values\": [0.25]}],\n"
		"                              \"visits\": [{\"point\": [1, 2], \"values\": [7]}]}}}\n";
	ok(read_str(&e, extrap_json_read_mem, doc, &err) == 0, "current JSON form reads");
	is_int(e.nparams, 2, "two parameters");
	is_int(e.npoints, 2, "two points");
	is_int(e.ncallpaths, 2, "two call paths");
	double pt[2] = { 1, 2 };
	is_rel(value(&e, "main", "time", pt, 1), 4.5, 0, "second repetition at (1,2)");
	is_rel(value(&e, "main->f", "visits", pt, 0), 7, 0, "integer values read as numbers");
	experiment_release(&e);

	/* the legacy id-based form, ids out of order */
	const char *legacy =
		"{\"callpaths\": [{\"id\": 2, \"name\": \"b\"}, {\"id\": 1, \"name\": \"a\"}],\n"
		" \"coordinates\": [{\"id\": 1, \"parameter_value_pairs\": [{\"parameter_id\": 2, \"parameter_value\": 10},"
		" {\"parameter_id\": 1, \"parameter_value\": 4}]}],\n"
		" \"measurements\": [{\"callpath_id\": 2, \"coordinate_id\": 1, \"id\": 1, \"metric_id\": 1, \"value\": 1.5},\n"
		"                    {\"callpath_id\": 2, \"coordinate_id\": 1, \"id\": 2, \"metric_id\": 1, \"value\": 2.5}],\n"
		" \"metrics\": [{\"id\": 1, \"name\": \"time\"}],\n"
		" \"parameters\": [{\"id\": 1, \"name\": \"p\"}, {\"id\": 2, \"name\": \"n\"}]}\n";
	ok(read_str(&e, extrap_json_read_mem, legacy, &err) == 0, "legacy JSON form reads: %s", err.msg);
	ok(e.nparams == 2 && !strcmp(e.params[0], "p") && !strcmp(e.params[1], "n"), "parameters ordered by id");
	double lp[2] = { 4, 10 };
	is_rel(value(&e, "b", "time", lp, 1), 2.5, 0, "values grouped as repetitions, coordinates by parameter id");
	experiment_release(&e);

	/* JSON lines with defaults, lists, blank lines */
	const char *jl =
		"{\"params\": {\"x\": 1, \"y\": 2}, \"value\": 1.0}\n"
		"\n"
		"{\"params\": {\"y\": 2, \"x\": 1}, \"value\": [2.0, 3.0]}\n"
		"{\"params\": {\"x\": 4, \"y\": 2}, \"callpath\": \"main\", \"metric\": \"time\", \"value\": 9}\n";
	ok(read_str(&e, extrap_jsonl_read_mem, jl, &err) == 0, "JSON lines read");
	is_rel(value(&e, "<root>", "<default>", pt, 2), 3.0, 0, "defaults <root>/<default>, parameter order from line 1");
	double p4[2] = { 4, 2 };
	is_rel(value(&e, "main", "time", p4, 0), 9, 0, "callpath and metric given");
	experiment_release(&e);
	ok(read_str(&e, extrap_json_read_mem, jl, &err) == 0 && e.npoints == 2,
	   "a JSON reader given JSON lines falls back to them (as Extra-P)");
	experiment_release(&e);

	/* errors */
	static const struct { reader r; const char *text, *want; } bad[] = {
		{ extrap_json_read_mem, "{\"parameters\": [\"x\"], \"measurements\": {\"m\": {\"t\": [{\"point\": [1, 2], \"values\": [1]}]}}}",
		  "t.json: measurements.\"m\".\"t\"[0].point: expected 1 coordinates" },
		{ extrap_json_read_mem, "{\"parameters\": [\"x\"], \"measurements\": {\"m\": {\"t\": [{\"point\": [1], \"values\": [\"a\"]}]}}}",
		  "t.json: measurements.\"m\".\"t\"[0].values[0]: expected a number" },
		{ extrap_json_read_mem, "{\"parameters\": [\"x\"],\n \"measurements\": {\"m\": ", "t.json:2:" },
		{ extrap_json_read_mem, "[1, 2]", "t.json: expected a JSON object" },
		{ extrap_json_read_mem, "{\"parameters\": [], \"measurements\": {}}", "parameters: expected a non-empty array" },
		{ extrap_jsonl_read_mem, "{\"params\": {\"x\": 1}, \"value\": 1}\n{\"params\": {\"x\": 1}, \"value\": }\n",
		  "t.json:2: " },
		{ extrap_jsonl_read_mem, "{\"params\": {\"x\": 1}, \"value\": 1}\n{\"params\": {\"z\": 1}, \"value\": 1}\n",
		  "t.json:2: unknown parameter 'z'" },
		{ extrap_jsonl_read_mem, "{\"params\": {\"x\": 1}}\n", "t.json:1: missing \"value\"" },
		{ extrap_jsonl_read_mem, "\n\n", "t.json: no measurements" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		ok(read_str(&e, bad[i].r, bad[i].text, &err) < 0, "bad input %zu rejected", i);
		contains(err.msg, bad[i].want, "bad input %zu: clear error", i);
		experiment_release(&e);
	}

	/* writing a NaN is an error, not invalid JSON */
	experiment_init(&e);
	experiment_param(&e, "x");
	double x = 1;
	int p = experiment_point(&e, &x);
	experiment_add(&e, experiment_callpath(&e, "main"), experiment_metric(&e, "time"), p, NAN);
	FILE *f = tmpfile();
	ok(extrap_json_write(f, &e, &err) < 0, "NaN cannot be written as JSON");
	contains(err.msg, "non-finite value", "and says why");
	ok(extrap_jsonl_write(f, &e, &err) < 0, "nor as JSON lines");
	fclose(f);
	experiment_release(&e);

	/* reading a file that does not exist */
	experiment_init(&e);
	ok(extrap_json_read(&e, "/nonexistent/x.json", &err) < 0, "missing file");
	contains(err.msg, "cannot read '/nonexistent/x.json'", "names the file");
	experiment_release(&e);
}

int main(void)
{
	test_round_trips();
	test_reading();
	return done_testing();
}
