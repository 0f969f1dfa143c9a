package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

func TestUnderspecified(t *testing.T) {
	kael := claims.Normalization{Entities: []string{"Kael Falls"}}
	byYear := passage("d", "Kael Falls had 756,000 residents in 2022. Kael Falls had 638,000 residents in 2023.")
	same := passage("d", "Kael Falls had 638,000 residents in 2022. Kael Falls had 638,000 residents in 2023.")
	other := passage("e", "Quavor Harbour had 980,000 residents in 2022. Quavor Harbour had 870,000 residents in 2023.")
	for _, tc := range []struct {
		name  string
		claim claims.Claim
		ps    []Passage
		want  label.Label
		flags []string
	}{
		{"values differ by year", claims.Claim{Text: "Kael Falls had 638,000 residents.", Normalization: kael}, []Passage{byYear},
			label.Insufficient, []string{FlagUnderspecified}},
		{"the claim names its year", claims.Claim{Text: "Kael Falls had 638,000 residents in 2023.", Normalization: kael}, []Passage{byYear},
			label.Supported, nil},
		{"the same value every year", claims.Claim{Text: "Kael Falls had 638,000 residents.", Normalization: kael}, []Passage{same},
			label.Supported, nil},
		{"another subject's years", claims.Claim{Text: "Kael Falls had 638,000 residents.", Normalization: kael},
			[]Passage{passage("d", "Kael Falls had 638,000 residents."), other}, label.Supported, nil},
		{"no number", claims.Claim{Text: "Kael Falls has a mayor.", Normalization: kael}, []Passage{byYear}, label.Supported, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Apply(Input{Claim: tc.claim, Passages: tc.ps, Label: label.Supported}, only(Underspecified, EffectOverride))
			by := ""
			if tc.want != label.Supported {
				by = "rule:underspecified"
			}
			expect(t, r, tc.want, by, tc.flags...)
		})
	}
}
