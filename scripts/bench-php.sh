#!/bin/sh
# retwis side by side with PHP Retwis (the tutorial's original, served by
# nginx and php-fpm from Debian), on one database written in PHP
# Retwis's layout: 1,000 users who follow 50 others each (50,000 follows)
# and 20,000 posts already delivered to their authors' followers. Every
# server gets its own redis-server with a copy of that database; retwis
# migrates its copy at its first start (docs/OPERATIONS.md), and its
# background indexing is finished before anything is measured.
#
# For ROUNDS interleaved rounds, with wrk -t2 -c64 for SECONDS a scenario,
# each server in turn:
#   home      the home page of a user who follows 50 (home.php, /)
#   profile   the profile of a user who posts (profile.php?u=, /u/)
#   global    the global timeline (timeline.php, /timeline)
#   post      posting (post.php, POST /post), 64 users with ~50 followers
#             each, one connection each; then, for retwis, the time from
#             the end of the storm until the delivery backlog is empty
#   storm     home pages (wrk -c8) while the 64 users post, against the
#             same home pages alone just before (quiet)
#   static    retwis's /static/style.css, and a bare Go hello-world
#             (internal/hellobench) in the same round
# then prints each figure's median over the rounds with its spread, and
# the ratios the issue asks for.
#
# Usage: scripts/bench-php.sh [rounds] [seconds]
#   PHP_RETWIS  a checkout of github.com/antirez/retwis (a directory or a
#               git directory); by default it is downloaded from GitHub
#   BEFORE      a revision of retwis measured too, as a "before" column
#   PHP_CHILDREN  php-fpm's static pool size (default 32)
#   SCENARIOS   the scenarios measured (default: all of them, "home
#               profile global post storm static"); post includes the drain
#   NO_PHP=1    measures retwis alone (for a quick look, not a comparison)
#   PROFILE     a directory: in the first round, a CPU profile of each
#               retwis server for each scenario (DIR/TARGET-SCENARIO.pprof)
#               and Redis's commands by CPU time (.redis: usec, calls)
# Needs wrk, nginx, php-fpm and redis-server (installed with apt-get when
# missing). The ports used are 16410-16415 and 18410-18416.
set -eu
ROUNDS=${1:-3}
D=${2:-10}
CHILDREN=${PHP_CHILDREN:-32}
REPO=$(cd "$(dirname "$0")/.." && pwd)
sh "$REPO/scripts/ensure-packages.sh" wrk=wrk nginx=nginx redis-server=redis-server redis-cli=redis-tools
# php-fpm's command is named for its PHP version (php-fpm8.2): asked for
# by a name no version has, the package is installed when none is there.
ls /usr/sbin/php-fpm* >/dev/null 2>&1 || sh "$REPO/scripts/ensure-packages.sh" php-fpm=php-fpm
FPM=$(ls /usr/sbin/php-fpm* 2>/dev/null | head -1)
[ -n "$FPM" ] || { echo "bench-php: no php-fpm in /usr/sbin after installing php-fpm" >&2; exit 1; }
export RETWIS_RATE_LIMITS=false # the load comes from one address
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-php.XXXXXX")
PIDS=
stop() {
	kill $PIDS 2>/dev/null || true
	wait 2>/dev/null || true
	[ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null
	[ -f "$WORK/fpm.pid" ] && kill "$(cat "$WORK/fpm.pid")" 2>/dev/null
	for p in 16410 16411 16412; do redis-cli -p $p shutdown nosave >/dev/null 2>&1 || true; done
	rm -rf "$WORK"
}
trap stop EXIT
trap "exit 1" INT TERM HUP

# The servers measured: php, after (this tree) and, with BEFORE, before.
TARGETS="php after"
SCENARIOS=${SCENARIOS:-home profile global post storm static}
# wants scenario: whether the run measures it.
wants() { case " $SCENARIOS " in *" $1 "*) return 0 ;; esac; return 1; }
go build -o "$WORK/retwis-after" "$REPO/cmd/retwis"
if [ -n "${BEFORE:-}" ]; then
	TARGETS="php before after"
	git -C "$REPO" worktree add -q --detach "$WORK/src-before" "$BEFORE"
	(cd "$WORK/src-before" && go build -o "$WORK/retwis-before" ./cmd/retwis)
	git -C "$REPO" worktree remove --force "$WORK/src-before"
