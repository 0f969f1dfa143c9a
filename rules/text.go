package rules

import (
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/numeric"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// The rules' only calls into the claims package's text functions are here,
// so a move of those functions touches this file alone.

// yearsIn are the years a text names.
func yearsIn(text string) []int { return numeric.YearsIn(text) }

// numberBesidesYears says whether one of a text's numbers is not one of
// its years.
func numberBesidesYears(years []int, ms []numeric.Mention) bool {
	for _, m := range ms {
		if !slices.ContainsFunc(years, func(y int) bool { return float64(y) == m.Value }) {
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
	ms := numeric.FindNumbers(claimText)
	if len(ms) == 0 {
		return false
	}
	w := lint.WordsOf(claimText)
	return sameQuantityOf(ms, &w, f)
}

// sameQuantityOf is sameQuantity of a claim's numbers and words.
func sameQuantityOf(ms []numeric.Mention, words *lint.ContextWords, f lint.Fact) bool {
	for _, m := range ms {
		s, ok := words.Similarity(m.Value, m.Unit, f, 0.05)
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

// claimText is what the rules of one Apply read of the claim's text (its
// years, its numbers, its words, its numeric check) and of the texts they
// compare it with (folded, their years): several rules read the same
// claim, and the conflict and underspecified rules read it again for each
// document or fact, the qualifier rule each passage twice. Each is read
// once, when a rule first needs it, by the same functions as before.
type claimText struct {
	yearsRead, numbersRead, wantRead bool
	years                            []int             // yearsIn of the claim
	numbers                          []numeric.Mention // FindNumbers of the claim
	number                           bool              // hasNumber of the claim
	want                             []int             // the years sameYears accepts
	words                            *lint.ContextWords
	check                            *lint.ClaimCheck
	texts                            []textRead
	entitiesRead                     bool
	entities                         []string         // claimEntities
	unguarded                        *lint.ClaimCheck // the check without lint's entity guard (entityNumericCheck)
	unguardedPolicy                  string
}

// textRead is a text's fold and years, read once in an Apply.
type textRead struct {
	text, fold        string
	folded, yearsRead bool
	years             []int
	wordsRead         bool
	words             []word
}

// maxTexts bounds the texts an Apply keeps read: past it a text is read
// on each use (as without the memo).
const maxTexts = 64

// claimYears is yearsIn of the claim's text (not to be modified).
func (in Input) claimYears() []int {
	c := in.claim
	if c == nil {
		return yearsIn(in.Claim.Text)
	}
	if !c.yearsRead {
		c.years, c.yearsRead = yearsIn(in.Claim.Text), true
	}
	return c.years
}

// claimNumbers are the claim's numbers (FindNumbers, not to be modified)
// and whether one is not a year (hasNumber).
func (in Input) claimNumbers() ([]numeric.Mention, bool) {
	c := in.claim
	if c == nil {
		ms := numeric.FindNumbers(in.Claim.Text)
		return ms, numberBesidesYears(yearsIn(in.Claim.Text), ms)
	}
	if !c.numbersRead {
		c.numbers = numeric.FindNumbers(in.Claim.Text)
		c.number, c.numbersRead = numberBesidesYears(in.claimYears(), c.numbers), true
	}
	return c.numbers, c.number
}

// hasNumber says whether the claim states a number other than a year.
func (in Input) hasNumber() bool {
	_, ok := in.claimNumbers()
	return ok
}

// sameQuantity is sameQuantity of the claim's text.
func (in Input) sameQuantity(f lint.Fact) bool {
	c := in.claim
	if c == nil {
		return sameQuantity(in.Claim.Text, f)
	}
	ms, _ := in.claimNumbers()
	if c.words == nil && len(ms) > 0 {
		w := lint.WordsOf(in.Claim.Text)
		c.words = &w
	}
	return sameQuantityOf(ms, c.words, f)
}

// entityNumericCheck is numericCheck of the claim's text against facts
// already kept as speaking of the claim's entity (relevantFacts): lint's
// own entity guard, which reads every capitalised word of the claim, is
// not applied again. A claim that names nothing keeps the guard.
func (in Input) entityNumericCheck(facts []lint.Fact, policy string) lint.NumericCheck {
	if len(in.claimEntities()) == 0 {
		return in.numericCheck(facts, policy)
	}
	c := in.claim
	if c != nil && c.unguarded != nil && c.unguardedPolicy == policy {
		return c.unguarded.Verify(facts)
	}
	var check *lint.ClaimCheck
	switch {
	case c != nil && c.check != nil:
		check = c.check.WithPolicy(policy)
	case in.Check != nil:
		check = in.Check.WithPolicy(policy)
	default:
		check = lint.PrepareClaim(in.Claim.Text, lint.MatchOptions{Policy: policy})
	}
	check = check.WithoutEntityGuard()
	if c != nil {
		c.unguarded, c.unguardedPolicy = check, policy
	}
	return check.Verify(facts)
}

// numericCheck is numericCheck of the claim's text.
func (in Input) numericCheck(facts []lint.Fact, policy string) lint.NumericCheck {
	c := in.claim
	if c == nil && in.Check == nil {
		return numericCheck(in.Claim.Text, facts, policy)
	}
	var check *lint.ClaimCheck
	if c != nil {
		check = c.check
	}
	if check == nil {
		if in.Check != nil {
			check = in.Check.WithPolicy(policy)
		} else {
			check = lint.PrepareClaim(in.Claim.Text, lint.MatchOptions{Policy: policy})
		}
		if c != nil {
			c.check = check
		}
	}
	return check.Verify(facts)
}

// text is the memo of a text in this Apply (nil outside Apply, or when
// the memo is full).
func (in Input) text(s string) *textRead {
	c := in.claim
	if c == nil {
		return nil
	}
	for i := range c.texts {
		if c.texts[i].text == s {
			return &c.texts[i]
		}
	}
	if len(c.texts) == maxTexts {
		return nil
	}
	c.texts = append(c.texts, textRead{text: s})
	return &c.texts[len(c.texts)-1]
}

// fold is fold(s), read once per Apply.
func (in Input) fold(s string) string {
	t := in.text(s)
	if t == nil {
		return fold(s)
	}
	if !t.folded {
		t.fold, t.folded = fold(s), true
	}
	return t.fold
}

// yearsIn is yearsIn(s), read once per Apply (not to be modified).
func (in Input) yearsIn(s string) []int {
	t := in.text(s)
	if t == nil {
		return yearsIn(s)
	}
	if !t.yearsRead {
		t.years, t.yearsRead = yearsIn(s), true
	}
	return t.years
}

// contains is contains with the texts folded once per Apply.
func (in Input) contains(text, phrase string) bool {
	p := in.fold(phrase)
	if strings.TrimSpace(p) == "" {
		return true
	}
	return strings.Contains(in.fold(text), p)
}
