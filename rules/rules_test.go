package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

func TestParse(t *testing.T) {
	all, err := Parse("all")
	if err != nil || len(all) != len(Names) {
		t.Fatalf("all: %v %v", all, err)
	}
	none, err := Parse("none")
	if err != nil || len(none) != 0 {
		t.Fatalf("none: %v %v", none, err)
	}
	some, err := Parse("hedge, conflict")
	if err != nil || !some[Hedge] || !some[Conflict] || len(some) != 2 {
		t.Fatalf("list: %v %v", some, err)
	}
	if _, err := Parse("hedge,bogus"); err == nil {
		t.Error("an unknown rule was accepted")
	}
	if _, err := ParseEffect("sometimes"); err == nil {
		t.Error("an unknown effect was accepted")
	}
}

func TestNoRulesChangeNothing(t *testing.T) {
	in := Input{Claim: claims.Claim{Text: "Drug X may reduce symptoms.", Modality: "possibility"}, Label: label.Supported}
	r := Apply(in, Options{})
	expect(t, r, label.Supported, "")
}

func TestFirstRuleDecidesEveryRuleFlags(t *testing.T) {
	c := claims.Claim{Text: "Kael Falls may have had 638,000 residents.", Normalization: claims.Normalization{Entities: []string{"Kael Falls"}}}
	p := passage("d", "Kael Falls had 756,000 residents in 2022. Kael Falls had 638,000 residents in 2023.")
	all, _ := Parse("all")
	r := Apply(Input{Claim: c, Passages: []Passage{p}, Label: label.Supported}, Options{Enabled: all, Effect: EffectOverride})
	expect(t, r, label.Insufficient, "rule:underspecified", FlagUnderspecified, FlagHedged)
	if r.Rule != Underspecified {
		t.Errorf("rule %q", r.Rule)
	}
}
