#!/bin/sh
# Runs `retwis bench` on a freshly seeded database served by a fresh
# `retwis serve`, both on one redis-server started for the run: the
# static-file baseline, /healthz and the scenarios asked for, each
# connection logged in as a user of its own.
# Usage: scripts/bench-scenarios.sh [users] [posts] [follows] [connections] [duration] [scenarios]
# e.g.   scripts/bench-scenarios.sh 10000 200000 50 64 10s home,profile,timeline
set -eu
# The load comes from one address and a few accounts: no rate limits.
export RETWIS_RATE_LIMITS=false
USERS=${1:-10000}
POSTS=${2:-200000}
FOLLOWS=${3:-50}
C=${4:-64}
D=${5:-10s}
SCENARIOS=${6:-home,profile,timeline}
WORK=$(mktemp -d)
PORT=16392
ADDR=127.0.0.1:18094
go build -o "$WORK/retwis" ./cmd/retwis
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
"$WORK/retwis" serve --addr $ADDR --redis redis://127.0.0.1:$PORT --metrics-addr "${METRICS:-}" ${SERVE_ARGS:-} 2>/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null; wait; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1; rm -rf "$WORK"' EXIT
until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done
"$WORK/retwis" bench --url http://$ADDR --redis redis://127.0.0.1:$PORT --seed --users "$USERS" --posts "$POSTS" \
	--follows "$FOLLOWS" --connections "$C" --duration "$D" --scenarios "$SCENARIOS"
