package numeric

import (
	"regexp"
	"sort"
	"strings"
)

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
)

// findNumbersRegexp is FindNumbers as first written, with regular
// expressions: the oracle the hand-written scanner is held equal to.
func findNumbersRegexp(text string) []Mention {
	taken := make([]bool, len(text)+1)
	for _, loc := range reVersionTok.FindAllStringIndex(text, -1) {
		mark(taken, loc[0], loc[1])
	}
	var out []Mention
	add := func(pattern string, loc []int, m string) {
		for i := loc[0]; i < loc[1]; i++ {
			if taken[i] {
				return
			}
		}
		q, ok := mentionRegexp(pattern, m)
		if !ok {
			return
		}
		if q.Cmp == CmpValue && !q.Negated {
			q.Cmp, q.Negated, q.Qualifier = comparatorAt(text, loc[0])
		}
		mark(taken, loc[0], loc[1])
		end := loc[1]
		if strings.HasPrefix(text[loc[0]:], q.Text) {
			end = loc[0] + len(q.Text) // a count keeps only its counted noun
		}
		out = append(out, Mention{Quantity: q, Pattern: pattern, Start: loc[0], End: end})
	}
	for _, p := range patterns {
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

// numberPrefixRegexp is NumberPrefix as first written.
func numberPrefixRegexp(s string) int {
	loc := reBareNumber.FindStringIndex(s)
	if loc == nil || loc[0] != 0 {
		return 0
	}
	return loc[1]
}
