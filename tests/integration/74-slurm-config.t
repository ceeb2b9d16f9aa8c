#!/usr/bin/env bash
# The slurm backend's configuration errors, no cluster needed: bad extra
# options at config load (FILE:LINE), a missing or unparsable slurm.conf
# before libslurm could exit the process, and before a store is written.
. "$(dirname "$0")/../lib/tap.sh"

cfg() {
	cat >"$T/$1.cfg" <<CFG
name = "$1";
app = { command = [ "/bin/true" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; } );
backend = { type = "slurm";
  extra = [ "--mem=4G",
            $2 ]; };
CFG
}

cfg badx '"--frob=1"'
out=$("$PS" plan "$T/badx.cfg" 2>&1); rc=$?
is "$rc" 2 "plan refuses an unsupported extra option"
like "$out" "error: $T/badx.cfg:5: unsupported slurm extra option '--frob=1' (supported: --constraint" "with FILE:LINE and the supported list"
cfg badmem '"--mem=-4"'
out=$("$PS" plan "$T/badmem.cfg" 2>&1); rc=$?
is "$rc" 2 "plan refuses a negative --mem"
like "$out" "bad memory size in slurm extra option '--mem=-4'" "and says why"
cfg good '"--constraint=haswell"'
"$PS" plan "$T/good.cfg" >/dev/null 2>&1; is "$?" 0 "supported options pass"

out=$(SLURM_CONF=$T/missing.conf "$PS" run "$T/good.cfg" --dir "$T/c1" 2>&1); rc=$?
is "$rc" 2 "run with SLURM_CONF naming a missing file exits 2"
like "$out" "slurm config '$T/missing.conf' (from SLURM_CONF) does not exist" "and names the file"
ok $([ ! -e "$T/c1/campaign.db" ]; echo $?) "before it writes a store"
if [ ! -e /etc/slurm/slurm.conf ]; then
	out=$(env -u SLURM_CONF "$PS" run "$T/good.cfg" --dir "$T/c2" 2>&1); rc=$?
	is "$rc" 2 "run without SLURM_CONF and /etc/slurm/slurm.conf exits 2"
	like "$out" "no slurm config: SLURM_CONF is unset and '/etc/slurm/slurm.conf' does not exist" "and says what to set"
fi
printf 'ClusterName=x\nNoSuchKey=1\n' >"$T/bad.conf"
out=$(SLURM_CONF=$T/bad.conf "$PS" run "$T/good.cfg" --dir "$T/c3" 2>&1); rc=$?
is "$rc" 2 "run with an unparsable slurm.conf exits 2, libslurm does not exit it"
like "$out" "cannot read slurm config '$T/bad.conf': " "and quotes libslurm"
# a SLURM campaign with nothing in flight: run no longer creates one it
# cannot run, so its runs are made locally and the store says slurm
sed '/^backend/,/\]; };/d' "$T/good.cfg" > "$T/local.cfg"
"$PS" run "$T/local.cfg" --dir "$T/c4" --quiet > /dev/null 2>&1; is $? 0 "the campaign's runs are done"
sqlite3 "$T/c4/campaign.db" "UPDATE meta SET value = 'slurm' WHERE key = 'backend'"
out=$(SLURM_CONF=$T/missing.conf "$PS" cancel "$T/c4" 2>&1); rc=$?
is "$rc" 0 "cancel of a campaign with nothing in flight needs no slurm"
# the quiet gate is the local backend's: refused on SLURM when the plan is built, in the config
# (FILE:LINE) and on the command line
cat > "$T/wq.cfg" <<CFG
name = "wq";
app = { command = [ "/bin/true" ]; };
parameters = ( { name = "n"; values = [ 1, 2 ]; } );
backend = { type = "slurm";
  wait_quiet = 30; };
CFG
out=$("$PS" plan "$T/wq.cfg" 2>&1); rc=$?
is "$rc" 2 "plan refuses backend.wait_quiet on SLURM"
like "$out" "$T/wq.cfg:5: backend.wait_quiet is the local backend's quiet gate; on SLURM ask for an exclusive node" "at its line, saying what to do"
out=$("$PS" run "$T/good.cfg" --dir "$T/wq2" --wait-quiet 30 2>&1); rc=$?
is "$rc" 2 "run --wait-quiet on a SLURM campaign is refused"
like "$out" "ask for an exclusive node" "saying what to do"
[ ! -e "$T/wq2/campaign.db" ]; ok $? "before a store is written"

done_testing
