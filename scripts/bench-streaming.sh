#!/bin/sh
# Streaming fanout: seeds a network into a fresh redis-server, starts a
# fresh `retwis serve` on it, and runs `retwis bench --scenarios
# streaming`: as many clients as connections, each logged in as its own
# seeded user, follow a fresh author and listen to their user stream
# (Server-Sent Events), then as many listen to the public stream; the
# author posts one post at a time, and the report gives the delay from
# each post's request to its arrival at every client, p50 and p99, for
# each of five runs and their median with the spread.
# Usage: scripts/bench-streaming.sh [clients] [seconds] [users]
set -eu
# The load comes from one address and a few accounts: no rate limits.
export RETWIS_RATE_LIMITS=false
C=${1:-1000}
D=${2:-20}
USERS=${3:-$C}
WORK=$(mktemp -d)
PORT=16392
ADDR=127.0.0.1:18094
go build -o "$WORK/retwis" ./cmd/retwis
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
"$WORK/retwis" serve --addr $ADDR --redis redis://127.0.0.1:$PORT --metrics-addr '' ${SERVE_ARGS:-} 2>/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null; wait; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1; rm -rf "$WORK"' EXIT
until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done
"$WORK/retwis" bench --url http://$ADDR --redis redis://127.0.0.1:$PORT --seed --users "$USERS" --follows 10 \
	--posts 10000 --connections "$C" --duration "${D}s" --scenarios streaming
echo
echo "server: $(ps -o rss= -p $PID | awk '{printf "%.0f MiB RSS", $1/1024}'), $(ls /proc/$PID/task | wc -l) threads"
