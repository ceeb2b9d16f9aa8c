/* The option helper (cli/options.c) on a synthetic command, and the input-format registry's detection. */
#include "cli/cli.h"
#include "cli/usage.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "analysis/input.h"
#include "tests/lib/tap.h"
#include <sys/stat.h>

static int check_even(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_int(o->arg, 0, 100, &o->i) < 0 || o->i % 2)
		return perr_set(err, "--even wants an even number up to 100, not '%s'", o->arg);
	return 0;
}

static int exec_none(struct cli_args *a)
{
	(void)a;
	return 0;
}

static const struct cli_option opts[] = {
	{ "flag", 'f', 0, NULL, NULL, NULL, "a flag", NULL, 0 },
	{ "value", 'v', 1, NULL, NULL, "V", "a value", NULL, 0 },
	{ "even", 300, 1, check_even, NULL, "N", "with --value: an even number", "value", 0 },
	{ "id", 'i', 1, NULL, "--id needs an id", "ID", "written in the synopsis", NULL, 1 },
	{ "old", 301, 1, NULL, NULL, "X", NULL, NULL, 0 },
	{ 0 },
};

static struct cli_entry entry = {
	.name = "plan",     /* an existing name, so cli_usage prints a usage line */
	.synopsis = "IN [--id ID]", .more_usage = "plan --other [options]", .summary = "x", .options = opts,
	.shortopts = "fv:",
	.min_args = 1, .max_args = 2, .too_few = "missing X", .too_many = "extra '%s'",
	.exec = exec_none,
};

/* Parse argv (NULL-terminated, argv[0] included) with stderr captured into err. */
static int parse(char **argv, struct cli_args *a, char *err, size_t n)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	fflush(stderr);
	FILE *saved = stderr;
	char *buf = NULL;
	size_t len = 0;
	stderr = open_memstream(&buf, &len);
	int rc = cli_parse(&entry, argc, argv, a);
	fclose(stderr);
	stderr = saved;
	snprintf(err, n, "%s", buf ? buf : "");
	free(buf);
	return rc;
}

static void test_parse(void)
{
	char err[512];
	struct cli_args a;
	char *v1[] = { "plan", "in", "--value", "a", "-f", "--value=b", "--even", "42", "out", "-vc", NULL };
	is_int(parse(v1, &a, err, sizeof(err)), 0, "a good command line parses");
	is_int(a.nargs, 2, "two positional arguments, wherever they stood");
	is_str(a.args[0], "in", "the first");
	is_str(a.args[1], "out", "the second");
	is_str(cli_value(&a, 'v'), "c", "the last --value wins (-vc)");
	is_int(cli_flag(&a, 'v'), 3, "--value given three times");
	is_int(cli_flag(&a, 'f'), 1, "-f once");
	is_int(cli_opt(&a, 300)->i, 42, "the check stored --even's number");
	ok(cli_value(&a, 'i') == NULL, "an absent option has no value");
	is_str(err, "", "nothing printed");
	cli_args_release(&a);

	char *v2[] = { "plan", "in", "--even", "3", "--bogus", NULL };
	is_int(parse(v2, &a, err, sizeof(err)), EXIT_USAGE, "a failed check is a usage error");
	contains(err, "error: --even wants an even number up to 100, not '3'\nusage: perfsweep plan",
		 "with the check's message and the usage line");
	cli_args_release(&a);

	/* one style for every command */
	struct { char *arg; const char *msg; } cases[] = {
		{ "--value", "error: option '--value' needs a value" },
		{ "-v", "error: option '-v' needs a value" },
		{ "--bogus", "error: unknown option '--bogus'" },
		{ "--flag=1", "error: option '--flag' takes no value" },
		{ "--id", "error: --id needs an id" },
		{ "-x", "error: unknown option '-x'" },
		{ "-i", "error: unknown option '-i'" },        /* a row's key, but no letter the command takes */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *v[] = { "plan", "in", cases[i].arg, NULL };
		is_int(parse(v, &a, err, sizeof(err)), EXIT_USAGE, "%s is a usage error", cases[i].arg);
		contains(err, cases[i].msg, "%s: the message", cases[i].arg);
		cli_args_release(&a);
	}
	/* one argument, many options: more options than arguments (found by fuzz_cli_args) */
	char many[260] = "-";
	memset(many + 1, 'f', 250);
	char *v5[] = { "plan", "in", many, NULL };
	is_int(parse(v5, &a, err, sizeof(err)), 0, "-fff...f parses");
	is_int(cli_flag(&a, 'f'), 250, "into 250 flags");
	cli_args_release(&a);
	char *v3[] = { "plan", NULL };
	is_int(parse(v3, &a, err, sizeof(err)), EXIT_USAGE, "too few arguments");
	contains(err, "error: missing X", "says what is missing");
	cli_args_release(&a);
	char *v4[] = { "plan", "a", "b", "c", "d", NULL };
	is_int(parse(v4, &a, err, sizeof(err)), EXIT_USAGE, "too many arguments");
	contains(err, "error: extra 'c'", "names the first extra one");
	cli_args_release(&a);
}

