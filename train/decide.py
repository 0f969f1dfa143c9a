"""The cross-encoder's decision layer (stage (c) of the recipe, train/README.md):
the three label biases the exported model adds to its logits, fitted leave one
set out on the real sets' claims as `audit run --verifier onnx` decides them.

The model's head was trained on SNLI and FEVER pairs, whose label shares and
passages are not the real sets' (the real sets' passages are retrieved, longer,
and mostly do not entail the claim): its argmax is a decision rule fitted to
other data. A bias per label moves that rule without touching what the model
reads; every passage's logits get the same bias, then the backend's
deciding-passage rule (the passage whose larger of p(supported), p(unsupported)
is largest decides the claim) runs as it does in Go. The biases are chosen on
three sets and measured on the fourth (never on the claims they were fitted
on), then fitted once on all four and baked into the classifier's bias for
export.

    python train/decide.py score --pairs P --model HF_DIR --out scores.jsonl
    python train/decide.py loo   --scores scores.jsonl --out DIR
    python train/decide.py apply --model HF_DIR --biases DIR/biases.json --out HF_DIR2
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LABELS = ["supported", "unsupported", "insufficient"]
# The grid the biases are searched on: b(supported) and b(unsupported), with
# b(insufficient) = 0 (only differences of logits matter to the argmax).
GRID = np.round(np.arange(-4.0, 4.0001, 0.25), 2)


def cmd_score(args):
    """Every retrieved passage of every claim of --pairs, scored by the model
    as the onnx backend feeds it (nli.Encoder: the Go tokenizer's rule)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    import nli

    torch.set_num_threads(args.threads)
    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSequenceClassification.from_pretrained(args.model).eval()
    records = nli.load_pairs(args.pairs)
    items = []
    for ci, r in enumerate(records):
        for p in r["passages"] or [{"text": ""}]:
            items.append((ci, p["text"], r["claim"]))
    enc = nli.Encoder(tok, args.max_len)
    lens = [len(enc.pair(p, c)[0]) for _, p, c in items]
    order = sorted(range(len(items)), key=lambda i: lens[i])
    raw = [None] * len(items)
    feats = np.zeros((len(items), model.config.hidden_size), dtype=np.float32) if args.features else None
    t0 = time.time()
    with torch.no_grad():
        for s in range(0, len(order), args.batch):
            ids = order[s : s + args.batch]
            x = enc.batch([items[i][1] for i in ids], [items[i][2] for i in ids])
            res = model(**x, output_hidden_states=bool(args.features))
            out = res.logits.double().numpy()
            for i, row in zip(ids, out):
                raw[i] = [round(float(v), 5) for v in row]
            if args.features:
                cls = res.hidden_states[-1][:, 0].float().numpy()
                for i, row in zip(ids, cls):
                    feats[i] = row
            if (s // args.batch) % 20 == 0:
                done = s + len(ids)
                print(f"  {done}/{len(items)} pairs ({done / (time.time() - t0):.1f}/s)", file=sys.stderr, flush=True)
    per = {}
    for i, (ci, _, _) in enumerate(items):
        per.setdefault(ci, []).append(raw[i])
    with open(args.out, "w") as f:
        for ci, r in enumerate(records):
            f.write(json.dumps({"set": r["set"], "claim_id": r["claim_id"], "label": r["label"], "logits": per[ci]}) + "\n")
    if args.features:
        # The last layer's [CLS] state of every pair, in --out's order (claim by
        # claim, passage by passage): what the pooler and the head read.
        np.save(args.features, feats)
    print(f"wrote {args.out}: {len(records)} claims, {len(items)} pairs, {time.time() - t0:.0f} s", file=sys.stderr)


def load_scores(path):
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            out.setdefault(r["set"], []).append(r)
    return out


class SetScores:
    """One set's claims as arrays: passage logits padded to the most
    passages a claim has (padding never decides: its strength is -1)."""

    def __init__(self, records):
        self.records = records
        n = len(records)
        k = max(len(r["logits"]) for r in records)
        self.z = np.zeros((n, k, 3))
        self.valid = np.zeros((n, k), dtype=bool)
        for i, r in enumerate(records):
            m = len(r["logits"])
            self.z[i, :m] = r["logits"]
            self.valid[i, :m] = True
        self.y = np.array([LABELS.index(r["label"]) for r in records])

    def decide(self, bias):
        """Each claim's logits by the deciding-passage rule after the bias."""
        z = self.z + np.asarray(bias)
        p = np.exp(z - z.max(axis=2, keepdims=True))
        p /= p.sum(axis=2, keepdims=True)
        strength = np.where(self.valid, np.maximum(p[..., 0], p[..., 1]), -1.0)
        pick = strength.argmax(axis=1)
        return z[np.arange(len(z)), pick]


def balanced_accuracy(y, pred):
    pos, neg = y == 0, y != 0
    if not pos.any() or not neg.any():
        return float("nan")
    return ((pred[pos] == 0).mean() + (pred[neg] != 0).mean()) / 2


def row(name, s, bias):
    """The held-out set's row of nli.py's table, decided under bias."""
    import nli

    out = nli.evaluate(name, s.records, s.decide(bias))
    out["bias"] = [float(b) for b in bias]
    return out


def fit_bias(sets):
    """The (b_supported, b_unsupported, 0) on GRID with the largest mean
    binary balanced accuracy over the given sets (each set counts the same);
    ties go to the smallest |bias| (the model as trained), then the grid's
    order, so the fit is deterministic."""
    best, best_key = None, None
    for bs in GRID:
        for bu in GRID:
            b = (bs, bu, 0.0)
            score = np.mean([balanced_accuracy(s.y, s.decide(b).argmax(axis=1)) for s in sets])
            key = (round(score, 12), -(abs(bs) + abs(bu)))
            if best_key is None or key > best_key:
                best, best_key = b, key
    return best


def cmd_loo(args):
    import nli

    data = {name: SetScores(rs) for name, rs in load_scores(args.scores).items()}
    names = args.sets.split(",") if args.sets else list(data)
    os.makedirs(args.out, exist_ok=True)
    plain, fitted = [], []
    for held in names:
        train = [data[n] for n in names if n != held]
        b = fit_bias(train)
        plain.append(row(held, data[held], (0.0, 0.0, 0.0)))
        fitted.append(row(held, data[held], b))
        print(f"{held}: bias {b} -> balanced accuracy {fitted[-1]['balanced_accuracy']:.3f} (as trained {plain[-1]['balanced_accuracy']:.3f})", file=sys.stderr, flush=True)
    final = fit_bias([data[n] for n in names])
    text = "## As trained (argmax of the head)\n\n" + nli.table(plain) + "\n## Biases fitted on the other three sets\n\n" + nli.table(fitted)
    text += "\nbias per held-out set (supported, unsupported, insufficient): " + "; ".join(f"{r['set']} {tuple(r['bias'])}" for r in fitted)
    text += f"\nbias fitted on all sets (shipped): {tuple(float(v) for v in final)}\n"
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "biases.json"), "w") as f:
        json.dump({"labels": LABELS, "bias": [float(v) for v in final], "sets": names, "grid": [float(GRID[0]), float(GRID[-1]), 0.25],
                   "loo": [nli.nulls(r) for r in fitted], "as_trained": [nli.nulls(r) for r in plain]}, f, indent=1)
    print(text)


