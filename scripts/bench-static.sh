#!/bin/sh
# Measures retwis's static route (/static/style.css, through every
# middleware of the pages) against a bare Go hello-world
# (internal/hellobench) on the same machine in the same run: wrk against
# each in turn, interleaved for ROUNDS rounds, so that whatever else the
# machine does weighs on both alike. Prints each round, then the median
# req/s of each with its spread (min-max) and the ratio of the medians.
# Usage: scripts/bench-static.sh [rounds] [connections] [seconds]
set -eu
command -v wrk >/dev/null || { echo "bench-static: wrk is needed (apt-get install wrk)" >&2; exit 1; }
ROUNDS=${1:-3}
C=${2:-64}
D=${3:-10}
TMP=$(mktemp -d)
go build -o "$TMP/retwis" ./cmd/retwis
go build -o "$TMP/hello" ./internal/hellobench
RETWIS=127.0.0.1:18092
HELLO=127.0.0.1:18093
mkdir "$TMP/data"
"$TMP/retwis" serve --addr $RETWIS --data-dir "$TMP/data" ${RETWIS_FLAGS:-} 2>"$TMP/retwis.log" &
RPID=$!
"$TMP/hello" $HELLO &
HPID=$!
trap 'kill $RPID $HPID; wait $RPID $HPID 2>/dev/null; rm -rf "$TMP"' EXIT
until curl -fs http://$RETWIS/static/style.css >/dev/null && curl -fs http://$HELLO/ >/dev/null; do sleep 0.1; done
rps() { wrk -t2 -c"$C" -d"${D}s" "$1" | awk '/Requests\/sec/ {print $2} /Non-2xx|Socket errors/ {print "bench-static: " $0 > "/dev/stderr"}'; }
echo "wrk -t2 -c$C -d${D}s, $ROUNDS interleaved rounds"
for i in $(seq "$ROUNDS"); do
	h=$(rps http://$HELLO/)
	s=$(rps http://$RETWIS/static/style.css)
	echo "$i $h $s" >>"$TMP/rounds"
	printf 'round %d: hello-world %10s req/s   static %10s req/s   %5.1f%%\n' "$i" "$h" "$s" "$(echo "100 * $s / $h" | bc -l)"
done
median() { sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.0f (%.0f-%.0f)", m, v[1], v[NR]}'; }
hm=$(cut -d' ' -f2 "$TMP/rounds" | median)
sm=$(cut -d' ' -f3 "$TMP/rounds" | median)
echo "hello-world median $hm req/s"
echo "static      median $sm req/s"
echo "static / hello-world: $(echo "100 * ${sm%% *} / ${hm%% *}" | bc -l | xargs printf '%.1f')% of the medians; per round $(awk '{printf "%.1f%% ", 100*$3/$2}' "$TMP/rounds")"
