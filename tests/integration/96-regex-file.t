#!/usr/bin/env bash
# Regex collectors over a named file of the run directory (`file = "..."`),
# a missing file as a collection error, and the config checks of `file` and
# `backend.mpi` (FILE:LINE, exit 2).
. "$(dirname "$0")/../lib/tap.sh"

# The program writes result.txt (value 3 * n, twice: the last one counts)
# except for n = 4, where it writes nothing: known values, one missing file.
cat > "$T/app.sh" <<'SH'
#!/bin/sh
echo "stdout: $1"
[ "$1" = 4 ] && exit 0
mkdir -p out
printf 'gflops=%s\nnoise\ngflops=%s\n' "$(($1 * 2))" "$(($1 * 3))" > out/result.txt
SH
chmod +x "$T/app.sh"
cat > "$T/f.cfg" <<CFG
name = "f";
app = { command = [ "$T/app.sh", "{n}" ]; };
parameters = ( { name = "n"; values = [ 1, 2, 4 ]; } );
repetitions = 1;
order = "grouped";   # run ids follow n: the problems list n = 1, 2 before n = 4
max_attempts = 1;
collect = {
  wall = false;
  regex = (
    { region = "k"; metric = "gflops"; file = "out/result.txt"; pattern = "gflops=([0-9]+)"; },
    { region = "s"; metric = "n"; pattern = "stdout: ([0-9]+)"; }
  );
};
CFG
"$PS" run "$T/f.cfg" --quiet > "$T/out" 2>&1; is $? 1 "a campaign with file collectors runs (exit 1: one run lacks the file)"
like "$(cat "$T/out")" "collector regex k/gflops matched nothing in 1 of 3 done runs" "the summary names the collector"
"$PS" export "$T/f.campaign" --format csv > "$T/csv"
is "$(grep '"k",gflops' "$T/csv" | cut -d, -f3-9 | sort | tr '\n' ' ')" \
   "1,0,0,0,\"k\",gflops,3 2,0,0,0,\"k\",gflops,6 " "values come from the named file (last match, rank 0)"
is "$(grep -c '"s",n' "$T/csv")" 3 "stream patterns still read stdout"
"$PS" status "$T/f.campaign" --json > "$T/st.json"
is "$(json "$T/st.json" '$j->{collection_errors}')" 1 "the run without the file has a collection error"
like "$(json "$T/st.json" '$j->{problems}[0]{collect_error}')" "k/gflops: file 'out/result.txt' is missing in the run directory" \
	"which names the missing file"
is "$(grep -c ',4,.*"k"' "$T/csv")" 0 "no value is invented for it"

# A file that exists but never matches: the pattern's usual error, naming the file.
sed -e 's/name = "f"/name = "g"/' -e 's/gflops=(/GFLOPS=(/' "$T/f.cfg" > "$T/g.cfg"
"$PS" run "$T/g.cfg" --quiet > /dev/null 2>&1
"$PS" status "$T/g.campaign" --json > "$T/st.json"
like "$(json "$T/st.json" '$j->{problems}[0]{collect_error}')" "pattern for k/gflops never matched out/result.txt" \
	"a pattern that never matches names the file"

# Config checks: one line, FILE:LINE, exit 2.
check() {  # check LABEL LINE EXPECTED-TEXT CONFIG-TEXT
	printf '%s\n' "$4" > "$T/bad.cfg"
	out=$("$PS" plan "$T/bad.cfg" 2>&1); rc=$?
	is "$rc" 2 "$1: exit 2"
	like "$out" "$T/bad.cfg:$2: " "$1: names file and line $2"
	like "$out" "$3" "$1: says what is wrong"
	is "$(echo "$out" | wc -l)" 1 "$1: one line"
}
H='name = "t";
app = { command = [ "/bin/true" ]; };
parameters = ( { name = "n"; values = [ 1 ]; } );'
rx() { printf '%s\ncollect = { regex = (\n { region = "r"; pattern = "r=([0-9]+)"; %s } ); };' "$H" "$1"; }
check "absolute file" 5 "file must be relative to the run directory" "$(rx 'file = "/etc/passwd";')"
check "file outside the run directory" 5 "no '..'" "$(rx 'file = "a/../../x";')"
check "file with a newline" 5 "control character" "$(rx 'file = "a\nb";')"
check "file and stream" 5 "either a stream or a file" "$(rx 'file = "x"; stream = "stdout";')"
mpi() { printf '%s\nbackend = { type = "slurm";\n  mpi = %s; };' "$H" "$1"; }
check "mpi with a space" 5 "backend.mpi must be an srun MPI plugin name" "$(mpi '"pmix --x"')"
check "mpi with a newline" 5 "'mpi' contains a control character" "$(mpi '"pmix\nsleep 1"')"
check "mpi as an option" 5 "backend.mpi must be" "$(mpi '"-x"')"
check "mpi not a string" 5 "mpi" "$(mpi '3')"
printf '%s\nbackend = { type = "slurm"; mpi = "pmix_v4"; };\n' "$H" > "$T/ok.cfg"
"$PS" plan "$T/ok.cfg" > /dev/null 2>&1; is $? 0 "backend.mpi = \"pmix_v4\" is accepted"
done_testing
