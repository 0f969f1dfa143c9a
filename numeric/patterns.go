package numeric

import (
	"cmp"
	"slices"
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

var months = map[string]bool{"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true}

// FindNumbers returns the numeric mentions of text (seed 001's patterns,
// then any other number), left to right. Versions ("v1.0") and years
// ("in 2021") are not numeric claims and are left out.
func FindNumbers(text string) []Mention {
	// The anchors, the bytes taken and the mentions of a short text (most
	// are sentences) live on the stack; a long one's go to the heap.
	if !hasDigit(text) {
		return nil // every pattern needs an ASCII digit
	}
	var atBuf [128]int
	a := anchorsOf(text, atBuf[:0])
	var takenBuf [512]bool
	var taken []bool
	if len(text) < len(takenBuf) {
		taken = takenBuf[:len(text)+1]
	} else {
		taken = make([]bool, len(text)+1)
	}
	eachMatch(text, a.at, atVersion, versionEnd, func(b, e int) { mark(taken, b, e) })
	var outBuf [8]Mention
	out := outBuf[:0]
	add := func(pattern string, b, e int) {
		for i := b; i < e; i++ {
			if taken[i] {
				return
			}
		}
		m := text[b:e]
		q, ok := mention(pattern, m)
		if !ok {
			return
		}
		if q.Cmp == CmpValue && !q.Negated {
			q.Cmp, q.Negated, q.Qualifier = comparatorAt(text, b)
		}
		mark(taken, b, e)
		end := e
		if strings.HasPrefix(text[b:], q.Text) {
			end = b + len(q.Text) // a count keeps only its counted noun
		}
		out = append(out, Mention{Quantity: q, Pattern: pattern, Start: b, End: end})
	}
	for _, p := range scanOrder {
		eachMatch(text, a.at, p.at, p.end, func(b, e int) {
			add(p.name, b, b+len(strings.TrimRight(text[b:e], " .,;")))
		})
	}
	eachMatch(text, a.at, atDigit, bareNumberEnd, func(b, e int) {
		if loc := [2]int{b, e}; !isYear(text, loc[:]) && !nextToMonth(text, loc[:]) {
			add("number", b, e)
		}
	})
	if len(out) == 0 {
		return nil
	}
	// No two mentions start at the same byte (each marks its first as
	// taken), so any sort gives the one order.
	res := make([]Mention, len(out))
	copy(res, out)
	slices.SortFunc(res, func(x, y Mention) int { return cmp.Compare(x.Start, y.Start) })
	return res
}

// Where the patterns can start: a digit after no word character, a
// currency sign, or the first letter of a keyword.
const (
	atDigit = iota
	atMoney
	atScore // "trust" or "score"
	atAverage
	atBetween
	atVersion
	nAt
)

// scanOrder is the patterns in priority order: where two overlap, the
// earlier wins.
var scanOrder = [...]struct {
	name string
	end  func(string, int) int
	at   int
}{
	{PatternTrustScore, trustScoreEnd, atScore},
	{PatternAverage, averageEnd, atAverage},
	{PatternMoney, moneyEnd, atMoney},
	{PatternRange, betweenEnd, atBetween},
	{PatternRange, dashRangeEnd, atDigit},
	{PatternPercentage, percentageEnd, atDigit},
	{PatternMultiplier, multiplierEnd, atDigit},
	{PatternTime, timeEnd, atDigit},
	// Count: a number, an optional scale, and up to two intervening words
	// that start with a letter before the counted noun (seed 001 rule 2).
	{PatternCount, countEnd, atDigit},
}

type anchors struct {
	at []int // position<<anchorBits | kind, in order of position
}

// hasDigit reports an ASCII digit in s: a tighter loop than anchorsOf's,
// for the many texts without one.
func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

const anchorBits = 3 // nAt kinds

// Classes of the bytes a pattern can start at (0: none), for anchorsOf.
const (
	byteDigit = 1 + iota
	byteCurrency
	byteLongS // the first byte of ſ, of "ſcore"
	byteS     // s or S, of "score"
	byteT     // t or T, of "trust"
	byteA
	byteB
	byteV
)

var byteClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byteDigit
	}
	t['$'], t[0xc2], t[0xe2] = byteCurrency, byteCurrency, byteCurrency // $, £, €
	t[0xc5] = byteLongS
	for _, c := range [...]struct {
		lower byte
		class uint8
	}{{'s', byteS}, {'t', byteT}, {'a', byteA}, {'b', byteB}, {'v', byteV}} {
		t[c.lower], t[c.lower-'a'+'A'] = c.class, c.class
	}
	return t
}()

