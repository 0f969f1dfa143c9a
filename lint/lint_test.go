package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Seed 001, extraction rules 1, 4, 5 and 6: per line, hedged and contextual
// claims skipped by default, one claim per line and value.
func TestNumericClaimsRules(t *testing.T) {
	text := "Accuracy is 94% and recall 94%.\nAbout 80% of teams use it.\nIn this example, 50 users signed up.\nIt ships 25 built-in rules (v1.0)."
	cs := NumericClaims(text, false, false)
	require.Len(t, cs, 2)
	assert.Equal(t, "94%", cs[0].Text)
	assert.Equal(t, 1, cs[0].Line, "rule 1: per line")
	assert.Equal(t, "25 built-in rules", cs[1].Text, "versions are not claims")
	assert.Equal(t, 4, cs[1].Line)

	cs = NumericClaims(text, true, true)
	require.Len(t, cs, 4)
	assert.True(t, cs[1].Hedged, "rule 4: hedged")
	assert.True(t, cs[2].Context, "rule 5: contextual")
	// "up to" is a hedge too.
	assert.Empty(t, NumericClaims("Save up to 40% today.", false, false))
}

// Seed 001's verdict rules, in order.
func TestVerdictPrecedence(t *testing.T) {
	facts := []Fact{{ID: "f1", Description: "detection accuracy", Value: 94, Unit: "%"}}
	tests := []struct {
		line, status string
	}{
		{"Detection accuracy is 87% (source: Acme 2021 report).", NumericOutdated},
		{"Detection accuracy is 94%.", NumericVerified},
		{"Detection accuracy is 97%.", NumericVerified}, // within 5% of 94
		{"Detection accuracy is 80%.", NumericMismatch},
		{"Onboarding takes 3 minutes.", NumericUnverifiable},
	}
	for _, tt := range tests {
		cs := NumericClaims(tt.line, false, false)
		require.Len(t, cs, 1, tt.line)
		c := VerifyClaim(cs[0], facts, MatchOptions{})
		assert.Equal(t, tt.status, c.Status, "%s: %s", tt.line, c.Reason)
		assert.Equal(t, tt.status == NumericVerified || tt.status == NumericOutdated, c.Verified(), tt.line)
	}
	// The source rule comes first even when the fact disagrees.
	cs := NumericClaims("Detection accuracy is 80% according to Acme Labs.", false, false)
	require.Len(t, cs, 1)
	assert.Equal(t, "Acme Labs", cs[0].Source)
	assert.Equal(t, NumericOutdated, VerifyClaim(cs[0], facts, MatchOptions{}).Status)
}

// Seed 001's diagnostics: messages, default severities and the options that
// change them.
func TestLintDiagnostics(t *testing.T) {
	facts := []Fact{{ID: "f1", Description: "detection accuracy", Value: 94, Unit: "%"}}
	text := "Detection accuracy is 80%.\nSetup takes 3 minutes.\nDetection accuracy is 94%."
	fs := Lint(text, facts, LintOptions{})
	require.Len(t, fs, 3)
	assert.Equal(t, SeverityError, fs[0].Severity)
	assert.True(t, strings.HasPrefix(fs[0].Message, `Claim mismatch: "80%" at line 1`), fs[0].Message)
	assert.Equal(t, SeverityWarning, fs[1].Severity)
	assert.True(t, strings.HasPrefix(fs[1].Message, `Unverifiable claim: "3 minutes" at line 2`), fs[1].Message)
	assert.Equal(t, Severity(""), fs[2].Severity, "verified: no diagnostic")
	assert.Empty(t, fs[2].Message)

	fs = Lint(text, facts, LintOptions{UnverifiableSeverity: SeverityError, MismatchSeverity: SeverityWarning})
	assert.Equal(t, SeverityWarning, fs[0].Severity)
	assert.Equal(t, SeverityError, fs[1].Severity)
	fs = Lint(text, facts, LintOptions{UnverifiableSeverity: SeverityOff})
	assert.Empty(t, fs[1].Message)

	_, err := ParseSeverity("fatal")
	assert.Error(t, err)
}

