#!/bin/sh
# Measures at scale what the people issue added besides the search: a
# fresh redis-server loaded with a generated network (retwis gen | retwis
# load), then
#  - the directory's memory per entry (MEMORY USAGE of explore ÷ ZCARD),
#  - retwis check over the whole database: keys walked a second,
#  - a fresh retwis serve and wrk on the static file (the baseline), on
#    /explore with a range query drawn at random, and on profiles drawn at
#    random seen logged out, by a user following 20 (the generated
#    network's own) and by one following 1,000 (followed here through the
#    HTML form): what the relationship panel costs.
# Usage: [CHECK=0] scripts/bench-directory.sh [users] [connections] [seconds] [rounds]
# (CHECK=0 leaves retwis check out: at 1,000,000 users it takes 25 min.)
set -eu
# The load comes from one address and a few accounts: no rate limits.
export RETWIS_RATE_LIMITS=false
command -v wrk >/dev/null || { echo "bench-directory: wrk is needed (apt-get install wrk)" >&2; exit 1; }
USERS=${1:-1000000}
C=${2:-64}
D=${3:-10}
ROUNDS=${4:-3}
WORK=$(mktemp -d)
PORT=16394
ADDR=127.0.0.1:18096
URL=redis://127.0.0.1:$PORT
go build -o "$WORK/retwis" ./cmd/retwis
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
PID=
trap 'kill $PID 2>/dev/null || true; wait; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1; rm -rf "$WORK"' EXIT
start=$(date +%s)
"$WORK/retwis" gen --users "$USERS" --posts "$USERS" --follows 20 --until now 2>/dev/null |
	"$WORK/retwis" load --redis $URL >/dev/null
echo "loaded $USERS users in $(($(date +%s) - start)) s; $(redis-cli -p $PORT dbsize) keys"

entries=$(redis-cli -p $PORT zcard explore)
bytes=$(redis-cli -p $PORT memory usage explore samples 0)
echo "directory: $entries entries, $bytes B, $((bytes / entries)) B an entry"

if [ "${CHECK:-1}" != 0 ]; then
	echo "retwis check:"
	"$WORK/retwis" check --redis $URL 2>/dev/null | sed 's/^/  /' || true
fi

"$WORK/retwis" serve --addr $ADDR --redis $URL 2>/dev/null &
PID=$!
until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done

# cookie USER: logs USER in and prints its session cookie.
cookie() {
	curl -fs -o /dev/null -c - -d "username=$1&password=retwispass" http://$ADDR/login | awk '$6 == "auth" {print "auth=" $7}'
}
HUB=$(cookie user1)
i=2
while [ $i -le 1001 ]; do # user1 comes to follow 1,000 more
	curl -fs -o /dev/null -H "Cookie: $HUB" -X POST "http://$ADDR/u/user$((i * 7 % USERS + 1))/follow" || true
	i=$((i + 1))
done
echo "user1 follows $(redis-cli -p $PORT zcard 'following:{1}') users, user2 $(redis-cli -p $PORT zcard 'following:{2}')"
PLAIN=$(cookie user2)

cat > "$WORK/explore.lua" <<'LUA'
local queries = {"followers=100-10000&posts=5-50", "followers=0-10&posts=1-", "followers=1000-", "posts=3-5",
  "followers=20-30", "followers=50-&posts=1-3", "posts=10-", "followers=5-15&posts=0-1", "followers=0-0"}
request = function()
  return wrk.format("GET", "/explore?" .. queries[math.random(#queries)])
end
LUA
cat > "$WORK/profile.lua" <<LUA
request = function()
  return wrk.format("GET", "/u/user" .. math.random($USERS))
end
LUA
run() { # label path-or-script [cookie]
	printf '%-26s ' "$1"
	case $2 in
	*.lua) set -- "$1" "$2" "${3:-}" / ;;
	*) set -- "$1" "" "${3:-}" "$2" ;;
	esac
	wrk -t2 -c"$C" -d"${D}s" --latency ${2:+-s "$2"} ${3:+-H "Cookie: $3"} "http://$ADDR$4" |
		awk '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /Non-2xx|Socket errors/ {err=err $0}
			END {printf "%10s req/s  p50 %8s  p99 %8s  %s\n", rps, p50, p99, (err == "" ? "no errors" : err)}'
}
round=1
while [ $round -le "$ROUNDS" ]; do
	echo "round $round"
	run "static file" /static/style.css
	run "/explore" "$WORK/explore.lua"
	run "profile, logged out" "$WORK/profile.lua"
	run "profile, following 20" "$WORK/profile.lua" "$PLAIN"
	run "profile, following 1000" "$WORK/profile.lua" "$HUB"
	round=$((round + 1))
done
