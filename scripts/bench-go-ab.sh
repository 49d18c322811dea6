#!/bin/sh
# Compares a Go benchmark of one package at two revisions: builds the
# test binary of each (from `git archive`, no worktree), runs them in
# interleaved rounds (old new old new …) from their package's folder,
# then prints each benchmark's median, range and new/old ratio.
# Usage: scripts/bench-go-ab.sh OLD-REV NEW-REV PACKAGE BENCH [rounds] [benchtime]
# e.g.   scripts/bench-go-ab.sh c25853c HEAD ./internal/web/parts 'BenchmarkPostHTML/template' 7 200000x
set -eu
OLD=$1 NEW=$2 PKG=$3 BENCH=$4 ROUNDS=${5:-5} TIME=${6:-1s}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for v in old new; do
	rev=$OLD; [ $v = new ] && rev=$NEW
	mkdir "$WORK/src-$v"
	git archive "$rev" | tar -x -C "$WORK/src-$v"
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
awk '{ for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") print $2, $1, $i / 1000 }' "$WORK/rounds" | sort -k1,1 -k2,2 -k3,3g |
	awk 'function flush() { if (n) { m = (n % 2) ? x[(n+1)/2] : (x[n/2] + x[n/2+1]) / 2; med[key] = m; lo[key] = x[1]; hi[key] = x[n] }; n = 0 }
	{ k = $1 " " $2; if (k != key) { flush(); key = k; names[$1] = 1 }; x[++n] = $3 }
	END { flush(); for (b in names) printf "%-44s old %8.1f µs (%.1f–%.1f)  new %8.1f µs (%.1f–%.1f)  new/old %.2f\n", b,
		med[b " old"], lo[b " old"], hi[b " old"], med[b " new"], lo[b " new"], hi[b " new"], med[b " new"] / med[b " old"] }'