/* The usage line, option list and man synopsis generated from the rows. */
static void test_usage(void)
{
	struct strbuf sb;
	strbuf_init(&sb);
	cli_usage_text(&entry, &sb);
	is_str(sb.buf, "plan IN [--id ID] [-""-flag] [--value V [--even N]]\n       perfsweep plan --other [options]",
	       "usage: synopsis, rows not in it, a refining row nested, further lines; no deprecated row");
	strbuf_reset(&sb);
	cli_options_text(&entry, &sb);
	is_str(sb.buf, "  -f, --flag                  a flag\n"
		       "  -v, --value V               a value\n"
		       "  --even N                    with --value: an even number\n"
		       "  --id ID                     written in the synopsis\n",
	       "options: the short letter where the command takes it, help in a column");
	strbuf_reset(&sb);
	cli_usage_mdoc(&entry, &sb);
	is_str(sb.buf, ".Nm\n.Cm plan\n.Ar in\n.Oo\n.Fl -id\n.Ar id\n.Oc\n.Op Fl -flag\n"
		       ".Oo\n.Fl -value Ar v\n.Op Fl -even Ar n\n.Oc\n"
		       ".Nm\n.Cm plan\n.Fl -other\n.Op Ar options\n",
	       "man: the same in mdoc, placeholders in lower case");
	strbuf_release(&sb);
}

static void test_numbers(void)
{
	long long i;
	double d;
	ok(cli_parse_int("12", 1, 20, &i) == 0 && i == 12, "an integer in range");
	ok(cli_parse_int("21", 1, 20, &i) < 0, "above the range");
	ok(cli_parse_int("1x", 1, 20, &i) < 0, "trailing junk");
	ok(cli_parse_int("", 0, 20, &i) < 0, "empty");
	ok(cli_parse_int("99999999999999999999", 0, 0x7fffffffffffffffLL, &i) < 0, "overflow");
	ok(cli_parse_real("0.25", &d) == 0 && d == 0.25, "a real");
	ok(cli_parse_real("inf", &d) < 0, "not finite");
	ok(cli_parse_real("nan", &d) < 0, "NaN");
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void test_registry(void)
{
	const char *dir = tap_tmpdir();
	struct perr err;
	char *camp = xasprintf("%s/camp", dir), *db = xasprintf("%s/camp/campaign.db", dir);
	char *sp = xasprintf("%s/scorep", dir), *js = xasprintf("%s/a.json", dir);
	char *jl = xasprintf("%s/a.jsonl", dir), *raw = xasprintf("%s/a.data", dir);
	char *txt = xasprintf("%s/a.txt", dir), *none = xasprintf("%s/none", dir);
	char *ref = xasprintf("%s/ref.json", dir);
	mkdir(camp, 0777);
	put(db, "");
	mkdir(sp, 0777);
	put(js, "PARAMETER x\n");
	put(jl, "{}\n");
	put(raw, "  \n{\"parameters\": []}\n");
	put(txt, "{ looks like JSON }\n");
	put(ref, "{\"format\": \"perfsweep-reference\", \"version\": 1}\n");
	is_str(input_format_detect(camp, &err)->name, "campaign", "a directory with campaign.db");
	is_str(input_format_detect(sp, &err)->name, "scorep", "another directory");
	is_str(input_format_detect(js, &err)->name, "json", ".json by its extension, whatever it holds");
	is_str(input_format_detect(jl, &err)->name, "jsonl", ".jsonl");
	is_str(input_format_detect(raw, &err)->name, "json", "no known extension: content starting with {");
	is_str(input_format_detect(txt, &err)->name, "text", ".txt stays text");
	is_str(input_format_detect(ref, &err)->name, "reference", "a .json naming the reference format");
	ok(input_format_detect(none, &err) == NULL, "a missing path is not detected");
	contains(err.msg, "cannot read", "and says why");
	is_str(input_format_find("cube")->name, "scorep", "import's 'cube' is the Score-P folder");
	ok(input_format_find("csv") == NULL, "no such format");
	char names[128];
	input_format_names(names, sizeof(names));
	is_str(names, "campaign, scorep, text, reference, json or jsonl", "the names for messages");
	int writers = 0;
	for (int i = 0; input_format_at(i); i++)
		writers += input_format_at(i)->write != NULL;
	is_int(writers, 4, "text, reference, json and jsonl have writers (export)");
	free(camp), free(db), free(sp), free(js), free(jl), free(raw), free(txt), free(none), free(ref);
}

int main(void)
{
	test_parse();
	test_usage();
	test_numbers();
	test_registry();
	return done_testing();
}
