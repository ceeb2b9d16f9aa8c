/* perfsweep: plan, run and check performance-modelling campaigns. */
#include "cli/cli.h"
#include <locale.h>

int main(int argc, char **argv)
{
	/* numbers are printed and parsed in the C locale, whatever the user's */
	setlocale(LC_ALL, "C");
	return cli_main(argc, argv);
}
