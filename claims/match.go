package claims

import (
	"fmt"
	"math"
	"strings"

	"github.com/claimaudit/claimaudit/sentence"
)

// Fact is a known numeric fact: a value with its unit, as written in a
// passage, and a description (the sentence around it) to match claims by.
type Fact struct {
	ID          string   `json:"id"` // the passage or span it came from
	Description string   `json:"description"`
	Value       float64  `json:"value"`
	Unit        string   `json:"unit,omitempty"`
	Text        string   `json:"text"` // the number as written
	quantity    Quantity // parsed, for policies
}

// FactsFromText turns every numeric mention in a passage into a fact
// described by the sentence it stands in.
func FactsFromText(id, text string) []Fact {
	var facts []Fact
	runes := []rune(text)
	for _, sp := range sentence.Split(runes) {
		s := string(runes[sp[0]:sp[1]])
		for _, m := range FindNumbers(s) {
			facts = append(facts, Fact{ID: id, Description: s, Value: m.Value, Unit: m.Unit, Text: m.Text, quantity: m.Quantity})
		}
	}
	return facts
}

// MatchOptions tune fact matching. Zero values take seed 001's defaults.
type MatchOptions struct {
	MinSimilarity float64 // default 0.3
	RelTol        float64 // default 0.05: |claimed − actual| / |actual| <= RelTol
}

func (o *MatchOptions) defaults() {
	if o.MinSimilarity == 0 {
		o.MinSimilarity = 0.3
	}
	if o.RelTol == 0 {
		o.RelTol = DefaultRelTol
	}
}

// Numeric-check statuses (seed 001).
const (
	NumericVerified     = "verified"
	NumericMismatch     = "mismatch"
	NumericUnverifiable = "unverifiable"
)

// NumericCheck is seed 001's verdict on a numeric claim.
type NumericCheck struct {
	Status string  `json:"status"`
	Policy string  `json:"policy"`
	Score  float64 `json:"score"`
	Fact   *Fact   `json:"fact,omitempty"`
	Claim  string  `json:"claim_value,omitempty"` // the claimed number as written
	Reason string  `json:"reason"`
}

// ValuesMatch is seed 001's tolerance test: |claimed − actual| / |actual| <=
// relTol (equality when actual is 0).
func ValuesMatch(claimed, actual, relTol float64) bool {
	if actual == 0 {
		return claimed == 0
	}
	return math.Abs(claimed-actual)/math.Abs(actual) <= relTol+1e-12
}

// Similarity is seed 001's score of a fact for a claim:
// Jaccard(claim context, fact description) × 0.5 + 0.3 when the units are
// equal + 0.2 when the values match within tolerance. ok is false when both
// have units and they differ (the fact is skipped).
func Similarity(context string, value float64, unit string, f Fact, relTol float64) (score float64, ok bool) {
	if unit != "" && f.Unit != "" && unit != f.Unit {
		return 0, false
	}
	score = Jaccard(context, f.Description) * 0.5
	if unit != "" && unit == f.Unit {
		score += 0.3
	}
	if ValuesMatch(value, f.Value, relTol) {
		score += 0.2
	}
	return score, true
}

// Jaccard is the word-set similarity of two texts over their content words.
func Jaccard(a, b string) float64 {
	wa, wb := contentWords(a), contentWords(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 0
	}
	set := map[string]bool{}
	for _, w := range wa {
		set[w] = true
	}
	inter := 0
	union := len(set)
	for _, w := range wb {
		if set[w] {
			inter++
		} else {
			union++
		}
	}
	return float64(inter) / float64(union)
}

// FindMatchingFact returns the best fact scoring at least the threshold;
// value agreement is a bonus, not a requirement, so a fact about the same
// thing with another value is found (and reported as a mismatch). Ties go to
// the earlier fact.
func FindMatchingFact(context string, value float64, unit string, facts []Fact, opts MatchOptions) (Fact, float64, bool) {
	opts.defaults()
	best, bestScore, found := Fact{}, 0.0, false
	for _, f := range facts {
		s, ok := Similarity(context, value, unit, f, opts.RelTol)
		if !ok || s < opts.MinSimilarity {
			continue
		}
		if !found || s > bestScore {
			best, bestScore, found = f, s, true
		}
	}
	return best, bestScore, found
}

// VerifyNumeric checks a claim's main number against facts: unverifiable
// when the claim has no number or no fact matches, verified when the best
// fact's value agrees within tolerance, mismatch otherwise.
func VerifyNumeric(claimText string, facts []Fact, opts MatchOptions) NumericCheck {
	opts.defaults()
	policy := fmt.Sprintf("rel_tol=%g", opts.RelTol)
	q, ok := findNumeric(claimText)
	if !ok {
		return NumericCheck{Status: NumericUnverifiable, Policy: policy, Reason: "the claim states no number"}
	}
	f, score, found := FindMatchingFact(claimText, q.Value, q.Unit, facts, opts)
	if !found {
		return NumericCheck{Status: NumericUnverifiable, Policy: policy, Claim: q.Text, Reason: fmt.Sprintf("no fact about %q scores %.2f or more", q.Text, opts.MinSimilarity)}
	}
	check := NumericCheck{Policy: policy, Score: score, Fact: &f, Claim: q.Text}
	if ValuesMatch(q.Value, f.Value, opts.RelTol) {
		check.Status = NumericVerified
		check.Reason = fmt.Sprintf("%s matches %s in %s", q.Text, f.Text, f.ID)
	} else {
		check.Status = NumericMismatch
		check.Reason = fmt.Sprintf("%s differs from %s in %s", q.Text, f.Text, f.ID)
	}
	return check
}

// String names a fact for rationales.
func (f Fact) String() string {
	return fmt.Sprintf("%s (%s: %q)", f.Text, f.ID, strings.TrimSpace(f.Description))
}
