#!/bin/sh
# The cost of filters: the API's home timeline (BenchmarkFilteredHomeTimeline)
# and the home page (BenchmarkFilteredHome) for a reader without filters
# and one with three, on the same server. Builds both test binaries once,
# then runs rounds, each round the two readers in turn (unfiltered,
# filtered, unfiltered, filtered…), and prints each one's median and range
# and the filtered/unfiltered ratio of the medians.
# Usage: scripts/bench-filters.sh [rounds] [benchtime]
set -eu
ROUNDS=${1:-5} TIME=${2:-2s}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
go test -c -o "$WORK/api.test" ./internal/api
go test -c -o "$WORK/web.test" ./internal/web
for round in $(seq "$ROUNDS"); do
	for pkg in api web; do
		bench=BenchmarkFilteredHomeTimeline; [ $pkg = web ] && bench=BenchmarkFilteredHome
		(cd "internal/$pkg" && "$WORK/$pkg.test" -test.run '^$' -test.bench "^$bench\$" -test.benchtime "$TIME") |
			grep '^Benchmark' | tee -a "$WORK/rounds"
	done
done
echo
# name, then per reader: median, min, max (µs); the ratio of the medians.
awk '{ split($1, p, "/"); sub(/-[0-9]+$/, "", p[2]); print p[1], p[2], $3 / 1000 }' "$WORK/rounds" |
	sort -k1,1 -k2,2 -k3,3g |
	awk 'function flush() { if (n) { m = (n % 2) ? x[(n+1)/2] : (x[n/2] + x[n/2+1]) / 2; med[key] = m; lo[key] = x[1]; hi[key] = x[n] }; n = 0 }
	{ k = $1 " " $2; if (k != key) { flush(); key = k; names[$1] = 1 }; x[++n] = $3 }
	END { flush(); for (b in names) printf "%-32s unfiltered %8.1f µs (%.1f–%.1f)  filtered %8.1f µs (%.1f–%.1f)  filtered/unfiltered %.2f\n", b,
		med[b " unfiltered"], lo[b " unfiltered"], hi[b " unfiltered"], med[b " filtered"], lo[b " filtered"], hi[b " filtered"], med[b " filtered"] / med[b " unfiltered"] }'
