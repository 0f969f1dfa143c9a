package lint

import (
	"fmt"

	"github.com/claimaudit/claimaudit/label"
)

// NumericEffect is how a claim's numeric check bears on its label in an
// audit run.
type NumericEffect string

// Numeric effects.
const (
	// EffectRule: the labelling rules' numeric rule decides (rules
	// package): a number the evidence about the same entity and quantity
	// gives otherwise makes the claim unsupported, one the evidence only
	// bounds insufficient; here, as flag. The default.
	EffectRule NumericEffect = "rule"
	// EffectNone: the check is recorded; the verifier's label stands.
	EffectNone NumericEffect = "none"
	// EffectFlag: as none, and a mismatch flags the claim for review.
	EffectFlag NumericEffect = "flag"
	// EffectOverride: a mismatch against a retrieved passage makes the
	// claim unsupported, and a verified number keeps the verifier alone
	// from calling it unsupported (it becomes insufficient).
	EffectOverride NumericEffect = "override"
)

// NumericEffects lists the effects, for help text and validation.
var NumericEffects = []NumericEffect{EffectRule, EffectNone, EffectFlag, EffectOverride}

// ParseNumericEffect reads an effect name.
func ParseNumericEffect(s string) (NumericEffect, error) {
	for _, e := range NumericEffects {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("numeric effect %q is not one of rule, none, flag, override", s)
}

// Rules that decide a claim's final label (recorded as decided_by).
const (
	RuleVerifier        = "verifier"         // the verifier's label (or its abstention) stands
	RuleNumericMismatch = "numeric_mismatch" // override: a number contradicted by a retrieved passage
	RuleNumericVerified = "numeric_verified" // override: a verified number vetoed the verifier's "unsupported"
)

// LabelDecision is the final label of a claim and the rule that set it.
type LabelDecision struct {
	Label   label.Label // "" when the claim stays abstained
	Rule    string      // RuleVerifier, RuleNumericMismatch or RuleNumericVerified
	Flagged bool        // the numeric check found a mismatch (effects flag and override)
	Changed bool        // Label differs from the verifier's
}

// DecideNumeric combines the verifier's label (empty when it abstained)
// with the claim's numeric check (nil when the claim has no number) under
// an effect. Abstentions stand under every effect: an abstention says the
// evidence or the confidence was too thin to decide, which a number alone
// does not mend; a mismatch still flags them.
func DecideNumeric(verifier label.Label, check *NumericCheck, effect NumericEffect) LabelDecision {
	d := LabelDecision{Label: verifier, Rule: RuleVerifier}
	if check == nil || effect == EffectNone || effect == "" {
		return d
	}
	d.Flagged = check.Status == NumericMismatch
	if effect != EffectOverride || verifier == "" {
		return d
	}
	switch {
	case check.Status == NumericMismatch:
		d.Label, d.Rule = label.Unsupported, RuleNumericMismatch
	case check.Status == NumericVerified && verifier == label.Unsupported:
		d.Label, d.Rule = label.Insufficient, RuleNumericVerified
	}
	d.Changed = d.Label != verifier
	return d
}
