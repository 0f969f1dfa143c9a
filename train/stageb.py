"""Stage (b) at full size, on any machine: the cross-encoder fine-tuned on the
real sets' own retrieved passages, leave one set out, in minutes on a GPU.

Stage (b) of the recipe (train/README.md) trains on the real sets' claims with
the passages `audit run` retrieves for them; leave one set out, each set is
scored by a model that never saw it. On two CPU cores it was only ever run at
300 to 800 claims a set. This runs it on every claim, and splits the work so
the training needs nothing but PyTorch (no transformers, no tokenizer: a
machine lent for an hour may have other versions of both):

    python train/stageb.py pack   --pairs P --data DIR --init HF_DIR --replay-data D --negatives N --out BUNDLE
    python train/stageb.py run    --bundle BUNDLE --out OUT [--device cuda]
    python train/stageb.py scores --run OUT                     (OUT/scores-<candidate>.jsonl for decide.py)
    python train/stageb.py unpack --init HF_DIR --weights OUT/model-SET.npz --out HF_DIR2

pack (here, with the training venv): every example tokenised as the Go
tokenizer does (nli.Encoder), the start model's weights (stage (a2)) packed;
the word-embedding table is stored as export.py stores it (int8, one scale per
row) and stays frozen in training, the rest in float16.

run: a BERT encoder written in plain PyTorch (the same parameter names as
Hugging Face's BertForSequenceClassification, checked against it by
`stageb.py parity`). First the start model scores every retrieved passage (the
baseline, in the same run and arithmetic). Then, for each held-out set and
once on all sets (the model that would ship), it trains on

  - the other sets' claims: each claim's first gold evidence span with its
    label, and each of its five retrieved passages with the claim's label if
    it holds a gold span, else insufficient (nli.training_examples);
  - replayed pairs (SNLI, FEVER and stage (a2)'s neutral negatives) whose
    targets are the start model's own probabilities (learning without
    forgetting, Li & Hoiem 2016: what stage (a2) knew is kept as a target,
    not as labels it was already trained past);

every set counting the same (the replayed pairs count as one more set: a
quarter of the loss leave one set out, a fifth on all four sets) and, within
a set, every label; two epochs,
batch 32, AdamW lr 2e-5, 10% warmup, linear decay, bfloat16 autocast. The
held-out set's passages are scored in float32 by the fine-tuned weights and by
the weights halfway between them and the start (WiSE-FT, Wortsman et al.
2022). Everything is decided before any result: two candidates, the same
claims. OUT/scores.jsonl.gz holds every candidate's scores (one line a claim
and model); `stageb.py scores` splits it into decide.py's format, one file a
candidate, so that `decide.py select` can choose honestly.

Each fine-tuned model comes back as what export.py would store: every
encoder weight matrix int8 with one scale per output channel (export.py's own
rule, so exporting it again is lossless), the rest float16; unpack writes a
Hugging Face folder for export.py.
"""

import argparse
import gzip
import json
import os
import random
import sys
import time

import numpy as np

from batching import plan_batches

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = ["supported", "unsupported", "insufficient"]
WORD_EMB = "bert.embeddings.word_embeddings.weight"


# ---------------------------------------------------------------- pack


def flat(rows):
    """[(ids, seg)] -> uint16 ids, int64 offsets, int16 segment starts."""
    off = np.zeros(len(rows) + 1, np.int64)
    for i, (ids, _) in enumerate(rows):
        off[i + 1] = off[i] + len(ids)
    ids = np.zeros(off[-1], np.uint16)
    seg = np.zeros(len(rows), np.int16)
    for i, (r, s) in enumerate(rows):
        ids[off[i] : off[i + 1]] = r
        seg[i] = s
    return ids, off, seg


