#!/bin/sh
# hpcc-run.sh MIB RANKS [NB]: run one HPC Challenge (Debian's hpcc) rank with a
# problem sized so that every rank's STREAM arrays take MIB MiB, whatever
# the number of ranks.  Started once per rank (srun, perfsweep-bind), in the
# run directory.
#
# HPCC reads hpccinf.txt from the working directory and derives every size
# from HPL's matrix order N and the process grid P x Q (HPCC 1.5.0, io.c and
# STREAM/stream.c):
#   memory per rank     M = 8 N^2 / (P Q) bytes (HPLMaxProcMem)
#   STREAM vector       L = M / 8 / 3 doubles (3 vectors)   -> 3 L 8 = M bytes
#   DGEMM order         n = floor(sqrt(L))
# so N = sqrt(MIB * 2^20 * RANKS / 8) keeps M = MIB MiB per rank at any rank
# count.  The grid is 1 x RANKS: P x Q must equal the number of ranks, or
# HPL is skipped.  HPCC writes its results to hpccoutf.txt.
#
# After hpcc, rank 0 appends the seconds of one triad pass (24 L bytes at
# the StarSTREAM_Triad rate) and of one DGEMM (2 n^3 flops at the
# StarDGEMM_Gflops rate) to its stdout, as "stream_triad_time: S" and
# "dgemm_time: S": HPCC reports only rates, and the validator expects
# measurements that grow when the machine gets slower.
set -eu
[ $# -ge 2 ] || { echo "usage: hpcc-run.sh MIB RANKS [NB]" >&2; exit 2; }
mib=$1 ranks=$2 nb=${3:-80}
HPCC=${HPCC:-hpcc}
n=$(awk -v m="$mib" -v p="$ranks" 'BEGIN { printf "%d", sqrt(m * 1048576 * p / 8) }')
rank=${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}}
# Every rank writes the same file: through a private name and an atomic
# rename, so that no rank ever reads a partial one.
tmp=hpccinf.txt.$rank.$$
cat >"$tmp" <<INF
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$n         Ns
1            # of NBs
$nb           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
$ranks            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
INF
mv -f "$tmp" hpccinf.txt
# An earlier attempt's results must not be read as this one's (HPCC appends).
[ "$rank" != 0 ] || rm -f hpccoutf.txt
# The rank's own view of its binding, for the reader (and the tests).
cpus=$(awk '$1 == "Cpus_allowed_list:" { print $2 }' /proc/self/status)
echo "hpcc-run: N=$n NB=$nb grid 1x$ranks, rank $rank, cpus $cpus"
rc=0
"$HPCC" || rc=$?
if [ "$rank" = 0 ] && [ -f hpccoutf.txt ]; then
	awk -F= '$1 == "STREAM_VectorSize" { l = $2 } $1 == "StarSTREAM_Triad" { t = $2 }
		 $1 == "DGEMM_N" { n = $2 } $1 == "StarDGEMM_Gflops" { g = $2 }
		 END {
			if (l > 0 && t > 0) printf "stream_triad_time: %.9g\n", 24 * l / (t * 1e9)
			if (n > 0 && g > 0) printf "dgemm_time: %.9g\n", 2 * n * n * n / (g * 1e9)
		 }' hpccoutf.txt
fi
exit $rc
