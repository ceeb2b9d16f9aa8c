#!/bin/bash
# perfsweep topo: this machine, synthetic descriptions, XML exports, a
# config's `topology` setting, per-rank placements, and the errors.
. "$(dirname "$0")/../lib/tap.sh"
unset HWLOC_XMLFILE HWLOC_SYNTHETIC HWLOC_THISSYSTEM
# a small valid campaign config with extra lines ($1)
cfg() { printf 'name = "t";\napp = { command = [ "true" ]; };\nparameters = ( { name = "n"; values = [ 1, 2 ]; } );\n%s\n' "$1"; }

"$PS" topo >"$T/host" 2>"$T/err"
ok $? "topo on this machine exits 0"
grep -q '^topology:   this machine' "$T/host"; ok $? "names this machine"
cores=$(sed -n 's/^cores: *//p' "$T/host")
is "$cores" "$(lstopo-no-graphics --only core 2>/dev/null | wc -l)" "core count agrees with lstopo"

TWO="pack:2 numa:1 core:18 pu:1"
"$PS" topo --topology "$TWO" >"$T/two"
ok $? "synthetic topology"
cat >"$T/two.want" <<'W'
topology:   synthetic "pack:2 numa:1 core:18 pu:1"
packages:   2
numa nodes: 2
cores:      36
pus:        36
package 0:  numa 0, cores 0-17, pus 0-17
package 1:  numa 1, cores 18-35, pus 18-35
W
is "$(cat "$T/two")" "$(cat "$T/two.want")" "synthetic 2x18 summary"

"$PS" topo --topology "$TWO" --policy compact --ranks-per-node 5 --cores-per-rank all >"$T/p5"
ok $? "placement of 5 ranks"
is "$(grep '^rank' "$T/p5" | sed 's/.*pus //' | tr '\n' ' ')" "0-5 6-11 12-17 18-26 27-35 " \
	"5 ranks sharing 2x18 cores: the split hwloc_distrib gives"
"$PS" topo -t "$TWO" -p spread -r 4 >"$T/s4"
is "$(grep '^rank' "$T/s4" | sed 's/.*cores \([^,]*\),.*/\1/' | tr '\n' ' ')" "0 18 1 19 " \
	"spread: 4 ranks alternate packages"

# --json: the same as one object
"$PS" topo -t "$TWO" -p spread -r 5 -c all --json >"$T/j"
ok $? "--json exits 0"
is "$(json "$T/j" '$j->{cores} . " " . $j->{packages} . " " . $j->{kind}')" "36 2 synthetic" "--json summary"
is "$(json "$T/j" '$j->{package_list}[1]{pus}')" "18-35" "--json package 1 PUs"
is "$(json "$T/j" 'join " ", map { $_->{cpuset} } @{$j->{placement}{ranks}}')" "0-5 18-26 6-11 27-35 12-17" \
	"--json placement: spread blocks of 5 ranks"
is "$(json "$T/j" '$j->{placement}{cores_per_rank}')" "all" "--json cores per rank"

# an XML export, named by a config's topology setting relative to the config
lstopo-no-graphics --input "pack:2 numa:2 core:3 pu:2" --of xml >"$T/m.xml" 2>/dev/null
mkdir "$T/c" && mv "$T/m.xml" "$T/c/"
cfg 'topology = "m.xml";' >"$T/c/campaign.cfg"
(cd / && "$PS" topo "$T/c/campaign.cfg") >"$T/x"
ok $? "config with an XML topology"
grep -q "^topology:   xml '$T/c/m.xml'" "$T/x"; ok $? "XML path resolved against the config's directory"
grep -q '^package 1:  numa 2-3, cores 6-11, pus 12-23$' "$T/x"; ok $? "XML package line"
cfg "topology = \"$TWO\";" >"$T/syn.cfg"
"$PS" topo "$T/syn.cfg" | grep -q '^cores:      36$'; ok $? "config with a synthetic topology"
"$PS" topo "$T/syn.cfg" --topology "pack:1 numa:1 core:4 pu:1" | grep -q '^cores:      4$'
ok $? "--topology wins over the config"

printf '0-3\n18-21\n' >"$T/ok.map"
"$PS" topo -t "$TWO" --map "$T/ok.map" >"$T/m"
ok $? "explicit map"
grep -q '^rank 1:     cores 18-21, pus 18-21$' "$T/m"; ok $? "explicit rank 1"

err() { # name code message args...
	local name=$1 code=$2 want=$3; shift 3
	"$PS" topo "$@" >"$T/out" 2>"$T/err"
	is "$?" "$code" "$name: exit $code"
	grep -qF -- "$want" "$T/err"; ok $? "$name: says '$want'"
	is "$(cat "$T/out")" "" "$name: nothing on stdout"
}
err "bad synthetic" 2 "error: invalid synthetic topology 'pack:2 foo:1'" -t "pack:2 foo:1"
err "missing XML" 2 "error: cannot read topology file '$T/none.xml'" -t "$T/none.xml"
err "too many ranks" 2 "error: 37 ranks need 37 cores, but the topology has 36 usable cores" -t "$TWO" -p compact -r 37
printf '0-3\n3\n' >"$T/over.map"
err "overlapping map" 2 "error: the core sets of ranks 0 and 1 overlap at core 3" -t "$TWO" --map "$T/over.map"
printf '0\n36\n' >"$T/miss.map"
err "missing core" 2 "error: the core set of rank 1 names core 36, which does not exist (cores are 0-35)" -t "$TWO" --map "$T/miss.map"
err "policy without ranks" 2 "error: --policy needs --ranks-per-node" -p spread
err "explicit without map" 2 "error: the explicit policy needs --map FILE" -p explicit -r 2
err "cores per rank with a map" 2 "error: --cores-per-rank does not apply to an explicit map" -t "$TWO" --map "$T/ok.map" -c 2
err "unknown option" 2 "error: unknown option '--frobnicate'" --frobnicate
cfg 'topology = 3;' >"$T/bad.cfg"
err "non-string topology" 2 "$T/bad.cfg:4: 'topology' must be a string" "$T/bad.cfg"
cfg 'topology = "x' >"$T/broken.cfg"
err "broken config" 2 "error: $T/broken.cfg:" "$T/broken.cfg"
grep -q "syntax error" "$T/err"; ok $? "broken config: a syntax error"
cfg 'topology = "pack:2 numa:1 core:18 pu:1";
topologie = 1;' >"$T/typo.cfg"
err "config the campaign loader refuses" 2 "$T/typo.cfg:5:" "$T/typo.cfg"
cfg 'topology = "pack:2 numa:1 core:18 pu:1";
budget = { core_hours = 5.0; };' >"$T/nocost.cfg"
err "a budget without a cost model, checked by every reader of the config" 2 \
	"$T/nocost.cfg:5: a budget needs a cost model to price runs" "$T/nocost.cfg"
err "missing config" 2 "cannot read config '$T/nope.cfg'" "$T/nope.cfg"

done_testing
