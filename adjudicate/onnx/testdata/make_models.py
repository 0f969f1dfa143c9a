#!/usr/bin/python3
"""Builds the random-weight test models beside the tiny BERT one, for the
shapes of model people export (Debian's python3-torch and python3-onnx; run
with /usr/bin/python3 from the repository root):

    /usr/bin/python3 adjudicate/onnx/testdata/make_models.py

roberta/   RoBERTa-style: inputs input_ids and attention_mask only (no
           token_type_ids), int64; output logits [batch, 3]; the byte-level BPE
           tokenizer.json of the tokenizer package's fixtures; id2label in
           roberta-large-mnli's order.
binary/    a two-label fact checker (MiniCheck / HHEM style): int32 inputs
           input_ids, attention_mask, token_type_ids; its only output is named
           "scores" [batch, 2]; the Unigram (DeBERTa-v3-style) tokenizer.json;
           id2label {0: not_supported, 1: supported}.
badinputs/ a model whose inputs are not a text pair's (pixel_values), with the
           WordPiece tokenizer: the backend must refuse it at load.
Each folder also gets reference.json: fixed random ids and torch's logits.
Everything is seeded: rerunning gives the same files.
"""
import json
import os
import shutil

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
TOK = os.path.join(HERE, "..", "tokenizer", "testdata")
torch.manual_seed(20261123)
MAX_LEN = 128


class Layer(torch.nn.Module):
    def __init__(self, h, heads, ff):
        super().__init__()
        self.h, self.heads = h, heads
        self.qkv = torch.nn.Linear(h, 3 * h)
        self.out = torch.nn.Linear(h, h)
        self.ln1 = torch.nn.LayerNorm(h)
        self.ff1 = torch.nn.Linear(h, ff)
        self.ff2 = torch.nn.Linear(ff, h)
        self.ln2 = torch.nn.LayerNorm(h)

    def forward(self, x, mask):
        b, s, h = x.shape
        d = h // self.heads
        q, k, v = self.qkv(x).split(h, dim=-1)
        q = q.view(b, s, self.heads, d).transpose(1, 2)
        k = k.view(b, s, self.heads, d).transpose(1, 2)
        v = v.view(b, s, self.heads, d).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / (d ** 0.5) + (1.0 - mask[:, None, None, :]) * -10000.0
        att = torch.softmax(scores, dim=-1) @ v
        x = self.ln1(x + self.out(att.transpose(1, 2).reshape(b, s, h)))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class Encoder(torch.nn.Module):
    def __init__(self, vocab, labels, types, h=32, layers=2, heads=4, ff=64):
        super().__init__()
        self.word = torch.nn.Embedding(vocab, h)
        self.pos = torch.nn.Embedding(MAX_LEN, h)
        self.typ = torch.nn.Embedding(2, h) if types else None
        self.ln = torch.nn.LayerNorm(h)
        self.layers = torch.nn.ModuleList([Layer(h, heads, ff) for _ in range(layers)])
        self.cls = torch.nn.Linear(h, labels)

    def encode(self, input_ids, attention_mask, token_type_ids=None):
        ids = input_ids.long()
        x = self.word(ids) + self.pos(torch.arange(ids.shape[1]).unsqueeze(0))
        if self.typ is not None:
            x = x + self.typ(token_type_ids.long())
        x = self.ln(x)
        mask = attention_mask.to(torch.float32)
        for layer in self.layers:
            x = layer(x, mask)
        return self.cls(torch.tanh(x[:, 0]))


class NoTypes(Encoder):
    def forward(self, input_ids, attention_mask):
        return self.encode(input_ids, attention_mask)


class WithTypes(Encoder):
    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.encode(input_ids, attention_mask, token_type_ids)


class Pixels(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3 * 8 * 8, 3)

    def forward(self, pixel_values):
        return self.lin(pixel_values.flatten(1))


def vocab_size(tok):
    t = json.load(open(tok))
    v = t["model"]["vocab"]
    n = len(v)
    return max(n, max(a["id"] for a in t["added_tokens"]) + 1)


def build(name, model, inputs, input_names, output_name, tok, config):
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    model.eval()
    for p in model.parameters():
        torch.nn.init.normal_(p, 0, 0.3)
    axes = {n: {0: "batch", 1: "seq"} for n in input_names}
    if name == "badinputs":
        axes = {"pixel_values": {0: "batch"}}
    axes[output_name] = {0: "batch"}
    torch.onnx.export(model, inputs, os.path.join(out, "model.onnx"), opset_version=14,
                      input_names=input_names, output_names=[output_name], dynamic_axes=axes)
    shutil.copy(tok, os.path.join(out, "tokenizer.json"))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    if name != "badinputs":
        with torch.no_grad():
            logits = model(*inputs)
        with open(os.path.join(out, "reference.json"), "w") as f:
            json.dump({"input_ids": inputs[0].tolist(), "attention_mask": inputs[1].tolist(),
                       "logits": logits.numpy().astype(float).tolist()}, f)
    print("wrote", name, sorted(os.listdir(out)), "params", sum(p.numel() for p in model.parameters()))


def batch(vocab, dtype, n=4, width=12):
    g = torch.Generator().manual_seed(7)
    ids = torch.randint(5, vocab, (n, width), generator=g).to(dtype)
    mask = torch.ones(n, width, dtype=dtype)
    for r in range(n):
        mask[r, width - r * 2:] = 0  # ragged rows: padding must not matter
        ids[r, width - r * 2:] = 1
    return ids, mask


bpe = os.path.join(TOK, "bpe.json")
v = vocab_size(bpe)
ids, mask = batch(v, torch.int64)
build("roberta", NoTypes(v, 3, False), (ids, mask), ["input_ids", "attention_mask"], "logits", bpe,
      {"model_type": "roberta", "max_position_embeddings": MAX_LEN,
       "id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}})

uni = os.path.join(TOK, "unigram.json")
v = vocab_size(uni)
ids, mask = batch(v, torch.int32)
types = torch.zeros_like(ids)
build("binary", WithTypes(v, 2, True), (ids, mask, types), ["input_ids", "attention_mask", "token_type_ids"], "scores", uni,
      {"model_type": "deberta-v2", "max_position_embeddings": MAX_LEN,
       "id2label": {"0": "not_supported", "1": "supported"}})

build("badinputs", Pixels(), (torch.zeros(1, 3, 8, 8),), ["pixel_values"], "logits",
      os.path.join(TOK, "wordpiece.json"),
      {"model_type": "vit", "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"}})
