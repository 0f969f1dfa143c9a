"""A pair verifier built on the pretrained sentence encoder as it is: the
passage and the claim are each embedded by all-MiniLM-L6-v2 (mean pooling,
unit length, as the encoder was trained) and a small head reads
[u, v, |u - v|, u * v, cos] into supported / unsupported / insufficient.

It runs as an ordinary pair model under `audit run --verifier onnx`: the
exported graph takes the backend's (passage, claim) pair ids, and inside it a
block-diagonal attention mask and per-segment positions make each segment
attend only to itself, so the two embeddings are computed side by side in one
pass. Fine-tuning the encoder as a cross-encoder (nli.py) needs far more
steps than two CPU cores give; here the encoder is frozen and only the head
is trained, on features computed once.

    python train/siamese.py features --pairs P --data DIR --out F [--shard i --shards n]
    python train/siamese.py loo      --features F --pairs P --data DIR --out DIR
    python train/siamese.py fit      --features F --pairs P --data DIR --out DIR
    python train/siamese.py export   --model DIR --out models/NAME
"""

import argparse
import json
import os
import random
import sys
import time
import types

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import AutoModel, AutoTokenizer  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nli  # noqa: E402

DIM = 384


class Siamese(torch.nn.Module):
    """The frozen encoder, each segment of a pair embedded apart, and a head
    (absent while features are computed)."""

    def __init__(self, bert, cls_id, head=None):
        super().__init__()
        self.bert = bert
        self.cls_id = cls_id
        self.head = head

    def features(self, input_ids, attention_mask, token_type_ids):
        m = attention_mask.to(torch.float32)
        b = token_type_ids.to(torch.float32) * m
        a = m - b
        # The pair is [CLS] passage [SEP] claim [SEP]. The passage's [SEP]
        # becomes the claim's [CLS]: the claim segment is then exactly the
        # claim encoded alone ([CLS] claim [SEP], positions from 0), and the
        # passage segment is [CLS] passage, positions from 0. Each segment
        # attends only to itself.
        n = a.sum(1, keepdim=True)
        col = torch.arange(input_ids.shape[1]).unsqueeze(0)
        sep = (col == n - 1).to(torch.float32)
        a = a - sep
        b = b + sep
        ids = torch.where(sep > 0, torch.full_like(input_ids, self.cls_id), input_ids)
        mask3 = a[:, :, None] * a[:, None, :] + b[:, :, None] * b[:, None, :]
        pos = (torch.cumsum(a, 1) - 1) * a + (torch.cumsum(b, 1) - 1) * b
        out = self.bert(input_ids=ids, attention_mask=mask3, token_type_ids=torch.zeros_like(input_ids), position_ids=pos.long()).last_hidden_state
        u = (out * a[:, :, None]).sum(1) / a.sum(1, keepdim=True).clamp(min=1.0)
        v = (out * b[:, :, None]).sum(1) / b.sum(1, keepdim=True).clamp(min=1.0)
        u = torch.nn.functional.normalize(u, dim=-1)
        v = torch.nn.functional.normalize(v, dim=-1)
        return torch.cat([u, v, (u - v).abs(), u * v, (u * v).sum(-1, keepdim=True)], -1)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.head(self.features(input_ids, attention_mask, token_type_ids))


def make_head(kind, n_in, heads=3):
    if kind == "linear":
        return torch.nn.Linear(n_in, heads)
    return torch.nn.Sequential(torch.nn.Linear(n_in, 256), torch.nn.GELU(), torch.nn.Linear(256, heads))


def items_of(records, gold, gold_per_claim):
    """Every (passage, claim) pair whose features are needed: each claim's
    retrieved passages (training and scoring) and its first gold spans
    (training only)."""
    out = []
    for r in records:
        for j, p in enumerate(r["passages"] or [{"text": ""}]):
            out.append((r["claim_id"], "r", j, p["text"], r["claim"]))
        for j, t in enumerate((gold.get(r["claim_id"]) or [])[:gold_per_claim]):
            out.append((r["claim_id"], "g", j, t, r["claim"]))
    return out


def load_encoder(max_len):
    base = nli.encoder_dir("minilm-l6")
    tok = AutoTokenizer.from_pretrained(base)
    bert = AutoModel.from_pretrained(base).eval()
    return tok, bert, nli.Encoder(tok, max_len)


