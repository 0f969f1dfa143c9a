package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/label"
)

func TestReplay(t *testing.T) {
	r := Replay([]string{FlagHedged}, label.Supported, label.None, EffectOverride, false)
	expect(t, r, label.Insufficient, "rule:hedge", FlagHedged)
	r = Replay([]string{FlagHedged}, label.Insufficient, label.None, EffectOverride, false)
	expect(t, r, label.Insufficient, "", FlagHedged)
	r = Replay([]string{FlagQualifierMissing}, label.Unsupported, label.None, EffectOverride, false)
	expect(t, r, label.Insufficient, "rule:qualifier", FlagQualifierMissing)
	r = Replay([]string{FlagQualifierDiffers}, label.Unsupported, label.None, EffectOverride, false)
	expect(t, r, label.Unsupported, "", FlagQualifierDiffers)
	r = Replay([]string{FlagQualifierDiffers}, label.Supported, label.None, EffectOverride, false)
	expect(t, r, label.Insufficient, "rule:qualifier", FlagQualifierDiffers)
	r = Replay([]string{FlagNumericMismatch}, label.Supported, label.None, EffectOverride, false)
	expect(t, r, label.Unsupported, "rule:numeric", FlagNumericMismatch)
	r = Replay([]string{FlagNumericMismatch}, label.Supported, label.None, EffectOverride, true)
	expect(t, r, label.Supported, "", FlagNumericMismatch)
	r = Replay([]string{FlagNumericBound}, label.Unsupported, label.None, EffectOverride, false)
	expect(t, r, label.Insufficient, "rule:numeric", FlagNumericBound)
	r = Replay([]string{FlagConflict, FlagAuthority}, label.Supported, label.Unsupported, EffectOverride, false)
	expect(t, r, label.Unsupported, "rule:conflict", FlagConflict, FlagAuthority)
	r = Replay([]string{FlagConflict, FlagHedged}, label.Supported, label.None, EffectFlag, false)
	expect(t, r, label.Supported, "", FlagConflict, FlagHedged)
	if r.Rule != Conflict || r.RuleLabel != label.Insufficient {
		t.Errorf("flag effect: rule %q %q", r.Rule, r.RuleLabel)
	}
}

// Replay gives what Apply gave when the label so far is the same.
func TestReplayAgreesWithApply(t *testing.T) {
	all, _ := Parse("all")
	for _, in := range []Input{
		{Claim: hedgedClaim(), Passages: []Passage{passage("d", "Drug X reduces symptoms.")}, Label: label.Supported},
		{Claim: hedgedClaim(), Passages: []Passage{passage("d", "Drug X reduces symptoms.")}, Label: label.Unsupported},
	} {
		a := Apply(in, Options{Enabled: all, Effect: EffectOverride})
		b := Replay(a.Flags, in.Label, label.None, EffectOverride, false)
		if a.Label != b.Label || a.DecidedBy != b.DecidedBy || a.Rule != b.Rule {
			t.Errorf("apply %+v, replay %+v", a, b)
		}
	}
}