def quantise_rows(w):
    """export.weight_only_int8's rule in torch's [out, in] layout: one
    symmetric scale per output channel, amax / 127."""
    amax = np.abs(w).max(axis=1)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.round(w / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


def cmd_pack(args):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    sys.path.insert(0, HERE)
    import nli
    from safetensors.numpy import load_file
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(args.init)
    enc = nli.Encoder(tok, args.max_len)
    records = nli.load_pairs(args.pairs)
    sets = list(dict.fromkeys(r["set"] for r in records))
    gold = nli.gold_passages(args.data, sets)
    missing = [s for s in sets if not any(r["claim_id"] in gold for r in records if r["set"] == s)]
    if missing:
        raise SystemExit(f"{args.data}: no gold evidence spans for sets {missing}")

    def seg_of(passage, claim):
        ids, types = enc.pair(passage, claim)
        return ids, types.index(1) if 1 in types else len(ids)

    train = nli.training_examples(records, 3, args.passages, gold, args.gold)
    tr = [seg_of(p, c) for p, c, _, _ in train]
    t_ids, t_off, t_seg = flat(tr)
    rng = random.Random(args.seed)
    replay = []
    for path, n in ((args.replay_data, args.snli), (os.path.join(os.path.dirname(args.replay_data), "fever.jsonl"), args.fever), (args.negatives, args.neg)):
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        replay += [(r["premise"], r["hypothesis"]) for r in rng.sample(rows, min(n, len(rows)))]
    rp = [seg_of(p, h) for p, h in replay]
    r_ids, r_off, r_seg = flat(rp)
    items, claims = [], []
    for ci, r in enumerate(records):
        claims.append({"set": r["set"], "claim_id": r["claim_id"], "label": r["label"]})
        for p in r["passages"] or [{"text": ""}]:
            items.append((ci, seg_of(p["text"], r["claim"])))
    e_ids, e_off, e_seg = flat([x for _, x in items])
    os.makedirs(args.out, exist_ok=True)
    np.savez_compressed(
        os.path.join(args.out, "data.npz"),
        train_ids=t_ids, train_off=t_off, train_seg=t_seg,
        train_label=np.array([y for _, _, y, _ in train], np.int8),
        train_set=np.array([sets.index(s) for _, _, _, s in train], np.int8),
        replay_ids=r_ids, replay_off=r_off, replay_seg=r_seg,
        eval_ids=e_ids, eval_off=e_off, eval_seg=e_seg,
        eval_claim=np.array([ci for ci, _ in items], np.int32),
    )
    sd = load_file(os.path.join(args.init, "model.safetensors"))
    packed = {}
    for k, v in sd.items():
        v = v.astype(np.float32)
        if k == WORD_EMB:
            q, s = quantise_rows(v)
            packed[k + ".int8"], packed[k + ".scale"] = q, s
        else:
            packed[k] = v.astype(np.float16)
    np.savez(os.path.join(args.out, "start.npz"), **packed)
    with open(os.path.join(args.init, "config.json")) as f:
        cfg = json.load(f)
    meta = {
        "sets": sets,
        "claims": claims,
        "config": {k: cfg[k] for k in ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "max_position_embeddings", "type_vocab_size", "layer_norm_eps", "hidden_dropout_prob", "attention_probs_dropout_prob", "pad_token_id")},
        "max_len": args.max_len,
        "train_examples": len(train),
        "replay_examples": len(replay),
        "pack_options": {k: v for k, v in vars(args).items() if k != "func"},
    }
    with open(os.path.join(args.out, "meta.json"), "w") as f:
        json.dump(meta, f)
    size = sum(os.path.getsize(os.path.join(args.out, n)) for n in os.listdir(args.out))
    print(f"packed {len(train)} training pairs, {len(replay)} replayed, {len(items)} retrieved pairs of {len(claims)} claims; {size / 1e6:.1f} MB in {args.out}", file=sys.stderr)


# ---------------------------------------------------------------- model


