package numeric

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailClosed: a token verifies only if it is exactly one quantity.
// Every breach the numbers issue lists (and its neighbours) is a row that
// must not verify, under the policy that would otherwise let it through.
func TestFailClosed(t *testing.T) {
	tests := []struct {
		policy, claim, token string
		why                  string // what the reason must say
	}{
		{PolicyExact, "5", "five point seven", "does not parse"},
		{PolicyExact, "5.7", "five point seven", "does not parse"},
		{PolicyExact, "5.7", "5.7 or 9", "does not parse"},
		{PolicyExact, "9", "5.7 or 9", "does not parse"},
		{PolicyExact, "2024", "2024 and 2025", "does not parse"},
		{PolicyYear, "2024", "2024 and 2025", "does not parse"},
		{PolicyExact, "1", "1 in 4", "differs"}, // a ratio, 0.25
		{PolicyRounded, "1", "1 in 4", "differs"},
		{PolicyExact, "5.7", "5.7abc", "does not parse"},
		{PolicyExact, "5.7", "5.7 abc 9", "does not parse"},
		{PolicyExact, "12%", "12% of 40", "does not parse"},
		{PolicyExact, "12%", "12% or 13%", "does not parse"},
		{PolicyExact, "$29", "$29 or $30", "does not parse"},
		{PolicyExact, "3x", "3x 4x", "does not parse"},
		{PolicyExact, "5", "5 to", "does not parse"},
		{PolicyExact, "5", "5 5", "does not parse"},
		{PolicyExact, "25", "25 brand new shiny rules", "does not parse"},
		{PolicyAbbr, "1500", "1.5Kabc", "does not parse"},
		{PolicyTolerance, "5.7", "about 5.7 or 9", "does not parse"},
		{PolicyAuto, "5.7", "5.7 or 9", "does not parse"},
		{PolicyAuto, "2024", "2024 and 2025", "does not parse"},
		{PolicyAuto, "5.7", "5.7abc", "does not parse"},
		{PolicyAuto, "5", "five point seven", "does not parse"},
	}
	for _, tt := range tests {
		d := Check(tt.policy, PolicyParams{}, tt.claim, tt.token)
		assert.False(t, d.Verified, "%s: claim %q token %q verified: %s", tt.policy, tt.claim, tt.token, d.Reason)
		assert.Contains(t, d.Reason, tt.why, "%s: claim %q token %q", tt.policy, tt.claim, tt.token)
	}
}

// TestOneQuantityStillParses: what fail-closed parsing must keep reading.
func TestOneQuantityStillParses(t *testing.T) {
	tests := []struct {
		in    string
		kind  Kind
		value float64
		unit  string
	}{
		{"48.2 million passengers", KindNumber, 48.2e6, "passengers"},
		{"25 built-in rules", KindNumber, 25, "built"},
		{"3x faster", KindMultiplier, 3, "x"},
		{"$29/user", KindMoney, 29, "dollars"},
		{"$29 per seat", KindMoney, 29, "dollars"},
		{"100ms", KindNumber, 100, "ms"},
		{"5 km", KindNumber, 5, "km"},
		{"5 kilometres", KindNumber, 5, "km"},
		{"2 percentage points", KindNumber, 2, "pp"},
		{"12 percent", KindPercent, 12, "%"},
		{"about 5.8", KindNumber, 5.8, ""},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.kind, q.Kind, tt.in)
		assert.InDelta(t, tt.value, q.Value, 1e-9*math.Max(1, math.Abs(tt.value)), tt.in)
		assert.Equal(t, tt.unit, q.Unit, tt.in)
	}
}

