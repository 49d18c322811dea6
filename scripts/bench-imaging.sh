#!/bin/sh
# Measures media processing (internal/media/imaging) in interleaved
# rounds (ROUNDS, default 5), each running every benchmark once, so that
# the load of a shared machine moves them alike: BenchmarkProcess4MP, a
# phone photo's 4 MP JPEG processed whole, and BenchmarkScale4MP, the
# resampling Process uses against CatmullRom. Prints each benchmark's
# median ms/op and spread (fastest–slowest).
# Usage: scripts/bench-imaging.sh (from the module's root)
set -eu
rounds=${ROUNDS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/retwis-bench-imaging.XXXXXX")
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/imaging.test" ./internal/media/imaging
for _ in $(seq "$rounds"); do
	(cd internal/media/imaging && "$work/imaging.test" -test.run '^$' -test.bench 4MP -test.benchtime 10x) |
		grep '^Benchmark' >>"$work/out"
done
awk '{ print $1, $3 }' "$work/out" | sort -k1,1 -k2n | awk '
	{ v[$1] = v[$1] " " $2 }
	END { for (k in v) { n = split(v[k], x, " "); printf "%-45s %8.1f ms (%.1f–%.1f)\n", k, x[int((n + 1) / 2)] / 1e6, x[1] / 1e6, x[n] / 1e6 } }' | sort
