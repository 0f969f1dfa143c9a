package numeric

// The numeric parsers as first written, with regular expressions: the
// oracle the hand-written parsers of numberscan.go are held equal to
// (number_scan_test.go). Only the names differ (a Regexp suffix); mention,
// countMention and multiplierMention are the versions before their
// allocations were cut, so that findNumbersRegexp is the old FindNumbers
// whole.

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/sentence"
)

var reBetweenRegexp = regexp.MustCompile(`(?i)^(.+?)\s+and\s+(.+)$`)

var (
	reDateRegexp   = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	reNumberRegexp = regexp.MustCompile(`^([+-]?)(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d+))?([eE][+-]?\d+)?`)
	reRangeRegexp  = regexp.MustCompile(`^(.+?)\s*(?:-|–|—|\bto\b)\s*(.+)$`)
	reFracRegexp   = regexp.MustCompile(`^(\d+)\s*/\s*(\d+)$`)
)

var reLeadingNotRegexp = regexp.MustCompile(`(?i)^(?:not|never)\s+`)

var (
	reISOMonthRegexp  = regexp.MustCompile(`^\d{4}-(?:0[1-9]|1[0-2])$`)
	reMonthYearRegexp = regexp.MustCompile(`^([A-Za-z]+)\.?,?\s+(\d{4})$`)
	// "1:4", "3 : 4"; "1 in 4", "one in four"; "2 out of 3".
	reColonRatioRegexp  = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)$`)
	reRatioDigitsRegexp = regexp.MustCompile(`^\d+(?:\.\d+)?$`)
	reWordRatioRegexp   = regexp.MustCompile(`(?i)^(\S+)\s+(?:in|out\s+of)\s+(\S+)$`)
)

var reYearOrDateRegexp = regexp.MustCompile(`\b(1[5-9]\d{2}|20\d{2})(?:-\d{2}-\d{2})?\b`)

// parseQuantityRegexp parses a numeric expression such as "5.7", "5,700",
// "1.5K", "2 million", "12%", "0.12", "85-95%", "10–20", "$29", "3x",
// "2021", "2021-07-01", "one third", "1/3" or "about 48 million passengers".
// Text that is not one numeric expression is an error wrapping ErrNotNumeric.
func parseQuantityRegexp(text string) (Quantity, error) {
	q := Quantity{Text: text, Scale: 1}
	s := strings.TrimSpace(text)
	s, q.Qualifier, q.Negated = stripQualifierRegexp(s)
	q.Cmp = comparatorOf(q.Qualifier)
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if q.Cmp == CmpBetween {
		m := reBetweenRegexp.FindStringSubmatch(s)
		if m == nil {
			return q, fmt.Errorf("%q: %w: \"between\" needs \"X and Y\"", text, ErrNotNumeric)
		}
		s = m[1] + " to " + m[2]
	}
	if s == "" {
		return q, fmt.Errorf("%q: %w", text, ErrNotNumeric)
	}
	if d, ok, err := parseDateRegexp(s); ok || err != nil {
		if err != nil {
			return q, fmt.Errorf("%q: %w: %v", text, ErrNotNumeric, err)
		}
		q.Kind, q.Date, q.Value, q.Payload, q.Unit = KindDate, d, float64(d.Year()), float64(d.Year()), "year"
		return q, nil
	}
	if r, ok := parseRatioRegexp(s); ok {
		q.Kind, q.Value, q.Payload, q.Decimals = KindRatio, r, r, -1
		return q, nil
	}
	if m := reRangeRegexp.FindStringSubmatch(s); m != nil && !strings.HasPrefix(s, "-") {
		lo, errLo := parseSingleRegexp(m[1])
		hi, errHi := parseSingleRegexp(m[2])
		if errLo == nil && errHi == nil {
			// "85-95%": the unit and scale written once apply to both ends.
			if lo.Unit == "" {
				lo.Unit, lo.Kind = hi.Unit, hi.Kind
				if lo.Scale == 1 && hi.Scale != 1 {
					lo.Scale, lo.Value = hi.Scale, lo.Payload*hi.Scale
				}
			}
			if lo.Unit != hi.Unit || lo.Value > hi.Value {
				return q, fmt.Errorf("%q: %w: range ends differ in unit or are reversed", text, ErrNotNumeric)
			}
			q.Kind, q.Lo, q.Hi, q.Value = KindRange, lo.Value, hi.Value, (lo.Value+hi.Value)/2
			q.Unit, q.Scale, q.Payload = hi.Unit, hi.Scale, hi.Payload
			q.Decimals = max(lo.Decimals, hi.Decimals)
			return q, nil
		}
	}
	if q.Cmp == CmpBetween {
		return q, fmt.Errorf("%q: %w: \"between\" needs two values", text, ErrNotNumeric)
	}
	one, err := parseSingleRegexp(s)
	if err != nil {
		return q, fmt.Errorf("%q: %w", text, err)
	}
	one.Text, one.Qualifier, one.Cmp, one.Negated = text, q.Qualifier, q.Cmp, q.Negated
	return one, nil
}

// stripQualifierRegexp removes a leading comparator phrase ("about", "more than",
// "not more than", "between") and returns it.
func stripQualifierRegexp(s string) (rest, qualifier string, negated bool) {
	if m := reLeadingNotRegexp.FindString(s); m != "" {
		if r, q, _ := stripQualifierRegexp(s[len(m):]); q != "" {
			return r, q, true
		}
	}
	lower := strings.ToLower(s)
	for _, p := range comparatorPhrases {
		w := p.phrase
		if strings.HasPrefix(lower, w) {
			after := s[len(w):]
			if w == "~" || w == "≈" || strings.HasPrefix(after, " ") {
				return strings.TrimSpace(after), w, false
			}
		}
	}
	return s, "", false
}

// parseDateRegexp reads an ISO date ("2021-07-01"), an ISO month ("2021-07") or
// a month and year ("July 2021", "Jul. 2021") as the first day it names.
// ok is false when s has none of these shapes.
func parseDateRegexp(s string) (d time.Time, ok bool, err error) {
	if reDateRegexp.MatchString(s) {
		d, err = time.Parse("2006-01-02", s)
		return d, true, err
	}
	if reISOMonthRegexp.MatchString(s) {
		d, err = time.Parse("2006-01", s)
		return d, true, err
	}
	m := reMonthYearRegexp.FindStringSubmatch(s)
	if m == nil {
		return d, false, nil
	}
	month, known := monthNumber[strings.ToLower(m[1])]
	if !known {
		return d, false, nil
	}
	y, _ := strconv.Atoi(m[2])
	return time.Date(y, month, 1, 0, 0, 0, 0, time.UTC), true, nil
}

// parseRatioRegexp reads a ratio: "1/3", "1:4", "1 in 4", "2 out of 3", "one
// third", "a quarter", "three quarters", "half".
func parseRatioRegexp(s string) (float64, bool) {
	for _, re := range []*regexp.Regexp{reFracRegexp, reColonRatioRegexp, reWordRatioRegexp} {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		n, okN := ratioTermRegexp(m[1])
		d, okD := ratioTermRegexp(m[2])
		if !okN || !okD || d == 0 {
			return 0, false
		}
		return n / d, true
	}
	f := strings.Fields(strings.ToLower(strings.ReplaceAll(s, "-", " ")))
	if len(f) == 1 && f[0] == "half" {
		return 0.5, true
	}
	if len(f) == 2 {
		n, okN := smallNumbers[f[0]]
		d, okD := fractionWords[f[1]]
		if okN && okD {
			return n / d, true
		}
	}
	return 0, false
}

// ratioTermRegexp reads one side of a ratio: digits or a small number word.
func ratioTermRegexp(s string) (float64, bool) {
	if reRatioDigitsRegexp.MatchString(s) {
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil
	}
	w := strings.ToLower(s)
	v, ok := smallNumbers[w]
	return v, ok && w != "a" && w != "an"
}

// parseSingleRegexp parses one value with optional currency, scale and unit. It
// fails closed: after the number only a scale, a unit of the table glued
// or spaced ("100ms", "5 km"), or up to three words naming what is counted
// ("48 million passengers") may follow; another number, a connective
// ("5.7 or 9", "2024 and 2025", "five point seven") or letters glued to
// the digits that are no unit ("5.7abc") make it not one quantity.
func parseSingleRegexp(s string) (Quantity, error) {
	q := Quantity{Text: s, Kind: KindNumber, Scale: 1}
	s = strings.TrimSpace(s)
	s = currencyPrefixRegexp(&q, s)
	rest, err := leadingNumberRegexp(&q, s)
	if err != nil {
		return q, err
	}
	q.Value = q.Payload
	glued := rest != "" && !unicode.IsSpace([]rune(rest)[0])
	rest = strings.TrimSpace(rest)
	rest, glued = scaleSuffixRegexp(&q, rest, glued)
	rest = kindSuffixRegexp(&q, rest)
	if err := unitWordsRegexp(&q, rest, glued); err != nil {
		return q, err
	}
	if q.Kind == KindNumber && q.Unit == "" && q.Scale == 1 && q.Decimals == 0 && q.Payload >= 1000 && q.Payload <= 2999 &&
		!strings.ContainsAny(s, ",eE") {
		q.Kind, q.Unit = KindYear, "year"
	}
	return q, nil
}

// leadingNumberRegexp reads the digits ("5,700", "-3.5", "4.5e9") or a number
// word ("two") s opens with into q.Payload and q.Decimals, and returns what
// follows, untrimmed.
func leadingNumberRegexp(q *Quantity, s string) (string, error) {
	m := reNumberRegexp.FindStringSubmatch(s)
	if m == nil || (m[2] == "" && m[3] == "") {
		// Number words: "two million", "twelve".
		f := strings.Fields(s)
		if len(f) == 0 {
			return "", ErrNotNumeric
		}
		w := strings.ToLower(f[0])
		n, ok := smallNumbers[w]
		if !ok || w == "a" || w == "an" {
			return "", ErrNotNumeric
		}
		q.Payload = n
		return strings.TrimPrefix(s, f[0]), nil
	}
	digits := strings.ReplaceAll(m[2], ",", "") + "." + m[3]
	if m[2] == "" {
		digits = "0." + m[3]
	}
	digits = strings.TrimSuffix(digits, ".") + m[4]
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil || math.IsInf(v, 0) {
		return "", ErrNotNumeric
	}
	if m[1] == "-" {
		v = -v
	}
	q.Payload, q.Decimals = v, len(m[3])
	if m[4] != "" {
		// 4.5e9: the exponent moves the decimal point.
		exp, _ := strconv.Atoi(m[4][1:])
		q.Decimals = max(0, q.Decimals-exp)
	}
	return s[len(m[0]):], nil
}

// unitWordsRegexp reads what follows the number and its scale, kind and
// currency: nothing, a unit of the table ("km", "percentage points"), or up
// to three words naming what is counted ("48 million passengers"). Money
// may be a rate ("$29/user", "$29 per seat"); a multiplier may carry one
// word ("3x faster"); a percentage nothing. Anything else is not one
// quantity.
func unitWordsRegexp(q *Quantity, rest string, glued bool) error {
	if rest == "" {
		return nil
	}
	bad := fmt.Errorf("%w: unexpected %q after the number", ErrNotNumeric, rest)
	lower := strings.ToLower(rest)
	d, inTable := unitTable[lower]
	switch q.Kind {
	case KindMoney:
		if r, ok := strings.CutPrefix(lower, "/"); ok && isUnitWordRegexp(r) {
			return nil
		}
		if r, ok := strings.CutPrefix(lower, "per "); ok && isUnitWordRegexp(r) {
			return nil
		}
		if inTable && d.symbol == q.Unit {
			return nil // "$29 USD"
		}
		return bad
	case KindMultiplier:
		if isUnitWordRegexp(rest) && !strings.ContainsAny(rest, " \t") {
			return nil // "3x faster"
		}
		return bad
	case KindPercent:
		return bad
	}
	if inTable {
		q.Unit = d.symbol
		if strings.HasPrefix(d.dimension, DimCurrency) {
			q.Kind = KindMoney
		}
		return nil
	}
	words := strings.Fields(rest)
	if glued || len(words) > 3 {
		return bad // "5.7abc": letters on the digits that are no unit
	}
	for _, w := range words {
		if !isUnitWordRegexp(w) {
			return bad
		}
	}
	word, _ := firstWord(lower)
	if !isUnitWordRegexp(word) {
		return bad // "one A'": the unit read would be "a", which is no unit
	}
	q.Unit = word
	if d, ok := unitTable[word]; ok {
		q.Unit = d.symbol
	}
	return nil
}

// yearsInRegexp returns the years a text names ("in 2023", "2021-07-01",
// "FY2022" does not count), in order, without repeats. A four-digit
// number written with a separator ("2,023") is a count, not a year.
func yearsInRegexp(text string) []int {
	var out []int
	for _, loc := range reYearOrDateRegexp.FindAllStringIndex(text, -1) {
		if loc[0] > 0 && (text[loc[0]-1] == ',' || text[loc[0]-1] == '.' || text[loc[0]-1] == '$') {
			continue
		}
		if loc[1] < len(text) && (text[loc[1]] == '%' || (text[loc[1]] == ',' && loc[1]+1 < len(text) && text[loc[1]+1] >= '0' && text[loc[1]+1] <= '9')) {
			continue
		}
		y, _ := strconv.Atoi(text[loc[0] : loc[0]+4])
		dup := false
		for _, o := range out {
			dup = dup || o == y
		}
		if !dup {
			out = append(out, y)
		}
	}
	return out
}

// mentionRegexp parses a pattern match into a quantity with the pattern's unit.
func mentionRegexp(pattern, m string) (Quantity, bool) {
	switch pattern {
	case PatternTrustScore, PatternAverage:
		i := strings.IndexFunc(m, func(r rune) bool { return r >= '0' && r <= '9' })
		q, err := parseQuantityRegexp(m[i:])
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
		return countMentionRegexp(m)
	case PatternMultiplier:
		return multiplierMentionRegexp(m)
	case PatternRange:
		if strings.HasPrefix(strings.ToLower(m), "between") {
			q, err := parseQuantityRegexp(m)
			if err != nil {
				// "between 10 and 20 in": drop the word after the range.
				if k := strings.LastIndexByte(m, ' '); k > 0 {
					q, err = parseQuantityRegexp(m[:k])
				}
			}
			if err != nil || q.Unit == "year" {
				return q, false
			}
			q.Text = m
			return q, true
		}
	}
	q, err := parseQuantityRegexp(m)
	if err != nil {
		return q, false
	}
	q.Text = m
	return q, true
}

// countMentionRegexp parses "48.2 million passengers" or "25 built-in rules": the
// counted noun is the first plural word among the words after the number,
// or else the first word.
func countMentionRegexp(m string) (Quantity, bool) {
	n := bareNumberEnd(m, 0)
	if n < 0 {
		return Quantity{}, false
	}
	q, err := parseQuantityRegexp(m[:n])
	if err != nil || q.Kind == KindYear {
		return q, false
	}
	words := strings.Fields(m[n:])
	if len(words) == 0 || months[strings.ToLower(words[0])] {
		return q, false
	}
	unit, nw, plural := strings.ToLower(words[0]), 1, false
	for i, w := range words {
		lw := strings.ToLower(w)
		if strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss") && len(lw) > 2 {
			unit, nw, plural = lw, i+1, true
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
	if nw < 2 || !areaOrVolume[strings.ToLower(words[nw-2])] {
		q.Unit, _ = CanonicalUnit(unit)
	}
	q.Text = strings.TrimSpace(m[:n] + " " + strings.Join(words[:nw], " "))
	return q, true
}

// multiplierMentionRegexp parses "3x faster". Seed 001's table gives a
// multiplier the comparative that follows it as its unit ("3x faster" →
// "faster"), so that "3x faster" and "3x cheaper" are claims about
// different things and match only facts that say the same comparative. The
// unit is the word after the "x" when it is a comparative: "more", or any
// other alphabetic word that is not a function word, a preposition or an
// opener ("3x the speed", "3x over five years", "grew 3x." keep unit "x").
// A fact taken from text (lint.FactsFromText) is read by this same code,
// so claim and fact agree. The seed 000 side (parseQuantityRegexp, numcheck
// tokens, claim tables) keeps "x": a policy compares a multiplier's value,
// and a token "3x faster" is the quantity 3x with a word after it.
func multiplierMentionRegexp(m string) (Quantity, bool) {
	i := strings.IndexAny(m, "x×")
	if i < 0 {
		return Quantity{}, false
	}
	_, size := utf8.DecodeRuneInString(m[i:])
	numPart := m[:i+size]
	q, err := parseQuantityRegexp(numPart)
	if err != nil {
		return q, false
	}
	q.Text = numPart
	if w := strings.ToLower(strings.TrimSpace(m[i+size:])); IsComparative(w) {
		q.Unit, q.Text = w, m
	}
	return q, true
}

// currencyPrefixRegexp reads "$", "€", "£" or "USD " before the number.
func currencyPrefixRegexp(q *Quantity, s string) string {
	switch {
	case strings.HasPrefix(s, "$"):
		q.Kind, q.Unit, s = KindMoney, "dollars", s[1:]
	case strings.HasPrefix(s, "€"):
		q.Kind, q.Unit, s = KindMoney, "euros", strings.TrimPrefix(s, "€")
	case strings.HasPrefix(s, "£"):
		q.Kind, q.Unit, s = KindMoney, "pounds", strings.TrimPrefix(s, "£")
	case strings.HasPrefix(strings.ToUpper(s), "USD "):
		q.Kind, q.Unit, s = KindMoney, "dollars", s[4:]
	}
	return s
}

// scaleSuffixRegexp reads a scale: "1.5K", "2M", "3.2B", "1.5 thousand", "2
// million". Single letters K, M, B and T are always scales, as in seed 000
// ("1.5K", "2M"): in claims "M" means million far more often than metres
// (a comparison with a length reads a spaced "m" as metres: resolveMetres).
func scaleSuffixRegexp(q *Quantity, rest string, glued bool) (string, bool) {
	word, _ := firstWord(strings.ToLower(rest))
	sc, ok := scaleWords[word]
	if word == "" || !ok {
		return rest, glued
	}
	q.Scale, q.Value = sc, q.Payload*sc
	if word == "m" && !glued {
		q.scaleWord = "m"
	}
	after := rest[len(word):]
	return strings.TrimSpace(after), after != "" && !unicode.IsSpace([]rune(after)[0])
}

// kindSuffixRegexp reads "%", "percent", "x", "×", "times" into the kind and
// unit, and returns what follows.
func kindSuffixRegexp(q *Quantity, rest string) string {
	lower := strings.ToLower(rest)
	switch {
	case strings.HasPrefix(lower, "%"):
		q.Kind, q.Unit, rest = KindPercent, "%", rest[1:]
	case strings.HasPrefix(lower, "percentage point"):
		return rest // a unit of its own: unitWords
	case strings.HasPrefix(lower, "percent"), strings.HasPrefix(lower, "per cent"):
		q.Kind, q.Unit = KindPercent, "%"
		rest = strings.TrimPrefix(strings.TrimPrefix(lower, "percent"), "per cent")
	case q.Kind == KindNumber && (lower == "x" || lower == "×" || strings.HasPrefix(lower, "x ") || strings.HasPrefix(lower, "× ")):
		q.Kind, q.Unit = KindMultiplier, "x"
		_, size := utf8.DecodeRuneInString(rest)
		rest = rest[size:]
	case q.Kind == KindNumber && (lower == "times" || strings.HasPrefix(lower, "times ")):
		q.Kind, q.Unit, rest = KindMultiplier, "x", rest[len("times"):]
	}
	return strings.TrimSpace(rest)
}

// isUnitWordRegexp reports a word that can name what a number counts: letters
// (with inner hyphens or apostrophes, or "a/b"), and no number word or
// connective.
func isUnitWordRegexp(w string) bool {
	// Trailing apostrophes and hyphens are not inner: "A'" is "a".
	w = strings.ToLower(strings.TrimRight(w, ".,;:)'’-/"))
	if w == "" || notUnitWords[w] || scaleWords[w] != 0 || fractionWords[w] != 0 {
		return false
	}
	if _, small := smallNumbers[w]; small {
		return false
	}
	for i, r := range w {
		letter := unicode.IsLetter(r)
		inner := i > 0 && (r == '-' || r == '\'' || r == '’' || r == '/')
		if !letter && !inner {
			return false
		}
	}
	return true
}
