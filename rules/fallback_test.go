package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

func TestFallback(t *testing.T) {
	c := claims.Claim{Text: "The bridge opened in 1850."}
	ps := []Passage{passage("d", "The bridge opened in 1850.")}
	r := Apply(Input{Claim: c, Passages: ps, Abstain: "error", Fallback: label.Supported}, only(Fallback, EffectOverride))
	expect(t, r, label.Supported, "fallback", FlagFallback)

	r = Apply(Input{Claim: c, Passages: ps, Abstain: "error", Fallback: label.Supported}, only(Fallback, EffectFlag))
	expect(t, r, label.None, "", FlagFallback)

	r = Apply(Input{Claim: c, Passages: ps, Label: label.Unsupported}, only(Fallback, EffectOverride))
	expect(t, r, label.Unsupported, "")
}
