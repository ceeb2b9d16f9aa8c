#!/usr/bin/env bash
# Install the Debian packages perfsweep needs, only those that are missing:
# the build, SLURM and munge for the test cluster, Open MPI and HPCC for the
# MPI campaign (configs/hpcc-slurm.cfg), mandoc and man-db for the man pages,
# the sqlite3 shell the tests read stores with.
# As root it runs apt-get; otherwise it prints the exact command and stops.
set -euo pipefail

PKGS=(build-essential pkg-config perl
      libslurm-dev slurmctld slurmd slurm-client munge libmunge-dev
      libhwloc-dev hwloc libgsl-dev libconfig-dev libncurses-dev
      libsqlite3-dev sqlite3 libjansson-dev libpcre2-dev libxml2-dev zlib1g-dev gnuplot-nox tmux universal-ctags
      openmpi-bin libopenmpi-dev hpcc mandoc man-db)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "perfsweep needs these Debian packages: ${missing[*]}" >&2
	echo "run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd >/dev/null
