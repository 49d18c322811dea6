#!/bin/sh
# Bulk loading into a 3-master Redis Cluster with `retwis load` against
# `redis-cli --pipe` into one redis-server (redis-cli cannot load a
# cluster at all), on the same machine and the same input, rotating which
# goes first; a fresh cluster or server for each run. Each run prints its
# wall time, the CPU seconds of the loading client and of the
# redis-servers (INFO cpu), and the least wall time that CPU allows on two
# idle cores (a figure that other work on a shared machine moves less
# than the wall time); the end prints the medians and the ratios of the
# medians (redis-cli's over retwis's).
# Usage: scripts/bench-load-cluster.sh [commands] [rounds]   (about 5 minutes at 10M, 4)
# BASE=<git rev> also runs `retwis load` built at that revision, as a
# third contender in the same rounds (before/after figures).
# PORT=<n> uses ports n to n+3 (default 16380).
set -eu
N=${1:-10000000}
ROUNDS=${2:-4}
BASE=${BASE:-}
WORK=$(mktemp -d)
SINGLE=${PORT:-16380}
PORTS="$((SINGLE + 1)) $((SINGLE + 2)) $((SINGLE + 3))"
FIRST=$((SINGLE + 1))
stop() {
	for p in $SINGLE $PORTS; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
}
trap 'stop; rm -rf "$WORK"' EXIT
go build -o "$WORK/retwis" ./cmd/retwis
CONTENDERS="retwis cli"
if [ -n "$BASE" ]; then
	mkdir "$WORK/base"
	git archive "$BASE" | tar -x -C "$WORK/base"
	(cd "$WORK/base" && go build -o "$WORK/base-retwis" ./cmd/retwis)
	CONTENDERS="retwis base cli"
fi
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) { k = "key:" i; v = "value:" i;
	printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v } }' > "$WORK/set.resp"
echo "input: $N SET commands, $(wc -c < "$WORK/set.resp") bytes; ports $SINGLE-$((SINGLE + 3))"

start() { # port [cluster]: an empty redis-server
	mkdir -p "$WORK/$1"
	redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK/$1" \
		${2:+--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000} >/dev/null
	until redis-cli -p "$1" ping >/dev/null 2>&1; do sleep 0.1; done
}
fresh_single() {
	redis-cli -p "$SINGLE" shutdown nosave >/dev/null 2>&1 || true
	start "$SINGLE"
}
fresh_cluster() {
	for p in $PORTS; do
		redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
		rm -rf "${WORK:?}/$p"
		start "$p" cluster
	done
	# shellcheck disable=SC2086
	redis-cli --cluster create $(for p in $PORTS; do printf '127.0.0.1:%s ' "$p"; done) --cluster-replicas 0 --cluster-yes >/dev/null
	for p in $PORTS; do # every node, or the first commands to a late one fail with CLUSTERDOWN
		until [ "$(redis-cli -p "$p" cluster info | tr -d '\r' | grep cluster_state)" = "cluster_state:ok" ]; do sleep 0.1; done
	done
}
server_cpu() { # ports...: CPU seconds (user + sys) each redis-server used so far, one a line
	for p in "$@"; do redis-cli -p "$p" info cpu | tr -d '\r' |
		awk -F: '/^used_cpu_(user|sys):/ { s += $2 } END { printf "%.2f\n", s }'; done
}
keys() { # ports...: keys held
	for p in "$@"; do redis-cli -p "$p" dbsize; done | awk '{ s += $1 } END { print s }'
}
timed() { # name ports command...: one run, recorded in $WORK/<name>.times and .bound
	name=$1; ports=$2; shift 2
	# shellcheck disable=SC2086
	server_cpu $ports > "$WORK/before"
	start=$(date +%s.%N)
	if ! /usr/bin/time -f '%U %S' -o "$WORK/cpu" "$@" > "$WORK/out" 2>&1; then
		cat "$WORK/out" "$WORK/cpu"
		exit 1
	fi
	end=$(date +%s.%N)
	secs=$(echo "$end - $start" | bc)
	# shellcheck disable=SC2086
	server_cpu $ports > "$WORK/after"
	echo "$secs" >> "$WORK/$name.times"
	# The CPU seconds of the servers and the client, and the least wall
	# time they allow on two idle cores: every server and the client each
	# need their CPU time on one core, and all of it shares two.
	cpu=$(paste "$WORK/before" "$WORK/after" | awk -v client="$(awk '{ print $1 + $2 }' "$WORK/cpu")" '
		{ d = $2 - $1; s += d; if (d > most) most = d }
		END { b = (s + client) / 2; if (most > b) b = most; if (client > b) b = client
			printf "%.2f %.2f %.2f", client, s, b }')
	echo "$cpu" | cut -d' ' -f3 >> "$WORK/$name.bound"
	# shellcheck disable=SC2086
	printf 'round %s %-6s %6.2f s, client CPU %5.2f s, servers CPU %5.2f s, bound on 2 idle cores %5.2f s, %s keys\n' \
		"$round" "$name" "$secs" $cpu "$(keys $ports)"
	if ! tail -1 "$WORK/out" | grep -q -e '^sent ' -e '^errors: 0,'; then tail -3 "$WORK/out"; fi
}
run() { # contender
	case $1 in
	retwis | base)
		bin=$WORK/retwis
		[ "$1" = base ] && bin=$WORK/base-retwis
		fresh_cluster
		timed "$1" "$PORTS" "$bin" load --redis "redis://127.0.0.1:$FIRST" "$WORK/set.resp" ;;
	cli)
		fresh_single
		timed cli "$SINGLE" sh -c "redis-cli -p $SINGLE --pipe < '$WORK/set.resp'" ;;
	esac
}
median() { # file: the median of its lines
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for round in $(seq "$ROUNDS"); do
	# rotate who goes first: round 1 starts with the first contender, round 2 with the second, …
	# shellcheck disable=SC2086
	set -- $CONTENDERS $CONTENDERS
	n=$(($# / 2))
	shift $(((round - 1) % n))
	order=$(echo "$@" | cut -d' ' -f1-$n)
	for c in $order; do run "$c"; done
done
for c in $CONTENDERS; do
	m=$(median "$WORK/$c.times")
	printf 'median %-6s %6.2f s (%.0fk commands/s), spread %.2f-%.2f s; bound on 2 idle cores %.2f s\n' "$c" "$m" \
		"$(echo "$N / $m / 1000" | bc -l)" "$(sort -n "$WORK/$c.times" | head -1)" "$(sort -n "$WORK/$c.times" | tail -1)" \
		"$(median "$WORK/$c.bound")"
done
ratio() { # contender: redis-cli's median over its, of the wall times and of the bounds
	printf 'ratio redis-cli/%s: %.2f (medians of wall times), %.2f on 2 idle cores (medians of the CPU bounds)\n' "$1" \
		"$(echo "$(median "$WORK/cli.times") / $(median "$WORK/$1.times")" | bc -l)" \
		"$(echo "$(median "$WORK/cli.bound") / $(median "$WORK/$1.bound")" | bc -l)"
}
ratio retwis
if [ -n "$BASE" ]; then ratio base; fi
