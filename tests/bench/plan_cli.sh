#!/usr/bin/env bash
# `perfsweep plan` end to end on a 6-parameter campaign with 10 values each
# (a 10^6-point full factorial): config, dependency file, sparse design,
# cost model and budget.  Must stay well under one second; then the
# 10^6-point full design (below).
set -e
ROOT=${PERFSWEEP_ROOT:-$(pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/perfsweep-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
cat > "$T/six.cfg" <<CFG
name = "six";
app = { command = [ "app", "{a}", "{b}", "{c}", "{d}", "{e}" ]; };
parameters = (
  { name = "a"; values = [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ]; },
  { name = "b"; values = [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ]; },
  { name = "c"; values = [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ]; },
  { name = "d"; values = [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ]; },
  { name = "e"; values = [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ]; },
  { name = "p"; values = [ 16, 32, 48, 64, 80, 96, 112, 128, 144, 160 ]; role = "ranks"; }
);
repetitions = 5;
dependencies = "$ROOT/tests/data/designs/six.deps";
design = { strategy = "sparse"; };
cost_model = "1e-3 * a^2 * b / p + c + log2(d) + e";
budget = { core_hours = 100000.0; };
CFG
for s in sparse taint; do
	sed -i "s/strategy = \"[a-z]*\"/strategy = \"$s\"/" "$T/six.cfg"
	start=$(date +%s.%N)
	for i in 1 2 3 4 5; do "$ROOT/bin/perfsweep" plan "$T/six.cfg" --json > "$T/out.json"; done
	end=$(date +%s.%N)
	pts=$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); print "$j->{totals}{points} points, factorial $j->{full_factorial}{points}"' < "$T/out.json")
	perl -e "printf \"perfsweep plan --json, $s, 6 params x 10 values: $pts; %.1f ms per call\n\", ($end - $start) / 5 * 1000"
done
# worst case: all six parameters in one product term (one 6-parameter group)
sed -i -e 's|^dependencies = .*|dependencies = "'"$T"'/all.deps";|' -e 's/strategy = "[a-z]*"/strategy = "sparse"/' "$T/six.cfg"
printf 'parameters = ["a", "b", "c", "d", "e", "p"];\nfunctions = ( { name = "main"; deps = ( ["a", "b", "c", "d", "e", "p"] ); } );\n' > "$T/all.deps"
start=$(date +%s.%N)
for i in 1 2 3 4 5; do "$ROOT/bin/perfsweep" plan "$T/six.cfg" --json > "$T/out.json"; done
end=$(date +%s.%N)
pts=$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); print "$j->{totals}{points} points, factorial $j->{full_factorial}{points}"' < "$T/out.json")
perl -e "printf \"perfsweep plan --json, sparse, one 6-parameter group: $pts; %.1f ms per call\n\", ($end - $start) / 5 * 1000"
# A 10^6-point full design: elapsed seconds and peak RSS (GNU time) of
# `plan`, `plan --summary` and `plan --json` with a budget that drops
# points, and of `plan --json` with none.  Targets: < 2 s and < 300 MB,
# < 1 s, and < 100 MB for --json (its points streamed).
sed -i -e 's/strategy = "[a-z]*"/strategy = "full"/' -e '/^dependencies = /d' \
	-e 's/core_hours = [0-9.]*/core_hours = 10000.0/' "$T/six.cfg"
sed '/^budget = /d' "$T/six.cfg" > "$T/whole.cfg"
measure() {     # measure WHAT CONFIG ARGS...: one line, "WHAT: S s, M MB peak"
	local what=$1; shift
	/usr/bin/time -f "%e %M" -o "$T/time" "$ROOT/bin/perfsweep" plan "$@" > "$T/out.txt"
	read -r secs kb < "$T/time"
	echo "$what: $secs s, $((kb / 1024)) MB peak"
}
"$ROOT/bin/perfsweep" plan "$T/six.cfg" --summary > "$T/sum.txt"
dropped=$(sed -n 's/.*dropped \([0-9]*\) optional.*/\1/p' "$T/sum.txt")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
measure "perfsweep plan, full design of 10^6 points over budget ($dropped dropped)" "$T/six.cfg"
measure "perfsweep plan --summary, the same" "$T/six.cfg" --summary
measure "perfsweep plan --json, the same" "$T/six.cfg" --json
measure "perfsweep plan --json, 10^6 points, no budget" "$T/whole.cfg" --json
