"""Stage (b) at the head: the cross-encoder's pooler and 3-label classifier
refitted on the real sets' claims, leave one set out, the encoder frozen.

Why the head and not the whole model: fine-tuning every layer on a few
hundred claims a set forgot what stage (a) learnt (BENCHMARKS.md, issue 40:
SufficientFacts and Check-COVID lost 0.04-0.09), and a full-size run over the
sets' 35k retrieved pairs is 4 x 1-2 hours of two-core training a fold. With
the encoder frozen, each pair's last-layer [CLS] state is computed once
(`decide.py score --features`) and a fold fits in seconds, so the
regularisation can be chosen by an inner leave-one-set-out too.

The objective is the claim's, as `audit run --verifier onnx` decides it: every
retrieved passage gets the head's three probabilities; the backend lets the
passage with the largest max(p(supported), p(unsupported)) decide the claim.
Training replaces that argmax with a softmax over passages (temperature
--tau) so a claim whose deciding passage is the wrong one still moves the
others. Each set counts the same, and within a set supported and
not-supported claims count the same (the figure judged is binary balanced
accuracy). The fit starts from stage (a)'s head and pays lambda * ||W - W_a||^2
for moving away from it, so with lambda large the head is stage (a)'s.

    python train/head.py loo   --scores S.jsonl --features F.npy --model HF_DIR --out DIR
    python train/head.py apply --model HF_DIR --fit DIR/head.json --out HF_DIR2

`loo` writes DIR/table.md (the held-out rows, beside stage (a)'s head) and
DIR/head.json (lambda chosen by leave one set out over all the sets, the head
fitted on all of them: what `apply` writes into the model).
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LABELS = ["supported", "unsupported", "insufficient"]
# inf: stage (a)'s head unchanged (the inner leave-one-set-out may prefer it).
LAMBDAS = [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, float("inf")]


class SetData:
    """One set's claims: [CLS] states padded to k passages (torch, float64)."""

    def __init__(self, name, records, feats):
        self.name = name
        self.records = records
        n = len(records)
        k = max(len(r["logits"]) for r in records)
        self.h = torch.zeros((n, k, feats[0].shape[-1]), dtype=torch.float64)
        self.valid = torch.zeros((n, k), dtype=torch.bool)
        for i, r in enumerate(records):
            m = len(r["logits"])
            self.h[i, :m] = torch.from_numpy(feats[i].astype(np.float64))
            self.valid[i, :m] = True
        self.y = torch.tensor([LABELS.index(r["label"]) for r in records])
        pos = self.y == 0
        w = torch.where(pos, 0.5 / max(1, int(pos.sum())), 0.5 / max(1, int((~pos).sum())))
        self.w = w.double()


def load(scores_path, features_path):
    """The sets of --scores with each claim's rows of --features (in the
    order decide.py score wrote them: claim by claim, passage by passage)."""
    feats = np.load(features_path)
    sets, at = {}, 0
    with open(scores_path) as f:
        for line in f:
            r = json.loads(line)
            m = len(r["logits"])
            sets.setdefault(r["set"], ([], []))
            sets[r["set"]][0].append(r)
            sets[r["set"]][1].append(feats[at : at + m])
            at += m
    if at != len(feats):
        print(f"head.py: {features_path}: {len(feats)} rows, but {scores_path} lists {at} passages (not the same score run)", file=sys.stderr)
        sys.exit(2)
    return {name: SetData(name, rs, fs) for name, (rs, fs) in sets.items()}


