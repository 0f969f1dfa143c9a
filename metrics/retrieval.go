package metrics

import "math"

// RetrievalMetrics measure retrieval against the gold evidence ids of the
// claims that have them (the others do not count); in Names.
var RetrievalMetrics = []string{"retrieval_claims", "retrieval_recall_at_1", "retrieval_recall_at_5", "retrieval_recall",
	"retrieval_mrr", "retrieval_hit_rate", "errors_evidence_missed", "errors_evidence_retrieved", "error_share_evidence_missed"}

// Passage is what EvidenceRanksOf needs of a retrieved passage.
type Passage struct{ DocID, SpanID string }

// EvidenceRanksOf ranks each gold evidence id (a span or document id)
// among the retrieved passages, in retrieval order: the 1-based rank of the
// first passage whose span id or document id it is, 0 when none. It is nil
// when gold is empty.
func EvidenceRanksOf(gold []string, retrieved []Passage) []int {
	if len(gold) == 0 {
		return nil
	}
	ranks := make([]int, len(gold))
	for i, g := range gold {
		for r, p := range retrieved {
			if g == p.DocID || (p.SpanID != "" && g == p.SpanID) {
				ranks[i] = r + 1
				break
			}
		}
	}
	return ranks
}

// EvidenceRetrieved says whether any gold evidence id of a claim was
// retrieved; ok is false when the claim names none.
func (o Outcome) EvidenceRetrieved() (retrieved, ok bool) {
	if o.EvidenceRanks == nil {
		return false, false
	}
	for _, r := range o.EvidenceRanks {
		if r > 0 {
			return true, true
		}
	}
	return false, true
}

// FirstEvidenceRank is the rank of the first retrieved passage naming any
// gold evidence id; 0 when none does or the claim names none.
func (o Outcome) FirstEvidenceRank() int {
	best := 0
	for _, r := range o.EvidenceRanks {
		if r > 0 && (best == 0 || r < best) {
			best = r
		}
	}
	return best
}

// retrievalValues computes RetrievalMetrics. recall@k is the mean over
// claims with gold evidence of the share of their gold ids found among the
// first k passages (retrieval_recall: among all retrieved); MRR the mean
// of 1/rank of the first passage naming a gold id (0 when none);
// hit rate the share of claims with some gold id retrieved. The errors
// are answered, labelled, wrong claims with gold evidence, split by
// whether it was retrieved ("retrieved but misjudged") or not.
func retrievalValues(outs []Outcome) map[string]float64 {
	n, missed, misjudged := 0, 0, 0
	var r1, r5, rAll, rr, hits float64
	for _, o := range outs {
		if o.EvidenceRanks == nil {
			continue
		}
		n++
		var f1, f5, fAll int
		for _, r := range o.EvidenceRanks {
			if r > 0 {
				fAll++
				if r <= 5 {
					f5++
				}
				if r <= 1 {
					f1++
				}
			}
		}
		g := float64(len(o.EvidenceRanks))
		r1 += float64(f1) / g
		r5 += float64(f5) / g
		rAll += float64(fAll) / g
		if first := o.FirstEvidenceRank(); first > 0 {
			rr += 1 / float64(first)
			hits++
		}
		if !o.Abstained && o.Gold != Unknown && o.Predicted != o.Gold {
			if fAll > 0 {
				misjudged++
			} else {
				missed++
			}
		}
	}
	v := map[string]float64{"retrieval_claims": float64(n)}
	mean := func(x float64) float64 {
		if n == 0 {
			return math.NaN()
		}
		return x / float64(n)
	}
	v["retrieval_recall_at_1"], v["retrieval_recall_at_5"], v["retrieval_recall"] = mean(r1), mean(r5), mean(rAll)
	v["retrieval_mrr"], v["retrieval_hit_rate"] = mean(rr), mean(hits)
	v["errors_evidence_missed"], v["errors_evidence_retrieved"] = math.NaN(), math.NaN()
	if n > 0 {
		v["errors_evidence_missed"], v["errors_evidence_retrieved"] = float64(missed), float64(misjudged)
	}
	v["error_share_evidence_missed"] = ratio(missed, missed+misjudged)
	return v
}

// CheckMetrics are seed 002's quality gates and seed 004's calibration
// bounds and degenerate-verifier flags as numbers (flags 1 or 0), in Names.
var CheckMetrics = []string{"quality_gates_pass", "critical_unsupported", "contradictions",
	"calibration_pass", "supported_accuracy_at_p80", "unsupported_accuracy_at_p80", "supported_n_at_p80", "unsupported_n_at_p80",
	"degenerate_supported", "degenerate_refuted", "calibration_bound_supported", "calibration_bound_unsupported"}

func checkValues(g Gates, b Bounds) map[string]float64 {
	calPass := math.NaN()
	if b.CalibrationDefined {
		calPass = float64(b2i(b.CalibrationPass))
	}
	return map[string]float64{
		"quality_gates_pass": float64(b2i(g.Pass)), "critical_unsupported": float64(g.CriticalUnsupported), "contradictions": float64(g.Contradictions),
		"calibration_pass": calPass, "supported_accuracy_at_p80": b.SupportedAccuracy, "unsupported_accuracy_at_p80": b.UnsupportedAccuracy,
		"supported_n_at_p80": float64(b.SupportedN), "unsupported_n_at_p80": float64(b.UnsupportedN),
		"degenerate_supported": float64(b2i(b.DegenerateSupported)), "degenerate_refuted": float64(b2i(b.DegenerateRefuted)),
		"calibration_bound_supported":   boundPass(b.SupportedAccuracy, b.SupportedN),
		"calibration_bound_unsupported": boundPass(b.UnsupportedAccuracy, b.UnsupportedN),
	}
}
