#!/bin/sh
# Installs the Debian packages that provide missing commands. Each
# argument is COMMAND=PACKAGE: PACKAGE is installed when COMMAND is not
# on the PATH. Used by `make run` (redis-server) and `make test`
# (redis-server, redis-cli, chromium for the browser tests, node and npm
# for the Mastodon client libraries of npm that internal/api tests with).
set -eu
missing=""
for pair in "$@"; do
	cmd=${pair%%=*}
	pkg=${pair#*=}
	if ! command -v "$cmd" >/dev/null 2>&1; then
		case " $missing " in
		*" $pkg "*) ;;
		*) missing="$missing $pkg" ;;
		esac
	fi
done
if [ -z "$missing" ]; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-packages: missing$missing and there is no apt-get; install them yourself" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
echo "ensure-packages: installing Debian's$missing" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
