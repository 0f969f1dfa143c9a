package lint

import (
	"testing"

	"github.com/claimaudit/claimaudit/label"

	"github.com/claimaudit/claimaudit/numeric"
	"github.com/stretchr/testify/assert"
)

func TestDecideNumeric(t *testing.T) {
	mismatch := &NumericCheck{Status: NumericMismatch}
	verified := &NumericCheck{Status: NumericVerified}
	unverifiable := &NumericCheck{Status: NumericUnverifiable}
	tests := []struct {
		name     string
		verifier label.Label
		check    *NumericCheck
		effect   NumericEffect
		want     LabelDecision
	}{
		{"none ignores a mismatch", label.Supported, mismatch, EffectNone, LabelDecision{Label: label.Supported, Rule: RuleVerifier}},
		{"flag marks a mismatch", label.Supported, mismatch, EffectFlag, LabelDecision{Label: label.Supported, Rule: RuleVerifier, Flagged: true}},
		{"flag leaves verified alone", label.Unsupported, verified, EffectFlag, LabelDecision{Label: label.Unsupported, Rule: RuleVerifier}},
		{"override: mismatch makes unsupported", label.Supported, mismatch, EffectOverride, LabelDecision{Label: label.Unsupported, Rule: RuleNumericMismatch, Flagged: true, Changed: true}},
		{"override: mismatch on insufficient", label.Insufficient, mismatch, EffectOverride, LabelDecision{Label: label.Unsupported, Rule: RuleNumericMismatch, Flagged: true, Changed: true}},
		{"override: mismatch agreeing with the verifier", label.Unsupported, mismatch, EffectOverride, LabelDecision{Label: label.Unsupported, Rule: RuleNumericMismatch, Flagged: true}},
		{"override: verified vetoes unsupported", label.Unsupported, verified, EffectOverride, LabelDecision{Label: label.Insufficient, Rule: RuleNumericVerified, Changed: true}},
		{"override: verified and supported", label.Supported, verified, EffectOverride, LabelDecision{Label: label.Supported, Rule: RuleVerifier}},
		{"override: unverifiable changes nothing", label.Unsupported, unverifiable, EffectOverride, LabelDecision{Label: label.Unsupported, Rule: RuleVerifier}},
		{"override: no number", label.Supported, nil, EffectOverride, LabelDecision{Label: label.Supported, Rule: RuleVerifier}},
		{"override: abstention stands, flagged", "", mismatch, EffectOverride, LabelDecision{Rule: RuleVerifier, Flagged: true}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, DecideNumeric(tt.verifier, tt.check, tt.effect), tt.name)
	}
	_, err := ParseNumericEffect("veto")
	assert.Error(t, err)
	e, err := ParseNumericEffect("override")
	assert.NoError(t, err)
	assert.Equal(t, EffectOverride, e)
}

// numeric.Policies for audit run's numeric check: auto reads a number at the
// precision it is written in; a named policy applies seed 000's check.
func TestVerifyNumericPolicies(t *testing.T) {
	facts := FactsFromText("p", "Meridian Rail carried 48.2 million passengers in 2023. Punctuality reached 91.4% on regional lines.")
	tests := []struct {
		policy, claim, status, used string
	}{
		{numeric.PolicyAuto, "Meridian Rail carried 48 million passengers in 2023.", NumericVerified, "auto:rounded"},
		{numeric.PolicyAuto, "Meridian Rail carried 48.2 million passengers in 2023.", NumericVerified, "auto:rounded"},
		{numeric.PolicyAuto, "Meridian Rail carried 47 million passengers in 2023.", NumericMismatch, "auto:rounded"},
		{numeric.PolicyAuto, "Meridian Rail carried more than 45 million passengers in 2023.", NumericVerified, "auto:range"},
		{numeric.PolicyAuto, "Meridian Rail carried about 47 million passengers in 2023.", NumericVerified, "auto:tolerance"},
		{numeric.PolicyAuto, "Punctuality reached 91% on regional lines.", NumericVerified, "auto:rounded"},
		{numeric.PolicyAuto, "Punctuality reached 95% on regional lines.", NumericMismatch, "auto:rounded"},
		{numeric.PolicyExact, "Meridian Rail carried 48 million passengers in 2023.", NumericMismatch, numeric.PolicyExact},
		{"", "Punctuality reached 95% on regional lines.", NumericVerified, "rel_tol=0.05"},
	}
	for _, tt := range tests {
		c := VerifyNumeric(tt.claim, facts, MatchOptions{Policy: tt.policy})
		assert.Equal(t, tt.status, c.Status, "%s %s: %s", tt.policy, tt.claim, c.Reason)
		assert.Equal(t, tt.used, c.Policy, tt.claim)
	}
}
