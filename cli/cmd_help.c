/* perfsweep help [COMMAND]: the overview of every command, or one command's usage and help. */
#include "cli/cli.h"
#include "cli/usage.h"
#include "common/strbuf.h"
#include <stdio.h>
#include <string.h>

void cli_overview(FILE *f)
{
	const struct cli_entry *c;
	fputs("usage: perfsweep <command> [options]\n\ncommands:\n", f);
	for (int i = 0; (c = cli_command(i)); i++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fputs("\nexit codes:\n"
	      "  0  success\n"
	      "  1  runs failed (run), or an operation did not complete\n"
	      "  2  usage or input error (bad option, config, dependency file or data)\n"
	      "  3  validation found a blocking flag (validate), or a regression (compare)\n"
	      "  4  compare could not tell (inconclusive: a region not resolved, or the machine shared)\n"
	      "\n'perfsweep help COMMAND' shows one command; 'perfsweep --version' the version.\n", f);
}

/* `help --man`: every command's SYNOPSIS entry in mdoc, for docs/man/perfsweep.1. */
static void print_man_synopsis(void)
{
	const struct cli_entry *c;
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; (c = cli_command(i)); i++)
		cli_usage_mdoc(c, &sb);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

/* Takes its arguments unparsed: `help -x` asks about a command named "-x". */
static int exec_help(struct cli_args *a)
{
	if (a->nargs < 1) {
		cli_overview(stdout);
		return EXIT_OK;
	}
	if (!strcmp(a->args[0], "--man")) {
		print_man_synopsis();
		return EXIT_OK;
	}
	const struct cli_entry *c = cli_find(a->args[0]);
	if (!c)
		return cli_usage("help", "unknown command '%s'", a->args[0]);
	struct strbuf sb;
	strbuf_init(&sb);
	cli_usage_text(c, &sb);
	printf("usage: perfsweep %s\n\n%s\n", sb.buf, c->summary);
	strbuf_reset(&sb);
	cli_options_text(c, &sb);
	if (sb.len)
		printf("\noptions:\n%s", sb.buf);
	strbuf_release(&sb);
	if (c->help)
		printf("\n%s\n", c->help);
	return EXIT_OK;
}

const struct cli_entry cmd_help_entry = {
	.name = "help",
	.synopsis = "[COMMAND | --man]",
	.help = "--man prints every command's synopsis in mdoc, from the same option rows as the\n"
		"usage lines: the SYNOPSIS of docs/man/perfsweep.1 (make man writes it there).",
	.summary = "show help for perfsweep or one command",
	.raw = 1,
	.exec = exec_help,
};
