"""metrics.py: binary balanced accuracy (supported against not) and ROC AUC of
p(supported) of a run's records, over the claims of a claims file only — the
definitions of metrics/ (answered, labelled claims; ties in the AUC count one
half), so over every claim of a run it prints its summary.json's
binary_balanced_accuracy and binary_auc.

usage: python3 metrics.py RECORDS.jsonl CLAIMS.jsonl   (records: audit export --format jsonl)
prints: n balanced_accuracy auc  (null where undefined); exit 2 when a claim of
CLAIMS has no record.
"""
import json
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


def main(records_path, claims_path):
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
    rs = [recs[i] for i in ids if recs[i]["gold_label"] and not recs[i]["abstained"]]
    conf = [[0, 0], [0, 0]]
    for r in rs:
        conf[r["gold_label"] != "supported"][r["predicted_label"] != "supported"] += 1
    recall = [conf[g][g] / sum(conf[g]) for g in range(2) if sum(conf[g])]
    ba = sum(recall) / len(recall) if recall else None
    a = auc([r["p_supported"] for r in rs], [r["gold_label"] == "supported" for r in rs])
    fmt = lambda x: "null" if x is None else f"{x:.3f}"
    print(len(rs), fmt(ba), fmt(a))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(2)
    try:
        main(sys.argv[1], sys.argv[2])
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
