/*
 * The perfsweep command line: one entry per command (struct cli_entry: name,
 * synopsis, summary, help text, option table, function), defined next to its
 * code in cli/cmd_<name>.c, as tmux's cmd_entry; cli.c only lists them.
 * One option helper (options.c, on top of getopt_long) parses every
 * command's options and reports every usage error, so no command repeats
 * getopt loops or usage texts.
 *
 * Adding a command:
 *   1. write cli/cmd_<name>.c: a static exec function and
 *      `const struct cli_entry cmd_<name>_entry = { ... };` with its
 *      synopsis, summary, help and option table, each row with its help
 *      (everything else static);
 *   2. declare the entry below and list it in cli.c (that order is the
 *      order of `perfsweep help`);
 *   3. add a case to tests/data/cli/cases.txt (regenerate expected.txt with
 *      PERFSWEEP_REGEN=1 and review it), a test under tests/integration/,
 *      and document it in docs/.
 * Adding an option: one row in the command's option table, with its value's
 * name and one line of help (a check function if its value must be
 * validated while parsing), and its use in the exec function through
 * cli_value()/cli_flag().  The usage line, the options `perfsweep help CMD`
 * lists and the man page's synopsis (`perfsweep help --man`) are generated
 * from the rows (cli/usage.c), as git's parse-options does.
 *
 * Exit codes (documented in `perfsweep help`): 0 success, 1 runs failed,
 * 2 usage or input error, 3 validation blocked publishing (validate) or a
 * regression was found (compare), 4 compare could not tell (inconclusive).
 */
#ifndef PS_CLI_H
#define PS_CLI_H
#include "common/error.h"
#include <signal.h>
#include <stdio.h>

enum {
	EXIT_OK = 0,
	EXIT_RUNS_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_BLOCKED = 3,
	EXIT_INCONCLUSIVE = 4,
};

struct cli_args;
struct cli_opt;

/* One option of a command: --name (and -key when key is in the entry's shortopts). */
struct cli_option {
	const char *name;       /* long name without "--"; NULL ends the table */
	int key;                /* what cli_value/cli_flag look for: a letter or a code >= 256 */
	int has_value;          /* 0: a flag; 1: takes a value */
	/*
	 * Optional: validate o->arg while parsing (in command-line order) and
	 * store a number in o->i or o->d.  Returns 0, or -1 with err set: the
	 * helper prints it as a usage error.  a holds the options seen before.
	 */
	int (*check)(const struct cli_args *a, struct cli_opt *o, struct perr *err);
	const char *missing;    /* the usage error when the value is missing, or NULL */
	const char *arg;        /* the value's name in usage and help ("DIR"); NULL for a flag */
	const char *help;       /* one line for `perfsweep help CMD`; NULL: a deprecated
	                           spelling, accepted and shown nowhere */
	const char *within;     /* the option this one refines ("until" for --rounds): nested
	                           inside its brackets in the usage line */
	int in_synopsis;        /* written in the entry's synopsis, not repeated after it */
};

struct cli_entry {
	const char *name;
	const char *synopsis;   /* the arguments, after the name: "CONFIG|DIR"; the usage line
	                           is the name, this and the option rows (cli/usage.h) */
	const char *more_usage; /* further usage lines after "perfsweep ", '\n'-separated, or NULL */
	const char *summary;    /* one line for `perfsweep help` */
	const char *help;       /* longer text for `perfsweep help CMD`, or NULL */
	const struct cli_option *options;       /* NULL: no options */
	/* 1: exec gets argv unparsed (a->args = argv + 1) and may call cli_parse
	   itself, e.g. after rewriting a deprecated spelling */
	int raw;
	const char *shortopts;  /* getopt's short options ("d:"), or NULL */
	int min_args, max_args; /* positional arguments; max_args -1: any number */
	const char *too_few;    /* usage error for fewer than min_args */
	const char *too_many;   /* usage error for more than max_args; a '%s' gets the first extra */
	int (*exec)(struct cli_args *a);
};

