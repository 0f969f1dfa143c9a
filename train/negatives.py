"""Stage (a2): teach the NLI cross-encoder that a passage about something else is
neutral, from FEVER's own pairs (no real set is read, so every real set stays
held out).

Why: stage (a) learned "neutral" only from SNLI, where a premise about another
scene is labelled *contradiction*. Reading the real sets' retrieved passages, the
model gives strong contradiction to passages that merely share a topic word with
the claim ("Alexandria is the largest seaport in Egypt" against a passage on the
Rosetta Stone), and the backend's deciding-passage rule lets that passage decide.
FEVER's RTE pairs are binary, so they never taught "neutral" either.

    python train/negatives.py build --data DIR --out negatives.jsonl
    python train/negatives.py train --data DIR --negatives negatives.jsonl --init HF_DIR --out HF_DIR2

build: for every FEVER hypothesis, premises of *other* FEVER pairs that do not
name the hypothesis's subject (its first run of capitalised words), whose own
hypothesis has another subject and that do not open with a pronoun: the most
similar one by tf-idf cosine (a hard negative: shares topic words, is about
something else), labelled neutral; with --easy > 0, that share of hypotheses
also get one drawn at random (the shipped recipe, make model-train-a2, uses 0).

train: stage (a)'s model fine-tuned on FEVER's pairs, the neutral negatives
(--neg of them, a seeded draw) and SNLI pairs replayed so that it does not
forget; one epoch of length-bucketed, seeded batches; the forward pass in
bfloat16 under CPU autocast with --bf16 (torch >= 2), the weights and AdamW in
float32. FEVER's not-entailment pairs (REFUTES and NOT ENOUGH INFO merged) get,
with --split-teacher, a soft target over (contradiction, neutral): stage (a)'s
own split. Without it the negatives pull every refuted claim to neutral and the
model stops saying contradiction on real text (BENCHMARKS.md, issue 40).
"""

import argparse
import json
import math
import os
import random
import re
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ce  # noqa: E402

NEUTRAL = ce.NEUTRAL
WORD = re.compile(r"[A-Za-z0-9]+")
PRONOUN = set("he she it they his her its their him them this these those".split())
STOP = set("a an the of in on at to for by with from and or is are was were be been has have had as it its that this which who whom".split())


def subject(hypothesis):
    """The hypothesis's first run of capitalised words (its subject in FEVER's
    claims, which mostly open with it), lower-cased; "" when it has none."""
    words = hypothesis.split()
    run = []
    for i, w in enumerate(words):
        core = w.strip(".,;:'\"()")
        if core[:1].isupper() or (run and core[:1].isdigit()):
            run.append(core.lower())
        elif run:
            break
        elif i > 3:
            break
    return " ".join(run)


def terms(text):
    return [w for w in (m.group(0).lower() for m in WORD.finditer(text)) if w not in STOP]


