#!/bin/sh
# Compares a Go benchmark of one package at two revisions: builds the
# test binary of each (from `git archive`, no worktree), runs them in
# interleaved rounds (old new old new …) from their package's folder,
# then prints each benchmark's median, range and new/old ratio.
# Usage: scripts/bench-go-ab.sh OLD-REV NEW-REV PACKAGE BENCH [rounds] [benchtime] [metric]
# e.g.   scripts/bench-go-ab.sh c25853c HEAD ./internal/web/parts 'BenchmarkPostHTML/template' 7 200000x
# metric is the unit compared (default ns/op, shown in µs), such as
# cpu-µs/op, which BenchmarkPages reports (the process's CPU time a
# request, steadier than the time on a machine others share).
# OVERLAY (in the environment: paths, space-separated) names files of
# NEW-REV copied over OLD-REV's before it is built, such as a benchmark
# that reports a metric the old revision's does not.
set -eu
OLD=$1 NEW=$2 PKG=$3 BENCH=$4 ROUNDS=${5:-5} TIME=${6:-1s} METRIC=${7:-ns/op}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for v in new old; do
	rev=$OLD; [ $v = new ] && rev=$NEW
	mkdir "$WORK/src-$v"
	git archive "$rev" | tar -x -C "$WORK/src-$v"
	if [ $v = old ]; then
		for f in ${OVERLAY:-}; do cp "$WORK/src-new/$f" "$WORK/src-old/$f"; done
	fi
	(cd "$WORK/src-$v" && go test -c -o "$WORK/$v.test" "$PKG")
done
for round in $(seq "$ROUNDS"); do
	for v in old new; do
		(cd "$WORK/src-$v/$PKG" && "$WORK/$v.test" -test.run '^$' -test.bench "$BENCH" -test.benchmem -test.benchtime "$TIME") |
			grep '^Benchmark' | sed "s/^/$v /" | tee -a "$WORK/rounds"
	done
done
echo
# name, then per version: median, min, max (µs); the ratio of the medians.
awk -v metric="$METRIC" '{ for (i = 3; i < NF; i++) if ($(i+1) == metric) print $2, $1, (metric == "ns/op" ? $i / 1000 : $i) }' "$WORK/rounds" |
	sort -k1,1 -k2,2 -k3,3g |
	awk -v metric="$METRIC" 'function flush() { if (n) { m = (n % 2) ? x[(n+1)/2] : (x[n/2] + x[n/2+1]) / 2; med[key] = m; lo[key] = x[1]; hi[key] = x[n] }; n = 0 }
	{ k = $1 " " $2; if (k != key) { flush(); key = k; names[$1] = 1 }; x[++n] = $3 }
	END { flush(); if (metric == "ns/op") metric = "µs"; for (b in names) printf "%-44s old %8.1f %s (%.1f–%.1f)  new %8.1f %s (%.1f–%.1f)  new/old %.2f\n", b,
		med[b " old"], metric, lo[b " old"], hi[b " old"], med[b " new"], metric, lo[b " new"], hi[b " new"], med[b " new"] / med[b " old"] }'
