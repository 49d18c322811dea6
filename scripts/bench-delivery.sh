#!/bin/sh
# Measures Redis CPU per delivered home-timeline entry while posting:
# builds retwis at the given revision, seeds a fresh redis-server
# (1,000 users, ~50 follows each), serves it, resets Redis's statistics,
# runs the `post` scenario of `retwis bench` for the given rounds, waits
# for the delivery backlog to drain, and prints, per round, the `post`
# row of the bench, the timeline entries delivered (the growth of
# every home list and archive chunk), redis-server's CPU (used_cpu_user+sys) and the commands that
# took the most of it (INFO commandstats).
# Usage: scripts/bench-delivery.sh [REV] [rounds]
set -eu
export RETWIS_RATE_LIMITS=false
REV=${1:-HEAD}
ROUNDS=${2:-3}
WORK=$(mktemp -d)
PORT=${PORT:-16397}
ADDR=127.0.0.1:${HTTP_PORT:-18097}
git worktree add -q --detach "$WORK/src" "$REV"
(cd "$WORK/src" && go build -o "$WORK/retwis" ./cmd/retwis)
git worktree remove --force "$WORK/src"
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
PID=
trap 'kill $PID 2>/dev/null || true; wait; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1; rm -rf "$WORK"' EXIT
"$WORK/retwis" serve --addr $ADDR --redis redis://127.0.0.1:$PORT 2>/dev/null &
PID=$!
until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done
"$WORK/retwis" bench --url http://$ADDR --redis redis://127.0.0.1:$PORT --seed --users 1000 --posts 20000 --follows 50 \
	--archive 0 --connections 4 --duration 1s --scenarios home | grep -E "^seeded"
cpu() { redis-cli -p $PORT info cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.3f", s}'; }
entries() { # every home list's length plus its archive chunks'
	{ redis-cli -p $PORT --scan --pattern 'posts:{*}'; redis-cli -p $PORT --scan --pattern 'archive:{*}:*'; } |
		sed 's/^/LLEN /' | redis-cli -p $PORT | awk '{s += $1} END {print s}'
}
for round in $(seq "$ROUNDS"); do
	e0=$(entries)
	redis-cli -p $PORT config resetstat >/dev/null
	c0=$(cpu)
	"$WORK/retwis" bench --url http://$ADDR --redis redis://127.0.0.1:$PORT --connections 64 --duration 10s --scenarios post |
		grep -E "^post +[0-9]"
	sleep 2 # the delivery backlog drains within ~0.2 s of a storm
	c1=$(cpu)
	stats=$(redis-cli -p $PORT info commandstats | tr -d '\r' | awk -F'[:=,]' '/^cmdstat/ {print $5, $1, $3}' | sort -rn | head -8)
	e1=$(entries)
	echo "round $round: entries $((e1 - e0)), redis cpu $(echo "$c1 - $c0" | bc) s," \
		"$(echo "scale=2; ($c1 - $c0) * 1000000 / ($e1 - $e0)" | bc) us per entry"
	echo "$stats" | awk '{printf "  %-24s %10d usec %9d calls\n", $2, $1, $3}'
done
