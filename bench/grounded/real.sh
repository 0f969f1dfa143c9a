#!/usr/bin/env bash
# real.sh: each claim of the four real sets against its gold evidence
# documents only (--evidence cited, the gold documents as its cites) beside
# the pooled-retrieval run (the default), verifier alone (--rules none):
# binary balanced accuracy and ROC AUC of p(supported) per set
# (bench/grounded/metrics.py over the run's records: its summary.json's
# figures when every claim runs), and cited minus pooled balanced accuracy
# with its 95% paired bootstrap interval. Separates retrieval errors from
# verification errors.
#
# usage: [SAMPLE=N] [POOLED=DIR] bench/grounded/real.sh AUDIT_BIN DATA_DIR WORK_DIR [run flags...]
#   DATA_DIR holds fm2, checkcovid_train, citint_train, sufficient_facts
#   (the harness layout: corpus, spans, claims, gold_labels, and for the
#   first three gold_details with each claim's doc_ids; SufficientFacts'
#   evidence documents are named sf_doc_<claim>_<n>).
#   SAMPLE=N (default 0: every claim): about N claims a set, those whose
#   claim id's MD5 modulo the set's claim count is below N — the claims
#   bench/cascade/fit.sh (make cascade-fit CASCADE_SAMPLE=N) picks; for a
#   model too slow to run on every claim. Both columns are on the same claims.
#   POOLED=DIR: take the pooled column from runs already made (with the same
#   run flags, e.g. make cascade-fit's) instead of running it: DIR/model-<set>
#   (or DIR with %s for the set's name), holding at least the sampled claims.
#   SETS="a b": these of the four sets only, in this order.
set -euo pipefail
bin=$1 data=$2 work=$3
shift 3
sample=${SAMPLE:-0} pooled=${POOLED:-} sets=${SETS:-fm2 checkcovid_train citint_train sufficient_facts}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
printf '%-18s %6s %8s %8s %8s %8s  %s\n' set claims pooled cited pooledAUC citedAUC 'cited-pooled [95% paired bootstrap]'
for set in $sets; do
	d=$data/$set
	total=$(wc -l <"$d/claims.jsonl")
	pick() { python3 -c '
import hashlib, json, sys
n, total = int(sys.argv[1]), int(sys.argv[2])
for line in sys.stdin:
    if n <= 0 or int(hashlib.md5(json.loads(line)["id"].encode()).hexdigest(), 16) % total < n:
        sys.stdout.write(line)' "$sample" "$total"; }
	pick <"$d/claims.jsonl" >"$work/$set-claims.jsonl"
	if [ -f "$d/gold_details.jsonl" ]; then
		jq -c -n --slurpfile g "$d/gold_details.jsonl" --slurpfile c "$work/$set-claims.jsonl" \
			'($g | map({(.claim_id): .doc_ids}) | add) as $m | $c[] | .cite = $m[.id]' >"$work/$set-cited.jsonl"
	else
		jq -c -n --slurpfile docs "$d/corpus.jsonl" --slurpfile c "$work/$set-claims.jsonl" \
			'($docs | map(.doc_id) | group_by(sub("_[0-9]+$"; "")) | map({(.[0] | sub("_[0-9]+$"; "")): .}) | add) as $m
			 | $c[] | .cite = $m["sf_doc_" + (.id | ltrimstr("sf_"))]' >"$work/$set-cited.jsonl"
	fi
	uncited=$(jq -c 'select(.cite == null)' "$work/$set-cited.jsonl" | wc -l)
	declare -A row=()
	for mode in cited pooled; do
		claims=$work/$set-claims.jsonl ev=() out=$work/$set-$mode
		[ $mode = cited ] && claims=$work/$set-cited.jsonl ev=(--evidence cited)
		if [ $mode = pooled ] && [ -n "$pooled" ]; then
			out=$pooled/model-$set
			case $pooled in *%s*) out=$(printf "$pooled" "$set") ;; esac
		else
			rm -rf "$out"
			"$bin" run --log-level error --corpus "$d/corpus.jsonl" --spans "$d/spans.jsonl" --claims "$claims" \
				--gold "$d/gold_labels.jsonl" --rules none --index "$work/$set-index" --out "$out" "${ev[@]}" "$@" --json >/dev/null
		fi
		"$bin" export "$out" --format jsonl >"$work/$set-$mode-records.jsonl"
		res=$(python3 "$here/metrics.py" "$work/$set-$mode-records.jsonl" "$work/$set-claims.jsonl")
		read -r n ba auc <<<"$res"
		row[$mode]="$ba $auc"
	done
	read -r pba pauc <<<"${row[pooled]}"
	read -r cba cauc <<<"${row[cited]}"
	delta=$(python3 "$here/metrics.py" --paired "$work/$set-pooled-records.jsonl" "$work/$set-cited-records.jsonl" "$work/$set-claims.jsonl")
	printf '%-18s %6s %8s %8s %8s %8s  %s%s\n' "$set" "$n" "$pba" "$cba" "$pauc" "$cauc" "$delta" \
		"$([ "$uncited" -gt 0 ] && echo "  ($uncited claims without gold documents: uncited)")"
done