fi
[ "${NO_PHP:-}" = 1 ] && TARGETS=${TARGETS#php }
go build -o "$WORK/hello" "$REPO/internal/hellobench"

# PHP Retwis, pointed at its own redis-server.
mkdir "$WORK/php"
if [ -n "${PHP_RETWIS:-}" ] && [ -f "$PHP_RETWIS/HEAD" ]; then
	git --git-dir "$PHP_RETWIS" archive HEAD | tar -x -C "$WORK/php"
elif [ -n "${PHP_RETWIS:-}" ]; then
	cp -R "$PHP_RETWIS"/. "$WORK/php"
elif ! curl -fsSL https://codeload.github.com/antirez/retwis/tar.gz/refs/heads/master | tar -xz --strip-components=1 -C "$WORK/php"; then
	echo "bench-php: cannot download PHP Retwis; set PHP_RETWIS to a checkout of github.com/antirez/retwis" >&2
	exit 1
fi
sed -i "s|new Predis\\\\Client()|new Predis\\\\Client('tcp://127.0.0.1:16410')|" "$WORK/php/retwis.php"
grep -q 16410 "$WORK/php/retwis.php" || { echo "bench-php: retwis.php has no 'new Predis\\Client()' to point at Redis" >&2; exit 1; }
ME=$(id -un)
cat >"$WORK/fpm.conf" <<EOF
[global]
pid = $WORK/fpm.pid
error_log = $WORK/fpm.log
daemonize = yes
[retwis]
user = $ME
listen = $WORK/fpm.sock
pm = static
pm.max_children = $CHILDREN
php_admin_flag[short_open_tag] = on
php_admin_value[error_reporting] = E_ALL & ~E_DEPRECATED & ~E_NOTICE & ~E_WARNING
EOF
cat >"$WORK/nginx.conf" <<EOF
$([ "$(id -u)" -eq 0 ] && echo "user root;")
worker_processes 2;
pid $WORK/nginx.pid;
error_log $WORK/nginx.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $WORK/nginx-body;
	fastcgi_temp_path $WORK/nginx-fastcgi;
	proxy_temp_path $WORK/nginx-proxy;
	scgi_temp_path $WORK/nginx-scgi;
	uwsgi_temp_path $WORK/nginx-uwsgi;
	server {
		listen 127.0.0.1:18410;
		root $WORK/php;
		index index.php;
		location ~ \\.php\$ {
			include /etc/nginx/fastcgi_params;
			fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
			fastcgi_pass unix:$WORK/fpm.sock;
		}
	}
}
EOF

# The database, in PHP Retwis's layout, written with redis-cli --pipe: what
# register.php, follow.php and post.php write, for 1,000 users, 50 follows
# each and 20,000 posts (pushed to the author's and followers' lists, and
# the global timeline trimmed to 1,001 as post.php does). The auth
# secrets go to cookies.txt, one line per user.
awk -v users=1000 -v follows=50 -v posts=20000 -v now="$(date +%s)" -v cookies="$WORK/cookies.txt" '
# c writes one command; its arguments are separated by tabs.
function c(line,    n, a, i) {
	n = split(line, a, "\t")
	printf "*%d\r\n", n
	for (i = 1; i <= n; i++) printf "$%d\r\n%s\r\n", length(a[i]), a[i]
}
BEGIN {
	srand(24)
	for (u = 1; u <= users; u++) {
		auth = sprintf("%08x%08x%08x%08x", u, int(rand() * 2147483647), int(rand() * 2147483647), int(rand() * 2147483647))
		print auth > cookies
		c("HMSET\tuser:" u "\tusername\tuser" u "\tpassword\tpassword1\tauth\t" auth)
		c("HSET\tusers\tuser" u "\t" u)
		c("HSET\tauths\t" auth "\t" u)
		c("ZADD\tusers_by_time\t" (now - 100000 + u) "\tuser" u)
	}
	for (u = 1; u <= users; u++) {
		delete picked
		for (n = 0; n < follows; ) {
			v = 1 + int(rand() * users)
			if (v == u || v in picked) continue
			picked[v] = 1; n++
			c("ZADD\tfollowers:" v "\t" (now - 50000) "\t" u)
			c("ZADD\tfollowing:" u "\t" (now - 50000) "\t" v)
			fol[v] = fol[v] " " u
		}
	}
	for (p = 1; p <= posts; p++) {
		a = 1 + int(rand() * users)
		c("HMSET\tpost:" p "\tuser_id\t" a "\ttime\t" (now - posts + p) "\tbody\tpost " p " by user" a ", of a realistic length for a status update on a microblog")
		c("LPUSH\tposts:" a "\t" p)
		k = split(fol[a], fs, " ")
		for (i = 1; i <= k; i++) c("LPUSH\tposts:" fs[i] "\t" p)
		c("LPUSH\ttimeline\t" p)
		c("LTRIM\ttimeline\t0\t1000")
	}
	c("SET\tnext_user_id\t" users)
	c("SET\tnext_post_id\t" posts)
}' >"$WORK/php.resp"