/* A parsed option: its row's key, its value (NULL for a flag), and a number its check stored. */
struct cli_opt {
	int key;
	const char *arg;
	long long i;
	double d;
};

/* A command line after cli_parse. */
struct cli_args {
	const struct cli_entry *cmd;
	int argc;               /* the command's argv: argv[0] is its name */
	char **argv;
	int nopts;              /* options in command-line order */
	struct cli_opt *opts;
	int nargs;              /* positional arguments (pointers into argv) */
	char **args;
};

/*
 * Parse argv (argv[0] the command's name) by cmd's option table: options in
 * command-line order, positional arguments anywhere (GNU permutation), each
 * row's check run as its option is met, then the positional count checked.
 * Returns 0, or EXIT_USAGE after printing the error and the usage line to
 * stderr.  Release a with cli_args_release either way.
 */
int cli_parse(const struct cli_entry *cmd, int argc, char **argv, struct cli_args *a);
void cli_args_release(struct cli_args *a);
/* The value of the last occurrence of option key, or NULL. */
const char *cli_value(const struct cli_args *a, int key);
/* The last occurrence of option key, or NULL. */
const struct cli_opt *cli_opt(const struct cli_args *a, int key);
/* How often option key was given. */
int cli_flag(const struct cli_args *a, int key);

/* Checks for option rows: parse o->arg as a base-10 integer (o->i) or a finite real (o->d). */
int cli_parse_int(const char *s, long long min, long long max, long long *out);
int cli_parse_real(const char *s, double *out);
/* A share written as a percentage ("5%") or a fraction ("0.05"): 0.05 either way; -1 if neither. */
int cli_parse_fraction(const char *s, double *out);

/* Parse argv by cmd's table and run it (argv[0] the command's name): the exit code. */
int cli_run(const struct cli_entry *cmd, int argc, char **argv);
int cli_main(int argc, char **argv);
const struct cli_entry *cli_find(const char *name);
/* The i-th command of the table (the order of `perfsweep help`), NULL past the end. */
const struct cli_entry *cli_command(int i);
/* The overview `perfsweep help` prints: the commands and the exit codes. */
void cli_overview(FILE *f);
/* Print "error: MSG" (if fmt) and the command's usage line; returns EXIT_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "error: MSG" to stderr and return code. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Text output that shows names from input files (regions, parameters,
 * models): from cli_display_stdout on, stdout is escaped by display_escape
 * until cli_display_end (cli_main calls it after every command).  Never
 * for data (CSV, JSON: jansson escapes its own) or curses.  Error lines
 * (cli_error, cli_usage) are always escaped.
 */
void cli_display_stdout(void);
void cli_display_end(void);
/* Set by SIGINT or SIGTERM once cli_catch_stop ran: a long command (run,
   collect) checks it and stops cleanly, within a fraction of a second. */
extern volatile sig_atomic_t cli_stop;
/* Ctrl-C and kill set cli_stop instead of killing; a closed pipe does not kill us. */
void cli_catch_stop(void);

extern const struct cli_entry cmd_help_entry;
extern const struct cli_entry cmd_plan_entry;
extern const struct cli_entry cmd_run_entry;
extern const struct cli_entry cmd_status_entry;
extern const struct cli_entry cmd_cancel_entry;
extern const struct cli_entry cmd_collect_entry;
extern const struct cli_entry cmd_model_entry;
extern const struct cli_entry cmd_export_entry;
extern const struct cli_entry cmd_topo_entry;
extern const struct cli_entry cmd_import_entry;
extern const struct cli_entry cmd_validate_entry;
extern const struct cli_entry cmd_deps_entry;
extern const struct cli_entry cmd_top_entry;
extern const struct cli_entry cmd_refine_entry;
extern const struct cli_entry cmd_compare_entry;
extern const struct cli_entry cmd_probe_entry;

#endif
