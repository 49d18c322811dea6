#!/bin/sh
# Installs Debian's redis-server package (which brings redis-cli) when
# redis-server or redis-cli is missing. Used by `make run` and `make test`.
set -eu
if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-redis: redis-server is missing and there is no apt-get; install Redis 7 yourself" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
echo "ensure-redis: installing Debian's redis-server package" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends redis-server >/dev/null
redis-server --version
