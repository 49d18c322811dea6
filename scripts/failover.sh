#!/bin/sh
# What a master's failure costs the users, on the recommended topology
# (3 masters with two replicas each, min-replicas-to-write 1) with two
# retwis servers under an open-loop load (a request every 4 ms: of every
# 20, 9 home pages, 8 posts, 2 follows and a sign-up): for each fault (a
# master killed, frozen, killed while its replicas lag), with nobody's
# help and with an operator who restarts the failed node, the share of
# requests served until a replica took over and the time to full
# service; medians and ranges of the runs. docs/OPERATIONS.md has the
# figures ("What a failover costs").
# Usage: scripts/failover.sh [runs] [failoverbench flags...]   (about 3 minutes a run)
set -eu
RUNS=${1:-3}
[ $# -gt 0 ] && shift
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
go build -o "$WORK/retwis" ./cmd/retwis
go build -o "$WORK/failoverbench" ./internal/failoverbench
"$WORK/failoverbench" -retwis "$WORK/retwis" -dir "$WORK" -runs "$RUNS" "$@"
