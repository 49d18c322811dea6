#!/bin/sh
# Compares two revisions of retwis on the same seeded database: builds
# both, seeds a fresh redis-server with the second (the newer layout),
# then serves it with each in turn and runs `retwis bench` on the
# scenarios asked, alternating, for the given number of rounds.
# Usage: scripts/bench-ab.sh OLD-REV NEW-REV [scenarios] [rounds]
# e.g.   scripts/bench-ab.sh 2bc8b73 HEAD home,profile 2
# SETUP, if set, is a subcommand of the new binary run on the seeded
# database (with --redis), e.g. SETUP='admin announce Hello'.
set -eu
# The load comes from one address and a few accounts: no rate limits.
export RETWIS_RATE_LIMITS=false
OLD=$1
NEW=$2
SCENARIOS=${3:-home,profile}
ROUNDS=${4:-2}
WORK=$(mktemp -d)
PORT=16396
ADDR=127.0.0.1:18096
for v in old new; do
	rev=$OLD; [ $v = new ] && rev=$NEW
	git worktree add -q --detach "$WORK/src-$v" "$rev"
	(cd "$WORK/src-$v" && go build -o "$WORK/retwis-$v" ./cmd/retwis)
	git worktree remove --force "$WORK/src-$v"
done
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$WORK" >/dev/null
until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.1; done
PID=
trap 'kill $PID 2>/dev/null || true; wait; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1; rm -rf "$WORK"' EXIT
serve() {
	"$WORK/retwis-$1" serve --addr $ADDR --redis redis://127.0.0.1:$PORT 2>/dev/null &
	PID=$!
	until curl -fs http://$ADDR/healthz >/dev/null; do sleep 0.1; done
}
serve new
"$WORK/retwis-new" bench --url http://$ADDR --redis redis://127.0.0.1:$PORT --seed --users 10000 --posts 200000 --follows 50 \
	--connections 4 --duration 1s --scenarios home | grep -E "^(seeded|memory)"
kill $PID; wait $PID 2>/dev/null || true
if [ -n "${SETUP:-}" ]; then
	# shellcheck disable=SC2086 # SETUP is words
	"$WORK/retwis-new" $SETUP --redis redis://127.0.0.1:$PORT
fi
for round in $(seq "$ROUNDS"); do
	for v in old new; do
		serve $v
		echo "== $v ($([ $v = old ] && echo "$OLD" || echo "$NEW")), round $round"
		"$WORK/retwis-new" bench --url http://$ADDR --redis redis://127.0.0.1:$PORT --connections 64 --duration 10s \
			--scenarios "$SCENARIOS" | grep -E "^(static|healthz|[a-z-]+) +[0-9]"
		kill $PID; wait $PID 2>/dev/null || true
	done
done
