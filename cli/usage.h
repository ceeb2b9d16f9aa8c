/*
 * Usage texts generated from a command's entry: its synopsis and its option
 * rows (cli.h), so the usage line of an error, the options `perfsweep help
 * CMD` lists and the man page's SYNOPSIS (`perfsweep help --man`) say the
 * same thing and cannot fall behind the options the parser accepts.
 */
#ifndef PS_CLI_USAGE_H
#define PS_CLI_USAGE_H
#include "cli/cli.h"

struct strbuf;

/* "run CONFIG|DIR [--dir DIR] [--until publishable [--rounds N]] ...", then
   each further usage line as "\n       perfsweep LINE". */
void cli_usage_text(const struct cli_entry *c, struct strbuf *sb);
/* One line per shown option: "  -d, --dir DIR        help". */
void cli_options_text(const struct cli_entry *c, struct strbuf *sb);
/* The command's SYNOPSIS entries in mdoc (.Nm, .Cm, .Ar, .Fl, .Op, .Oo/.Oc). */
void cli_usage_mdoc(const struct cli_entry *c, struct strbuf *sb);

#endif
