package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

func TestNoEvidence(t *testing.T) {
	c := claims.Claim{Text: "The bridge opened in 1850."}
	r := Apply(Input{Claim: c, Abstain: AbstainNoEvidence, Deciding: -1}, only(NoEvidence, EffectOverride))
	expect(t, r, label.Insufficient, "rule:no_evidence", FlagNoEvidence)

	o := only(NoEvidence, EffectOverride)
	o.NoEvidence = NoEvidenceAbstain
	r = Apply(Input{Claim: c, Abstain: AbstainNoEvidence, Deciding: -1}, o)
	expect(t, r, label.None, "", FlagNoEvidence)

	r = Apply(Input{Claim: c, Passages: []Passage{passage("d", "The bridge opened in 1850.")}, Label: label.Supported}, only(NoEvidence, EffectOverride))
	expect(t, r, label.Supported, "")
}
