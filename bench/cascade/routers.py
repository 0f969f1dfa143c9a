"""Which claims should the cascade send to the model? Routers beyond the band, weighed
leave one set out on the runs of `make cascade-fit` (bench/cascade/fit.sh).

For each real set it reads the lexical run and the model run (`audit export --format
jsonl`), joins them by claim id and, for every held-out set, fits each router on the other
sets exactly as `audit cascade fit` fits the band (the fewest claims sent, mean over the
training sets, while the cascade's binary balanced accuracy stays >= the model's alone -
FIT_TOL on every training set), then measures it on the held-out set. Routers:

  band       p(supported) of the lexical verifier in (low, high): the shipped router
  margin     send when the lexical verifier's top-two probability margin is below t
  disagree   logistic regression on the lexical verifier's claim-level features
             (probabilities, margin, term coverage, the top passage's BM25 score, its label,
             the number / year / entity / negation / hedge / antonym checks of its rationale)
             predicting that the model's label differs from the lexical one; send above t
  lexwrong   the same features predicting that the lexical label is wrong
  better     the same features predicting that the model is right where the lexical verifier
             is wrong (balanced-accuracy weights), times P(disagree); send above t

Usage: python bench/cascade/routers.py AUDIT_BIN WORK [FIT_TOL ...]
(WORK: .cache/cascade-fit/<model>; needs numpy: the model environment, make model-env)
"""
import json, math, re, subprocess, sys

import numpy as np

SETS = ["sufficient_facts", "fm2", "citint_train", "checkcovid_train"]
TAGS = ["several years and none claimed", "negation differs", "the claimed entity is absent",
        "the number agrees", "the number differs", "the year agrees", "the claim hedges",
        "no number to compare", "the year differs", "an antonym crosses"]


def probs(r):
    z = [r["logit_supported"], r["logit_unsupported"], r["logit_insufficient"]]
    m = max(z)
    e = [math.exp(x - m) for x in z]
    return [x / sum(e) for x in e]


