#!/bin/sh
# Fuzzes every Go fuzz test of the module for a short budget each
# (FUZZTIME, default 3s): `make test` runs it after the tests, which
# only replay the seed corpora. A failing input is written under the
# package's testdata/fuzz, where `go test` replays it from then on.
# Usage: scripts/fuzz.sh [package pattern, default ./...]
set -eu
FUZZTIME=${FUZZTIME:-3s}
go list -f '{{.Dir}} {{.ImportPath}}' "${1:-./...}" | while read -r dir pkg; do
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		echo "fuzz $pkg $target ($FUZZTIME)"
		go test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" >"${TMPDIR:-/tmp}/retwis-fuzz.log" 2>&1 || {
			cat "${TMPDIR:-/tmp}/retwis-fuzz.log"
			exit 1
		}
	done
done
