# Sourced by the SLURM benches and 79-slurm-poll-scale.t: a campaign of
# RUNS runs of /bin/true with nothing collected, so that what is measured
# is perfsweep and the controller, not the program.
# true_campaign_cfg FILE NAME RUNS BACKEND: write it to FILE; BACKEND is
# the rest of its backend group, e.g. 'partition = "emu"; max_inflight = 64;'
true_campaign_cfg() {
	cat >"$1" <<CFG
name = "$2";
app = { command = [ "/bin/true", "{i}" ]; };
parameters = ( { name = "i"; values = [ 1 ]; } );
repetitions = $3;
max_attempts = 1;
backend = { type = "slurm"; $4 };
collect = { wall = false; };
CFG
}
