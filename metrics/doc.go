// Package metrics owns pure functions over claim outcomes: counts, coverage,
// the 3×3 confusion matrix, tiered false-accept rates, calibration error
// (ECE variants, reliability bins, Brier, NLL), temperature scaling,
// risk–coverage and AURC, slices and seeded bootstrap intervals. The
// definitions are those of DESIGN.md "Metrics"; it imports nothing of ours.
//
// An Outcome is what a record reduces to: gold label (or Unknown), the
// decision (a class, or abstained), the three raw logits, claim type,
// source, importance and latency. Functions take a temperature t and see
// probabilities softmax(z/t); t = 1 is the raw stage.
//
// Choices where DESIGN.md is silent, so that every number has one meaning:
//
//   - Gold-based rates count only claims with a gold label: "answered" in
//     tier-1/2 FA, accuracy and selective risk is answered-and-labelled,
//     "n" in the unconditional FA rates is labelled. n, answered,
//     abstained, coverage, abstain_rate and pass_rate count every claim.
//   - Per-class precision/recall/F1 and macro-F1 are over the confusion
//     matrix of answered claims, all three classes always (scikit-learn's
//     labels=[0,1,2], zero_division=0).
//   - pass_rate (seed 004) = predicted supported ÷ n: an abstention does not
//     pass. false_positive_rate = gold unsupported predicted supported ÷ all
//     gold unsupported (an abstention is not a false positive);
//     false_negative_rate likewise for gold supported predicted unsupported.
//   - Calibration (ECE, bins, classwise ECE, MCE, Brier, NLL) is measured on
//     answered, labelled claims. Equal-width bins are (lo, hi] with 0 in the
//     first, settled against the exact edges i/n. Equal-mass bins cut the
//     claims sorted by confidence (ties by input order) into n groups whose
//     sizes differ by at most one. Brier is the multi-class sum form (0–2).
//     NLL comes from log-softmax of the logits, so it needs no clipping.
//   - Risk–coverage is over answered, labelled claims; AURC is the mean over
//     claims of the risk where each enters (equal confidences enter
//     together); E-AURC subtracts the AURC of the perfect ordering.
//   - Temperature: T in [0.05, 20] minimising mean NLL over labelled claims
//     with logits (answered or not), by 40 bisection steps on the gradient
//     in log(1/T); with "auto" it is applied when the raw 10-bin ECE exceeds
//     the threshold, and the "after" numbers come from 5-fold cross-fitting
//     (seeded folds) or from a given held-out split.
//   - Seed 002 verdicts: predicted supported with p > 0.8 → supported, else
//     weak; unsupported → contradicted; insufficient or abstained →
//     not_found. Claims without an importance count as non-minor.
//   - Bootstrap intervals (percentile, 95%, 1,000 resamples) resample cells
//     of (gold, decision, confidence rounded to 0.001) from a multinomial;
//     resample b is seeded by (seed, b), so intervals do not depend on the
//     number of workers. Point estimates always come from the exact data.
//   - Latency percentiles interpolate linearly (numpy's default); NaN when
//     no latency was measured.
package metrics
