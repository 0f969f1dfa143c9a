"""Time one training step of the cross-encoder (train/ce.py's model, loss and AdamW):
examples per CPU-second of this process and per wall second, for the torch this
Python imports. Synthetic ids of a fixed length (every row full length, no padding).

    python train/bench_step.py --len 128 --batch 16 --steps 3 --threads 2
"""

import argparse
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import torch  # noqa: E402
from transformers import AutoModelForSequenceClassification  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nli  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--len", type=int, default=128)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--warm", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bf16", action="store_true", help="the forward pass under CPU autocast to bfloat16 (weights and optimizer stay float32; torch >= 2 with AMX or AVX-512 BF16)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(nli.encoder_dir("minilm-l6"), num_labels=3)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01)
    g = torch.Generator().manual_seed(1)
    x = {
        "input_ids": torch.randint(1000, 30000, (a.batch, a.len), generator=g),
        "attention_mask": torch.ones(a.batch, a.len, dtype=torch.long),
        "token_type_ids": torch.zeros(a.batch, a.len, dtype=torch.long),
    }
    y = torch.randint(0, 3, (a.batch,), generator=g)

    def step():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            logits = model(**x).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(a.warm):
        step()
    t0, c0 = time.time(), time.process_time()
    for _ in range(a.steps):
        step()
    wall, cpu = time.time() - t0, time.process_time() - c0
    n = a.batch * a.steps
    print(f"torch {torch.__version__}{' bf16' if a.bf16 else ''} len {a.len} batch {a.batch} threads {a.threads}: {n / cpu:.2f} ex/CPU-s, {n / wall:.2f} ex/s wall ({n} examples, {cpu:.1f} CPU-s, {wall:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
