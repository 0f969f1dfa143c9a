package adjudicate

import "fmt"

// AggregationMaxSupport names how a claim judged chunk by chunk gets one
// verdict (MaxSupport); manifests and docs/format/claims.md spell it so.
const AggregationMaxSupport = "max-support-then-contradiction"

// MaxSupport is the verdict of a claim whose passages — the chunks of
// the documents it cites — were each verified on its own (verdicts[i] is
// passages[i]'s, from a pair holding that passage alone), by the rule of
// MiniCheck, AlignScore and SummaC: a document supports a claim when one
// of its chunks does.
//
//  1. The chunk with the highest p(supported) decides when supported is
//     its most probable label (max support).
//  2. Otherwise, among the chunks that share a content word with the
//     claim (retrieval score > 0), the one with the highest
//     p(unsupported) decides when unsupported is its most probable label
//     (max contradiction). A chunk about something else cannot contradict
//     the claim, however a verifier reads it.
//  3. Otherwise the chunk with the highest retrieval score decides (its
//     label is what the verifier gave it, insufficient as a rule).
//
// The first chunk wins a tie. The claim takes the deciding chunk's raw
// logits and rationale, Passage is its index, and PassageLogits keeps
// every chunk's logits (the conflict rule reads them). A chunk whose
// verdict failed makes the claim's verdict fail: no chunk is left out of
// the decision.
func MaxSupport(passages []Passage, verdicts []Verdict) Verdict {
	if len(verdicts) == 0 || len(passages) != len(verdicts) {
		return Verdict{Passage: -1}
	}
	out := Verdict{Passage: -1, PassageLogits: make([][3]float64, len(verdicts))}
	bestS, bestU, top := -1, -1, 0
	var ps, pu float64
	for i, v := range verdicts {
		if v.Err != nil {
			return Verdict{Passage: -1, Err: fmt.Errorf("chunk %d: %w", i, v.Err)}
		}
		if err := CheckLogits(v.Logits); err != nil {
			return Verdict{Passage: -1, Err: fmt.Errorf("chunk %d: %w", i, err)}
		}
		out.PassageLogits[i] = v.Logits
		out.HardLabel = out.HardLabel || v.HardLabel
		out.Usage.PromptTokens += v.Usage.PromptTokens
		out.Usage.CompletionTokens += v.Usage.CompletionTokens
		p := Probabilities(v.Logits)
		if bestS < 0 || p[Supported] > ps {
			bestS, ps = i, p[Supported]
		}
		if passages[i].Score > 0 && (bestU < 0 || p[Unsupported] > pu) {
			bestU, pu = i, p[Unsupported]
		}
		if passages[i].Score > passages[top].Score {
			top = i
		}
	}
	decide := top
	switch {
	case argmax(Probabilities(verdicts[bestS].Logits)) == Supported:
		decide = bestS
	case bestU >= 0 && argmax(Probabilities(verdicts[bestU].Logits)) == Unsupported:
		decide = bestU
	}
	out.Logits, out.Rationale, out.Passage = verdicts[decide].Logits, verdicts[decide].Rationale, decide
	return out
}

// argmax is the index of the largest probability (the first on ties).
func argmax(p [3]float64) int {
	best := 0
	for k := 1; k < len(p); k++ {
		if p[k] > p[best] {
			best = k
		}
	}
	return best
}
