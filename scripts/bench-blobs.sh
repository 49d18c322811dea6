#!/bin/sh
# Compares the two blob stores of media on a 400 KB blob (the put of a
# new one, the read of one whole: blobstest.Bench): the directory store
# (internal/media/dirblobs, on the temporary folder's file system) and
# the S3 store (internal/media/s3blobs, on a local SeaweedFS that the
# test binary starts, as `make test` does), in interleaved rounds (dir
# s3 dir s3 …), then prints each benchmark's median, range and s3/dir
# ratio. Usage: scripts/bench-blobs.sh [rounds] [benchtime]
set -eu
ROUNDS=${1:-5} TIME=${2:-100x}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
go test -c -o "$WORK/dir.test" ./internal/media/dirblobs
go test -c -o "$WORK/s3.test" ./internal/media/s3blobs
for round in $(seq "$ROUNDS"); do
	for v in dir s3; do
		"$WORK/$v.test" -test.run '^$' -test.bench Blobs -test.benchtime "$TIME" |
			grep '^Benchmark' | sed "s/^/$v /" | tee -a "$WORK/rounds"
	done
done
echo
# name, then per store: median, min, max (ms a blob); the ratio of the medians.
awk '{ for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") print $2, $1, $i / 1e6 }' "$WORK/rounds" |
	sort -k1,1 -k2,2 -k3,3g |
	awk 'function flush() { if (n) { m = (n % 2) ? x[(n+1)/2] : (x[n/2] + x[n/2+1]) / 2; med[key] = m; lo[key] = x[1]; hi[key] = x[n] }; n = 0 }
	{ k = $1 " " $2; if (k != key) { flush(); key = k; names[$1] = 1 }; x[++n] = $3 }
	END { flush(); for (b in names) printf "%-24s dir %7.2f ms (%.2f–%.2f)  s3 %7.2f ms (%.2f–%.2f)  s3/dir %.1f\n", b,
		med[b " dir"], lo[b " dir"], hi[b " dir"], med[b " s3"], lo[b " s3"], hi[b " s3"], med[b " s3"] / med[b " dir"] }'
