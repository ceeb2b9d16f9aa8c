/* common/ and the experiment container. */
#include "collectors/experiment.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "designs/plan.h"
#include "tests/lib/tap.h"

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

static void test_strbuf(void)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; i < 100; i++)
		strbuf_addf(&sb, "%d,", i);
	is_int((long long)sb.len, 290, "strbuf length after 100 appends");
	ok(!strncmp(sb.buf, "0,1,2,", 6) && !strcmp(sb.buf + sb.len - 3, "99,"), "strbuf content");
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

int main(void)
{
	test_strmap();
	test_strbuf();
	test_experiment();
	test_full_factorial();
	return done_testing();
}
