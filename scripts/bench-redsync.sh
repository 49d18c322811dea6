#!/bin/sh
# redlock against go-redsync (bench/redsync): every row of issue 24 (serial
# p50 and p99, parallel ops/s, on 1 and 5 instances) for go-redsync,
# redlock with fencing and redlock without (NoFencing), in interleaved
# rounds: each round runs every row once per library, in an order that
# rotates from round to round, each run a fresh process on fresh
# redis-servers. It prints, per row and library, the median of the rounds,
# their range and the ratio of the medians to go-redsync's, then the costs
# of an operation (CPU of the client process and of the redis-servers,
# the servers' socket reads).
# With BASE=<revision>, redlock of that revision runs too (same benchmark
# code), as "base" and "base-nofence": the before of a change.
# With OUT=<file>, the raw benchmark lines are kept there.
# Usage: scripts/bench-redsync.sh [rounds] [benchtime]   (about 15 s a round)
# e.g.   BASE=31f32c5 scripts/bench-redsync.sh 7
set -eu
ROUNDS=${1:-5}
BENCHTIME=${2:-1s}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$ROOT/bench/redsync" && go test -c -o "$WORK/now.test" .)
LIBS="redsync redlock redlock-nofence"
if [ -n "${BASE:-}" ]; then
	git -C "$ROOT" worktree add -q --detach "$WORK/base" "$BASE"
	cp "$ROOT"/bench/redsync/*.go "$ROOT"/bench/redsync/go.mod "$ROOT"/bench/redsync/go.sum "$WORK/base/bench/redsync/"
	(cd "$WORK/base/bench/redsync" && go test -c -o "$WORK/base.test" .)
	git -C "$ROOT" worktree remove --force "$WORK/base"
	LIBS="$LIBS base base-nofence"
fi
set -- $LIBS
for round in $(seq "$ROUNDS"); do
	# rotate the libraries' order by one each round
	i=0
	while [ $i -lt $(((round - 1) % $#)) ]; do set -- "$@" "$1"; shift; i=$((i + 1)); done
	for row in 1/serial 1/parallel 5/serial 5/parallel; do
		for lib in "$@"; do
			bin=now name=$lib
			case $lib in base*) bin=base name=redlock${lib#base} ;; esac
			"$WORK/$bin.test" -test.run '^$' -test.benchtime "$BENCHTIME" \
				-test.bench "^BenchmarkCompare\$/^$name-${row%/*}\$/^${row#*/}\$" |
				grep '^BenchmarkCompare' | sed "s|^BenchmarkCompare/$name-|$lib-|" >> "$WORK/out"
		done
	done
	echo "round $round of $ROUNDS done" >&2
done
[ -z "${OUT:-}" ] || cp "$WORK/out" "$OUT"
# Lines: <lib>-<n>/<mode>-<procs> <iterations> <value> <unit> ...
awk -v libs="$LIBS" '
function num(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
function median(key,   n, i, j, t, a) {
	n = split(vals[key], a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	lo[key] = a[1]; hi[key] = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	split($1, p, "/"); lib = p[1]; sub(/-[0-9]+$/, "", lib); n = p[1]; sub(/.*-/, "", n)
	mode = p[2]; sub(/-[0-9]+$/, "", mode)
	for (i = 3; i < NF; i += 2) { k = lib SUBSEP n SUBSEP mode SUBSEP $(i+1); vals[k] = vals[k] " " $i }
}
END {
	nl = split(libs, L, " ")
	split("1 serial p50-µs|1 serial p99-µs|1 serial go-cpu-µs/op|1 serial redis-cpu-µs/op|1 serial redis-reads/op|" \
		"1 parallel ops/s|1 parallel go-cpu-µs/op|1 parallel redis-cpu-µs/op|1 parallel redis-reads/op|" \
		"5 serial p50-µs|5 serial p99-µs|5 serial go-cpu-µs/op|5 serial redis-cpu-µs/op|5 serial redis-reads/op|" \
		"5 parallel ops/s|5 parallel go-cpu-µs/op|5 parallel redis-cpu-µs/op|5 parallel redis-reads/op", rows, "|")
	printf "%-30s", "median [range] x redsync"
	for (l = 1; l <= nl; l++) printf " %-28s", L[l]
	print ""
	for (r = 1; r in rows; r++) {
		split(rows[r], q, " ")
		printf "%-30s", q[1] " " q[2] " " q[3]
		base = median("redsync" SUBSEP q[1] SUBSEP q[2] SUBSEP q[3])
		for (l = 1; l <= nl; l++) {
			k = L[l] SUBSEP q[1] SUBSEP q[2] SUBSEP q[3]
			if (!(k in vals)) { printf " %-28s", "-"; continue }
			m = median(k)
			printf " %-28s", sprintf("%s [%s-%s] %.2fx", num(m), num(lo[k]), num(hi[k]), base ? m / base : 0)
		}
		print ""
	}
}' "$WORK/out"
