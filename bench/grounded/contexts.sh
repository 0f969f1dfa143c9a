#!/usr/bin/env bash
# contexts.sh: a RAG set of model outputs that carry their own contexts,
# from a generated set: each output of `audit gen` gets as contexts the
# documents about the subjects of its claims (a retriever that found the
# right pages), plus the next document in the corpus as a distractor; the
# gold labels are the generated claims'. Then `audit run --outputs` with no
# --corpus, timed.
#
# usage: bench/grounded/contexts.sh AUDIT_BIN WORK_DIR CLAIMS DOCS
#   about CLAIMS/4.5 outputs (gen writes 4 to 5 claims per output)
set -euo pipefail
bin=$1 work=$2 n=$3 docs=$4
rm -rf "$work" && mkdir -p "$work"
"$bin" gen --out "$work/set" --claims "$n" --docs "$docs" --seed 41 >/dev/null
jq -c -n --slurpfile d "$work/set/corpus.jsonl" --slurpfile c "$work/set/claims.jsonl" --slurpfile o "$work/set/outputs.jsonl" '
  ($d | map({(.title): .text}) | add) as $byTitle
  | ($d | map(.text)) as $texts
  | ($c | group_by(.source_id) | map({(.[0].source_id): [.[].subject | select(. != null)] | unique}) | add) as $subjects
  | $o | to_entries[] | .key as $i | .value
  | .contexts = ([($subjects[.id] // [])[] | $byTitle[.] | select(. != null)] + [$texts[$i % ($texts | length)]] | unique)' \
	>"$work/answers.jsonl"
echo "$(wc -l <"$work/answers.jsonl") outputs, $(jq '.contexts | length' "$work/answers.jsonl" | paste -sd+ | bc) contexts"
/usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M KB" "$bin" run --outputs "$work/answers.jsonl" --out "$work/run" --log-level warn 2>&1 >"$work/run.txt" | tail -3
grep -E '^time:|claims/s|^ +calibrate' "$work/run.txt"
