package numeric

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes ParseQuantity and YearsIn read, matched by hand: they were
// regular expressions, run on every mention FindNumbers finds and on every
// passage, and cost more than finding the mentions. The regular expressions
// stay the tests' oracle (number_regexp_test.go); each matcher below names
// the one it replaces and returns what FindStringSubmatch returned (the
// groups, or ok false), with RE2's meaning of the syntax as in scan.go: \s
// is [\t\n\f\r ], \S anything else (an invalid byte too), . anything but
// \n, \d an ASCII digit, $ the end of the text, alternatives tried in the
// order written and a lazy .+? as short as lets the rest match. None of
// the literals under (?i) here holds a k or an s, so ASCII folding is
// (?i) for them.
//
// Every position where one of these patterns continues after a .+? is an
// ASCII byte or the first byte of a dash, which no valid UTF-8 sequence
// holds inside it: the byte positions tried are the rune boundaries the
// regular expression tries.

// matchNumber is `^([+-]?)(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d+))?([eE][+-]?\d+)?`
// (every part optional, so it always matches, and each part takes all it
// can: nothing after it can fail).
func matchNumber(s string) (sign, whole, frac, exp string, end int) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	sign = s[:i]
	if d := digitsEnd(s, i); d > i {
		// \d{1,3}(?:,\d{3})+ needs all the run's digits before the first
		// comma (a digit there is no comma), so at most three; else \d+.
		e := d
		if d-i <= 3 {
			for e+3 < len(s) && s[e] == ',' && isDigit(s[e+1]) && isDigit(s[e+2]) && isDigit(s[e+3]) {
				e += 4
			}
		}
		whole, i = s[i:e], e
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		e := digitsEnd(s, i+1)
		frac, i = s[i+1:e], e
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j+1 < len(s) && (s[j] == '+' || s[j] == '-') && isDigit(s[j+1]) {
			j++ // the sign only where digits follow it
		}
		if e := digitsEnd(s, j); e > j {
			exp, i = s[i:e], e
		}
	}
	return sign, whole, frac, exp, i
}

// hasNewline reports a \n in s, which . does not match.
func hasNewline(s string) bool { return strings.IndexByte(s, '\n') >= 0 }

// restOfLine is `\s*(.+)$` at i, or `\s+(.+)$` when spaced: the greedy
// spaces give back one only when nothing else is left for .+.
func restOfLine(s string, i int, spaced bool) (string, bool) {
	t := spacesEnd(s, i)
	if t == len(s) {
		t--
	}
	if t < i || spaced && t == i || hasNewline(s[t:]) {
		return "", false
	}
	return s[t:], true
}

// matchBetween is `(?i)^(.+?)\s+and\s+(.+)$`.
func matchBetween(s string) (lo, hi string, ok bool) {
	for k := 1; k < len(s) && s[k-1] != '\n'; k++ {
		if !isSpaceByte(s[k]) {
			continue
		}
		a := foldLit(s, spacesEnd(s, k), "and")
		if a < 0 {
			continue
		}
		if hi, ok := restOfLine(s, a, true); ok {
			return s[:k], hi, true
		}
	}
	return "", "", false
}

// matchRange is `^(.+?)\s*(?:-|–|—|\bto\b)\s*(.+)$`.
func matchRange(s string) (lo, hi string, ok bool) {
	for k := 1; k < len(s) && s[k-1] != '\n'; k++ {
		// \s* never gives back here: no alternative starts with a space.
		j := spacesEnd(s, k)
		a := j + dashWidth(s, j)
		if a == j {
			if !strings.HasPrefix(s[j:], "to") || !boundary(s, j) || !boundary(s, j+2) {
				continue
			}
			a = j + 2
		}
		if hi, ok := restOfLine(s, a, false); ok {
			return s[:k], hi, true
		}
	}
	return "", "", false
}

// isISODate is `^(\d{4})-(\d{2})-(\d{2})$`.
func isISODate(s string) bool {
	return len(s) == 10 && allDigits(s[:4]) && s[4] == '-' && allDigits(s[5:7]) && s[7] == '-' && allDigits(s[8:])
}

// isISOMonth is `^\d{4}-(?:0[1-9]|1[0-2])$`.
func isISOMonth(s string) bool {
	if len(s) != 7 || !allDigits(s[:4]) || s[4] != '-' {
		return false
	}
	return s[5] == '0' && s[6] >= '1' && s[6] <= '9' || s[5] == '1' && s[6] >= '0' && s[6] <= '2'
}

