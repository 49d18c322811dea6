#!/bin/sh
# Reproduces the issue-9 HTTP figures of docs/PERFORMANCE.md: home pages
# and posting through `retwis bench`, in one run, against
#   1. one retwis server on one Redis,
#   2. one retwis server on a 3-master Redis Cluster,
#   3. three retwis servers on that cluster, loaded at once (one bench each,
#      a third of the connections each, results summed by hand).
# Every process shares this machine's cores, so compare the ratios.
# Usage: scripts/bench-cluster.sh [connections] [seconds]   (~3 minutes)
set -eu
# The load comes from one address and a few accounts: no rate limits.
export RETWIS_RATE_LIMITS=false
C=${1:-48}
D=${2:-10}
WORK=$(mktemp -d)
go build -o "$WORK/retwis" ./cmd/retwis
trap 'pkill -P $$ 2>/dev/null; for p in 7301 7302 7303 7310; do redis-cli -p $p shutdown nosave >/dev/null 2>&1 || true; done; rm -rf "$WORK"' EXIT
start_redis() { # port [cluster]
	mkdir -p "$WORK/r$1"
	(cd "$WORK/r$1" && redis-server --port "$1" --save '' --appendonly no --daemonize yes ${2:+--cluster-enabled yes --cluster-config-file nodes.conf} >/dev/null)
}
serve() { # addr redis-url
	"$WORK/retwis" serve --addr "$1" --redis "$2" --metrics-addr '' 2>>"$WORK/serve.log" &
	until curl -fs "http://$1/readyz" >/dev/null; do sleep 0.2; done
}
bench() { # url redis connections [seed]
	"$WORK/retwis" bench --url "$1" --redis "$2" --connections "$3" --duration "${D}s" --scenarios home,post \
		--users 3000 --posts 100000 --follows 30 ${4:-}
}
echo "== one server, one Redis"
start_redis 7310
serve 127.0.0.1:18101 redis://127.0.0.1:7310
bench http://127.0.0.1:18101 redis://127.0.0.1:7310 "$C" --seed
pkill -INT -f "addr 127.0.0.1:18101" || true
sleep 1
echo "== one server, 3-master cluster"
for p in 7301 7302 7303; do start_redis $p cluster; done
sleep 0.5
redis-cli --cluster create 127.0.0.1:7301 127.0.0.1:7302 127.0.0.1:7303 --cluster-replicas 0 --cluster-yes >/dev/null
until redis-cli -p 7301 cluster info | grep -q cluster_state:ok; do sleep 0.2; done
CL=redis://127.0.0.1:7301,127.0.0.1:7302,127.0.0.1:7303
serve 127.0.0.1:18102 $CL
bench http://127.0.0.1:18102 $CL "$C" --seed
echo "== three servers, 3-master cluster"
serve 127.0.0.1:18103 $CL
serve 127.0.0.1:18104 $CL
for port in 18102 18103 18104; do
	bench http://127.0.0.1:$port $CL $((C / 3)) > "$WORK/bench-$port.txt" &
done
wait_benches() { while pgrep -f "retwis bench" >/dev/null; do sleep 1; done; }
wait_benches
cat "$WORK"/bench-*.txt
