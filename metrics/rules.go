package metrics

import "math"

// RuleNames are the decision rules of package rules, in its order (a test
// there holds the two lists together; metrics imports no decision code).
var RuleNames = []string{"fallback", "no_evidence", "conflict", "numeric", "qualifier", "underspecified", "hedge", "stale", "definition"}

// RuleMetrics are, for each rule R: rule_R_count, the claims R gave a
// label to (applied, or under --rule-effect flag proposed); rule_R_accuracy,
// the share of those with gold where R's label is the gold one; and
// rule_R_verifier_accuracy, the same for the verifier's own label on the
// same claims (those the verifier labelled). Null when no labelled claim
// is in the count.
var RuleMetrics = func() []string {
	var out []string
	for _, r := range RuleNames {
		out = append(out, "rule_"+r+"_count", "rule_"+r+"_accuracy", "rule_"+r+"_verifier_accuracy")
	}
	return out
}()

// ruleValues computes RuleMetrics.
func ruleValues(outs []Outcome) map[string]float64 {
	type tally struct{ n, labelled, right, vLabelled, vRight int }
	ts := map[string]*tally{}
	for _, r := range RuleNames {
		ts[r] = &tally{}
	}
	for _, o := range outs {
		t := ts[o.Rule.String()]
		if t == nil {
			continue
		}
		t.n++
		if o.Gold == Unknown {
			continue
		}
		t.labelled++
		if o.RuleLabel == o.Gold {
			t.right++
		}
		if o.VerifierLabel != Unknown {
			t.vLabelled++
			if o.VerifierLabel == o.Gold {
				t.vRight++
			}
		}
	}
	v := map[string]float64{}
	for _, r := range RuleNames {
		t := ts[r]
		v["rule_"+r+"_count"] = float64(t.n)
		v["rule_"+r+"_accuracy"] = ratio(t.right, t.labelled)
		v["rule_"+r+"_verifier_accuracy"] = ratio(t.vRight, t.vLabelled)
	}
	return v
}

// boundPass is 1 when a class's accuracy at p >= 0.8 meets seed 004's
// bound of 0.75, 0 when it does not, NaN when no claim is there.
func boundPass(acc float64, n int) float64 {
	if n == 0 || math.IsNaN(acc) {
		return math.NaN()
	}
	if acc >= 0.75 {
		return 1
	}
	return 0
}