// matchMonthYear is `^([A-Za-z]+)\.?,?\s+(\d{4})$`.
func matchMonthYear(s string) (month, year string, ok bool) {
	i := 0
	for i < len(s) && isASCIILetter(s[i]) {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	j := i
	if j < len(s) && s[j] == '.' {
		j++
	}
	if j < len(s) && s[j] == ',' {
		j++
	}
	k := spacesEnd(s, j)
	if k == j || len(s)-k != 4 || !allDigits(s[k:]) {
		return "", "", false
	}
	return s[:i], s[k:], true
}

// matchFraction is `^(\d+)\s*/\s*(\d+)$`.
func matchFraction(s string) (n, d string, ok bool) {
	i := digitsEnd(s, 0)
	if i == 0 {
		return "", "", false
	}
	j := spacesEnd(s, i)
	if j == len(s) || s[j] != '/' {
		return "", "", false
	}
	k := spacesEnd(s, j+1)
	if k == len(s) || !allDigits(s[k:]) {
		return "", "", false
	}
	return s[:i], s[k:], true
}

// decimalEnd is `\d+(?:\.\d+)?` at i, or -1.
func decimalEnd(s string, i int) int {
	e := digitsEnd(s, i)
	if e == i {
		return -1
	}
	return fractionEnd(s, e)
}

// matchColonRatio is `^(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)$`.
func matchColonRatio(s string) (n, d string, ok bool) {
	i := decimalEnd(s, 0)
	if i < 0 {
		return "", "", false
	}
	j := spacesEnd(s, i)
	if j == len(s) || s[j] != ':' {
		return "", "", false
	}
	k := spacesEnd(s, j+1)
	if decimalEnd(s, k) != len(s) {
		return "", "", false
	}
	return s[:i], s[k:], true
}

// isDecimal is `^\d+(?:\.\d+)?$`.
func isDecimal(s string) bool { return decimalEnd(s, 0) == len(s) }

// matchWordRatio is `(?i)^(\S+)\s+(?:in|out\s+of)\s+(\S+)$`.
func matchWordRatio(s string) (n, d string, ok bool) {
	i := 0
	for i < len(s) && !isSpaceByte(s[i]) {
		i++
	}
	if i == 0 || i == len(s) {
		return "", "", false
	}
	j := spacesEnd(s, i)
	e := foldLit(s, j, "in")
	if e < 0 || spacesEnd(s, e) == e {
		e = foldLit(s, j, "out")
		if e < 0 || spacesEnd(s, e) == e {
			return "", "", false
		}
		if e = foldLit(s, spacesEnd(s, e), "of"); e < 0 {
			return "", "", false
		}
	}
	k := spacesEnd(s, e)
	if k == e || k == len(s) {
		return "", "", false
	}
	for t := k; t < len(s); t++ {
		if isSpaceByte(s[t]) {
			return "", "", false
		}
	}
	return s[:i], s[k:], true
}

// leadingNotEnd is `(?i)^(?:not|never)\s+`: the end of its match, or 0.
func leadingNotEnd(s string) int {
	for _, w := range [...]string{"not", "never"} {
		if e := foldLit(s, 0, w); e >= 0 {
			if k := spacesEnd(s, e); k > e {
				return k
			}
		}
	}
	return 0
}

// nextYear is `\b(1[5-9]\d{2}|20\d{2})(?:-\d{2}-\d{2})?\b` searched from
// i, as FindAllStringIndex steps: the span of the first match at or after
// i, or b = -1.
func nextYear(s string, i int) (b, e int) {
	for b = i; b+4 <= len(s); b++ {
		c := s[b]
		if c != '1' && c != '2' || wordAt(s, b-1) {
			continue
		}
		if !(c == '1' && s[b+1] >= '5' && s[b+1] <= '9' || c == '2' && s[b+1] == '0') || !isDigit(s[b+2]) || !isDigit(s[b+3]) {
			continue
		}
		e = b + 4
		if e+6 <= len(s) && s[e] == '-' && isDigit(s[e+1]) && isDigit(s[e+2]) && s[e+3] == '-' && isDigit(s[e+4]) && isDigit(s[e+5]) && boundary(s, e+6) {
			return b, e + 6
		}
		if boundary(s, e) {
			return b, e
		}
	}
	return -1, -1
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasLowerPrefix is strings.HasPrefix(asciiLower(s), lower) for a
// lower-case lower, without building the lowered string.
func hasLowerPrefix(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// startsWithSpace reports whether the first rune of s is a Unicode space
// ([]rune(s)[0] as first written, without converting all of s).
func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// nextField returns the first of strings.Fields(s) and what follows it,
// without splitting the rest; "" when s has no field.
func nextField(s string) (field, tail string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}
