package rules

import "github.com/claimaudit/claimaudit/label"

// fallback: seed 004 §7.9, a corrupted verifier (NaN in its logits) falls
// back to the rule-based checker. The caller verifies such a claim again
// with the lexical verifier and passes its label as Input.Fallback; this
// rule makes it the claim's label, flagged.
func fallback(in Input, _ Options) (finding, bool) {
	if in.Fallback == label.None {
		return finding{}, false
	}
	return finding{label: in.Fallback, flags: []string{FlagFallback}}, true
}
