#!/bin/sh
# Measures retwis's static route (/static/style.css, through the
# middleware of the pages) against a bare Go hello-world
# (internal/hellobench) on the same machine in the same run, with wrk
# against each in turn, interleaved for ROUNDS rounds so that whatever
# else the machine does weighs on all alike. Two more columns tell the
# costs apart: the bare server answering with the bytes of style.css
# (what the body costs, without any middleware), and the static route
# asked as browsers ask, with Accept-Encoding: gzip. Prints each round,
# then each column's median req/s with its spread (min-max) and its
# ratio to the hello-world's median.
# Usage: scripts/bench-static.sh [rounds] [connections] [seconds]
# RETWIS_FLAGS adds flags to `retwis serve` (e.g. "--log-flush 0");
# RETWIS_BIN runs that retwis binary instead of one built from the tree;
# RETWIS_BASE serves that one (an older build) too, beside the tree's,
# and adds its two columns to every round, for a before-and-after in one
# sitting.
set -eu
command -v wrk >/dev/null || { echo "bench-static: wrk is needed (apt-get install wrk)" >&2; exit 1; }
ROUNDS=${1:-3}
C=${2:-64}
D=${3:-10}
TMP=$(mktemp -d)
if [ -n "${RETWIS_BIN:-}" ]; then cp "$RETWIS_BIN" "$TMP/retwis"; else go build -o "$TMP/retwis" ./cmd/retwis; fi
go build -o "$TMP/hello" ./internal/hellobench
RETWIS=127.0.0.1:18092
BASE=127.0.0.1:18097
HELLO=127.0.0.1:18093
HELLOCSS=127.0.0.1:18094
mkdir "$TMP/data"
"$TMP/retwis" serve --addr $RETWIS --data-dir "$TMP/data" --metrics-addr '' ${RETWIS_FLAGS:-} 2>"$TMP/retwis.log" &
PIDS=$!
"$TMP/hello" $HELLO &
PIDS="$PIDS $!"
"$TMP/hello" $HELLOCSS internal/web/assets/static/style.css &
PIDS="$PIDS $!"
URLS="http://$RETWIS/static/style.css http://$HELLO/ http://$HELLOCSS/"
if [ -n "${RETWIS_BASE:-}" ]; then
	cp "$RETWIS_BASE" "$TMP/base"
	mkdir "$TMP/data-base"
	"$TMP/base" serve --addr $BASE --data-dir "$TMP/data-base" --metrics-addr '' ${RETWIS_FLAGS:-} 2>"$TMP/base.log" &
	PIDS="$PIDS $!"
	URLS="$URLS http://$BASE/static/style.css"
fi
trap 'kill $PIDS; wait $PIDS 2>/dev/null; rm -rf "$TMP"' EXIT
for url in $URLS; do
	until curl -fs -o /dev/null "$url"; do sleep 0.1; done
done
rps() { wrk -t2 -c"$C" -d"${D}s" "$@" | awk '/Requests\/sec/ {print $2} /Non-2xx|Socket errors/ {print "bench-static: " $0 > "/dev/stderr"}'; }
echo "wrk -t2 -c$C -d${D}s, $ROUNDS interleaved rounds; req/s"
printf '%-6s %12s %12s %12s %12s' round hello-world bare-css static static-gzip
[ -z "${RETWIS_BASE:-}" ] || printf ' %12s %12s' base-static base-gzip
echo
for i in $(seq "$ROUNDS"); do
	h=$(rps http://$HELLO/)
	b=$(rps http://$HELLOCSS/)
	s=$(rps http://$RETWIS/static/style.css)
	g=$(rps -H 'Accept-Encoding: gzip, deflate, br' http://$RETWIS/static/style.css)
	line="$h $b $s $g"
	if [ -n "${RETWIS_BASE:-}" ]; then
		line="$line $(rps http://$BASE/static/style.css) $(rps -H 'Accept-Encoding: gzip, deflate, br' http://$BASE/static/style.css)"
	fi
	echo "$line" >>"$TMP/rounds"
	printf '%-6s' "$i"; printf ' %12s' $line; echo
done
median() { cut -d' ' -f"$1" "$TMP/rounds" | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.0f %.0f %.0f", m, v[1], v[NR]}'; }
hm=$(median 1 | cut -d' ' -f1)
col=1
NAMES="hello-world bare-css static static-gzip"
[ -z "${RETWIS_BASE:-}" ] || NAMES="$NAMES base-static base-gzip"
for name in $NAMES; do
	set -- $(median $col)
	printf '%-12s median %7s req/s (%s-%s)  %5.1f%% of hello-world\n' "$name" "$1" "$2" "$3" "$(echo "100 * $1 / $hm" | bc -l)"
	col=$((col + 1))
done
echo "static / hello-world per round: $(awk '{printf "%.1f%% ", 100*$3/$1}' "$TMP/rounds")"
echo "static / bare-css per round:    $(awk '{printf "%.1f%% ", 100*$3/$2}' "$TMP/rounds")"
[ -z "${RETWIS_BASE:-}" ] || echo "static / base-static per round: $(awk '{printf "%.2f× ", $3/$5}' "$TMP/rounds")"
