package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

func TestHedge(t *testing.T) {
	ps := []Passage{passage("d1", "Drug X reduces symptoms in adults.")}
	for _, tc := range []struct {
		name     string
		claim    claims.Claim
		passages []Passage
		want     label.Label
		by       string
		flags    []string
	}{
		{"possibility modality", claims.Claim{Text: "Drug X reduces symptoms.", Modality: "possibility"}, ps, label.Insufficient, "rule:hedge", []string{FlagHedged}},
		{"cue in the text", claims.Claim{Text: "Drug X may reduce symptoms."}, ps, label.Insufficient, "rule:hedge", []string{FlagHedged}},
		{"reported belief", claims.Claim{Text: "Drug X is thought to reduce symptoms."}, ps, label.Insufficient, "rule:hedge", []string{FlagHedged}},
		{"passage states the possibility", claims.Claim{Text: "Drug X may reduce symptoms."},
			[]Passage{passage("d1", "Trials suggest drug X may reduce symptoms.")}, label.Supported, "", nil},
		{"May the month is no hedge", claims.Claim{Text: "The bridge opened in May 1850."}, ps, label.Supported, "", nil},
		{"an assertion", claims.Claim{Text: "Drug X reduces symptoms.", Modality: "assertion"}, ps, label.Supported, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Apply(Input{Claim: tc.claim, Passages: tc.passages, Label: label.Supported}, only(Hedge, EffectOverride))
			expect(t, r, tc.want, tc.by, tc.flags...)
		})
	}
	t.Run("flag effect keeps the label", func(t *testing.T) {
		r := Apply(Input{Claim: claims.Claim{Text: "Drug X may reduce symptoms."}, Passages: ps, Label: label.Supported}, only(Hedge, EffectFlag))
		expect(t, r, label.Supported, "", FlagHedged)
		if r.Rule != Hedge || r.RuleLabel != label.Insufficient {
			t.Errorf("rule %q label %q, want hedge's insufficient recorded for the metrics", r.Rule, r.RuleLabel)
		}
	})
	t.Run("abstained claims stay abstained", func(t *testing.T) {
		r := Apply(Input{Claim: claims.Claim{Text: "Drug X may reduce symptoms."}, Passages: ps, Abstain: "low_confidence"}, only(Hedge, EffectOverride))
		expect(t, r, label.None, "", FlagHedged)
	})
}
