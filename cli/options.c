/*
 * The option helper: every command's options parsed by getopt_long from its
 * entry's table, and every usage error printed through cli_usage, so the
 * messages and exit codes of all commands come from one place.
 */
#include "cli/cli.h"
#include "common/xalloc.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_real(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_fraction(const char *s, double *out)
{
	size_t n = strlen(s);
	int pct = n > 0 && s[n - 1] == '%';
	char buf[64];
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n - (size_t)pct);
	buf[n - (size_t)pct] = 0;
	if (cli_parse_real(buf, out) < 0)
		return -1;
	if (pct)
		*out /= 100;
	return 0;
}

static const struct cli_option *find_row(const struct cli_entry *cmd, int key)
{
	for (const struct cli_option *o = cmd->options; o && o->name; o++)
		if (o->key == key)
			return o;
	return NULL;
}

/* getopt_long's table from the entry's (the caller frees it). */
static struct option *long_options(const struct cli_entry *cmd)
{
	size_t n = 0;
	while (cmd->options && cmd->options[n].name)
		n++;
	struct option *lo = xcalloc(n + 1, sizeof(*lo));
	for (size_t i = 0; i < n; i++) {
		lo[i].name = cmd->options[i].name;
		lo[i].has_arg = cmd->options[i].has_value ? required_argument : no_argument;
		lo[i].val = cmd->options[i].key;
	}
	return lo;
}

/*
 * The usage error for getopt's return c ('?' or ':') at argument arg, in
 * one style for every command: a missing value (the row's own message when
 * it has one), a value given to a flag, or an unknown option.
 */
static int option_error(const struct cli_entry *cmd, int c, int opt, const char *arg)
{
	/* a letter the command does not take may still be some row's key: only
	   a long option or a taken letter names its row */
	const struct cli_option *row = opt ? find_row(cmd, opt) : NULL;
	if (row && strncmp(arg, "--", 2) && !(cmd->shortopts && strchr(cmd->shortopts, opt)))
		row = NULL;
	if (c == ':' && row && row->missing)
		return cli_usage(cmd->name, "%s", row->missing);
	if (c == ':')
		return cli_usage(cmd->name, "option '%s' needs a value", arg);
	if (row && !row->has_value)
		return cli_usage(cmd->name, "option '--%s' takes no value", row->name);
	return cli_usage(cmd->name, "unknown option '%s'", arg);
}

/* The positional arguments' count against the entry's bounds. */
static int check_args(const struct cli_entry *cmd, const struct cli_args *a)
{
	if (a->nargs < cmd->min_args)
		return cli_usage(cmd->name, "%s", cmd->too_few ? cmd->too_few : "missing argument");
	if (cmd->max_args >= 0 && a->nargs > cmd->max_args)
		return cli_usage(cmd->name, cmd->too_many ? cmd->too_many : "too many arguments",
				 a->args[cmd->max_args]);
	return 0;
}

int cli_parse(const struct cli_entry *cmd, int argc, char **argv, struct cli_args *a)
{
	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->argc = argc;
	a->argv = argv;
	size_t alloc = 0;
	struct option *lo = long_options(cmd);
	/* a leading ':' tells a missing value (':') from an unknown option ('?') */
	char *shortopts = xasprintf(":%s", cmd->shortopts ? cmd->shortopts : "");
	int c, rc = 0;
	opterr = 0;
	optind = 0;     /* a full restart, also of a scan left inside "-xy" */
	while (!rc && (c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		if (c == '?' || c == ':') {
			rc = option_error(cmd, c, optopt, argv[optind - 1 > 0 ? optind - 1 : 0]);
			break;
		}
		/* one argument may hold several options ("-jq") */
		XGROW(a->opts, (size_t)a->nopts + 1, alloc);
		struct cli_opt *o = &a->opts[a->nopts++];
		memset(o, 0, sizeof(*o));
		o->key = c;
		o->arg = optarg;
		const struct cli_option *row = find_row(cmd, c);
		struct perr err;
		if (row && row->check && row->check(a, o, &err) < 0)
			rc = cli_usage(cmd->name, "%s", err.msg);
	}
	if (!rc) {
		a->nargs = argc - optind;
		a->args = argv + optind;
		rc = check_args(cmd, a);
	}
	free(shortopts);
	free(lo);
	return rc;
}

void cli_args_release(struct cli_args *a)
{
	free(a->opts);
	a->opts = NULL;
	a->nopts = 0;
}

const struct cli_opt *cli_opt(const struct cli_args *a, int key)
{
	for (int i = a->nopts - 1; i >= 0; i--)
		if (a->opts[i].key == key)
			return &a->opts[i];
	return NULL;
}

const char *cli_value(const struct cli_args *a, int key)
{
	const struct cli_opt *o = cli_opt(a, key);
	return o ? o->arg : NULL;
}

int cli_flag(const struct cli_args *a, int key)
{
	int n = 0;
	for (int i = 0; i < a->nopts; i++)
		n += a->opts[i].key == key;
	return n;
}

int cli_run(const struct cli_entry *cmd, int argc, char **argv)
{
	struct cli_args a;
	if (cmd->raw) {
		memset(&a, 0, sizeof(a));
		a.cmd = cmd;
		a.argc = argc;
		a.argv = argv;
		a.nargs = argc - 1;
		a.args = argv + 1;
		return cmd->exec(&a);
	}
	int rc = cli_parse(cmd, argc, argv, &a);
	if (!rc)
		rc = cmd->exec(&a);
	cli_args_release(&a);
	return rc;
}
