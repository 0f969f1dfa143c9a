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

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Coverage is answered ÷ n (1 for no outcomes: nothing was left undecided).
func (c Counts) Coverage() float64 {
	if c.N == 0 {
		return 1
	}
	return ratio(c.Answered, c.N)
}

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

// PerClass returns precision, recall and F1 of class k over the confusion
// matrix (0 where undefined, as scikit-learn's zero_division=0).
func (c Counts) PerClass(k Class) (precision, recall, f1 float64) {
	tp := c.Confusion[k][k]
	pred, gold := 0, 0
	for j := 0; j < 3; j++ {
		pred += c.Confusion[j][k]
		gold += c.Confusion[k][j]
	}
	precision, recall = ratio(tp, pred), ratio(tp, gold)
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	return
}

// MacroF1 is the mean F1 over the three classes, always all three (as
// scikit-learn's f1_score with labels=[0,1,2], average="macro").
func (c Counts) MacroF1() float64 {
	s := 0.0
	for k := Class(0); k < 3; k++ {
		_, _, f := c.PerClass(k)
		s += f
	}
	return s / 3
}

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
