#!/bin/sh
# Sustained posting, delivered: seeds a network into a fresh redis-server,
# runs `retwis bench --scenarios sustained` against a fresh `retwis serve`,
# and measures in the same run Redis's own pipelined write rate on this
# machine (LPUSH with a pipeline of 16, as redis-benchmark measures it),
# the physical limit that delivery's timeline entries per second compare
# with.
#
# With BACKLOG=1 the server runs pages only (--role web), with no limit
# on the posts it takes at once, so the posts pile up as a backlog of
# delivery jobs, and a worker (--role worker) starts when posting stops:
# the drain rate, timed from the backlog's first drop, is then a
# worker's alone.
# Usage: [BACKLOG=1] scripts/bench-sustained.sh [connections] [seconds] [users] [follows] [posts]
set -eu
# The load comes from one address and a few accounts: no rate limits.
export RETWIS_RATE_LIMITS=false
C=${1:-64}
D=${2:-10}
USERS=${3:-1000}
FOLLOWS=${4:-50}
POSTS=${5:-20000}
WORK=$(mktemp -d)
PORT=16391
ADDR=127.0.0.1:18092
go build -o "$WORK/retwis" ./cmd/retwis
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
ROLE=all
if [ -n "${BACKLOG:-}" ]; then
	ROLE=web
	SERVE_ARGS="--write-concurrency 64 ${SERVE_ARGS:-}"
fi
"$WORK/retwis" serve --role $ROLE --addr $ADDR --redis redis://127.0.0.1:$PORT --metrics-addr "${METRICS:-}" ${SERVE_ARGS:-} 2>/dev/null &
PID=$!
trap 'kill $PID $(cat "$WORK/worker.pid" 2>/dev/null) 2>/dev/null; wait; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1; rm -rf "$WORK"' EXIT
until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done
"$WORK/retwis" bench --url http://$ADDR --redis redis://127.0.0.1:$PORT --seed --users "$USERS" --follows "$FOLLOWS" \
	--posts "$POSTS" --connections "$C" --duration "${D}s" --scenarios sustained |
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in "posting stopped"*)
			if [ -n "${BACKLOG:-}" ]; then
				"$WORK/retwis" serve --role worker --addr 127.0.0.1:18093 --redis redis://127.0.0.1:$PORT \
					--metrics-addr '' 2>/dev/null &
				echo $! >"$WORK/worker.pid"
			fi
		esac
	done
echo
echo "physical limit, same Redis, same run:"
redis-benchmark -p $PORT -t lpush -P 16 -c 50 -n 2000000 -q 2>/dev/null | tr '\r' '\n' | grep -v '^$' | tail -1
