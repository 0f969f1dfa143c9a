#!/usr/bin/env bash
# make bench-cascade: on the demo and on a generated set of N claims, interleaved for
# ROUNDS rounds, (1) the model path (audit run --verifier onnx) against Python's ONNX
# Runtime on the same pairs (bench/cascade/ort.py speed), and (2) the cascade (audit run
# --verifier cascade, the band in MODEL/cascade.json) against the model alone: wall s,
# CPU s, claims/s, pairs/s, CPU ms per claim and the fraction of claims the model decided.
# Usage: bench/cascade/run.sh AUDIT_BIN MODEL_DIR PYTHON WORK N ROUNDS [SETS]
# (SETS: "demo gen-N" by default). CASCADE_BANDS (environment): more band files, each run
# as one more cascade path (named by the file) in the same rounds. The cascade's "pairs/s"
# counts the (claim, passage) pairs the model scored: every passage of a claim it decided,
# one for a claim its exit decided on the first passage.
set -euo pipefail
bin=$1 model=$2 py=$3 work=$4 n=$5 rounds=$6 sets=${7:-"demo gen-$5"}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
[ -f "$work/gen-$n/claims.jsonl" ] || "$bin" gen --out "$work/gen-$n" --claims "$n" --docs $(( n / 2 > 300 ? n / 2 : 300 )) --seed 202 > /dev/null
demo=$here/../../benchdata/demo
printf '| data | round | path | wall s | CPU s | claims/s | pairs/s | CPU ms/claim | model decided |\n|---|---|---|---|---|---|---|---|---|\n'
for set in $sets; do
  dir=$demo; [ "$set" = demo ] || dir=$work/$set
  claims=$(wc -l < "$dir/claims.jsonl")
  idx=$work/index-$set
  [ -d "$idx" ] || "$bin" index --corpus "$dir/corpus.jsonl" --spans "$dir/spans.jsonl" --index "$idx" > /dev/null
  for r in $(seq "$rounds"); do
    for path in model cascade $(for b in ${CASCADE_BANDS:-}; do echo "band:$b"; done) python; do
      band=(); name=$path
      case $path in band:*) band=(--cascade-band "${path#band:}"); name=cascade-$(basename "${path#band:}" .json); path=cascade;; esac
      out=$work/$set-$name-$r; rm -rf "$out"
      if [ "$path" = python ]; then
        [ -f "$work/$set.pairs.jsonl" ] || { "$bin" export --records "$work/$set-model-1/records.parquet" --format jsonl > "$work/$set.records.jsonl" && \
          "$py" "$here/ort.py" pairs --records "$work/$set.records.jsonl" --corpus "$dir/corpus.jsonl" --out "$work/$set.pairs.jsonl" > /dev/null; }
        "$py" "$here/ort.py" speed --model "$model" --pairs "$work/$set.pairs.jsonl" > "$out.json"
        "$py" - "$out.json" "$set" "$r" "$claims" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[4])
print(f"| {sys.argv[2]} | {sys.argv[3]} | Python ONNX Runtime (model only, {j['pairs']} pairs) | {j['wall_s']:.1f} | {j['cpu_s']:.1f} | {n / j['wall_s']:.1f} | {j['pairs_per_s']:.1f} | {1000 * j['cpu_s'] / n:.1f} | 1.000 |")
PY
        continue
      fi
      v=(--verifier onnx); [ "$path" = cascade ] && v=(--verifier cascade)
      /usr/bin/time -f '%e %U %S' -o "$out.time" "$bin" run --log-level warn --corpus "$dir/corpus.jsonl" --spans "$dir/spans.jsonl" \
        --claims "$dir/claims.jsonl" --gold "$dir/gold.jsonl" --index "$idx" --out "$out" "${v[@]}" "${band[@]}" --model "$model" > /dev/null
      "$bin" export --records "$out/records.parquet" --format jsonl > "$out.jsonl"
      "$py" - "$out.jsonl" "$out.time" "$set" "$r" "$path" "$name" <<'PY'
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
wall, user, sys_ = map(float, open(sys.argv[2]).read().split()[-3:])
n = len(recs); cpu = user + sys_
# the claims the model scored: its own verdicts, and those a labelling rule overrode (the
# rationale is still the model's: "entailment p, contradiction p, neutral p")
model = [r for r in recs if r["verifier"] == "onnx" or (r.get("decided_by") or "").startswith("verifier:onnx")
         or "entailment " in (r["rationale"] or "")]
def read(r):
    # a claim the exit stopped says "decided on the first of N" (1 pair) or "the first K of N"
    m = re.search(r"decided on the first (?:(\d+) )?of \d+ passages", r["rationale"] or "")
    return (int(m.group(1) or 1) if m else max(1, len(r["evidence"] or [])))
pairs = sum(read(r) for r in model)
frac = 1.0 if sys.argv[5] == "model" else len(model) / n
label = "audit run --verifier onnx" if sys.argv[5] == "model" else f"audit run --verifier cascade ({sys.argv[6]})"
print(f"| {sys.argv[3]} | {sys.argv[4]} | {label} | {wall:.1f} | {cpu:.1f} | {n / wall:.1f} | {pairs / wall:.1f} | {1000 * cpu / n:.1f} | {frac:.3f} |")
PY
    done
  done
done
