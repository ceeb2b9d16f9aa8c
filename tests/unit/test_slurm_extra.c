/* The slurm backend's `extra` options, checked without a cluster. */
#include "orchestrator/slurm/slurm_extra.h"
#include "tests/lib/tap.h"

static int check(const char *opt, struct perr *err)
{
	char *v[] = { (char *)opt };
	err->msg[0] = '\0';
	return slurm_extra_check(1, v, err);
}

int main(void)
{
	struct perr err;
	static const char *const good[] = {
		"--constraint=haswell", "--reservation=maint", "--exclude=n[1-2]", "--nodelist=n3",
		"--mem=4G", "--mem=512", "--mem=100K", "--mem-per-cpu=2g", "--mem=1T", "--gres=gpu:2,nic:1",
		"--licenses=fluent:2", "--cpus-per-task=4", "--wckey=w", "--nice=-5", "--nice=10",
		"--requeue", "--no-requeue",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		is_int(check(good[i], &err), 0, "accepted: %s %s", good[i], err.msg);
	static const struct { const char *opt, *msg; } bad[] = {
		{ "--mem=-4", "bad memory size in slurm extra option '--mem=-4'" },
		{ "--mem=4X", "bad memory size in slurm extra option '--mem=4X'" },
		{ "--mem=99999999999999999999", "bad memory size" },
		{ "--mem=", "slurm extra option '--mem=' needs a value" },
		{ "--mem", "slurm extra option '--mem' needs a value" },
		{ "--cpus-per-task=0", "bad number in slurm extra option '--cpus-per-task=0'" },
		{ "--cpus-per-task=2x", "bad number" },
		{ "--nice=99999999999", "bad number" },
		{ "--requeue=1", "slurm extra option '--requeue=1' takes no value" },
		{ "-C haswell", "unsupported slurm extra option '-C haswell': write long options as --name=value" },
		{ "--frobnicate=1", "unsupported slurm extra option '--frobnicate=1' (supported: --constraint" },
		{ "--account=x", "unsupported slurm extra option '--account=x'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		is_int(check(bad[i].opt, &err), -1, "refused: %s", bad[i].opt);
		contains(err.msg, bad[i].msg, "message for %s", bad[i].opt);
	}
	char *several[] = { "--mem=1G", "--bogus" };
	is_int(slurm_extra_check(2, several, &err), -1, "the first bad option of several is named");
	contains(err.msg, "'--bogus'", "it is the second one");
	is_int(slurm_extra_check(0, NULL, &err), 0, "no options is fine");
	return done_testing();
}
