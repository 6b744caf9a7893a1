#!/bin/sh
# index.sh measures goals 2 and 3 of issue 33: with a path index, one
# object of a package of a million objects costs about what it costs in a
# package of 10,000, over HTTP and locally. It builds bpx at HEAD and at
# $BASE (default a309b76, the last commit without a path index), makes
# with bench/genserve million.bpx (1,000,000 objects in assets/), dirs.bpx
# (1,000,000 in 1,000 directories of 1,000) and tenk.bpx (10,000) with
# each, and prints:
#   - over HTTP (bench/countserve, range requests): the requests and bytes
#     of "bpx cat" of one object, "bpx ls PKG DIR" of a directory of 1,000
#     and "bpx ls" of the whole package, HEAD's against BASE's on BASE's
#     packages (BASE has no "ls DIR": its listing is the whole package);
#   - locally: "bpx cat" of one object of million.bpx against one of
#     tenk.bpx (fresh processes, interleaved, best of $RUNS means of 5),
#     and the peak RSS of each.
# Usage: bench/index.sh   (TMPDIR=/dev/shm recommended: 200 MB of inputs)
set -eu

RUNS=${RUNS:-5}
BASE=${BASE:-a309b76}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-index.XXXXXX")
srv=
trap '[ -z "$srv" ] || kill $srv 2>/dev/null; rm -rf "$work"' EXIT INT TERM
. "$repo/bench/lib.sh"

mkdir -p "$work/base" "$work/new" "$work/old"
(cd "$repo" && git archive "$BASE" | tar -x -C "$work/base")
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx && go build -o "$work/countserve" ./bench/countserve &&
	go run ./bench/genserve "$work/new" million dirs tenk)
(cd "$work/base" && CGO_ENABLED=0 go build -o "$work/bpx-base" ./cmd/bpx && go run ./bench/genserve "$work/old")
rm -f "$work/old/tex2048.bpx"
cp "$work/new/tenk.bpx" "$work/old/tenk.bpx" # no index: the same format

"$work/countserve" "$work" >"$work/cs.out" 2>&1 &
srv=$!
url=
while [ -z "$url" ]; do sleep 0.05; url=$(head -1 "$work/cs.out"); done
stats() { curl -sf "${url}__stats"; }

# fetch BIN ARGS...: runs bpx, prints "REQUESTS BYTES" of what it fetched.
fetch() {
	stats >/dev/null
	"$@" >/dev/null
	stats
}
row() { # label "REQ BYTES" goal
	set -- "$1" $2 "$3"
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4"
}

echo "| over HTTP | requests | bytes | goal |"
echo "|---|---|---|---|"
row "cat one object of million.bpx (HEAD)" "$(fetch "$work/bpx" cat "${url}new/million.bpx" assets/obj0500000)" "<= 3, <= 1 MiB"
row "cat one object of million.bpx (BASE)" "$(fetch "$work/bpx-base" cat "${url}old/million.bpx" assets/obj0500000)" ""
row "ls one directory of 1,000 of dirs.bpx (HEAD)" "$(fetch "$work/bpx" ls "${url}new/dirs.bpx" assets/d500)" "<= 4, <= 2 MiB"
row "ls all of million.bpx (HEAD)" "$(fetch "$work/bpx" ls "${url}new/million.bpx")" "as BASE or better"
row "ls all of million.bpx (BASE)" "$(fetch "$work/bpx-base" ls "${url}old/million.bpx")" ""
row "cat one object of tenk.bpx (HEAD)" "$(fetch "$work/bpx" cat "${url}new/tenk.bpx" assets/obj0005000)" "as BASE or better"
row "cat one object of tenk.bpx (BASE)" "$(fetch "$work/bpx-base" cat "${url}old/tenk.bpx" assets/obj0005000)" ""
row "ls all of tenk.bpx (HEAD)" "$(fetch "$work/bpx" ls "${url}new/tenk.bpx")" "as BASE or better"
row "ls all of tenk.bpx (BASE)" "$(fetch "$work/bpx-base" ls "${url}old/tenk.bpx")" ""
kill $srv
srv=

tm= tk= tb=
i=0
while [ $i -lt "$RUNS" ]; do
	tm=$(min "$tm" "$(bestk 1 5 "$work/bpx" cat "$work/new/million.bpx" assets/obj0500000)")
	tk=$(min "$tk" "$(bestk 1 5 "$work/bpx" cat "$work/new/tenk.bpx" assets/obj0005000)")
	tb=$(min "$tb" "$(bestk 1 5 "$work/bpx-base" cat "$work/old/million.bpx" assets/obj0500000)")
	i=$((i + 1))
done
echo
echo "| locally | ratio | peak RSS MiB | goal |"
echo "|---|---|---|---|"
echo "| cat one object: million.bpx / tenk.bpx (HEAD) | $(ratio "$tm" "$tk") | $(rss "$work/bpx" cat "$work/new/million.bpx" assets/obj0500000) / $(rss "$work/bpx" cat "$work/new/tenk.bpx" assets/obj0005000) | <= 1.5, <= 32 |"
echo "| cat one object of million.bpx: HEAD / BASE | $(ratio "$tm" "$tb") | $(rss "$work/bpx-base" cat "$work/old/million.bpx" assets/obj0500000) (BASE) | |"
printf '\n| package | bytes (HEAD) | bytes (BASE) |\n|---|---|---|\n'
echo "| million.bpx | $(size "$work/new/million.bpx") | $(size "$work/old/million.bpx") |"
