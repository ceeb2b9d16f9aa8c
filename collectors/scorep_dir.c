/* Score-P experiment directories: name parsing and folder import into an experiment. */
#include "collectors/scorep_dir.h"
#include "collectors/cubex_collect.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void scorep_name_release(struct scorep_name *n)
{
	free(n->prefix);
	for (int i = 0; i < n->nparams; i++)
		free(n->params[i]);
	free(n->params);
	free(n->values);
	memset(n, 0, sizeof(*n));
}

/*
 * Parse "<name><value>[sep<name><value>...]" from s[0..len).  Returns 0 and
 * fills n, or -1 with a reason (when err is given).
 */
static int parse_pairs(struct scorep_name *n, const char *full, const char *s, size_t len,
		       struct perr *err)
{
	size_t i = 0, alloc = 0;
	while (i < len) {
		if (s[i] == '.' || s[i] == ',') {
			if (i == 0 || i + 1 == len)
				return perr_set(err, "'%s': stray '%c' in the parameters", full, s[i]);
			i++;
		}
		size_t a = i;
		while (i < len && !isdigit((unsigned char)s[i]) && s[i] != '.' && s[i] != ',')
			i++;
		if (i == a)
			return perr_set(err, "'%s': a value without a parameter name at '%.*s'", full,
					(int)(len - a), s + a);
		size_t b = i;
		if (i == len || !isdigit((unsigned char)s[i]))
			return perr_set(err, "'%s': parameter '%.*s' has no value", full, (int)(b - a), s + a);
		char num[64];
		size_t k = 0;
		int dots = 0;
		while (i < len && (isdigit((unsigned char)s[i]) || s[i] == '.' || s[i] == ',')) {
			/* a separator followed by a non-digit ends the value */
			if ((s[i] == '.' || s[i] == ',') && !(i + 1 < len && isdigit((unsigned char)s[i + 1])))
				break;
			/* a second decimal point starts nothing valid: "1.5.3" is ambiguous */
			if (s[i] == '.' || s[i] == ',') {
				if (dots++) {
					/* "x1.1.y1" is handled by the break above; here "1.2.3" */
					return perr_set(err, "'%s': value of '%.*s' has two decimal points", full,
							(int)(b - a), s + a);
				}
			}
			if (k + 1 < sizeof(num))
				num[k++] = s[i] == ',' ? '.' : s[i];
			i++;
		}
		num[k] = '\0';
		char *end;
		double v = strtod(num, &end);
		if (*end)
			return perr_set(err, "'%s': bad value '%s' of '%.*s'", full, num, (int)(b - a), s + a);
		char *pname = xstrndup(s + a, b - a);
		for (int q = 0; q < n->nparams; q++)
			if (!strcmp(n->params[q], pname)) {
				perr_set(err, "'%s': parameter '%s' appears twice", full, pname);
				free(pname);
				return -1;
			}
		XGROW(n->params, (size_t)n->nparams + 1, alloc);
		n->values = xrealloc(n->values, sizeof(double) * (size_t)(n->nparams + 1));
		n->params[n->nparams] = pname;
		n->values[n->nparams] = v;
		n->nparams++;
	}
	return 0;
}

