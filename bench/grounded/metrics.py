"""metrics.py: binary balanced accuracy (supported against not) and ROC AUC of
p(supported) of a run's records, over the claims of a claims file only — the
definitions of metrics/ (answered, labelled claims; ties in the AUC count one
half), so over every claim of a run it prints its summary.json's
binary_balanced_accuracy and binary_auc.

usage: python3 metrics.py RECORDS.jsonl CLAIMS.jsonl   (records: audit export --format jsonl)
prints: n balanced_accuracy auc  (null where undefined); exit 2 when a claim of
CLAIMS has no record.
       python3 metrics.py --paired A.jsonl B.jsonl CLAIMS.jsonl
prints the balanced accuracy of B minus A on the same claims and its 95%
paired bootstrap interval (2,000 resamples of the claims, seed 41).
"""
import json
import random
import sys


def auc(scores, pos):
    pairs = sorted(zip(scores, pos))
    npos = sum(pos)
    nneg = len(pos) - npos
    if npos == 0 or nneg == 0:
        return None
    s, neg, i = 0.0, 0, 0
    while i < len(pairs):
        j, p, n = i, 0, 0
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            p, n = p + pairs[j][1], n + (not pairs[j][1])
            j += 1
        s += p * (neg + n / 2)
        neg += n
        i = j
    return s / (npos * nneg)


def records(records_path, claims_path):
    """The records of the claims of claims_path, in its order."""
    with open(claims_path) as f:
        ids = [json.loads(line)["id"] for line in f if line.strip()]
    recs = {}
    with open(records_path) as f:
        for line in f:
            r = json.loads(line)
            recs[r["claim_id"]] = r
    missing = [i for i in ids if i not in recs]
    if missing:
        sys.exit(f"{records_path}: {len(missing)} claims of {claims_path} have no record (first: {missing[0]})")
    return [recs[i] for i in ids]


def scored(r):
    return r["gold_label"] and not r["abstained"]


def balanced(rs):
    conf = [[0, 0], [0, 0]]
    for r in rs:
        conf[r["gold_label"] != "supported"][r["predicted_label"] != "supported"] += 1
    recall = [conf[g][g] / sum(conf[g]) for g in range(2) if sum(conf[g])]
    return sum(recall) / len(recall) if recall else None


fmt = lambda x: "null" if x is None else f"{x:.3f}"


def main(records_path, claims_path):
    rs = [r for r in records(records_path, claims_path) if scored(r)]
    a = auc([r["p_supported"] for r in rs], [r["gold_label"] == "supported" for r in rs])
    print(len(rs), fmt(balanced(rs)), fmt(a))


def paired(a_path, b_path, claims_path):
    pairs = [(a, b) for a, b in zip(records(a_path, claims_path), records(b_path, claims_path)) if scored(a) and scored(b)]
    diff = lambda ps: (balanced([b for _, b in ps]) or 0) - (balanced([a for a, _ in ps]) or 0)
    rng = random.Random(41)
    boot = sorted(diff([pairs[rng.randrange(len(pairs))] for _ in pairs]) for _ in range(2000))
    print(f"{diff(pairs):+.3f} [{boot[49]:+.3f}, {boot[1949]:+.3f}]")


if __name__ == "__main__":
    if not (len(sys.argv) == 3 or len(sys.argv) == 5 and sys.argv[1] == "--paired"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        if len(sys.argv) == 5:
            paired(*sys.argv[2:])
        else:
            main(sys.argv[1], sys.argv[2])
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
