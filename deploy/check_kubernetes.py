#!/usr/bin/env python3
"""Checks deploy/kubernetes/ without a cluster, then runs its Jobs' commands locally.

Usage: check_kubernetes.py AUDIT_BINARY WORKDIR

1. Structure: every document has apiVersion, kind and metadata.name; every Job's
   pods mount only volumes they declare, and every volume is the one
   PersistentVolumeClaim of volume.yaml; the Indexed Job's completions,
   parallelism and `--shards N` agree, and its --out names
   $(JOB_COMPLETION_INDEX); the shard pods mount the index read-only.
2. Behaviour: with /data mapped to WORKDIR (a generated data set in WORKDIR/in),
   the index Job's args, then each shard pod's args with
   $(JOB_COMPLETION_INDEX) expanded as Kubernetes expands it, then the report
   Job's command, run as the containers would run them.
"""
import os, subprocess, sys, glob
import yaml

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kubernetes")
audit, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
docs = {}
for f in sorted(glob.glob(os.path.join(here, "*.yaml"))):
    for d in yaml.safe_load_all(open(f)):
        for k in ("apiVersion", "kind", "metadata"):
            assert k in d, f"{f}: no {k}"
        docs[(d["kind"], d["metadata"]["name"])] = (f, d)

pvcs = [n for (k, n) in docs if k == "PersistentVolumeClaim"]
assert len(pvcs) == 1, f"want one PersistentVolumeClaim, got {pvcs}"
jobs = {n: d for (k, n), (_, d) in docs.items() if k == "Job"}
assert set(jobs) == {"claimaudit-index", "claimaudit-shards", "claimaudit-report"}, sorted(jobs)

def pod(job):
    return jobs[job]["spec"]["template"]["spec"]

for name in jobs:
    p = pod(name)
    assert p["restartPolicy"] in ("Never", "OnFailure"), name
    vols = {v["name"]: v for v in p["volumes"]}
    for v in vols.values():
        assert v["persistentVolumeClaim"]["claimName"] == pvcs[0], f"{name}: volume {v['name']}"
    for c in p["containers"]:
        assert c.get("image"), f"{name}: container {c['name']} has no image"
        for m in c.get("volumeMounts", []):
            assert m["name"] in vols, f"{name}: mount of undeclared volume {m['name']}"

shards = jobs["claimaudit-shards"]["spec"]
args = pod("claimaudit-shards")["containers"][0]["args"]
n = int(args[args.index("--shards") + 1])
assert shards["completionMode"] == "Indexed", "the shard Job must be an Indexed Job"
assert shards["completions"] == n == shards["parallelism"], f"completions {shards['completions']}, parallelism {shards['parallelism']}, --shards {n}"
assert "$(JOB_COMPLETION_INDEX)" in args[args.index("--out") + 1], "each shard pod needs its own --out"
mounts = {m["mountPath"]: m for m in pod("claimaudit-shards")["containers"][0]["volumeMounts"]}
assert mounts["/data/index"].get("readOnly"), "shard pods mount the index read-only"
print(f"kubernetes: {len(docs)} objects, {n} shards: structure ok")

# Behaviour: /data → work.
def local(s):
    return s.replace("/data", work)

def run(argv, env=None):
    r = subprocess.run(argv, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)}: exit {r.returncode}\n{r.stderr}")
    return r.stdout

run([audit, "gen", "--out", os.path.join(work, "in"), "--claims", "200", "--docs", "80", "--seed", "3"])
run([audit] + [local(a) for a in pod("claimaudit-index")["containers"][0]["args"]])
procs = []
for i in range(n):
    argv = [audit] + [local(a).replace("$(JOB_COMPLETION_INDEX)", str(i)) for a in args]
    procs.append(subprocess.Popen(argv, env={**os.environ, "JOB_COMPLETION_INDEX": str(i)},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
for i, p in enumerate(procs):
    out, err = p.communicate()
    if p.returncode != 0:
        sys.exit(f"shard pod {i}: exit {p.returncode}\n{err}")
    assert f"of shard {i}/{n}" in out, out
rc = pod("claimaudit-report")["containers"][0]
argv = [local(a) for a in rc["command"] + rc["args"]]
assert argv[-1].startswith("exec audit "), argv[-1]
argv[-1] = argv[-1].replace("exec audit ", f"exec {audit} ", 1)
out = run(argv)
assert "200 records" in out, out
assert os.path.exists(os.path.join(work, "out", "report", "summary.json"))
print(f"kubernetes: index job, {n} shard pods and the report job ran locally: ok")
