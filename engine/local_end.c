/* Reading a local run's end note (local_end.h). */
#include "engine/local_end.h"
#include "common/xalloc.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double num_or(json_t *o, const char *key, double dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

int local_end_read(const char *run_dir, struct local_end *le, struct perr *err)
{
	memset(le, 0, sizeof(*le));
	char *path = xasprintf("%s/" LOCAL_END_FILE, run_dir);
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		free(path);
		return 1;
	}
	json_error_t jerr;
	json_t *o = json_load_file(path, 0, &jerr);
	int rc = 0;
	if (!o)
		rc = perr_set(err, "%s:%d: %s", path, jerr.line, jerr.text);
	else if (!json_is_object(o) || !json_is_number(json_object_get(o, "wall")))
		rc = perr_set(err, "%s: not a local run's end note (no \"wall\")", path);
	if (!rc) {
		le->attempt = (int)num_or(o, "attempt", 0);
		le->exit_status = (int)num_or(o, "exit", -1);
		le->signal = (int)num_or(o, "signal", 0);
		le->timed_out = json_is_true(json_object_get(o, "timed_out"));
		le->timeout = num_or(o, "timeout", 0);
		const char *e = json_string_value(json_object_get(o, "error"));
		le->error = e ? xstrdup(e) : NULL;
		le->ranks = (int)num_or(o, "ranks", 0);
		le->started = num_or(o, "started", NAN);
		le->ended = num_or(o, "ended", NAN);
		le->wall = num_or(o, "wall", NAN);
		le->utime = num_or(o, "utime", NAN);
		le->stime = num_or(o, "stime", NAN);
		le->maxrss_kb = (long long)num_or(o, "maxrss_kb", -1);
		le->nvcsw = (long long)num_or(o, "nvcsw", -1);
		le->nivcsw = (long long)num_or(o, "nivcsw", -1);
	}
	json_decref(o);
	free(path);
	return rc;
}

void local_end_release(struct local_end *le)
{
	free(le->error);
	memset(le, 0, sizeof(*le));
}
