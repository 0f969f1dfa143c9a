// Package estimate turns a small sample of human labels plus a verifier's
// predictions on every claim into estimates with valid confidence
// intervals: prediction-powered inference with power tuning (PPI++,
// Angelopoulos, Duchi and Zrnic 2023) under the sampling design that drew
// the sample (simple random, stratified, or Poisson "active" sampling with
// unequal inclusion probabilities, Zrnic and Candès 2024), for means and
// for ratios of means (delta method). It also draws those samples and
// measures agreement between reviewers (Cohen's κ, Krippendorff's α).
//
// Everything here is a pure function of its arguments (random draws take
// a seeded *rand.Rand); reading queues and answers, and writing reports,
// belong to the review and reports packages. docs/review.md states the
// estimators and why their intervals are valid.
package estimate
