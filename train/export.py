"""Export a fine-tuned cross-encoder (train/nli.py fit) as the folder the onnx
verifier runs: model.onnx (int8 weights, float arithmetic: see weight_only_int8), tokenizer.json (its
truncation max_length = the length the model was trained at, which the Go
backend takes as its default), config.json with id2label, and reference.json
(a fixed batch: the ids Python's tokenizer gives by the Go rule, and the
logits of the fp32 torch model and of the int8 ONNX model) that the Go tests
compare against.

    python train/export.py --model DIR --out models/NAME [--max-len 96] [--no-quantize] [--arith A]

--arith int8-rows7 (the default) also runs the encoder's linear layers on
integer arithmetic with activations quantised one row (one token of one pair)
at a time to 7 bits, and the head one row at a time (train/int8rows.py): a
pair's logits are bit for bit the same whatever its batch, at ~0.6x the CPU of
float32 arithmetic, a little less exact. 7 bits, not 8, so that x86 CPUs
without VNNI (whose uint8 x int8 kernel adds product pairs in 16 bits with
saturation) compute the same exact sums. int8-rows: 8-bit activations, exact
only on CPUs with VNNI or AMX. int8-rows-asym: per-row minimum and maximum
instead of a symmetric scale (closer to float32, ~0.7x). float: int8-stored
weights dequantised in the graph, float32 arithmetic (logits move in the 7th
digit with the batch).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nli import Encoder  # noqa: E402

# The fixed batch: short and long passages, a claim longer than the room, an
# empty passage, accents and symbols.
REFERENCE_PAIRS = [
    ["Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022.", "Meridian Rail carried 48.2 million passengers in 2023."],
    ["The average depth of Lake Orrin is 18 metres.", "Lake Orrin is 40 metres deep."],
    ["The bridge was completed in 1932 and spans 503 metres.", "The film was released in 2022."],
    ["Naïve façade, résumé! Café Lumière opened in Saint-Étienne in 1911.", "Café Lumière opened in Saint-Étienne."],
    ["", "It was not founded in 1898."],
    [" ".join(["Vaccination reduced hospital admissions among adults over sixty in the trial."] * 12), "The vaccine reduced hospital admissions."],
    ["Smoking is associated with lung cancer.", " ".join(["Smoking causes lung cancer in most long-term smokers according to the cohort study"] * 8)],
]


class Wrapped(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="folder written by nli.py fit")
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-len", type=int, default=0, help="tokens per pair (default: the training run's)")
    ap.add_argument("--no-quantize", action="store_true")
    ap.add_argument("--arith", choices=["int8-rows", "int8-rows7", "int8-rows-asym", "float"], default="int8-rows7",
                    help="the encoder's arithmetic (default int8-rows7: per-row 7-bit activations, train/int8rows.py)")
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("TRAIN_THREADS", "2")))
    with open(os.path.join(args.model, "training.json")) as f:
        training = json.load(f)
    max_len = args.max_len or training["options"]["max_len"]
    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSequenceClassification.from_pretrained(args.model).eval()
    os.makedirs(args.out, exist_ok=True)
    tmp = tempfile.mkdtemp()
    fp32 = os.path.join(tmp, "model-fp32.onnx")
    enc = Encoder(tok, max_len)
    to_onnx(Wrapped(model), enc, fp32)
    model.eval()
    dest = os.path.join(args.out, "model.onnx")
    if args.no_quantize:
        shutil.copyfile(fp32, dest)
    else:
        weight_only_int8(fp32, dest)
        if args.arith != "float":
            int8_arith(dest, {"int8-rows-asym": "asym", "int8-rows7": "sym7"}.get(args.arith, "sym"))
    write_tokenizer(tok, args.out, max_len)
    cfg = model.config.to_dict()
    cfg["id2label"] = {str(k): v for k, v in model.config.id2label.items()}
    cfg["label2id"] = {v: int(k) for k, v in model.config.id2label.items()}
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1, sort_keys=True)
    write_reference(tok, model, enc, dest, fp32, args.out, max_len, "int8-rows" if args.arith != "float" and not args.no_quantize else "")
    shutil.rmtree(tmp)


def to_onnx(module, enc, path):
    """The backend's graph: inputs input_ids, attention_mask, token_type_ids
    (int64, dynamic batch and sequence), output logits [batch, labels], opset
    14, traced on two reference pairs. torch.onnx.export restores the
    module's training flag afterwards: callers keep dropout off (eval) for
    the reference logits."""
    dummy = enc.batch([p for p, _ in REFERENCE_PAIRS[:2]], [c for _, c in REFERENCE_PAIRS[:2]])
    names = ("input_ids", "attention_mask", "token_type_ids")
    with torch.no_grad():
        torch.onnx.export(
            module.eval(),
            tuple(dummy[n] for n in names),
            path,
            input_names=list(names),
            output_names=["logits"],
            dynamic_axes={n: {0: "batch", 1: "sequence"} for n in names} | {"logits": {0: "batch"}},
            opset_version=14,
            do_constant_folding=True,
        )
    module.eval()


def write_tokenizer(tok, out, max_len):
    """tokenizer.json with the training length as its truncation length."""
    tmp = tempfile.mkdtemp()
    tok.save_pretrained(tmp)
    with open(os.path.join(tmp, "tokenizer.json"), encoding="utf-8") as f:
        tj = json.load(f)
    shutil.rmtree(tmp)
    tj["truncation"] = {"direction": "Right", "max_length": max_len, "strategy": "OnlyFirst", "stride": 0}
    tj["padding"] = None
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False)


def weight_only_int8(src, dst, min_size=4096):
    """Store every large float weight as int8 with one symmetric scale per
    output channel (per row for embedding tables, per column for MatMul
    weights), dequantised in the graph (DequantizeLinear, opset 13+). A
    classification head (a side under 16) stays float32: it is tiny, and its
    rounding would reach the logits undamped.

    Not ONNX Runtime's quantize_dynamic: that quantises activations too, with
    one scale computed over the whole batch tensor, so a pair's logits would
    depend on the other pairs of its batch and on their padding, and the
    harness promises the same verdicts whatever the batch size. Here the
    arithmetic stays float32; only the stored weights are 8-bit (a quarter
    of the size)."""
    import onnx
    from onnx import helper, numpy_helper

    m = onnx.load(src)
    g = m.graph
    gathers = {n.input[0] for n in g.node if n.op_type == "Gather"}
    keep, nodes = [], []
    for init in g.initializer:
        w = numpy_helper.to_array(init)
        if w.dtype != np.float32 or w.ndim != 2 or w.size < min_size or min(w.shape) < 16:
            keep.append(init)
            continue
        axis = 0 if init.name in gathers else 1
        amax = np.abs(w).max(axis=1 - axis)
        scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
        shape = (-1, 1) if axis == 0 else (1, -1)
        q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        qname = init.name + "_int8"
        keep += [
            numpy_helper.from_array(q, qname),
            numpy_helper.from_array(scale, init.name + "_scale"),
            numpy_helper.from_array(np.zeros(scale.shape, np.int8), init.name + "_zero"),
        ]
        nodes.append(helper.make_node("DequantizeLinear", [qname, init.name + "_scale", init.name + "_zero"], [init.name], axis=axis, name=init.name + "_dequant"))
    del g.initializer[:]
    g.initializer.extend(keep)
    old = list(g.node)
    del g.node[:]
    g.node.extend(nodes + old)
    onnx.checker.check_model(m)
    onnx.save(m, dst)


def int8_arith(path, scheme):
    """Rewrite the int8-weight graph at path in place so its encoder MatMuls
    run on per-row int8 activations and its head one row at a time
    (int8rows.rewrite)."""
    import onnx

    import int8rows

    m = onnx.load(path)
    n = int8rows.rewrite(m, scheme)
    onnx.checker.check_model(m)
    onnx.save(m, path)
    print(f"{path}: {n} MatMuls on per-row int8 arithmetic", file=sys.stderr)


def write_reference(tok, model, enc, int8_path, fp32_path, out, max_len, arithmetic=""):
    import onnxruntime as ort

    rows = [enc.pair(p, c) for p, c in REFERENCE_PAIRS]
    batch = enc.batch([p for p, _ in REFERENCE_PAIRS], [c for _, c in REFERENCE_PAIRS])
    with torch.no_grad():
        torch_logits = model(**batch).logits.double().numpy()
    feeds = {k: v.numpy() for k, v in batch.items()}
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    onnx_logits = ort.InferenceSession(int8_path, so, providers=["CPUExecutionProvider"]).run(["logits"], feeds)[0].astype(np.float64)
    fp32_logits = ort.InferenceSession(fp32_path, so, providers=["CPUExecutionProvider"]).run(["logits"], feeds)[0].astype(np.float64)
    ref = {
        "max_length": max_len,
        "pairs": REFERENCE_PAIRS,
        "input_ids": [r[0] for r in rows],
        "type_ids": [r[1] for r in rows],
        "onnx_logits": onnx_logits.round(6).tolist(),
        "torch_logits": torch_logits.round(6).tolist(),
        "max_abs_diff_torch_vs_onnx": float(np.abs(torch_logits - onnx_logits).max()),
        "max_abs_diff_torch_vs_onnx_fp32": float(np.abs(torch_logits - fp32_logits).max()),
    }
    if arithmetic:
        # the Go tests hold such a graph to identical logits whatever the batch
        ref["arithmetic"] = arithmetic
    with open(os.path.join(out, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, indent=1)
    print(f"exported {out}: torch vs onnx max |Δlogit| {ref['max_abs_diff_torch_vs_onnx']:.4f} (fp32 graph {ref['max_abs_diff_torch_vs_onnx_fp32']:.2e})", file=sys.stderr)


if __name__ == "__main__":
    main()
