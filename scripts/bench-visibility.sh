#!/bin/sh
# Reproduces the visibility figures of docs/PERFORMANCE.md: the home page
# and a profile of followers-only posts against the same pages of public
# posts and the static file, in one binary, ROUNDS rounds (default 9),
# each round running every case once, then each case's median and range.
# Usage: scripts/bench-visibility.sh [rounds]
set -eu
ROUNDS=${1:-9}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
go test -c -o "$WORK/web.test" ./internal/web
for round in $(seq "$ROUNDS"); do
	(cd internal/web && "$WORK/web.test" -test.run '^$' -test.bench 'BenchmarkVisibilityPages' -test.benchtime 1s) |
		grep '^Benchmark' | tee -a "$WORK/rounds"
done
echo
awk '{ print $1, $3 / 1000 }' "$WORK/rounds" | sort -k1,1 -k2,2g |
	awk '{ k = $1; v[k] = v[k] " " $2; n[k]++ }
	END { for (k in v) { split(substr(v[k], 2), a, " "); m = (n[k] % 2) ? a[(n[k]+1)/2] : (a[n[k]/2] + a[n[k]/2+1]) / 2
		printf "%-52s median %7.1f µs (%.1f–%.1f)\n", k, m, a[1], a[n[k]] } }' | sort
