package adjudicate

import (
	"fmt"
	"math"
)

// PairIndex names one (claim, passage) pair a cross-encoder scored: Claim
// and Passage index a batch (a claim without passages is scored once, with
// Passage 0, against an empty passage).
type PairIndex struct{ Claim, Passage int }

// Probabilities is softmax of three logits.
func Probabilities(z [3]float64) [3]float64 {
	m := math.Max(z[0], math.Max(z[1], z[2]))
	var p [3]float64
	s := 0.0
	for k := range z {
		p[k] = math.Exp(z[k] - m)
		s += p[k]
	}
	for k := range p {
		p[k] /= s
	}
	return p
}

// EvidenceEitherWay is the usual strength of a pair's evidence: the larger
// of p(supported) and p(unsupported).
func EvidenceEitherWay(p [3]float64) float64 { return math.Max(p[Supported], p[Unsupported]) }

// Strongest turns per-pair logits into one verdict per claim: the deciding
// passage is the pair whose probabilities have the greatest strength (the
// first one on ties), and its raw logits become the claim's. Passage is -1
// for a claim without passages; Rationale is left to the caller. Every
// pair's logits pass CheckLogits first: a claim with any pair that fails
// gets that error as its verdict's Err (never a verdict decided by the
// other pairs, never a skipped pair).
func Strongest(batch []Pair, pairs []PairIndex, logits [][3]float64, strength func(p [3]float64) float64) []Verdict {
	out := make([]Verdict, len(batch))
	best := make([]float64, len(batch))
	for i := range out {
		out[i].Passage = -1
		best[i] = -1
	}
	for i, e := range pairs {
		if out[e.Claim].Err != nil {
			continue
		}
		if err := CheckLogits(logits[i]); err != nil {
			if len(batch[e.Claim].Passages) > 0 {
				err = fmt.Errorf("passage %d: %w", e.Passage, err)
			}
			out[e.Claim] = Verdict{Passage: -1, Err: err}
			continue
		}
		if n := len(batch[e.Claim].Passages); n > 0 && e.Passage < n {
			if out[e.Claim].PassageLogits == nil {
				out[e.Claim].PassageLogits = make([][3]float64, n)
			}
			out[e.Claim].PassageLogits[e.Passage] = logits[i]
		}
		s := strength(Probabilities(logits[i]))
		if s > best[e.Claim] {
			best[e.Claim] = s
			out[e.Claim].Logits = logits[i]
			if len(batch[e.Claim].Passages) > 0 {
				out[e.Claim].Passage = e.Passage
			}
		}
	}
	return out
}
