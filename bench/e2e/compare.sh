#!/usr/bin/env bash
# compare.sh: audit run of a baseline git ref against the working tree's
# binary, interleaved on the same generated data, so that the ratios hold on
# a loaded machine (both sides see the same load, round by round).
#
# usage: compare.sh BASE_REF NEW_BIN DIR "SIZES" ROUNDS
#   BASE_REF  a commit; its cmd/audit is built once into DIR/audit-<sha>
#             (from `git archive`, so no worktree or checkout is touched)
#   NEW_BIN   the working tree's audit binary
#   DIR       scratch folder (data, outputs, timings), e.g. .cache/bench-e2e
#   SIZES     claim counts, e.g. "10000 100000"
#   ROUNDS    runs of each side per size; the order alternates per round
#
# Prints, per size, CPU seconds (user+sys from GNU time) and peak RSS of each
# side (medians over the rounds), the new/base ratios (median of the
# per-round ratios), and each side's stage times from its last run.
set -euo pipefail
base_ref=$1 new_bin=$2 dir=$3 sizes=$4 rounds=$5
mkdir -p "$dir"
sha=$(git rev-parse --short=12 "$base_ref^{commit}")
base_bin=$(bash "$(dirname "$0")/base.sh" "$base_ref" "$dir")

run() { # side n round
	local bin=$base_bin
	[ "$1" = new ] && bin=$new_bin
	local d=$dir/data-$2 out=$dir/out-$1-$2
	rm -rf "$out"
	/usr/bin/time -f "%U %S %M %e" -o "$dir/time-$1-$2-$3" "$bin" run \
		--corpus "$d/corpus.jsonl" --spans "$d/spans.jsonl" --claims "$d/claims.jsonl" \
		--gold "$d/gold.jsonl" --out "$out" >/dev/null 2>"$dir/stderr-$1-$2"
}

# stages: "validate 0.30s, index 11.09s, …" from the run's "stage done" log lines
stages() {
	awk '/msg="stage done"/ {st = ""; sec = ""
		for (i = 1; i <= NF; i++) { if ($i ~ /^stage=/) st = substr($i, 7); if ($i ~ /^seconds=/) sec = substr($i, 9) }
		out = out (out == "" ? "" : ", ") st " " sprintf("%.2fs", sec) } END {print out}' "$1"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

echo "baseline: $sha ($(git log -1 --format=%s "$sha" | cut -c1-60))"
echo "new:      $new_bin (working tree $(git describe --always --dirty))"
for n in $sizes; do
	if [ ! -f "$dir/data-$n/claims.jsonl" ]; then
		"$new_bin" gen --out "$dir/data-$n" --claims "$n" --docs 10000 --seed 202 >/dev/null
	fi
	for r in $(seq 1 "$rounds"); do
		if [ $((r % 2)) = 1 ]; then run base "$n" "$r"; run new "$n" "$r"; else run new "$n" "$r"; run base "$n" "$r"; fi
	done
	cpu() { awk '{print $1+$2}' "$dir/time-$1-$n-$2"; }
	rss() { awk '{print $3/1024}' "$dir/time-$1-$n-$2"; }
	cb=$(for r in $(seq 1 "$rounds"); do cpu base "$r"; done | median)
	cn=$(for r in $(seq 1 "$rounds"); do cpu new "$r"; done | median)
	mb=$(for r in $(seq 1 "$rounds"); do rss base "$r"; done | median)
	mn=$(for r in $(seq 1 "$rounds"); do rss new "$r"; done | median)
	rc=$(for r in $(seq 1 "$rounds"); do echo "$(cpu new "$r") $(cpu base "$r")"; done | awk '{print $1/$2}' | median)
	rm_=$(for r in $(seq 1 "$rounds"); do echo "$(rss new "$r") $(rss base "$r")"; done | awk '{print $1/$2}' | median)
	echo "== $n claims, 10000 documents, seed 202, $rounds interleaved rounds"
	printf '   CPU s (user+sys)  base %8.1f  new %8.1f  new/base %.2f  (%.2f vs %.2f ms/claim)\n' "$cb" "$cn" "$rc" \
		"$(awk -v c="$cb" -v n="$n" 'BEGIN{print 1000*c/n}')" "$(awk -v c="$cn" -v n="$n" 'BEGIN{print 1000*c/n}')"
	printf '   peak RSS MiB      base %8.0f  new %8.0f  new/base %.2f\n' "$mb" "$mn" "$rm_"
	echo "   stages base (last run): $(stages "$dir/stderr-base-$n")"
	echo "   stages new  (last run): $(stages "$dir/stderr-new-$n")"
done
