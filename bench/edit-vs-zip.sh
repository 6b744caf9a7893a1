#!/bin/sh
# edit-vs-zip.sh measures replacing one file of about 100 KB in a package of
# $(go env GOROOT)/src (xz, defaults) with "bpx add", against packing the
# whole tree with "bpx pack" and against Info-ZIP zip updating the same file
# in a zip of the same tree, in one run, and prints the ratios issue #14
# sets goals for, with the peak RSS of the edit. It also times "bpx diff" of
# the package against its edit (which shares its untouched sections) and
# against a fresh pack of the changed tree, each against unpacking the
# package.
#
# Usage: bench/edit-vs-zip.sh [corpus-dir]
# Each timing is the best of $RUNS runs (default 3); every run edits a fresh
# copy of the package (or zip), copied outside the timing. Skips (exit 0)
# when zip is missing.
set -eu

for tool in zip go; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "edit-vs-zip: $tool not installed, skipping"
		exit 0
	fi
done

RUNS=${RUNS:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
. "$repo/bench/lib.sh"

# Static, as the README installs it (see there).
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bpx" ./cmd/bpx)
bpx="$work/bpx"
corpus=${1:-$(go env GOROOT)/src}

# The tree is copied so that the one file can be changed.
cp -r "$corpus" "$work/tree"
file=$(cd "$work/tree" && find . -type f -size +90k -size -110k | sed 's|^\./||' | sort | head -1)
[ -n "$file" ] || { echo "edit-vs-zip: no file of about 100 KB in $corpus"; exit 1; }
echo "== corpus $corpus: replacing $file ($(size "$work/tree/$file") bytes)"

t_pack=$(best "$RUNS" "$bpx" pack -q -o "$work/base.bpx" "$work/tree")
(cd "$work/tree" && zip -r -q -6 "$work/base.zip" .)
echo "// changed" >>"$work/tree/$file"

edit_bpx() { cp "$work/base.bpx" "$work/e.bpx" && "$bpx" add -C "$work/tree" "$work/e.bpx" "$file"; }
edit_zip() { cp "$work/base.zip" "$work/e.zip" && (cd "$work/tree" && zip -q "$work/e.zip" "$file"); }
copy_bpx() { cp "$work/base.bpx" "$work/e.bpx"; }
copy_zip() { cp "$work/base.zip" "$work/e.zip"; }
# Interleaved runs; the copy's own time is measured and subtracted.
t_add= t_zip= t_cpb= t_cpz=
i=0
while [ $i -lt "$RUNS" ]; do
	t_add=$(min "$t_add" "$(best 1 edit_bpx)")
	t_zip=$(min "$t_zip" "$(best 1 edit_zip)")
	t_cpb=$(min "$t_cpb" "$(best 1 copy_bpx)")
	t_cpz=$(min "$t_cpz" "$(best 1 copy_zip)")
	i=$((i + 1))
done
t_add=$(echo "$t_add - $t_cpb" | bc -l)
t_zip=$(echo "$t_zip - $t_cpz" | bc -l)
cp "$work/base.bpx" "$work/e.bpx"
m_add=$(rss "$bpx" add -C "$work/tree" "$work/e.bpx" "$file")
"$bpx" cat "$work/e.bpx" "$file" | cmp -s - "$work/tree/$file" || { echo "edit-vs-zip: the edited package does not hold the new file"; exit 1; }

# diff against the edit (sections shared) and against a fresh pack.
"$bpx" pack -q -o "$work/fresh.bpx" "$work/tree"
unpack() { d=$(mktemp -d "$work/u.XXXXXX") && "$bpx" unpack -q -C "$d/out" "$work/base.bpx"; }
diffcmd() { "$bpx" diff "$work/base.bpx" "$1" >/dev/null || [ $? -eq 1 ]; }
t_unpack= t_dedit= t_dfresh=
i=0
while [ $i -lt "$RUNS" ]; do
	t_unpack=$(min "$t_unpack" "$(best 1 unpack)")
	t_dedit=$(min "$t_dedit" "$(best 1 diffcmd "$work/e.bpx")")
	t_dfresh=$(min "$t_dfresh" "$(best 1 diffcmd "$work/fresh.bpx")")
	i=$((i + 1))
done
rm -rf "$work"/u.*
[ "$("$bpx" diff "$work/base.bpx" "$work/e.bpx" || true)" = "M $file" ] || { echo "edit-vs-zip: bpx diff does not find exactly the one change"; exit 1; }

printf '%-40s %10s %10s %8s   %s\n' operation bpx baseline ratio goal
printf '%-40s %10.3f %10.3f %8s   %s\n' "replace one file vs bpx pack (s)" "$t_add" "$t_pack" "$(ratio "$t_add" "$t_pack")" "<= 0.10"
printf '%-40s %10.3f %10.3f %8s   %s\n' "replace one file vs zip update (s)" "$t_add" "$t_zip" "$(ratio "$t_add" "$t_zip")" "<= 1.00"
printf '%-40s %10s %10s %8s   %s\n' "peak RSS of bpx add (MiB)" "$m_add" "" "" "<= 64"
printf '%-40s %10.3f %10.3f %8s   %s\n' "diff vs edited package / unpack (s)" "$t_dedit" "$t_unpack" "$(ratio "$t_dedit" "$t_unpack")" "<= 0.20"
printf '%-40s %10.3f %10.3f %8s   %s\n' "diff vs fresh pack / unpack (s)" "$t_dfresh" "$t_unpack" "$(ratio "$t_dfresh" "$t_unpack")" "-"