int scorep_name_parse(struct scorep_name *n, const char *name, struct perr *err)
{
	memset(n, 0, sizeof(*n));
	size_t len = strlen(name);
	if (!len)
		return perr_set(err, "empty experiment directory name");
	/* repetition: a last part ".r<digits>" */
	const char *dot = strrchr(name, '.');
	if (dot && dot[1] == 'r' && dot[2]) {
		const char *d = dot + 2;
		while (isdigit((unsigned char)*d))
			d++;
		if (!*d) {
			long r = strtol(dot + 2, NULL, 10);
			if (r < 0 || r > 1000000)
				return perr_set(err, "'%s': repetition out of range", name);
			n->repetition = (int)r;
			len = (size_t)(dot - name);
		}
	}
	/* prefix: the first part, unless it reads as pairs */
	const char *first_dot = memchr(name, '.', len);
	if (first_dot) {
		struct scorep_name probe;
		memset(&probe, 0, sizeof(probe));
		int pairs = parse_pairs(&probe, name, name, (size_t)(first_dot - name), NULL) == 0;
		scorep_name_release(&probe);
		if (!pairs) {
			n->prefix = xstrndup(name, (size_t)(first_dot - name));
			size_t skip = (size_t)(first_dot - name) + 1;
			if (parse_pairs(n, name, name + skip, len - skip, err) < 0) {
				scorep_name_release(n);
				return -1;
			}
			goto check;
		}
	}
	if (parse_pairs(n, name, name, len, err) < 0) {
		scorep_name_release(n);
		return -1;
	}
check:
	if (n->nparams == 0) {
		scorep_name_release(n);
		return perr_set(err, "'%s': no <parameter><value> pairs in the name", name);
	}
	return 0;
}

/* ---------- scanning a folder ---------- */

