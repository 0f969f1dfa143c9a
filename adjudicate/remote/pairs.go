package remote

import (
	"fmt"

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

// TextPairs lists every (claim, passage) pair of a batch, in order; the
// claim's text is its segment (adjudicate.ClaimSegment: with the query
// when the pair carries one).
func TextPairs(batch []adjudicate.Pair) []TextPair {
	var out []TextPair
	for ci, p := range batch {
		if len(p.Passages) == 0 {
			out = append(out, TextPair{Claim: ci, ClaimText: adjudicate.ClaimSegment(p)})
			continue
		}
		for pi, ps := range p.Passages {
			out = append(out, TextPair{Claim: ci, Passage: pi, ClaimText: adjudicate.ClaimSegment(p), PassageText: ps.Text})
		}
	}
	return out
}

// Decide turns pair logits (in TextPairs order, our class order) into one
// verdict per claim by the onnx backend's rule: the deciding passage is the
// one with the strongest evidence either way — the largest of
// p(supported) and p(unsupported) — and its raw logits become the claim's.
func Decide(batch []adjudicate.Pair, pairs []TextPair, logits [][3]float64) []adjudicate.Verdict {
	idx := make([]adjudicate.PairIndex, len(pairs))
	for i, e := range pairs {
		idx[i] = adjudicate.PairIndex{Claim: e.Claim, Passage: e.Passage}
	}
	out := adjudicate.Strongest(batch, idx, logits, adjudicate.EvidenceEitherWay)
	for i, p := range batch {
		out[i].Rationale = rationale(p, out[i])
	}
	return out
}

func rationale(p adjudicate.Pair, v adjudicate.Verdict) string {
	pr := adjudicate.Probabilities(v.Logits)
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
