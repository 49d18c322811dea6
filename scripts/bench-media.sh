#!/bin/sh
# Measures the routes of pictures against the static route in the same
# run, with wrk against each in turn, interleaved for ROUNDS rounds so
# that whatever else the machine does weighs on all alike: a small copy
# (/media/…/small.jpg, 400 px, some 30 KB: what timelines show), an
# original (/media/…/original.jpg, 1920 px, some 450 KB: what a click
# opens), a generated avatar (/avatars/<id> of an account without one:
# the PNG made from its id), and /static/style.css (the baseline). The
# pictures are files of the directory storage, made as processing makes
# them (JPEG of a photo-like picture). Prints each round, then each
# column's median req/s with its spread (min-max), its ratio to the
# static route's median, and the MB/s it moved.
# Usage: scripts/bench-media.sh [rounds] [connections] [seconds]
set -eu
command -v wrk >/dev/null || { echo "bench-media: wrk is needed (apt-get install wrk)" >&2; exit 1; }
ROUNDS=${1:-3}
C=${2:-64}
D=${3:-10}
TMP=$(mktemp -d)
go build -o "$TMP/retwis" ./cmd/retwis
cat >"$TMP/gen.go" <<'GO'
// Command gen writes a photo-like JPEG of w x h pixels to a file.
package main

import (
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	w, _ := strconv.Atoi(os.Args[2])
	h, _ := strconv.Atoi(os.Args[3])
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(24))
			img.SetRGBA(x, y, color.RGBA{uint8(x/10) + n, uint8(y/8) + n, uint8((x+y)/16) + n, 255})
		}
	}
	f, _ := os.Create(os.Args[1])
	jpeg.Encode(f, img, &jpeg.Options{Quality: 82})
	f.Close()
}
GO
mkdir -p "$TMP/media/1/2"
(cd "$TMP" && go run gen.go "$TMP/media/1/2/small.jpg" 400 300 && go run gen.go "$TMP/media/1/2/original.jpg" 1920 1440)
ADDR=127.0.0.1:18098
"$TMP/retwis" serve --addr $ADDR --data-dir "$TMP/data" --media-dir "$TMP/media" --metrics-addr '' 2>"$TMP/retwis.log" &
PID=$!
trap 'kill $PID; wait $PID 2>/dev/null; rm -rf "$TMP"' EXIT
PATHS="/static/style.css /media/1/2/small.jpg /media/1/2/original.jpg /avatars/1"
for p in $PATHS; do
	until curl -fs -o /dev/null "http://$ADDR$p"; do sleep 0.1; done
done
echo "sizes (bytes): $(for p in $PATHS; do printf '%s %s  ' "$p" "$(curl -s "http://$ADDR$p" | wc -c)"; done)"
rps() { wrk -t2 -c"$C" -d"${D}s" "$@" | awk '/Requests\/sec/ {print $2} /Non-2xx|Socket errors/ {print "bench-media: " $0 > "/dev/stderr"}'; }
echo "wrk -t2 -c$C -d${D}s, $ROUNDS interleaved rounds; req/s"
printf '%-6s %12s %12s %12s %12s\n' round static small original avatar
for i in $(seq "$ROUNDS"); do
	line=""
	for p in $PATHS; do line="$line $(rps "http://$ADDR$p")"; done
	line=${line# }
	echo "$line" >>"$TMP/rounds"
	printf '%-6s' "$i"; printf ' %12s' $line; echo
done
median() { cut -d' ' -f"$1" "$TMP/rounds" | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.0f %.0f %.0f", m, v[1], v[NR]}'; }
base=$(median 1 | cut -d' ' -f1)
col=1
for p in $PATHS; do
	size=$(curl -s "http://$ADDR$p" | wc -c)
	set -- $(median $col)
	printf '%-26s median %7s req/s (%s-%s)  %5.2f× static  %6.0f MB/s\n' "$p" "$1" "$2" "$3" "$(echo "$1 / $base" | bc -l)" "$(echo "$1 * $size / 1000000" | bc -l)"
	col=$((col + 1))
done
