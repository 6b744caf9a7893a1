#!/bin/sh
# fuzz.sh runs every fuzz target of the module for a while, one after the
# other, and prints one line per target: package, target, executions and
# ok or FAIL (with the failing input's path).
#
# Usage: bench/fuzz.sh [DURATION]     (default 10s; any -fuzztime value)
#
# New interesting inputs go to the build cache's fuzz corpus ($(go env
# GOCACHE)/fuzz), not to the tree. Only a failing input is written to the
# package's testdata/fuzz/<Target>/: keep it and commit it as a seed once
# the cause is fixed, so that "go test" runs it from then on.
#
# Exits 1 if any target fails.
#
# For long campaigns on several cores, run shards side by side:
# FUZZ_SHARD=K/N runs only the targets K, K+N, K+2N, ... (K from 0), and
# FUZZ_PARALLEL sets go test's -parallel (fuzzing workers per target).
#
# Each line also gives the rate in executions a minute, and a target below
# 10,000 a minute is marked SLOW, one below 100 executions DOES NOT RUN,
# and a summary line names them: such a target explores too little to
# find anything. Neither fails the script: how fast a target runs depends
# on the machine and its load (a CI machine's, say).
#
# The fuzzer minimizes every new interesting input, for up to
# FUZZ_MINIMIZE (-fuzzminimizetime: default 100x, a hundred executions;
# go test's own default is 60s) and without counting the executions that
# takes: with go's default, a target whose inputs are large, or that finds
# many new inputs (as every target does on a fresh corpus, in CI), spent
# its whole time minimizing: FuzzPartial ran 23 executions in 10 minutes,
# FuzzPreview 116 in 15 s (4,954 with 100x).
set -u
shard=${FUZZ_SHARD:-0/1}
shard_k=${shard%/*} shard_n=${shard#*/}
parallel=${FUZZ_PARALLEL:+-parallel $FUZZ_PARALLEL}
minimize=${FUZZ_MINIMIZE:-100x}
min_rate=10000 # executions a minute

duration=${1:-10s}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
log=$(mktemp -d "${TMPDIR:-/tmp}/bpx-fuzz.XXXXXX")
trap 'rm -rf "$log"' EXIT INT TERM

# Packages with a fuzz target: a cheap grep, then go test -list for the
# exact names (build tags and all).
dirs=$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)
failed=0
slow=""
total=0
n=0
start=$(date +%s)
for dir in $dirs; do
	pkg=$(go list "$dir") || { echo "$dir: go list failed"; failed=1; continue; }
	targets=$(go test -list '^Fuzz' "$dir" | grep '^Fuzz') || {
		echo "$pkg: cannot list the fuzz targets"
		failed=1
		continue
	}
	for t in $targets; do
		n=$((n + 1))
		[ $(((n - 1) % shard_n)) -eq "$shard_k" ] || continue
		total=$((total + 1))
		out="$log/$t.log"
		# shellcheck disable=SC2086 # $parallel is empty or two words
		if go test -run '^$' -fuzz "^$t\$" -fuzztime "$duration" -fuzzminimizetime "$minimize" $parallel "$dir" >"$out" 2>&1; then
			status=ok
		elif grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written\|failure while testing seed' "$out"; then
			# Go before 1.27 can report the end of -fuzztime as a failure
			# with no input (https://go.dev/issue/75804): not a finding.
			status="ok (go.dev/issue/75804 at the deadline)"
		else
			status=FAIL
			failed=1
		fi
		# The last progress line holds the final count and the time.
		execs=$(grep -o 'execs: [0-9]*' "$out" | tail -n 1 | cut -d' ' -f2)
		execs=${execs:-0}
		secs=$(sed -n 's/^fuzz: elapsed: \([0-9]*\)s.*/\1/p' "$out" | tail -n 1)
		rate=$((execs * 60 / ${secs:-1}))
		[ "${secs:-0}" -gt 0 ] || rate=0
		if [ "$status" != FAIL ] && [ "$execs" -lt 100 ]; then
			status="DOES NOT RUN (below 100 executions)"
			slow="$slow $t"
		elif [ "$status" != FAIL ] && [ "$rate" -lt "$min_rate" ]; then
			status="SLOW (below $min_rate/min)"
			slow="$slow $t"
		fi
		line="$pkg $t $execs execs, $rate/min, $status"
		if [ "$status" = FAIL ]; then
			input=$(sed -n 's/.*Failing input written to \([^ ]*\).*/\1/p' "$out" | tail -n 1)
			seed=$(sed -n 's/.*failure while testing seed corpus entry: \([^ ]*\).*/\1/p' "$out" | tail -n 1)
			if [ -n "$input" ]; then
				line="$line ${dir#./}/$input"
			elif [ -n "$seed" ]; then
				line="$line seed $seed"
			fi
			echo "$line"
			sed 's/^/    /' "$out" | grep -v '^    fuzz: elapsed' | tail -n 20
		else
			echo "$line"
		fi
	done
done
echo "fuzz: $total targets, $duration each, $(($(date +%s) - start))s in all"
[ -z "$slow" ] || echo "fuzz: below $min_rate executions a minute:$slow"
exit $failed