// TestParseShapes: ratios, scientific notation and month-year dates.
func TestParseShapes(t *testing.T) {
	tests := []struct {
		in    string
		kind  Kind
		value float64
	}{
		{"1:4", KindRatio, 0.25},
		{"3 : 4", KindRatio, 0.75},
		{"1 in 4", KindRatio, 0.25},
		{"one in four", KindRatio, 0.25},
		{"2 out of 3", KindRatio, 2.0 / 3},
		{"half", KindRatio, 0.5},
		{"a third", KindRatio, 1.0 / 3},
		{"three quarters", KindRatio, 0.75},
		{"4.5e9", KindNumber, 4.5e9},
		{"1.2E-3", KindNumber, 0.0012},
		{"July 2021", KindDate, 2021},
		{"Sept. 2019", KindDate, 2019},
		{"2021-07", KindDate, 2021},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.kind, q.Kind, tt.in)
		assert.InDelta(t, tt.value, q.Value, 1e-9*math.Max(1, math.Abs(tt.value)), tt.in)
	}
	q, err := ParseQuantity("July 2021")
	require.NoError(t, err)
	assert.Equal(t, "2021-07-01", q.Date.Format("2006-01-02"))
	for _, in := range []string{"1:0", "Julember 2021", "2021-13", "1 in 4 or 5"} {
		_, err := ParseQuantity(in)
		assert.ErrorIs(t, err, ErrNotNumeric, in)
	}
}

// TestUnitsConvert: the unit table converts within a dimension, never
// across one, and a spaced "m" against a length is metres.
func TestUnitsConvert(t *testing.T) {
	tests := []struct {
		policy, claim, token string
		verified             bool
	}{
		{PolicyExact, "5 km", "5000 m", true},
		{PolicyExact, "5000 m", "5 km", true},
		{PolicyExact, "5000 metres", "5 kilometres", true},
		{PolicyExact, "2 kg", "2000 g", true},
		{PolicyExact, "1 mi", "1609.344 m", true},
		{PolicyExact, "0.1 s", "100 ms", true},
		{PolicyExact, "2 h", "120 minutes", true},
		{PolicyExact, "5 km", "5 kg", false},
		{PolicyExact, "5 dollars", "$5", true},
		{PolicyExact, "$5", "5 euros", false},
		{PolicyExact, "2%", "2 percentage points", false},
		{PolicyAbbr, "5000000", "5 m", true}, // no length: m is million
		{PolicyExact, "5 km", "5.1 km", false},
	}
	for _, tt := range tests {
		d := Check(tt.policy, PolicyParams{}, tt.claim, tt.token)
		assert.Equal(t, tt.verified, d.Verified, "%s: claim %q token %q: %s", tt.policy, tt.claim, tt.token, d.Reason)
	}
}

// TestShortestFormatting: derived numbers show no arithmetic noise.
func TestShortestFormatting(t *testing.T) {
	assert.Equal(t, "0.285", FormatNumber(28.5/100))
	assert.Equal(t, "0.3", FormatNumber(0.1+0.2))
	assert.Equal(t, "5.7", FormatNumber(5.7))
	d := Check(PolicyRatio, PolicyParams{}, "0.285", "28.5%")
	assert.True(t, d.Verified, d.Reason)
	assert.NotContains(t, d.Reason, "00000")
}

// TestFailClosedUnderEveryPolicy: parsing fails closed before any policy
// decides, so the breaches verify under no built-in policy, alone
// or all of them together as one set (R = 1 if any mode holds).
func TestFailClosedUnderEveryPolicy(t *testing.T) {
	breaches := []struct{ claim, token string }{
		{"5", "five point seven"},
		{"5.7", "5.7 or 9"},
		{"2024", "2024 and 2025"},
		{"1", "1 in 4"},
		{"5.7", "5.7abc"},
	}
	var none PolicySet
	names := append(append([]string(nil), Policies...), "round0", "round1", "round2")
	for _, b := range breaches {
		for _, name := range append(names, strings.Join(names, ",")) {
			p, err := none.Resolve(name, PolicyParams{})
			require.NoError(t, err, name)
			d := p.Check(b.claim, b.token)
			assert.False(t, d.Verified, "policy %s: claim %q token %q verified: %s", name, b.claim, b.token, d.Reason)
		}
	}
}
