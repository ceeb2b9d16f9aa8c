/* Derived parameters in plans (orchestrator/plan_derived.h): their values at
   every point, the cost model over them, and new points' values (refine). */
#include "campaign/config.h"
#include "designs/expr.h"
#include "orchestrator/plan_build.h"
#include "orchestrator/plan_derived.h"
#include "tests/lib/tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int load(struct campaign_config *c, const char *text)
{
	struct perr err = { 0 };
	int rc = config_load_text(c, text, "d.cfg", tap_tmpdir(), &err);
	if (rc)
		diag("%s", err.msg);
	return rc;
}

#define CFG "name = \"d\";\napp = { command = [ \"/bin/true\", \"{atoms}\" ]; };\n" \
	"parameters = ( { name = \"x\"; values = ( 1, 1.5 ); }, { name = \"atoms\"; value = \"4000 * x^3\"; },\n" \
	"  { name = \"atoms2\"; value = \"atoms * 2e3 + log2(atoms)\"; }, { name = \"s\"; values = [ 10 ]; } );\n"

/* The cost model names derived parameters: their expressions take their place. */
static void test_inline(void)
{
	struct campaign_config c;
	if (!ok(load(&c, CFG) == 0, "a config with derived parameters loads"))
		return;
	is_int(c.nparams, 2, "two swept parameters (x, s)");
	is_int(c.nderived, 2, "two derived ones");
	char *t = plan_inline_derived(&c, "2e-3 * atoms2 / atoms + s");
	char *names[] = { "x", "s" };
	struct perr err;
	struct expr *e = expr_parse(t, 2, names, &err);
	ok(e != NULL, "inlined over the swept parameters only: %s", t);
	double v[] = { 1.5, 10 }, atoms = 4000 * 1.5 * 1.5 * 1.5;
	if (e)
		is_rel(expr_eval(e, v), 2e-3 * (atoms * 2e3 + log2(atoms)) / atoms + 10, 1e-12,
		       "and worth the same: numbers with exponents and functions are left alone");
	contains(t, "log2((4000 * x^3))", "a derived name inside a derived expression is inlined too");
	expr_free(e);
	free(t);
	config_release(&c);
}

/* The plan: derived values at every point, after the swept parameters. */
static void test_plan(void)
{
	struct campaign_config c;
	struct plan pl;
	struct perr err = { 0 };
	if (load(&c, CFG "cost_model = \"atoms / 1000\";\n"))
		return;
	ok(plan_build(&pl, &c, &err) == 0, "it plans");
	is_int(pl.nparams, 4, "x, s, atoms, atoms2");
	is_str(pl.params[2].name, "atoms", "derived parameters after the swept ones");
	is_int(pl.npoints, 2, "the design sweeps x and s: 2 points");
	int i15 = pl.points[0].values[0] == 1.5 ? 0 : 1;
	is_rel(pl.points[i15].values[2], 13500, 1e-12, "atoms at x = 1.5");
	ok(pl.params[2].is_int, "atoms is an integer at every point");
	ok(!pl.params[3].is_int, "atoms2 is not");
	is_int(pl.params[2].nvalues, 2, "atoms has its 2 values");
	is_rel(pl.points[i15].core_hours, 13.5 * 5 / 3600, 1e-12, "the cost model priced the point by its atoms");
	plan_release(&pl);
	/* a new point along x (refine): atoms computed again; along atoms: nothing to do */
	char *names[] = { "x", "s", "atoms", "atoms2" };
	double v[] = { 2, 10, 13500, 0 };
	ok(plan_derive_values(&c, names, 4, v), "a new x changes the derived values");
	is_rel(v[2], 32000, 1e-12, "atoms = 4000 * 2^3");
	is_rel(v[3], 32000 * 2e3 + log2(32000), 1e-12, "and atoms2 from it");
	ok(!plan_derive_values(&c, names, 4, v), "computed once, they stay");
	config_release(&c);
}

int main(void)
{
	test_inline();
	test_plan();
	return done_testing();
}
