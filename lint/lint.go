package lint

import (
	"fmt"
	"github.com/claimaudit/claimaudit/numeric"
	"regexp"
	"strings"
)

// The linter of seed 001: numeric claims in generated copy (docs, landing
// pages) must trace to a known fact, or be flagged, or be softened.
//
//	Content → NumericClaims → VerifyMention → Lint → Diagnostics
//	                                               ↘ Soften → softened text

// Severity of a lint diagnostic.
type Severity string

// Severities. SeverityOff drops the diagnostic.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
	SeverityOff     Severity = "off"
)

// ParseSeverity reads a severity name.
func ParseSeverity(s string) (Severity, error) {
	switch Severity(strings.ToLower(s)) {
	case SeverityError, SeverityWarning, SeverityInfo, SeverityOff:
		return Severity(strings.ToLower(s)), nil
	}
	return "", fmt.Errorf("severity %q is not one of error, warning, info, off", s)
}

// NumericClaim is one numeric assertion found in a text by seed 001's
// per-line patterns.
type NumericClaim struct {
	numeric.Mention
	Line     int    // 1-based line of the text
	LineText string // the line, the claim's context for fact matching
	Source   string // a source the line itself names ("(source: X)", "according to X", "[cite:X]")
	Hedged   bool
	Context  bool // contextual: "in this example", "sample data"
}

var (
	// Seed 001 rule 4: hedged claims ("approximately", "about", "up to") are
	// skipped by default.
	hedgeComparators = map[numeric.Comparator]bool{numeric.CmpApprox: true, numeric.CmpNearly: true}
	reLintContextual = regexp.MustCompile(`(?i)\b(in this example|for example|for instance|as an example|e\.g\.|sample|hypothetical(?:ly)?|illustrative|suppose|imagine|let's say)\b`)
	reSource         = regexp.MustCompile(`(?i)[(\[]\s*(?:source|sources|via)\s*:\s*([^)\]]+)[)\]]|\[cite:\s*([^\]]+)\]|\baccording to\s+((?:the\s+)?[A-Z][\w&.'-]*(?:\s+[A-Z0-9][\w&.'-]*)*)`)
)

// NumericClaims extracts the numeric claims of text line by line (seed 001
// rules 1–6): every pattern match on a line is a claim; versions are not
// claims; hedged and contextual claims are marked, and dropped unless
// includeHedged / includeContextual; the same line and value is kept once.
func NumericClaims(text string, includeHedged, includeContextual bool) []NumericClaim {
	var out []NumericClaim
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		source := ""
		if m := reSource.FindStringSubmatch(line); m != nil {
			source = strings.TrimRight(strings.TrimSpace(m[1]+m[2]+m[3]), ".,;:")
		}
		contextual := reLintContextual.MatchString(line)
		seen := map[string]bool{}
		prose := maskMarkup(line)
		for _, m := range numeric.FindNumbers(prose) {
			// A bare number ("Line 2") matches none of the seed's patterns: not
			// a claim. One that runs into markup ("25 <b>rules</b>") is left
			// alone, so that softening never rewrites markup.
			if m.Pattern == "number" || prose[m.Start:m.End] != line[m.Start:m.End] {
				continue
			}
			hedged := hedgeComparators[m.Cmp] || strings.EqualFold(m.Qualifier, "up to") || strings.EqualFold(m.Qualifier, "as many as")
			if (hedged && !includeHedged) || (contextual && !includeContextual) {
				continue
			}
			key := fmt.Sprint(m.Value, m.Lo, m.Hi)
			if seen[key] {
				continue // rule 6: file:line:value once
			}
			seen[key] = true
			out = append(out, NumericClaim{Mention: m, Line: i + 1, LineText: prose, Source: source, Hedged: hedged, Context: contextual})
		}
	}
	return out
}

var (
	reHTMLTag      = regexp.MustCompile(`<[^<>]*>`)
	reMarkdownLink = regexp.MustCompile(`\]\([^()\s]*\)`)
	reCodeSpan     = regexp.MustCompile("`[^`]*`")
)