def cmd_build(args):
    import numpy as np

    rows = ce.load_jsonl(os.path.join(args.data, "fever.jsonl"))
    hyps = sorted({r["hypothesis"] for r in rows})
    premises = sorted({r["premise"] for r in rows})
    own = {}
    for r in rows:
        own.setdefault(r["hypothesis"], set()).add(r["premise"])
    subj = {h: subject(h) for h in hyps}
    # subjects whose own pairs each premise belongs to
    prem_subjects = {}
    for r in rows:
        prem_subjects.setdefault(r["premise"], set()).add(subj[r["hypothesis"]])
    # tf-idf over premises
    df = {}
    pterms = [terms(p) for p in premises]
    for ts in pterms:
        for w in set(ts):
            df[w] = df.get(w, 0) + 1
    n = len(premises)
    idf = {w: math.log((n + 1) / (c + 1)) + 1 for w, c in df.items()}
    inv = {}
    norms = np.zeros(n)
    for j, ts in enumerate(pterms):
        tf = {}
        for w in ts:
            tf[w] = tf.get(w, 0) + 1
        for w, c in tf.items():
            v = (1 + math.log(c)) * idf[w]
            inv.setdefault(w, []).append((j, v))
            norms[j] += v * v
    norms = np.sqrt(np.maximum(norms, 1e-12))
    rng = random.Random(args.seed)
    out, skipped = [], 0
    for h in hyps:
        s = subj[h]
        if not s:
            skipped += 1
            continue

        def allowed(j):
            p = premises[j]
            # a premise opening with a pronoun may be about the subject after all
            first = p.split(" ", 1)[0].lower()
            return p not in own[h] and s not in p.lower() and s not in prem_subjects[p] and first not in PRONOUN

        score = np.zeros(n)
        tf = {}
        for w in terms(h):
            tf[w] = tf.get(w, 0) + 1
        for w, c in tf.items():
            if w not in idf:
                continue
            qv = (1 + math.log(c)) * idf[w]
            for j, v in inv[w]:
                score[j] += qv * v
        score /= norms
        hard = None
        for j in np.argsort(-score, kind="stable")[:50]:
            if score[j] > 0 and allowed(int(j)):
                hard = int(j)
                break
        if hard is not None:
            out.append({"premise": premises[hard], "hypothesis": h, "label": NEUTRAL, "src": "fever-hard-neutral"})
        for _ in range(20):
            j = rng.randrange(n)
            if j != hard and allowed(j):
                if rng.random() < args.easy:
                    out.append({"premise": premises[j], "hypothesis": h, "label": NEUTRAL, "src": "fever-easy-neutral"})
                break
    ce.write_jsonl(args.out, out)
    kinds = {}
    for r in out:
        kinds[r["src"]] = kinds.get(r["src"], 0) + 1
    ce.log(f"wrote {args.out}: {len(out)} neutral pairs {kinds} from {len(hyps)} hypotheses ({skipped} without a capitalised subject skipped)")


def split_by_teacher(fever, args, enc, torch):
    """FEVER's not-entailment pairs (REFUTES and NOT ENOUGH INFO merged) get a
    soft target over (contradiction, neutral): the teacher's own split,
    p(c) / (p(c) + p(n)). Without it the neutral negatives pull every refuted
    Wikipedia claim to neutral, and the model stops saying contradiction."""
    from transformers import AutoModelForSequenceClassification

    teacher = AutoModelForSequenceClassification.from_pretrained(args.split_teacher).eval()
    rows = [r for r in fever if r["label"] == ce.NOT_ENTAIL]
    order = sorted(range(len(rows)), key=lambda i: len(enc.pair(rows[i]["premise"], rows[i]["hypothesis"])[0]))
    with torch.no_grad():
        for s in range(0, len(order), 64):
            part = [rows[i] for i in order[s : s + 64]]
            z = teacher(**enc.batch([r["premise"] for r in part], [r["hypothesis"] for r in part])).logits.double()
            p = torch.softmax(z, dim=1)
            q = (p[:, 1] / (p[:, 1] + p[:, 2])).tolist()
            for r, v in zip(part, q):
                r["soft"] = [0.0, v, 1.0 - v]
    qs = [r["soft"][1] for r in rows]
    ce.log(f"teacher split of {len(rows)} not-entailment pairs: mean p(contradiction | not entailment) {sum(qs) / len(qs):.3f}")


def soft_loss(logits, y, soft, torch):
    """Cross-entropy against a hard label, or against a soft target where the
    example has one."""
    logp = torch.log_softmax(logits, dim=1)
    hard = -logp.gather(1, y.clamp(min=0)[:, None])[:, 0]
    t = torch.tensor([v if v is not None else [0.0, 0.0, 0.0] for v in soft], dtype=logp.dtype)
    has = torch.tensor([v is not None for v in soft])
    if (~has & (y < 0)).any():
        raise SystemExit("a not-entailment pair without a teacher split")
    return torch.where(has, -(t * logp).sum(1), hard).mean()


