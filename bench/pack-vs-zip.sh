#!/bin/sh
# pack-vs-zip.sh compares "bpx pack/unpack/ls/cat" with Info-ZIP zip/unzip
# on two corpora, in one run, and prints the ratios the issue sets goals for:
#   1. $(go env GOROOT)/src
#   2. 8 synthetic files of 16 MiB (4 random, 4 float32 vertex arrays)
# and any directory given as an argument: game data (bench/game-data.sh
# fetches SuperTuxKart's and runs this script on it).
# The in-process read goals (every file with fs.ReadFile from 2 goroutines,
# against archive/zip) are BenchmarkReadAllParallel in types/pack, and for
# game data BenchmarkDecodeImages (bench/game-data.sh runs it).
# Each timing is the best of $RUNS runs (default 3; packing runs once; the
# millisecond-scale cat and ls timings are each the mean of 10 runs).
# Peak memory (max RSS) comes from /usr/bin/time when it is installed.
#
# Usage: bench/pack-vs-zip.sh [corpus-dir...]
# Skips (exit 0) when zip or unzip is missing.
#
# Unpacking creates 11,500 files. On ext4 without a journal, an inode freed
# in the last 5 s (5 min while its inode table block is dirty) is skipped,
# one lookup each, when a new one is allocated: for minutes after a large
# tree is deleted, creating files costs several times its usual system
# time, for every tool (more for parallel writers, which also contend on
# the group lock). Wait 5 min after deleting trees on such a disk, or run
# with TMPDIR=/dev/shm (tmpfs) for stable unpack timings.
set -eu

for tool in zip unzip go; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "pack-vs-zip: $tool not installed, skipping"
		exit 0
	fi
done

RUNS=${RUNS:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# Static, as the README installs it (see there).
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx)
bpx="$work/bpx"

