package rules

import (
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/numeric"
	"regexp"
	"strings"
	"unicode"
)

// The rules' only calls into the claims package's text functions are here,
// so a move of those functions touches this file alone.

// yearsIn are the years a text names.
func yearsIn(text string) []int { return numeric.YearsIn(text) }

// hasNumber says whether the claim states a number other than a year.
func hasNumber(text string) bool {
	years := map[float64]bool{}
	for _, y := range numeric.YearsIn(text) {
		years[float64(y)] = true
	}
	for _, m := range numeric.FindNumbers(text) {
		if !years[m.Value] {
			return true
		}
	}
	return false
}

// numericCheck is the numeric check of a claim against some facts.
func numericCheck(text string, facts []lint.Fact, policy string) lint.NumericCheck {
	return lint.VerifyNumeric(text, facts, lint.MatchOptions{Policy: policy})
}

// sameQuantity says whether a fact is about what the claim's number is
// about: its words overlap the claim's (seed 001's similarity, value bonus
// aside) and its unit does not differ.
func sameQuantity(claimText string, f lint.Fact) bool {
	for _, m := range numeric.FindNumbers(claimText) {
		s, ok := lint.Similarity(claimText, m.Value, m.Unit, f, 0.05)
		if ok && s >= 0.3 {
			return true
		}
	}
	return false
}

// fold lower-cases a text and folds its runs of white space and
// punctuation to one space, with a space at each end, so a phrase is found
// with strings.Contains(fold(text), fold(phrase)).
func fold(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// contains says whether text holds phrase as whole words, ignoring case
// and punctuation.
func contains(text, phrase string) bool {
	p := fold(phrase)
	if strings.TrimSpace(p) == "" {
		return true
	}
	return strings.Contains(fold(text), p)
}

var stopwords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "from": true, "that": true,
	"this": true, "under": true, "over": true, "into": true, "among": true, "only": true, "all": true, "who": true,
	"was": true, "were": true, "has": true, "had": true, "have": true, "its": true, "his": true, "her": true, "their": true,
	"are": true, "been": true, "being": true}

// contentWords are a phrase's words of three letters or more, stopwords aside.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(fold(s)) {
		if len(w) >= 3 && !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

var negationRe = regexp.MustCompile(`(?i)\b(not|no|never|none|neither|nor|without|cannot)\b|n't\b`)

// negated says whether a text carries a negation.
func negated(s string) bool { return negationRe.MatchString(s) }
