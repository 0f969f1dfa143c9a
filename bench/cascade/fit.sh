#!/usr/bin/env bash
# make cascade-fit: the cascade's band for a model, from the real labelled sets. For each
# set, the lexical verifier and the model (audit run --verifier onnx --k M, --rules none)
# run over the same claims (SAMPLE > 0: about SAMPLE claims a set, chosen by a hash of the
# claim id, for a model too slow to run on every claim), and the model again on each
# claim's first 1, 2, … P passages (what the cascade's exit reads before each check;
# CASCADE_PREFIXES=P, default 1: the exit checked after the first passage only, at most M-1);
# then audit cascade fit prints the leave-one-set-out table and writes the band and exit
# fitted on every set to OUT. CASCADE_FIT_ARGS: more flags for it (e.g. --band all).
# CASCADE_ARGS (environment): more flags for the model's runs, e.g. --max-length 64.
# MODEL_DIR may hold {set}: each set is then read by its own model (a model trained leave one
# set out, make model-train-b's folds), so that the fit reads held-out outputs only.
# Usage: bench/cascade/fit.sh AUDIT_BIN MODEL_DIR DATA_DIR WORK M SAMPLE OUT SET...
set -euo pipefail
bin=$1 model=$2 data=$3 work=$4 m=$5 sample=$6 out=$7; shift 7
mkdir -p "$work"
args=()
for s in "$@"; do
  d=$data/$s sub=$work/sub-$s model_s=${model//\{set\}/$s}
  [ -d "$model_s" ] || { echo "cascade-fit: no model folder $model_s for set $s" >&2; exit 2; }
  mkdir -p "$sub"
  if [ "$sample" -gt 0 ]; then
    total=$(wc -l < "$d/claims.jsonl")
    python3 - "$d" "$sub" "$sample" "$total" <<'PY'
import hashlib, json, sys
d, sub, sample, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
keep = set()
with open(f"{d}/claims.jsonl") as f, open(f"{sub}/claims.jsonl", "w") as out:
    for line in f:
        cid = json.loads(line)["id"]
        if int(hashlib.md5(cid.encode()).hexdigest(), 16) % total < sample:
            keep.add(cid); out.write(line)
with open(f"{d}/gold_labels.jsonl") as f, open(f"{sub}/gold_labels.jsonl", "w") as out:
    out.writelines(l for l in f if json.loads(l)["claim_id"] in keep)
PY
  else
    cp "$d/claims.jsonl" "$d/gold_labels.jsonl" "$sub/"
  fi
  common=(--log-level warn --corpus "$d/corpus.jsonl" --spans "$d/spans.jsonl" --claims "$sub/claims.jsonl" --gold "$sub/gold_labels.jsonl" --rules none --index "$work/index-$s")
  "$bin" run "${common[@]}" --out "$work/lexical-$s" > /dev/null
  "$bin" run "${common[@]}" --k "$m" --out "$work/model-$s" --verifier onnx --model "$model_s" ${CASCADE_ARGS:-} > /dev/null
  runs=$work/lexical-$s,$work/model-$s
  for j in $(seq 1 $(( ${CASCADE_PREFIXES:-1} < m - 1 ? ${CASCADE_PREFIXES:-1} : m - 1 ))); do
    "$bin" run "${common[@]}" --k "$m" --out "$work/prefix$j-$s" --verifier cascade --cascade-band all --cascade-passages "$j" --cascade-exit 0 \
      --model "$model_s" ${CASCADE_ARGS:-} > /dev/null
    runs=$runs,$work/prefix$j-$s
  done
  args+=(--set "$s=$runs")
done
"$bin" cascade fit "${args[@]}" --passages "$m" ${CASCADE_FIT_ARGS:-} --out "$out"