def records(audit, run):
    out = subprocess.run([audit, "export", run, "--format", "jsonl"], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def features(r, p):
    top = sorted(p, reverse=True)
    rat = r["rationale"] or ""
    cov = re.search(r"covers (\d+)%", rat)
    tags = rat.split("; ")[1:]
    ev = r["evidence"] or []
    lab = p.index(max(p))
    return [1, p[0], p[1], p[2], top[0] - top[1], int(cov.group(1)) / 100 if cov else 0, cov is None,
            math.log1p(ev[0]["score"] if ev else 0) / 4, lab == 0, lab == 1, p[0] ** 2, p[1] ** 2] + [t in tags for t in TAGS]


def load(audit, work, s):
    lex = {r["claim_id"]: r for r in records(audit, f"{work}/lexical-{s}")}
    g, l, m, X = [], [], [], []
    for r in records(audit, f"{work}/model-{s}"):
        x = lex.get(r["claim_id"])
        if x is None or r["gold_label"] is None or r["logit_supported"] is None or x["logit_supported"] is None:
            continue
        pl, pm = probs(x), probs(r)
        g.append(r["gold_label"] == "supported")
        l.append(pl.index(max(pl)) == 0)
        m.append(pm.index(max(pm)) == 0)
        X.append(features(x, pl))
    X = np.array(X, dtype=float)
    return dict(g=np.array(g), l=np.array(l), m=np.array(m), X=X, ps=X[:, 1], margin=X[:, 4])


def bal(g, says):
    return np.mean([(says[g == v] == v).mean() for v in (True, False) if (g == v).any()])


def cascade(S, send):
    return bal(S["g"], np.where(send, S["m"], S["l"]))


def keeps(S, send, tol):
    return cascade(S, send) >= bal(S["g"], S["m"]) - tol


def fit_threshold(train, scores, tol):
    """Send when score > t: the largest t (fewest sent) that keeps every training set."""
    q = np.unique(np.sort(np.concatenate(scores))[:: max(1, sum(map(len, scores)) // 400)])
    for t in np.concatenate([[np.inf], (q[1:] + q[:-1])[::-1] / 2, [-np.inf]]):
        if all(keeps(S, sc > t, tol) for S, sc in zip(train, scores)):
            return t
    return -np.inf


def fit_band(train, tol):
    p = np.sort(np.concatenate([S["ps"] for S in train]))
    step = max(1, len(p) // 200)
    q = [-1] + [(p[i] + p[i - 1]) / 2 for i in range(step, len(p), step) if p[i] > p[i - 1]] + [2]
    best, band = np.inf, (-1, 2)
    for i, lo in enumerate(q):
        for hi in q[i:]:
            sends = [(S["ps"] > lo) & (S["ps"] < hi) for S in train]
            sent = np.mean([x.mean() for x in sends])
            if sent < best and all(keeps(S, x, tol) for S, x in zip(train, sends)):
                best, band = sent, (lo, hi)
    return band


def logreg(X, y, w=None, l2=1e-2, steps=50):
    w = np.ones(len(y)) if w is None else w
    mu, sd = X[:, 1:].mean(0), X[:, 1:].std(0) + 1e-9
    z = lambda A: np.c_[A[:, :1], (A[:, 1:] - mu) / sd]
    Z, b = z(X), np.zeros(X.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-Z @ b))
        grad = Z.T @ ((p - y) * w) / w.sum() + l2 * np.r_[0, b[1:]]
        hess = (Z.T * (p * (1 - p) * w)) @ Z / w.sum() + l2 * np.eye(len(b))
        b -= np.linalg.solve(hess, grad)
    return lambda A: 1 / (1 + np.exp(-z(A) @ b))


def scored(train, S, tol, score_of):
    f = score_of(train)
    t = fit_threshold(train, [f(T["X"]) for T in train], tol)
    return f(S["X"]) > t


def stack(train, key):
    return np.concatenate([key(T) for T in train]).astype(float)


def better(train):
    X = np.vstack([T["X"] for T in train])
    w = stack(train, lambda T: np.where(T["g"], 1 / T["g"].mean(), 1 / (1 - T["g"].mean())) / len(T["g"]))
    gain = stack(train, lambda T: (T["m"] == T["g"]).astype(float) - (T["l"] == T["g"]))
    k = gain != 0
    fb = logreg(X[k], (gain[k] > 0).astype(float), w[k] / w[k].mean())
    fd = logreg(X, stack(train, lambda T: T["l"] != T["m"]))
    return lambda A: fb(A) * fd(A)


ROUTERS = {
    "band": lambda tr, S, tol: (lambda b: (S["ps"] > b[0]) & (S["ps"] < b[1]))(fit_band(tr, tol)),
    "margin": lambda tr, S, tol: scored(tr, S, tol, lambda _: lambda A: -A[:, 4]),
    "disagree": lambda tr, S, tol: scored(tr, S, tol, lambda tr: logreg(np.vstack([T["X"] for T in tr]), stack(tr, lambda T: T["l"] != T["m"]))),
    "lexwrong": lambda tr, S, tol: scored(tr, S, tol, lambda tr: logreg(np.vstack([T["X"] for T in tr]), stack(tr, lambda T: T["l"] != T["g"]))),
    "better": lambda tr, S, tol: scored(tr, S, tol, better),
}


def main():
    audit, work = sys.argv[1], sys.argv[2]
    tols = [float(x) for x in sys.argv[3:]] or [0.005]
    D = {s: load(audit, work, s) for s in SETS}
    print("| fit tolerance | router | " + " | ".join(f"{s}: cascade − model, sent" for s in SETS) + " | worst | mean sent |")
    print("|---|---|" + "---|" * (len(SETS) + 2))
    for tol in tols:
        for name, route in ROUTERS.items():
            cells, worst, sent = [], 1.0, []
            for s in SETS:
                S = D[s]
                send = route([D[x] for x in SETS if x != s], S, tol)
                d = cascade(S, send) - bal(S["g"], S["m"])
                cells.append(f"{d:+.4f}, {send.mean():.3f}")
                worst, sent = min(worst, d), sent + [send.mean()]
            print(f"| {tol:g} | {name} | " + " | ".join(cells) + f" | {worst:+.4f} | {np.mean(sent):.3f} |")


if __name__ == "__main__":
    main()
