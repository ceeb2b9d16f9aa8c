# Helpers for the refine tests (64-67): campaigns of tests/lib/noisy-app.sh,
# a program whose time and noise the test controls (see that file).
NOISY_APP=$ROOT/tests/lib/noisy-app.sh

# noisy_cfg FILE NAME STATE-DIR VALUES REPETITIONS [EXTRA-ENV [EXTRA-LINES]]
noisy_cfg() {
	mkdir -p "$3"
	: >> "$3/noise"
	cat > "$1" <<CFG
name = "$2";
app = { command = [ "$NOISY_APP", "{n}" ]; env = [ "NOISY_DIR=$3"$6 ]; };
parameters = ( { name = "n"; values = [ $4 ]; } );
repetitions = $5;
order_seed = 1;
collect = { wall = false; regex = ( { region = "main"; metric = "time"; pattern = "time ([0-9.]+)"; } ); };
# the program reports the time the test chose: how much CPU its shell got
# under load says nothing about it, so no run is left out as disturbed
analysis = { min_cpu_share = 0.0; };
$7
CFG
}

# executions STATE-DIR: "N:count" of every N executed, by N
executions() { sort -n "$1/log" | uniq -c | awk '{ printf "%s:%s ", $2, $1 }'; }
