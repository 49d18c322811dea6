#!/bin/sh
# Fuzzes every Go fuzz test of the module for a short budget each
# (FUZZTIME, default 1s; FUZZTIME=1m for a longer search): `make test`
# runs it after the tests, which only replay the seed corpora. Each
# package's test binary is built once, instrumented for fuzzing, and
# then runs each of its targets, so a package with several targets is
# not compiled again for each. The corpus of inputs found interesting
# is kept between runs, where go test keeps it, so short runs add up. A
# failing input is written under the package's testdata/fuzz, where
# `go test` replays it from then on.
# FUZZ_WORKERS bounds the processes fuzzing at once (default: one per
# core); `make test` fuzzes on one while the tests run.
# Usage: scripts/fuzz.sh [package pattern, default ./...]
set -eu
FUZZTIME=${FUZZTIME:-1s}
workers=${FUZZ_WORKERS:+-test.parallel $FUZZ_WORKERS}
work=$(mktemp -d "${TMPDIR:-/tmp}/retwis-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The corpus of inputs found interesting, kept between runs where go test
# keeps it.
cache="$(go env GOCACHE)/fuzz"
go list -f '{{.Dir}} {{.ImportPath}}' "${1:-./...}" | while read -r dir pkg; do
	targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u)
	[ -n "$targets" ] || continue
	bin="$work/$(echo "$pkg" | tr / _).test"
	go test -c -fuzz . ${FUZZ_WORKERS:+-p $FUZZ_WORKERS} -o "$bin" "$pkg"
	for target in $targets; do
		echo "fuzz $pkg $target ($FUZZTIME)"
		# From the package's directory, as go test runs it: a failing
		# input goes to its testdata/fuzz.
		found="$dir/testdata/fuzz/$target"
		before=$(ls "$found" 2>/dev/null | wc -l)
		(cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^$target\$" -test.fuzztime "$FUZZTIME" $workers \
			-test.fuzzcachedir "$cache/$pkg") >"$work/log" 2>&1 || {
			cat "$work/log"
			# Go 1.26's fuzzing coordinator may fail a target with a bare
			# "context deadline exceeded" when the budget ends while a
			# worker is busy (go.dev/issue/75804, fixed in Go 1.27): no
			# input failed, none is written. A real finding writes one.
			if [ "$(ls "$found" 2>/dev/null | wc -l)" -eq "$before" ] &&
				grep -qx '    context deadline exceeded' "$work/log" && ! grep -q -e '^panic' -e 'Failing input' "$work/log"; then
				echo "fuzz $pkg $target: the budget ended mid-run (go.dev/issue/75804); no failing input, going on"
				continue
			fi
			exit 1
		}
	done
done