def build_model(cfg, torch):
    """BertForSequenceClassification's forward pass in plain PyTorch, with its
    parameter names (state_dict keys)."""
    nn, F = torch.nn, torch.nn.functional
    H, L = cfg["hidden_size"], cfg["num_hidden_layers"]
    heads, inter, eps = cfg["num_attention_heads"], cfg["intermediate_size"], cfg["layer_norm_eps"]
    p_hidden, p_attn = cfg["hidden_dropout_prob"], cfg["attention_probs_dropout_prob"]

    def mod(**kw):
        m = nn.Module()
        for k, v in kw.items():
            setattr(m, k, v)
        return m

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            layers = []
            for _ in range(L):
                layers.append(mod(
                    attention=mod(self=mod(query=nn.Linear(H, H), key=nn.Linear(H, H), value=nn.Linear(H, H)),
                                  output=mod(dense=nn.Linear(H, H), LayerNorm=nn.LayerNorm(H, eps=eps))),
                    intermediate=mod(dense=nn.Linear(H, inter)),
                    output=mod(dense=nn.Linear(inter, H), LayerNorm=nn.LayerNorm(H, eps=eps)),
                ))
            self.bert = mod(
                embeddings=mod(word_embeddings=nn.Embedding(cfg["vocab_size"], H),
                               position_embeddings=nn.Embedding(cfg["max_position_embeddings"], H),
                               token_type_embeddings=nn.Embedding(cfg["type_vocab_size"], H),
                               LayerNorm=nn.LayerNorm(H, eps=eps)),
                encoder=mod(layer=nn.ModuleList(layers)),
                pooler=mod(dense=nn.Linear(H, H)),
            )
            self.classifier = nn.Linear(H, 3)

        def forward(self, ids, types, mask):
            e = self.bert.embeddings
            B, T = ids.shape
            pos = torch.arange(T, device=ids.device)
            x = e.word_embeddings(ids) + e.position_embeddings(pos)[None] + e.token_type_embeddings(types)
            x = F.dropout(e.LayerNorm(x), p_hidden, self.training)
            keep = mask[:, None, None, :].bool()
            d = H // heads
            for ly in self.bert.encoder.layer:
                a = ly.attention
                q = a.self.query(x).view(B, T, heads, d).transpose(1, 2)
                k = a.self.key(x).view(B, T, heads, d).transpose(1, 2)
                v = a.self.value(x).view(B, T, heads, d).transpose(1, 2)
                c = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, dropout_p=p_attn if self.training else 0.0)
                c = c.transpose(1, 2).reshape(B, T, H)
                x = a.output.LayerNorm(F.dropout(a.output.dense(c), p_hidden, self.training) + x)
                h = F.gelu(ly.intermediate.dense(x))
                x = ly.output.LayerNorm(F.dropout(ly.output.dense(h), p_hidden, self.training) + x)
            pooled = torch.tanh(self.bert.pooler.dense(x[:, 0]))
            return self.classifier(F.dropout(pooled, p_hidden, self.training))

    return Bert()


def load_start(path, torch):
    z = np.load(path)
    sd = {}
    for k in z.files:
        if k.endswith(".scale"):
            continue
        if k.endswith(".int8"):
            name = k[: -len(".int8")]
            sd[name] = torch.from_numpy(z[k].astype(np.float32) * z[name + ".scale"][:, None])
        else:
            sd[k] = torch.from_numpy(z[k].astype(np.float32))
    return sd


def returned_weights(model):
    """What comes back of a fine-tuned model: every encoder weight matrix int8
    as export.py stores it, the rest float16; the frozen word embeddings not at
    all (unpack takes them from the start)."""
    out = {}
    for k, v in model.state_dict().items():
        if k == WORD_EMB:
            continue
        w = v.detach().float().cpu().numpy()
        if ".encoder.layer." in k and k.endswith(".weight") and w.ndim == 2:
            q, s = quantise_rows(w)
            out[k + ".int8"], out[k + ".scale"] = q, s
        else:
            out[k] = w.astype(np.float16)
    return out


# ---------------------------------------------------------------- run


class Data:
    def __init__(self, z, prefix):
        if z is not None:
            self.ids, self.off, self.seg = z[prefix + "_ids"], z[prefix + "_off"], z[prefix + "_seg"]

    @classmethod
    def concat(cls, a, b):
        d = cls(None, "")
        d.ids = np.concatenate([a.ids, b.ids])
        d.off = np.concatenate([a.off[:-1], b.off + a.off[-1]])
        d.seg = np.concatenate([a.seg, b.seg])
        return d

    def __len__(self):
        return len(self.seg)

    def length(self, i):
        return int(self.off[i + 1] - self.off[i])

    def batch(self, idx, torch, device):
        lens = [self.length(i) for i in idx]
        T = max(lens)
        ids = np.zeros((len(idx), T), np.int64)
        types = np.zeros((len(idx), T), np.int64)
        mask = np.zeros((len(idx), T), np.int64)
        for r, i in enumerate(idx):
            n = lens[r]
            ids[r, :n] = self.ids[self.off[i] : self.off[i + 1]]
            types[r, self.seg[i] : n] = 1
            mask[r, :n] = 1
        t = lambda a: torch.from_numpy(a).to(device, non_blocking=True)  # noqa: E731
        return t(ids), t(types), t(mask)


def score(model, data, idx, torch, device, batch=256):
    """float32 logits of the items idx, in idx's order (length-sorted batches)."""
    model.eval()
    out = np.zeros((len(idx), 3), np.float32)
    order = sorted(range(len(idx)), key=lambda j: data.length(idx[j]))
    with torch.no_grad():
        for s in range(0, len(order), batch):
            part = order[s : s + batch]
            z = model(*data.batch([idx[j] for j in part], torch, device)).float().cpu().numpy()
            out[part] = z
    return out


