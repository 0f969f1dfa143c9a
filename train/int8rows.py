"""Integer arithmetic that stays batch-independent: activations quantised one
row (one token of one pair) at a time.

rewrite(model) takes a graph written by export.weight_only_int8 (int8 weights,
one scale per output column, DequantizeLinear in the graph) and replaces every
MatMul whose weight is such a DequantizeLinear with

    s   = max(ReduceMax(|x|, last axis), tiny) / 127        one scale per row
    x_q = Cast(Clip(Round(x / s), -127, 127) + 128, uint8)   symmetric, shifted
    y   = Cast(MatMulInteger(x_q, W_q, a_zero_point=128), float) * s * s_w

written as max(ReduceMax(x), -ReduceMin(x)) for |x|, and the Div, Round, Clip,
Add and Cast as one QuantizeLinear over x seen as [tokens, k] with the row
scales on axis 0 (the same numbers in one pass; 0.76x the CPU of the graph
on generated pairs, 0.87x on the real sets' longer ones, logits bit for bit
equal on 48,433 pairs).
MatMulInteger subtracts the constant zero point 128 before multiplying, so it
computes (x_q - 128) x W_q exactly in int32: the shift only moves the
activation into the unsigned operand the x86 int8 kernels (VNNI, AMX) take
fastest. Every step is elementwise or reduces over one row, and the integer
product is exact, so a row's result depends on that row alone: a pair's
logits do not depend on the other pairs of its batch or on their padding.
(ONNX Runtime's quantize_dynamic uses DynamicQuantizeLinear, one scale for
the whole batch tensor: the logits move with the batch.) scheme "s8" keeps
the activation int8 (MatMulInteger s8 x s8) instead: 5.6x slower on ONNX
Runtime 1.30's x86 kernels. Scheme "sym7" (what export.py ships) scales to
-63..63 and shifts by 64: two products then sum within int16, so x86 CPUs
without VNNI, whose kernel (VPMADDUBSW) adds product pairs in 16 bits with
saturation, compute the same exact int32 results as VNNI and AMX; 8-bit
"sym" can saturate there. Scheme "asym" takes each row's minimum and maximum
(closer to float32, more operators).

The pooler's and the classifier's Gemm become an elementwise product summed
over each row (float32: a GEMM's blocking follows the row count, which moved
the logits' last bits with the batch). Attention's activation-by-activation
products (Q K^T, probabilities x V), softmax, LayerNorm and the embedding
tables keep float32 arithmetic; their results were already the same alone
and in a batch. An embedding table stored int8 with a scale per row is
gathered first and only the rows gathered are dequantised.

    python train/int8rows.py IN.onnx OUT.onnx [--scheme sym|asym|s8] [--skip KINDS]
"""

import argparse
import sys

import numpy as np


KINDS = ("query", "key", "value", "attention/output", "intermediate", "output/dense")


def kind(name):
    """Which linear layer of a BERT block a MatMul's node name is: the first
    of KINDS it contains ("output/dense" after "attention/output": the
    feed-forward down-projection)."""
    return next((k for k in KINDS if f"/{k}/" in name or name.endswith(f"/{k}")), "")


