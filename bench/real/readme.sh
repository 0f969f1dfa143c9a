#!/usr/bin/env bash
# The README's real-set figures, again (make readme-real DATA=folder):
#  1. SufficientFacts split by line into two halves: the embedded lexical weights (A)
#     against weights trained on the first half (B), both run on the second half with
#     --rules none; audit diff's fixed/broken counts, checked by a DuckDB join
#     (interop/paired.mjs).
#  2. Fool Me Twice with its gold document ids as evidence: retrieval recall@5 and MRR,
#     checked by DuckDB (interop/recall.mjs), and the wrong answers split by whether
#     their gold document was retrieved (--rules none).
# Usage: bench/real/readme.sh AUDIT_BIN DATA_DIR WORK_DIR
set -euo pipefail
bin=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
sf=$data/sufficient_facts
n=$(wc -l < "$sf/claims.jsonl")
half=$(( n / 2 ))
for part in first second; do
  mkdir -p "$work/sf-$part"
  ln -s "$(cd "$sf" && pwd)/corpus.jsonl" "$work/sf-$part/corpus.jsonl"
  ln -s "$(cd "$sf" && pwd)/spans.jsonl" "$work/sf-$part/spans.jsonl"
done
head -n "$half" "$sf/claims.jsonl" > "$work/sf-first/claims.jsonl"
tail -n +"$(( half + 1 ))" "$sf/claims.jsonl" > "$work/sf-second/claims.jsonl"
# each half's gold labels (a gold line names its claim_id)
for part in first second; do
  grep -o '"id": *"[^"]*"' "$work/sf-$part/claims.jsonl" | sed 's/"id": *"\([^"]*\)"/"claim_id": "\1"/' > "$work/sf-$part/ids"
  grep -F -f "$work/sf-$part/ids" "$sf/gold_labels.jsonl" > "$work/sf-$part/gold_labels.jsonl"
  rm "$work/sf-$part/ids"
done
echo "== SufficientFacts: $half claims train B, $(( n - half )) are judged by A and B"
"$bin" train --set "$work/sf-first" --out "$work/b-weights.json"
s2=$work/sf-second
for ab in a b; do
  w=(); [ "$ab" = b ] && w=(--weights "$work/b-weights.json")
  "$bin" run --log-level warn --corpus "$s2/corpus.jsonl" --spans "$s2/spans.jsonl" --claims "$s2/claims.jsonl" \
    --gold "$s2/gold_labels.jsonl" --rules none --out "$work/sf-$ab" "${w[@]}" > /dev/null
done
"$bin" diff "$work/sf-a" "$work/sf-b" --format markdown --all > "$work/sf-diff.md" 2>/dev/null || true
sed -n '/fixed | broken/,/^$/p' "$work/sf-diff.md" | head -4
grep -E 'accuracy`|binary_balanced_accuracy`' "$work/sf-diff.md" | head -4
sed -n '/Decisions that changed/,/details>$/p' "$work/sf-diff.md" | grep '→' 
"$bin" diff --json "$work/sf-a" "$work/sf-b" > "$work/sf-diff.json" || true
(cd "$(dirname "$0")/../../interop" && npm install --no-audit --no-fund --loglevel=error > /dev/null)
node "$(dirname "$0")/../../interop/paired.mjs" "$work/sf-a/records.parquet" "$work/sf-b/records.parquet" "$work/sf-diff.json"

echo "== Fool Me Twice: gold document ids as evidence"
fm=$data/fm2
# gold_details.jsonl's doc_ids as each gold line's evidence
sed 's/"doc_ids": \(\[[^]]*\]\).*/"evidence": \1}/; s/, "orig_label"[^}]*"evidence"/, "evidence"/' "$fm/gold_details.jsonl" > "$work/fm2-gold.jsonl"
"$bin" run --log-level warn --corpus "$fm/corpus.jsonl" --spans "$fm/spans.jsonl" --claims "$fm/claims.jsonl" \
  --gold "$work/fm2-gold.jsonl" --rules none --out "$work/fm2" --json > "$work/fm2-summary.json"
node "$(dirname "$0")/../../interop/recall.mjs" "$work/fm2" "$work/fm2-gold.jsonl"
grep -E '"(retrieval_recall_at_5|retrieval_mrr|errors_evidence_missed|errors_evidence_retrieved)"' "$work/fm2/summary.json" | head -4