def cmd_run(args):
    import torch

    t_start = time.time()
    os.makedirs(args.out, exist_ok=True)
    log_f = open(os.path.join(args.out, "log.txt"), "a")

    def log(msg):
        line = f"[{time.time() - t_start:7.1f}s] {msg}"
        print(line, flush=True)
        if log_f:
            log_f.write(line + "\n")
            log_f.flush()

    device = torch.device(args.device)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    with open(os.path.join(args.bundle, "meta.json")) as f:
        meta = json.load(f)
    z = np.load(os.path.join(args.bundle, "data.npz"))
    train_d, replay_d, eval_d = Data(z, "train"), Data(z, "replay"), Data(z, "eval")
    t_label, t_set = z["train_label"].astype(np.int64), z["train_set"].astype(np.int64)
    e_claim = z["eval_claim"]
    claims, sets = meta["claims"], meta["sets"]
    start = load_start(os.path.join(args.bundle, "start.npz"), torch)
    cfg = meta["config"]
    info = {"torch": torch.__version__, "device": str(device), "options": {k: v for k, v in vars(args).items() if k != "func"}, "folds": []}
    if device.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(device)
    log(f"torch {torch.__version__} on {info.get('gpu', device)}; {len(train_d)} training pairs, {len(replay_d)} replayed, {len(eval_d)} retrieved pairs")

    def fresh():
        m = build_model(cfg, torch)
        missing, unexpected = m.load_state_dict(start, strict=False)
        if missing or [u for u in unexpected if not u.endswith("position_ids")]:
            raise SystemExit(f"start weights do not fit: missing {missing}, unexpected {unexpected}")
        return m.to(device)

    limit = args.limit or None
    eval_idx_all = list(range(len(eval_d)))[:limit]
    scores_f = gzip.open(os.path.join(args.out, "scores.jsonl.gz"), "wt")

    def write_scores(name, idx, logits):
        by = {}
        for i, z_ in zip(idx, logits):
            by.setdefault(int(e_claim[i]), []).append([round(float(v), 5) for v in z_])
        for ci in sorted(by):
            c = claims[ci]
            scores_f.write(json.dumps({"model": name, "set": c["set"], "claim_id": c["claim_id"], "label": c["label"], "logits": by[ci]}) + "\n")
        scores_f.flush()

    # the start model: baseline on every retrieved pair, and the replay targets
    base = fresh()
    t0 = time.time()
    write_scores("start", eval_idx_all, score(base, eval_d, eval_idx_all, torch, device))
    log(f"start model scored {len(eval_idx_all)} pairs in {time.time() - t0:.1f}s")
    r_idx = list(range(len(replay_d)))[: (limit or len(replay_d))]
    with torch.no_grad():
        teacher = torch.softmax(torch.from_numpy(score(base, replay_d, r_idx, torch, device)), -1).numpy()
    del base

    folds = args.folds.split(",") if args.folds else sets + ["all"]
    for fold in folds:
        if fold != "all" and fold not in sets:
            raise SystemExit(f"--folds: unknown set {fold!r} (known: {', '.join(sets)}, all)")
    step_s = []  # seconds a training step, each fold so far (the first pays the warm-up)
    for fold in folds:
        tf = time.time()
        held = sets.index(fold) if fold != "all" else -1
        tr_idx = [i for i in range(len(train_d)) if t_set[i] != held][:limit]
        # examples: (source, index); targets as probability rows
        ex = [(0, i) for i in tr_idx] + [(1, j) for j in range(len(r_idx))]
        groups = {}
        for src, i in ex:
            key = ("replay",) if src else (int(t_set[i]), int(t_label[i]))
            groups[key] = groups.get(key, 0) + 1
        n_sets = len({k[0] for k in groups})
        labels_in = {}
        for k in groups:
            labels_in[k[0]] = labels_in.get(k[0], 0) + 1
        w = np.array([1.0 / (n_sets * labels_in[k[0]] * groups[k]) for k in (("replay",) if s else (int(t_set[i]), int(t_label[i])) for s, i in ex)])
        w = w * len(w) / w.sum()
        tgt = np.zeros((len(ex), 3), np.float32)
        for n, (src, i) in enumerate(ex):
            if src:
                tgt[n] = teacher[i]
            else:
                tgt[n, t_label[i]] = 1.0
        lengths = [replay_d.length(i) if s else train_d.length(i) for s, i in ex]
        rng = random.Random(args.seed)
        torch.manual_seed(args.seed)
        plan = [b for _ in range(args.epochs) for b in plan_batches(lengths, args.batch, rng)]
        if step_s and time.time() - t_start + max(step_s) * len(plan) > args.budget_s:
            log(f"stopping before fold {fold}: its {len(plan)} steps would end past the {args.budget_s}s budget")
            info["stopped_before"] = fold
            break
        model = fresh()
        model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
        params = [p for p in model.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01, **({"fused": True} if device.type == "cuda" else {}))
        total, warm = len(plan), max(1, int(0.1 * len(plan)))
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))
        w_t, tgt_t = torch.from_numpy(w.astype(np.float32)), torch.from_numpy(tgt)
        # one table of the fold's pairs: the real sets' first, then the replayed
        both = Data.concat(train_d, replay_d)
        pos = [i if not s else len(train_d) + i for s, i in ex]
        model.train()
        for step, b in enumerate(plan):
            x = both.batch([pos[j] for j in b], torch, device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16):
                logits = model(*x).float()
            loss = (-(tgt_t[b].to(device) * torch.log_softmax(logits, -1)).sum(-1) * w_t[b].to(device)).mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            if (step + 1) % 500 == 0 or step + 1 == total:
                el = time.time() - tf
                log(f"  {fold}: step {step + 1}/{total} loss {loss.item():.3f} ({(step + 1) * args.batch / el:.0f} pairs/s)")
        train_s = time.time() - tf
        step_s.append(train_s / max(1, total))
        row = {"fold": fold, "train_pairs": len(tr_idx), "replay_pairs": len(r_idx), "steps": total, "train_s": round(train_s, 1)}
        if fold != "all":
            idx = [i for i in eval_idx_all if claims[int(e_claim[i])]["set"] == fold]
            write_scores("tuned", idx, score(model, eval_d, idx, torch, device))
            tuned = {k: v.detach().clone() for k, v in model.state_dict().items()}
            half = {k: (start[k].to(device) + 0.5 * (v - start[k].to(device))) if k in start else v for k, v in tuned.items()}
            model.load_state_dict(half)
            write_scores("wise0.5", idx, score(model, eval_d, idx, torch, device))
            model.load_state_dict(tuned)
        np.savez(os.path.join(args.out, f"model-{fold}.npz"), **returned_weights(model))
        row["total_s"] = round(time.time() - tf, 1)
        info["folds"].append(row)
        log(f"fold {fold}: {json.dumps(row)}")
        with open(os.path.join(args.out, "run.json"), "w") as f:
            json.dump(info, f, indent=1)
        del model, opt
    scores_f.close()
    info["wall_s"] = round(time.time() - t_start, 1)
    with open(os.path.join(args.out, "run.json"), "w") as f:
        json.dump(info, f, indent=1)
    log(f"done in {info['wall_s']}s")


