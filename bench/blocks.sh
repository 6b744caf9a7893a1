#!/bin/sh
# blocks.sh measures issue 33's goal 1: reading one small object of a
# package whose data sections are 32 MiB (the size a 10 GiB package gets)
# costs about what it costs with 1 MiB sections, because such sections are
# written in 1 MiB xz blocks and a read decodes only the block that holds
# the object. On a corpus (default $(go env GOROOT)/src) it packs:
#   a1     the default: 1 MiB sections (one block each);
#   a32    32 MiB sections, default blocks (1 MiB);
#   a32one 32 MiB sections of one block each (--block-size 0: before blocks);
# and prints their sizes, then for 16 small files (at most 64 KiB, spread
# over the package) the time of "bpx cat" from a32 and a32one against a1
# (fresh processes, interleaved, best of $RUNS means of 5 runs; median and
# largest ratio), and over HTTP (bench/countserve, range requests) the
# requests and bytes each cat fetches, in all and beyond what opening the
# package costs (its tables, read whole today: issue 33 goal 2 is about
# those). Usage: bench/blocks.sh [corpus-dir]
set -eu

RUNS=${RUNS:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-blocks.XXXXXX")
trap 'kill $srv 2>/dev/null; rm -rf "$work"' EXIT INT TERM
srv=
corpus=${1:-$(go env GOROOT)/src}

(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx && go build -o "$work/countserve" ./bench/countserve)
bpx="$work/bpx"
. "$repo/bench/lib.sh"

mkdir "$work/srv"
"$bpx" pack -q --skip-dangling -o "$work/srv/a1.bpx" "$corpus"
"$bpx" pack -q --skip-dangling --section-size 33554432 --max-sections 0 -o "$work/srv/a32.bpx" "$corpus"
"$bpx" pack -q --skip-dangling --section-size 33554432 --max-sections 0 --block-size 0 -o "$work/srv/a32one.bpx" "$corpus"
s1=$(size "$work/srv/a1.bpx") s32=$(size "$work/srv/a32.bpx") sone=$(size "$work/srv/a32one.bpx")
echo "== corpus $corpus"
printf '%-40s %12s %8s\n' "package" "bytes" "vs a1"
printf '%-40s %12s %8s\n' "a1: 1 MiB sections (default)" "$s1" "1.00"
printf '%-40s %12s %8s\n' "a32: 32 MiB sections, 1 MiB blocks" "$s32" "$(ratio "$s32" "$s1")"
printf '%-40s %12s %8s\n' "a32one: 32 MiB sections, one block" "$sone" "$(ratio "$sone" "$s1")"

# 16 files of at most 64 KiB, evenly in data order.
"$bpx" ls -l "$work/srv/a32.bpx" | awk 'NR > 1 && NF == 4 && $1 <= 65536' | sort -k2,2n -k3,3n >"$work/objs"
n=$(wc -l <"$work/objs")
awk -v n="$n" 'NR % int(n / 16 + 1) == 1 { print $4 }' "$work/objs" >"$work/sample"

: >"$work/r32"
: >"$work/rone"
while read -r f; do
	t1= t32= tone=
	i=0
	while [ $i -lt "$RUNS" ]; do
		t1=$(min "$t1" "$(bestk 1 5 "$bpx" cat "$work/srv/a1.bpx" "$f")")
		t32=$(min "$t32" "$(bestk 1 5 "$bpx" cat "$work/srv/a32.bpx" "$f")")
		tone=$(min "$tone" "$(bestk 1 5 "$bpx" cat "$work/srv/a32one.bpx" "$f")")
		i=$((i + 1))
	done
	echo "$(echo "$t32 / $t1" | bc -l) $f" >>"$work/r32"
	echo "$(echo "$tone / $t1" | bc -l) $f" >>"$work/rone"
done <"$work/sample"
stats() {
	sort -n "$1" | awk '{ r[NR] = $1; f[NR] = $2 } END { printf "median %.2f, largest %.2f (%s)", r[int((NR + 1) / 2)], r[NR], f[NR] }'
}
echo
echo "bpx cat of $(wc -l <"$work/sample") small files, time against a1:"
echo "  a32 (blocks):       $(stats "$work/r32")   goal: <= 1.5"
echo "  a32one (no blocks): $(stats "$work/rone")"

"$work/countserve" "$work/srv" >"$work/url" 2>/dev/null &
srv=$!
while [ ! -s "$work/url" ]; do sleep 0.1; done
url=$(head -1 "$work/url")
stat() { curl -s "${url}__stats"; }
echo
echo "over HTTP, per cat (most of the 16): requests and bytes in all, and"
echo "beyond what opening the package and looking the path up costs (a cat"
echo "of a path that is not there):"
for p in a1 a32 a32one; do
	stat >/dev/null
	"$bpx" cat "$url$p.bpx" no/such/file >/dev/null 2>&1 || true
	set -- $(stat)
	or=$1 ob=$2
	mr=0 mb=0
	while read -r f; do
		"$bpx" cat "$url$p.bpx" "$f" >/dev/null
		set -- $(stat)
		if [ "$1" -gt "$mr" ]; then mr=$1; fi
		if [ "$2" -gt "$mb" ]; then mb=$2; fi
	done <"$work/sample"
	printf '  %-7s %3d requests, %9d bytes; beyond opening: %d requests, %d bytes\n' "$p" "$mr" "$mb" "$((mr - or))" "$((mb - ob))"
done
echo "goal (a32): <= 1 MiB (1048576 bytes) beyond opening"
