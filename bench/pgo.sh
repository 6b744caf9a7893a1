#!/bin/sh
# pgo.sh regenerates cmd/bpx/default.pgo, the CPU profile "go build" uses
# for profile-guided optimization of bpx (Go 1.21+ picks it up by itself).
# It profiles the work users wait for, on $(go env GOROOT)/src: packing
# with xz and zlib, unpacking both and verifying.
#
# Usage: bench/pgo.sh [corpus-dir]
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$(go env GOROOT)/src}
work=$(mktemp -d "${TMPDIR:-/tmp}/bpx-pgo.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# Build without the current profile, so the new one does not feed on it.
(cd "$repo" && CGO_ENABLED=0 go build -pgo=off -o "$work/bpx" ./cmd/bpx)
bpx="$work/bpx"
prof() { name=$1; shift; BPX_CPUPROFILE="$work/$name.prof" "$bpx" "$@" >/dev/null; }

prof pack-xz pack -q -c xz -o "$work/x.bpx" "$corpus"
prof pack-zlib pack -q -c zlib -o "$work/z.bpx" "$corpus"
prof unpack-xz unpack -q -C "$work/ux" "$work/x.bpx"
prof unpack-zlib unpack -q -C "$work/uz" "$work/z.bpx"
prof verify verify -q "$work/x.bpx"
# ls runs too briefly to leave samples in a profile.

go tool pprof -proto "$work"/*.prof >"$repo/cmd/bpx/default.pgo"
echo "wrote $repo/cmd/bpx/default.pgo"
