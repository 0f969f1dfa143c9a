package claims

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDecideNumeric(t *testing.T) {
	mismatch := &NumericCheck{Status: NumericMismatch}
	verified := &NumericCheck{Status: NumericVerified}
	unverifiable := &NumericCheck{Status: NumericUnverifiable}
	tests := []struct {
		name     string
		verifier Label
		check    *NumericCheck
		effect   NumericEffect
		want     LabelDecision
	}{
		{"none ignores a mismatch", Supported, mismatch, EffectNone, LabelDecision{Label: Supported, Rule: RuleVerifier}},
		{"flag marks a mismatch", Supported, mismatch, EffectFlag, LabelDecision{Label: Supported, Rule: RuleVerifier, Flagged: true}},
		{"flag leaves verified alone", Unsupported, verified, EffectFlag, LabelDecision{Label: Unsupported, Rule: RuleVerifier}},
		{"override: mismatch makes unsupported", Supported, mismatch, EffectOverride, LabelDecision{Label: Unsupported, Rule: RuleNumericMismatch, Flagged: true, Changed: true}},
		{"override: mismatch on insufficient", Insufficient, mismatch, EffectOverride, LabelDecision{Label: Unsupported, Rule: RuleNumericMismatch, Flagged: true, Changed: true}},
		{"override: mismatch agreeing with the verifier", Unsupported, mismatch, EffectOverride, LabelDecision{Label: Unsupported, Rule: RuleNumericMismatch, Flagged: true}},
		{"override: verified vetoes unsupported", Unsupported, verified, EffectOverride, LabelDecision{Label: Insufficient, Rule: RuleNumericVerified, Changed: true}},
		{"override: verified and supported", Supported, verified, EffectOverride, LabelDecision{Label: Supported, Rule: RuleVerifier}},
		{"override: unverifiable changes nothing", Unsupported, unverifiable, EffectOverride, LabelDecision{Label: Unsupported, Rule: RuleVerifier}},
		{"override: no number", Supported, nil, EffectOverride, LabelDecision{Label: Supported, Rule: RuleVerifier}},
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

// Policies for audit run's numeric check: auto reads a number at the
// precision it is written in; a named policy applies seed 000's check.
func TestVerifyNumericPolicies(t *testing.T) {
	facts := FactsFromText("p", "Meridian Rail carried 48.2 million passengers in 2023. Punctuality reached 91.4% on regional lines.")
	tests := []struct {
		policy, claim, status, used string
	}{
		{PolicyAuto, "Meridian Rail carried 48 million passengers in 2023.", NumericVerified, "auto:rounded"},
		{PolicyAuto, "Meridian Rail carried 48.2 million passengers in 2023.", NumericVerified, "auto:rounded"},
		{PolicyAuto, "Meridian Rail carried 47 million passengers in 2023.", NumericMismatch, "auto:rounded"},
		{PolicyAuto, "Meridian Rail carried more than 45 million passengers in 2023.", NumericVerified, "auto:range"},
		{PolicyAuto, "Meridian Rail carried about 47 million passengers in 2023.", NumericVerified, "auto:tolerance"},
		{PolicyAuto, "Punctuality reached 91% on regional lines.", NumericVerified, "auto:rounded"},
		{PolicyAuto, "Punctuality reached 95% on regional lines.", NumericMismatch, "auto:rounded"},
		{PolicyExact, "Meridian Rail carried 48 million passengers in 2023.", NumericMismatch, PolicyExact},
		{"", "Punctuality reached 95% on regional lines.", NumericVerified, "rel_tol=0.05"},
	}
	for _, tt := range tests {
		c := VerifyNumeric(tt.claim, facts, MatchOptions{Policy: tt.policy})
		assert.Equal(t, tt.status, c.Status, "%s %s: %s", tt.policy, tt.claim, c.Reason)
		assert.Equal(t, tt.used, c.Policy, tt.claim)
	}
}