def rewrite(model, scheme="sym", skip=()):
    """The model with each int8-weight MatMul on integer arithmetic (except
    the kinds in skip, which keep float32); returns how many MatMuls were
    rewritten. scheme: "sym" (symmetric per-row scale, uint8 shifted by a
    constant zero point), "sym7" (the same on 7 bits: no 16-bit saturation), "asym" (per-row minimum and maximum, a per-row
    zero point subtracted exactly in int32 through the weight's column
    sums), "s8" (symmetric, int8 x int8)."""
    from onnx import TensorProto, helper, numpy_helper

    g = model.graph
    inits = {i.name: i for i in g.initializer}
    deq = {n.output[0]: n for n in g.node if n.op_type == "DequantizeLinear" and n.input[0] in inits}
    # sym7: activations on 7 bits (-63..63, shifted by 64 into 1..127), so that
    # two products of a uint8 activation and an int8 weight sum within int16
    # (2 x 127 x 127 = 32,258): x86 CPUs without VNNI add them pairwise in 16
    # bits with saturation (VPMADDUBSW); with 8-bit activations they overflow.
    q = 63 if scheme == "sym7" else 127
    # (the constants keep their 8-bit names, "inv127" holding 1/q, so that the
    # shipped graph's bytes stay what this code writes)
    consts = [
        numpy_helper.from_array(np.array(1e-30, np.float32), "int8rows_tiny"),
        numpy_helper.from_array(np.array(1.0 / q, np.float32), "int8rows_inv127"),
        numpy_helper.from_array(np.array(-float(q), np.float32), "int8rows_lo"),
        numpy_helper.from_array(np.array(float(q), np.float32), "int8rows_hi"),
        numpy_helper.from_array(np.array(float(q + 1), np.float32), "int8rows_shift"),
        numpy_helper.from_array(np.array(q + 1, np.uint8), "int8rows_zero"),
        numpy_helper.from_array(np.array([q + 1], np.uint8), "int8rows_zero_1d"),
        numpy_helper.from_array(np.array(0.0, np.float32), "int8rows_zero_f"),
        numpy_helper.from_array(np.array(255.0, np.float32), "int8rows_255"),
        numpy_helper.from_array(np.array(1.0 / 255.0, np.float32), "int8rows_inv255"),
        numpy_helper.from_array(np.array([1], np.int64), "int8rows_axis1"),
        numpy_helper.from_array(np.array([-1], np.int64), "int8rows_axis_last"),
    ]
    out, done, used_deq = [], 0, set()
    for n in g.node:
        if n.op_type == "Gemm" and rowwise_gemm_ok(n):
            out += rowwise_gemm(helper, n)
            continue
        d = deq.get(n.input[1]) if n.op_type == "MatMul" else None
        if d is None or not per_column(d, inits) or kind(n.name) in skip:
            out.append(n)
            continue
        if scheme == "asym":
            colsum = numpy_helper.to_array(inits[d.input[0]]).sum(axis=0, dtype=np.int64).astype(np.int32)
            consts.append(numpy_helper.from_array(colsum, d.input[0] + "_colsum"))
            out += asym_matmul(helper, TensorProto, n, d)
        else:
            k = numpy_helper.to_array(inits[d.input[0]]).shape[0]
            if f"int8rows_rows{k}" not in {c.name for c in consts}:
                consts.append(numpy_helper.from_array(np.array([-1, k], np.int64), f"int8rows_rows{k}"))
            out += row_quantised_matmul(helper, TensorProto, n, d, scheme == "s8", k)
        used_deq.add(d.output[0])
        done += 1
    still = {i for n in out for i in n.input}
    out = [n for n in out if not (n.op_type == "DequantizeLinear" and n.output[0] in used_deq and n.output[0] not in still)]
    del g.node[:]
    g.node.extend(out)
    out, _ = gather_rows_first(helper, TensorProto, g, inits)
    del g.node[:]
    g.node.extend(out)
    g.initializer.extend(consts)
    still = {i for n in out for i in n.input}
    live = [i for i in g.initializer if i.name in still]
    del g.initializer[:]
    g.initializer.extend(live)
    return done


def rowwise_gemm_ok(n):
    """A Gemm y = x W^T + b (alpha = beta = 1, transB = 1, transA = 0): the
    pooler's and the classification head's."""
    at = {a.name: (a.f if a.type == a.FLOAT else a.i) for a in n.attribute}
    return at.get("alpha", 1.0) == 1.0 and at.get("beta", 1.0) == 1.0 and at.get("transA", 0) == 0 and at.get("transB", 0) == 1


def rowwise_gemm(helper, n):
    """Gemm as a product summed one row at a time: y[b, o] =
    ReduceSum(x[b, None, :] * W[o, :]) + bias. ONNX Runtime's float GEMM
    picks its kernel and blocking by the row count (the batch size), which
    moves the last bits of the logits with the batch (3e-7); an elementwise
    product and a reduction over each row do the same arithmetic whatever
    the batch. The head's matrices are small ([384, 384] and [3, 384] for
    the one CLS row of each pair), so this costs little."""
    p = n.name or n.output[0]
    t = lambda s: f"{p}/rows/{s}"  # noqa: E731
    nodes = [
        helper.make_node("Unsqueeze", [n.input[0], "int8rows_axis1"], [t("x")]),
        helper.make_node("Mul", [t("x"), n.input[1]], [t("prod")]),
    ]
    if len(n.input) > 2 and n.input[2]:
        nodes += [
            helper.make_node("ReduceSum", [t("prod"), "int8rows_axis_last"], [t("sum")], keepdims=0),
            helper.make_node("Add", [t("sum"), n.input[2]], [n.output[0]]),
        ]
    else:
        nodes.append(helper.make_node("ReduceSum", [t("prod"), "int8rows_axis_last"], [n.output[0]], keepdims=0))
    return nodes


