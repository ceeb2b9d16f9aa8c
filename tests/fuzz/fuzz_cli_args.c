/*
 * libFuzzer target for the command line's option helper (cli/options.c):
 * the input's first byte picks a command, the rest, split at NUL bytes, is
 * its argv; cli_parse parses it by the command's option table and checks,
 * without running the command.  It must never crash, leak or hang, and a
 * successful parse must respect the table: known keys, values where rows
 * take them, the positional bounds.
 *   make fuzz && ./build/fuzz/fuzz_cli_args -max_total_time=60 tests/fuzz/corpus/cli_args
 */
#include "cli/cli.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct cli_option *row_of(const struct cli_entry *c, int key)
{
	for (const struct cli_option *o = c->options; o && o->name; o++)
		if (o->key == key)
			return o;
	return NULL;
}

/* A successful parse must agree with the entry's table. */
static void check(const struct cli_entry *c, const struct cli_args *a, int argc)
{
	if (a->nargs < c->min_args || (c->max_args >= 0 && a->nargs > c->max_args) ||
	    a->nargs > argc - 1)
		abort();
	for (int i = 0; i < a->nopts; i++) {
		const struct cli_option *row = row_of(c, a->opts[i].key);
		if (!row || (row->has_value && !a->opts[i].arg))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int ncommands = 0;
	while (cli_command(ncommands))
		ncommands++;
	if (size < 1 || size > 4096)
		return 0;
	const struct cli_entry *c = cli_command(data[0] % ncommands);
	/* argv: the command's name, then the NUL-separated arguments */
	char *buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	char **argv = calloc(size + 2, sizeof(char *));
	int argc = 0;
	argv[argc++] = (char *)c->name;
	for (size_t i = 0; i + 1 < size; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;
	/* usage errors go to stderr: to /dev/null while parsing, so libFuzzer's own reports stay */
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	FILE *saved = stderr;
	stderr = null;
	struct cli_args a;
	int rc = cli_parse(c, argc, argv, &a);
	stderr = saved;
	if (rc == 0)
		check(c, &a, argc);
	cli_args_release(&a);
	free(argv);
	free(buf);
	return 0;
}
