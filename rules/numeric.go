package rules

import (
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/lint"
)

// numeric: a number the evidence gives otherwise is a contradiction (the
// labelling rules: "unsupported only on a contradiction"; "supported only
// within the numeric tolerance"), whichever verifier ran. The claim's
// number is checked (under --numeric-policy) against the facts of the
// retrieved passages that speak of the claim's entity, under its stated
// qualifiers and of its year (no year on either side, or a year in common):
//
//   - a fact that agrees with the claim: the rule does not fire (several
//     documents that disagree are the conflict rule's);
//   - else a fact that gives the same quantity another value, outside the
//     policy: unsupported, flag numeric_mismatch;
//   - else a fact that states only a bound the claim's number lies within
//     ("more than 1,000" for a claim of 5,000): consistent but not entailed,
//     insufficient, flag numeric_bound.
//
// Under --numeric-effect flag the rule only flags; under none it is off.
func numericRule(in Input, o Options) (finding, bool) {
	if o.NumericEffect == lint.EffectNone || !in.hasNumber() {
		return finding{}, false
	}
	var facts []lint.Fact
	for _, p := range in.Passages {
		for _, f := range in.relevantFacts(p.Facts) {
			if in.sameYears(f.Years) {
				facts = append(facts, f)
			}
		}
	}
	if len(facts) == 0 {
		return finding{}, false
	}
	mismatch, bound := false, false
	for i := range facts {
		nc := in.numericCheck(facts[i:i+1], o.NumericPolicy)
		switch nc.Status {
		case lint.NumericVerified, lint.NumericOutdated:
			return finding{}, false
		case lint.NumericMismatch:
			mismatch = true
		case lint.NumericConsistent:
			bound = true
		}
	}
	var f finding
	switch {
	case mismatch:
		f = finding{label: label.Unsupported, flags: []string{FlagNumericMismatch}}
	case bound:
		f = finding{label: label.Insufficient, flags: []string{FlagNumericBound}}
	default:
		return finding{}, false
	}
	if o.NumericEffect == lint.EffectFlag {
		f.label = label.None
	}
	return f, true
}