def per_column(d, inits):
    """A DequantizeLinear of a 2-D int8 weight, symmetric, one scale per
    output column (axis 1)."""
    from onnx import numpy_helper

    q = numpy_helper.to_array(inits[d.input[0]])
    axis = next((a.i for a in d.attribute if a.name == "axis"), 1)
    zero = numpy_helper.to_array(inits[d.input[2]]) if len(d.input) > 2 and d.input[2] in inits else np.zeros(1)
    return q.dtype == np.int8 and q.ndim == 2 and axis == 1 and not zero.any()


def row_quantised_matmul(helper, TensorProto, mm, d, signed, k=0):
    """The nodes that replace MatMul mm (x times the weight d dequantises;
    k: the weight's rows, x's last axis).

    The unsigned schemes quantise with one QuantizeLinear over x seen as
    [tokens, k] with a scale per row (axis 0), and take the row's largest
    magnitude as max(ReduceMax(x), -ReduceMin(x)): the same numbers as
    Abs, ReduceMax, Div, Round (half to even), Clip, Add and Cast, which
    QuantizeLinear does in one pass (x / s rounded half to even, plus the
    zero point; |x / s| <= q by the scale's choice, so the clip never bit).
    Measured bit for bit equal logits, 0.76-0.8x the CPU (BENCHMARKS.md,
    issue 42)."""
    x, y, p = mm.input[0], mm.output[0], mm.name or mm.output[0]
    t = lambda s: f"{p}/int8rows/{s}"  # noqa: E731
    if signed:
        nodes = [
            helper.make_node("Abs", [x], [t("abs")]),
            helper.make_node("ReduceMax", [t("abs")], [t("amax")], axes=[-1], keepdims=1),
            helper.make_node("Max", [t("amax"), "int8rows_tiny"], [t("amax_guarded")]),
            helper.make_node("Mul", [t("amax_guarded"), "int8rows_inv127"], [t("scale")]),
            helper.make_node("Div", [x, t("scale")], [t("scaled")]),
            helper.make_node("Round", [t("scaled")], [t("rounded")]),
            helper.make_node("Clip", [t("rounded"), "int8rows_lo", "int8rows_hi"], [t("clipped")]),
            helper.make_node("Cast", [t("clipped")], [t("q")], to=TensorProto.INT8),
            helper.make_node("MatMulInteger", [t("q"), d.input[0]], [t("acc")]),
        ]
    else:
        nodes = [
            helper.make_node("ReduceMax", [x], [t("max")], axes=[-1], keepdims=1),
            helper.make_node("ReduceMin", [x], [t("min")], axes=[-1], keepdims=1),
            helper.make_node("Neg", [t("min")], [t("neg_min")]),
            helper.make_node("Max", [t("max"), t("neg_min")], [t("amax")]),
            helper.make_node("Max", [t("amax"), "int8rows_tiny"], [t("amax_guarded")]),
            helper.make_node("Mul", [t("amax_guarded"), "int8rows_inv127"], [t("scale")]),
            helper.make_node("Reshape", [x, f"int8rows_rows{k}"], [t("rows")]),
            helper.make_node("Reshape", [t("scale"), "int8rows_axis_last"], [t("row_scale")]),
            helper.make_node("Shape", [t("row_scale")], [t("n")]),
            helper.make_node("Expand", ["int8rows_zero_1d", t("n")], [t("row_zero")]),
            helper.make_node("QuantizeLinear", [t("rows"), t("row_scale"), t("row_zero")], [t("q_rows")], axis=0),
            helper.make_node("Shape", [x], [t("shape")]),
            helper.make_node("Reshape", [t("q_rows"), t("shape")], [t("q")]),
            helper.make_node("MatMulInteger", [t("q"), d.input[0], "int8rows_zero"], [t("acc")]),
        ]
    nodes += [
        helper.make_node("Cast", [t("acc")], [t("acc_f")], to=TensorProto.FLOAT),
        helper.make_node("Mul", [t("acc_f"), d.input[1]], [t("col")]),
        helper.make_node("Mul", [t("col"), t("scale")], [y]),
    ]
    return nodes


