// Package metrics owns pure functions over claim outcomes: counts, coverage,
// the 3×3 confusion matrix, tiered false-accept rates, calibration error
// (ECE variants, reliability bins, Brier, NLL), temperature scaling,
// risk–coverage and AURC, slices and seeded bootstrap intervals. The
// definitions are those of DESIGN.md "Metrics".
//
// Not yet implemented: see the metrics issue.
package metrics