def cmd_features(args):
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    records = nli.load_pairs(args.pairs)
    gold = nli.gold_passages(args.data, sorted({r["set"] for r in records}))
    items = items_of(records, gold, args.gold)[args.shard :: args.shards]
    tok, bert, enc = load_encoder(args.max_len)
    model = Siamese(bert, tok.cls_token_id).eval()
    lens = [len(enc.pair(p, c)[0]) for _, _, _, p, c in items]
    order = sorted(range(len(items)), key=lambda i: lens[i])
    feats = np.zeros((len(items), 4 * DIM + 1), dtype=np.float32)
    t0 = time.time()
    with torch.no_grad():
        for s in range(0, len(order), args.batch):
            ids = order[s : s + args.batch]
            x = enc.batch([items[i][3] for i in ids], [items[i][4] for i in ids])
            feats[ids] = model.features(**x).numpy()
            if (s // args.batch) % 20 == 0:
                print(f"  {s + len(ids)}/{len(items)} pairs ({(s + len(ids)) / (time.time() - t0):.1f}/s)", file=sys.stderr, flush=True)
    keys = np.array([f"{c}\t{k}\t{j}" for c, k, j, _, _ in items])
    np.savez(args.out, keys=keys, feats=feats, max_len=args.max_len)
    print(f"wrote {args.out}: {len(items)} pairs", file=sys.stderr)


def load_features(paths):
    index, blocks, max_len = {}, [], None
    for path in paths:
        z = np.load(path)
        base = sum(len(b) for b in blocks)
        for i, k in enumerate(z["keys"]):
            index[str(k)] = base + i
        blocks.append(z["feats"])
        max_len = int(z["max_len"])
    return index, np.concatenate(blocks), max_len


def training_rows(records, gold, index, feats, gold_per_claim, passages):
    """The nli.py rule: gold spans carry the claim's label; a retrieved
    passage carries it only if it holds a gold span, else it is
    insufficient; a claim without gold spans lends its label to its first
    passages."""
    xs, ys, sets = [], [], []
    for r in records:
        y = nli.LABEL_INDEX[r["label"]]
        g = gold.get(r["claim_id"]) or []
        rows = []
        if g:
            rows += [(f"{r['claim_id']}\tg\t{j}", y) for j in range(min(gold_per_claim, len(g)))]
            for j, p in enumerate(r["passages"][:passages]):
                rows.append((f"{r['claim_id']}\tr\t{j}", y if nli.overlaps(p["text"], g) else 2))
        else:
            rows += [(f"{r['claim_id']}\tr\t{j}", y) for j in range(min(passages, max(1, len(r["passages"]))))]
        for key, lab in rows:
            xs.append(index[key])
            ys.append(lab)
            sets.append(r["set"])
    return np.array(xs), np.array(ys), sets


def train_head(x, y, sets, args):
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    if args.heads == 2:
        y = np.minimum(y, 1)  # insufficient folds into not supported
    ex = [(None, None, int(lab), s) for lab, s in zip(y, sets)]
    w = torch.tensor(nli.sample_weights(ex, args.heads), dtype=torch.float32)
    head = make_head(args.head, x.shape[1], args.heads)
    opt = torch.optim.AdamW(head.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    X, Y = torch.tensor(x), torch.tensor(y)
    rng = np.random.default_rng(args.seed)
    for _ in range(args.epochs):
        perm = rng.permutation(len(Y))
        for s in range(0, len(perm), 256):
            b = torch.tensor(perm[s : s + 256])
            loss = (torch.nn.functional.cross_entropy(head(X[b]), Y[b], reduction="none") * w[b]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    return head.eval()


@torch.no_grad()
def predict(head, records, index, feats):
    """Each claim's logits by the onnx backend's rule (the passage with the
    largest p(supported) or p(unsupported) decides)."""
    out = []
    for r in records:
        n = max(1, len(r["passages"]))
        z = head(torch.tensor(feats[[index[f"{r['claim_id']}\tr\t{j}"] for j in range(n)]])).double().numpy()
        z = np.array([nli.three_way(row) for row in z])  # a 2-way head as the backend reads it
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        out.append(z[int(np.argmax(np.maximum(p[:, 0], p[:, 1])))])
    return np.array(out)


def temperature(logits, labels):
    """The temperature the harness would fit on the training sets' claims
    (three-way NLL, a grid over [0.05, 20] on a log scale): how sharp the
    head's claim-level scores are; reported, not applied."""
    z = torch.tensor(logits)
    y = torch.tensor(labels)
    grid = np.exp(np.linspace(np.log(0.05), np.log(20), 400))
    nll = [float(torch.nn.functional.cross_entropy(z / t, y)) for t in grid]
    return float(grid[int(np.argmin(nll))])


def cmd_loo(args):
    records = nli.load_pairs(args.pairs)
    sets = list(dict.fromkeys(r["set"] for r in records))
    gold = nli.gold_passages(args.data, sets)
    index, feats, _ = load_features(args.features)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    extra = nli.load_pairs(args.extra_pairs) if args.extra_pairs else []
    for held in sets:
        train = nli.subsample([r for r in records if r["set"] != held], args.train_per_set, args.seed, True) + extra
        test = [r for r in records if r["set"] == held]
        xi, y, s = training_rows(train, gold, index, feats, args.gold, args.passages)
        head = train_head(feats[xi], y, s, args)
        row = nli.evaluate(held, test, predict(head, test, index, feats))
        row["temperature"] = temperature(predict(head, train, index, feats), [nli.LABEL_INDEX[r["label"]] for r in train])
        rows.append(row)
        print(json.dumps(nli.nulls(row)), file=sys.stderr, flush=True)
    text = nli.table(rows)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "rows.json"), "w") as f:
        json.dump({"options": vars(args), "rows": [nli.nulls(r) for r in rows]}, f, indent=1)
    print(text)


def cmd_fit(args):
    records = nli.load_pairs(args.pairs)
    gold = nli.gold_passages(args.data, sorted({r["set"] for r in records}))
    index, feats, max_len = load_features(args.features)
    train = nli.subsample(records, args.train_per_set, args.seed, True)
    train += nli.load_pairs(args.extra_pairs) if args.extra_pairs else []
    xi, y, s = training_rows(train, gold, index, feats, args.gold, args.passages)
    head = train_head(feats[xi], y, s, args)
    os.makedirs(args.out, exist_ok=True)
    torch.save(head.state_dict(), os.path.join(args.out, "head.pt"))
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump({"options": vars(args), "max_len": max_len, "claims": len(train), "pairs": len(y)}, f, indent=1)
    print(f"saved {args.out}", file=sys.stderr)


def cmd_export(args):
    import export

    torch.set_num_threads(args.threads)
    with open(os.path.join(args.model, "training.json")) as f:
        training = json.load(f)
    max_len = training["max_len"]
    tok, bert, enc = load_encoder(max_len)
    heads = training["options"].get("heads", 3)
    head = make_head(training["options"]["head"], 4 * DIM + 1, heads)
    head.load_state_dict(torch.load(os.path.join(args.model, "head.pt")))
    model = Siamese(bert, tok.cls_token_id, head.eval()).eval()
    os.makedirs(args.out, exist_ok=True)
    fp32 = os.path.join(args.out, ".model-fp32.onnx")
    export.to_onnx(model, enc, fp32)
    dest = os.path.join(args.out, "model.onnx")
    export.weight_only_int8(fp32, dest)
    export.write_tokenizer(tok, args.out, max_len)
    cfg = bert.config.to_dict()
    cfg["architectures"] = ["SiameseMiniLMVerifier"]
    names = nli.LABELS if heads == 3 else ["supported", "not_supported"]
    cfg["id2label"] = {str(i): n for i, n in enumerate(names)}
    cfg["label2id"] = {n: i for i, n in enumerate(names)}
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1, sort_keys=True)

    class Logits(torch.nn.Module):
        def forward(self, **x):
            return types.SimpleNamespace(logits=model(x["input_ids"], x["attention_mask"], x["token_type_ids"]))

    export.write_reference(tok, Logits(), enc, dest, fp32, args.out, max_len)
    os.remove(fp32)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("features")
    p.add_argument("--pairs", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--gold", type=int, default=1)
    p.add_argument("--max-len", type=int, default=96)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--shard", type=int, default=0)
    p.add_argument("--shards", type=int, default=1)
    for name in ("loo", "fit"):
        p = sub.add_parser(name)
        p.add_argument("--features", required=True, nargs="+")
        p.add_argument("--pairs", required=True)
        p.add_argument("--data", required=True)
        p.add_argument("--out", required=True)
        p.add_argument("--head", choices=("linear", "mlp"), default="linear")
        p.add_argument("--heads", type=int, choices=(2, 3), default=3, help="3: supported/unsupported/insufficient; 2: supported/not")
        p.add_argument("--gold", type=int, default=1)
        p.add_argument("--passages", type=int, default=1)
        p.add_argument("--extra-pairs", default="", help="a pairs file used in training only, every fold (the generated set); its features among --features")
        p.add_argument("--train-per-set", type=int, default=0)
        p.add_argument("--epochs", type=int, default=30)
        p.add_argument("--lr", type=float, default=1e-3)
        p.add_argument("--weight-decay", type=float, default=0.01)
        p.add_argument("--seed", type=int, default=13)
        p.add_argument("--threads", type=int, default=2)
    p = sub.add_parser("export")
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    {"features": cmd_features, "loo": cmd_loo, "fit": cmd_fit, "export": cmd_export}[args.cmd](args)


if __name__ == "__main__":
    main()
