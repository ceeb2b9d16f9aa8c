/* backend.extra parsed and checked, without libslurm (slurm_extra.h). */
#include "orchestrator/slurm/slurm_extra.h"
#include "common/xalloc.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse_mem_mb(const char *s, uint64_t *mb)
{
	char *end;
	if (*s < '0' || *s > '9')   /* strtoull would take "-4" as a huge number */
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || v > (1ULL << 40))
		return -1;
	double f = 1;
	switch (*end) {
	case 'K': case 'k': f = 1.0 / 1024; end++; break;
	case 'M': case 'm': case '\0': f = 1; if (*end) end++; break;
	case 'G': case 'g': f = 1024; end++; break;
	case 'T': case 't': f = 1024 * 1024; end++; break;
	default: return -1;
	}
	if (*end)
		return -1;
	*mb = (uint64_t)ceil((double)v * f);
	return 0;
}

int slurm_extra_parse(struct slurm_extra *xo, int n, char *const *extra, struct perr *err)
{
	memset(xo, 0, sizeof(*xo));
	xo->requeue = -1;
	for (int i = 0; i < n; i++) {
		const char *opt = extra[i];
		if (strncmp(opt, "--", 2))
			return perr_set(err, "unsupported slurm extra option '%s': write long options "
					"as --name=value (%s)", opt, SLURM_EXTRA_SUPPORTED);
		const char *eq = strchr(opt, '=');
		size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
		const char *v = eq ? eq + 1 : NULL;
#define KEY(k) (klen == strlen(k) && !strncmp(opt, k, klen))
		if (KEY("--requeue") || KEY("--no-requeue")) {
			if (v)
				return perr_set(err, "slurm extra option '%s' takes no value", opt);
			xo->requeue = KEY("--requeue");
			continue;
		}
		if (!v || !*v)
			return perr_set(err, "slurm extra option '%s' needs a value (--name=value)", opt);
		char **slot = NULL;
		if (KEY("--constraint"))
			slot = &xo->features;
		else if (KEY("--reservation"))
			slot = &xo->reservation;
		else if (KEY("--exclude"))
			slot = &xo->exc_nodes;
		else if (KEY("--nodelist"))
			slot = &xo->req_nodes;
		else if (KEY("--licenses"))
			slot = &xo->licenses;
		else if (KEY("--wckey"))
			slot = &xo->wckey;
		if (slot) {
			free(*slot);
			*slot = xstrdup(v);
		} else if (KEY("--gres")) {
			free(xo->gres);
			xo->gres = xstrdup(v);
		} else if (KEY("--mem") || KEY("--mem-per-cpu")) {
			if (parse_mem_mb(v, &xo->mem_mb))
				return perr_set(err, "bad memory size in slurm extra option '%s' "
						"(a number with K, M, G or T)", opt);
			xo->mem_per_cpu = KEY("--mem-per-cpu");
		} else if (KEY("--cpus-per-task") || KEY("--nice")) {
			char *end;
			errno = 0;
			long l = strtol(v, &end, 10);
			int is_cpt = KEY("--cpus-per-task");
			if (errno || *end || (is_cpt && (l < 1 || l > 65533)) ||
			    (!is_cpt && (l < -2147483645L || l > 2147483645L)))
				return perr_set(err, "bad number in slurm extra option '%s'", opt);
			if (is_cpt) {
				xo->cpus_per_task = (int)l;
			} else {
				xo->nice_set = 1;
				xo->nice = (int)l;
			}
		} else {
			return perr_set(err, "unsupported slurm extra option '%s' (supported: %s)", opt,
					SLURM_EXTRA_SUPPORTED);
		}
#undef KEY
	}
	return 0;
}

void slurm_extra_release(struct slurm_extra *xo)
{
	free(xo->features);
	free(xo->reservation);
	free(xo->exc_nodes);
	free(xo->req_nodes);
	free(xo->gres);
	free(xo->licenses);
	free(xo->wckey);
}

int slurm_extra_check(int n, char *const *extra, struct perr *err)
{
	struct slurm_extra xo;
	int rc = slurm_extra_parse(&xo, n, extra, err);
	slurm_extra_release(&xo);
	return rc;
}
