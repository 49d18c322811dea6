#!/bin/sh
# Measures the upload of a 4 MP photo to ready (media.BenchmarkUpload4MP:
# the processing alone, the whole path one at a time, and as many at
# once as the pool takes) and Redis's memory per attachment
# (BenchmarkRecordMemory, 10,000 of them), ROUNDS times from one test
# binary, the three kinds of upload interleaved in each round; prints
# each round's lines, then the medians with their range of ms/upload,
# cpu-ms/upload and uploads/s, and the ratio of the whole path to the
# processing alone.
# Usage: scripts/bench-upload.sh [rounds] [uploads per kind and round]
set -eu
ROUNDS=${1:-5}
N=${2:-8}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go test -c -o "$TMP/media.test" ./internal/media
for i in $(seq "$ROUNDS"); do
	"$TMP/media.test" -test.run '^$' -test.bench 'Upload4MP' -test.benchtime "${N}x" | grep '^Benchmark' | tee -a "$TMP/out"
done
"$TMP/media.test" -test.run '^$' -test.bench 'RecordMemory' -test.benchtime 10000x | grep '^Benchmark'
metric() { # the value before unit $2 on the lines of kind $1
	grep "/$1-" "$TMP/out" | awk -v u="$2" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' | sort -n |
		awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.1f (%.1f-%.1f)", m, v[1], v[NR]}'
}
for kind in process serial parallel; do
	printf '%-9s ms/upload %s  cpu-ms/upload %s  uploads/s %s\n' "$kind" "$(metric $kind ms/upload)" "$(metric $kind cpu-ms/upload)" "$(metric $kind uploads/s)"
done
p=$(metric process ms/upload | cut -d' ' -f1)
s=$(metric serial ms/upload | cut -d' ' -f1)
echo "whole path / processing alone (medians of ms/upload): $(echo "$s / $p" | bc -l | cut -c1-4)"