class Head(torch.nn.Module):
    """BertForSequenceClassification's head: pooler (dense, tanh) then the
    classifier, started from stage (a)'s weights."""

    def __init__(self, init, train):
        super().__init__()
        self.fixed = {k: torch.tensor(v, dtype=torch.float64) for k, v in init.items()}
        names = [k for k in init if train == "pooler" or k.startswith("cls_")]
        self.init = {k: self.fixed[k] for k in names}
        self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(v.clone()) for k, v in self.init.items()})

    def w(self, k):
        return self.p[k] if k in self.p else self.fixed[k]

    def logits(self, s):
        """The passages' logits: the pooler runs once per set when only the
        classifier is trained."""
        if "pooler_w" in self.p:
            pooled = torch.tanh(s.h @ self.p["pooler_w"].T + self.p["pooler_b"])
        else:
            if getattr(s, "pooled", None) is None:
                s.pooled = torch.tanh(s.h @ self.fixed["pooler_w"].T + self.fixed["pooler_b"])
            pooled = s.pooled
        return pooled @ self.w("cls_w").T + self.w("cls_b")

    def penalty(self):
        return sum(((self.p[k] - self.init[k]) ** 2).sum() for k in self.init)


def claim_logprobs(head, s, tau):
    """Each claim's log p(label) under the soft deciding-passage rule."""
    z = head.logits(s)
    logp = torch.log_softmax(z, dim=-1)
    p = logp.exp()
    strength = torch.maximum(p[..., 0], p[..., 1])
    a = torch.where(s.valid, tau * strength, torch.tensor(-1e9, dtype=torch.float64))
    wj = torch.softmax(a, dim=1)
    return torch.log((wj.unsqueeze(-1) * p).sum(dim=1) + 1e-12)


def fit(init, sets, lam, tau, steps, train="classifier"):
    """The head minimising the weighted claim loss over sets (each set 1/len)
    plus lam * the distance from stage (a): L-BFGS, full batch, float64,
    deterministic."""
    torch.manual_seed(0)
    head = Head(init, train)
    if lam == float("inf"):
        return head
    opt = torch.optim.LBFGS(head.p.values(), lr=1, max_iter=steps, history_size=20, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-9, tolerance_change=1e-12)

    def closure():
        opt.zero_grad()
        loss = 0
        for s in sets:
            lp = claim_logprobs(head, s, tau)
            loss = loss - (s.w * lp[torch.arange(len(s.y)), s.y]).sum() / len(sets)
        loss = loss + lam * head.penalty()
        loss.backward()
        return loss

    opt.step(closure)
    return head


def decide(head, s):
    """Each claim's logits by the backend's hard rule (decide.py SetScores)."""
    import decide as dl

    with torch.no_grad():
        z = head.logits(s).numpy()
    rec = [dict(r, logits=z[i, : len(r["logits"])].tolist()) for i, r in enumerate(s.records)]
    return dl.SetScores(rec).decide((0.0, 0.0, 0.0))


def bal(head, s):
    import decide as dl

    return dl.balanced_accuracy(s.y.numpy(), decide(head, s).argmax(axis=1))


def choose_lambda(init, sets, tau, steps, train):
    """lambda from LAMBDAS by leave one set out within sets: the mean
    held-out balanced accuracy, ties to the larger lambda (closer to stage
    (a))."""
    best, best_key = None, None
    for lam in LAMBDAS:
        scores = [bal(fit(init, [t for t in sets if t is not held], lam, tau, steps, train), held) for held in sets]
        key = (round(float(np.mean(scores)), 6), lam)
        print(f"    lambda {lam:g}: inner held-out mean {np.mean(scores):.4f} ({', '.join(f'{v:.3f}' for v in scores)})", file=sys.stderr, flush=True)
        if best_key is None or key > best_key:
            best, best_key = lam, key
    return best


def load_init(model_dir):
    from safetensors.numpy import load_file

    w = load_file(os.path.join(model_dir, "model.safetensors"))
    g = lambda *names: next(w[n] for n in names if n in w).astype(np.float64)  # noqa: E731
    return {
        "pooler_w": g("bert.pooler.dense.weight", "pooler.dense.weight"),
        "pooler_b": g("bert.pooler.dense.bias", "pooler.dense.bias"),
        "cls_w": g("classifier.weight"),
        "cls_b": g("classifier.bias"),
    }


