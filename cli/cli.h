/*
 * The perfsweep command line: one table of commands (cli.c), one file per
 * command (cmd_<name>.c), each exporting int cmd_<name>(int argc, char **argv).
 *
 * Adding a command:
 *   1. write cli/cmd_<name>.c with cmd_<name>(); parse options with
 *      getopt_long and report bad ones through cli_usage();
 *   2. declare it below and add its row to the table in cli.c (usage + summary);
 *   3. add a test under tests/ and document it in docs/ and `perfsweep help`.
 *
 * Exit codes (documented in `perfsweep help`): 0 success, 1 runs failed,
 * 2 usage or input error, 3 validation blocked publishing (validate) or a
 * regression was found (compare).
 */
#ifndef PS_CLI_H
#define PS_CLI_H

enum {
	EXIT_OK = 0,
	EXIT_RUNS_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_BLOCKED = 3,
};

struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;      /* after "perfsweep " */
	const char *summary;
	const char *help;       /* longer text for `perfsweep help CMD`, or NULL */
};

int cli_main(int argc, char **argv);
const struct cli_command *cli_find(const char *name);
/* Print "error: MSG" (if fmt) and the command's usage line; returns EXIT_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "error: MSG" to stderr and return code. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cmd_help(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_deps(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