def cmd_train(args):
    ce.imports()
    torch, nli = ce.torch, ce.nli
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    tok = AutoTokenizer.from_pretrained(args.init)
    model = AutoModelForSequenceClassification.from_pretrained(args.init)
    enc = nli.Encoder(tok, args.max_len)
    fever = ce.load_jsonl(os.path.join(args.data, "fever.jsonl"))
    negs = ce.load_jsonl(args.negatives)
    if args.neg and args.neg < len(negs):
        negs = [negs[i] for i in sorted(random.Random(args.seed + 1).sample(range(len(negs)), args.neg))]
    snli = ce.load_jsonl(os.path.join(args.data, "snli_train.jsonl"))
    rng.shuffle(snli)
    if args.split_teacher:
        split_by_teacher(fever, args, enc, torch)
    examples = fever * args.fever_repeat + negs + snli[: args.snli]
    lens = [len(enc.pair(e["premise"], e["hypothesis"])[0]) for e in examples]
    idx = list(range(len(examples)))
    rng.shuffle(idx)
    chunk = args.batch * 64
    batches = []
    for i in range(0, len(idx), chunk):
        part = sorted(idx[i : i + chunk], key=lambda j: (lens[j], j))
        batches += [part[k : k + args.batch] for k in range(0, len(part), args.batch)]
    rng.shuffle(batches)
    total = len(batches) * args.epochs
    sched = {"lr": args.lr, "warmup": args.warmup, "total": total}
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    ce.log(f"{len(examples)} examples (FEVER {len(fever)} x{args.fever_repeat}, neutral {len(negs)}, SNLI {min(args.snli, len(snli))}), {total} steps of {args.batch}")
    model.train()
    t0, c0, step, run = time.time(), time.process_time(), 0, 0.0
    for epoch in range(args.epochs):
        order = batches[:] if epoch == 0 else random.Random(args.seed + epoch).sample(batches, len(batches))
        for b in order:
            ex = [examples[j] for j in b]
            x = enc.batch([e["premise"] for e in ex], [e["hypothesis"] for e in ex])
            y = torch.tensor([e["label"] for e in ex])
            for g in opt.param_groups:
                g["lr"] = ce.lr_at(step, sched)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                logits = model(**x).logits
            loss = soft_loss(logits.float(), y, [e.get("soft") for e in ex], torch) if args.split_teacher else ce.loss_fn(logits.float(), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            run += loss.item()
            if step % args.log_every == 0:
                wall = time.time() - t0
                ce.log(f"step {step}/{total} loss {run / args.log_every:.4f} {step * args.batch / wall:.1f} ex/s wall, {step * args.batch / (time.process_time() - c0):.1f} ex/CPU-s")
                run = 0.0
    model.save_pretrained(args.out, safe_serialization=True)
    tok.save_pretrained(args.out)
    with open(os.path.join(args.init, "training.json")) as f:
        before = json.load(f)
    record = {
        "stage": "a2",
        "from": {k: before.get(k) for k in ("stage", "step", "examples_seen", "data")},
        "options": {"batch": args.batch, "heads": 3, "max_len": args.max_len, "seed": args.seed},
        "args": {k: v for k, v in vars(args).items() if k not in ("cmd",)},
        "examples": len(examples),
        "steps": step,
        "train_seconds": round(time.time() - t0, 1),
        "cpu_seconds": round(time.process_time() - c0, 1),
        "torch": torch.__version__,
    }
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    ce.log(f"wrote {args.out}: {step} steps, {time.time() - t0:.0f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("build")
    p.add_argument("--data", required=True, help="the folder ce.py data wrote (fever.jsonl)")
    p.add_argument("--out", required=True)
    p.add_argument("--easy", type=float, default=0.5, help="share of hypotheses that also get a random (easy) neutral premise")
    p.add_argument("--seed", type=int, default=13)
    p = sub.add_parser("train")
    p.add_argument("--data", required=True)
    p.add_argument("--negatives", required=True)
    p.add_argument("--init", required=True, help="stage (a)'s model, a Hugging Face folder (ce.py export-hf)")
    p.add_argument("--out", required=True)
    p.add_argument("--fever-repeat", type=int, default=1)
    p.add_argument("--split-teacher", default="", help="a model (stage (a)) whose split between contradiction and neutral becomes FEVER's not-entailment pairs' soft target")
    p.add_argument("--neg", type=int, default=0, help="neutral pairs drawn from --negatives (0: all)")
    p.add_argument("--snli", type=int, default=15000, help="SNLI training pairs replayed")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--bf16", action="store_true")
    p.add_argument("--log-every", type=int, default=20)
    args = ap.parse_args()
    {"build": cmd_build, "train": cmd_train}[args.cmd](args)


if __name__ == "__main__":
    main()
