#!/bin/sh
# servers.sh runs "bpx pull URL LOCAL", "bpx diff URL LOCAL" and
# "bpx cat URL NAME" against the real HTTP servers and caches installed
# on this machine, and prints one row a server:
#   nginx, Apache (apache2 or httpd), lighttpd, Caddy (HTTPS and HTTP/2,
#   its own CA given to bpx with SSL_CERT_FILE), Varnish in front of one
#   of the first three, Squid (as a reverse proxy) in front of one.
# A server whose program is missing is skipped with a line saying so.
# Each listens on 127.0.0.1 only, on a free port above 20000, with its
# configuration, logs and state in a temporary directory; it runs as the
# current user, except Apache and Squid started by root, which refuse to
# and run as an unprivileged user (www-data, proxy or nobody). All are
# stopped at the end.
#
# Two versions of a tree of generated files (4.6 MB of random and text
# files; v2 has 2 files changed, 2 added, 1 removed) are packed with
# "bpx pack" ($PACK_FLAGS added) and v2.bpx is served. For each server:
#   diff     "bpx diff URL LOCAL" on a copy of v1.bpx, before the pull
#            (exit 1, listing what "bpx diff v1.bpx v2.bpx" lists), then
#            after it (exit 0);
#   pull     "bpx pull URL LOCAL" over that copy: ok when the result is
#            byte-identical to v2.bpx (cmp);
#   requests, bytes, protocol
#            what the server's access log shows for that pull: requests,
#            body bytes sent, HTTP versions (the proxy's own log for
#            Varnish, through varnishncsa, and Squid);
#   up to date
#            "bpx pull" again: ok when it says the file is up to date, with
#            the requests it made;
#   cat      "bpx cat URL NAME" of a changed random file and a changed
#            text file, compared with the tree's (cmp).
# Exits 0 when every server that ran passed, 1 otherwise.
#
# Usage: TMPDIR=/dev/shm bench/servers.sh
# Debian: apt-get install nginx apache2 lighttpd caddy varnish squid
# (then stop the services the packages start, or install them with a
# policy-rc.d that denies starting them: this script runs its own).
set -eu

# Servers live in sbin, which is not in every user's PATH.
PATH=$PATH:/usr/sbin:/sbin
for tool in go curl cmp; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "servers: $tool not installed, skipping"
		exit 0
	fi
done

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-servers.XXXXXX")
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	for p in $pids; do
		t=0
		while kill -0 "$p" 2>/dev/null && [ $t -lt 50 ]; do
			# A stopped child stays a zombie until waited for.
			case $(ps -o stat= -p "$p" 2>/dev/null) in Z*) break ;; esac
			sleep 0.1
			t=$((t + 1))
		done
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
PACK_FLAGS=${PACK_FLAGS:-}
root=
if [ "$(id -u)" = 0 ]; then root=1; fi

# Static, as the README installs it (see there).
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx)
bpx="$work/bpx"

# The trees: incompressible files (as textures) and text (as scripts).
mkdir -p "$work/v1/textures" "$work/v1/scripts/ai" "$work/www"
i=0
while [ $i -lt 8 ]; do
	head -c $((256 * 1024 + i * 32768)) /dev/urandom >"$work/v1/textures/t$i.dds"
	i=$((i + 1))
done
i=0
while [ $i -lt 24 ]; do
	d=scripts
	if [ $i -ge 16 ]; then d=scripts/ai; fi
	awk -v s=$i 'BEGIN { srand(s); for (n = 0; n < 3000; n++) printf "%d key%d = %.6f\n", n, int(rand() * 1000), rand() }' >"$work/v1/$d/s$i.txt"
	i=$((i + 1))
done
cp -R "$work/v1" "$work/v2"
head -c $((256 * 1024 + 2 * 32768)) /dev/urandom >"$work/v2/textures/t2.dds"
echo "patched = 1" >>"$work/v2/scripts/s5.txt"
head -c 300000 /dev/urandom >"$work/v2/textures/t8.dds"
awk 'BEGIN { for (n = 0; n < 2000; n++) printf "new %d\n", n }' >"$work/v2/scripts/ai/new.txt"
rm "$work/v2/scripts/s9.txt"
"$bpx" pack -q $PACK_FLAGS -o "$work/v1.bpx" "$work/v1"
"$bpx" pack -q $PACK_FLAGS -o "$work/www/v2.bpx" "$work/v2"
cp "$work/www/v2.bpx" "$work/v2.bpx"
st=0
"$bpx" diff "$work/v1.bpx" "$work/v2.bpx" >"$work/diff.want" || st=$?
[ $st = 1 ] || { echo "servers: bpx diff v1.bpx v2.bpx exited $st"; exit 1; }
echo "v1.bpx $(wc -c <"$work/v1.bpx" | tr -d ' ') bytes, v2.bpx $(wc -c <"$work/v2.bpx" | tr -d ' ') bytes; bpx diff v1.bpx v2.bpx:" $(cat "$work/diff.want")
if [ -n "$root" ]; then
	# Apache and Squid drop root for another user, which must read the
	# served files and write its own directory.
	chmod 711 "$work"
	chmod -R a+rX "$work/www"
