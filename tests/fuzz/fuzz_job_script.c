/*
 * libFuzzer target: the SLURM job-script renderer (orchestrator/slurm/slurm_script.c).
 *
 * The input is cut at NUL bytes into the strings that reach job.sh
 * (campaign name and directory, run and working directory, partition,
 * account, qos, extra options, placement policy, binder path, arguments,
 * environment entries), its first bytes give the numbers.  Oracle:
 *
 *  - the renderer refuses exactly when a value cannot be written: a control
 *    character outside an argument or environment value, or an environment
 *    name sh cannot assign;
 *  - otherwise the script, with every quoted word collapsed to one token,
 *    is line for line the script of the same run with every string replaced
 *    by "a": no byte of a value ever stands outside its quotes, every line
 *    is one of the expected forms;
 *  - the application's words on the srun line decode back to argv exactly.
 */
#include "orchestrator/slurm/slurm_script.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_CAMP, F_CDIR, F_RUNDIR, F_WORKDIR, F_PART, F_ACCT, F_QOS, F_POLICY, F_BIND, NFIX };
#define MAXV 8

struct input {
	const char *fix[NFIX];       /* NULL: unset (where that is possible) */
	const char *extra[MAXV], *argv[MAXV + 1], *env[MAXV + 1];
	int nextra, argc, nenv;
	int ranks, rpn, nodes;
	unsigned tl;
	double timeout;
};

