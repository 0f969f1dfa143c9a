#!/usr/bin/python3
"""Builds the tiny random-weight NLI cross-encoder the onnx backend tests run.

Debian's packages are enough (apt-get install python3-torch python3-onnx); run it
with /usr/bin/python3 from the repository root:

    /usr/bin/python3 adjudicate/onnx/testdata/make_tiny.py

It writes, into adjudicate/onnx/testdata/tiny/:
  model.onnx       a 2-layer BERT-style pair classifier (hidden 64, random weights,
                   opset 14, dynamic batch and sequence axes; inputs input_ids,
                   attention_mask, token_type_ids (int64); output logits [batch, 3])
  tokenizer.json   a Hugging Face WordPiece tokenizer (BERT normaliser and
                   pre-tokeniser, [CLS] A [SEP] B [SEP] template)
  config.json      id2label in MNLI's order with upper-case names, so the backend's
                   label mapping is exercised
  reference.json   pairs, their token ids from an independent WordPiece
                   implementation (below), and torch's logits for them
Everything is seeded: rerunning gives the same files.
"""
import json
import os
import unicodedata

import numpy as np
import torch

torch.manual_seed(20261122)
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny")
os.makedirs(HERE, exist_ok=True)

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = """the a an of in on at to and or is was were be been has have had not no it its
this that with for by from as are rail carried million passengers passenger 2023 2022 lake deep
metres metre average depth city founded university students staff employed revenue rose fell
meridian orrin bridge spans completed film released horror comedy""".split()
CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789")
PUNCT = list(".,;:!?'\"()-%$")
vocab = SPECIAL + WORDS + CHARS + ["##" + c for c in CHARS] + PUNCT
vocab = list(dict.fromkeys(vocab))
ids = {t: i for i, t in enumerate(vocab)}
MAX_LEN = 256


# An independent WordPiece tokenizer, as BERT's: clean, lower-case, strip
# accents, split on white space and punctuation, greedy longest-match pieces.
def basic_tokens(text):
    text = "".join(" " if unicodedata.category(c).startswith("C") and c not in "\t\n\r" else c for c in text)
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    out = []
    for word in text.split():
        cur = ""
        for c in word:
            cat = unicodedata.category(c)
            if cat.startswith("P") or (33 <= ord(c) <= 47) or (58 <= ord(c) <= 64) or (91 <= ord(c) <= 96) or (123 <= ord(c) <= 126):
                if cur:
                    out.append(cur)
                    cur = ""
                out.append(c)
            else:
                cur += c
        if cur:
            out.append(cur)
    return out


def wordpiece(token):
    pieces, start = [], 0
    while start < len(token):
        end, found = len(token), None
        while start < end:
            sub = token[start:end] if start == 0 else "##" + token[start:end]
            if sub in ids:
                found = sub
                break
            end -= 1
        if found is None:
            return ["[UNK]"]
        pieces.append(found)
        start = end
    return pieces


def encode_pair(a, b):
    ta = [p for t in basic_tokens(a) for p in wordpiece(t)]
    tb = [p for t in basic_tokens(b) for p in wordpiece(t)]
    toks = ["[CLS]"] + ta + ["[SEP]"] + tb + ["[SEP]"]
    types = [0] * (len(ta) + 2) + [1] * (len(tb) + 1)
    return [ids[t] for t in toks], types


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


class PairClassifier(torch.nn.Module):
    def __init__(self, vocab_size, h=64, layers=2, heads=4, ff=128, max_len=MAX_LEN):
        super().__init__()
        self.word = torch.nn.Embedding(vocab_size, h)
        self.pos = torch.nn.Embedding(max_len, h)
        self.typ = torch.nn.Embedding(2, h)
        self.ln = torch.nn.LayerNorm(h)
        self.layers = torch.nn.ModuleList([Layer(h, heads, ff) for _ in range(layers)])
        self.cls = torch.nn.Linear(h, 3)

    def forward(self, input_ids, attention_mask, token_type_ids):
        pos = torch.arange(input_ids.shape[1]).unsqueeze(0)
        x = self.ln(self.word(input_ids) + self.pos(pos) + self.typ(token_type_ids))
        mask = attention_mask.to(torch.float32)
        for layer in self.layers:
            x = layer(x, mask)
        return self.cls(torch.tanh(x[:, 0]))


model = PairClassifier(len(vocab)).eval()
for p in model.parameters():  # larger random weights: logits that differ visibly between inputs
    torch.nn.init.normal_(p, 0, 0.3)

pairs = [
    ["Meridian Rail carried 48.2 million passengers in 2023.", "Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022."],
    ["Lake Orrin is 18 metres deep.", "The average depth of Lake Orrin is 18 metres."],
    ["The film was released in 2022.", "The bridge was completed in 1932 and spans 503 metres."],
    ["Café Lumière opened in Saint-Étienne.", "Naïve façade, résumé!"],
    ["It was not founded in 1898.", ""],
    ["Xylophone zebras quizzically vex jumbo wharves.", "UNKNOWN ★ symbols ☃ here"],
]
encoded = [encode_pair(a, b) for a, b in pairs]
width = max(len(i) for i, _ in encoded)
input_ids = torch.zeros(len(pairs), width, dtype=torch.int64)
type_ids = torch.zeros(len(pairs), width, dtype=torch.int64)
attn = torch.zeros(len(pairs), width, dtype=torch.int64)
for r, (i, t) in enumerate(encoded):
    input_ids[r, : len(i)] = torch.tensor(i)
    type_ids[r, : len(t)] = torch.tensor(t)
    attn[r, : len(i)] = 1
with torch.no_grad():
    logits = model(input_ids, attn, type_ids)

torch.onnx.export(model, (input_ids, attn, type_ids), os.path.join(HERE, "model.onnx"), opset_version=14,
                  input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                  dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                                "token_type_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}})

tokenizer = {
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                      "normalized": False, "special": True} for t in SPECIAL],
    "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {"type": "TemplateProcessing",
                       "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                       "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                                {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                       "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ["[CLS]", "[SEP]"]}},
    "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": ids},
}
with open(os.path.join(HERE, "tokenizer.json"), "w") as f:
    json.dump(tokenizer, f, indent=1, ensure_ascii=False)
with open(os.path.join(HERE, "config.json"), "w") as f:
    json.dump({"model_type": "bert", "max_position_embeddings": MAX_LEN,
               "id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}}, f, indent=1)
with open(os.path.join(HERE, "reference.json"), "w") as f:
    json.dump({"pairs": pairs, "input_ids": [i for i, _ in encoded], "token_type_ids": [t for _, t in encoded],
               "logits": logits.numpy().astype(float).tolist()}, f, indent=1, ensure_ascii=False)
print("wrote", sorted(os.listdir(HERE)), "params", sum(p.numel() for p in model.parameters()))
