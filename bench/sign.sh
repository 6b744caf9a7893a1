#!/bin/sh
# sign.sh measures the goals of issue #25 (signed packages) on the package
# of $(go env GOROOT)/src, in one run, and prints their ratios:
#   1. bpx pack --key against bpx pack (time), and the signed package's
#      size against the unsigned one's;
#   2. bpx sign of the unsigned package against bpx pack (time);
#   3. bpx ls, bpx cat of one small file and bpx verify with --trusted
#      against the same commands without it (time); bpx verify --trusted
#      of a URL of a package of one object (32 MiB of random bytes, -c
#      none: more than remote's 16 MiB cache) served on 127.0.0.1 with
#      range requests (bench/countserve): the bytes the server sent
#      against the package's size;
#   4. the peak RSS of pack --key and verify --trusted against pack and
#      verify.
#
# Usage: bench/sign.sh [corpus-dir]
# Each timing is the best of $RUNS runs (default 3; cat and ls: of
# $RUNS + 2 samples of the mean of 10 runs), signed and unsigned runs
# interleaved. The machine should be otherwise idle: ls and cat take a
# few milliseconds.
set -eu

if ! command -v go >/dev/null 2>&1; then
	echo "sign: go not installed, skipping"
	exit 0
fi

RUNS=${RUNS:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-bench.XXXXXX")
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
. "$repo/bench/lib.sh"

# Static, as the README installs it (see there).
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx && go build -o "$work/countserve" ./bench/countserve)
bpx="$work/bpx"
corpus=${1:-$(go env GOROOT)/src}
"$bpx" keygen -C bench -o "$work/key" >/dev/null </dev/null
cp "$work/key.pub" "$work/trusted.keys"
echo "== corpus $corpus"

# 1, 2: pack, pack --key, sign (of a fresh copy of the unsigned package).
t_pack= t_packk= t_sign= t_cp=
copy() { cp "$work/plain.bpx" "$work/s.bpx"; }
signcopy() { copy && "$bpx" sign --key "$work/key" "$work/s.bpx"; }
i=0
while [ $i -lt "$RUNS" ]; do
	t_pack=$(min "$t_pack" "$(best 1 "$bpx" pack -q -o "$work/plain.bpx" "$corpus")")
	t_packk=$(min "$t_packk" "$(best 1 "$bpx" pack -q --key "$work/key" -o "$work/signed.bpx" "$corpus")")
	t_sign=$(min "$t_sign" "$(best 1 signcopy)")
	t_cp=$(min "$t_cp" "$(best 1 copy)")
	i=$((i + 1))
done
t_sign=$(echo "$t_sign - $t_cp" | bc -l)
"$bpx" verify -q --trusted "$work/trusted.keys" "$work/signed.bpx" >/dev/null || { echo "sign: the signed package does not verify"; exit 1; }

# 3: reads with and without --trusted, of the package pack --key wrote.
small=$("$bpx" ls -l "$work/plain.bpx" | awk '$1 > 1000 && $1 < 4000 { print $4; exit }')
[ -n "$small" ] || { echo "sign: no small file in the package"; exit 1; }
keys="$work/trusted.keys"
t_ls= t_lsk= t_cat= t_catk= t_ver= t_verk=
i=0
while [ $i -lt $((RUNS + 2)) ]; do
	t_ls=$(min "$t_ls" "$(bestk 1 10 "$bpx" ls "$work/signed.bpx")")
	t_lsk=$(min "$t_lsk" "$(bestk 1 10 "$bpx" ls --trusted "$keys" "$work/signed.bpx")")
	t_cat=$(min "$t_cat" "$(bestk 1 10 "$bpx" cat "$work/signed.bpx" "$small")")
	t_catk=$(min "$t_catk" "$(bestk 1 10 "$bpx" cat --trusted "$keys" "$work/signed.bpx" "$small")")
	i=$((i + 1))
done
i=0
while [ $i -lt "$RUNS" ]; do
	t_ver=$(min "$t_ver" "$(best 1 "$bpx" verify -q "$work/signed.bpx")")
	t_verk=$(min "$t_verk" "$(best 1 "$bpx" verify -q --trusted "$keys" "$work/signed.bpx")")
	i=$((i + 1))
done

