#!/bin/sh
# lzma-vs-xz.sh compares the speed of bpx's own LZMA decoder
# (internal/xzdec, run by bench/xzdecode on one thread: GOMAXPROCS=1) with
# liblzma (xz -dc -T1) and 7-Zip (7zz e -so -mmt1), interleaved in one
# run, on the inputs of issue 26's decoder goal, built from a corpus
# (default $(go env GOROOT)/src):
#   sections: the xz sections of a default "bpx pack" of it, their stored
#             streams one after the other (each tool decodes them all)
#   tar:      one "xz -6 --block-size=1MiB" stream of it as a tar
# Each timing is the best of $RUNS (default 5) of the whole command, output
# to /dev/null. It prints MB/s (decoded bytes) and the ratios go/xz and
# go/7zz (above 1: the Go decoder is faster).
#
# XZDECODE_B=DIR adds a second decoder built from the checkout at DIR (an
# A/B comparison of two versions of the decoder, in the same run).
#
# Usage: bench/lzma-vs-xz.sh [corpus-dir]
# Skips (exit 0) when xz, 7zz or tar is missing.
set -eu

for tool in xz 7zz tar go; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "lzma-vs-xz: $tool not installed, skipping"
		exit 0
	fi
done

RUNS=${RUNS:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$(go env GOROOT)/src}
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-lzma.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
. "$repo/bench/lib.sh"

(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx && CGO_ENABLED=0 go build -o "$work/go" ./bench/xzdecode)
decoders="go xz 7zz"
if [ -n "${XZDECODE_B:-}" ]; then
	(cd "$XZDECODE_B" && CGO_ENABLED=0 go build -o "$work/goB" ./bench/xzdecode)
	decoders="go goB xz 7zz"
fi

"$work/bpx" pack -q -o "$work/c.bpx" "$corpus"
"$work/go" extract "$work/c.bpx" "$work/sections.xz"
(cd "$corpus" && tar cf "$work/c.tar" .)
xz -6 --block-size=1MiB -T1 -c "$work/c.tar" >"$work/tar.xz"
echo "$(wc -c <"$work/tar.xz") $(wc -c <"$work/c.tar")" >"$work/tar.xz.sizes"
rm -f "$work/c.tar" "$work/c.bpx"

run() { # run DECODER FILE
	case $1 in
	go | goB) GOMAXPROCS=1 "$work/$1" "$2" ;;
	xz) xz -dc -T1 "$2" ;;
	7zz) 7zz e -so -mmt1 "$2" 2>/dev/null ;;
	esac
}

echo "== corpus $corpus, best of $RUNS, one thread"
for input in sections tar; do
	f="$work/$input.xz"
	want=$(run xz "$f" | cksum)
	for dec in $decoders; do
		if [ "$(run "$dec" "$f" | cksum)" != "$want" ]; then
			echo "lzma-vs-xz: $dec decodes $input differently from xz" >&2
			exit 1
		fi
	done
	size=$(run xz "$f" | wc -c)
	for dec in $decoders; do eval "t_$dec="; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		for dec in $decoders; do
			t0=$(now)
			run "$dec" "$f" >/dev/null
			t1=$(now)
			t=$(echo "$t1 - $t0" | bc -l)
			eval "b=\$t_$dec"
			if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then eval "t_$dec=$t"; fi
		done
		i=$((i + 1))
	done
	line="$input ($(wc -c <"$f") -> $size bytes):"
	for dec in $decoders; do
		eval "t=\$t_$dec"
		line="$line $dec $(echo "$size / $t / 1000000" | bc -l | xargs printf '%.1f') MB/s"
	done
	echo "$line"
	for dec in $decoders; do
		case $dec in go | goB)
			eval "t=\$t_$dec"
			echo "  $dec: $(echo "$t_xz / $t" | bc -l | xargs printf '%.3f')x xz, $(echo "$t_7zz / $t" | bc -l | xargs printf '%.3f')x 7zz"
			;;
		esac
	done
done
