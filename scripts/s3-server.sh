#!/bin/sh
# Builds SeaweedFS's `weed`, the S3-compatible server the tests of the
# S3 blob store run against (internal/testkit/s3test), into
# $(go env GOPATH)/bin/weed, unless a weed of the pinned version is
# already there. `go install` refuses the module (its go.mod has replace
# directives), so the script builds it from the module's source, which
# `go mod download` fetches from the module proxy into a copy it may
# write to. Used by `make test`; a clean build takes about 560 s of CPU,
# some 5 minutes on 2 cores, and 2.6 GB of memory (docs/PERFORMANCE.md).
set -eu
MODULE=github.com/seaweedfs/seaweedfs
VERSION=v0.0.0-20261109003541-7506e5f91cd6
# What `weed version` prints for VERSION.
RELEASE=4.53
GO=${GO:-go}
BIN=$($GO env GOPATH | cut -d: -f1)/bin
if [ -x "$BIN/weed" ] && "$BIN/weed" version 2>/dev/null | grep -q " $RELEASE "; then
	exit 0
fi
echo "s3-server: building SeaweedFS $RELEASE into $BIN/weed (a few minutes, once)…" >&2
src=$($GO mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$src" ]; then
	echo "s3-server: go mod download $MODULE@$VERSION gave no source folder" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -R "$src/." "$work/"
chmod -R u+w "$work"
mkdir -p "$BIN"
(cd "$work" && GOFLAGS=-buildvcs=false $GO build -trimpath -o "$BIN/weed.tmp" ./weed)
mv "$BIN/weed.tmp" "$BIN/weed"
