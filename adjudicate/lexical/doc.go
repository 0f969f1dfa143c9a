// Package lexical is the embedded default verifier: hand-made evidence
// features per claim and its k passages (features.go; the scanners of its
// words, years and cue words in scan.go, the vocabulary its cached
// passages are interned in in vocab.go), a logistic model —
// nested by default: insufficient vs the rest from the coverage features,
// then supported vs unsupported (nested.go) — with optional boosted trees,
// whose weights are embedded (model.go, boost.go, weights.json), and what makes and measures those
// weights: data sets on disk turned into feature vectors (dataset.go,
// pipeline.go), balanced fitting (train.go) and the leave-one-set-out
// evaluation behind `make eval-real` (eval.go). It needs no model files and
// runs anywhere; on real prose from a domain it has not seen it is only a
// little better than chance (README, "On real claims").
package lexical
