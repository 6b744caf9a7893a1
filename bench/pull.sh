#!/bin/sh
# pull.sh measures issue 34's goals 4 and 5: what "bpx pull" downloads to
# update a package, against what it must download at least, zsync and a
# full download, over bench/countserve (127.0.0.1, range requests, bytes
# and requests counted).
#
# Each row is a pair of trees: OLD is packed and given to the pull as
# LOCAL, NEW is packed and served. "ideal" is bench/sectionshare's
# ideal_bytes: the stored size of NEW's changed and added objects plus
# its tables, digests and signature. "pull" is what the server sent for
# "bpx pull URL LOCAL" (the result compared with cmp), with its ratio to
# the ideal (goal 4: <= 1.3 rebuilt, <= 1.1 edited). "zsync" is what the
# server sent for zsync 0.6.2 (zsyncmake on NEW's zip, OLD's zip as
# seed, the .zsync file included) against NEW's zip. "digests" is the
# chunk digests section against the package (goal 5: <= 0.5%).
#   - two consecutive releases of golang.org/x/tools ($OLD_MOD, $NEW_MOD,
#     default v0.51.0 and v0.52.0), from the Go module proxy;
#   - with GAME_DIR (a directory holding an extracted supertuxkart-data,
#     see bench/game-data.sh): the game's data tree and copies with a
#     patch-like change (20 files changed, 100 added, 10 removed, spread
#     over the tree; two kinds, see below), packed anew, and the same
#     change made to OLD's package with bpx add and bpx rm.
# PACK_FLAGS are given to every pack (e.g. --stable-sections). zsync is
# taken from $ZSYNC_DIR, else the PATH, else downloaded with apt-get.
# Usage: TMPDIR=/dev/shm bench/pull.sh
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-pull.XXXXXX")
cleanup() {
	[ -n "${server:-}" ] && kill "$server" 2>/dev/null
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
PACK_FLAGS=${PACK_FLAGS:-}
OLD_MOD=${OLD_MOD:-golang.org/x/tools@v0.51.0}
NEW_MOD=${NEW_MOD:-golang.org/x/tools@v0.52.0}

(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx &&
	go build -o "$work/sectionshare" ./bench/sectionshare &&
	go build -o "$work/countserve" ./bench/countserve)
bpx="$work/bpx"

zsyncdir=${ZSYNC_DIR:-}
if [ -z "$zsyncdir" ]; then
	if command -v zsyncmake >/dev/null; then
		zsyncdir=$(dirname "$(command -v zsyncmake)")
	else
		(cd "$work" && apt-get download zsync >/dev/null 2>&1 && dpkg-deb -x zsync_*.deb zs)
		zsyncdir="$work/zs/usr/bin"
	fi
fi

mkdir "$work/www"
"$work/countserve" "$work/www" >"$work/url" 2>/dev/null &
server=$!
while [ ! -s "$work/url" ]; do sleep 0.1; done
url=$(head -1 "$work/url")
stats() { curl -s "${url}__stats"; }

# row NAME OLD.bpx NEW.bpx OLD.zip NEW.zip: serves NEW, pulls it over OLD
# and prints the row.
row() {
	set -- "$1" "$2" "$3" "$4" "$5" $("$work/sectionshare" "$2" "$3")
	name=$1 old=$2 new=$3 oldzip=$4 newzip=$5
	ideal=${23}
	size=$(wc -c <"$new")
	digests=$("$bpx" info --json "$new" | tr -d ' \n' | grep -o '"type":243[^}]*' | grep -o '"csize":[0-9]*' | cut -d: -f2)
	cp "$new" "$work/www/new.bpx"
	cp "$old" "$work/local.bpx"
	stats >/dev/null
	"$bpx" pull -q "${url}new.bpx" "$work/local.bpx" >/dev/null
	cmp "$work/local.bpx" "$new"
	set -- $(stats)
	preq=$1 pbytes=$2
	cp "$newzip" "$work/www/new.zip"
	(cd "$work/www" && "$zsyncdir/zsyncmake" -u new.zip -o new.zip.zsync new.zip 2>/dev/null)
	rm -f "$work/out.zip"
	stats >/dev/null
	(cd "$work" && "$zsyncdir/zsync" -q -i "$oldzip" -o out.zip "${url}new.zip.zsync" >/dev/null 2>&1)
	cmp "$work/out.zip" "$newzip"
	set -- $(stats)
	zreq=$1 zbytes=$2
	zsize=$(wc -c <"$newzip")
	printf '| %s | %s | %s | %s B, %s req (%.2fx ideal, %.1f%% of the package) | %s B, %s req (%.1f%% of the zip) | %s B (%.2f%%) |\n' \
		"$name" "$size" "$ideal" "$pbytes" "$preq" "$(echo "$pbytes / $ideal" | bc -l)" "$(echo "100 * $pbytes / $size" | bc -l)" \
		"$zbytes" "$zreq" "$(echo "100 * $zbytes / $zsize" | bc -l)" "${digests:-0}" "$(echo "100 * ${digests:-0} / $size" | bc -l)"
}

# pack DIR OUT: a package and a zip of DIR.
pack() {
	"$bpx" pack -q --skip-dangling $PACK_FLAGS -o "$2.bpx" "$1" 2>>"$work/skipped"
	rm -f "$2.zip"
	(cd "$1" && find . -type f | LC_ALL=C sort | zip -q -X "$2.zip" -@)
}

echo "| pair | new package | ideal | bpx pull | zsync | chunk digests |"
echo "|---|---|---|---|---|---|"
oldmod=$(cd "$repo" && go mod download -json "$OLD_MOD" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
newmod=$(cd "$repo" && go mod download -json "$NEW_MOD" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
pack "$oldmod" "$work/old"
pack "$newmod" "$work/new"
row "$OLD_MOD -> ${NEW_MOD#*@}" "$work/old.bpx" "$work/new.bpx" "$work/old.zip" "$work/new.zip"

if [ -n "${GAME_DIR:-}" ]; then
	tree=$(find "$GAME_DIR" -mindepth 1 -maxdepth 1 -type d | head -1)
	cp -r "$tree" "$work/game-old"
	(cd "$work/game-old" && find . -type f | sort) >"$work/files"
	n=$(wc -l <"$work/files")
	# As bench/rebuild.sh: every (n/20)th file changed, every (n/100)th
	# gets a new file beside it, every (n/10)th of the rest removed.
	awk -v n="$n" 'NR % int(n / 20) == 1' "$work/files" | head -20 >"$work/changed"
	awk -v n="$n" 'NR % int(n / 100) == 2' "$work/files" | head -100 >"$work/copied"
	awk -v n="$n" 'NR % int(n / 10) == 3' "$work/files" | head -10 >"$work/removed"
	pack "$work/game-old" "$work/gold"
	# Two kinds of patch. "append": as bench/rebuild.sh, a line appended
	# to each changed file, the new files copies of their neighbours (what
	# a pull finds locally: less than the ideal). "rewrite": the changed
	# files and the new ones random bytes of the same sizes, as assets
	# exported anew (a pull must fetch all of them).
	for style in append rewrite; do
		rm -rf "$work/game-new"
		cp -r "$work/game-old" "$work/game-new"
		(cd "$work/game-new" &&
			while read -r f; do
				if [ $style = append ]; then printf 'patched\n' >>"$f"; else head -c "$(wc -c <"$f")" /dev/urandom >"$f.tmp" && mv "$f.tmp" "$f"; fi
			done <"$work/changed" &&
			while read -r f; do
				if [ $style = append ]; then cp "$f" "$f.new"; else head -c "$(wc -c <"$f")" /dev/urandom >"$f.new"; fi
			done <"$work/copied" &&
			while read -r f; do rm -f "$f"; done <"$work/removed")
		pack "$work/game-new" "$work/gnew"
		row "game data ($style): 20 changed, 100 added, 10 removed, packed anew" "$work/gold.bpx" "$work/gnew.bpx" "$work/gold.zip" "$work/gnew.zip"
		cp "$work/gold.bpx" "$work/gedit.bpx"
		# Names may hold spaces (SuperTuxKart's do): one a line, NUL-ended.
		(cd "$work/game-new" && sed 's|$|.new|' "$work/copied" | cat - "$work/changed" | sed 's|^\./||' | tr '\n' '\0' |
			xargs -0 "$bpx" add "$work/gedit.bpx" >/dev/null)
		sed 's|^\./||' "$work/removed" | tr '\n' '\0' | xargs -0 "$bpx" rm "$work/gedit.bpx" >/dev/null
		row "game data ($style): the same change made with bpx add and rm" "$work/gold.bpx" "$work/gedit.bpx" "$work/gold.zip" "$work/gnew.zip"
	done
fi
