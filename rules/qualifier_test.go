package rules

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

func TestQualifier(t *testing.T) {
	y2020 := &claims.Timeframe{Start: "2020-01-01", End: "2020-12-31"}
	kael := claims.Normalization{Entities: []string{"Kael Falls"}}
	for _, tc := range []struct {
		name     string
		claim    claims.Claim
		passages []string
		want     label.Label
		by       string
		flags    []string
	}{
		{"another year only", claims.Claim{Text: "Kael Falls had 638,000 residents in 2020.", Timeframe: y2020, Normalization: kael},
			[]string{"Kael Falls had 638,000 residents in 2021."}, label.Insufficient, "rule:qualifier", []string{FlagQualifierDiffers}},
		{"no year at all", claims.Claim{Text: "Kael Falls had 638,000 residents in 2020.", Timeframe: y2020, Normalization: kael},
			[]string{"Kael Falls had 638,000 residents."}, label.Insufficient, "rule:qualifier", []string{FlagQualifierMissing}},
		{"as_of is not a year to find", claims.Claim{Text: "The Tamsin Bridge opened in 1850.", Timeframe: &claims.Timeframe{AsOf: "2024-05-01"}},
			[]string{"The Tamsin Bridge opened in 1850."}, label.Supported, "", nil},
		{"location not named", claims.Claim{Text: "The fee is $150 in California.", Qualifiers: claims.Qualifiers{Location: "California"}},
			[]string{"The fee is $150."}, label.Insufficient, "rule:qualifier", []string{FlagQualifierMissing}},
		{"the year is there", claims.Claim{Text: "Kael Falls had 638,000 residents in 2020.", Timeframe: y2020, Normalization: kael},
			[]string{"Kael Falls had 638,000 residents in 2020."}, label.Supported, "", nil},
		{"another passage holds it", claims.Claim{Text: "Kael Falls had 638,000 residents in 2020.", Timeframe: y2020, Normalization: kael},
			[]string{"Kael Falls had 638,000 residents in 2021.", "In 2020 Kael Falls counted 638,000 residents."}, label.Supported, "", nil},
		{"entity absent", claims.Claim{Text: "Brivorlo Falls had 638,000 residents.", Normalization: claims.Normalization{Entities: []string{"Brivorlo Falls"}}},
			[]string{"Kael Falls had 638,000 residents."}, label.Insufficient, "rule:qualifier", []string{FlagQualifierMissing}},
		{"population absent", claims.Claim{Text: "The drug reduces symptoms in children.", Qualifiers: claims.Qualifiers{Population: "children"}},
			[]string{"The drug reduces symptoms in adults."}, label.Insufficient, "rule:qualifier", []string{FlagQualifierMissing}},
		{"negative claim, positive passage", claims.Claim{Text: "The bridge did not open in 1850.", Polarity: "negative"},
			[]string{"The bridge opened in 1850."}, label.Unsupported, "rule:qualifier", []string{FlagPolarity}},
		{"negative claim, negative passage", claims.Claim{Text: "The bridge did not open in 1850.", Polarity: "negative"},
			[]string{"The bridge did not open until 1870."}, label.Supported, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ps []Passage
			for _, p := range tc.passages {
				ps = append(ps, passage("d", p))
			}
			r := Apply(Input{Claim: tc.claim, Passages: ps, Label: label.Supported}, only(Qualifier, EffectOverride))
			expect(t, r, tc.want, tc.by, tc.flags...)
		})
	}
	// A passage about another year can exclude the claim's: unsupported
	// stands. One that does not address the claim's place, population,
	// condition or time cannot contradict it: insufficient.
	for _, tc := range []struct {
		name    string
		claim   claims.Claim
		passage string
		want    label.Label
		flag    string
	}{
		{"another year: unsupported stands", claims.Claim{Text: "Kael Falls had 900,000 residents in 2020.", Timeframe: y2020, Normalization: kael},
			"Kael Falls had 638,000 residents in 2021.", label.Unsupported, FlagQualifierDiffers},
		{"no place: insufficient", claims.Claim{Text: "The fee is $150 in California.", Qualifiers: claims.Qualifiers{Location: "California"}},
			"The fee is $200.", label.Insufficient, FlagQualifierMissing},
		{"no condition: insufficient", claims.Claim{Text: "Refunds take 5 days for damaged goods.", Qualifiers: claims.Qualifiers{Condition: "damaged goods"}},
			"Refunds take 14 days.", label.Insufficient, FlagQualifierMissing},
		{"no year: insufficient", claims.Claim{Text: "Kael Falls had 900,000 residents in 2020.", Timeframe: y2020, Normalization: kael},
			"Kael Falls had 638,000 residents.", label.Insufficient, FlagQualifierMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Apply(Input{Claim: tc.claim, Passages: []Passage{passage("d", tc.passage)}, Label: label.Unsupported}, only(Qualifier, EffectOverride))
			by := ""
			if tc.want != label.Unsupported {
				by = "rule:qualifier"
			}
			expect(t, r, tc.want, by, tc.flag)
		})
	}
}
