package numeric

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestComparators: each phrase, then its negation, against true values on
// both sides of the bound. A bound is satisfied by the fact, not approached
// within 5%.
func TestComparators(t *testing.T) {
	tests := []struct {
		phrase string
		cmp    Comparator
		// whether the claim "<phrase> 100 units" holds for actual 90, 96, 100, 104, 110
		holds [5]bool
	}{
		{"", CmpValue, [5]bool{false, true, true, true, false}},
		{"about", CmpApprox, [5]bool{false, true, true, true, false}},
		{"approximately", CmpApprox, [5]bool{false, true, true, true, false}},
		{"roughly", CmpApprox, [5]bool{false, true, true, true, false}},
		{"more than", CmpAbove, [5]bool{false, false, false, true, true}},
		{"over", CmpAbove, [5]bool{false, false, false, true, true}},
		{"above", CmpAbove, [5]bool{false, false, false, true, true}},
		{"exceeds", CmpAbove, [5]bool{false, false, false, true, true}},
		{"at least", CmpAtLeast, [5]bool{false, false, true, true, true}},
		{"no fewer than", CmpAtLeast, [5]bool{false, false, true, true, true}},
		{"no less than", CmpAtLeast, [5]bool{false, false, true, true, true}},
		{"less than", CmpBelow, [5]bool{true, true, false, false, false}},
		{"under", CmpBelow, [5]bool{true, true, false, false, false}},
		{"below", CmpBelow, [5]bool{true, true, false, false, false}},
		{"up to", CmpAtMost, [5]bool{true, true, true, false, false}},
		{"at most", CmpAtMost, [5]bool{true, true, true, false, false}},
		{"no more than", CmpAtMost, [5]bool{true, true, true, false, false}},
		{"nearly", CmpNearly, [5]bool{false, true, true, false, false}},
		{"almost", CmpNearly, [5]bool{false, true, true, false, false}},
	}
	actuals := []float64{90, 96, 100, 104, 110}
	for _, tt := range tests {
		for _, negate := range []bool{false, true} {
			phrase := tt.phrase
			if negate {
				phrase = "not " + phrase
			}
			text := fmt.Sprintf("The depot has %s 100 units.", phrase)
			ms := FindNumbers(text)
			require.Len(t, ms, 1, text)
			m := ms[0]
			assert.Equal(t, tt.cmp, m.Cmp, text)
			assert.Equal(t, negate && tt.phrase != "", m.Negated, text)
			for i, a := range actuals {
				want := tt.holds[i]
				if negate && tt.phrase != "" {
					want = !want
				}
				got, why := m.Holds(a, DefaultRelTol)
				assert.Equal(t, want, got, "%q against %g: %s", text, a, why)
			}
			// ParseQuantity reads the same phrase in front of a token.
			q, err := ParseQuantity(phrase + " 100 units")
			if tt.phrase == "" && negate {
				continue
			}
			require.NoError(t, err, phrase)
			assert.Equal(t, tt.cmp, q.Cmp, phrase)
			assert.Equal(t, negate && tt.phrase != "", q.Negated, phrase)
		}
	}
}

func TestBetween(t *testing.T) {
	ms := FindNumbers("Between 10 and 20 million passengers used the line.")
	require.Len(t, ms, 1)
	m := ms[0]
	assert.Equal(t, CmpBetween, m.Cmp)
	assert.Equal(t, "passengers", m.Unit)
	for _, tt := range []struct {
		actual float64
		want   bool
	}{{9e6, false}, {10e6, true}, {15e6, true}, {20e6, true}, {21e6, false}} {
		got, _ := m.Holds(tt.actual, DefaultRelTol)
		assert.Equal(t, tt.want, got, "%g", tt.actual)
	}
	q, err := ParseQuantity("not between 10 and 20")
	require.NoError(t, err)
	assert.True(t, q.Negated)
	got, _ := q.Holds(15, DefaultRelTol)
	assert.False(t, got)
	got, _ = q.Holds(25, DefaultRelTol)
	assert.True(t, got)
	_, err = ParseQuantity("between 10")
	assert.ErrorIs(t, err, ErrNotNumeric)
	assert.Empty(t, FindNumbers("It grew between 2010 and 2020."), "a span of years is not a numeric claim")
}

// The policies of seed 000 with a bound as the token: "more than 104" does
// not verify 100, under any policy.
func TestPolicyBounds(t *testing.T) {
	tests := []struct {
		policy, claim, token string
		want                 bool
	}{
		{PolicyTolerance, "100", "more than 104", false},
		{PolicyTolerance, "100", "more than 96", true},
		{PolicyTolerance, "100", "up to 104", true},
		{PolicyTolerance, "100", "up to 96", false},
		{PolicyTolerance, "100", "nearly 104", true},
		{PolicyTolerance, "100", "nearly 98", false},
		{PolicyTolerance, "100", "about 104", true},
		{PolicyAuto, "100", "more than 104", false},
		{PolicyAuto, "100", "over 90", true},
		{PolicyAuto, "100", "not more than 100", true},
		{PolicyAuto, "100", "at least 100", true},
		{PolicyAuto, "100", "less than 100", false},
		{PolicyAuto, "12%", "under 15%", true},
		{PolicyAuto, "15", "between 10 and 20", true},
		{PolicyAuto, "25", "between 10 and 20", false},
		{PolicyRange, "100", "more than 104", false},
		{PolicyExact, "100", "more than 99", false},
		{PolicyRounded, "100", "up to 100", false},
	}
	for _, tt := range tests {
		d := Check(tt.policy, PolicyParams{}, tt.claim, tt.token)
		assert.Equal(t, tt.want, d.Verified, "%s: claim %s, token %q: %s", tt.policy, tt.claim, tt.token, d.Reason)
	}
	d := Check(PolicyAuto, PolicyParams{}, "100", "more than 104")
	assert.Equal(t, "auto:range", d.Policy)
	assert.Contains(t, d.Reason, "100 is not more than 104")
}

func TestYearsIn(t *testing.T) {
	assert.Equal(t, []int{2023, 2022}, YearsIn("In 2023, up from 2022 and 2023."))
	assert.Equal(t, []int{2021}, YearsIn("Opened 2021-07-01."))
	assert.Empty(t, YearsIn("It sold 2,023 units for $2000, 1999% more."))
}
