#!/bin/sh
# loader.sh measures what a game's loader waits for (issue 43, goal 3): it
# packs a game's tree with "bpx pack" (default options), zips it with
# Info-ZIP's zip -r (deflate) and zip -r0 (stored, as some games ship
# their data), and runs bench/loader, which reads the tree's text, one
# directory's images, one level's files and a streamed music file
# through fs.FS from each, in interleaved rounds, and prints the package's
# time over zip's, over the stored zip's and over os.DirFS's.
#
# The trees: the arguments, else SuperTuxKart's data (Debian's
# supertuxkart-data, fetched into $GAME_DIR as bench/game-data.sh does).
# Never in CI. Run it with TMPDIR=/dev/shm (see pack-vs-zip.sh).
# LOADER_FLAGS are given to bench/loader (e.g. -rounds 9 -images DIR),
# PACK_FLAGS to bpx pack (e.g. PACK_FLAGS="-c zstd" for the shipping
# profile).
# Usage: TMPDIR=/dev/shm bench/loader.sh [tree...]
set -eu

for tool in zip go; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "loader: $tool not installed, skipping"
		exit 0
	fi
done
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-loader.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx && go build -o "$work/loader" ./bench/loader)

if [ $# -eq 0 ]; then
	dir=${GAME_DIR:-${TMPDIR:-/tmp}/bpx-game}
	if [ ! -d "$dir/supertuxkart" ]; then
		for tool in apt-get dpkg-deb; do
			if ! command -v "$tool" >/dev/null 2>&1; then
				echo "loader: $tool not installed, skipping"
				exit 0
			fi
		done
		mkdir -p "$dir"
		(cd "$dir" && apt-get download supertuxkart-data && dpkg-deb -x supertuxkart-data_*.deb supertuxkart && rm -f supertuxkart-data_*.deb)
	fi
	set -- "$dir/supertuxkart/usr/share/games/supertuxkart/data"
fi

for tree in "$@"; do
	# shellcheck disable=SC2086
	"$work/bpx" pack -q --skip-dangling ${PACK_FLAGS:-} -o "$work/game.bpx" "$tree"
	(cd "$tree" && zip -qr "$work/game.zip" . && zip -qr0 "$work/game0.zip" .)
	# shellcheck disable=SC2086
	"$work/loader" ${LOADER_FLAGS:-} -pkg "$work/game.bpx" -zip "$work/game.zip" -stored "$work/game0.zip" "$tree"
	rm -f "$work/game.bpx" "$work/game.zip" "$work/game0.zip"
	echo
done
