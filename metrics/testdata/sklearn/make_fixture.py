#!/usr/bin/python3
"""Reference values for metrics/sklearn_test.go, computed with scikit-learn.

Run with Debian's Python and scikit-learn (apt-get install python3-sklearn):

    /usr/bin/python3 metrics/testdata/sklearn/make_fixture.py

It writes outcomes.json (the inputs) and expected.json (the values) beside
itself. The Go test compares against the committed files; CI needs no Python.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.calibration import calibration_curve
from sklearn.metrics import (accuracy_score, confusion_matrix, f1_score, log_loss,
                             precision_score, recall_score)

rng = np.random.default_rng(20261122)
n = 600
true_logits = rng.normal(0, 1.5, size=(n, 3))
p_true = np.exp(true_logits) / np.exp(true_logits).sum(axis=1, keepdims=True)
gold = np.array([rng.choice(3, p=p) for p in p_true])
logits = 1.8 * true_logits + rng.normal(0, 0.3, size=(n, 3))  # over-confident, noisy
gold_known = rng.random(n) > 0.1  # 10% without a gold label
abstained = rng.random(n) < 0.15
logits = np.round(logits, 6)  # what goes in the JSON is what both sides use

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "outcomes.json"), "w") as f:
    json.dump([{"gold": int(g) if k else -1, "abstained": bool(a), "logits": [float(x) for x in z]}
               for g, k, a, z in zip(gold, gold_known, abstained, logits)], f, indent=0)

z = logits - logits.max(axis=1, keepdims=True)
probs = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
pred = probs.argmax(axis=1)
mask = gold_known & ~abstained  # answered, labelled
y, yp, p = gold[mask], pred[mask], probs[mask]
conf = p.max(axis=1)
correct = (yp == y).astype(int)

prob_true, prob_pred = calibration_curve(correct, conf, n_bins=10, strategy="uniform")
bins = np.linspace(0.0, 1.0, 11)
binids = np.searchsorted(bins[1:-1], conf)
counts = np.bincount(binids, minlength=10)
nonempty = counts[counts > 0]
ece = float(np.sum(nonempty / len(conf) * np.abs(prob_true - prob_pred)))
onehot = np.eye(3)[y]

expected = {
    "sklearn_version": sklearn.__version__,
    "confusion_matrix": confusion_matrix(y, yp, labels=[0, 1, 2]).tolist(),
    "accuracy": accuracy_score(y, yp),
    "precision": precision_score(y, yp, labels=[0, 1, 2], average=None, zero_division=0).tolist(),
    "recall": recall_score(y, yp, labels=[0, 1, 2], average=None, zero_division=0).tolist(),
    "f1": f1_score(y, yp, labels=[0, 1, 2], average=None, zero_division=0).tolist(),
    "macro_f1": f1_score(y, yp, labels=[0, 1, 2], average="macro", zero_division=0),
    "log_loss": log_loss(y, p, labels=[0, 1, 2]),
    "calibration_prob_true": prob_true.tolist(),
    "calibration_prob_pred": prob_pred.tolist(),
    "calibration_counts": nonempty.tolist(),
    "ece_10": ece,
    "brier_multiclass": float(np.mean(np.sum((p - onehot) ** 2, axis=1))),
    "n": int(n),
    "answered_labelled": int(mask.sum()),
}
with open(os.path.join(here, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
print(json.dumps({k: expected[k] for k in ("accuracy", "macro_f1", "log_loss", "ece_10")}))