void scorep_scan_release(struct scorep_scan *s)
{
	for (int i = 0; i < s->nparams; i++)
		free(s->params[i]);
	free(s->params);
	for (int i = 0; i < s->nruns; i++) {
		free(s->runs[i].dir);
		free(s->runs[i].profile);
		free(s->runs[i].values);
	}
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_run(const void *a, const void *b, void *ctx)
{
	const struct scorep_run *x = a, *y = b;
	int nparams = *(const int *)ctx;
	for (int k = 0; k < nparams; k++)
		if (x->values[k] != y->values[k])
			return x->values[k] < y->values[k] ? -1 : 1;
	if (x->repetition != y->repetition)
		return x->repetition < y->repetition ? -1 : 1;
	return strcmp(x->profile, y->profile);
}

/* The subdirectories of dir (not starting with '.'), sorted; -1 with err. */
static int list_subdirs(const char *dir, char ***out, int *n, struct perr *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return perr_set(err, "cannot open directory '%s': %s", dir, strerror(errno));
	char **names = NULL;
	size_t nalloc = 0;
	int nnames = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		int isdir = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
		free(p);
		if (!isdir)
			continue;
		XGROW(names, (size_t)nnames + 1, nalloc);
		names[nnames++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nnames > 1)
		qsort(names, (size_t)nnames, sizeof(char *), cmp_str);
	*out = names;
	*n = nnames;
	return 0;
}

/*
 * Per subdirectory: its .cubex files and, when it has some (an experiment
 * directory), its parsed name.  Every experiment directory must name the
 * same parameters.  The index of the first one, or -1 with err.
 */
static int read_names(const char *dir, char **names, int nnames, struct scorep_name *parsed, char ***files,
		      int *nfiles, struct perr *err)
{
	int ref = -1;
	for (int i = 0; i < nnames; i++) {
		char *sub = xasprintf("%s/%s", dir, names[i]);
		cubex_list_profiles(sub, &files[i], &nfiles[i]);
		free(sub);
		if (nfiles[i] == 0)
			continue;       /* not an experiment directory */
		if (scorep_name_parse(&parsed[i], names[i], err) < 0)
			return perr_prefix(err, "%s", dir);
		if (ref < 0) {
			ref = i;
			continue;
		}
		int same = parsed[i].nparams == parsed[ref].nparams;
		for (int k = 0; same && k < parsed[i].nparams; k++)
			same = !strcmp(parsed[i].params[k], parsed[ref].params[k]);
		if (!same)
			return perr_set(err, "%s: '%s' and '%s' name different parameters (they must be the same and in the same order)",
					dir, names[ref], names[i]);
	}
	if (ref < 0)
		return perr_set_kind(err, PERR_NOT_FOUND, "%s: no Score-P experiment directories "
				     "(subdirectories with a .cubex file)", dir);
	return ref;
}

/*
 * Which parameters to keep, as indices into the reference name's (ref) in
 * pick: the selected ones, or those that vary.  Their count, or -1 with err.
 */
static int pick_params(const char *dir, char **names, int nnames, int ref, const struct scorep_name *parsed,
		       const int *nfiles, char *const *select, int nselect, int *pick, struct perr *err)
{
	const struct scorep_name *r = &parsed[ref];
	int npick = 0;
	if (select && nselect > 0) {
		for (int q = 0; q < nselect; q++) {
			int k = -1;
			for (int j = 0; j < r->nparams; j++)
				if (!strcmp(r->params[j], select[q]))
					k = j;
			if (k < 0)
				return perr_set(err, "%s: parameter '%s' is not in the directory names (e.g. '%s')",
						dir, select[q], names[ref]);
			pick[npick++] = k;
		}
		return npick;
	}
	for (int k = 0; k < r->nparams; k++) {
		int varies = 0;
		for (int i = 0; i < nnames && !varies; i++)
			if (nfiles[i] && parsed[i].values[k] != r->values[k])
				varies = 1;
		if (varies)
			pick[npick++] = k;
	}
	if (npick == 0 && r->nparams > 0)
		pick[npick++] = 0;      /* a single point: keep the first parameter */
	return npick;
}

/* One run per profile, with the picked parameters' values, sorted; repetitions numbered 1.. per point. */
static void add_runs(struct scorep_scan *s, const char *dir, char **names, int nnames,
		     const struct scorep_name *parsed, char ***files, const int *nfiles, const int *pick,
		     int npick)
{
	size_t ralloc = 0;
	for (int i = 0; i < nnames; i++)
		for (int f = 0; f < nfiles[i]; f++) {
			XGROW(s->runs, (size_t)s->nruns + 1, ralloc);
			struct scorep_run *run = &s->runs[s->nruns++];
			run->dir = xasprintf("%s/%s", dir, names[i]);
			run->profile = xstrdup(files[i][f]);
			run->values = xmalloc(sizeof(double) * (size_t)(npick + 1));
			for (int q = 0; q < npick; q++)
				run->values[q] = parsed[i].values[pick[q]];
			run->repetition = parsed[i].repetition;
		}
	qsort_r(s->runs, (size_t)s->nruns, sizeof(*s->runs), cmp_run, &npick);
	/* number repetitions 1.. within each point, keeping the names' order */
	for (int i = 0, rep = 0; i < s->nruns; i++) {
		if (i == 0 || memcmp(s->runs[i].values, s->runs[i - 1].values, sizeof(double) * (size_t)npick))
			rep = 0;
		s->runs[i].repetition = ++rep;
	}
}

int scorep_dir_scan(struct scorep_scan *s, const char *dir, char *const *select, int nselect,
		    struct perr *err)
{
	memset(s, 0, sizeof(*s));
	char **names = NULL;
	int nnames = 0;
	if (list_subdirs(dir, &names, &nnames, err) < 0)
		return -1;
	int rc = -1, npick = -1;
	struct scorep_name *parsed = xcalloc((size_t)nnames + 1, sizeof(*parsed));
	char ***files = xcalloc((size_t)nnames + 1, sizeof(char **));
	int *nfiles = xcalloc((size_t)nnames + 1, sizeof(int));
	int *pick = NULL;
	int ref = read_names(dir, names, nnames, parsed, files, nfiles, err);
	if (ref >= 0) {
		pick = xmalloc(sizeof(int) * (size_t)(parsed[ref].nparams + nselect + 1));
		npick = pick_params(dir, names, nnames, ref, parsed, nfiles, select, nselect, pick, err);
	}
	if (npick >= 0) {
		s->nparams = npick;
		s->params = xmalloc(sizeof(char *) * (size_t)(npick + 1));
		for (int q = 0; q < npick; q++)
			s->params[q] = xstrdup(parsed[ref].params[pick[q]]);
		add_runs(s, dir, names, nnames, parsed, files, nfiles, pick, npick);
		rc = 0;
	}
	for (int i = 0; i < nnames; i++) {
		scorep_name_release(&parsed[i]);
		for (int f = 0; f < nfiles[i]; f++)
			free(files[i][f]);
		free(files[i]);
		free(names[i]);
	}
	free(pick);
	free(parsed);
	free(files);
	free(nfiles);
	free(names);
	if (rc < 0)
		scorep_scan_release(s);
	return rc;
}

/* ---------- reading into an experiment ---------- */

int scorep_profile_add(struct experiment *e, const struct cubex *c, const double *coords,
		       const struct scorep_read_opts *o, struct perr *err)
{
	int p = experiment_point(e, coords);
	if (p < 0)
		return perr_set(err, "%s: the experiment has no parameters", c->path);
	size_t L = (size_t)c->nlocations;
	int nm = o && o->metrics ? o->nmetrics : c->nmetrics;
	enum cubex_aggr aggr = o ? o->aggr : CUBEX_MEAN;
	double *acc = xmalloc(sizeof(double) * L);
	int rc = 0;
	for (int q = 0; q < nm && !rc; q++) {
		int m;
		if (o && o->metrics) {
			m = cubex_find_metric(c, o->metrics[q]);
			if (m < 0) {
				rc = perr_set(err, "%s: no metric '%s' in the profile", c->path, o->metrics[q]);
				break;
			}
		} else {
			m = q;
			if (!c->metrics[m].has_data)
				continue;       /* as Extra-P: metrics without data are skipped */
		}
		double *v;
		if (cubex_read_metric(c, m, CUBEX_EXCL, &v, err) < 0) {
			rc = -1;
			break;
		}
		int mi = experiment_metric(e, c->metrics[m].name);
		/* call paths seen twice (two cnodes) add up per location */
		struct strmap seen;
		strmap_init(&seen);
		int *next = xmalloc(sizeof(int) * (size_t)c->ncnodes);   /* next cnode of the same path */
		int *last = xmalloc(sizeof(int) * (size_t)c->ncnodes);
		char *dup = xcalloc((size_t)c->ncnodes, 1);
		for (int i = 0; i < c->ncnodes; i++) {
			next[i] = -1;
			int f = strmap_get(&seen, c->cnodes[i].callpath);
			if (f < 0) {
				strmap_put(&seen, c->cnodes[i].callpath, i);
				last[i] = i;
			} else {
				next[last[f]] = i;
				last[f] = i;
				dup[i] = 1;
			}
		}
		for (int i = 0; i < c->ncnodes; i++) {
			if (dup[i])
				continue;
			memcpy(acc, &v[(size_t)i * L], sizeof(double) * L);
			for (int j = next[i]; j >= 0; j = next[j])
				for (size_t l = 0; l < L; l++)
					acc[l] += v[(size_t)j * L + l];
			experiment_add(e, experiment_callpath(e, c->cnodes[i].callpath), mi, p,
				       cubex_aggregate(acc, (int)L, aggr));
		}
		strmap_release(&seen);
		free(next);
		free(last);
		free(dup);
		free(v);
	}
	free(acc);
	return rc;
}

int scorep_dir_read(struct experiment *e, const char *dir, const struct scorep_read_opts *o,
		    struct perr *err)
{
	struct scorep_scan s;
	if (scorep_dir_scan(&s, dir, o ? o->select : NULL, o ? o->nselect : 0, err) < 0)
		return -1;
	for (int k = 0; k < s.nparams; k++)
		experiment_param(e, s.params[k]);
	int rc = 0;
	for (int i = 0; i < s.nruns && !rc; i++) {
		struct cubex c;
		if (cubex_open(&c, s.runs[i].profile, err) < 0) {
			rc = -1;
			break;
		}
		rc = scorep_profile_add(e, &c, s.runs[i].values, o, err);
		cubex_release(&c);
	}
	scorep_scan_release(&s);
	return rc;
}
