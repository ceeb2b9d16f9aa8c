/* The lead's local backend starting ranks through perfsweep-bind: each rank
   of a 2-rank run is bound to its own core, and rank-<r>.json records the
   binding the process really had.  Needs bin/perfsweep-bind and 2 cores. */
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/local/backend_local.h"
#include "placement/topology.h"
#include "tests/lib/tap.h"
#include <jansson.h>
#include <sys/stat.h>

static char *json_str(const char *path, const char *key)
{
	json_t *o = json_load_file(path, 0, NULL);
	const char *s = o ? json_string_value(json_object_get(o, key)) : NULL;
	char *r = s ? xstrdup(s) : NULL;
	json_decref(o);
	return r;
}

/* The Cpus_allowed_list line a rank printed. */
static char *allowed_in(const char *path)
{
	struct strbuf sb;
	strbuf_init(&sb);
	char *r = NULL;
	if (strbuf_read_file(&sb, path) == 0) {
		char *p = strstr(sb.buf, "Cpus_allowed_list:");
		if (p) {
			p += strlen("Cpus_allowed_list:");
			while (*p == ' ' || *p == '\t')
				p++;
			r = xstrndup(p, strcspn(p, "\n"));
		}
	}
	strbuf_release(&sb);
	return r;
}

int main(void)
{
	struct topology t;
	struct perr err;
	const char *bindir = getenv("PERFSWEEP_BIN");
	char *bind = bindir ? xasprintf("%s/perfsweep-bind", bindir) : xstrdup(tap_src("bin/perfsweep-bind"));
	if (access(bind, X_OK) < 0 || topology_load(&t, NULL, NULL, &err) < 0) {
		printf("1..0 # SKIP needs bin/perfsweep-bind\n");
		free(bind);
		return 0;
	}
	int cores = t.nunits;
	topology_release(&t);
	if (cores < 2) {
		printf("1..0 # SKIP needs 2 cores, found %d\n", cores);
		free(bind);
		return 0;
	}
	const char *policies[] = { "compact", "spread" };
	for (int k = 0; k < 2; k++) {
		struct backend *b;
		if (!ok(backend_local_new(&b, 1, &err) == 0, "local backend"))
			return done_testing();
		char *dir = xasprintf("%s/run-%s", tap_tmpdir(), policies[k]);
		mkdir(dir, 0755);
		char *argv[] = { "grep", "Cpus_allowed_list", "/proc/self/status", NULL };
		struct run_spec rs = { .id = k + 1, .campaign = "t", .campaign_dir = tap_tmpdir(),
				       .argv = argv, .run_dir = dir, .ranks = 2, .ranks_per_node = 2,
				       .policy = policies[k], .bind_path = bind };
		char *id = NULL;
		if (!ok(b->ops->start(b, &rs, &id, &err) == 0, "%s: start a 2-rank run", policies[k])) {
			diag("%s", err.msg);
			return done_testing();
		}
		struct run_result res;
		int got = 0;
		for (int i = 0; i < 600 && !got; i++)
			got = b->ops->wait(b, 0.1, &res, 1, &err);
		ok(got == 1 && res.exit_status == 0, "%s: the run finishes with status 0 (got %d)",
		   policies[k], got ? res.exit_status : -1);
		if (got == 1 && res.exit_status != 0)
			diag("%s", res.reason);
		char *set[2] = { NULL, NULL };
		for (int r = 0; r < 2; r++) {
			char *js = xasprintf("%s/rank-%d.json", dir, r);
			char *out = r ? xasprintf("%s/rank-%d.stdout", dir, r) : xasprintf("%s/stdout", dir);
			set[r] = json_str(js, "cpuset");
			char *seen = allowed_in(out);
			is_str(set[r], seen, "%s: rank %d's recorded cpuset is the one it ran with",
			       policies[k], r);
			char *pol = json_str(js, "policy");
			is_str(pol, policies[k], "%s: rank %d's policy recorded", policies[k], r);
			free(pol);
			free(seen);
			free(js);
			free(out);
		}
		ok(set[0] && set[1] && strcmp(set[0], set[1]), "%s: the ranks run on different PUs",
		   policies[k]);
		free(set[0]);
		free(set[1]);
		free(id);
		free(dir);
		b->ops->free(b);
	}
	free(bind);
	return done_testing();
}
