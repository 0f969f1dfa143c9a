package lint

import (
	"fmt"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// SoftenStyle is how far the softener backs away from a number (seed 001).
type SoftenStyle string

// Softening styles.
const (
	Conservative SoftenStyle = "conservative"
	Moderate     SoftenStyle = "moderate"
	Aggressive   SoftenStyle = "aggressive"
)

// ParseSoftenStyle reads a style name.
func ParseSoftenStyle(s string) (SoftenStyle, error) {
	switch SoftenStyle(strings.ToLower(s)) {
	case Conservative, Moderate, Aggressive:
		return SoftenStyle(strings.ToLower(s)), nil
	}
	return "", fmt.Errorf("softening style %q is not one of conservative, moderate, aggressive", s)
}

// Claim types for softening (seed 001's detection).
const (
	TypeTrustScore = "trust_score"
	TypeAverage    = "average"
	TypeMultiplier = "multiplier"
	TypePercentage = "percentage"
	TypeCount      = "count"
	TypeTime       = "time"
	TypeMoney      = "money"
	TypeOther      = "other"
)

var (
	reMultiplierType = regexp.MustCompile(`\dx`)
	reCountUnit      = regexp.MustCompile(`rules?|features?|tests?`)
	reTimeUnit       = regexp.MustCompile(`ms|seconds?|minutes?`)
)

// ClaimType detects a claim's type in seed 001's order: text checks first
// ("trust score", "average", a digit followed by x), because they are more
// specific than units; then the unit (% or percent; rules, features, tests;
// ms, seconds, minutes). Beyond the seed: a time unit in its normalised form
// (s, min, h) is time, and any other counted noun found by the count
// pattern is a count; the rest is "other".
func ClaimType(text, unit, pattern string) string {
	lower := strings.ToLower(text)
	switch {
	case strings.Contains(lower, "trust score"):
		return TypeTrustScore
	case strings.Contains(lower, "average"):
		return TypeAverage
	case reMultiplierType.MatchString(lower):
		return TypeMultiplier
	case unit == "%" || unit == "percent":
		return TypePercentage
	case reCountUnit.MatchString(unit):
		return TypeCount
	case reTimeUnit.MatchString(unit), unit == "s", unit == "min", unit == "h":
		return TypeTime
	case pattern == numeric.PatternCount:
		return TypeCount
	case pattern == numeric.PatternMoney:
		return TypeMoney
	}
	return TypeOther
}

// SoftenPhrase rewrites a claim's text in a style, following seed 001's
// table:
//
//	style         percentage          trust score                         count
//	conservative  approximately N%    trust scores typically around N%    over M units
//	moderate      around N%           trust scores can reach N%           N+ units
//	aggressive    up to N%            high trust scores                   dozens of units
//
// M is N rounded down to one significant figure (25 → 20; a round N steps
// down: 20 → 10). Other types (average, multiplier, time, money, ranges)
// take the percentage column's qualifier before their number:
// "average of approximately 94%", "around 3x faster", "up to 100ms".
func SoftenPhrase(m numeric.Mention, typ string, style SoftenStyle) (string, bool) {
	numAt := strings.IndexFunc(m.Text, func(r rune) bool { return unicode.IsDigit(r) || r == '$' || r == '€' || r == '£' })
	if numAt < 0 {
		return "", false
	}
	switch typ {
	case TypeTrustScore:
		n := numeric.FormatNumber(m.Value) + "%"
		switch style {
		case Conservative:
			return "trust scores typically around " + n, true
		case Moderate:
			return "trust scores can reach " + n, true
		case Aggressive:
			return "high trust scores", true
		}
	case TypeCount:
		end := numeric.NumberPrefix(m.Text)
		if end == 0 {
			return "", false
		}
		numText, units := m.Text[:end], strings.TrimSpace(m.Text[end:])
		switch style {
		case Conservative:
			return "over " + groupThousands(roundDownOneFigure(m.Value)) + " " + units, true
		case Moderate:
			return numText + "+ " + units, true
		case Aggressive:
			return manyOf(m.Value) + " of " + units, true
		}
	default:
		q := map[SoftenStyle]string{Conservative: "approximately", Moderate: "around", Aggressive: "up to"}[style]
		if q == "" {
			return "", false
		}
		return m.Text[:numAt] + q + " " + m.Text[numAt:], true
	}
	return "", false
}

// roundDownOneFigure: 25 → 20, 1,234 → 1,000, 20 → 10, 7 → 6.
func roundDownOneFigure(v float64) float64 {
	if v <= 1 {
		return 0
	}
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	m := math.Floor(v/mag) * mag
	if m >= v {
		if mag == 1 {
			return v - 1
		}
		m -= mag
		if m == 0 {
			m = v - mag/10
		}
	}
	return m
}

func groupThousands(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if v < 10000 || strings.Contains(s, ".") {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// manyOf is seed 001's "dozens" at the scale of the number.
func manyOf(v float64) string {
	switch {
	case v < 24:
		return "a number"
	case v < 100:
		return "dozens"
	case v < 1000:
		return "hundreds"
	case v < 1e6:
		return "thousands"
	case v < 1e9:
		return "millions"
	}
	return "billions"
}

// SoftenOptions configure Soften.
type SoftenOptions struct {
	Style SoftenStyle
	// ConfidenceThreshold: a claim whose check is at least this confident
	// (the matched fact's similarity) is not softened (default 0.5).
	ConfidenceThreshold float64
	// SoftenMismatches makes mismatches soft-eligible: without it a
	// mismatch is never softened and stays an error.
	SoftenMismatches bool
}

// Softening is what the softener did with one finding.
type Softening struct {
	Finding     Finding
	Type        string
	Replacement string // the claim's new text; "" when not softened
	Skipped     string // why not, when not softened
}

// Soften rewrites text, softening the claims among findings (from Lint on
// the same text) that seed 001's guards allow: only issues (unverifiable,
// mismatch) — verified and outdated claims are never softened; not when
// the check's confidence reaches the threshold; a mismatch only when
// soft-eligible. It returns the new text and one Softening per finding.
// Softening never raises a claim's standing by itself: a mismatch that is
// not soft-eligible keeps its error.
func Soften(text string, findings []Finding, opts SoftenOptions) (string, []Softening) {
	if opts.ConfidenceThreshold == 0 {
		opts.ConfidenceThreshold = 0.5
	}
	lines := strings.Split(text, "\n")
	type edit struct {
		start, end int
		with       string
	}
	edits := map[int][]edit{}
	out := make([]Softening, len(findings))
	for i, f := range findings {
		s := Softening{Finding: f, Type: ClaimType(f.Claim.Text, f.Claim.Unit, f.Claim.Pattern)}
		switch {
		case !f.Issue():
			s.Skipped = "verified claims are never softened"
		case f.Check.Score >= opts.ConfidenceThreshold:
			s.Skipped = fmt.Sprintf("confidence %.2f >= %.2f", f.Check.Score, opts.ConfidenceThreshold)
		case f.Check.Status == NumericMismatch && !opts.SoftenMismatches:
			s.Skipped = "a mismatch is not soft-eligible: it stays an error"
		case f.Claim.Cmp.IsBound() || f.Claim.Negated:
			// "over 40%" softened to "up to 40%" would turn the bound around.
			s.Skipped = fmt.Sprintf("the claim states a bound (%q): soften it by hand", f.Claim.Qualifier)
		default:
			if r, ok := SoftenPhrase(f.Claim.Mention, s.Type, opts.Style); ok {
				c := f.Claim
				line := lines[c.Line-1]
				if c.Start == 0 || strings.TrimSpace(line[:c.Start]) == "" {
					r = sentence.UpperFirst(r)
				}
				s.Replacement = r
				edits[c.Line-1] = append(edits[c.Line-1], edit{c.Start, c.End, r})
			} else {
				s.Skipped = "no softened form for this claim"
			}
		}
		out[i] = s
	}
	for ln, es := range edits {
		sort.Slice(es, func(a, b int) bool { return es[a].start > es[b].start })
		line := lines[ln]
		for _, e := range es {
			line = line[:e.start] + e.with + line[e.end:]
		}
		lines[ln] = line
	}
	return strings.Join(lines, "\n"), out
}
