package numeric

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/sentence"
)

// Pattern names of seed 001.
const (
	PatternPercentage = "percentage"
	PatternCount      = "count"
	PatternTime       = "time"
	PatternMultiplier = "multiplier"
	PatternMoney      = "money"
	PatternTrustScore = "trust_score"
	PatternRange      = "range"
	PatternAverage    = "average"
)

// Mention is one numeric expression found in text.
type Mention struct {
	Quantity
	Pattern    string
	Start, End int // byte offsets in the text
}

const num = `\d[\d,]*(?:\.\d+)?`
const scale = `(?:\s?(?:thousand|million|billion|trillion|bn|[KMBT])\b)?`

// Patterns in priority order: where two overlap, the earlier wins.
var patterns = []struct {
	name string
	re   *regexp.Regexp
}{
	{PatternTrustScore, regexp.MustCompile(`(?i)\b(?:trust\s+)?score:?\s*` + num + `\s?%`)},
	{PatternAverage, regexp.MustCompile(`(?i)\baverage(?:\s+of)?\s+` + num + `(?:\s?(?:%|percent\b))?`)},
	{PatternMoney, regexp.MustCompile(`[$€£]\s?` + num + scale + `(?:\s?(?:/|per\s)\s?[A-Za-z]+)?`)},
	{PatternRange, regexp.MustCompile(`(?i)\bbetween\s+[$€£]?` + num + scale + `(?:\s?(?:%|percent\b))?\s+and\s+[$€£]?` + num + scale + `(?:\s?(?:%|percent\b))?(?:\s+[A-Za-z][A-Za-z'-]*)?`)},
	{PatternRange, regexp.MustCompile(`\b` + num + `\s?(?:-|–|—)\s?` + num + `(?:\s?(?:%|percent\b))?`)},
	{PatternPercentage, regexp.MustCompile(`(?i)\b` + num + `\s?(?:%|percent\b|per cent\b)`)},
	// Multiplier: "3x", and the word after it when one follows ("3x
	// faster"): multiplierMention decides whether it is the unit.
	{PatternMultiplier, regexp.MustCompile(`\b\d+(?:\.\d+)?\s?[x×](?:\s+[A-Za-z][A-Za-z'-]*\b|\s|$|[.,;])`)},
	{PatternTime, regexp.MustCompile(`(?i)\b` + num + `\s?(?:ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?)\b`)},
	// Count: a number, an optional scale, and up to two intervening words
	// that start with a letter before the counted noun (seed 001 rule 2).
	{PatternCount, regexp.MustCompile(`\b` + num + scale + `(?:\s+[A-Za-z][A-Za-z'-]*){1,3}`)},
}

var (
	reVersionTok = regexp.MustCompile(`(?i)\bv(?:ersion\s)?\d+(?:\.\d+)+`)
	reBareNumber = regexp.MustCompile(`\b` + num + scale)
	months       = map[string]bool{"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
		"july": true, "august": true, "september": true, "october": true, "november": true, "december": true}
)

// FindNumbers returns the numeric mentions of text (seed 001's patterns,
// then any other number), left to right. Versions ("v1.0") and years
// ("in 2021") are not numeric claims and are left out.
func FindNumbers(text string) []Mention {
	return findNumbers(text, true)
}

