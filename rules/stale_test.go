package rules

import (
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

func TestStale(t *testing.T) {
	doc := func(created string) []Passage {
		p := passage("d", "Kael Falls had 638,000 residents in 2023.")
		p.Doc.CreatedAt, _ = time.Parse(time.DateOnly, created)
		return []Passage{p}
	}
	c := claims.Claim{Text: "Kael Falls had 638,000 residents.", Timeframe: &claims.Timeframe{AsOf: "2025-06-01"}}
	r := Apply(Input{Claim: c, Passages: doc("2023-01-10"), Label: label.Supported}, only(Stale, EffectOverride))
	expect(t, r, label.Supported, "", FlagStale, "evidence_age=2y")

	r = Apply(Input{Claim: c, Passages: doc("2024-12-01"), Label: label.Supported}, only(Stale, EffectOverride))
	expect(t, r, label.Supported, "")

	o := only(Stale, EffectOverride)
	o.MaxAge = 100 * 24 * time.Hour
	r = Apply(Input{Claim: c, Passages: doc("2024-12-01"), Label: label.Supported}, o)
	expect(t, r, label.Supported, "", FlagStale, "evidence_age=182d")

	// A claim without a date is aged against the run's date (Today); with
	// no date given either, it is never stale.
	noDate := claims.Claim{Text: "Kael Falls had 638,000 residents."}
	r = Apply(Input{Claim: noDate, Passages: doc("2001-01-01"), Label: label.Supported}, only(Stale, EffectOverride))
	expect(t, r, label.Supported, "")
	o = only(Stale, EffectOverride)
	o.Today = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	r = Apply(Input{Claim: noDate, Passages: doc("1990-03-01"), Label: label.Supported}, o)
	expect(t, r, label.Supported, "", FlagStale, "evidence_age=36y")
	r = Apply(Input{Claim: noDate, Passages: doc("2026-01-01"), Label: label.Supported}, o)
	expect(t, r, label.Supported, "")
	// as_of (when the claim was made) wins over the run's date.
	r = Apply(Input{Claim: c, Passages: doc("2024-12-01"), Label: label.Supported}, o)
	expect(t, r, label.Supported, "")
}
