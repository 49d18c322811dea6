#!/bin/sh
# Counts the methods of Mastodon's client API that retwis implements, by
# version, against the method list of Mastodon's documentation
# (docs/mastodon-methods.tsv), and lists those it lacks: answered with
# an empty list (operations tagged "empty" in internal/api/openapi.json),
# always refused ("unsupported"), or missing. TestMastodonMethods keeps
# the README's "N of M methods of Mastodon X.Y" true.
# update also writes docs/mastodon-entities.tsv, the attributes of the
# documentation's entities, which TestClientReplays checks answers by.
# Usage: scripts/api-methods.sh report [VERSIONS]   e.g. report 4.2,4.3
#        scripts/api-methods.sh update [DOCS]       both lists anew
# update reads DOCS, a checkout of github.com/mastodon/documentation, or
# clones its newest commit.
set -eu
cd "$(dirname "$0")/.."
case ${1:-report} in
report)
	go test ./internal/api -run '^TestMastodonMethods$' -count=1 -v -methods-report="${2:-4.0,4.1,4.2,4.3,4.4,4.5}" |
		sed -n 's/^ *methods_test.go:[0-9]*: //p; /^ \{6,\}[a-z]/p'
	;;
update)
	DOCS=${2:-}
	if [ -z "$DOCS" ]; then
		DOCS=$(mktemp -d)
		trap 'rm -rf "$DOCS"' EXIT
		git clone -q --depth 1 https://github.com/mastodon/documentation "$DOCS"
	fi
	MASTODON_DOCS_COMMIT=$(git -C "$DOCS" rev-parse HEAD 2>/dev/null || echo "(not a git checkout)") \
		go test ./internal/api -run '^TestMastodonMethods$' -count=1 -mastodon-docs="$(cd "$DOCS" && pwd)"
	;;
*)
	sed -n '2,14s/^# \{0,1\}//p' "$0" >&2
	exit 2
	;;
esac
