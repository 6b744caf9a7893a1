#!/bin/sh
# serve-vs-ls.sh measures the two goals of issue #18 for "bpx serve", in
# one run, and prints their ratios:
#   - the first 1,000 entries of a 1,000,000-object package over HTTP
#     (GET /api/list?dir=assets&limit=1000 with curl, on a running
#     "bpx serve") against "bpx ls PKG | head -1000"; the first request
#     after the server started (cold: it orders the directory) and a
#     repeated one (warm) are both given;
#   - the PNG preview of a 2048x2048 RGBA texture (GET /api/texture.png
#     with curl) against "bpx texture export" of it.
# The inputs are made by bench/genserve.
#
# Usage: bench/serve-vs-ls.sh
# Each timing is the best of $RUNS runs (default 5). Skips (exit 0) when
# curl is missing.
set -eu

for tool in curl go; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "serve-vs-ls: $tool not installed, skipping"
		exit 0
	fi
done

RUNS=${RUNS:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-bench.XXXXXX")
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
. "$repo/bench/lib.sh"

# Static, as the README installs it (see there).
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx && go run ./bench/genserve "$work")
bpx="$work/bpx"

# serve FILE: starts bpx serve on FILE, sets $pid and $url.
serve() {
	"$bpx" serve "$1" >"$work/serve.out" 2>&1 &
	pid=$!
	url=
	tries=0 # not i: sh functions share the caller's variables
	while [ -z "$url" ] && [ $tries -lt 100 ]; do
		sleep 0.05
		url=$(sed -n 's/^serving //p' "$work/serve.out")
		tries=$((tries + 1))
	done
	[ -n "$url" ] || { echo "serve-vs-ls: bpx serve printed no URL:"; cat "$work/serve.out"; exit 1; }
}

stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

list="api/list?dir=assets&limit=1000"
ls_t=$(best "$RUNS" sh -c "'$bpx' ls '$work/million.bpx' | head -1000")
cold=
i=0
while [ $i -lt "$RUNS" ]; do
	serve "$work/million.bpx"
	t0=$(now)
	curl -sf -o "$work/list.json" "$url$list"
	t1=$(now)
	cold=$(min "$cold" "$(echo "$t1 - $t0" | bc -l)")
	stop
	i=$((i + 1))
done
serve "$work/million.bpx"
warm=$(best "$RUNS" curl -sf -o /dev/null "$url$list")
stop
grep -q '"total":1000000' "$work/list.json" || { echo "serve-vs-ls: unexpected listing:"; head -c 300 "$work/list.json"; exit 1; }

export_t=$(best "$RUNS" "$bpx" texture export -o "$work/out.png" "$work/tex2048.bpx")
serve "$work/tex2048.bpx"
png_t=$(best "$RUNS" curl -sf -o "$work/preview.png" "${url}api/texture.png?file=0&layer=0")
stop

echo "| operation | ratio | goal |"
echo "|---|---|---|"
echo "| list 1,000 of 1,000,000 over HTTP, first request / bpx ls \| head -1000 | $(ratio "$cold" "$ls_t") | <= 2 |"
echo "| list 1,000 of 1,000,000 over HTTP, repeated / bpx ls \| head -1000 | $(ratio "$warm" "$ls_t") | <= 2 |"
echo "| texture preview 2048x2048 RGBA / bpx texture export | $(ratio "$png_t" "$export_t") | <= 1.5 |"
echo "(PNG bytes: preview $(size "$work/preview.png"), export $(size "$work/out.png"))"
