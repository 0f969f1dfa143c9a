package numeric

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every worked example of seeds 000 and 001, and the forms the claims issue
// lists, as table tests.
func TestPolicySeedExamples(t *testing.T) {
	tests := []struct {
		policy   string
		params   PolicyParams
		claim    string
		token    string
		verified bool
	}{
		// seed 000, exact: claim 5.7 %.
		{PolicyExact, PolicyParams{}, "5.7%", "5.7%", true},
		{PolicyExact, PolicyParams{}, "5.7%", "5.8%", false},
		// seed 000, rounded.
		{PolicyRounded, PolicyParams{Decimals: 1}, "5.7", "5.7", true},
		{PolicyRounded, PolicyParams{Decimals: 0}, "5.7", "6", true},
		{PolicyRounded, PolicyParams{Decimals: 1}, "5.7", "5.8", false},
		// seed 000, abbr: claim 1500 people.
		{PolicyAbbr, PolicyParams{}, "1500", "1.5K", true},
		{PolicyAbbr, PolicyParams{}, "1500", "1.5 thousand", true},
		{PolicyAbbr, PolicyParams{}, "2,000,000", "2M", true},
		{PolicyAbbr, PolicyParams{}, "3,200,000,000", "3.2B", true},
		{PolicyAbbr, PolicyParams{}, "1500", "1.6K", false},
		// seed 000, tolerance with qualifiers: claim 5.7 %.
		{PolicyTolerance, PolicyParams{RelTol: 0.05}, "5.7", "about 5.8", true},
		{PolicyTolerance, PolicyParams{RelTol: 0.05}, "5.7", "5.8", false},
		{PolicyTolerance, PolicyParams{RelTol: 0.01}, "5.7", "about 5.8", false},
		{PolicyTolerance, PolicyParams{AbsTol: 0.2}, "5.7", "approximately 5.85", true},
		{PolicyTolerance, PolicyParams{RelTol: 0.05, Qualifiers: []string{"roughly"}}, "5.7", "about 5.8", false},
		// seed 001: tolerance defaults to 5% relative.
		{PolicyTolerance, PolicyParams{}, "100", "about 105", true},
		{PolicyTolerance, PolicyParams{}, "100", "about 106", false},
		// percent: 12% ≡ 0.12.
		{PolicyPercent, PolicyParams{}, "12%", "0.12", true},
		{PolicyPercent, PolicyParams{}, "0.12", "12 percent", true},
		{PolicyPercent, PolicyParams{}, "12%", "0.13", false},
		// range: a value inside a stated range, and a range claim against a value.
		{PolicyRange, PolicyParams{}, "90%", "85-95%", true},
		{PolicyRange, PolicyParams{}, "97%", "85-95%", false},
		{PolicyRange, PolicyParams{}, "10–20", "15", true},
		{PolicyRange, PolicyParams{}, "10 to 20", "21", false},
		{PolicyRange, PolicyParams{}, "10-20", "12-18", true},
		// ratio.
		{PolicyRatio, PolicyParams{}, "one third", "0.33", true},
		{PolicyRatio, PolicyParams{}, "1/3", "33.3%", true},
		{PolicyRatio, PolicyParams{}, "1/3", "0.4", false},
		// year.
		{PolicyYear, PolicyParams{}, "2021", "2021-07-01", true},
		{PolicyYear, PolicyParams{}, "2021-07-01", "2022", false},
		// money and multipliers keep their units.
		{PolicyExact, PolicyParams{}, "$29", "$29", true},
		{PolicyExact, PolicyParams{}, "$29", "29%", false},
		{PolicyExact, PolicyParams{}, "3x", "3x", true},
		// time units convert: 100 ms = 0.1 s.
		{PolicyExact, PolicyParams{}, "0.1 s", "100 ms", true},
		// exact refuses a scale alias; abbr takes it.
		{PolicyExact, PolicyParams{}, "1500", "1.5K", false},
		// fail-closed.
		{PolicyExact, PolicyParams{}, "5.7", "n/a", false},
		{PolicyExact, PolicyParams{}, "lots", "5", false},
		{"bogus", PolicyParams{}, "5", "5", false},
	}
	for _, tt := range tests {
		d := Check(tt.policy, tt.params, tt.claim, tt.token)
		assert.Equal(t, tt.verified, d.Verified, "%s(%+v) claim %q token %q: %s", tt.policy, tt.params, tt.claim, tt.token, d.Reason)
		assert.NotEmpty(t, d.Reason)
	}
}

func TestAutoChoosesByShape(t *testing.T) {
	tests := []struct{ claim, token, chosen string }{
		{"2021", "2021-07-01", "auto:year"},
		{"90%", "85-95%", "auto:range"},
		{"1/3", "0.33", "auto:ratio"},
		{"12%", "0.12", "auto:percent"},
		{"5.7", "about 5.8", "auto:tolerance"},
		{"1500", "1.5K", "auto:abbr"},
		{"5.74", "5.7", "auto:rounded"},
		{"5.7", "5.7", "auto:exact"},
	}
	for _, tt := range tests {
		d := Check(PolicyAuto, PolicyParams{}, tt.claim, tt.token)
		assert.Equal(t, tt.chosen, d.Policy, "%q vs %q", tt.claim, tt.token)
		assert.True(t, d.Verified, "%q vs %q: %s", tt.claim, tt.token, d.Reason)
	}
}
