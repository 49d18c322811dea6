#!/bin/sh
# Reproduces the timelines-at-scale figures of docs/PERFORMANCE.md: two
# runs of `retwis bench`, each on a freshly seeded database of 10,000
# users and 1,000,000 posts (and 1,000 archived entries per timeline)
# served by a fresh `retwis serve`: the scenario table at 64 connections,
# then the growth curves (SVG into docs/charts).
# Usage: scripts/bench-timelines.sh [connections]    (takes ~15 minutes)
set -eu
# The load comes from one address and a few accounts: no rate limits.
export RETWIS_RATE_LIMITS=false
C=${1:-64}
WORK=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill -INT $PID 2>/dev/null; wait; rm -rf "$WORK"' EXIT
go build -o "$WORK/retwis" ./cmd/retwis
ADDR=127.0.0.1:18096
if curl -fs http://$ADDR/livez >/dev/null 2>&1; then
	echo "bench-timelines: something already listens on $ADDR" >&2
	exit 1
fi
for run in table curves; do
	rm -rf "$WORK/data"
	"$WORK/retwis" serve --addr $ADDR --data-dir "$WORK/data" --celebrity-threshold 2000000 2>"$WORK/serve.log" &
	PID=$!
	until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.2; done
	REDIS=$(grep -o 'url=unix://[^ ]*' "$WORK/serve.log" | cut -d= -f2)
	set -- --url http://$ADDR --redis "$REDIS" --seed --users 10000 --posts 1000000 --follows 50 --connections "$C"
	if [ $run = table ]; then
		"$WORK/retwis" bench "$@" --duration 10s
	else
		"$WORK/retwis" bench "$@" --duration 5s --scenarios home --curves docs/charts
	fi
	kill -INT $PID
	wait $PID || true
	PID=
done
