#!/bin/sh
# Measures page throughput of a freshly started `retwis serve` with wrk:
# the logged-in home page, a profile and the global timeline, next to two
# baselines in the same run: /static/style.css (a static file: no Redis,
# no template) and /healthz (one Redis PING).
# Usage: scripts/bench-pages.sh [connections] [seconds]
set -eu
command -v wrk >/dev/null || { echo "bench-pages: wrk is needed (apt-get install wrk)" >&2; exit 1; }
C=${1:-64}
D=${2:-10}
BIN=$(mktemp -d)/retwis
go build -o "$BIN" ./cmd/retwis
DATA=$(mktemp -d)
ADDR=127.0.0.1:18090
"$BIN" serve --addr $ADDR --data-dir "$DATA" 2>/dev/null &
PID=$!
trap 'kill $PID; wait $PID 2>/dev/null; rm -rf "$DATA" "$(dirname "$BIN")"' EXIT
until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done
form() { curl -fs -o /dev/null -b "auth=$1" -X POST "http://$ADDR$2" ${3:+-d "$3"}; }
signup() { curl -fs -o /dev/null -c - -X POST -d "username=$1&password=password1&password2=password1" http://$ADDR/register | awk '$6 == "auth" {print $7}'; }
READER=$(signup reader)
for a in 1 2 3 4 5; do
	S=$(signup "author$a")
	form "$READER" "/u/author$a/follow"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		form "$S" /post "status=post $i by author $a, of a realistic length for a status update"
	done
done
for path in /static/style.css /healthz / /u/author1 /timeline; do
	printf '%-18s ' "$path"
	wrk -t2 -c"$C" -d"${D}s" --latency -H "Cookie: auth=$READER" "http://$ADDR$path" |
		awk '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /Non-2xx|Socket errors/ {err=err $0}
			END {printf "%10s req/s  p50 %8s  p99 %8s  %s\n", rps, p50, p99, (err == "" ? "no errors" : err)}'
done
