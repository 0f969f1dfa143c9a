#!/usr/bin/env python3
"""Builds a DeBERTa-base-sized random-weight NLI cross-encoder for GPU benchmarks.

Run on a machine with an NVIDIA GPU and PyTorch (the device machines' Python has
torch with CUDA). Writes OUT/model.onnx, tokenizer.json and config.json in the layout
the onnx verifier loads, then measures pairs/s of the same model in PyTorch on CUDA:

    python3 bench/gpu/make_base_model.py OUT [--batch 32] [--seq 128]

The encoder is BERT-style at DeBERTa-base size (12 layers, hidden 768, 12 heads,
FFN 3072, ~86M encoder parameters): random weights time like trained ones.
"""
import argparse
import json
import os
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--batch", type=int, default=32)
p.add_argument("--seq", type=int, default=128)
p.add_argument("--iters", type=int, default=50)
a = p.parse_args()
os.makedirs(a.out, exist_ok=True)
torch.manual_seed(0)

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [chr(c) for c in range(97, 123)] + ["##" + chr(c) for c in range(97, 123)]
VOCAB += [f"w{i}" for i in range(30000 - len(VOCAB))]


class PairClassifier(torch.nn.Module):
    def __init__(self, h=768, layers=12, heads=12, ff=3072, max_len=512):
        super().__init__()
        self.word = torch.nn.Embedding(len(VOCAB), h)
        self.pos = torch.nn.Embedding(max_len, h)
        self.typ = torch.nn.Embedding(2, h)
        self.ln = torch.nn.LayerNorm(h)
        layer = torch.nn.TransformerEncoderLayer(h, heads, ff, dropout=0.0, activation="gelu", batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.cls = torch.nn.Linear(h, 3)

    def forward(self, input_ids, attention_mask, token_type_ids):
        pos = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.ln(self.word(input_ids) + self.pos(pos) + self.typ(token_type_ids))
        x = self.enc(x, src_key_padding_mask=attention_mask == 0)
        return self.cls(x[:, 0])


model = PairClassifier().eval()
ids = torch.randint(5, len(VOCAB), (a.batch, a.seq))
mask = torch.ones_like(ids)
types = torch.zeros_like(ids)
torch.onnx.export(model, (ids, mask, types), os.path.join(a.out, "model.onnx"), opset_version=17,
                  input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                  dynamic_axes={n: {0: "batch", 1: "seq"} for n in ["input_ids", "attention_mask", "token_type_ids"]} | {"logits": {0: "batch"}})
tok = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
       "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
       "pre_tokenizer": {"type": "BertPreTokenizer"},
       "post_processor": {"type": "TemplateProcessing",
                          "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                          "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                                   {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                          "special_tokens": {t: {"id": t, "ids": [VOCAB.index(t)], "tokens": [t]} for t in ["[CLS]", "[SEP]"]}},
       "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
       "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                 "vocab": {t: i for i, t in enumerate(VOCAB)}}}
json.dump(tok, open(os.path.join(a.out, "tokenizer.json"), "w"))
json.dump({"model_type": "bert", "max_position_embeddings": 512, "id2label": {"0": "contradiction", "1": "neutral", "2": "entailment"}},
          open(os.path.join(a.out, "config.json"), "w"))

if torch.cuda.is_available():
    m = model.cuda().half()
    x = [t.cuda() for t in (ids, mask, types)]
    with torch.no_grad():
        for _ in range(5):
            m(*x)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.iters):
            m(*x)
        torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"pytorch fp16 cuda: batch {a.batch} seq {a.seq}: {a.batch * a.iters / dt:.0f} pairs/s")
else:
    print("no CUDA device: wrote the model only")
