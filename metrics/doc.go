// Package metrics owns pure functions over claim outcomes: counts, coverage,
// the 3×3 confusion matrix, tiered false-accept rates, baselines, calibration
// error (ECE variants, reliability bins, Brier, NLL), cross-fitted
// temperature scaling, risk–coverage and AURC, slices and seeded bootstrap
// intervals. The definitions are those of DESIGN.md "Metrics"; it imports
// nothing of ours.
//
// An Outcome is what a record reduces to: claim id, gold label (or
// Unknown), the decision (a class, or abstained), the three raw logits,
// claim type, source, importance and latency. Functions take a temperature
// t and see probabilities softmax(z/t); t = 1 is the raw stage. The
// calibrated stage is Evaluate at t = 1 over Scaled(outcomes, temps), each
// claim divided by its own temperature.
//
// Undefined is NaN: a value whose denominator is 0, or that needs gold
// labels that are absent, is NaN here and null in every file (Undefined
// says why). Never 0.
//
// Choices where DESIGN.md is silent, so that every number has one meaning:
//
//   - Gold-based rates count only claims with a gold label: "answered" in
//     tier-1/2 FA, accuracy and selective risk is answered-and-labelled,
//     "n" in the unconditional FA rates is labelled. n, answered,
//     abstained, coverage, abstain_rate and pass_rate count every claim.
//   - Per-class precision, recall and F1 are over the confusion matrix of
//     answered, labelled claims; precision is undefined when k was never
//     predicted, recall when k is never gold, F1 = 2TP/(2TP+FP+FN) when k
//     is neither. macro_f1 averages F1 over the classes present as gold or
//     prediction (scikit-learn's f1_score, average="macro", default labels).
//   - Baselines, over the same answered, labelled claims as accuracy:
//     majority_accuracy and majority_macro_f1 are accuracy and macro-F1 of
//     always predicting the most frequent gold label (ties: supported,
//     unsupported, insufficient in that order); balanced_accuracy is the
//     mean recall over the gold classes present (balanced_accuracy_score);
//     cohen_kappa is (p_o − p_e)/(1 − p_e), undefined when p_e = 1
//     (cohen_kappa_score). The binary view of LLM-AggreFact and MiniCheck
//     is supported against not (unsupported or insufficient):
//     binary_balanced_accuracy is its balanced accuracy, binary_auc the ROC
//     AUC of p(supported) — by definition equal to auc_supported.
//     auc_<label> is the one-vs-rest ROC AUC of p_label (roc_auc_score,
//     ties count one half), undefined unless both sides occur.
//   - Runs without gold: pred_count_<label> counts answered claims
//     predicted label (labelled or not); pred_rate_<label> divides by
//     answered; mean_confidence is the mean top probability of answered
//     claims.
//   - degenerate_verifier is 1 when one predicted label covers at least 95%
//     of answered claims (at least 100 answered), or when accuracy is at or below the upper end of
//     majority_accuracy's 95% bootstrap interval (the verifier does not
//     beat "always the majority label"); 0 when neither; null when nothing
//     was answered, or when the first test passes and there is no gold
//     for the second. It is a flag: no interval. Seed 004's narrower flags
//     (over 100 answered: > 99% supported, > 50% unsupported) stay in
//     summary.json's calibration_bounds.
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
//     in log(1/T). A fit that ends on a bound is flagged (AtBound), never
//     silent. CrossFit splits those claims into K folds (default 5) by
//     FoldOf(claim id, seed, K) — FNV-1a of the seed and id, finalised by
//     splitmix64, mod K — so the split needs no shared state and `audit
//     report` recomputes it from records; fold f's claims get the T fitted
//     on the other folds, claims without gold the T fitted on all
//     (CrossFitResult.Full, the one to reuse). Nothing is fitted below
//     DefaultMinCalibration (100) labelled claims: then each fold's T rests
//     on at least 80 claims and the 10-bin ECE sees about 10 a bin; below
//     that the fit is noise, and a handful of separable claims drive T to
//     its floor. Scaling by T > 0 never changes an argmax, only confidence.
//     "auto" applies the cross-fitted temperatures when the raw 10-bin ECE
//     exceeds the threshold (an undefined ECE never does).
//   - Seed 002 verdicts: predicted supported with p > 0.8 → supported, else
//     weak; unsupported → contradicted; insufficient or abstained →
//     not_found. Claims without an importance count as non-minor;
//     evidence_coverage and unsupported_rate are undefined without
//     non-minor claims (the gates' pass then rests on the other two tests).
//   - Bootstrap intervals (percentile, 95%, 1,000 resamples) resample cells
//     of (gold, decision, confidence rounded to 0.001) from a multinomial;
//     resample b is seeded by (seed, b), so intervals do not depend on the
//     number of workers. The AUCs resample cells of (gold = k, p_k rounded
//     to 0.005) from streams of their own, and are shifted by the exact AUC
//     minus the AUC of the unresampled cells. A resample in which a metric
//     is undefined is left out of its percentiles; an undefined metric has
//     no interval. Point estimates always come from the exact data.
//   - Latency percentiles interpolate linearly (numpy's default); undefined
//     when no latency was measured.
package metrics
