#!/bin/sh
# Measures the people search at scale: a fresh redis-server loaded with a
# generated network (retwis gen | retwis load: users with display names
# in several scripts), a fresh retwis serve, then wrk on the static file
# (the baseline), on /complete/people and on /search, each for random
# prefixes of 1 to 5 characters of the generated names, and the memory of
# the people index per entry.
# Usage: scripts/bench-people.sh [users] [connections] [seconds]
set -eu
# The load comes from one address and a few accounts: no rate limits.
export RETWIS_RATE_LIMITS=false
command -v wrk >/dev/null || { echo "bench-people: wrk is needed (apt-get install wrk)" >&2; exit 1; }
USERS=${1:-1000000}
C=${2:-64}
D=${3:-10}
WORK=$(mktemp -d)
PORT=16393
ADDR=127.0.0.1:18095
go build -o "$WORK/retwis" ./cmd/retwis
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
trap 'kill $PID 2>/dev/null || true; wait; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1; rm -rf "$WORK"' EXIT
PID=
start=$(date +%s)
"$WORK/retwis" gen --users "$USERS" --posts "$USERS" --follows 20 2>/dev/null |
	"$WORK/retwis" load --redis redis://127.0.0.1:$PORT >/dev/null
echo "loaded $USERS users in $(($(date +%s) - start)) s; Redis used_memory $(redis-cli -p $PORT info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r') B"
"$WORK/retwis" serve --addr $ADDR --redis redis://127.0.0.1:$PORT 2>/dev/null &
PID=$!
until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done

# The index's memory: every shard, summed, per entry.
entries=0; bytes=0
for n in 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f; do
	entries=$((entries + $(redis-cli -p $PORT zcard "people:{$n}")))
	bytes=$((bytes + $(redis-cli -p $PORT memory usage "people:{$n}" samples 0)))
done
echo "people index: $entries entries, $bytes B, $((bytes / entries)) B an entry"

cat > "$WORK/people.lua" <<'LUA'
local prefixes = {"a", "ad", "ada", "an", "ann", "ma", "mar", "mari", "maria", "mari%C3%A9", "jo", "jos", "jose", "jos%C3%A9",
  "ga", "gar", "garc", "garcia", "ch", "che", "chen", "l", "lu", "luk", "lukasz", "%C5%82u", "s", "sm", "smi", "smith",
  "user1", "user12", "user123", "user1234", "user12345", "o", "om", "ome", "omer", "y", "yu", "yuk", "yuki",
  "%E5%B1%B1", "%E5%B1%B1%E7%94%B0", "%CE%B5", "%D0%B0", "ivan", "iva", "zo", "zoe", "jose+gar", "ma+ro", "xq", "zz"}
local path = os.getenv("SEARCH_PATH") or "/complete/people?q="
request = function()
  return wrk.format("GET", path .. prefixes[math.random(#prefixes)])
end
LUA
run() { # label path [script]
	printf '%-22s ' "$1"
	SEARCH_PATH=$2 wrk -t2 -c"$C" -d"${D}s" --latency ${3:+-s "$3"} "http://$ADDR${4:-}" |
		awk '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /Non-2xx|Socket errors/ {err=err $0}
			END {printf "%10s req/s  p50 %8s  p99 %8s  %s\n", rps, p50, p99, (err == "" ? "no errors" : err)}'
}
for round in 1 2 3; do
	echo "round $round"
	run "static file" "" "" /static/style.css
	run "/complete/people" "/complete/people?q=" "$WORK/people.lua" /
	run "/search" "/search?q=" "$WORK/people.lua" /
done
