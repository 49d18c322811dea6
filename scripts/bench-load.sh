#!/bin/sh
# Reproduces the bulk-loading figures of docs/PERFORMANCE.md, side by side
# in one run, each tool against a fresh redis-server on a loopback port:
#   1. retwis load, redis-cli --pipe, and redis-cli sending one command per
#      round trip, on the same 10 million SET commands;
#   2. retwis gen | retwis load of 1M users, 20M follows and 5M posts, with
#      the time and peak memory of both processes and Redis's memory after.
# Usage: scripts/bench-load.sh [commands] [naive-commands] [rounds]
# (about 10 minutes; set SKIP_GEN=1 to measure only part 1)
set -eu
N=${1:-10000000}
NAIVE=${2:-500000}
ROUNDS=${3:-4}
WORK=$(mktemp -d)
PORT=16390
trap 'redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/retwis" ./cmd/retwis
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) { k = "key:" i; v = "value:" i;
	printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v } }' > "$WORK/set.resp"
awk -v n="$NAIVE" 'BEGIN { for (i = 0; i < n; i++) printf "SET key:%d value:%d\n", i, i }' > "$WORK/set.txt"
echo "input: $N SET commands, $(wc -c < "$WORK/set.resp") bytes"

fresh() { # start an empty redis-server on $PORT
	redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true
	redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
	until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
}
timed() { # label command...: prints seconds and the keys loaded
	label=$1; shift
	fresh
	start=$(date +%s.%N)
	"$@" > "$WORK/out" 2>&1
	end=$(date +%s.%N)
	echo "$label: $(echo "$end - $start" | bc) s, $(redis-cli -p $PORT dbsize) keys; $(tail -1 "$WORK/out")"
}
# The machine is shared and its speed drifts: the two pipe tools take
# turns at going first, and the figures to compare are the medians.
ours() { timed "round $round retwis load     " "$WORK/retwis" load --redis redis://127.0.0.1:$PORT "$WORK/set.resp"; }
theirs() { timed "round $round redis-cli --pipe" sh -c "redis-cli -p $PORT --pipe < '$WORK/set.resp'"; }
for round in $(seq "$ROUNDS"); do
	if [ $((round % 2)) = 1 ]; then ours; theirs; else theirs; ours; fi
	timed "round $round naive ($NAIVE)  " sh -c "redis-cli -p $PORT < '$WORK/set.txt'"
done

[ "${SKIP_GEN:-}" = 1 ] && exit 0
fresh
echo "gen | load: 1,000,000 users, 20 follows each on average, 5,000,000 posts"
/usr/bin/time -f "gen:  %e s elapsed, %M KiB peak RSS" "$WORK/retwis" gen --users 1000000 --follows 20 --posts 5000000 2>"$WORK/gen.err" |
	/usr/bin/time -f "load: %e s elapsed, %M KiB peak RSS" "$WORK/retwis" load --redis redis://127.0.0.1:$PORT 2>"$WORK/load.err"
grep -v '^gen: [a-z]' "$WORK/gen.err" || true
tail -2 "$WORK/load.err"
redis-cli -p $PORT info memory | grep -E '^used_memory(_human)?:'
redis-cli -p $PORT dbsize
