#!/bin/bash
# make deploy-check: validates deploy/ as far as a machine without a cluster
# allows. Usage: deploy/check.sh AUDIT_BINARY
#  - kubernetes/: kubectl decodes every object into its typed API struct
#    offline (kubectl set resources --local on the Jobs, label --local on
#    all: field types, kinds; unknown fields are not caught), check_kubernetes.py checks the structure and
#    runs the Jobs' commands locally;
#  - slurm/: bash -n, then submit.sh end to end with a stand-in sbatch that
#    runs each array task (SLURM_ARRAY_TASK_ID set as Slurm sets it) and
#    then the dependent report job.
# `kubectl apply --dry-run=client` needs a reachable API server (it asks it
# for the resource mapping) and is not run here.
set -euo pipefail
audit=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if command -v kubectl >/dev/null; then
  for f in "$here"/kubernetes/*-job.yaml; do
    kubectl set resources --local --dry-run=client -f "$f" --limits=cpu=2 -o name >/dev/null \
      || { echo "kubectl could not decode $f"; exit 1; }
  done
  kubectl label --local --dry-run=client -f "$here/kubernetes/" checked=yes -o name >/dev/null
  echo "kubernetes: kubectl decodes every object (offline)"
else
  echo "kubernetes: kubectl not installed: skipping its offline decode"
fi
mkdir "$work/k8s"
python3 "$here/check_kubernetes.py" "$audit" "$work/k8s"

for f in "$here"/slurm/*; do bash -n "$f"; done
mkdir -p "$work/bin" "$work/slurm"
cat > "$work/bin/sbatch" <<'SBATCH'
#!/bin/bash
# A stand-in for Slurm's sbatch: runs the script at once, an --array's
# tasks one after another, and prints a job id with --parsable.
array= script=
for a in "$@"; do
  case $a in --array=*) array=${a#--array=} ;; --*) ;; *) script=$a ;; esac
done
if [ -n "$array" ]; then
  lo=${array%-*} hi=${array#*-}
  for ((i = lo; i <= hi; i++)); do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=$lo SLURM_ARRAY_TASK_MAX=$hi bash "$script" >/dev/null
  done
  echo 4242
else
  bash "$script"
fi
SBATCH
chmod +x "$work/bin/sbatch"
"$audit" gen --out "$work/slurm/in" --claims 200 --docs 80 --seed 3 >/dev/null
out=$(PATH="$work/bin:$PATH" AUDIT="$audit" DATA="$work/slurm/in" INDEX="$work/slurm/index" OUT="$work/slurm/out" SHARDS=3 \
  bash "$here/slurm/submit.sh" 2>/dev/null)
grep -q '^200 records' <<<"$out" || { echo "slurm: the report job did not report 200 records:"; echo "$out"; exit 1; }
test -f "$work/slurm/out/report/summary.json"
echo "slurm: submit.sh, 3 array tasks and the report job ran with a stand-in sbatch: ok"
