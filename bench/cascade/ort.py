"""Python's ONNX Runtime on the model path's pairs, and the session options issue 42 weighs.

  python bench/cascade/ort.py speed  --model DIR --pairs PAIRS.jsonl [--limit N]
  python bench/cascade/ort.py options --model DIR --pairs PAIRS.jsonl [--limit N]
  python bench/cascade/ort.py pairs --records RECORDS.jsonl --corpus corpus.jsonl --out PAIRS.jsonl

PAIRS.jsonl: one claim a line, {"claim": str, "passages": [{"text": str}, ...]} (the
harness's retrieval, best first; the pairs command writes it from a run). Every
(passage, claim) pair is tokenised by the model's tokenizer.json (the Rust tokenizers
library: the Go tokenizer's reference), passage first and cut first, and run in batches
of 32 sorted into 16-token length buckets, as the Go backend does.

speed: pairs/s of one session (intra-op threads = cores, spinning off, as the Go backend).
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


def cmd_speed(a):
    pairs = load_pairs(a.pairs, a.limit, a.passages)
    encs = encode(a.model, pairs, a.max_len)
    sess = session(os.path.join(a.model, "model.onnx"))
    run_all(sess, encs[:BATCH])  # warm
    _, wall, cpu = timed(lambda: run_all(sess, encs))
    print(json.dumps({"pairs": len(encs), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "pairs_per_s": round(len(encs) / wall, 1),
                      "mean_tokens": round(float(np.mean([len(e[0]) for e in encs])), 1)}))


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
    ap.add_argument("cmd", choices=["speed", "options", "pairs"])
    ap.add_argument("--model")
    ap.add_argument("--pairs")
    ap.add_argument("--records", help="pairs: a run's records, audit export --format jsonl")
    ap.add_argument("--corpus", help="pairs: the run's corpus.jsonl")
    ap.add_argument("--out", help="pairs: the pairs file to write")
    ap.add_argument("--limit", type=int, default=0, help="at most this many pairs (0: all)")
    ap.add_argument("--passages", type=int, default=0, help="first m passages of each claim (0: all)")
    ap.add_argument("--max-len", type=int, default=96)
    ap.add_argument("--invariance", type=int, default=32, help="pairs checked alone against their batch")
    ap.add_argument("--only", action="store_true", help="options: only the shipped session and disable_quant_qdq, then stop")
    a = ap.parse_args()
    {"speed": cmd_speed, "options": cmd_options, "pairs": cmd_pairs}[a.cmd](a)


if __name__ == "__main__":
    main()
