#!/bin/sh
# lzma-vs-xz.sh compares the speed of bpx's own LZMA decoder
# (internal/xzdec, run by bench/xzdecode on one thread: GOMAXPROCS=1) with
# liblzma (xz -dc -T1) and 7-Zip (7zz e -so -mmt1), interleaved in one
# run, on the inputs of issue 26's decoder goal, built from a corpus
# (default $(go env GOROOT)/src):
#   sections: the xz sections of a default "bpx pack" of it, their stored
#             streams one after the other (each tool decodes them all)
#   tar:      one "xz -6 --block-size=1MiB" stream of it as a tar
# The Go decoder runs in its three modes (see bench/xzdecode): go (flat,
# Decode), go-stream (Reader, bounded memory) and go-steps (DecodeTo in
# 64 KiB steps, the resumable decoder).
#
# Each timing is the best of $RUNS (default 5) of the whole command, output
# to /dev/null: its CPU time (perf stat's task-clock, which other processes
# on a shared machine disturb less than wall time) when perf is installed,
# else its wall time. It prints MB/s (decoded bytes) and the ratios to xz
# and 7zz (above 1: the Go decoder is faster).
#
# XZDECODE_B=DIR adds the flat decoder built from the checkout at DIR, as
# goB (an A/B comparison of two versions of the decoder in one run).
#
# Usage: bench/lzma-vs-xz.sh [corpus-dir]
# Skips (exit 0) when xz, 7zz or tar is missing.
set -eu

for tool in xz 7zz tar go bc; do
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

(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx && CGO_ENABLED=0 go build -o "$work/xzdecode" ./bench/xzdecode)
decoders="go go-stream go-steps xz 7zz"
if [ -n "${XZDECODE_B:-}" ]; then
	(cd "$XZDECODE_B" && CGO_ENABLED=0 go build -o "$work/xzdecodeB" ./bench/xzdecode)
	decoders="go go-stream go-steps goB xz 7zz"
fi

"$work/bpx" pack -q -o "$work/c.bpx" "$corpus"
"$work/xzdecode" extract "$work/c.bpx" "$work/sections.xz"
(cd "$corpus" && tar cf "$work/c.tar" .)
xz -6 --block-size=1MiB -T1 -c "$work/c.tar" >"$work/tar.xz"
echo "$(wc -c <"$work/tar.xz") $(wc -c <"$work/c.tar")" >"$work/tar.xz.sizes"
rm -f "$work/c.tar" "$work/c.bpx"

# run DECODER FILE decodes FILE to stdout; a script of its own, for perf
# to time.
cat >"$work/run" <<RUN
#!/bin/sh
case \$1 in
go) GOMAXPROCS=1 "$work/xzdecode" "\$2" ;;
go-stream) GOMAXPROCS=1 "$work/xzdecode" -mode stream "\$2" ;;
go-steps) GOMAXPROCS=1 "$work/xzdecode" -mode steps "\$2" ;;
goB) GOMAXPROCS=1 "$work/xzdecodeB" "\$2" ;;
xz) exec xz -dc -T1 "\$2" ;;
7zz) exec 7zz e -so -mmt1 "\$2" 2>/dev/null ;;
esac
RUN
chmod +x "$work/run"
run() { "$work/run" "$@"; }

clock=wall
if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock true >/dev/null 2>&1; then clock=cpu; fi
timed() { # timed DECODER FILE: seconds
	if [ $clock = cpu ]; then
		ms=$(perf stat -x, -e task-clock "$work/run" "$1" "$2" 2>&1 >/dev/null | tail -1 | cut -d, -f1)
		echo "$ms / 1000" | bc -l
	else
		t0=$(now)
		run "$1" "$2" >/dev/null
		t1=$(now)
		echo "$t1 - $t0" | bc -l
	fi
}

echo "== corpus $corpus, best of $RUNS, one thread, $clock time"
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
	for dec in $decoders; do eval "t_$(echo $dec | tr - _)="; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		for dec in $decoders; do
			v=$(echo $dec | tr - _)
			t=$(timed "$dec" "$f")
			eval "b=\$t_$v"
			if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then eval "t_$v=$t"; fi
		done
		i=$((i + 1))
	done
	line="$input ($(wc -c <"$f") -> $size bytes):"
	for dec in $decoders; do
		eval "t=\$t_$(echo $dec | tr - _)"
		line="$line $dec $(echo "$size / $t / 1000000" | bc -l | xargs printf '%.1f')"
	done
	echo "$line MB/s"
	for dec in $decoders; do
		case $dec in go*)
			eval "t=\$t_$(echo $dec | tr - _)"
			echo "  $dec: $(echo "$t_xz / $t" | bc -l | xargs printf '%.3f')x xz, $(echo "$t_7zz / $t" | bc -l | xargs printf '%.3f')x 7zz"
			;;
		esac
	done
done
