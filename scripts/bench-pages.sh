#!/bin/sh
# Measures page throughput of a freshly started `retwis serve` with wrk:
# the logged-in home page (10 posts of the 5 authors the reader follows,
# and who to follow: the 6 users those authors follow), a profile and
# the global timeline, next to two
# baselines in the same run: /static/style.css (a static file: no Redis,
# no template) and /healthz (one Redis PING). Each path is measured ROUNDS
# times, interleaved (every path once, then again), and reported as its
# median req/s with the spread, the median p99, its ratio to the static
# route's median, and the CPU time the server (retwis and its embedded
# redis-server, from /proc) spent per request: on a machine that others
# share, throughput swings with their load, CPU per request much less.
# With RETWIS_BASE set to another retwis binary (an older build), that
# one is served too, seeded alike, each wrk run against it right before
# the same run against the tree's build: a before-and-after in one
# sitting, with the ratios of after to before.
# Usage: scripts/bench-pages.sh [connections] [seconds] [rounds]
# RETWIS_FLAGS adds flags to every `retwis serve`; PPROF=file saves a CPU
# profile of the tree's server under wrk on the home page, or on
# PPROF_PATH (its --metrics-addr serves /debug/pprof).
set -eu
command -v wrk >/dev/null || { echo "bench-pages: wrk is needed (apt-get install wrk)" >&2; exit 1; }
C=${1:-64}
D=${2:-10}
ROUNDS=${3:-1}
TMP=$(mktemp -d)
go build -o "$TMP/after" ./cmd/retwis
SERVERS="after"
if [ -n "${RETWIS_BASE:-}" ]; then
	cp "$RETWIS_BASE" "$TMP/before"
	SERVERS="before after"
fi
PIDS=""
trap 'kill $PIDS 2>/dev/null; wait $PIDS 2>/dev/null; rm -rf "$TMP"' EXIT
addr() { if [ "$1" = after ]; then echo 127.0.0.1:18090; else echo 127.0.0.1:18091; fi; }
maddr() { if [ "$1" = after ]; then echo 127.0.0.1:18095; else echo 127.0.0.1:18096; fi; }
for srv in $SERVERS; do
	mkdir "$TMP/data-$srv"
	"$TMP/$srv" serve --addr "$(addr $srv)" --data-dir "$TMP/data-$srv" --metrics-addr "$(maddr $srv)" \
		--rate-signups off ${RETWIS_FLAGS:-} 2>"$TMP/$srv.log" &
	PIDS="$PIDS $!"
	echo $! >"$TMP/pid-$srv"
done
form() { curl -fs -o /dev/null -b "auth=$1" -X POST "http://$ADDR$2" ${3:+-d "$3"}; }
signup() { curl -fs -o /dev/null -c - -X POST -d "username=$1&password=password1&password2=password1" "http://$ADDR/register" | awk '$6 == "auth" {print $7}'; }
for srv in $SERVERS; do
	ADDR=$(addr $srv)
	until curl -fs "http://$ADDR/healthz" >/dev/null; do sleep 0.1; done
	READER=$(signup reader)
	echo "$READER" >"$TMP/reader-$srv"
	for f in 1 2 3 4 5 6; do signup "friend$f" >/dev/null; done
	for a in 1 2 3 4 5; do
		S=$(signup "author$a")
		form "$READER" "/u/author$a/follow"
		for f in 1 2 3 4 5 6; do form "$S" "/u/friend$f/follow"; done # whom the home page suggests
		for i in 1 2 3 4 5 6 7 8 9 10; do
			form "$S" /post "status=post $i by author $a, of a realistic length for a status update"
		done
	done
done
PATHS="/static/style.css /healthz / /u/author1 /timeline"
# ticks SERVER: the CPU clock ticks that the server and its children
# (the embedded redis-server) have used so far.
ticks() {
	pid=$(cat "$TMP/pid-$1")
	for p in $pid $(cat /proc/$pid/task/*/children 2>/dev/null); do cat /proc/$p/stat 2>/dev/null; done |
		awk '{sub(/^.*\) /, ""); t += $12 + $13} END {print t}'
}
HZ=$(getconf CLK_TCK)
# run SERVER PATH: one wrk run, printed as "req/s p99-in-ms CPU-µs-per-request".
run() {
	t0=$(ticks "$1")
	wrk -t2 -c"$C" -d"${D}s" --latency -H "Cookie: auth=$(cat "$TMP/reader-$1")" "http://$(addr "$1")$2" >"$TMP/wrk"
	t1=$(ticks "$1")
	awk -v t="$((t1 - t0))" -v hz="$HZ" '/Requests\/sec/ {rps=$2}
		/requests in/ {n=$1}
		/^ +99%/ {v=$2; if (v ~ /us$/) p=v/1000; else if (v ~ /ms$/) p=v+0; else p=v*1000}
		/Non-2xx|Socket errors/ {print "bench-pages: " $0 > "/dev/stderr"}
		END {printf "%s %.2f %.1f\n", rps, p, 1e6 * t / hz / n}' "$TMP/wrk"
}
echo "wrk -t2 -c$C -d${D}s --latency, $ROUNDS interleaved round(s): $SERVERS"
for i in $(seq "$ROUNDS"); do
	for path in $PATHS; do
		for srv in $SERVERS; do
			set -- $(run "$srv" "$path")
			echo "$srv $path $1 $2 $3" >>"$TMP/rounds"
			printf 'round %s  %-6s %-18s %10s req/s  p99 %7s ms  %6s µs CPU/req\n' "$i" "$srv" "$path" "$1" "$2" "$3"
		done
	done
done
if [ -n "${PPROF:-}" ]; then
	curl -fs -o "$PPROF" "http://$(maddr after)/debug/pprof/profile?seconds=$((D - 2))" &
	CURL=$!
	run after "${PPROF_PATH:-/}" >/dev/null
	wait $CURL
	echo "CPU profile of ${PPROF_PATH:-/}: $PPROF"
fi
# median SERVER PATH COLUMN: "median min max" of a column (3 req/s, 4 p99, 5 CPU).
median() {
	awk -v s="$1" -v p="$2" -v c="$3" '$1 == s && $2 == p {print $c}' "$TMP/rounds" | sort -n |
		awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%s %s %s", m, v[1], v[NR]}'
}
echo
printf '%-6s %-18s %26s %10s %10s %12s\n' server path "median req/s (min-max)" "p99 (ms)" "of static" "CPU µs/req"
for srv in $SERVERS; do
	static=$(median "$srv" /static/style.css 3 | cut -d' ' -f1)
	for path in $PATHS; do
		set -- $(median "$srv" "$path" 3)
		p99=$(median "$srv" "$path" 4 | cut -d' ' -f1)
		cpu=$(median "$srv" "$path" 5 | cut -d' ' -f1)
		printf '%-6s %-18s %10.0f (%6.0f-%6.0f) %10s %9.1f%% %12s\n' "$srv" "$path" "$1" "$2" "$3" "$p99" "$(echo "100 * $1 / $static" | bc -l)" "$cpu"
	done
done
if [ -n "${RETWIS_BASE:-}" ]; then
	echo
	for path in $PATHS; do
		b=$(median before "$path" 3 | cut -d' ' -f1)
		a=$(median after "$path" 3 | cut -d' ' -f1)
		cb=$(median before "$path" 5 | cut -d' ' -f1)
		ca=$(median after "$path" 5 | cut -d' ' -f1)
		printf 'after / before %-18s req/s %5.2f×  CPU per request %5.2f×\n' "$path" "$(echo "$a / $b" | bc -l)" "$(echo "$ca / $cb" | bc -l)"
	done
fi