// anchorsOf is the one pass over the text: the starts each kind of
// pattern may match at, in order, appended to buf. A keyword's first ASCII
// letter is a start only after no word character, as every keyword
// pattern opens with \b.
func anchorsOf(s string, buf []int) anchors {
	a := anchors{at: buf}
	for i := 0; i < len(s); i++ {
		class := byteClass[s[i]]
		if class == 0 {
			continue
		}
		kind := -1
		switch class {
		case byteDigit:
			if i == 0 || !isWordByte(s[i-1]) {
				kind = atDigit
			}
		case byteCurrency:
			if currencyWidth(s, i) > 0 {
				kind = atMoney
			}
		case byteLongS:
			if foldLit(s, i, "score") >= 0 {
				kind = atScore
			}
		default:
			if i > 0 && isWordByte(s[i-1]) {
				continue
			}
			switch {
			case class == byteS && foldLit(s, i, "score") >= 0, class == byteT && foldLit(s, i, "trust") >= 0:
				kind = atScore
			case class == byteA && foldLit(s, i, "average") >= 0:
				kind = atAverage
			case class == byteB && foldLit(s, i, "between") >= 0:
				kind = atBetween
			case class == byteV:
				kind = atVersion
			}
		}
		if kind >= 0 {
			a.at = append(a.at, i<<anchorBits|kind)
		}
	}
	return a
}

// eachMatch is FindAllStringIndex of a pattern: from left to right, the
// first start of its kind at or after the end of the last match where it
// matches.
func eachMatch(s string, anchors []int, kind int, end func(string, int) int, f func(b, e int)) {
	from := 0
	for _, x := range anchors {
		b := x >> anchorBits
		if x&(1<<anchorBits-1) != kind || b < from {
			continue
		}
		if e := end(s, b); e >= 0 {
			f(b, e)
			from = e
		}
	}
}

func mark(taken []bool, b, e int) {
	for i := b; i < e; i++ {
		taken[i] = true
	}
}

// mention parses a pattern match into a quantity with the pattern's unit.
func mention(pattern, m string) (Quantity, bool) {
	switch pattern {
	case PatternTrustScore, PatternAverage:
		i := strings.IndexFunc(m, func(r rune) bool { return r >= '0' && r <= '9' })
		q, err := parseQuantity(m[i:], false)
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
			q, err := parseQuantity(m, false)
			if err != nil {
				// "between 10 and 20 in": drop the word after the range.
				if k := strings.LastIndexByte(m, ' '); k > 0 {
					q, err = parseQuantity(m[:k], false)
				}
			}
			if err != nil || q.Unit == "year" {
				return q, false
			}
			q.Text = m
			return q, true
		}
	}
	q, err := parseQuantity(m, false)
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
	n := bareNumberEnd(m, 0)
	if n < 0 {
		return Quantity{}, false
	}
	q, err := parseQuantity(m[:n], false)
	if err != nil || q.Kind == KindYear {
		return q, false
	}
	// The words after the number (strings.Fields; the count pattern has
	// at most maxCountWords of them) and, while they are spaced by single
	// spaces from the number and each other, where each ends in m: the
	// counted phrase is then a substring of m, not a new string.
	var buf [maxCountWords + 1]string
	var ends [maxCountWords + 1]int
	words, at := buf[:0], n
	for w, tail := nextField(m[n:]); w != ""; w, tail = nextField(tail) {
		b := len(m) - len(tail) - len(w)
		e := -1
		if at >= 0 && b == at+1 && m[at] == ' ' {
			e = b + len(w)
		}
		if len(words) < len(ends) {
			ends[len(words)] = e
		}
		words, at = append(words, w), e
	}
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
	if nw <= len(ends) && ends[nw-1] >= 0 {
		q.Text = m[:ends[nw-1]]
	} else {
		q.Text = strings.TrimSpace(m[:n] + " " + strings.Join(words[:nw], " "))
	}
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
	q, err := parseQuantity(numPart, false)
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
	return max(0, bareNumberEnd(s, 0))
}
