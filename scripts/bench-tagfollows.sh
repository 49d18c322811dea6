#!/bin/sh
# What a followed tag adds to a post's delivery (issue 26):
# BenchmarkTaggedDelivery of internal/store/tagfollows in interleaved
# rounds (untagged, a tag nobody follows, a tag 100 others follow, and
# the same reach by following: an author of 120 followers; then again),
# each a worker draining a backlog of posts to 20 followers;
# prints each case's median, range and ratio to the untagged posts.
# Usage: scripts/bench-tagfollows.sh [rounds] [posts]
set -eu
ROUNDS=${1:-7} POSTS=${2:-2000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
go test -c -o "$WORK/t.test" ./internal/store/tagfollows
for round in $(seq "$ROUNDS"); do
	(cd internal/store/tagfollows && "$WORK/t.test" -test.run '^$' -test.bench TaggedDelivery -test.benchtime "${POSTS}x") |
		grep '^Benchmark' | tee -a "$WORK/rounds"
done
echo
awk '{ sub(/-[0-9]+$/, "", $1); sub(/.*\//, "", $1); print $1, $3 / 1000 }' "$WORK/rounds" | sort -k1,1 -k2,2g |
	awk 'function flush() { if (n) { med[key] = (n % 2) ? x[(n+1)/2] : (x[n/2] + x[n/2+1]) / 2; lo[key] = x[1]; hi[key] = x[n] }; n = 0 }
	{ if ($1 != key) { flush(); key = $1; order[++k] = $1 }; x[++n] = $2 }
	END { flush(); for (i = 1; i <= k; i++) { b = order[i]; printf "%-20s %8.1f µs a post (%.1f–%.1f)  %.2f× untagged\n", b, med[b], lo[b], hi[b], med[b] / med["untagged"] } }'
