#!/bin/sh
# rebuild.sh measures what issue 34 (goal 3) is about: how many sections
# two "bpx pack" runs of trees that differ by a small change share, byte
# for byte, and so what a pull from the old package to the new one would
# download. For each pair it prints the new package's sections, those whose
# stored bytes the old one holds too (bench/sectionshare, SHA-256), the
# stored bytes of the others against the whole package, and the objects
# that differ with their size.
#   - two consecutive releases of golang.org/x/tools ($OLD_MOD, $NEW_MOD,
#     default v0.51.0 and v0.52.0), from the Go module proxy;
#   - with GAME_DIR (a directory holding an extracted supertuxkart-data,
#     see bench/game-data.sh): the game's data tree and a copy with a
#     patch-like change: 20 files changed, 100 added, 10 removed, spread
#     over the tree.
# PACK_FLAGS are given to both packs (e.g. --stable-sections).
# Usage: TMPDIR=/dev/shm bench/rebuild.sh
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-rebuild.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
PACK_FLAGS=${PACK_FLAGS:-}
OLD_MOD=${OLD_MOD:-golang.org/x/tools@v0.51.0}
NEW_MOD=${NEW_MOD:-golang.org/x/tools@v0.52.0}

(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx && go build -o "$work/sectionshare" ./bench/sectionshare)
bpx="$work/bpx"

# pair NAME OLD_DIR NEW_DIR: packs both and prints the row.
pair() {
	"$bpx" pack -q --skip-dangling $PACK_FLAGS -o "$work/old.bpx" "$2" 2>>"$work/skipped"
	"$bpx" pack -q --skip-dangling $PACK_FLAGS -o "$work/new.bpx" "$3" 2>>"$work/skipped"
	set -- "$1" $("$work/sectionshare" "$work/old.bpx" "$work/new.bpx")
	# sections S shared H fetch_bytes F total_bytes T changed C added A removed R changed_object_bytes B
	printf '| %s | %s | %s | %s of %s (%.1f%%) | %s changed, %s added, %s removed: %s bytes |\n' \
		"$1" "$3" "$5" "$7" "$9" "$(echo "100 * $7 / $9" | bc -l)" "${11}" "${13}" "${15}" "${17}"
}

echo "| pair | sections | shared | stored bytes to fetch | objects that differ |"
echo "|---|---|---|---|---|"
old=$(cd "$repo" && go mod download -json "$OLD_MOD" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
new=$(cd "$repo" && go mod download -json "$NEW_MOD" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
pair "$OLD_MOD -> ${NEW_MOD#*@}" "$old" "$new"

if [ -n "${GAME_DIR:-}" ]; then
	tree=$(find "$GAME_DIR" -mindepth 1 -maxdepth 1 -type d | head -1)
	cp -r "$tree" "$work/game-old"
	cp -r "$tree" "$work/game-new"
	find "$work/game-new" -type f | sort >"$work/files"
	n=$(wc -l <"$work/files")
	# Every (n/20)th file changed, every (n/100)th copied to a new name
	# beside it, every (n/10)th of the rest removed: spread over the tree.
	awk -v n="$n" 'NR % int(n / 20) == 1' "$work/files" | head -20 | while read -r f; do printf 'patched\n' >>"$f"; done
	awk -v n="$n" 'NR % int(n / 100) == 2' "$work/files" | head -100 | while read -r f; do cp "$f" "$f.new"; done
	awk -v n="$n" 'NR % int(n / 10) == 3' "$work/files" | head -10 | while read -r f; do rm -f "$f"; done
	pair "game data, 20 changed, 100 added, 10 removed" "$work/game-old" "$work/game-new"
fi
