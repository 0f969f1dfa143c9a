#!/bin/bash
# Usage: DATA=/shared/in INDEX=/shared/index OUT=/shared/out SHARDS=4 deploy/slurm/submit.sh
# Builds the index once (on the submitting node), submits the shard array,
# and the report job to run after all its tasks succeed; prints both job ids
# as sbatch does ("Submitted batch job N"), the array's first.
set -euo pipefail
: "${DATA:?}" "${INDEX:?}" "${OUT:?}" "${SHARDS:?}"
AUDIT=${AUDIT:-audit}
here=$(cd "$(dirname "$0")" && pwd)
"$AUDIT" index --corpus "$DATA/corpus.jsonl" --spans "$DATA/spans.jsonl" --index "$INDEX"
mkdir -p "$OUT"
export DATA INDEX OUT SHARDS AUDIT
array=$(sbatch --parsable --export=ALL --array=0-$((SHARDS - 1)) "$here/audit-shards.sbatch")
array=${array%%;*} # --parsable prints id;cluster on a multi-cluster setup
echo "Submitted batch job $array (the array of $SHARDS shard tasks)"
sbatch --export=ALL --dependency=afterok:"$array" "$here/audit-report.sbatch"