# ---------------------------------------------------------------- unpack / parity


def cmd_unpack(args):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(args.init)
    sd = model.state_dict()
    z = np.load(args.weights)
    n = 0
    for k in z.files:
        if k.endswith(".scale"):
            continue
        if k.endswith(".int8"):
            name = k[: -len(".int8")]
            v = z[k].astype(np.float32) * z[name + ".scale"][:, None]
        else:
            name, v = k, z[k].astype(np.float32)
        if name not in sd or tuple(sd[name].shape) != v.shape:
            raise SystemExit(f"{args.weights}: {name} does not fit {args.init}")
        sd[name] = torch.from_numpy(v)
        n += 1
    # the word embeddings stayed frozen: the start's, as stored (int8 rows)
    q, s = quantise_rows(sd[WORD_EMB].numpy())
    sd[WORD_EMB] = torch.from_numpy(q.astype(np.float32) * s[:, None])
    model.load_state_dict(sd)
    model.save_pretrained(args.out)
    AutoTokenizer.from_pretrained(args.init).save_pretrained(args.out)
    prev = {}
    if os.path.exists(os.path.join(args.init, "training.json")):
        with open(os.path.join(args.init, "training.json")) as f:
            prev = json.load(f)
    run = {}
    run_json = os.path.join(os.path.dirname(os.path.abspath(args.weights)), "run.json")
    if os.path.exists(run_json):
        with open(run_json) as f:
            run = json.load(f)
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump({"stage": "b", "from": {"stage": prev.get("stage"), "steps": prev.get("steps")}, "options": {"max_len": 128, "heads": 3}, "weights": os.path.basename(args.weights), "run": run}, f, indent=1)
    print(f"{args.out}: {n} tensors from {args.weights}, the rest from {args.init}", file=sys.stderr)


