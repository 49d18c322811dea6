#!/bin/sh
# Measures `retwis gen` to /dev/null (the generator alone, no Redis)
# against a base commit, in interleaved rounds whose order alternates
# (base new, new base, ...): wall seconds, CPU seconds (user + system:
# what a shared machine moves least) and peak RSS of each run, then
# the medians and their ratio, new / base.
# Usage: BASE=<commit> scripts/bench-gen.sh [users] [posts] [rounds]
set -eu
USERS=${1:-100000}
POSTS=${2:-500000}
ROUNDS=${3:-5}
BASE=${BASE:?set BASE to the commit to compare with}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/src" && git archive "$BASE" | tar -x -C "$WORK/src"
(cd "$WORK/src" && go build -o "$WORK/base" ./cmd/retwis)
go build -o "$WORK/new" ./cmd/retwis
one() { # label
	/usr/bin/time -f "%e %U %S %M" -o "$WORK/t" "$WORK/$1" gen --users "$USERS" --follows 20 --posts "$POSTS" 2>"$WORK/$1.err" >/dev/null
	read -r wall user sys rss <"$WORK/t"
	cpu=$(echo "$user + $sys" | bc)
	echo "$1 wall $wall cpu $cpu rss ${rss}KiB" | tee -a "$WORK/all"
}
echo "gen --users $USERS --follows 20 --posts $POSTS, $ROUNDS rounds"
for round in $(seq "$ROUNDS"); do
	if [ $((round % 2)) = 1 ]; then one base; one new; else one new; one base; fi
done
for l in base new; do tail -1 "$WORK/$l.err"; done
median() { grep "^$1 " "$WORK/all" | awk -v f="$2" '{print $f}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], "(" a[1] "-" a[NR] ")"}'; }
for l in base new; do echo "$l: median wall $(median $l 3) s, cpu $(median $l 5) s"; done
bw=$(median base 3 | cut -d' ' -f1); nw=$(median new 3 | cut -d' ' -f1)
bc_=$(median base 5 | cut -d' ' -f1); nc=$(median new 5 | cut -d' ' -f1)
echo "ratio new/base: wall $(echo "scale=3; $nw / $bw" | bc), cpu $(echo "scale=3; $nc / $bc_" | bc)"