if [ $# -gt 0 ]; then
	corpora="$*"
else
	go run "$repo/bench/gencorpus" "$work/synthetic"
	corpora="$(go env GOROOT)/src $work/synthetic"
fi

. "$repo/bench/lib.sh"

for corpus in $corpora; do
	name=$(basename "$corpus")
	files=$(find "$corpus" -type f | wc -l)
	bytes=$(find "$corpus" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
	small=$(cd "$corpus" && find . -type f -size -4k -size +1k | sed 's|^\./||' | sort | sed -n '2000p;2000q')
	[ -n "$small" ] || small=$(cd "$corpus" && find . -type f | sed 's|^\./||' | sort | head -1)
	echo "== corpus $corpus: $files files, $bytes bytes (single read: $small)"
	z="$work/c.zip" x="$work/c.bpx" g="$work/cz.bpx" mx="$work/cm.bpx"
	rm -f "$z" "$x" "$g" "$mx"

	t_zip=$(best 1 sh -c "cd '$corpus' && zip -r -q -6 '$z' .")
	t_xz=$(best 1 "$bpx" pack -q --skip-dangling -c xz -o "$x" "$corpus")
	t_zl=$(best 1 "$bpx" pack -q --skip-dangling -c zlib -o "$g" "$corpus")
	# -l max on the Go tree and game data (their goals are set there), not
	# on the synthetic corpus, where it measures nothing new.
	gosrc=$(go env GOROOT)/src
	if [ "$corpus" != "$work/synthetic" ]; then
		t_mx=$(best 1 "$bpx" pack -q --skip-dangling -l max -o "$mx" "$corpus")
	fi
	s_zip=$(size "$z") s_xz=$(size "$x") s_zl=$(size "$g") s_mx=
	if [ -f "$mx" ]; then s_mx=$(size "$mx"); fi

	# Each extraction gets a fresh directory, removed only at the end:
	# creating files right after deleting a tree is much slower on ext4
	# without a journal (see above), which would favour the first tool
	# measured. On tmpfs, where deleting costs nothing later, each tree is
	# removed right after it is timed: six trees of a game's data held in
	# memory at once (4 GiB for SuperTuxKart's) slow down every later
	# extraction with memory pressure.
	fstype=$(stat -f -c %T "$work")
	drop() { if [ "$fstype" = tmpfs ]; then rm -rf "$work"/u.*; fi; }
	unz() { d=$(mktemp -d "$work/u.XXXXXX") && unzip -q "$z" -d "$d/out" </dev/null; }
	unx() { d=$(mktemp -d "$work/u.XXXXXX") && "$bpx" unpack -q -C "$d/out" "$1"; }
	# Interleaved (unzip, xz, zlib, unzip, ...): file creation speed on
	# this kind of VM drifts by 2x within minutes, and measuring each
	# tool's runs back to back would hand one tool the good minutes.
	t_unzip= t_unxz= t_unzl=
	i=0
	while [ $i -lt "$RUNS" ]; do
		t_unzip=$(min "$t_unzip" "$(best 1 unz)")
		drop
		t_unxz=$(min "$t_unxz" "$(best 1 unx "$x")")
		drop
		t_unzl=$(min "$t_unzl" "$(best 1 unx "$g")")
		drop
		i=$((i + 1))
	done
	rm -rf "$work"/u.*

	t_p=$(bestk "$RUNS" 10 unzip -p "$z" "$small")
	t_cat=$(bestk "$RUNS" 10 "$bpx" cat "$x" "$small")
	t_catmx=
	if [ -f "$mx" ]; then t_catmx=$(bestk "$RUNS" 10 "$bpx" cat "$mx" "$small"); fi
	# One asset at a time, as a game reads: 24 files spread over the
	# package (16 evenly in data order, the 4 that end furthest into
	# their sections, the 4 largest), each against unzip -p.
	"$bpx" ls -l "$x" | awk 'NR > 1 && NF == 4' | sort -k2,2n -k3,3n >"$work/objs"
	n=$(wc -l <"$work/objs")
	{
		awk -v n="$n" 'NR % int(n / 16 + 1) == 1 { print $4 }' "$work/objs"
		sort -k3,3n "$work/objs" | tail -4 | awk '{ print $4 }'
		sort -k1,1n "$work/objs" | tail -4 | awk '{ print $4 }'
	} | awk '!seen[$0]++' >"$work/sample"
	: >"$work/ratios"
	while read -r f; do
		a=$(bestk "$RUNS" 5 "$bpx" cat "$x" "$f")
		b=$(bestk "$RUNS" 5 unzip -p "$z" "$f")
		echo "$(echo "$a / $b" | bc -l) $f" >>"$work/ratios"
	done <"$work/sample"
	sort -n "$work/ratios" >"$work/ratios.sorted"
	k=$(wc -l <"$work/ratios.sorted")
	r_med=$(awk -v k="$k" 'NR == int((k + 1) / 2) { printf "%.2f", $1 }' "$work/ratios.sorted")
	r_max=$(tail -1 "$work/ratios.sorted" | awk '{ printf "%.2f", $1 }')
	f_max=$(tail -1 "$work/ratios.sorted" | awk '{ print $2 }')
	t_l=$(bestk "$RUNS" 10 unzip -l "$z")
	t_ls=$(bestk "$RUNS" 10 "$bpx" ls "$x")

	m_pack=$(rss "$bpx" pack -q --skip-dangling -c xz -o "$work/m.bpx" "$corpus")
	m_packmx=-
	if [ -f "$mx" ]; then m_packmx=$(rss "$bpx" pack -q --skip-dangling -l max -o "$work/m.bpx" "$corpus"); fi
	m_unpack=$(rss "$bpx" unpack -q -C "$work/m" "$x")
	rm -rf "$work/m" "$work/m.bpx"

	# The goals: issue 26's for the Go source tree (today's figures, not
	# to regress), issue 32's for game data (any other corpus given as an
	# argument); the synthetic corpus is measured without goals.
	# g GO GAME prints the goal of this corpus: GO for the Go tree, GAME
	# for game data, - for the synthetic corpus.
	if [ "$corpus" = "$gosrc" ]; then
		g() { echo "$1"; }
	elif [ "$corpus" = "$work/synthetic" ]; then
		g() { echo "-"; }
	else
		g() { echo "$2"; }
	fi
	printf '%-34s %10s %10s %8s   %s\n' operation bpx zip ratio goal
	printf '%-34s %10.3f %10.3f %8s   %s\n' "pack xz (s)" "$t_xz" "$t_zip" "$(ratio "$t_xz" "$t_zip")" "$(g '<= 0.73' '<= 0.35')"
	printf '%-34s %10d %10d %8s   %s\n' "pack xz size (bytes)" "$s_xz" "$s_zip" "$(ratio "$s_xz" "$s_zip")" "$(g '<= 0.69' '<= 0.95')"
	if [ -f "$mx" ]; then
		printf '%-34s %10.3f %10.3f %8s   %s\n' "pack xz -l max (s)" "$t_mx" "$t_zip" "$(ratio "$t_mx" "$t_zip")" "$(g '<= 5 (stretch)' '<= 4')"
		printf '%-34s %10d %10d %8s   %s\n' "pack xz -l max size (bytes)" "$s_mx" "$s_zip" "$(ratio "$s_mx" "$s_zip")" "$(g '<= 0.56 (stretch)' '< default')"
	else
		printf '%-34s %10s %10s %8s   %s\n' "pack xz -l max (s)" - - - -
		printf '%-34s %10s %10s %8s   %s\n' "pack xz -l max size (bytes)" - - - -
	fi
	printf '%-34s %10.3f %10.3f %8s   %s\n' "pack zlib (s)" "$t_zl" "$t_zip" "$(ratio "$t_zl" "$t_zip")" "-"
	printf '%-34s %10d %10d %8s   %s\n' "pack zlib size (bytes)" "$s_zl" "$s_zip" "$(ratio "$s_zl" "$s_zip")" "-"
	printf '%-34s %10.3f %10.3f %8s   %s\n' "unpack xz (s)" "$t_unxz" "$t_unzip" "$(ratio "$t_unxz" "$t_unzip")" "$(g '<= 0.65' '<= 0.35')"
	printf '%-34s %10.3f %10.3f %8s   %s\n' "unpack zlib (s)" "$t_unzl" "$t_unzip" "$(ratio "$t_unzl" "$t_unzip")" "-"
	printf '%-34s %10.4f %10.4f %8s   %s\n' "read one small file (s)" "$t_cat" "$t_p" "$(ratio "$t_cat" "$t_p")" "$(g '<= 4' -)"
	if [ -f "$mx" ]; then
		printf '%-34s %10.4f %10.4f %8s   %s\n' "read one small file, -l max (s)" "$t_catmx" "$t_p" "$(ratio "$t_catmx" "$t_p")" "-"
	fi
	printf '%-34s %10s %10s %8s   %s\n' "cat of $k files, median ratio" "" "" "$r_med" "$(g - '<= 1.5')"
	printf '%-34s %10s %10s %8s   %s\n' "cat of $k files, largest ratio" "" "" "$r_max" "$(g - '<= 3') (worst: $f_max)"
	printf '%-34s %10.4f %10.4f %8s   %s\n' "open + list (s)" "$t_ls" "$t_l" "$(ratio "$t_ls" "$t_l")" "$(g '<= 0.12' -)"
	printf '%-34s %10s %10s %8s   %s\n' "peak RSS pack / unpack xz (MiB)" "$m_pack" "$m_unpack" "" "$(g '<= 64' '<= 64')"
	printf '%-34s %10s\n' "peak RSS pack -l max (MiB)" "$m_packmx"
done