# 3: verify --trusted of a URL of a one-object package.
mkdir -p "$work/one" "$work/www"
head -c 33554432 /dev/urandom >"$work/one/random.bin"
"$bpx" pack -q -c none --key "$work/key" -o "$work/www/one.bpx" "$work/one"
"$work/countserve" "$work/www" >"$work/serve.out" 2>&1 &
pid=$!
url=
tries=0
while [ -z "$url" ] && [ $tries -lt 100 ]; do
	sleep 0.05
	url=$(head -1 "$work/serve.out")
	tries=$((tries + 1))
done
[ -n "$url" ] || { echo "sign: countserve printed no URL"; exit 1; }
# getstats prints countserve's "REQUESTS BYTES" and resets them, with
# curl, wget or python3, whichever is there.
getstats() {
	if command -v curl >/dev/null 2>&1; then curl -sf "${url}__stats"
	elif command -v wget >/dev/null 2>&1; then wget -qO- "${url}__stats"
	else python3 -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" "${url}__stats"
	fi
}
getstats >/dev/null
"$bpx" verify -q "${url}one.bpx" >/dev/null
set -- $(getstats)
plain_req=$1 plain_bytes=$2
"$bpx" verify -q --trusted "$keys" "${url}one.bpx" >/dev/null || { echo "sign: verify --trusted of the URL failed"; exit 1; }
set -- $(getstats)
url_req=$1 url_bytes=$2
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=

# 4: memory.
m_pack=$(rss "$bpx" pack -q -o "$work/m.bpx" "$corpus")
m_packk=$(rss "$bpx" pack -q --key "$work/key" -o "$work/m.bpx" "$corpus")
m_ver=$(rss "$bpx" verify -q "$work/signed.bpx")
m_verk=$(rss "$bpx" verify -q --trusted "$keys" "$work/signed.bpx")

printf '%-48s %10s %10s %8s   %s\n' operation signed unsigned ratio goal
printf '%-48s %10.3f %10.3f %8s   %s\n' "pack --key / pack (s)" "$t_packk" "$t_pack" "$(ratio "$t_packk" "$t_pack")" "<= 1.05"
printf '%-48s %10s %10s %8s   %s\n' "signed / unsigned package (bytes)" "$(size "$work/signed.bpx")" "$(size "$work/plain.bpx")" "$(ratio "$(size "$work/signed.bpx")" "$(size "$work/plain.bpx")")" "<= 1.02"
printf '%-48s %10.3f %10.3f %8s   %s\n' "sign / pack (s)" "$t_sign" "$t_pack" "$(ratio "$t_sign" "$t_pack")" "<= 0.25"
printf '%-48s %10.4f %10.4f %8s   %s\n' "ls --trusted / ls (s)" "$t_lsk" "$t_ls" "$(ratio "$t_lsk" "$t_ls")" "<= 1.1"
printf '%-48s %10.4f %10.4f %8s   %s\n' "cat --trusted / cat of $(basename "$small") (s)" "$t_catk" "$t_cat" "$(ratio "$t_catk" "$t_cat")" "<= 1.1"
printf '%-48s %10.3f %10.3f %8s   %s\n' "verify --trusted / verify (s)" "$t_verk" "$t_ver" "$(ratio "$t_verk" "$t_ver")" "<= 1.2"
printf '%-48s %10s %10s %8s   %s\n' "verify --trusted URL: bytes sent / package size" "$url_bytes" "$(size "$work/www/one.bpx")" "$(ratio "$url_bytes" "$(size "$work/www/one.bpx")")" "tables + signature + sections"
printf '%-48s %10s %10s %8s   %s\n' "  (verify URL without --trusted: bytes sent)" "$plain_bytes" "$(size "$work/www/one.bpx")" "$(ratio "$plain_bytes" "$(size "$work/www/one.bpx")")" "-"
printf '%-48s %10s %10s %8s   %s\n' "  (requests: --trusted, without)" "$url_req" "$plain_req" "" "-"
printf '%-48s %10s %10s %8s   %s\n' "peak RSS pack --key / pack (MiB)" "$m_packk" "$m_pack" "" "bounded as today"
printf '%-48s %10s %10s %8s   %s\n' "peak RSS verify --trusted / verify (MiB)" "$m_verk" "$m_ver" "" "bounded as today"
