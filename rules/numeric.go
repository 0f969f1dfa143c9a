package rules

import (
	"strings"

	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/numeric"
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
	claimed, _ := numeric.FirstMention(in.Claim.Text)
	claimChange := isChange(in.Claim.Text, claimed.Text)
	var facts []lint.Fact
	for _, p := range in.Passages {
		for _, f := range in.relevantFacts(p.Facts) {
			// A change ("rose by 5%") is another quantity than a level
			// ("was 61.4%").
			if in.sameYears(f.Years) && isChange(f.Description, f.Text) == claimChange {
				facts = append(facts, f)
			}
		}
	}
	if len(facts) == 0 {
		return finding{}, false
	}
	mismatch, bound := false, false
	for i := range facts {
		nc := in.entityNumericCheck(facts[i:i+1], o.NumericPolicy)
		switch nc.Status {
		case lint.NumericVerified, lint.NumericOutdated:
			return finding{}, false
		case lint.NumericMismatch:
			// Under the run's --numeric-policy: auto reads a bare figure
			// at the precision it is written in ("451,000" is not
			// 451,287; "451 thousand" and "about 450,000" are).
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

// changeWords say that the number after them (after "by") is a change,
// not a level.
var changeWords = map[string]bool{"rose": true, "rise": true, "rises": true, "risen": true, "fell": true, "fall": true,
	"falls": true, "fallen": true, "increased": true, "increase": true, "increases": true, "decreased": true,
	"decrease": true, "decreases": true, "grew": true, "grow": true, "grows": true, "grown": true, "dropped": true,
	"drop": true, "drops": true, "declined": true, "decline": true, "declines": true, "climbed": true, "jumped": true,
	"cut": true, "raised": true, "reduced": true, "gained": true, "lost": true,
	"growth": true, "improved": true, "slipped": true, "shrank": true, "expanded": true}

// phrasalUp are the verbs "up" and "down" complete ("made up 17%",
// "came down to 40"): a level, not a change.
var phrasalUp = map[string]bool{"made": true, "make": true, "makes": true, "making": true, "came": true, "come": true,
	"comes": true, "add": true, "adds": true, "added": true, "sum": true, "sums": true, "summed": true, "ended": true,
	"end": true, "ends": true, "wound": true, "broken": true, "broke": true, "set": true, "sets": true, "took": true, "take": true}

// isChange says whether the number written as number in text states a
// change ("rose by 5%", "an increase of 12%", "up 3%") rather than a level.
func isChange(text, number string) bool {
	at := strings.Index(text, number)
	if at <= 0 || number == "" {
		return false
	}
	ws := strings.Fields(strings.ToLower(text[:at]))
	for i := len(ws) - 1; i >= 0 && i >= len(ws)-4; i-- {
		w := strings.Trim(ws[i], ",;:()")
		if changeWords[w] {
			return true
		}
		// "up 3%", "down by 2%" — but "made up 17%" is a level
		if (w == "up" || w == "down") && (i == 0 || !phrasalUp[strings.Trim(ws[i-1], ",;:()")]) {
			return true
		}
		if w != "by" && w != "of" && w != "a" && w != "an" && w != "some" && w != "about" && w != "nearly" && w != "almost" &&
			w != "around" && w != "roughly" && w != "more" && w != "than" && w != "over" && w != "under" && w != "just" {
			return false
		}
	}
	return false
}