def gather_rows_first(helper, TensorProto, g, inits):
    """Each Gather of an embedding table stored int8 with a scale per row
    (DequantizeLinear axis 0, zero point 0) gathers the int8 rows and their
    scales and dequantises only those: Cast(q[ids]) * s[ids], the numbers
    DequantizeLinear gives, without dequantising the whole table (30,522
    rows of the vocabulary) on every run."""
    from onnx import numpy_helper

    deq = {}
    for n in g.node:
        if n.op_type != "DequantizeLinear" or n.input[0] not in inits or n.input[1] not in inits:
            continue
        q = numpy_helper.to_array(inits[n.input[0]])
        axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
        zero = numpy_helper.to_array(inits[n.input[2]]) if len(n.input) > 2 and n.input[2] in inits else np.zeros(1)
        s = numpy_helper.to_array(inits[n.input[1]])
        zero_known = len(n.input) < 3 or not n.input[2] or n.input[2] in inits
        if q.dtype == np.int8 and q.ndim == 2 and axis == 0 and s.shape == (q.shape[0],) and zero_known and not zero.any():
            deq[n.output[0]] = n
    users = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    done = {o for o, n in deq.items() if all(u.op_type == "Gather" and u.input[0] == o and not u.attribute for u in users.get(o, []))}
    out = []
    for n in g.node:
        if n.op_type == "DequantizeLinear" and n.output[0] in done:
            continue
        if n.op_type == "Gather" and n.input[0] in done:
            d, o = deq[n.input[0]], n.output[0]
            out += [
                helper.make_node("Gather", [d.input[0], n.input[1]], [o + "/int8rows/q"]),
                helper.make_node("Gather", [d.input[1], n.input[1]], [o + "/int8rows/s"]),
                helper.make_node("Cast", [o + "/int8rows/q"], [o + "/int8rows/qf"], to=TensorProto.FLOAT),
                helper.make_node("Unsqueeze", [o + "/int8rows/s", "int8rows_axis_last"], [o + "/int8rows/s1"]),
                helper.make_node("Mul", [o + "/int8rows/qf", o + "/int8rows/s1"], [o]),
            ]
            continue
        out.append(n)
    return out, len(done)


def asym_matmul(helper, TensorProto, mm, d):
    """Per-row asymmetric uint8: scale (max - min) / 255 over the row (the
    range widened to hold 0), zero point z = round(-min / scale); the
    product is MatMulInteger(x_q, W_q) - z * colsum(W_q), exact in int32."""
    x, y, p = mm.input[0], mm.output[0], mm.name or mm.output[0]
    t = lambda s: f"{p}/int8rows/{s}"  # noqa: E731
    return [
        helper.make_node("ReduceMax", [x], [t("max")], axes=[-1], keepdims=1),
        helper.make_node("ReduceMin", [x], [t("min")], axes=[-1], keepdims=1),
        helper.make_node("Max", [t("max"), "int8rows_zero_f"], [t("hi")]),
        helper.make_node("Min", [t("min"), "int8rows_zero_f"], [t("lo")]),
        helper.make_node("Sub", [t("hi"), t("lo")], [t("range")]),
        helper.make_node("Max", [t("range"), "int8rows_tiny"], [t("range_guarded")]),
        helper.make_node("Mul", [t("range_guarded"), "int8rows_inv255"], [t("scale")]),
        helper.make_node("Div", [t("lo"), t("scale")], [t("lo_scaled")]),
        helper.make_node("Neg", [t("lo_scaled")], [t("zp_raw")]),
        helper.make_node("Round", [t("zp_raw")], [t("zp")]),
        helper.make_node("Div", [x, t("scale")], [t("scaled")]),
        helper.make_node("Round", [t("scaled")], [t("rounded")]),
        helper.make_node("Add", [t("rounded"), t("zp")], [t("shifted")]),
        helper.make_node("Clip", [t("shifted"), "int8rows_zero_f", "int8rows_255"], [t("clipped")]),
        helper.make_node("Cast", [t("clipped")], [t("q")], to=TensorProto.UINT8),
        helper.make_node("MatMulInteger", [t("q"), d.input[0]], [t("acc")]),
        helper.make_node("Cast", [t("zp")], [t("zp_i")], to=TensorProto.INT32),
        helper.make_node("Mul", [t("zp_i"), d.input[0] + "_colsum"], [t("corr")]),
        helper.make_node("Sub", [t("acc"), t("corr")], [t("acc_c")]),
        helper.make_node("Cast", [t("acc_c")], [t("acc_f")], to=TensorProto.FLOAT),
        helper.make_node("Mul", [t("acc_f"), d.input[1]], [t("col")]),
        helper.make_node("Mul", [t("col"), t("scale")], [y]),
    ]


def main():
    import onnx

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--scheme", choices=["sym", "sym7", "asym", "s8"], default="sym")
    ap.add_argument("--skip", default="", help="comma-separated kinds that keep float32: " + ", ".join(KINDS))
    a = ap.parse_args()
    m = onnx.load(a.src)
    n = rewrite(m, a.scheme, [k for k in a.skip.split(",") if k])
    onnx.checker.check_model(m)
    onnx.save(m, a.dst)
    print(f"{a.dst}: {n} MatMuls on per-row int8 arithmetic", file=sys.stderr)


if __name__ == "__main__":
    main()
