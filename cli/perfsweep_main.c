/* perfsweep: plan, run and check performance-modelling campaigns. */
#include "cli/cli.h"
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	/* numbers are printed and parsed in the C locale, whatever the user's */
	setlocale(LC_ALL, "C");
	int rc = cli_main(argc, argv);
	/* output that never arrived (a full disk, a closed pipe) is an error */
	errno = 0;
	int werr = ferror(stdout);
	if (fclose(stdout) || werr) {
		int e = errno ? errno : EIO;
		fprintf(stderr, "error: cannot write the output: %s\n", strerror(e));
		return rc ? rc : EXIT_USAGE;
	}
	return rc;
}