// Seed 001's type detection order: text before unit.
func TestClaimTypeOrder(t *testing.T) {
	tests := []struct {
		text, unit, pattern, want string
	}{
		{"Trust score: 87%", "%", numeric.PatternTrustScore, TypeTrustScore},
		{"trust score average of 87%", "%", numeric.PatternAverage, TypeTrustScore},
		{"average of 94%", "%", numeric.PatternAverage, TypeAverage},
		{"average of 3x", "x", numeric.PatternAverage, TypeAverage},
		{"3x", "x", numeric.PatternMultiplier, TypeMultiplier},
		{"3x faster", "faster", numeric.PatternMultiplier, TypeMultiplier},
		{"94%", "%", numeric.PatternPercentage, TypePercentage},
		{"94 percent", "percent", numeric.PatternPercentage, TypePercentage},
		{"25 built-in rules", "rules", numeric.PatternCount, TypeCount},
		{"12 features", "features", numeric.PatternCount, TypeCount},
		{"400 tests", "tests", numeric.PatternCount, TypeCount},
		{"100ms", "ms", numeric.PatternTime, TypeTime},
		{"30 seconds", "seconds", numeric.PatternTime, TypeTime},
		{"5 minutes", "minutes", numeric.PatternTime, TypeTime},
		{"5 minutes", "min", numeric.PatternTime, TypeTime},
		{"48 passengers", "passengers", numeric.PatternCount, TypeCount},
		{"$29", "dollars", numeric.PatternMoney, TypeMoney},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ClaimType(tt.text, tt.unit, tt.pattern), tt.text)
	}
}

// Seed 001's softening table, cell by cell.
func TestSoftenTable(t *testing.T) {
	pct := numeric.FindNumbers("94%")[0]
	trust := numeric.FindNumbers("Trust score: 87%")[0]
	count := numeric.FindNumbers("25 rules")[0]
	tests := []struct {
		m     numeric.Mention
		typ   string
		style SoftenStyle
		want  string
	}{
		{pct, TypePercentage, Conservative, "approximately 94%"},
		{pct, TypePercentage, Moderate, "around 94%"},
		{pct, TypePercentage, Aggressive, "up to 94%"},
		{trust, TypeTrustScore, Conservative, "trust scores typically around 87%"},
		{trust, TypeTrustScore, Moderate, "trust scores can reach 87%"},
		{trust, TypeTrustScore, Aggressive, "high trust scores"},
		{count, TypeCount, Conservative, "over 20 rules"},
		{count, TypeCount, Moderate, "25+ rules"},
		{count, TypeCount, Aggressive, "dozens of rules"},
		{numeric.FindNumbers("average of 94%")[0], TypeAverage, Conservative, "average of approximately 94%"},
		{numeric.FindNumbers("3x faster")[0], TypeMultiplier, Moderate, "around 3x faster"},
		{numeric.FindNumbers("100ms")[0], TypeTime, Aggressive, "up to 100ms"},
	}
	for _, tt := range tests {
		got, ok := SoftenPhrase(tt.m, tt.typ, tt.style)
		require.True(t, ok, tt.want)
		assert.Equal(t, tt.want, got)
	}
	assert.Equal(t, 20.0, roundDownOneFigure(25))
	assert.Equal(t, 10.0, roundDownOneFigure(20))
	assert.Equal(t, 1000.0, roundDownOneFigure(1234))
	assert.Equal(t, 6.0, roundDownOneFigure(7))
	assert.Equal(t, 90.0, roundDownOneFigure(100))
	_, err := ParseSoftenStyle("gentle")
	assert.Error(t, err)
}