def cmd_scores(args):
    """run's scores.jsonl.gz split by candidate into decide.py's format
    (OUT/scores-start.jsonl, scores-tuned.jsonl, scores-wise0.5.jsonl)."""
    path = os.path.join(args.run, "scores.jsonl.gz")
    files = {}
    with gzip.open(path, "rt") as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
                name = r.pop("model")
            except (ValueError, KeyError) as e:
                raise SystemExit(f"{path}:{n}: not a scores line ({e})")
            if name not in files:
                files[name] = open(os.path.join(args.run, f"scores-{name}.jsonl"), "w")
            files[name].write(json.dumps(r) + "\n")
    for name, f in files.items():
        f.close()
        print(f"{os.path.join(args.run, f'scores-{name}.jsonl')}", file=sys.stderr)


def cmd_parity(args):
    """The plain-PyTorch model against transformers' on the same pairs."""
    import torch
    from transformers import AutoModelForSequenceClassification

    with open(os.path.join(args.bundle, "meta.json")) as f:
        meta = json.load(f)
    hf = AutoModelForSequenceClassification.from_pretrained(args.init).eval()
    start = load_start(os.path.join(args.bundle, "start.npz"), torch)
    hf.load_state_dict({**hf.state_dict(), **{k: v for k, v in start.items() if k in hf.state_dict()}})
    mine = build_model(meta["config"], torch)
    mine.load_state_dict(start, strict=False)
    mine.eval()
    ev = Data(np.load(os.path.join(args.bundle, "data.npz")), "eval")
    idx = list(range(0, len(ev), max(1, len(ev) // args.n)))[: args.n]
    ids, types, mask = ev.batch(idx, torch, "cpu")
    with torch.no_grad():
        a = hf(input_ids=ids, attention_mask=mask, token_type_ids=types).logits
        b = mine(ids, types, mask)
    d = (a - b).abs().max().item()
    print(f"{len(idx)} pairs: max |logit difference| {d:.2e}")
    if d > 1e-4:
        raise SystemExit("parity failed")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="tokenise the examples and pack the start weights (needs transformers)")
    p.add_argument("--pairs", required=True, help="train/pairs output: each labelled claim with its retrieved passages")
    p.add_argument("--data", required=True, help="the folder of the real sets (gold evidence spans, training signal only)")
    p.add_argument("--init", required=True, help="the start model's Hugging Face folder (stage (a2))")
    p.add_argument("--replay-data", required=True, help="ce.py data's snli_train.jsonl (fever.jsonl is read beside it)")
    p.add_argument("--negatives", required=True, help="negatives.py build's output")
    p.add_argument("--snli", type=int, default=10000)
    p.add_argument("--fever", type=int, default=5000)
    p.add_argument("--neg", type=int, default=5000)
    p.add_argument("--passages", type=int, default=5, help="retrieved passages per claim in training")
    p.add_argument("--gold", type=int, default=1, help="gold evidence spans per claim in training")
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_pack)
    p = sub.add_parser("run", help="train and score (needs only torch and numpy)")
    p.add_argument("--bundle", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--device", default="cuda")
    p.add_argument("--folds", default="", help="comma-separated held-out sets, or all (default: every set, then all)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--budget-s", type=float, default=1e9, help="seconds: start no fold whose steps, at the slowest rate so far, would end past this")
    p.add_argument("--limit", type=int, default=0, help="smoke test: at most this many pairs of each kind")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("scores", help="split run's scores by candidate, in decide.py's format")
    p.add_argument("--run", required=True, help="run's --out folder")
    p.set_defaults(func=cmd_scores)
    p = sub.add_parser("unpack", help="a returned model as a Hugging Face folder for export.py")
    p.add_argument("--init", required=True)
    p.add_argument("--weights", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_unpack)
    p = sub.add_parser("parity", help="check the plain-PyTorch model against transformers'")
    p.add_argument("--bundle", required=True)
    p.add_argument("--init", required=True)
    p.add_argument("--n", type=int, default=64)
    p.set_defaults(func=cmd_parity)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