def cmd_select(args):
    """Leave one set out over candidate models (checkpoints, soups): for each
    held-out set the candidate with the best mean binary balanced accuracy on
    the other sets is chosen, and its row on the held-out set reported."""
    import nli

    cands = {}
    for spec in args.scores:
        name, _, path = spec.partition("=")
        cands[name] = {n: SetScores(rs) for n, rs in load_scores(path).items()}
    names = args.sets.split(",") if args.sets else list(next(iter(cands.values())))
    bal = {c: {n: balanced_accuracy(d[n].y, d[n].decide((0, 0, 0)).argmax(axis=1)) for n in names} for c, d in cands.items()}
    rows, text = [], "| candidate | " + " | ".join(names) + " | mean |\n|---|" + "---|" * (len(names) + 1) + "\n"
    for c in cands:
        text += f"| {c} | " + " | ".join(f"{bal[c][n]:.3f}" for n in names) + f" | {np.mean([bal[c][n] for n in names]):.3f} |\n"
    chosen = {}
    for held in names:
        # ties go to the order of --scores (the first candidate listed)
        best = max(cands, key=lambda c: (round(np.mean([bal[c][n] for n in names if n != held]), 12), -list(cands).index(c)))
        chosen[held] = best
        rows.append(nli.evaluate(held, cands[best][held].records, cands[best][held].decide((0, 0, 0))))
    text += "\n## The candidate chosen on the other sets, on the held-out set\n\n" + nli.table(rows)
    text += "\nchosen per held-out set: " + "; ".join(f"{n} {chosen[n]}" for n in names) + "\n"
    print(text)


def save_changed(src, out, change, key, value):
    """The Hugging Face model of src with change(model) applied (under
    no_grad), written to out with its tokenizer and src's training.json,
    which gains key: value (what was changed and on what it was fitted)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(src)
    model = AutoModelForSequenceClassification.from_pretrained(src)
    with torch.no_grad():
        change(model)
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    with open(os.path.join(src, "training.json")) as f:
        training = json.load(f)
    training[key] = value
    with open(os.path.join(out, "training.json"), "w") as f:
        json.dump(training, f, indent=1, sort_keys=True)


def cmd_apply(args):
    """The model with the fitted biases added to its classifier's bias."""
    import torch

    with open(args.biases) as f:
        fit = json.load(f)

    def change(model):
        model.classifier.bias += torch.tensor(fit["bias"], dtype=model.classifier.bias.dtype)

    save_changed(args.model, args.out, change, "decision_biases", {"bias": fit["bias"], "labels": fit["labels"], "fitted_on": fit["sets"]})
    print(f"wrote {args.out}: classifier bias + {fit['bias']}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("score")
    p.add_argument("--pairs", required=True, help="train/pairs output: each labelled claim with its retrieved passages")
    p.add_argument("--model", required=True, help="a Hugging Face folder (ce.py export-hf)")
    p.add_argument("--out", required=True)
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--features", default="", help="also save each pair's last-layer [CLS] state here (.npy, float32)")
    p = sub.add_parser("loo")
    p.add_argument("--scores", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--sets", default="", help="comma-separated sets in table order (default: as in --scores)")
    p = sub.add_parser("select")
    p.add_argument("--scores", nargs="+", required=True, help="NAME=scores.jsonl, one per candidate model")
    p.add_argument("--sets", default="")
    p = sub.add_parser("apply")
    p.add_argument("--model", required=True)
    p.add_argument("--biases", required=True)
    p.add_argument("--out", required=True)
    args = ap.parse_args()
    {"score": cmd_score, "loo": cmd_loo, "select": cmd_select, "apply": cmd_apply}[args.cmd](args)


if __name__ == "__main__":
    main()