# One redis-server per server measured, each with a copy of the database.
redis_start() { # port dir
	if redis-cli -p "$1" ping >/dev/null 2>&1; then echo "bench-php: port $1 is in use" >&2; exit 1; fi
	mkdir -p "$2"
	redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$2" >/dev/null
	until redis-cli -p "$1" ping 2>/dev/null | grep -q PONG; do sleep 0.1; done
}
redis_start 16410 "$WORK/redis-php"
redis-cli -p 16410 --pipe <"$WORK/php.resp" | tail -1
redis-cli -p 16410 save >/dev/null
echo "database: $(redis-cli -p 16410 dbsize) keys, $(redis-cli -p 16410 info memory | awk -F: '/^used_memory_human/ {print $2}' | tr -d '\r') in PHP Retwis's layout"
port=16411
for t in $TARGETS; do
	[ "$t" = php ] && continue
	mkdir -p "$WORK/redis-$t"
	cp "$WORK/redis-php/dump.rdb" "$WORK/redis-$t/"
	redis_start $port "$WORK/redis-$t"
	eval "RPORT_$t=$port"
	port=$((port + 1))
done

"$FPM" $([ "$(id -u)" -eq 0 ] && echo -R) -y "$WORK/fpm.conf"
nginx -c "$WORK/nginx.conf" -e "$WORK/nginx.log"
"$WORK/hello" 127.0.0.1:18416 &
PIDS="$PIDS $!"
serve() { # target [flags]: starts retwis for target and waits until it is up
	t=$1; shift
	eval "h=\$HTTP_$t; rport=\$RPORT_$t"
	"$WORK/retwis-$t" serve --addr 127.0.0.1:$h --redis redis://127.0.0.1:$rport --metrics-addr 127.0.0.1:$((h + 2)) \
		--data-dir "$WORK/data-$t" "$@" 2>>"$WORK/retwis-$t.log" &
	pid=$!
	eval "PID_$t=$pid"
	PIDS="$PIDS $pid"
	until curl -fs -o /dev/null http://127.0.0.1:$h/healthz; do
		kill -0 $pid 2>/dev/null || { echo "bench-php: retwis ($t) stopped:" >&2; tail -5 "$WORK/retwis-$t.log" >&2; exit 1; }
		sleep 0.1
	done
}
http=18411
for t in $TARGETS; do
	[ "$t" = php ] && continue
	eval "HTTP_$t=$http"
	http=$((http + 1))
	# The migration at the first start asks maintenance to index what PHP
	# Retwis wrote: a server with frequent maintenance does it, and is then
	# replaced by one with the defaults, so that nothing indexes during the
	# load. Each backfill the migration asks for logs a line, and one more
	# when it is done (a revision of BEFORE may have fewer backfills).
	serve $t --maintenance-every 1s
	until asked=$(grep -c 'in the background, a batch each maintenance round' "$WORK/retwis-$t.log") &&
		[ "$asked" -gt 0 ] && [ "$(grep -c 'all indexed' "$WORK/retwis-$t.log")" -ge "$asked" ]; do sleep 0.2; done
	eval "kill \$PID_$t; wait \$PID_$t" || true
	serve $t
	echo "retwis ($t): migrated and indexed"
done
until curl -fs -o /dev/null http://127.0.0.1:18410/index.php; do sleep 0.1; done
READER=$(sed -n 100p "$WORK/cookies.txt")
for t in $TARGETS; do
	case $t in
	php) curl -fs -b "auth=$READER" http://127.0.0.1:18410/home.php | grep -q "user100, what you are doing" ||
		{ echo "bench-php: PHP Retwis does not show user100's home page:" >&2; cat "$WORK/fpm.log" "$WORK/nginx.log" >&2; exit 1; } ;;
	*) eval "h=\$HTTP_$t"
		curl -fs -b "auth=$READER" http://127.0.0.1:$h/ | grep -q "user100" ||
			{ echo "bench-php: retwis ($t) does not show user100's home page" >&2; exit 1; } ;;
	esac