// maskMarkup blanks what is markup rather than prose — HTML tags with their
// attributes (class="mb-2 text-6xl"), Markdown link targets and code spans
// — byte for byte, so that no number in it is read as a claim and the
// offsets of what remains still index the line (the softener rewrites by
// them and never touches the markup).
func maskMarkup(line string) string {
	if !strings.ContainsAny(line, "<`](") {
		return line
	}
	b := []byte(line)
	for _, re := range []*regexp.Regexp{reHTMLTag, reMarkdownLink, reCodeSpan} {
		for _, loc := range re.FindAllIndex(b, -1) {
			for i := loc[0]; i < loc[1]; i++ {
				b[i] = ' ' // every byte, so the text stays valid UTF-8

			}
		}
	}
	return string(b)
}

// VerifyClaim applies seed 001's verdict rules in order: a claim that names
// its own source is outdated (verified, but to be re-checked against that
// source); otherwise unverifiable, verified or mismatch against facts.
func VerifyClaim(c NumericClaim, facts []Fact, opts MatchOptions) NumericCheck {
	if c.Source != "" {
		opts.defaults()
		return NumericCheck{Status: NumericOutdated, Policy: policyName(opts), Claim: c.Text, Comparator: c.Cmp, Negated: c.Negated,
			Reason: fmt.Sprintf("the claim names its own source (%s): verified against it, but it may be out of date", c.Source)}
	}
	opts.SentenceEntity = true
	return VerifyMention(c.LineText, c.Mention, facts, opts)
}

// Verified reports the statuses seed 001 counts as verified.
func (c NumericCheck) Verified() bool {
	return c.Status == NumericVerified || c.Status == NumericOutdated
}

// LintOptions configure Lint. Zero severities take seed 001's defaults:
// unverifiable → warning, mismatch → error; outdated claims are reported
// as info.
type LintOptions struct {
	IncludeHedged, IncludeContextual bool
	UnverifiableSeverity             Severity
	MismatchSeverity                 Severity
	OutdatedSeverity                 Severity
	Match                            MatchOptions
}

func (o *LintOptions) defaults() {
	if o.UnverifiableSeverity == "" {
		o.UnverifiableSeverity = SeverityWarning
	}
	if o.MismatchSeverity == "" {
		o.MismatchSeverity = SeverityError
	}
	if o.OutdatedSeverity == "" {
		o.OutdatedSeverity = SeverityInfo
	}
}

// Finding is one checked claim: the claim, the check and, for claims in
// the lint's issues (unverifiable or mismatch) and outdated ones, a
// severity and message.
type Finding struct {
	Claim    NumericClaim
	Check    NumericCheck
	Severity Severity // "" for a verified claim
	Message  string
}

// Issue reports a finding seed 001 lists in LintResult.issues.
func (f Finding) Issue() bool {
	return f.Check.Status == NumericUnverifiable || f.Check.Status == NumericMismatch
}

// Lint checks every numeric claim of text against facts, in document order.
func Lint(text string, facts []Fact, opts LintOptions) []Finding {
	opts.defaults()
	var out []Finding
	for _, c := range NumericClaims(text, opts.IncludeHedged, opts.IncludeContextual) {
		f := Finding{Claim: c, Check: VerifyClaim(c, facts, opts.Match)}
		phrase := claimPhrase(c.Mention)
		switch f.Check.Status {
		case NumericUnverifiable:
			f.Severity = opts.UnverifiableSeverity
			f.Message = fmt.Sprintf("Unverifiable claim: %q at line %d (%s)", phrase, c.Line, f.Check.Reason)
		case NumericMismatch:
			f.Severity = opts.MismatchSeverity
			f.Message = fmt.Sprintf("Claim mismatch: %q at line %d (%s)", phrase, c.Line, f.Check.Reason)
		case NumericOutdated:
			f.Severity = opts.OutdatedSeverity
			f.Message = fmt.Sprintf("Outdated claim: %q at line %d (%s)", phrase, c.Line, f.Check.Reason)
		}
		if f.Severity == SeverityOff {
			f.Severity, f.Message = "", ""
		}
		out = append(out, f)
	}
	return out
}