def cmd_loo(args):
    import nli

    init = load_init(args.model)
    data = load(args.scores, args.features)
    names = args.sets.split(",") if args.sets else list(data)
    os.makedirs(args.out, exist_ok=True)
    base, refit, lams = [], [], {}
    t0 = time.time()
    a_head = Head(init, args.train)
    for held in names:
        train = [data[n] for n in names if n != held]
        lam = args.lam if args.lam >= 0 else choose_lambda(init, train, args.tau, args.steps, args.train)
        head = fit(init, train, lam, args.tau, args.steps, args.train)
        lams[held] = lam
        base.append(nli.evaluate(held, data[held].records, decide(a_head, data[held])))
        refit.append(nli.evaluate(held, data[held].records, decide(head, data[held])))
        print(f"{held}: lambda {lam:g} -> {refit[-1]['balanced_accuracy']:.3f} (stage (a) head {base[-1]['balanced_accuracy']:.3f}) [{time.time() - t0:.0f} s]", file=sys.stderr, flush=True)
    all_sets = [data[n] for n in names]
    lam = args.lam if args.lam >= 0 else choose_lambda(init, all_sets, args.tau, args.steps, args.train)
    final = fit(init, all_sets, lam, args.tau, args.steps, args.train)
    text = "## Stage (a)'s head (every set held out)\n\n" + nli.table(base)
    text += "\n## The head refitted on the other sets (leave one set out)\n\n" + nli.table(refit)
    text += "\nlambda per held-out set: " + "; ".join(f"{n} {lams[n]:g}" for n in names)
    text += f"\nshipped head: lambda {lam:g}, fitted on {', '.join(names)}; tau {args.tau:g}\n"
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "head.json"), "w") as f:
        json.dump({"sets": names, "lambda": lam, "tau": args.tau, "steps": args.steps, "train": args.train,
                   "weights": {k: final.w(k).detach().numpy().tolist() for k in final.fixed},
                   "loo": [nli.nulls(r) for r in refit], "stage_a": [nli.nulls(r) for r in base]}, f)
    print(text)


def cmd_apply(args):
    """The HF model with the refitted head written into it."""
    import decide as dl

    with open(args.fit) as f:
        fit_ = json.load(f)
    w = {k: torch.tensor(v) for k, v in fit_["weights"].items()}

    def change(model):
        model.bert.pooler.dense.weight.copy_(w["pooler_w"])
        model.bert.pooler.dense.bias.copy_(w["pooler_b"])
        model.classifier.weight.copy_(w["cls_w"])
        model.classifier.bias.copy_(w["cls_b"])

    dl.save_changed(args.model, args.out, change, "head_refit", {k: fit_[k] for k in ("sets", "lambda", "tau", "steps", "train")})
    print(f"wrote {args.out}: head refitted on {', '.join(fit_['sets'])} (lambda {fit_['lambda']:g})", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("loo")
    p.add_argument("--scores", required=True, help="decide.py score's output")
    p.add_argument("--features", required=True, help="decide.py score --features' output")
    p.add_argument("--model", required=True, help="the Hugging Face folder that scored them")
    p.add_argument("--out", required=True)
    p.add_argument("--sets", default="")
    p.add_argument("--lam", type=float, default=-1, help="fixed lambda (default: chosen leave one set out)")
    p.add_argument("--tau", type=float, default=10.0)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--train", choices=["classifier", "pooler"], default="classifier",
                   help="what is refitted: the classifier (384 x 3) or the pooler too")
    p = sub.add_parser("apply")
    p.add_argument("--model", required=True)
    p.add_argument("--fit", required=True, help="loo's head.json")
    p.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("TRAIN_THREADS", "1")))
    {"loo": cmd_loo, "apply": cmd_apply}[args.cmd](args)


if __name__ == "__main__":
    main()