static int has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static int sh_name(const char *kv)
{
	size_t n = strcspn(kv, "=");
	if (!kv[n])
		return 1;   /* no '=': skipped */
	if (n == 0 || (kv[0] >= '0' && kv[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(kv[i] == '_' || (kv[i] >= 'a' && kv[i] <= 'z') || (kv[i] >= 'A' && kv[i] <= 'Z') ||
		      (kv[i] >= '0' && kv[i] <= '9')))
			return 0;
	return 1;
}

static int render(const struct input *in, char **out, struct perr *err)
{
	struct run_spec rs = {
		.id = 42, .campaign = in->fix[F_CAMP], .campaign_dir = in->fix[F_CDIR],
		.argv = (char *const *)in->argv, .env = (char *const *)in->env,
		.workdir = in->fix[F_WORKDIR], .run_dir = in->fix[F_RUNDIR], .timeout = in->timeout,
		.ranks = in->ranks, .nodes = in->nodes, .ranks_per_node = in->rpn,
		.policy = in->fix[F_POLICY], .bind_path = in->fix[F_BIND], .attempt = 1,
	};
	struct slurm_script_opts o = {
		.partition = in->fix[F_PART], .account = in->fix[F_ACCT], .qos = in->fix[F_QOS],
		.nextra = in->nextra, .extra = (char *const *)in->extra, .nodes = in->nodes,
		.time_limit = in->tl,
	};
	return slurm_script_render(&o, &rs, out, err);
}

/* The script with every quoted word ('...', "...", \x runs) as one 'Q'. */
static char *collapse(const char *s)
{
	struct strbuf sb;
	strbuf_init(&sb);
	while (*s) {
		if (*s != '\'' && *s != '"' && *s != '\\') {
			strbuf_addch(&sb, *s++);
			continue;
		}
		while (*s == '\'' || *s == '"' || *s == '\\') {
			char q = *s++;
			if (q == '\\') {
				if (*s)
					s++;
				continue;
			}
			while (*s && *s != q) {
				if (q == '"' && *s == '\\' && s[1])
					s++;
				s++;
			}
			if (*s)
				s++;
		}
		strbuf_addch(&sb, 'Q');
	}
	return strbuf_detach(&sb);
}

/* The sh words after "perfsweep-rank" on the srun line, decoded. */
static int app_words(const char *script, char **words, int max)
{
	/* the first "perfsweep-rank" outside quotes (values are all quoted) */
	const char *p = script;
	while (*p && strncmp(p, " perfsweep-rank", 15)) {
		char q = *p++;
		if (q == '\\' && *p)
			p++;
		else if (q == '\'' || q == '"')
			while (*p && *p != q)
				p += q == '"' && *p == '\\' && p[1] ? 2 : 1;
		if ((q == '\'' || q == '"') && *p)
			p++;
	}
	if (!*p)
		return -1;
	p += 15;
	int n = 0;
	while (*p == ' ' && n < max) {
		p++;
		struct strbuf w;
		strbuf_init(&w);
		while (*p && *p != ' ' && *p != '\n') {
			if (*p == '\\' && p[1]) {
				strbuf_addch(&w, p[1]);
				p += 2;
			} else if (*p == '\'') {
				const char *e = strchr(p + 1, '\'');
				if (!e)
					e = p + strlen(p);
				strbuf_add(&w, p + 1, (size_t)(e - p - 1));
				p = *e ? e + 1 : e;
			} else {
				strbuf_addch(&w, *p++);
			}
		}
		words[n++] = strbuf_detach(&w);
	}
	return n;
}

/* Cut data at NUL bytes into in; the first bytes are numbers. */
static void parse(const uint8_t *data, size_t size, struct input *in, char *buf, char **parts, int *np)
{
	memset(in, 0, sizeof(*in));
	uint8_t num[6] = { 0 };
	size_t k = size < 6 ? size : 6;
	memcpy(num, data, k);
	in->ranks = 1 + num[0] % 16;
	in->rpn = num[1] % 5;
	in->nodes = num[2] % 4;
	in->tl = num[3] % 3 ? num[3] : 0;
	in->timeout = num[4] % 2 ? num[4] * 0.5 : 0;
	int unset = num[5];   /* bit i: fix[i] unset */
	memcpy(buf, data + k, size - k);
	buf[size - k] = '\0';
	int n = 0;
	for (char *p = buf; n < NFIX + 3 * MAXV;) {
		parts[n++] = p;
		p += strlen(p);
		if (p >= buf + (size - k))
			break;
		p++;
	}
	*np = n;
	for (int i = 0; i < NFIX; i++)
		in->fix[i] = i < n && !(unset & (1 << (i % 8))) ? parts[i] : NULL;
	if (!in->fix[F_RUNDIR])
		in->fix[F_RUNDIR] = "/run";
	if (in->fix[F_BIND] && !in->fix[F_POLICY])
		in->fix[F_POLICY] = "block";
	for (int i = NFIX; i < n; i++) {
		const char *v = parts[i];
		int kind = (unsigned char)v[0] % 3;
		if (kind == 0 && in->nextra < MAXV)
			in->extra[in->nextra++] = v;
		else if (kind == 1 && in->nenv < MAXV)
			in->env[in->nenv++] = v;
		else if (in->argc < MAXV)
			in->argv[in->argc++] = v;
	}
	if (in->argc == 0)
		in->argv[in->argc++] = "app";
}

/* The same run with every string "a" (environment names kept). */
static void benign(const struct input *in, struct input *b, char envbuf[][80])
{
	*b = *in;
	for (int i = 0; i < NFIX; i++)
		if (in->fix[i])
			b->fix[i] = i == F_RUNDIR ? "/a" : "a";
	for (int i = 0; i < in->nextra; i++)
		b->extra[i] = "a";
	for (int i = 0; i < in->argc; i++)
		b->argv[i] = "a";
	for (int i = 0; i < in->nenv; i++) {
		size_t n = strcspn(in->env[i], "=");
		if (!in->env[i][n] || n > 60) {
			b->env[i] = in->env[i][n] ? "K=a" : "a";
			continue;
		}
		snprintf(envbuf[i], 80, "%.*s=a", (int)n, in->env[i]);
		b->env[i] = envbuf[i];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *buf = xmalloc(size + 1);
	char *parts[NFIX + 3 * MAXV];
	int np;
	struct input in;
	parse(data, size, &in, buf, parts, &np);
	int refuse = 0;
	int bound = in.fix[F_POLICY] && in.fix[F_BIND];   /* the binder is used only with both */
	for (int i = 0; i < NFIX; i++)
		refuse |= (bound || (i != F_POLICY && i != F_BIND)) && has_control(in.fix[i]);
	for (int i = 0; i < in.nextra; i++)
		refuse |= has_control(in.extra[i]);
	refuse |= has_control(in.argv[0]);
	int long_key = 0;
	for (int i = 0; i < in.nenv; i++) {
		refuse |= !sh_name(in.env[i]);
		long_key |= strcspn(in.env[i], "=") > 60;
	}
	char *script = NULL;
	struct perr err;
	int rc = render(&in, &script, &err);
	if ((rc != 0) != refuse) {
		fprintf(stderr, "render returned %d, expected %s: %s\n", rc, refuse ? "refusal" : "a script",
			rc ? err.msg : script);
		abort();
	}
	if (rc == 0 && !long_key) {
		struct input b;
		char envbuf[MAXV][80];
		benign(&in, &b, envbuf);
		char *bs = NULL;
		if (render(&b, &bs, &err))
			abort();
		char *c1 = collapse(script), *c2 = collapse(bs);
		if (strcmp(c1, c2)) {
			fprintf(stderr, "a value escaped its quotes:\n%s\n---- expected the form of:\n%s\n", script, bs);
			abort();
		}
		char *words[64];
		int nw = app_words(script, words, 64);
		if (nw < in.argc)
			abort();
		for (int i = 0; i < in.argc; i++)
			if (strcmp(words[nw - in.argc + i], in.argv[i])) {
				fprintf(stderr, "argument %d arrives as '%s', not '%s'\n", i,
					words[nw - in.argc + i], in.argv[i]);
				abort();
			}
		for (int i = 0; i < nw; i++)
			free(words[i]);
		free(c1);
		free(c2);
		free(bs);
	}
	free(script);
	free(buf);
	return 0;
}