// Seed 001's guards: verified claims never softened, the confidence
// threshold, and a mismatch keeps its error unless soft-eligible.
func TestSoftenGuards(t *testing.T) {
	facts := []Fact{
		{ID: "f1", Description: "detection accuracy", Value: 94, Unit: "%"},
		{ID: "f2", Description: "the tool ships lint rules", Value: 40, Unit: "rules"},
	}
	text := "Detection accuracy is 94%.\nMost teams ship 99 plugins.\nDetection accuracy is 70%.\nWe have 12 rules."
	fs := Lint(text, facts, LintOptions{})
	require.Len(t, fs, 4)
	require.Equal(t, NumericVerified, fs[0].Check.Status)
	require.Equal(t, NumericUnverifiable, fs[1].Check.Status)
	require.Equal(t, NumericMismatch, fs[2].Check.Status)
	require.Equal(t, NumericMismatch, fs[3].Check.Status)
	require.GreaterOrEqual(t, fs[2].Check.Score, 0.5, "a confident mismatch")
	require.Less(t, fs[3].Check.Score, 0.5, "a weak mismatch")

	out, ss := Soften(text, fs, SoftenOptions{Style: Moderate})
	assert.Equal(t, "Detection accuracy is 94%.\nMost teams ship 99+ plugins.\nDetection accuracy is 70%.\nWe have 12 rules.", out)
	assert.Equal(t, "verified claims are never softened", ss[0].Skipped)
	assert.Equal(t, "99+ plugins", ss[1].Replacement)
	assert.Contains(t, ss[2].Skipped, "confidence")
	assert.Contains(t, ss[3].Skipped, "not soft-eligible")

	out, ss = Soften(text, fs, SoftenOptions{Style: Moderate, SoftenMismatches: true})
	assert.Contains(t, out, "We have 12+ rules.", "a soft-eligible mismatch below the threshold is softened")
	assert.Contains(t, ss[2].Skipped, "confidence", "the threshold still holds")
	out, _ = Soften(text, fs, SoftenOptions{Style: Moderate, ConfidenceThreshold: 0.01, SoftenMismatches: true})
	assert.Contains(t, out, "We have 12 rules.", "a mismatch at or above a low threshold is left")
	assert.Contains(t, out, "99+ plugins", "an unverifiable claim has confidence 0")
}

func TestReadFacts(t *testing.T) {
	in := `{"id":"f1","description":"detection accuracy","value":94,"unit":"%"}
{"id":"f2","description":"onboarding time","value":"3 minutes","year":2024}
{"id":"f3","description":"plan price","value":"$29","date":"2025-01-31"}
{"id":"f1","description":"dup","value":1}
{"id":"f5","description":"bad","value":true}
{"id":"f6","description":"bad year","value":1,"year":12}
{"id":"f7","value":1}
`
	facts, err := ReadFacts(context.Background(), strings.NewReader(in), "facts.jsonl")
	var list *jsonl.ErrorList
	require.ErrorAs(t, err, &list)
	assert.Equal(t, 4, list.Total)
	require.Len(t, facts, 3)
	assert.Equal(t, Fact{ID: "f1", Description: "detection accuracy", Value: 94, Unit: "%", Text: "94", quantity: facts[0].quantity}, facts[0])
	assert.Equal(t, "min", facts[1].Unit)
	assert.Equal(t, []int{2024}, facts[1].Years)
	assert.Equal(t, "dollars", facts[2].Unit)
	assert.Equal(t, []int{2025}, facts[2].Years)
	assert.Contains(t, list.Error(), "facts.jsonl:4")
}

// A multiplier fact names its comparative as a claim does: "3x faster" as
// the value, or "3x" (or 3) with unit "faster"; another kind's unit still
// disagrees.
func TestReadFactsMultiplier(t *testing.T) {
	in := `{"id":"a","description":"build speed","value":"3x faster"}
{"id":"b","description":"build speed","value":"3x","unit":"faster"}
{"id":"c","description":"build cost","value":2,"unit":"cheaper"}
{"id":"d","description":"build speed","value":"3x"}
{"id":"e","description":"accuracy","value":"94%","unit":"faster"}
`
	facts, err := ReadFacts(context.Background(), strings.NewReader(in), "facts.jsonl")
	var list *jsonl.ErrorList
	require.ErrorAs(t, err, &list)
	assert.Equal(t, 1, list.Total)
	assert.Contains(t, list.Error(), "facts.jsonl:5")
	require.Len(t, facts, 4)
	for i, unit := range []string{"faster", "faster", "cheaper", "x"} {
		assert.Equal(t, unit, facts[i].Unit, facts[i].ID)
	}
	// Claim and fact read "3x faster" alike, so the claim verifies.
	fs := Lint("Builds are 3x faster now.", facts[:1], LintOptions{})
	require.Len(t, fs, 1)
	assert.Equal(t, NumericVerified, fs[0].Check.Status, fs[0].Check.Reason)
}
