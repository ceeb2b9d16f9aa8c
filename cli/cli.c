/* The command table and dispatch for `perfsweep`: only the list of entries. */
#include "cli/cli.h"
#include "cli/usage.h"
#include "common/display.h"
#include "common/strbuf.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PERFSWEEP_VERSION "0.1.0"

/* The order of `perfsweep help`. */
static const struct cli_entry *const commands[] = {
	&cmd_help_entry,
	&cmd_plan_entry,
	&cmd_run_entry,
	&cmd_probe_entry,
	&cmd_status_entry,
	&cmd_cancel_entry,
	&cmd_collect_entry,
	&cmd_model_entry,
	&cmd_export_entry,
	&cmd_topo_entry,
	&cmd_import_entry,
	&cmd_validate_entry,
	&cmd_refine_entry,
	&cmd_compare_entry,
	&cmd_deps_entry,
	&cmd_top_entry,
};

#define NCOMMANDS ((int)(sizeof(commands) / sizeof(commands[0])))

const struct cli_entry *cli_command(int i)
{
	return i >= 0 && i < NCOMMANDS ? commands[i] : NULL;
}

const struct cli_entry *cli_find(const char *name)
{
	for (int i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* "error: MSG" on one line of stderr. */
/* Messages name files and regions from inputs: escaped for the terminal. */
static void error_line(const char *fmt, va_list ap)
{
	char msg[4096];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addstr(&sb, "error: ");
	display_escape(&sb, msg, strlen(msg));
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

static FILE *plain_stdout;      /* stdout before cli_display_stdout */

void cli_display_stdout(void)
{
	FILE *d = plain_stdout ? NULL : display_stream(stdout);
	if (d) {
		plain_stdout = stdout;
		stdout = d;
	}
}

void cli_display_end(void)
{
	if (!plain_stdout)
		return;
	fclose(stdout);
	stdout = plain_stdout;
	plain_stdout = NULL;
}

int cli_error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_line(fmt, ap);
	va_end(ap);
	return code;
}

volatile sig_atomic_t cli_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	cli_stop = 1;
}

void cli_catch_stop(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		error_line(fmt, ap);
		va_end(ap);
	}
	const struct cli_entry *c = cmd ? cli_find(cmd) : NULL;
	if (c) {
		struct strbuf sb;
		strbuf_init(&sb);
		cli_usage_text(c, &sb);
		fprintf(stderr, "usage: perfsweep %s\n", sb.buf);
		strbuf_release(&sb);
	}
	else
		fputs("usage: perfsweep <command> [options]  (see 'perfsweep help')\n", stderr);
	return EXIT_USAGE;
}

int cli_main(int argc, char **argv)
{
	if (argc < 2) {
		cli_overview(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("perfsweep %s\n", PERFSWEEP_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return cli_run(&cmd_help_entry, 1, argv + 1);
	const struct cli_entry *c = cli_find(name);
	if (!c)
		return cli_usage(NULL, "unknown command '%s'", name);
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			char *hargv[] = { "help", (char *)name, NULL };
			return cli_run(&cmd_help_entry, 2, hargv);
		}
	int rc = cli_run(c, argc - 1, argv + 1);
	cli_display_end();
	return rc;
}
