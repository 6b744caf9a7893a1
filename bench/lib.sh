# lib.sh: timing helpers shared by the bench/ scripts (sourced; POSIX sh).
# The sourcing script sets $work, a scratch directory.

TIMEV=
if [ -x /usr/bin/time ]; then TIMEV=/usr/bin/time; fi

# now prints the time in seconds with nanoseconds.
now() { date +%s.%N; }

# best N CMD...: run CMD N times (output discarded), print the fastest
# wall time in seconds.
best() {
	n=$1; shift
	bestk "$n" 1 "$@"
}

# bestk N K CMD...: like best, but each of the N samples times K runs in a
# row and counts their mean. For commands of a few milliseconds: the two
# "date" processes that bracket a sample add about 2 ms to it, which K
# runs share.
bestk() {
	n=$1 k=$2; shift 2
	b=
	i=0
	while [ $i -lt "$n" ]; do
		t0=$(now)
		j=0
		while [ $j -lt "$k" ]; do
			"$@" >/dev/null 2>&1
			j=$((j + 1))
		done
		t1=$(now)
		t=$(echo "($t1 - $t0) / $k" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
		i=$((i + 1))
	done
	echo "$b"
}

# rss CMD...: peak RSS of CMD in MiB (empty without /usr/bin/time).
rss() {
	if [ -z "$TIMEV" ]; then echo "?"; return; fi
	"$TIMEV" -f %M -o "$work/rss" "$@" >/dev/null 2>&1 || true
	echo "$(cat "$work/rss") / 1024" | bc
}

# min A B: the smaller of two times (A may be empty).
min() {
	if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc -l)" = 1 ]; then echo "$2"; else echo "$1"; fi
}

ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

size() { wc -c <"$1" | tr -d ' '; }
