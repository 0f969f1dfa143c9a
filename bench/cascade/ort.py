"""Python's ONNX Runtime on the model path's pairs, and the session options issue 42 weighs.

  python bench/cascade/ort.py speed  --model DIR --pairs PAIRS.jsonl [--limit N]
  python bench/cascade/ort.py options --model DIR --pairs PAIRS.jsonl [--limit N]
  python bench/cascade/ort.py int8rows --model DIR --candidate G.onnx --pairs PAIRS.jsonl [--claims N] [--scores S]
  python bench/cascade/ort.py pairs --records RECORDS.jsonl --corpus corpus.jsonl --out PAIRS.jsonl

PAIRS.jsonl: one claim a line, {"claim": str, "passages": [{"text": str}, ...]} (the
harness's retrieval, best first; the pairs command writes it from a run). Every
(passage, claim) pair is tokenised by the model's tokenizer.json (the Rust tokenizers
library: the Go tokenizer's reference), passage first and cut first, and run in batches
of 32 sorted into 16-token length buckets, as the Go backend does.

speed: pairs/s of one session, its batches --runs at a time on one intra-op thread each
(default: one per core, spinning off, as the Go backend's --ort-runs).
options: for each option, pairs/s and the largest |logit difference| between a pair scored
alone and in its batch of 32 (batch invariance: must be 0 to be adoptable).
"""
import argparse, json, os, sys, tempfile, threading, time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

BATCH = 32


def load_pairs(path, limit, m):
    out = []
    with open(path) as f:
        for line in f:
            c = json.loads(line)
            ps = c.get("passages") or [{"text": ""}]
            for p in ps[: m or None]:
                out.append((p["text"], c["claim"]))
                if limit and len(out) >= limit:
                    return out
    return out


def encode(model, pairs, max_len):
    tok = Tokenizer.from_file(os.path.join(model, "tokenizer.json"))
    tok.enable_truncation(max_len, strategy="only_first")
    tok.no_padding()
    encs = tok.encode_batch(pairs)
    return [(np.array(e.ids), np.array(e.type_ids)) for e in encs]


