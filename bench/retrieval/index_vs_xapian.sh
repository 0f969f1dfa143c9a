#!/usr/bin/env bash
# index_vs_xapian.sh: the CPU of `audit index` (and of the first search,
# which copies the postings for exact BM25) against Xapian's index build
# of the same passages (xapian_index.py, text and tokens), interleaved,
# under GNU time (CPU = user + sys, peak RSS).
#
# usage: index_vs_xapian.sh AUDIT_BIN CORPUS SPANS EXPORT_DIR ROUNDS
#   EXPORT_DIR holds passages.jsonl from `go run ./bench/retrieval -export`
#   on the same corpus and spans; the indexes are written under it.
set -euo pipefail
bin=$1 corpus=$2 spans=$3 dir=$4 rounds=$5
py=${PYTHON:-/usr/bin/python3} # Debian's python3-xapian is for the system Python
here=$(cd "$(dirname "$0")" && pwd)
t() { /usr/bin/time -f "%U %S %M %e" -o "$dir/time.tmp" "$@" >"$dir/out.tmp" 2>&1 || { tail -3 "$dir/out.tmp"; exit 1; }; }
for r in $(seq 1 "$rounds"); do
	t "$bin" index --force --corpus "$corpus" --spans "$spans" --index "$dir/audit-index"
	echo "audit-index $r $(cat "$dir/time.tmp")"
	t "$bin" search --index "$dir/audit-index" "population of the city in 2020"
	echo "audit-first-search $r $(cat "$dir/time.tmp")"
	for m in text tokens; do
		t "$py" "$here/xapian_index.py" "$dir" "$m"
		echo "xapian-$m $r $(cat "$dir/time.tmp")   # $(cat "$dir/out.tmp")"
	done
done
echo "columns: what round user_s sys_s peak_rss_KiB wall_s"
