#!/bin/sh
# Measures the Web Push worker: BenchmarkPushDelivery (internal/push),
# ROUNDS runs of N pushes each (follow notifications of 32 subscribed
# users, encrypted, VAPID-signed and sent over TLS to a push service on
# this machine, the worker on its own redis-server), and prints each
# round's pushes/s, CPU time per push of the test process (worker,
# server and push service together) and Redis round trips per push,
# then the median, minimum and maximum of the first two.
# Usage: scripts/bench-push.sh [rounds] [pushes per round]
set -eu
ROUNDS=${1:-5}
N=${2:-3000}
cd "$(dirname "$0")/.."
go test -count="$ROUNDS" -run '^$' -bench '^BenchmarkPushDelivery$' -benchtime "${N}x" ./internal/push/ |
	awk 'BEGIN { n = 0 }
	/^BenchmarkPushDelivery/ {
		for (i = 1; i <= NF; i++) { if ($(i+1) == "pushes/s") r[n] = $i + 0; if ($(i+1) == "roundtrips/push") t[n] = $i + 0; if ($(i+1) == "cpu-µs/push") c[n] = $i + 0 }
		printf "round %d: %s pushes/s, %s µs of CPU/push, %s round trips/push\n", n + 1, r[n], c[n], t[n]; n++
	}
	END {
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) {
			if (r[j] < r[i]) { x = r[i]; r[i] = r[j]; r[j] = x }
			if (c[j] < c[i]) { x = c[i]; c[i] = c[j]; c[j] = x }
		}
		printf "pushes/s: median %s, min %s, max %s (%d rounds)\n", r[int(n / 2)], r[0], r[n - 1], n
		printf "µs of CPU/push: median %s, min %s, max %s\n", c[int(n / 2)], c[0], c[n - 1]
	}'