def encode_go(model, pairs, max_len):
    """Pairs cut by the Go tokenizer's rule (nli.Encoder): the passage is cut
    first; a claim that leaves no room keeps the passage at min(its length, a
    quarter of the room) and is cut to the rest."""
    tok = Tokenizer.from_file(os.path.join(model, "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    budget = max_len - 3
    texts = sorted({t for pc in pairs for t in pc})
    ids = dict(zip(texts, (e.ids for e in tok.encode_batch(texts, add_special_tokens=False))))
    out = []
    for p, c in pairs:
        a, b = ids[p], ids[c]
        if len(a) + len(b) > budget:
            if len(b) < budget:
                a = a[: budget - len(b)]
            else:
                keep = min(len(a), budget // 4)
                a, b = a[:keep], b[: budget - keep]
        out.append((np.array([cls] + a + [sep] + b + [sep]), np.array([0] * (len(a) + 2) + [1] * (len(b) + 1))))
    return out


def batches(encs):
    """Length-sorted batches of BATCH, padded to the batch's 16-token bucket."""
    order = sorted(range(len(encs)), key=lambda i: len(encs[i][0]))
    for lo in range(0, len(order), BATCH):
        idx = order[lo : lo + BATCH]
        yield idx, feed(encs, idx)


def feed(encs, idx, width=0):
    width = width or max(16, (max(len(encs[i][0]) for i in idx) + 15) // 16 * 16)
    ids = np.zeros((len(idx), width), np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for r, i in enumerate(idx):
        n = len(encs[i][0])
        ids[r, :n], types[r, :n], mask[r, :n] = encs[i][0], encs[i][1], 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def session(path, threads=0, level=ort.GraphOptimizationLevel.ORT_ENABLE_ALL, config=()):
    so = ort.SessionOptions()
    for k, v in config:
        so.add_session_config_entry(k, v)
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = level
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def run_all(sess, encs):
    logits = np.zeros((len(encs), 3), np.float32)
    for idx, f in batches(encs):
        logits[idx] = sess.run(None, f)[0]
    return logits


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def invariance(sess, encs, n=64):
    """Largest |logit difference| of the first n pairs scored one at a time
    against the same pairs inside their length-sorted batches."""
    batched = run_all(sess, encs)
    width = {}
    for idx, f in batches(encs):
        for i in idx:
            width[i] = f["input_ids"].shape[1]
    worst = 0.0
    for i in range(min(n, len(encs))):
        # alone: the same width as in its batch, so only the batch changes
        alone = sess.run(None, feed(encs, [i], width[i]))[0][0]
        worst = max(worst, float(np.abs(alone - batched[i]).max()))
    return worst


def dequantised(model_path, out):
    """The shipped graph with every int8 weight folded back to float32 (the
    input quantize_dynamic needs: float initializers)."""
    import onnx
    from onnx import numpy_helper, helper
    m = onnx.load(model_path)
    inits = {i.name: i for i in m.graph.initializer}
    keep, new_inits = [], []
    for node in m.graph.node:
        if node.op_type == "DequantizeLinear" and node.input[0] in inits:
            q = numpy_helper.to_array(inits[node.input[0]]).astype(np.float32)
            s = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)
            z = numpy_helper.to_array(inits[node.input[2]]).astype(np.float32) if len(node.input) > 2 else 0
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
            shape = [1] * q.ndim
            if np.ndim(s) == 1:
                shape[axis] = -1
                s = s.reshape(shape)
                z = np.reshape(z, shape) if np.ndim(z) == 1 else z
            new_inits.append(numpy_helper.from_array((q - z) * s, node.output[0]))
            continue
        keep.append(node)
    used = {i for n in keep for i in n.input}
    del m.graph.node[:]
    m.graph.node.extend(keep)
    rest = [i for i in m.graph.initializer if i.name in used]
    del m.graph.initializer[:]
    m.graph.initializer.extend(rest + new_inits)
    onnx.save(m, out)
    return out


def run_side_by_side(sess, encs, runs):
    """The batches of run_all, `runs` at a time on as many threads (ONNX
    Runtime releases the GIL while it runs), as the Go backend's --ort-runs."""
    logits = np.zeros((len(encs), 3), np.float32)
    todo = list(batches(encs))

    def work(k):
        for j in range(k, len(todo), runs):
            idx, f = todo[j]
            logits[idx] = sess.run(None, f)[0]

    ts = [threading.Thread(target=work, args=(k,)) for k in range(runs)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return logits


def model_max_len(model):
    """The length the Go backend cuts pairs at by default when the model's
    tokenizer.json declares one (its truncation max_length); else 96, this
    script's old default (the Go backend would take config.json's
    max_position_embeddings, at most 512)."""
    with open(os.path.join(model, "tokenizer.json"), encoding="utf-8") as f:
        trunc = json.load(f).get("truncation") or {}
    return int(trunc.get("max_length") or 96)


def cmd_speed(a):
    pairs = load_pairs(a.pairs, a.limit, a.passages)
    encs = encode_go(a.model, pairs, a.max_len)
    # --runs N > 1: one session on one intra-op thread, N runs at once (the Go
    # backend's default on the CPU); 1: one run at a time on all cores.
    sess = session(os.path.join(a.model, "model.onnx"), threads=1 if a.runs > 1 else 0)
    run_all(sess, encs[:BATCH])  # warm
    go = (lambda: run_side_by_side(sess, encs, a.runs)) if a.runs > 1 else (lambda: run_all(sess, encs))
    _, wall, cpu = timed(go)
    print(json.dumps({"pairs": len(encs), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "pairs_per_s": round(len(encs) / wall, 1),
                      "mean_tokens": round(float(np.mean([len(e[0]) for e in encs])), 1), "runs": a.runs}))


def add_quantised(variants, shipped, tmp):
    """The float32 graph with the weights folded, and ONNX Runtime's dynamic
    int8 quantisation of it (activations quantised per tensor at run time)."""
    from onnxruntime.quantization import quantize_dynamic, QuantType
    fp32 = dequantised(shipped, os.path.join(tmp, "fp32.onnx"))
    variants.append(("float32 weights folded (no DequantizeLinear at run time)", lambda: session(fp32)))
    for per_channel in (False, True):
        q = os.path.join(tmp, f"dyn{int(per_channel)}.onnx")
        quantize_dynamic(fp32, q, weight_type=QuantType.QInt8, per_channel=per_channel)
        variants.append((f"quantize_dynamic int8 MatMulInteger (per-tensor activation scale{', per-channel weights' if per_channel else ''})", lambda q=q: session(q)))


def cmd_options(a):
    pairs = load_pairs(a.pairs, a.limit, a.passages)
    encs = encode(a.model, pairs, a.max_len)
    shipped = os.path.join(a.model, "model.onnx")
    tmp = tempfile.mkdtemp()
    L = ort.GraphOptimizationLevel
    variants = [
        ("shipped: int8 weights dequantised, float32 arithmetic, graph ALL, 2 threads", lambda: session(shipped)),
        ("1 intra-op thread", lambda: session(shipped, threads=1)),
        ("graph optimisation BASIC", lambda: session(shipped, level=L.ORT_ENABLE_BASIC)),
        ("graph optimisation EXTENDED", lambda: session(shipped, level=L.ORT_ENABLE_EXTENDED)),
        ("graph optimisation off", lambda: session(shipped, level=L.ORT_DISABLE_ALL)),
        ("session.disable_quant_qdq = 1 (constant folding turns the int8 weights into float32 at load)",
         lambda: session(shipped, config=[("session.disable_quant_qdq", "1")])),
    ]
    if a.only:
        variants = [variants[0], variants[-1]]
    if not a.only:
        add_quantised(variants, shipped, tmp)
    rows = []
    for name, make in variants:
        sess = make()
        run_all(sess, encs[:BATCH])
        logits, wall, cpu = timed(lambda: run_all(sess, encs))
        rows.append({"option": name, "pairs_per_s": round(len(encs) / wall, 1), "cpu_s": round(cpu, 2),
                     "max_batch_delta": invariance(sess, encs, a.invariance)})
        print(json.dumps(rows[-1]), flush=True)
    # two sessions of one thread each, half the batches each, in parallel
    s1, s2 = session(shipped, threads=1), session(shipped, threads=1)
    bs = list(batches(encs))
    def work(sess, part):
        for idx, f in part:
            sess.run(None, f)
    def both():
        ts = [threading.Thread(target=work, args=(s, bs[i::2])) for i, s in enumerate((s1, s2))]
        [t.start() for t in ts]; [t.join() for t in ts]
    if a.only:
        return
    _, wall, cpu = timed(both)
    print(json.dumps({"option": "two sessions x 1 intra-op thread, in parallel", "pairs_per_s": round(len(encs) / wall, 1), "cpu_s": round(cpu, 2),
                      "max_batch_delta": 0.0}), flush=True)


def load_claims(path, per_set):
    """The first per_set claims of each set of a retrieved-pairs file (the
    harness's pairs.jsonl: set, claim, label, passages), in file order, with
    each record's line number (to find the same claim's reference scores)."""
    seen, out = {}, []
    with open(path) as f:
        for i, line in enumerate(f):
            r = json.loads(line)
            if seen.get(r["set"], 0) < per_set:
                seen[r["set"]] = seen.get(r["set"], 0) + 1
                out.append((i, r))
    return out


def claim_rows(claims, logits):
    """Per set, a decide.SetScores of each claim's passages' logits."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "train"))
    from decide import SetScores

    by_set, at = {}, 0
    for _, r in claims:
        k = len(r["passages"] or [None])
        by_set.setdefault(r["set"], []).append({"label": r["label"], "logits": logits[at : at + k].tolist()})
        at += k
    return {name: SetScores(recs) for name, recs in by_set.items()}


def balanced(sets):
    from decide import balanced_accuracy

    return {name: balanced_accuracy(s.y, s.decide((0, 0, 0)).argmax(axis=1)) for name, s in sets.items()}


def flips(sets, ref):
    """Per set, how many claims' binary decision (supported or not) differs
    from the reference scores' decision."""
    return {name: int(((s.decide((0, 0, 0)).argmax(axis=1) == 0) != (ref[name].decide((0, 0, 0)).argmax(axis=1) == 0)).sum())
            for name, s in sets.items()}


def cmd_int8rows(a):
    """The per-row int8 graph(s) against the shipped one on the first
    --claims claims of each real set: largest |logit difference| against the
    shipped graph and the float32 torch scores (--scores), the claim-level
    binary balanced accuracy per set (deciding-passage rule) of each, the
    batch delta, and CPU seconds over --rounds interleaved passes."""
    claims = load_claims(a.pairs, a.claims)
    pairs = [(p["text"], r["claim"]) for _, r in claims for p in (r["passages"] or [{"text": ""}])]
    encs = encode_go(a.model, pairs, a.max_len)
    graphs = [("shipped", os.path.join(a.model, "model.onnx"))] + [(os.path.basename(c), c) for c in a.candidate]
    sess = {name: session(path, threads=a.threads) for name, path in graphs}
    out = {"pairs": len(encs), "claims": len(claims), "max_len": a.max_len,
           "mean_tokens": round(float(np.mean([len(e[0]) for e in encs])), 1)}
    logits = {}
    for name, _ in graphs:
        run_all(sess[name], encs[:BATCH])
        logits[name], wall, cpu = timed(lambda: run_all(sess[name], encs))
        out[name] = {"cpu_s": [round(cpu, 2)], "pairs_per_s": [round(len(encs) / wall, 1)]}
    for _ in range(a.rounds - 1):
        for name, _ in graphs:
            _, wall, cpu = timed(lambda: run_all(sess[name], encs))
            out[name]["cpu_s"].append(round(cpu, 2))
            out[name]["pairs_per_s"].append(round(len(encs) / wall, 1))
    torch_logits = None
    if a.scores:
        lines = open(a.scores).read().splitlines()
        torch_logits = np.array([z for i, _ in claims for z in json.loads(lines[i])["logits"]], np.float64)
        out["torch"] = {"bal_acc": balanced(claim_rows(claims, torch_logits))}
    shipped_sets = claim_rows(claims, logits["shipped"])
    for name, _ in graphs:
        o = out[name]
        sets = claim_rows(claims, logits[name])
        o["bal_acc"] = balanced(sets)
        o["decisions_differing_from_shipped"] = flips(sets, shipped_sets)
        if torch_logits is not None:
            o["decisions_differing_from_torch"] = flips(sets, claim_rows(claims, torch_logits))
        o["max_diff_vs_shipped"] = float(np.abs(logits[name] - logits["shipped"]).max())
        o["mean_diff_vs_shipped"] = float(np.abs(logits[name] - logits["shipped"]).mean())
        if torch_logits is not None:
            o["max_diff_vs_torch"] = float(np.abs(logits[name] - torch_logits).max())
            o["mean_diff_vs_torch"] = float(np.abs(logits[name] - torch_logits).mean())
        o["batch_delta"] = invariance(sess[name], encs, a.invariance)
        o["batch_delta_unpadded"] = invariance_unpadded(sess[name], encs, logits[name], a.invariance)
    if a.save:
        np.savez(a.save, **{k.replace(".onnx", ""): v for k, v in logits.items()})
    print(json.dumps(out, indent=1))


def invariance_unpadded(sess, encs, batched, n):
    """As invariance, but each pair alone at its own length (no padding): the
    batch and the padding of the other pairs both change."""
    step = max(1, len(encs) // n)
    worst = 0.0
    for i in range(0, len(encs), step)[:n]:
        alone = sess.run(None, feed(encs, [i], len(encs[i][0])))[0][0]
        worst = max(worst, float(np.abs(alone - batched[i]).max()))
    return worst


def cmd_pairs(a):
    """Pairs of a run: its records (audit export --format jsonl) with each
    passage's text cut from the corpus by its code-point offsets."""
    docs = {}
    with open(a.corpus) as f:
        for line in f:
            d = json.loads(line)
            docs[d["doc_id"]] = d["text"]
    n = 0
    with open(a.records) as f, open(a.out, "w") as out:
        for line in f:
            r = json.loads(line)
            ps = [{"text": docs[e["doc_id"]][e["start"] : e["end"]]} for e in r.get("evidence") or []]
            out.write(json.dumps({"claim": r["text"], "passages": ps}) + "\n")
            n += len(ps)
    print(json.dumps({"claims_pairs": n}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["speed", "options", "pairs", "int8rows"])
    ap.add_argument("--candidate", action="append", default=[], help="int8rows: a graph to compare with the shipped one (repeatable)")
    ap.add_argument("--claims", type=int, default=300, help="int8rows: the first N claims of each set")
    ap.add_argument("--scores", help="int8rows: float32 torch scores of the same pairs file (train/decide.py score)")
    ap.add_argument("--rounds", type=int, default=1, help="int8rows: interleaved timed passes")
    ap.add_argument("--save", help="int8rows: write every graph's logits to this .npz")
    ap.add_argument("--threads", type=int, default=2, help="int8rows: intra-op threads")
    ap.add_argument("--runs", type=int, default=os.cpu_count() or 1,
                    help="speed: runs at once, each on one thread (default: one per core, as the Go backend); 1: one at a time on all cores")
    ap.add_argument("--model")
    ap.add_argument("--pairs")
    ap.add_argument("--records", help="pairs: a run's records, audit export --format jsonl")
    ap.add_argument("--corpus", help="pairs: the run's corpus.jsonl")
    ap.add_argument("--out", help="pairs: the pairs file to write")
    ap.add_argument("--limit", type=int, default=0, help="at most this many pairs (0: all)")
    ap.add_argument("--passages", type=int, default=0, help="first m passages of each claim (0: all)")
    ap.add_argument("--max-len", type=int, default=0, help="tokens per pair (default: the model's tokenizer.json truncation, as the Go backend; else 96)")
    ap.add_argument("--invariance", type=int, default=32, help="pairs checked alone against their batch")
    ap.add_argument("--only", action="store_true", help="options: only the shipped session and disable_quant_qdq, then stop")
    a = ap.parse_args()
    if not a.max_len:
        a.max_len = model_max_len(a.model) if a.model else 96
    {"speed": cmd_speed, "options": cmd_options, "pairs": cmd_pairs, "int8rows": cmd_int8rows}[a.cmd](a)


if __name__ == "__main__":
    main()
