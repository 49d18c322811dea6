#!/bin/sh
# Soaks tests to find flakes: runs each package's tests COUNT times
# (default 20) under the race detector, stopping a package at its first
# failure, and prints each package's outcome with the command that
# reproduces it. Packages run one after the other, so that a shared
# machine stays usable and the runs are comparable; the same command
# soaks the same tests again. Exits 1 if any package failed.
# Usage: [COUNT=n] scripts/soak.sh [package pattern ..., default ./...]
set -eu
COUNT=${COUNT:-20}
log=$(mktemp "${TMPDIR:-/tmp}/retwis-soak.XXXXXX")
trap 'rm -f "$log"' EXIT
[ $# -gt 0 ] || set -- ./...
failed=0
pkgs=$(go list "$@")
for pkg in $pkgs; do
	start=$(date +%s)
	if go test -race -count="$COUNT" -failfast "$pkg" >"$log" 2>&1; then
		outcome=ok
		if grep -q '\[no test files\]' "$log"; then outcome=none; fi
	else
		outcome=FAIL
		failed=$((failed + 1))
	fi
	printf '%-4s %s (%ds): go test -race -count=%s -failfast %s\n' \
		"$outcome" "$pkg" $(($(date +%s) - start)) "$COUNT" "$pkg"
	if [ "$outcome" = FAIL ]; then
		sed 's/^/	/' "$log"
	fi
done
echo "soak: $failed of $(echo "$pkgs" | wc -w) packages failed (COUNT=$COUNT)"
[ "$failed" -eq 0 ]
