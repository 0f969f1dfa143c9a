package lint

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The seed 001 details of the numbers issue, case by case.
func TestSeed001Details(t *testing.T) {
	facts := []Fact{
		{ID: "rules", Description: "Number of built-in rules", Value: 25, Unit: "rules"},
		{ID: "staff", Description: "people on the team", Value: 8200, Unit: "people"},
	}
	tests := []struct {
		text, status string
	}{
		// The entity guard applies only when the fact names an entity:
		// the seed's formula accepts these.
		{"ISL includes 25 built-in rules.", NumericVerified},
		{"25 rules available.", NumericVerified},
		// No entity carried over from the sentence before on the line.
		{"Revenue grew 12% last year. The team is 8,200 people.", NumericVerified},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range Lint(tt.text, facts, LintOptions{}) {
			if f.Claim.Unit != "%" {
				got = append(got, f.Check.Status+": "+f.Check.Reason)
			}
		}
		require.Len(t, got, 1, tt.text)
		assert.True(t, strings.HasPrefix(got[0], tt.status), "%s: %s", tt.text, got[0])
	}
}

// A bare number, and numbers in markup, are not claims; nothing in markup
// is rewritten.
func TestLintReadsProseOnly(t *testing.T) {
	text := "Line 1\nLine 2\n<div class=\"mb-2 text-6xl\">Fast</div>\nSee [the guide](https://x.test/v2/page-3) and `retry(3)`.\n<p data-n=\"40\">Over 40% of teams</p>"
	fs := Lint(text, nil, LintOptions{IncludeHedged: true})
	require.Len(t, fs, 1, "only the 40%% in the paragraph's prose: %+v", fs)
	assert.Equal(t, 5, fs[0].Claim.Line)
	assert.Equal(t, "40%", fs[0].Claim.Text)
	out, _ := Soften(text, fs, SoftenOptions{Style: Moderate})
	assert.Contains(t, out, `<div class="mb-2 text-6xl">Fast</div>`)
	assert.Contains(t, out, `<p data-n="40">`)
	assert.Contains(t, out, "Line 1\nLine 2\n")
}

// Softening never rewrites a verified (or outdated) claim, whatever the
// style, threshold or eligibility of mismatches.
func TestSoftenNeverRewritesVerified(t *testing.T) {
	facts := []Fact{
		{ID: "acc", Description: "detection accuracy", Value: 94, Unit: "%"},
		{ID: "rules", Description: "built-in rules", Value: 25, Unit: "rules"},
		{ID: "staff", Description: "people on the team", Value: 8200, Unit: "people"},
	}
	text := "Detection accuracy is 94%.\nIt ships 25 built-in rules.\nRevenue grew 12%. The team is 8,200 people.\nAccuracy is 94% (source: Q3 report)."
	for _, style := range []SoftenStyle{Conservative, Moderate, Aggressive} {
		for _, threshold := range []float64{0.01, 0.5, 1} {
			fs := Lint(text, facts, LintOptions{})
			out, ss := Soften(text, fs, SoftenOptions{Style: style, ConfidenceThreshold: threshold, SoftenMismatches: true})
			verified := 0
			for i, f := range fs {
				if f.Check.Verified() {
					verified++
					assert.Empty(t, ss[i].Replacement, "%s %v: %q", style, threshold, f.Claim.Text)
					assert.Contains(t, strings.Split(out, "\n")[f.Claim.Line-1], f.Claim.Text)
				}
			}
			assert.Equal(t, 4, verified, "94%%, 25 rules, 8,200 people and the sourced 94%%")
		}
	}
}

// Seed 001 rule 2: up to two intervening words, so "25 brand new shiny
// rules" names no unit (it used to read as 25 "brand"), and a bare number
// is no claim.
func TestCountNeedsItsNounWithinTwoWords(t *testing.T) {
	assert.Empty(t, NumericClaims("We ship 25 brand new shiny rules.", true, true))
	cs := NumericClaims("We ship 25 built-in rules.", true, true)
	require.Len(t, cs, 1)
	assert.Equal(t, "rules", cs[0].Unit)
}
