/* perfsweep help [COMMAND]: the overview of every command, or one command's usage and help. */
#include "cli/cli.h"
#include <stdio.h>

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

/* Takes its arguments unparsed: `help -x` asks about a command named "-x". */
static int exec_help(struct cli_args *a)
{
	if (a->nargs < 1) {
		cli_overview(stdout);
		return EXIT_OK;
	}
	const struct cli_entry *c = cli_find(a->args[0]);
	if (!c)
		return cli_usage("help", "unknown command '%s'", a->args[0]);
	printf("usage: perfsweep %s\n\n%s\n", c->usage, c->summary);
	if (c->help)
		printf("\n%s\n", c->help);
	return EXIT_OK;
}

const struct cli_entry cmd_help_entry = {
	.name = "help",
	.usage = "help [COMMAND]",
	.summary = "show help for perfsweep or one command",
	.raw = 1,
	.exec = exec_help,
};
