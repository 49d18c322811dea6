#!/bin/sh
# Summarizes the output of `go test -json` (make test-times writes it):
# the wall time from the first event to the last, the sum of the
# packages' run times, and the N slowest packages and top-level tests
# (default 15), by their Elapsed.
# Usage: scripts/test-times.sh FILE.json [N]
set -eu
file=$1
n=${2:-15}
# Each line of go test -json is one flat object: the fields taken here
# never hold a quote.
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
first=$(head -n 1 "$file" | field Time)
last=$(tail -n 1 "$file" | field Time)
echo "from $first to $last"
ended=$(grep -E '"Action":"(pass|fail)"' "$file" | grep '"Elapsed"')
packages=$(echo "$ended" | grep -v '"Test":' || true)
echo "$packages" | awk -F'"Elapsed":' '{ sum += $2 + 0 } END { printf "sum of the packages run times: %.0f s\n", sum }'
echo "slowest packages (s):"
echo "$packages" | while read -r line; do
	printf '%8.1f %s %s\n' "$(echo "$line" | field Elapsed)" "$(echo "$line" | field Action)" "$(echo "$line" | field Package)"
done | sort -rn | head -n "$n"
echo "slowest top-level tests (s):"
echo "$ended" | grep '"Test":"[^"/]*"' | while read -r line; do
	printf '%8.1f %s %s %s\n' "$(echo "$line" | field Elapsed)" "$(echo "$line" | field Action)" "$(echo "$line" | field Package)" "$(echo "$line" | field Test)"
done | sort -rn | head -n "$n"
