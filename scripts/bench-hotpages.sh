#!/bin/sh
# The hot pages (home, profile, global timeline) against retwis's own
# static route, for this tree and a revision beside it: scripts/bench-php.sh
# with retwis alone (NO_PHP=1), then the server's CPU per request of each
# page in the first round, from its CPU profile (total samples over
# requests served), which the machine's other load moves much less than
# req/s. Compare the ratios and the CPU within one run.
#
# Usage: scripts/bench-hotpages.sh BEFORE [rounds] [seconds]
#   BEFORE      the revision measured beside the tree (e.g. HEAD~3)
#   PHP_RETWIS  as for bench-php.sh (the database is written in its layout)
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BEFORE [rounds] [seconds]" >&2; exit 2; }
REPO=$(cd "$(dirname "$0")/.." && pwd)
D=${3:-10}
PROF=$(mktemp -d "${TMPDIR:-/tmp}/bench-hotpages.XXXXXX")
OUT=$PROF/out.txt
BEFORE=$1 NO_PHP=1 SCENARIOS="static home profile global" PROFILE=$PROF \
	sh "$REPO/scripts/bench-php.sh" "${2:-3}" "$D" | tee "$OUT"
echo "server CPU per request in round 1 (profiled), us:"
for sc in static home profile global; do
	line=$sc
	for t in before after; do
		total=$(go tool pprof -top "$PROF/$t-$sc.pprof" 2>/dev/null | sed -n 's/.*Total samples = \([0-9.]*\)\(m*\)s.*/\1 \2/p')
		secs=$(echo "$total" | awk '{ print ($2 == "m") ? $1 / 1000 : $1 }')
		rps=$(awk -v t="$t" -v sc="$sc" '$1 == t && $2 == sc { print $3; exit }' "$OUT")
		line="$line $t $(echo "$secs * 1000000 / ($rps * $D)" | bc -l | xargs printf '%.1f')"
	done
	echo "  $line"
done
echo "profiles: $PROF"
