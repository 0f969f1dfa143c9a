package metrics

import (
	"math"
	"sort"
)

// Counts are the decision counts of a set of outcomes.
type Counts struct {
	N         int // all outcomes
	Answered  int
	Abstained int
	// Labelled counts outcomes with a gold label; AnsweredLabelled those
	// of them that were answered. Gold-based rates use these.
	Labelled         int
	AnsweredLabelled int
	// Confusion[gold][predicted] over answered, labelled outcomes.
	Confusion [3][3]int
	// GoldTotal[gold] over all labelled outcomes, answered or not.
	GoldTotal [3]int
	// PredictedTotal[pred] over all answered outcomes, labelled or not.
	PredictedTotal [3]int
}

// Count tallies outcomes.
func Count(outs []Outcome) Counts {
	var c Counts
	for _, o := range outs {
		c.N++
		if o.Abstained {
			c.Abstained++
		} else {
			c.Answered++
			c.PredictedTotal[o.Predicted]++
		}
		if o.Gold == Unknown {
			continue
		}
		c.Labelled++
		c.GoldTotal[o.Gold]++
		if !o.Abstained {
			c.AnsweredLabelled++
			c.Confusion[o.Gold][o.Predicted]++
		}
	}
	return c
}

// ratio is a ÷ b, NaN (undefined) when b is 0.
func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Coverage is answered ÷ n (undefined for no outcomes).
func (c Counts) Coverage() float64 { return ratio(c.Answered, c.N) }

// AbstainRate is abstained ÷ n.
func (c Counts) AbstainRate() float64 { return ratio(c.Abstained, c.N) }

// Correct is the diagonal of the confusion matrix.
func (c Counts) Correct() int {
	return c.Confusion[0][0] + c.Confusion[1][1] + c.Confusion[2][2]
}

// Accuracy is correct ÷ answered (labelled).
func (c Counts) Accuracy() float64 { return ratio(c.Correct(), c.AnsweredLabelled) }

// SelectiveRisk is the error rate among answered labelled claims.
func (c Counts) SelectiveRisk() float64 {
	return ratio(c.AnsweredLabelled-c.Correct(), c.AnsweredLabelled)
}

// Tier1FA counts predicted supported while gold is unsupported or insufficient.
func (c Counts) Tier1FA() int {
	return c.Confusion[Unsupported][Supported] + c.Confusion[Insufficient][Supported]
}

// Tier2FA counts predicted supported or insufficient while gold is unsupported.
func (c Counts) Tier2FA() int {
	return c.Confusion[Unsupported][Supported] + c.Confusion[Unsupported][Insufficient]
}

// Tier1FAConditional is Tier1FA ÷ answered (labelled).
func (c Counts) Tier1FAConditional() float64 { return ratio(c.Tier1FA(), c.AnsweredLabelled) }

// Tier1FAUnconditional is Tier1FA ÷ n (labelled).
func (c Counts) Tier1FAUnconditional() float64 { return ratio(c.Tier1FA(), c.Labelled) }

// Tier2FAConditional is Tier2FA ÷ answered (labelled).
func (c Counts) Tier2FAConditional() float64 { return ratio(c.Tier2FA(), c.AnsweredLabelled) }

// Tier2FAUnconditional is Tier2FA ÷ n (labelled).
func (c Counts) Tier2FAUnconditional() float64 { return ratio(c.Tier2FA(), c.Labelled) }

// Tier1FAOfGoldNegatives is the false-accept rate as most readers mean it:
// predicted supported ÷ claims whose gold label is unsupported or
// insufficient (answered or not: an abstention accepts nothing). It is
// not Tier1FAConditional, whose denominator is every answered claim.
func (c Counts) Tier1FAOfGoldNegatives() float64 {
	return ratio(c.Tier1FA(), c.GoldTotal[Unsupported]+c.GoldTotal[Insufficient])
}

// Tier2FAOfGoldUnsupported is predicted supported or insufficient ÷ claims
// whose gold label is unsupported (answered or not).
func (c Counts) Tier2FAOfGoldUnsupported() float64 {
	return ratio(c.Tier2FA(), c.GoldTotal[Unsupported])
}

// PerClass returns precision, recall and F1 of class k over the confusion
// matrix of answered, labelled outcomes. Each is NaN where its denominator
// is 0: precision when nothing was predicted k, recall when no gold label
// is k, F1 = 2TP/(2TP+FP+FN) when k is neither predicted nor gold.
func (c Counts) PerClass(k Class) (precision, recall, f1 float64) {
	tp := c.Confusion[k][k]
	pred, gold := 0, 0
	for j := 0; j < 3; j++ {
		pred += c.Confusion[j][k]
		gold += c.Confusion[k][j]
	}
	return ratio(tp, pred), ratio(tp, gold), ratio(2*tp, pred+gold)
}

// MacroF1 is the mean F1 over the classes that occur as gold label or
// prediction among answered, labelled outcomes — scikit-learn's f1_score
// with average="macro" and its default labels (those present in y_true or
// y_pred). NaN when there are none.
func (c Counts) MacroF1() float64 {
	return meanDefined(func(k Class) float64 { _, _, f := c.PerClass(k); return f })
}

