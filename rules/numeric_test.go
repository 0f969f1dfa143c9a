package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/numeric"
)

// A number the evidence about the same entity, quantity and year gives
// otherwise is unsupported whatever the verifier said; one the evidence
// only bounds is insufficient; one it agrees with, or evidence about
// another entity, year or quantity, leaves the label alone.
func TestNumericRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		claim   string
		passage string
		so      label.Label
		want    label.Label
		flags   []string
	}{
		{"residents", "Orlo Bay had 460,000 residents in 2021.", "Orlo Bay had 451,000 residents in 2021.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"beds, insufficient so far", "Halka Medical Centre has 1,340 beds.", "Halka Medical Centre has 1,100 beds.", label.Insufficient, label.Unsupported, []string{FlagNumericMismatch}},
		{"a percentage", "Unemployment in Dravo reached 7.5% in 2020.", "Unemployment in Dravo reached 9.1% in 2020.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"money", "The Pelk Museum ticket costs $25.", "The Pelk Museum ticket costs $40.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"as written", "Orlo Bay had 451,000 residents in 2021.", "Orlo Bay had 451,000 residents in 2021.", label.Supported, label.Supported, nil},
		// Under auto a bare figure is read at the precision it is written
		// in: trailing zeros are digits (451 thousand would round).
		{"as written, trailing zeros", "Orlo Bay had 450,000 residents in 2021.", "Orlo Bay had 451,200 residents in 2021.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"a scale word rounds", "Tovik had 451 thousand residents in 2018.", "Tovik had 451,287 residents in 2018.", label.Supported, label.Supported, nil},
		{"about rounds", "Tovik had about 450,000 residents in 2018.", "Tovik had 451,287 residents in 2018.", label.Supported, label.Supported, nil},
		{"digits as written", "Tovik had 451,295 residents in 2018.", "Tovik had 451,287 residents in 2018.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"a change is not a level", "Turnout in Brask rose by 5% in 2022.", "Turnout in Brask was 61.4% in 2022.", label.Supported, label.Supported, nil},
		{"made up is a level", "International students made up 21% of enrolment at Elhal University in 2021.", "International students made up 17% of enrolment at Elhal University in 2021.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"up is a change", "Sales at Kadan Systems were up 14% in 2021.", "Sales at Kadan Systems were 140 million in 2021.", label.Supported, label.Supported, nil},
		{"a change against a change", "Turnout in Brask rose by 5% in 2022.", "Turnout in Brask rose by 2% in 2022.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"an attribution is not the subject", "Pomra had 25,000 residents in 2022, the Interior Ministry said.", "Pomra had 18,000 residents in 2022.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"according to", "According to Statistics Norway, Pomra Hospital has 500 beds.", "Pomra Hospital has 300 beds.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"what it is compared with", "Arlen Hospital has 300 beds, more than Kerrow Hospital.", "Kerrow Hospital has 250 beds.", label.Supported, label.Supported, nil},
		{"a possessive names the entity", "Marsh Hospital has 410 beds.", "Marsh Hospital's 380 beds serve the valley.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"one clause, another entity", "North Holby had 54,000 residents in 2022.", "Holby had 54,000 residents in 2022, and North Holby had 31,000.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"an abbreviated title", "Mount Olver is 2,310 metres high.", "Mt. Olver is 2,450 metres high.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"the city of", "Marrow had 240,000 residents in 2020.", "The City of Marrow had 251,000 residents in 2020.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"a province is not its town", "Leffe had 40,000 residents in 2020.", "The province of Leffe had 402,000 residents in 2020.", label.Supported, label.Supported, nil},
		{"millions as written", "Orlo Bay had 48 million visitors in 2021.", "Orlo Bay had 48.2 million visitors in 2021.", label.Supported, label.Supported, nil},
		{"another entity", "Orlo Bay had 460,000 residents in 2021.", "Orlo Bay Heights had 451,000 residents in 2021.", label.Supported, label.Supported, nil},
		{"another year", "Orlo Bay had 460,000 residents in 2021.", "Orlo Bay had 451,000 residents in 2019.", label.Supported, label.Supported, nil},
		{"another quantity", "Orlo Bay had 460,000 residents in 2021.", "Orlo Bay covers 451 square kilometres.", label.Supported, label.Supported, nil},
		{"a bound, above it", "Vasko Mills employed 5,000 workers.", "Vasko Mills employed more than 1,000 workers.", label.Unsupported, label.Insufficient, []string{FlagNumericBound}},
		{"a bound, just above it", "Vasko Mills employed 1,200 workers.", "Vasko Mills employed more than 1,000 workers.", label.Supported, label.Insufficient, []string{FlagNumericBound}},
		{"a bound, below it", "Vasko Mills employed 600 workers.", "Vasko Mills employed more than 1,000 workers.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
		{"a bound entails a bound", "Vasko Mills employed more than 500 workers.", "Vasko Mills employed more than 1,000 workers.", label.Supported, label.Supported, nil},
		{"an upper bound", "Tickets to the Pelk Museum cost $45.", "Tickets to the Pelk Museum cost up to $30.", label.Supported, label.Unsupported, []string{FlagNumericMismatch}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Claim: claims.Claim{Text: tc.claim}, Passages: []Passage{passage("a", tc.passage)}, Label: tc.so}
			o := only(Numeric, EffectOverride)
			o.NumericPolicy = numeric.PolicyAuto
			r := Apply(in, o)
			by := ""
			if tc.want != tc.so {
				by = "rule:numeric"
			}
			expect(t, r, tc.want, by, tc.flags...)
		})
	}
	// --numeric-effect flag: the rule flags and leaves the label; none: off.
	in := Input{Claim: claims.Claim{Text: "Orlo Bay had 460,000 residents in 2021."}, Passages: []Passage{passage("a", "Orlo Bay had 451,000 residents in 2021.")}, Label: label.Supported}
	o := only(Numeric, EffectOverride)
	o.NumericPolicy, o.NumericEffect = numeric.PolicyAuto, lint.EffectFlag
	expect(t, Apply(in, o), label.Supported, "", FlagNumericMismatch)
	o.NumericEffect = lint.EffectNone
	expect(t, Apply(in, o), label.Supported, "")
	// The policy is the run's: 460,000 is 451,000 within a relative
	// tolerance of 5% (the policy "", seed 001's).
	o = only(Numeric, EffectOverride)
	o.NumericPolicy = ""
	expect(t, Apply(in, o), label.Supported, "")
}
