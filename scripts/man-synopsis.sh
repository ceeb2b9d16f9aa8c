#!/usr/bin/env bash
# Write the commands' SYNOPSIS entries into docs/man/perfsweep.1 from the
# option rows (`perfsweep help --man`), between its two marker comments.
# tests/integration/16-usage.t fails when the page and the rows disagree.
#
#   scripts/man-synopsis.sh [PERFSWEEP]
set -euo pipefail
cd "$(dirname "$0")/.."
ps=${1:-bin/perfsweep}
page=docs/man/perfsweep.1
gen=$("$ps" help --man)
GEN=$gen perl -0pi -e '
	s{(\.\\" generated from the option rows[^\n]*\n).*?(\.\\" end of the generated synopsis\n)}{$1$ENV{GEN}\n$2}s
		or die "'"$page"': no generated synopsis markers\n"' "$page"
