package metrics

import (
	"errors"
	"fmt"
	"github.com/claimaudit/claimaudit/label"
	"math"
)

// Class is a label index: the order of the three logits everywhere.
type Class int8

// The three classes, and Unknown for a missing gold label.
const (
	Supported    Class = 0
	Unsupported  Class = 1
	Insufficient Class = 2
	Unknown      Class = -1
)

// ClassNames are the label names in class order (label.All's).
var ClassNames = [3]string{string(label.All[0]), string(label.All[1]), string(label.All[2])}

func (c Class) String() string {
	if c >= 0 && c < 3 {
		return ClassNames[c]
	}
	return "unknown"
}

// Outcome is what metrics need of one claim's record.
type Outcome struct {
	// ID is the claim id: cross-fitting assigns folds from it (FoldOf).
	ID string
	// Fold, when above 0, is the claim's cross-fitting fold + 1 as FoldOf
	// gives it for the seed and K that CrossFit is then called with: a
	// caller holding a million outcomes computes it once and leaves ID
	// empty. 0: CrossFit computes the fold from ID.
	Fold int8
	Gold Class // Unknown when the claim has no gold label
	// Abstained: no decision (empty or weak retrieval, low confidence, or an
	// adjudication error). Predicted is ignored then.
	Abstained     bool
	Predicted     Class
	RuleLabel     Class // see Rule
	VerifierLabel Class // see Rule
	// Scored says Logits hold the verifier's three raw logits (supported,
	// unsupported, insufficient); an abstention for empty retrieval or an
	// error has none.
	Scored bool
	Logits [3]float64
	// Type and Importance are the claim's (claims.Types, claims.Importances);
	// Source is its source id, the model output it came from.
	Type, Importance Name
	Source           string
	LatencyMS        float64 // < 0 when not measured
	// EvidenceRanks holds, for each gold evidence id of the claim, the
	// 1-based rank of the first retrieved passage it names (its span or
	// document), 0 when no retrieved passage does; nil when the gold
	// label names no evidence (EvidenceRanksOf computes it).
	EvidenceRanks []int
	// Meta is the claim's user metadata, sliced on by SlicesBy.
	Meta map[string]string
	// Tags are the tags of the span of the passage that decided the claim
	// (records' evidence_tags), joined by TagSep and interned; 0 when it
	// has none. SlicesBy slices on them with SliceTags.
	Tags Name
	// Rule is the first decision rule that gave the claim a label ("" when
	// none did), RuleLabel that label (applied or, under --rule-effect
	// flag, not) and VerifierLabel the verifier's own label on the claim
	// (Unknown when it gave none): the per-rule metrics compare the two.
	// (The labels sit with the other one-byte fields: a run holds an
	// outcome per claim, and there they take no word of their own.)
	Rule Name
}

// ErrNaN is returned for outcomes whose logits or latency are NaN or Inf.
var ErrNaN = errors.New("NaN or Inf in outcomes")

// Check reports the first outcome that metrics cannot use.
func Check(outs []Outcome) error {
	for i, o := range outs {
		if o.Scored {
			for _, z := range o.Logits {
				if math.IsNaN(z) || math.IsInf(z, 0) {
					return fmt.Errorf("outcome %d: logits %v: %w", i, o.Logits, ErrNaN)
				}
			}
		}
		if math.IsNaN(o.LatencyMS) || math.IsInf(o.LatencyMS, 0) {
			return fmt.Errorf("outcome %d: latency %v: %w", i, o.LatencyMS, ErrNaN)
		}
		if o.Gold < Unknown || o.Gold > Insufficient || (!o.Abstained && (o.Predicted < 0 || o.Predicted > Insufficient)) {
			return fmt.Errorf("outcome %d: gold %d or predicted %d out of range", i, o.Gold, o.Predicted)
		}
		if !o.Abstained && !o.Scored {
			return fmt.Errorf("outcome %d: answered without logits", i)
		}
	}
	return nil
}

// Softmax returns softmax(z / t), computed stably.
func Softmax(z [3]float64, t float64) [3]float64 {
	m := math.Max(z[0], math.Max(z[1], z[2])) / t
	var p [3]float64
	sum := 0.0
	for k := range z {
		p[k] = math.Exp(z[k]/t - m)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

// logSoftmax returns log softmax(z / t)[k].
func logSoftmax(z [3]float64, t float64, k int) float64 {
	m := math.Max(z[0], math.Max(z[1], z[2])) / t
	sum := 0.0
	for j := range z {
		sum += math.Exp(z[j]/t - m)
	}
	return z[k]/t - m - math.Log(sum)
}

// Argmax is the predicted class of probabilities or logits; ties go to the
// lower class index.
func Argmax(p [3]float64) Class {
	best := 0
	for k := 1; k < 3; k++ {
		if p[k] > p[best] {
			best = k
		}
	}
	return Class(best)
}

// labelled are the outcomes with a gold label and logits, answered or not.
func labelledScored(outs []Outcome) []Outcome {
	var l []Outcome
	for _, o := range outs {
		if o.Gold != Unknown && o.Scored {
			l = append(l, o)
		}
	}
	return l
}
