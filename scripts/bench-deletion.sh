#!/bin/sh
# Measures deleting large accounts: seeds a fresh redis-server with
# `retwis bench --seed` (USERS users, POSTS posts, FOLLOWS follows each),
# then, for the COUNT most followed users, logs in as each, deletes the
# account through POST /settings/delete, and times until its old profile
# says it has been deleted, with its posts and followers counted before.
# Usage: scripts/bench-deletion.sh [users] [posts] [follows] [count]
# e.g.   scripts/bench-deletion.sh 10000 200000 50 3
set -eu
export RETWIS_RATE_LIMITS=false
USERS=${1:-10000}
POSTS=${2:-200000}
FOLLOWS=${3:-50}
COUNT=${4:-3}
WORK=$(mktemp -d)
PORT=16397
ADDR=127.0.0.1:18097
go build -o "$WORK/retwis" ./cmd/retwis
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
PID=
trap 'kill $PID 2>/dev/null || true; wait; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1; rm -rf "$WORK"' EXIT
"$WORK/retwis" serve --addr $ADDR --redis redis://127.0.0.1:$PORT 2>"$WORK/serve.log" &
PID=$!
until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done
"$WORK/retwis" bench --url http://$ADDR --redis redis://127.0.0.1:$PORT --seed --users "$USERS" --posts "$POSTS" --follows "$FOLLOWS" \
	--connections 4 --duration 1s --scenarios home | grep -E "^seeded"
R="redis-cli -p $PORT"
$R config resetstat >/dev/null
# The most followed users, by their followers' count.
for uid in $($R --scan --pattern 'followers:{*}' | grep -v ':job:' | while read -r k; do echo "$($R zcard "$k") $k"; done |
	sort -rn | head -n "$COUNT" | sed 's/.*followers:{\([0-9]*\)}/\1/'); do
	name=$($R hget "user:{$uid}" username)
	posts=$($R zcard "user_posts:{$uid}")
	followers=$($R zcard "followers:{$uid}")
	following=$($R zcard "following:{$uid}")
	jar="$WORK/jar-$uid"
	curl -fs -c "$jar" -o /dev/null -d "username=$name&password=benchpass1" http://$ADDR/login
	start=$(date +%s.%N)
	curl -fs -b "$jar" -o /dev/null -d "password=benchpass1&confirm=yes" http://$ADDR/settings/delete
	until curl -s http://$ADDR/u/"$name" | grep -q "has been deleted"; do sleep 0.05; done
	end=$(date +%s.%N)
	echo "$name: $posts posts, $followers followers, $following following: deleted in $(awk "BEGIN { printf \"%.2f\", $end - $start }") s"
done
echo "Redis time by command during the deletions (top 8, usec):"
$R info commandstats | tr -d '\r' | grep '^cmdstat_' | sed 's/cmdstat_\([^:]*\):calls=\([0-9]*\),usec=\([0-9]*\).*/\3 \1 \2/' |
	sort -rn | head -8 | awk '{ printf "  %-24s %12d usec %10d calls\n", $2, $1, $3 }'
