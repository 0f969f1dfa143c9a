#!/usr/bin/python3
"""Reference values for metrics/sklearn_test.go, computed with scikit-learn.

Run with Debian's Python and scikit-learn (apt-get install python3-sklearn):

    /usr/bin/python3 metrics/testdata/sklearn/make_fixture.py

It writes outcomes.json (the inputs), cases.json (small outcome sets where
some metrics are undefined) and expected.json (the values) beside itself.
The Go test compares against the committed files; CI needs no Python.

Undefined values are null. scikit-learn 1.2 substitutes zero_division for
an undefined precision, recall or F1: a value that changes between
zero_division=0 and zero_division=1 is undefined. roc_auc_score raises for
a single gold class and cohen_kappa_score returns NaN when chance agreement
is 1: both are null.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.calibration import calibration_curve
from sklearn.metrics import (accuracy_score, balanced_accuracy_score, cohen_kappa_score,
                             confusion_matrix, f1_score, log_loss, precision_score,
                             recall_score, roc_auc_score)

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



def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)


def defined(fn, y, yp):
    """Per-class values, None where zero_division was substituted."""
    a = fn(y, yp, labels=[0, 1, 2], average=None, zero_division=0)
    b = fn(y, yp, labels=[0, 1, 2], average=None, zero_division=1)
    return [float(x) if x == w else None for x, w in zip(a, b)]


def auc(pos, score):
    try:
        return float(roc_auc_score(pos, score))
    except ValueError:  # one class only
        return None


def baselines(gold, abstained, logits):
    """The metrics added with the baselines, over answered, labelled claims."""
    probs = softmax(np.asarray(logits, dtype=float))
    gold, abstained = np.asarray(gold), np.asarray(abstained)
    mask = (gold >= 0) & ~abstained
    y, p = gold[mask], probs[mask]
    yp = p.argmax(axis=1)
    maj = np.full_like(y, np.bincount(y, minlength=3).argmax())  # ties: lowest class
    kappa = cohen_kappa_score(y, yp)
    return {
        "accuracy": accuracy_score(y, yp),
        "macro_f1": f1_score(y, yp, average="macro"),  # labels present in y or yp
        "precision": defined(precision_score, y, yp),
        "recall": defined(recall_score, y, yp),
        "f1": defined(f1_score, y, yp),
        "balanced_accuracy": balanced_accuracy_score(y, yp),
        "cohen_kappa": None if np.isnan(kappa) else float(kappa),
        "majority_accuracy": accuracy_score(y, maj),
        "majority_macro_f1": f1_score(y, maj, average="macro"),
        "binary_balanced_accuracy": balanced_accuracy_score(y != 0, yp != 0),
        "binary_auc": auc(y == 0, p[:, 0]),
        "auc_ovr": [auc(y == k, p[:, k]) for k in range(3)],
    }


# Small sets where something is undefined.
case_rng = np.random.default_rng(7)
cases = {}
# Gold is always insufficient: AUCs, recall of the other classes undefined.
cases["one_gold_class"] = [{"gold": 2, "abstained": False, "logits": [float(x) for x in np.round(case_rng.normal(0, 1.5, 3), 6)]} for _ in range(40)]
# A degenerate verifier: always insufficient, on 70% insufficient gold.
cases["degenerate"] = [{"gold": int(g), "abstained": False, "logits": [0.0, 0.0, float(np.round(1 + case_rng.random(), 6))]}
                       for g in case_rng.choice(3, size=60, p=[0.2, 0.1, 0.7])]
# Gold and predictions all supported: kappa's chance agreement is 1.
cases["all_agree"] = [{"gold": 0, "abstained": False, "logits": [float(np.round(2 + case_rng.random(), 6)), 0.0, 0.0]} for _ in range(10)]
with open(os.path.join(here, "cases.json"), "w") as f:
    json.dump(cases, f, indent=0)

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
    "macro_f1": f1_score(y, yp, average="macro"),
    "log_loss": log_loss(y, p, labels=[0, 1, 2]),
    "calibration_prob_true": prob_true.tolist(),
    "calibration_prob_pred": prob_pred.tolist(),
    "calibration_counts": nonempty.tolist(),
    "ece_10": ece,
    "brier_multiclass": float(np.mean(np.sum((p - onehot) ** 2, axis=1))),
    "n": int(n),
    "answered_labelled": int(mask.sum()),
    "baselines": baselines(np.where(gold_known, gold, -1), abstained, logits),
    "cases": {name: baselines([o["gold"] for o in c], [o["abstained"] for o in c], [o["logits"] for o in c])
              for name, c in cases.items()},
}
with open(os.path.join(here, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
print(json.dumps({k: expected[k] for k in ("accuracy", "macro_f1", "log_loss", "ece_10")}))
print(json.dumps(expected["cases"], indent=1))
