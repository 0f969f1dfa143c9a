package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

func TestConflictNumbers(t *testing.T) {
	c := claims.Claim{Text: "Kael Falls had 638,000 residents in 2023.", Normalization: claims.Normalization{Entities: []string{"Kael Falls"}}}
	a := passage("a", "Kael Falls had 638,000 residents in 2023.")
	b := passage("b", "Kael Falls had 812,000 residents in 2023.")
	r := Apply(Input{Claim: c, Passages: []Passage{a, b}, Label: label.Supported}, only(Conflict, EffectOverride))
	expect(t, r, label.Insufficient, "rule:conflict", FlagConflict)

	b.Doc.Authority = true
	r = Apply(Input{Claim: c, Passages: []Passage{a, b}, Label: label.Supported}, only(Conflict, EffectOverride))
	expect(t, r, label.Unsupported, "rule:conflict", FlagConflict, FlagAuthority)

	b.Doc.Authority, a.Doc.Authority = false, true
	r = Apply(Input{Claim: c, Passages: []Passage{a, b}, Label: label.Supported}, only(Conflict, EffectOverride))
	expect(t, r, label.Supported, "", FlagConflict, FlagAuthority)

	other := passage("b", "Quavor Harbour had 812,000 residents in 2023.")
	r = Apply(Input{Claim: c, Passages: []Passage{passage("a", a.Text), other}, Label: label.Supported}, only(Conflict, EffectOverride))
	expect(t, r, label.Supported, "")
}

func TestConflictPassageProbabilities(t *testing.T) {
	c := claims.Claim{Text: "The bridge opened in 1850."}
	sup, con, weak := [3]float64{0.8, 0.1, 0.1}, [3]float64{0.1, 0.75, 0.15}, [3]float64{0.3, 0.5, 0.2}
	mk := func(doc string, p [3]float64, auth bool) Passage {
		return Passage{DocID: doc, Text: "The bridge opened.", Probs: &p, Doc: Doc{Authority: auth}}
	}
	r := Apply(Input{Claim: c, Passages: []Passage{mk("a", sup, false), mk("b", con, false)}, Label: label.Supported}, only(Conflict, EffectOverride))
	expect(t, r, label.Insufficient, "rule:conflict", FlagConflict)
	r = Apply(Input{Claim: c, Passages: []Passage{mk("a", sup, false), mk("b", weak, false)}, Label: label.Supported}, only(Conflict, EffectOverride))
	expect(t, r, label.Supported, "")
	r = Apply(Input{Claim: c, Passages: []Passage{mk("a", sup, false), mk("b", con, true)}, Label: label.Supported}, only(Conflict, EffectOverride))
	expect(t, r, label.Unsupported, "rule:conflict", FlagConflict, FlagAuthority)
}

func TestConflictYears(t *testing.T) {
	c := claims.Claim{Text: "The Harlow bridge opened in 1850."}
	a := passage("a", "The Harlow bridge opened in 1850 after six years of work.")
	b := passage("b", "The Harlow bridge opened in 1870 after six years of work.")
	r := Apply(Input{Claim: c, Passages: []Passage{a, b}, Label: label.Supported}, only(Conflict, EffectOverride))
	expect(t, r, label.Insufficient, "rule:conflict", FlagConflict)
	a.Doc.Authority = true
	r = Apply(Input{Claim: c, Passages: []Passage{a, b}, Label: label.Unsupported}, only(Conflict, EffectOverride))
	expect(t, r, label.Supported, "rule:conflict", FlagConflict, FlagAuthority)
	r = Apply(Input{Claim: c, Passages: []Passage{b, passage("c", "The Harlow bridge opened in 1870.")}, Label: label.Unsupported}, only(Conflict, EffectOverride))
	expect(t, r, label.Unsupported, "")
}
