#!/usr/bin/env bash
# real.sh: each claim of the four real sets against its gold evidence
# documents only (--evidence cited, the gold documents as its cites) beside
# the pooled-retrieval run (the default), verifier alone (--rules none):
# binary balanced accuracy per set. Separates retrieval errors from
# verification errors.
#
# usage: bench/grounded/real.sh AUDIT_BIN DATA_DIR WORK_DIR [run flags...]
#   DATA_DIR holds fm2, checkcovid_train, citint_train, sufficient_facts
#   (the harness layout: corpus, spans, claims, gold_labels, and for the
#   first three gold_details with each claim's doc_ids; SufficientFacts'
#   evidence documents are named sf_doc_<claim>_<n>).
set -euo pipefail
bin=$1 data=$2 work=$3
shift 3
mkdir -p "$work"
printf '%-18s %6s %8s %8s %8s %8s\n' set claims pooled cited pooledAUC citedAUC
for set in fm2 checkcovid_train citint_train sufficient_facts; do
	d=$data/$set
	if [ -f "$d/gold_details.jsonl" ]; then
		jq -c -n --slurpfile g "$d/gold_details.jsonl" --slurpfile c "$d/claims.jsonl" \
			'($g | map({(.claim_id): .doc_ids}) | add) as $m | $c[] | .cite = $m[.id]' >"$work/$set-cited.jsonl"
	else
		jq -c -n --slurpfile docs "$d/corpus.jsonl" --slurpfile c "$d/claims.jsonl" \
			'($docs | map(.doc_id) | group_by(sub("_[0-9]+$"; "")) | map({(.[0] | sub("_[0-9]+$"; "")): .}) | add) as $m
			 | $c[] | .cite = $m["sf_doc_" + (.id | ltrimstr("sf_"))]' >"$work/$set-cited.jsonl"
	fi
	uncited=$(jq -c 'select(.cite == null)' "$work/$set-cited.jsonl" | wc -l)
	gold=$d/gold_labels.jsonl
	for mode in pooled cited; do
		claims=$d/claims.jsonl ev=()
		[ $mode = cited ] && claims=$work/$set-cited.jsonl ev=(--evidence cited)
		rm -rf "$work/$set-$mode"
		"$bin" run --log-level warn --corpus "$d/corpus.jsonl" --spans "$d/spans.jsonl" --claims "$claims" \
			--gold "$gold" --rules none --index "$work/$set-index" --out "$work/$set-$mode" "${ev[@]}" "$@" --json >/dev/null
	done
	get() { jq -r ".metrics.$2 // \"null\" | if type == \"number\" then (. * 1000 | round / 1000) else . end" "$work/$set-$1/summary.json"; }
	printf '%-18s %6s %8s %8s %8s %8s%s\n' "$set" "$(wc -l <"$d/claims.jsonl")" "$(get pooled binary_balanced_accuracy)" \
		"$(get cited binary_balanced_accuracy)" "$(get pooled binary_auc)" "$(get cited binary_auc)" \
		"$([ "$uncited" -gt 0 ] && echo "  ($uncited claims without gold documents: uncited)")"
done