done
cat >"$WORK/post.lua" <<'EOF'
-- Posts as the first 64 users of cookies.txt in turn, each status unique.
local threads = 0
function setup(thread)
	threads = threads + 1
	thread:set("id", threads)
end
local cookies, path, n = {}, nil, 0
function init(args)
	path = args[1]
	for line in io.lines(args[2]) do
		cookies[#cookies + 1] = line
		if #cookies == 64 then break end
	end
end
function request()
	n = n + 1
	return wrk.format("POST", path, {
		["Cookie"] = "auth=" .. cookies[n % #cookies + 1],
		["Content-Type"] = "application/x-www-form-urlencoded",
	}, "status=benchmark+post+" .. id .. "-" .. n .. "+of+a+realistic+length+for+a+status+update+on+a+microblog")
end
EOF

# wrkrun prints "req/s p99-ms": wrk's figures, with its errors on stderr.
wrkrun() {
	wrk --latency "$@" >"$WORK/wrk.out" 2>&1 || true
	awk '/Requests\/sec/ {r = $2}
		/^ +99%/ {p = $2; u = 1; if (p ~ /us$/) u = 0.001; else if (p ~ /ms$/) u = 1; else if (p ~ /s$/) u = 1000; sub(/[a-z]+$/, "", p); p *= u}
		/Non-2xx|Socket errors/ {print "bench-php: " $0 > "/dev/stderr"}
		END {printf "%.0f %.1f\n", r, p}' "$WORK/wrk.out"
}
redis_cpu() { redis-cli -p "$1" info cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.3f", s}'; }
# measure target scenario rport wrk-args...: one figure, with Redis's CPU
# per request in microseconds.
measure() {
	t=$1; sc=$2; rp=$3; shift 3
	profiling=
	if [ -n "${PROFILE:-}" ] && [ "$round" = 1 ] && [ "$t" != php ] && [ "$t" != hello ]; then
		profiling=$PROFILE/$t-$sc
		redis-cli -p "$rp" config resetstat >/dev/null
		curl -fs -o "$profiling.pprof" "http://127.0.0.1:$((h + 2))/debug/pprof/profile?seconds=$D" &
		curl_pid=$!
	fi
	c0=$(redis_cpu "$rp")
	set -- $(wrkrun "$@")
	c1=$(redis_cpu "$rp")
	if [ -n "$profiling" ]; then
		wait "$curl_pid" || echo "bench-php: no CPU profile of $t for $sc" >&2
		redis-cli -p "$rp" info commandstats | tr -d '\r' | awk -F'[:=,]' '/^cmdstat/ {print $5, $3, $1}' | sort -rn >"$profiling.redis"
	fi
	us=$(echo "$c0 $c1 $1 $D" | awk '{printf "%.1f", ($3 > 0 ? ($2 - $1) * 1e6 / ($3 * $4) : 0)}')
	echo "$round $t $sc $1 $2 $us" >>"$WORK/results"
	printf '  %-7s %-11s %7s req/s  p99 %6s ms  Redis %6s us/req\n' "$t" "$sc" "$1" "$2" "$us"
}
# drained port: seconds from now until the delivery backlog is empty.
drained() {
	start=$(date +%s.%N)
	until curl -fs "http://127.0.0.1:$1/metrics" | grep -q '^retwis_delivery_backlog 0$'; do sleep 0.02; done
	echo "$(date +%s.%N) $start" | awk '{printf "%.2f", $1 - $2}'
}

echo "wrk -t2 -c64 -d${D}s, $ROUNDS interleaved rounds; storm: wrk -t1 -c64 posting with wrk -t1 -c8 reading home"
for round in $(seq "$ROUNDS"); do
	echo "round $round"
	! wants static || measure hello static 16410 -t2 -c64 -d"${D}s" http://127.0.0.1:18416/
	for t in $TARGETS; do
		if [ "$t" = php ]; then
			base=http://127.0.0.1:18410; rp=16410
			home=$base/home.php; profile=$base/profile.php?u=user1; global=$base/timeline.php; post=/post.php
		else
			eval "h=\$HTTP_$t; rp=\$RPORT_$t"
			base=http://127.0.0.1:$h
			home=$base/; profile=$base/u/user1; global=$base/timeline; post=/post
			! wants static || measure "$t" static "$rp" -t2 -c64 -d"${D}s" "$base/static/style.css"
		fi
		! wants home || measure "$t" home "$rp" -t2 -c64 -d"${D}s" -H "Cookie: auth=$READER" "$home"
		! wants profile || measure "$t" profile "$rp" -t2 -c64 -d"${D}s" -H "Cookie: auth=$READER" "$profile"
		! wants global || measure "$t" global "$rp" -t2 -c64 -d"${D}s" "$global"
		if wants post; then
			measure "$t" post "$rp" -t2 -c64 -d"${D}s" -s "$WORK/post.lua" "$base" -- "$post" "$WORK/cookies.txt"
			if [ "$t" != php ]; then
				dr=$(drained $((h + 2)))
				echo "$round $t drain $dr 0 0" >>"$WORK/results"
				echo "  $t delivery backlog empty ${dr} s after the storm"
			fi
		fi
		wants storm || continue
		measure "$t" quiet-home "$rp" -t1 -c8 -d"${D}s" -H "Cookie: auth=$READER" "$home"
		wrk -t1 -c64 -d"${D}s" -s "$WORK/post.lua" "$base" -- "$post" "$WORK/cookies.txt" >/dev/null 2>&1 &
		storm=$!
		measure "$t" storm-home "$rp" -t1 -c8 -d"${D}s" -H "Cookie: auth=$READER" "$home"
		wait "$storm" || true
		[ "$t" = php ] || drained $((h + 2)) >/dev/null
	done
done

# The medians over the rounds, with the spread (min-max), and the ratios.
med() { # target scenario field: the median, min and max of a figure
	awk -v t="$1" -v s="$2" -v f="$3" '$2 == t && $3 == s {print $f}' "$WORK/results" | sort -n |
		awk '{v[NR] = $1} END {if (NR == 0) {print "- - -"; exit} m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR]}'
}
cell() { set -- $(med "$1" "$2" "$3"); if [ "$1" = - ]; then echo "-"; else echo "$1 ($2-$3)"; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0 && a != "-") printf "%.2f", a / b; else print "-"}'; }
echo
echo "medians of $ROUNDS rounds (min-max)"
printf '%-26s' "figure"; for t in $TARGETS; do printf ' %-26s' "$t"; done; echo
for row in "home 4 req/s" "home 5 p99 ms" "profile 4 req/s" "profile 5 p99 ms" "global 4 req/s" "global 5 p99 ms" \
	"post 4 posts/s" "post 5 p99 ms" "post 6 Redis us/post" "drain 4 s to empty" "quiet-home 4 req/s" "storm-home 4 req/s" \
	"static 4 req/s" "static 5 p99 ms"; do
	set -- $row
	printf '%-26s' "$1 $3 ${4:-} ${5:-}"
	for t in $TARGETS; do printf ' %-26s' "$(cell "$t" "$1" "$2")"; done
	echo
done
hello=$(med hello static 4 | cut -d' ' -f1)
echo "hello-world (bare Go): $(cell hello static 4) req/s"
phpm() { med php "$1" 4 | cut -d' ' -f1; }
for t in $TARGETS; do
	[ "$t" = php ] && continue
	m() { med "$t" "$1" "$2" | cut -d' ' -f1; }
	static=$(m static 4)
	echo "$t: posting $(ratio "$(m post 4)" "$(phpm post)")x PHP; home $(ratio "$(m home 4)" "$(phpm home)")x PHP," \
		"p99 $(m home 5) ms against PHP's $(med php home 5 | cut -d' ' -f1) ms"
	echo "$t: of its static route: home $(ratio "$(m home 4)" "$static"), profile $(ratio "$(m profile 4)" "$static")," \
		"global $(ratio "$(m global 4)" "$static"); static route $(ratio "$static" "$hello") of the hello-world"
	echo "$t: home pages during the storm $(ratio "$(m storm-home 4)" "$(m quiet-home 4)") of quiet" \
		"(PHP: $(ratio "$(phpm storm-home)" "$(phpm quiet-home)")); delivery backlog empty $(m drain 4) s after the storm"
done
