package remote

import (
	"fmt"
	"math"

	"github.com/claimaudit/claimaudit/adjudicate"
)

// TextPair is one (claim, passage) pair a cross-encoder scores: Claim and
// Passage index the batch (a claim without passages is scored once against
// an empty passage).
type TextPair struct {
	Claim, Passage int
	ClaimText      string
	PassageText    string
}

// TextPairs lists every (claim, passage) pair of a batch, in order.
func TextPairs(batch []adjudicate.Pair) []TextPair {
	var out []TextPair
	for ci, p := range batch {
		if len(p.Passages) == 0 {
			out = append(out, TextPair{Claim: ci, ClaimText: p.Claim})
			continue
		}
		for pi, ps := range p.Passages {
			out = append(out, TextPair{Claim: ci, Passage: pi, ClaimText: p.Claim, PassageText: ps.Text})
		}
	}
	return out
}

// Decide turns pair logits (in TextPairs order, our class order) into one
// verdict per claim by the onnx backend's rule: the deciding passage is the
// one with the strongest evidence either way — the largest of
// p(supported) and p(unsupported) — and its raw logits become the claim's.
func Decide(batch []adjudicate.Pair, pairs []TextPair, logits [][3]float64) []adjudicate.Verdict {
	out := make([]adjudicate.Verdict, len(batch))
	best := make([]float64, len(batch))
	for i := range out {
		out[i].Passage = -1
		best[i] = -1
	}
	for i, e := range pairs {
		z := logits[i]
		p := Softmax(z)
		strength := math.Max(p[adjudicate.Supported], p[adjudicate.Unsupported])
		if strength > best[e.Claim] {
			best[e.Claim] = strength
			out[e.Claim].Logits = z
			if len(batch[e.Claim].Passages) > 0 {
				out[e.Claim].Passage = e.Passage
			}
		}
	}
	for i, p := range batch {
		out[i].Rationale = rationale(p, out[i])
	}
	return out
}

// Softmax of three logits.
func Softmax(z [3]float64) [3]float64 {
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

func rationale(p adjudicate.Pair, v adjudicate.Verdict) string {
	pr := Softmax(v.Logits)
	if v.Passage < 0 {
		return fmt.Sprintf("no evidence retrieved; model on the claim alone: entailment %.2f, contradiction %.2f, neutral %.2f", pr[0], pr[1], pr[2])
	}
	ev := p.Passages[v.Passage]
	loc := ev.DocID
	if ev.SpanID != "" {
		loc += "/" + ev.SpanID
	}
	return fmt.Sprintf("%s [%d,%d): entailment %.2f, contradiction %.2f, neutral %.2f (strongest of %d passages)",
		loc, ev.Start, ev.End, pr[0], pr[1], pr[2], len(p.Passages))
}
