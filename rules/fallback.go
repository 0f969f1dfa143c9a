package rules

import "github.com/claimaudit/claimaudit/label"

// fallback: a verifier whose answer is not a valid finite distribution (NaN
// or overflowing logits) falls back to the rule-based checker — only when
// the user names this rule (docs/reliability.md, "The fallback contract";
// otherwise the claim is an error). The caller verifies such a claim again
// with the lexical verifier and passes its label as Input.Fallback; this
// rule makes it the claim's label, flagged; the caller marks the record's
// verifier and counts the claim.
func fallback(in Input, _ Options) (finding, bool) {
	if in.Fallback == label.None {
		return finding{}, false
	}
	return finding{label: in.Fallback, flags: []string{FlagFallback}}, true
}