// findNumbers is FindNumbers; filter skips a pattern whose required
// characters or words the text lacks (every pattern needs an ASCII digit;
// most also need a sign, a symbol or a keyword). The result is the same
// without the filter, only slower: a test holds the two equal.
func findNumbers(text string, filter bool) []Mention {
	var need needs
	if filter {
		need = needsOf(text)
		if !need.digit {
			return nil
		}
	}
	taken := make([]bool, len(text)+1)
	if !filter || need.version {
		for _, loc := range reVersionTok.FindAllStringIndex(text, -1) {
			mark(taken, loc)
		}
	}
	var out []Mention
	add := func(pattern string, loc []int, m string) {
		for i := loc[0]; i < loc[1]; i++ {
			if taken[i] {
				return
			}
		}
		q, ok := mention(pattern, m)
		if !ok {
			return
		}
		if q.Cmp == CmpValue && !q.Negated {
			q.Cmp, q.Negated, q.Qualifier = comparatorAt(text, loc[0])
		}
		mark(taken, loc)
		end := loc[1]
		if strings.HasPrefix(text[loc[0]:], q.Text) {
			end = loc[0] + len(q.Text) // a count keeps only its counted noun
		}
		out = append(out, Mention{Quantity: q, Pattern: pattern, Start: loc[0], End: end})
	}
	for i, p := range patterns {
		if filter && !need.pattern[i] {
			continue
		}
		for _, loc := range p.re.FindAllStringIndex(text, -1) {
			m := strings.TrimRight(text[loc[0]:loc[1]], " .,;")
			add(p.name, []int{loc[0], loc[0] + len(m)}, m)
		}
	}
	for _, loc := range reBareNumber.FindAllStringIndex(text, -1) {
		if isYear(text, loc) || nextToMonth(text, loc) {
			continue
		}
		add("number", loc, text[loc[0]:loc[1]])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// needs says which patterns can match a text, from what they cannot match
// without: an ASCII digit for all, and for most a keyword or a symbol.
type needs struct {
	digit, version bool
	pattern        [len(patternKeys)]bool
}

// patternKeys lists, per entry of patterns, the substrings one of which the
// folded text (foldLower) must hold for that pattern to match; nil means
// only a digit is needed. A trust score also needs "%".
var patternKeys = [...][]string{
	{"score"},                          // trust score
	{"average"},                        // average
	{"$", "€", "£"},                    // money
	{"between"},                        // between X and Y
	{"-", "–", "—"},                    // range
	{"%", "per"},                       // percentage, "percent", "per cent"
	{"x", "×"},                         // multiplier
	{"ms", "sec", "min", "hour", "hr"}, // time units ("milliseconds" holds "sec")
	nil,                                // count
}

func needsOf(text string) needs {
	var n needs
	n.digit = strings.ContainsAny(text, "0123456789")
	if !n.digit {
		return n
	}
	lower := foldLower(text)
	for i, keys := range patternKeys {
		n.pattern[i] = keys == nil
		for _, k := range keys {
			if strings.Contains(lower, k) {
				n.pattern[i] = true
				break
			}
		}
	}
	n.pattern[0] = n.pattern[0] && strings.Contains(text, "%")
	n.version = strings.Contains(lower, "v")
	return n
}

var caseFolds = strings.NewReplacer("\u212a", "k", "\u017f", "s")

// foldLower lowercases ASCII letters and maps the two non-ASCII letters
// that a case-insensitive regular expression matches to ASCII ones (the
// Kelvin sign to k, the long s to s), so that a keyword search in the
// result finds whatever a (?i) pattern's literal could match.
func foldLower(text string) string {
	return asciiLower(caseFolds.Replace(text))
}

func mark(taken []bool, loc []int) {
	for i := loc[0]; i < loc[1]; i++ {
		taken[i] = true
	}
}

// mention parses a pattern match into a quantity with the pattern's unit.
func mention(pattern, m string) (Quantity, bool) {
	switch pattern {
	case PatternTrustScore, PatternAverage:
		i := strings.IndexFunc(m, func(r rune) bool { return r >= '0' && r <= '9' })
		q, err := ParseQuantity(m[i:])
		if err != nil {
			return q, false
		}
		q.Text = m
		return q, true
	case PatternMoney:
		if k := strings.IndexAny(m, "/"); k > 0 {
			m = strings.TrimSpace(m[:k])
		} else if k := strings.Index(strings.ToLower(m), " per "); k > 0 {
			m = m[:k]
		}
	case PatternCount:
		return countMention(m)
	case PatternMultiplier:
		return multiplierMention(m)
	case PatternRange:
		if strings.HasPrefix(strings.ToLower(m), "between") {
			q, err := ParseQuantity(m)
			if err != nil {
				// "between 10 and 20 in": drop the word after the range.
				if k := strings.LastIndexByte(m, ' '); k > 0 {
					q, err = ParseQuantity(m[:k])
				}
			}
			if err != nil || q.Unit == "year" {
				return q, false
			}
			q.Text = m
			return q, true
		}
	}
	q, err := ParseQuantity(m)
	if err != nil {
		return q, false
	}
	q.Text = m
	return q, true
}

// countMention parses "48.2 million passengers" or "25 built-in rules": the
// counted noun is the first plural word among the words after the number,
// or else the first word.
func countMention(m string) (Quantity, bool) {
	loc := reBareNumber.FindStringIndex(m)
	if loc == nil || loc[0] != 0 {
		return Quantity{}, false
	}
	q, err := ParseQuantity(m[:loc[1]])
	if err != nil || q.Kind == KindYear {
		return q, false
	}
	words := strings.Fields(m[loc[1]:])
	if len(words) == 0 || months[strings.ToLower(words[0])] {
		return q, false
	}
	unit, n, plural := strings.ToLower(words[0]), 1, false
	for i, w := range words {
		lw := strings.ToLower(w)
		if strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss") && len(lw) > 2 {
			unit, n, plural = lw, i+1, true
			break
		}
	}
	if !plural && len(words) >= maxCountWords && !endsPhrase(words[1]) {
		// "25 brand new shiny rules": no noun within the two intervening
		// words seed 001 allows, and the first word does not end a noun
		// phrase ("5,700 staff at year end" does): no unit to count.
		return q, false
	}
	if sentence.IsStopword(unit) || unit == "of" || unit == "in" || unit == "to" || unit == "a" {
		return q, false
	}
	// A unit of the table is named as the table names it ("metres" → "m"),
	// so that it agrees with the same unit parsed from a claim; an area or
	// a volume ("312 square kilometres") is not a length and keeps its word.
	q.Unit = unit
	if n < 2 || !areaOrVolume[strings.ToLower(words[n-2])] {
		q.Unit, _ = CanonicalUnit(unit)
	}
	q.Text = strings.TrimSpace(m[:loc[1]] + " " + strings.Join(words[:n], " "))
	return q, true
}

// multiplierMention parses "3x faster". Seed 001's table gives a
// multiplier the comparative that follows it as its unit ("3x faster" →
// "faster"), so that "3x faster" and "3x cheaper" are claims about
// different things and match only facts that say the same comparative. The
// unit is the word after the "x" when it is a comparative: "more", or any
// other alphabetic word that is not a function word, a preposition or an
// opener ("3x the speed", "3x over five years", "grew 3x." keep unit "x").
// A fact taken from text (lint.FactsFromText) is read by this same code,
// so claim and fact agree. The seed 000 side (ParseQuantity, numcheck
// tokens, claim tables) keeps "x": a policy compares a multiplier's value,
// and a token "3x faster" is the quantity 3x with a word after it.
func multiplierMention(m string) (Quantity, bool) {
	i := strings.IndexAny(m, "x×")
	if i < 0 {
		return Quantity{}, false
	}
	_, size := utf8.DecodeRuneInString(m[i:])
	numPart := m[:i+size]
	q, err := ParseQuantity(numPart)
	if err != nil {
		return q, false
	}
	q.Text = numPart
	if w := strings.ToLower(strings.TrimSpace(m[i+size:])); IsComparative(w) {
		q.Unit, q.Text = w, m
	}
	return q, true
}

// IsComparative reports a lower-case word that, after a multiplier, names
// what it multiplies ("faster", "cheaper", "more"): a multiplier's unit in
// seed 001's table.
func IsComparative(w string) bool {
	if w == "more" || w == "less" || w == "fewer" {
		return true
	}
	return w != "" && isUnitWord(w) && !strings.ContainsAny(w, "/'’") && !sentence.IsStopword(w) &&
		!phraseEnders[w] && !sentence.IsCommonOpener(w)
}

// maxCountWords is the count pattern's words after the number: the
// counted noun and up to two intervening words (seed 001 rule 2).
const maxCountWords = 3

// endsPhrase reports a word that closes the noun phrase before it: a
// function word or a preposition.
func endsPhrase(w string) bool {
	lw := strings.ToLower(strings.Trim(w, ".,;:"))
	return sentence.IsStopword(lw) || phraseEnders[lw]
}

var phraseEnders = map[string]bool{"at": true, "in": true, "of": true, "on": true, "by": true, "to": true,
	"as": true, "or": true, "per": true, "a": true, "an": true, "is": true, "so": true, "up": true}

var areaOrVolume = map[string]bool{"square": true, "sq": true, "cubic": true, "cu": true}

// isYear reports a bare four-digit number 1000–2999 without separators:
// "in 2021", "2021 was": a year, which makes a temporal claim, not a
// numeric one. ("2,021 passengers" is a count.)
func isYear(text string, loc []int) bool {
	s := text[loc[0]:loc[1]]
	return len(s) == 4 && !strings.ContainsAny(s, ",.") && s[0] >= '1' && s[0] <= '2'
}

// nextToMonth reports a day number beside a month name: "4 May", "May 4".
func nextToMonth(text string, loc []int) bool {
	return months[strings.ToLower(strings.Trim(firstField(text[loc[1]:]), ",."))] ||
		months[strings.ToLower(strings.Trim(lastField(text[:loc[0]]), ",."))]
}

// firstField is strings.Fields(s)[0] (or ""), without splitting the rest.
func firstField(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i]
	}
	return s
}

// lastField is the last of strings.Fields(s) (or "").
func lastField(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if i := strings.LastIndexFunc(s, unicode.IsSpace); i >= 0 {
		_, n := utf8.DecodeRuneInString(s[i:])
		return s[i+n:]
	}
	return s
}

// FirstMention returns a claim's main numeric mention: the first that is
// not a year or version (FindNumbers' first).
func FirstMention(text string) (Mention, bool) {
	ms := FindNumbers(text)
	if len(ms) == 0 {
		return Mention{}, false
	}
	return ms[0], true
}

// IsMonth reports a lower-case English month name ("may", "july").
func IsMonth(lower string) bool { return months[lower] }

// NumberPrefix returns the length in bytes of the number (digits with
// separators and decimals, and an optional scale: "48.2 million", "1.5K")
// that s opens with, or 0 when s does not open with one.
func NumberPrefix(s string) int {
	loc := reBareNumber.FindStringIndex(s)
	if loc == nil || loc[0] != 0 {
		return 0
	}
	return loc[1]
}
