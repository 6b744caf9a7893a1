#!/bin/sh
# game-data.sh measures bpx on a real game's data (issue 32): SuperTuxKart
# 1.4's, Debian's supertuxkart-data (5,252 files, 699 MB: PNG, OGG, meshes,
# JPEG, XML), fetched with apt-get download and extracted with dpkg-deb
# into $GAME_DIR (default $TMPDIR/bpx-game, else /tmp/bpx-game) on first
# use. Never in CI, never committed. It runs:
#   1. bench/pack-vs-zip.sh on the game's tree and on $(go env GOROOT)/src
#      (pack, size, unpack, cat of 24 files against unzip -p, -l max, RSS);
#   2. BenchmarkDecodeImages: every PNG and JPEG of one kart decoded from 4
#      goroutines through the package's fs.FS, against archive/zip.
# Run it with TMPDIR=/dev/shm on a VM whose disk has no journal (see
# pack-vs-zip.sh). Usage: bench/game-data.sh
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${GAME_DIR:-${TMPDIR:-/tmp}/bpx-game}
tree=$dir/supertuxkart
if [ ! -d "$tree" ]; then
	for tool in apt-get dpkg-deb; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "game-data: $tool not installed, skipping"
			exit 0
		fi
	done
	mkdir -p "$dir"
	(cd "$dir" && apt-get download supertuxkart-data && dpkg-deb -x supertuxkart-data_*.deb "$tree" && rm -f supertuxkart-data_*.deb)
fi
"$repo/bench/pack-vs-zip.sh" "$tree" "$(go env GOROOT)/src"
cd "$repo/types/pack"
BPX_GAME_DIR=$tree BPX_GAME_SUB=usr/share/games/supertuxkart/data/karts/tux \
	go test -run '^$' -bench 'BenchmarkDecodeImages' -count 5 .