fi

# freeport: a port above 20000 on which nothing answers at 127.0.0.1.
freeport() {
	while :; do
		p=$(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000 + 20000))
		c=0
		curl -s --noproxy '*' -o /dev/null --max-time 2 "http://127.0.0.1:$p/" || c=$?
		if [ $c = 7 ]; then
			echo "$p"
			return
		fi
	done
}

# unprivileged USER...: the first of the users that exists.
unprivileged() {
	for u in "$@"; do
		if id "$u" >/dev/null 2>&1; then
			echo "$u"
			return
		fi
	done
	echo nobody
}

# spawn OUT CMD...: starts CMD (a server in the foreground) in the
# background, its output in the file OUT; sets $pid.
spawn() {
	out=$1
	shift
	"$@" >"$out" 2>&1 &
	pid=$!
	pids="$pids $pid"
}

# up URL: waits (15 s at most) until URL answers, with $curlopt.
up() {
	t=0
	while [ $t -lt 150 ]; do
		# $curlopt: split on purpose.
		if curl -s --noproxy '*' $curlopt -o /dev/null --max-time 2 "$1"; then return 0; fi
		sleep 0.1
		t=$((t + 1))
	done
	return 1
}

# started NAME DIR URL: whether the server NAME answers at URL, with its
# logs on standard error and a row when it does not.
started() {
	if up "$3"; then return 0; fi
	echo "servers: $1 did not start; its logs:" >&2
	tail -n 5 "$2"/out "$2"/*.log >&2 2>/dev/null || true
	row "$1" "FAIL (did not start)" "" "" "" "" "" ""
	return 1
}

mark=0
# mark URL LOG: requests URL/__mark.N and waits until the log shows it (a
# log may be written a second late), again with another N after 3 s (a
# log reader that was not attached yet); sets $mark. Marks cut the log
# into the steps of a check.
mark() {
	tries=0
	while [ $tries -lt 5 ]; do
		mark=$((mark + 1))
		curl -s --noproxy '*' $curlopt -o /dev/null --max-time 5 "$1/__mark.$mark" || true
		t=0
		while [ $t -lt 30 ]; do
			if grep -q "/__mark\.$mark[^0-9]" "$2" 2>/dev/null; then return 0; fi
			sleep 0.1
			t=$((t + 1))
		done
		tries=$((tries + 1))
	done
	echo "servers: $2 never logged a request" >&2
}

# stats LOG FORMAT A B: "REQUESTS BYTES PROTOCOLS" of the requests that
# LOG has between marks A and B. A log line is "METHOD URI PROTOCOL
# STATUS BYTES [HEADER-BYTES]", body bytes being BYTES - HEADER-BYTES;
# FORMAT caddy turns Caddy's JSON lines into that. Lines of status 0
# (Squid's for a connection closed with no request) are no request.
stats() {
	if [ "$2" = caddy ]; then
		awk 'function s(k) { if (match($0, "\"" k "\":\"[^\"]*\"")) return substr($0, RSTART + length(k) + 4, RLENGTH - length(k) - 5); return "-" }
			function n(k) { if (match($0, "\"" k "\":[0-9]+")) return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3); return 0 }
			{ print s("method"), s("uri"), s("proto"), n("status"), n("size") }' "$1"
	else
		cat "$1"
	fi | awk -v a="/__mark.$3" -v b="/__mark.$4" '
		function ends(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
		ends($2, a) { on = 1; next }
		ends($2, b) { on = 0; next }
		$2 ~ /\/__mark\./ { next }
		$4 == 0 { next } # Squid: a connection closed before a request
		on {
			n++
			bytes += $5 - $6
			if (!($3 in seen)) { seen[$3] = 1; p = p (p == "" ? "" : ",") $3 }
		}
		END { printf "%d %d %s\n", n, bytes, p }'
}

# row NAME PULL REQUESTS BYTES PROTOCOLS UPTODATE DIFF CAT
row() {
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@" >>"$work/rows"
	case "$*" in *FAIL*) failed=1 ;; esac
}
failed=
: >"$work/rows"

# check NAME URL LOG FORMAT [CA]: the diffs, pulls and cats of v2.bpx at
# URL, whose server logs to LOG (FORMAT: see stats), with TLS
# certificates signed by CA.
check() {
	name=$1 url=$2 log=$3 fmt=$4 ca=${5:-}
	pkg=$url/v2.bpx
	cp "$work/v1.bpx" "$work/local.bpx"
	rm -f "$work/local.bpx.part"
	# The update bpx diff lists before the pull, and none after.
	st=0
	SSL_CERT_FILE=$ca "$bpx" diff "$pkg" "$work/local.bpx" >"$work/diff.out" 2>"$work/diff.err" || st=$?
	diff1=$st
	if [ $st != 1 ] || ! cmp -s "$work/diff.out" "$work/diff.want"; then
		diff1="$st FAIL"
		echo "servers: $name: bpx diff URL LOCAL before the pull exited $st:" >&2
		cat "$work/diff.out" "$work/diff.err" >&2
	fi

	mark "$url" "$log"
	a=$mark
	pull=ok
	if ! SSL_CERT_FILE=$ca "$bpx" pull -q "$pkg" "$work/local.bpx" >"$work/pull.out" 2>&1; then
		pull=FAIL
		echo "servers: $name: bpx pull failed:" >&2
		cat "$work/pull.out" >&2
	elif ! cmp "$work/local.bpx" "$work/v2.bpx" >&2; then
		pull=FAIL
	fi
	mark "$url" "$log"
	set -- $(stats "$log" "$fmt" "$a" "$mark")
	req=$1 bytes=$2 proto=${3:-}

	mark "$url" "$log"
	a=$mark
	uptodate=ok
	if ! SSL_CERT_FILE=$ca "$bpx" pull -q "$pkg" "$work/local.bpx" >"$work/pull.out" 2>&1 ||
		! grep -q ': up to date' "$work/pull.out" || ! cmp -s "$work/local.bpx" "$work/v2.bpx"; then
		uptodate=FAIL
		echo "servers: $name: bpx pull again:" >&2
		cat "$work/pull.out" >&2
	fi
	mark "$url" "$log"
	set -- $(stats "$log" "$fmt" "$a" "$mark")
	uptodate="$uptodate ($1 req)"

	st=0
	SSL_CERT_FILE=$ca "$bpx" diff "$pkg" "$work/local.bpx" >"$work/diff.out" 2>"$work/diff.err" || st=$?
	diff2=$st
	if [ $st != 0 ] || [ -s "$work/diff.out" ]; then
		diff2="$st FAIL"
		echo "servers: $name: bpx diff URL LOCAL after the pull exited $st:" >&2
		cat "$work/diff.out" "$work/diff.err" >&2
	fi

	cat=ok
	for f in textures/t2.dds scripts/s5.txt; do
		if ! SSL_CERT_FILE=$ca "$bpx" cat "$pkg" "$f" >"$work/cat.out" 2>"$work/cat.err" ||
			! cmp "$work/cat.out" "$work/v2/$f" >&2; then
			cat=FAIL
			echo "servers: $name: bpx cat URL $f:" >&2
			cat "$work/cat.err" >&2
		fi
	done
	row "$name" "$pull" "$req" "$bytes" "$proto" "$uptodate" "$diff1, $diff2" "$cat"
}

curlopt=

# nginx
nginx_port=
if ! command -v nginx >/dev/null 2>&1; then
	echo "servers: nginx not installed, skipping"
else
	d=$work/nginx
	mkdir "$d"
	port=$(freeport)
	user=
	if [ -n "$root" ]; then user="user $(id -un) $(id -gn);"; fi
	cat >"$d/nginx.conf" <<EOF
$user
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log;
events { worker_connections 64; }
http {
	log_format bpx '\$request_method \$request_uri \$server_protocol \$status \$body_bytes_sent';
	client_body_temp_path $d/body;
	proxy_temp_path $d/proxy;
	fastcgi_temp_path $d/fastcgi;
	uwsgi_temp_path $d/uwsgi;
	scgi_temp_path $d/scgi;
	server {
		listen 127.0.0.1:$port;
		root $work/www;
		access_log $d/access.log bpx;
	}
}
EOF
	spawn "$d/out" nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" -g 'daemon off;'
	version=$(nginx -v 2>&1 | sed -n 's|.*nginx/\([^ ]*\).*|\1|p')
	if started "nginx $version" "$d" "http://127.0.0.1:$port/"; then
		nginx_port=$port
		check "nginx $version" "http://127.0.0.1:$port" "$d/access.log" plain
	fi
fi

# Apache
apache_port=
apache=$(command -v apache2 || command -v httpd || true)
moddir=
for m in /usr/lib/apache2/modules /usr/lib64/httpd/modules /usr/lib/httpd/modules /usr/libexec/apache2; do
	if [ -f "$m/mod_mpm_event.so" ]; then moddir=$m; fi
done
if [ -z "$apache" ]; then
	echo "servers: apache2 (httpd) not installed, skipping"
elif [ -z "$moddir" ]; then
	echo "servers: apache: no mod_mpm_event.so found, skipping"
else
	d=$work/apache
	mkdir "$d"
	port=$(freeport)
	user=
	if [ -n "$root" ]; then
		u=$(unprivileged www-data apache nobody)
		user="User $u
Group $(id -gn "$u")"
	fi
	mods=
	for m in unixd authz_core; do
		if [ -f "$moddir/mod_$m.so" ]; then mods="$mods
LoadModule ${m}_module $moddir/mod_$m.so"; fi
	done
	cat >"$d/httpd.conf" <<EOF
LoadModule mpm_event_module $moddir/mod_mpm_event.so$mods
ServerRoot $d
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile $d/httpd.pid
DefaultRuntimeDir $d
ErrorLog $d/error.log
LogFormat "%m %U%q %H %>s %B" bpx
CustomLog $d/access.log bpx
DocumentRoot $work/www
<Directory $work/www>
	Require all granted
</Directory>
$user
EOF
	spawn "$d/out" "$apache" -f "$d/httpd.conf" -DFOREGROUND
	version=$("$apache" -v 2>/dev/null | sed -n 's|.*Apache/\([^ ]*\).*|\1|p')
	if started "apache $version" "$d" "http://127.0.0.1:$port/"; then
		apache_port=$port
		check "apache $version" "http://127.0.0.1:$port" "$d/access.log" plain
	fi
fi

# lighttpd
lighttpd_port=
if ! command -v lighttpd >/dev/null 2>&1; then
	echo "servers: lighttpd not installed, skipping"
else
	d=$work/lighttpd
	mkdir "$d"
	port=$(freeport)
	cat >"$d/lighttpd.conf" <<EOF
server.document-root = "$work/www"
server.bind = "127.0.0.1"
server.port = $port
server.errorlog = "$d/error.log"
server.modules = ( "mod_accesslog" )
accesslog.filename = "$d/access.log"
accesslog.format = "%m %U %H %s %b"
mimetype.assign = ( "" => "application/octet-stream" )
EOF
	spawn "$d/out" lighttpd -D -f "$d/lighttpd.conf"
	version=$(lighttpd -v 2>/dev/null | sed -n 's|^lighttpd/\([^ ]*\).*|\1|p')
	if started "lighttpd $version" "$d" "http://127.0.0.1:$port/"; then
		lighttpd_port=$port
		check "lighttpd $version" "http://127.0.0.1:$port" "$d/access.log" plain
	fi
fi

# Caddy: HTTPS with a certificate of its own CA, which bpx and curl are
# given; HTTP/2 (HTTP/3 off: it would listen on UDP too).
if ! command -v caddy >/dev/null 2>&1; then
	echo "servers: caddy not installed, skipping"
else
	d=$work/caddy
	mkdir "$d"
	port=$(freeport)
	cat >"$d/Caddyfile" <<EOF
{
	admin off
	skip_install_trust
	auto_https disable_redirects
	storage file_system $d/data
	servers {
		protocols h1 h2
	}
}
https://127.0.0.1:$port {
	bind 127.0.0.1
	tls internal
	root * $work/www
	file_server
	log {
		output file $d/access.log
		format json
	}
}
EOF
	spawn "$d/out" env HOME="$d" XDG_CONFIG_HOME="$d/config" XDG_DATA_HOME="$d/data" caddy run --adapter caddyfile --config "$d/Caddyfile"
	version=$(caddy version 2>/dev/null | sed -n 's|^v\{0,1\}\([0-9][^ ]*\).*|\1|p')
	ca=$d/data/pki/authorities/local/root.crt
	t=0
	while [ ! -s "$ca" ] && [ $t -lt 100 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	curlopt="--cacert $ca"
	if started "caddy $version (https)" "$d" "https://127.0.0.1:$port/"; then
		check "caddy $version (https)" "https://127.0.0.1:$port" "$d/access.log" caddy "$ca"
	fi
	curlopt=
fi

# origin PREFERENCE...: "NAME PORT" of the first server of PREFERENCE
# (nginx, apache, lighttpd) that runs.
origin() {
	for o in "$@"; do
		eval "p=\$${o}_port"
		if [ -n "$p" ]; then
			echo "$o $p"
			return
		fi
	done
}

# Varnish, in front of nginx (else Apache, else lighttpd). varnishd runs
# as the current user (-j none), with no management port (-T none);
# varnishncsa writes its access log.
if ! command -v varnishd >/dev/null 2>&1 || ! command -v varnishncsa >/dev/null 2>&1; then
	echo "servers: varnish (varnishd, varnishncsa) not installed, skipping"
elif [ -z "$(origin nginx apache lighttpd)" ]; then
	echo "servers: varnish: no server to put it in front of (nginx, apache2, lighttpd), skipping"
else
	set -- $(origin nginx apache lighttpd)
	oname=$1 oport=$2
	d=$work/varnish
	mkdir "$d"
	port=$(freeport)
	cat >"$d/default.vcl" <<EOF
vcl 4.1;
backend default { .host = "127.0.0.1"; .port = "$oport"; }
EOF
	spawn "$d/out" varnishd -F -j none -n "$d/state" -a "127.0.0.1:$port" -T none -f "$d/default.vcl" -s malloc,64m
	version=$(varnishd -V 2>&1 | sed -n 's|.*varnish-\([^ ]*\).*|\1|p')
	name="varnish $version > $oname"
	if started "$name" "$d" "http://127.0.0.1:$port/"; then
		spawn "$d/ncsa.out" varnishncsa -n "$d/state" -F '%m %U%q %H %s %b' -w "$d/access.log"
		check "$name" "http://127.0.0.1:$port" "$d/access.log" plain
	fi
fi

# Squid, a reverse proxy in front of Apache (else lighttpd, else nginx).
if ! command -v squid >/dev/null 2>&1; then
	echo "servers: squid not installed, skipping"
elif [ -z "$(origin apache lighttpd nginx)" ]; then
	echo "servers: squid: no server to put it in front of (nginx, apache2, lighttpd), skipping"
else
	set -- $(origin apache lighttpd nginx)
	oname=$1 oport=$2
	d=$work/squid
	mkdir "$d"
	port=$(freeport)
	user=
	if [ -n "$root" ]; then
		u=$(unprivileged proxy squid nobody)
		user="cache_effective_user $u"
	fi
	cat >"$d/squid.conf" <<EOF
http_port 127.0.0.1:$port accel defaultsite=127.0.0.1:$oport no-vhost
cache_peer 127.0.0.1 parent $oport 0 no-query originserver name=origin
cache_peer_access origin allow all
http_access allow all
$user
cache_mem 64 MB
maximum_object_size_in_memory 64 MB
logformat bpx %rm %ru HTTP/%rv %>Hs %<st %<sh
access_log stdio:$d/access.log bpx
cache_log $d/cache.log
cache_store_log none
pid_filename $d/squid.pid
coredump_dir $d
netdb_filename none
pinger_enable off
icp_port 0
htcp_port 0
udp_incoming_address 127.0.0.1
shutdown_lifetime 0 seconds
visible_hostname localhost
EOF
	if [ -n "$root" ]; then chown -R "$u" "$d"; fi
	spawn "$d/out" squid -N -f "$d/squid.conf"
	version=$(squid -v 2>/dev/null | sed -n 's|.*Version \([^ ]*\).*|\1|p')
	name="squid $version > $oname"
	if started "$name" "$d" "http://127.0.0.1:$port/"; then
		check "$name" "http://127.0.0.1:$port" "$d/access.log" plain
	fi
fi

echo "| server | pull | requests | bytes | protocol | up to date | diff before, after | cat |"
echo "|---|---|---|---|---|---|---|---|"
cat "$work/rows"
if [ -n "$failed" ]; then exit 1; fi
