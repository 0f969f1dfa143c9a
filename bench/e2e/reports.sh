#!/usr/bin/env bash
# reports.sh: audit report, report over shards, diff and trend of a baseline
# binary against the working tree's, interleaved on one run's output, under
# GNU time (CPU = user + sys, peak RSS), with the reports' tables compared
# row for row between the two binaries.
#
# usage: reports.sh BASE_BIN NEW_BIN DIR ROUNDS
#   DIR holds run/ (an `audit run` folder) and, optionally, shard-0..N/
#   (`audit run --shard i/N` folders of the same claims); the outputs go to
#   DIR/bench-<side>-<what>, the timings to DIR/times.txt.
set -euo pipefail
base=$1 new=$2 dir=$3 rounds=$4
shards=$(ls -d "$dir"/shard-*/records.parquet 2>/dev/null || true)
here=$(cd "$(dirname "$0")" && pwd) # go run needs a path it reads as the module's

one() { # side what round
	local bin=$base
	[ "$1" = new ] && bin=$new
	local out=$dir/bench-$1-$2
	rm -rf "$out" "$out.json"
	case $2 in
	report) set -- "$@" "$bin" report --records "$dir/run/records.parquet" --out "$out" ;;
	shards) set -- "$@" "$bin" report --out "$out" --records $shards ;;
	diff) set -- "$@" "$bin" diff "$dir/run" "$dir/run/records.parquet" --format html ;;
	trend) set -- "$@" "$bin" trend "$dir/bench-base-report" "$dir/bench-new-report" "$dir/run" --out "$out" ;;
	esac
	local side=$1 what=$2 round=$3
	shift 3
	/usr/bin/time -f "%U %S %M %e" -o "$dir/time.tmp" "$@" >"$out.out" 2>"$out.err" || { echo "$side $what failed"; tail -3 "$out.err"; }
	echo "$what $side $round $(cat "$dir/time.tmp")" | tee -a "$dir/times.txt"
}

whats="report diff"
[ -n "$shards" ] && whats="$whats shards"
for r in $(seq 1 "$rounds"); do
	for w in $whats; do
		if [ $((r % 2)) = 1 ]; then one base "$w" "$r"; one new "$w" "$r"; else one new "$w" "$r"; one base "$w" "$r"; fi
	done
done
one base trend 1
one new trend 1
echo "columns: what side round user_s sys_s peak_rss_KiB wall_s"
for w in report shards; do
	[ -d "$dir/bench-new-$w" ] && { echo "== $w: tables base vs new"; go run "$here/../sametables" "$dir/bench-base-$w" "$dir/bench-new-$w" || true; }
done
cmp "$dir/bench-base-diff.out" "$dir/bench-new-diff.out" && echo "== diff: html pages identical"
