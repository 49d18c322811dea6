#!/bin/sh
# Bulk loading into a 3-master Redis Cluster with `retwis load` against
# `redis-cli --pipe` into one redis-server (redis-cli cannot load a
# cluster at all), on the same machine and the same input, alternating
# which goes first; the figures to compare are the medians.
# Usage: scripts/bench-load-cluster.sh [commands] [rounds]   (about 5 minutes)
set -eu
N=${1:-10000000}
ROUNDS=${2:-4}
WORK=$(mktemp -d)
SINGLE=16380
PORTS="16381 16382 16383"
stop() {
	for p in $SINGLE $PORTS; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
}
trap 'stop; rm -rf "$WORK"' EXIT
go build -o "$WORK/retwis" ./cmd/retwis
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) { k = "key:" i; v = "value:" i;
	printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v } }' > "$WORK/set.resp"
echo "input: $N SET commands, $(wc -c < "$WORK/set.resp") bytes"

start() { # port [cluster]: an empty redis-server
	mkdir -p "$WORK/$1"
	redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK/$1" \
		${2:+--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000} >/dev/null
	until redis-cli -p "$1" ping >/dev/null 2>&1; do sleep 0.1; done
}
fresh_single() {
	redis-cli -p $SINGLE shutdown nosave >/dev/null 2>&1 || true
	start $SINGLE
}
fresh_cluster() {
	for p in $PORTS; do
		redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
		rm -rf "${WORK:?}/$p"
		start "$p" cluster
	done
	# shellcheck disable=SC2086
	redis-cli --cluster create $(for p in $PORTS; do printf '127.0.0.1:%s ' "$p"; done) --cluster-replicas 0 --cluster-yes >/dev/null
	until [ "$(redis-cli -p 16381 cluster info | tr -d '\r' | grep cluster_state)" = "cluster_state:ok" ]; do sleep 0.1; done
}
timed() { # label keys-command command...: prints seconds and the keys loaded
	label=$1; keys=$2; shift 2
	start=$(date +%s.%N)
	"$@" > "$WORK/out" 2>&1
	end=$(date +%s.%N)
	echo "$label: $(echo "$end - $start" | bc) s, $(sh -c "$keys") keys; $(tail -1 "$WORK/out")"
}
ours() {
	fresh_cluster
	timed "round $round retwis load, 3-master cluster" \
		"for p in $PORTS; do redis-cli -p \$p dbsize; done | awk '{s += \$1} END {print s}'" \
			"$WORK/retwis" load --redis redis://127.0.0.1:16381,127.0.0.1:16382,127.0.0.1:16383 "$WORK/set.resp"
}
theirs() {
	fresh_single
	timed "round $round redis-cli --pipe, one server " "redis-cli -p $SINGLE dbsize" \
		sh -c "redis-cli -p $SINGLE --pipe < '$WORK/set.resp'"
}
for round in $(seq "$ROUNDS"); do
	if [ $((round % 2)) = 1 ]; then ours; theirs; else theirs; ours; fi
done