// BalancedAccuracy is the mean recall over the gold classes present among
// answered, labelled outcomes (scikit-learn's balanced_accuracy_score).
func (c Counts) BalancedAccuracy() float64 {
	return meanDefined(func(k Class) float64 { _, r, _ := c.PerClass(k); return r })
}

func meanDefined(f func(Class) float64) float64 {
	s, n := 0.0, 0
	for k := Class(0); k < 3; k++ {
		if v := f(k); !math.IsNaN(v) {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// CohenKappa is Cohen's κ between gold labels and predictions over
// answered, labelled outcomes: (p_o − p_e)/(1 − p_e) with p_o the observed
// agreement and p_e = Σ_k gold_k·pred_k/N² the agreement expected by
// chance (scikit-learn's cohen_kappa_score). NaN when there are no such
// outcomes or p_e = 1 (gold and predictions are one and the same label).
func (c Counts) CohenKappa() float64 {
	n := c.AnsweredLabelled
	if n == 0 {
		return math.NaN()
	}
	var gold, pred [3]int
	for g := 0; g < 3; g++ {
		for p := 0; p < 3; p++ {
			gold[g] += c.Confusion[g][p]
			pred[p] += c.Confusion[g][p]
		}
	}
	// In counts: κ = (N·correct − Σ g_k p_k)/(N² − Σ g_k p_k), exact until
	// the final division.
	chance := 0.0
	for k := 0; k < 3; k++ {
		chance += float64(gold[k]) * float64(pred[k])
	}
	nn := float64(n) * float64(n)
	if chance == nn {
		return math.NaN()
	}
	return (float64(n)*float64(c.Correct()) - chance) / (nn - chance)
}

// Majority is the most frequent gold label among answered, labelled
// outcomes (ties to the lower class index), and how many have it; Unknown
// when there are none.
func (c Counts) Majority() (Class, int) {
	best, count := Unknown, 0
	for g := Class(0); g < 3; g++ {
		n := c.Confusion[g][0] + c.Confusion[g][1] + c.Confusion[g][2]
		if n > count {
			best, count = g, n
		}
	}
	return best, count
}

// MajorityAccuracy is the accuracy of always predicting the majority gold
// label, on the claims accuracy is measured on (answered, labelled).
func (c Counts) MajorityAccuracy() float64 {
	_, m := c.Majority()
	return ratio(m, c.AnsweredLabelled)
}

// MajorityMacroF1 is the macro-F1 of always predicting the majority gold
// label on the same claims: the majority class has F1 2m/(N+m), every other
// gold class present 0, averaged over the gold classes present.
func (c Counts) MajorityMacroF1() float64 {
	maj, _ := c.Majority()
	if maj == Unknown {
		return math.NaN()
	}
	var k Counts
	for g := 0; g < 3; g++ {
		k.Confusion[g][maj] = c.Confusion[g][0] + c.Confusion[g][1] + c.Confusion[g][2]
	}
	return k.MacroF1()
}

// Binary is the 2×2 view used by LLM-AggreFact and MiniCheck: supported
// against not supported (unsupported or insufficient), for gold and
// prediction, over answered, labelled outcomes. [gold][pred], 0 = supported.
func (c Counts) Binary() [2][2]int {
	var b [2][2]int
	for g := 0; g < 3; g++ {
		for p := 0; p < 3; p++ {
			b[min(g, 1)][min(p, 1)] += c.Confusion[g][p]
		}
	}
	return b
}

// BinaryBalancedAccuracy is the balanced accuracy of the binary view: the
// mean of the recall of supported and of not supported, over the binary
// gold classes present.
func (c Counts) BinaryBalancedAccuracy() float64 {
	b := c.Binary()
	s, n := 0.0, 0
	for g := 0; g < 2; g++ {
		if tot := b[g][0] + b[g][1]; tot > 0 {
			s += float64(b[g][g]) / float64(tot)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// PredictedRate is the share of answered outcomes predicted k (labelled or
// not): the headline of a run without gold labels.
func (c Counts) PredictedRate(k Class) float64 { return ratio(c.PredictedTotal[k], c.Answered) }

// PassRate (seed 004) is predicted supported ÷ n: an abstention does not pass.
func (c Counts) PassRate() float64 { return ratio(c.PredictedTotal[Supported], c.N) }

// FalsePositiveRate (seed 004): of gold-unsupported claims, the share
// predicted supported (an abstention is not a false positive).
func (c Counts) FalsePositiveRate() float64 {
	return ratio(c.Confusion[Unsupported][Supported], c.GoldTotal[Unsupported])
}

// FalseNegativeRate (seed 004): of gold-supported claims, the share
// predicted unsupported.
func (c Counts) FalseNegativeRate() float64 {
	return ratio(c.Confusion[Supported][Unsupported], c.GoldTotal[Supported])
}

// Percentile is the q-th quantile (0..1) by linear interpolation between
// order statistics (numpy's default); NaN for no values.
func Percentile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	return percentileSorted(v, q)
}

func percentileSorted(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(v)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return v[lo] + (v[hi]-v[lo])*(pos-float64(lo))
}
