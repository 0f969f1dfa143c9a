package numeric

import "strings"

// The patterns of seed 001, matched by hand in one pass over the text for
// the places a match can start, then a few bytes of work at each. They were
// first written as regular expressions, which stay the tests' oracle
// (patterns_regexp_test.go); with num = \d[\d,]*(?:\.\d+)? and
// scale = (?:\s?(?:thousand|million|billion|trillion|bn|[KMBT])\b)?:
//
//	trust score  (?i)\b(?:trust\s+)?score:?\s*{num}\s?%
//	average      (?i)\baverage(?:\s+of)?\s+{num}(?:\s?(?:%|percent\b))?
//	money        [$€£]\s?{num}{scale}(?:\s?(?:/|per\s)\s?[A-Za-z]+)?
//	range        (?i)\bbetween\s+[$€£]?{num}{scale}(?:\s?(?:%|percent\b))?\s+and\s+
//	             [$€£]?{num}{scale}(?:\s?(?:%|percent\b))?(?:\s+[A-Za-z][A-Za-z'-]*)?
//	range        \b{num}\s?(?:-|–|—)\s?{num}(?:\s?(?:%|percent\b))?
//	percentage   (?i)\b{num}\s?(?:%|percent\b|per cent\b)
//	multiplier   \b\d+(?:\.\d+)?\s?[x×](?:\s+[A-Za-z][A-Za-z'-]*\b|\s|$|[.,;])
//	time         (?i)\b{num}\s?(?:ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?)\b
//	count        \b{num}{scale}(?:\s+[A-Za-z][A-Za-z'-]*){1,3}
//	version      (?i)\bv(?:ersion\s)?\d+(?:\.\d+)+
//	number       \b{num}{scale}
//
// Each matcher returns the end of the match a Go regular expression finds
// at a start (leftmost-first: a greedy part takes all it can, and gives back
// only when what follows fails; alternatives in the order written), or -1.
// What RE2 means by the syntax, kept here: \s is [\t\n\f\r ]; \b is a
// boundary between an ASCII word character ([0-9A-Za-z_]) and anything
// else; (?i) also matches the Kelvin sign (U+212A) for k and the long s
// (U+017F) for s, in literals and in [A-Za-z], and neither is a word
// character. A part whose continuation can fail is written with the
// continuation as a function, tried after each way the part matches, in
// the regular expression's order.

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isSpaceByte is \s.
func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// wordAt says whether s[i] is an ASCII word byte (false outside s).
func wordAt(s string, i int) bool { return i >= 0 && i < len(s) && isWordByte(s[i]) }

// boundary is \b at i.
func boundary(s string, i int) bool { return wordAt(s, i-1) != wordAt(s, i) }

const (
	kelvin = "\u212a"
	longS  = "\u017f"
)

// foldLit matches the lower-case ASCII literal lit at i as (?i) does and
// returns its end, or -1.
func foldLit(s string, i int, lit string) int {
	for j := 0; j < len(lit); j++ {
		c := lit[j]
		switch {
		case i >= len(s):
			return -1
		case s[i] == c || c >= 'a' && c <= 'z' && s[i] == c-'a'+'A':
			i++
		case c == 'k' && strings.HasPrefix(s[i:], kelvin):
			i += len(kelvin)
		case c == 's' && strings.HasPrefix(s[i:], longS):
			i += len(longS)
		default:
			return -1
		}
	}
	return i
}

// literal matches lit at i, folded or exactly, and returns its end or -1.
func literal(s string, i int, lit string, fold bool) int {
	if fold {
		return foldLit(s, i, lit)
	}
	if strings.HasPrefix(s[i:], lit) {
		return i + len(lit)
	}
	return -1
}

// letterWidth is the width of [A-Za-z] at i (under (?i) with fold), or 0.
func letterWidth(s string, i int, fold bool) int {
	switch {
	case i >= len(s):
		return 0
	case isASCIILetter(s[i]):
		return 1
	case fold && strings.HasPrefix(s[i:], kelvin):
		return len(kelvin)
	case fold && strings.HasPrefix(s[i:], longS):
		return len(longS)
	}
	return 0
}

// spacesEnd is the end of the run of \s at i.
func spacesEnd(s string, i int) int {
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	return i
}

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// optSpace is \s? then the rest: with the space first.
func optSpace(s string, i int, rest func(int) int) int {
	if i < len(s) && isSpaceByte(s[i]) {
		if r := rest(i + 1); r >= 0 {
			return r
		}
	}
	return rest(i)
}

func done(i int) int { return i }

// numEnd is num at i. Nothing that follows num in a pattern can start
// with a digit, a comma or a full stop, so num never gives back.
func numEnd(s string, i int) int {
	if i >= len(s) || !isDigit(s[i]) {
		return -1
	}
	for i++; i < len(s) && (isDigit(s[i]) || s[i] == ','); i++ {
	}
	return fractionEnd(s, i)
}

// fractionEnd is (?:\.\d+)? at i.
func fractionEnd(s string, i int) int {
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		return digitsEnd(s, i+2)
	}
	return i
}

// currencyWidth is the width of [$€£] at i, or 0.
func currencyWidth(s string, i int) int {
	switch {
	case i >= len(s):
		return 0
	case s[i] == '$':
		return 1
	case strings.HasPrefix(s[i:], "€"):
		return len("€")
	case strings.HasPrefix(s[i:], "£"):
		return len("£")
	}
	return 0
}

// dashWidth is the width of (?:-|–|—) at i, or 0.
func dashWidth(s string, i int) int {
	switch {
	case i >= len(s):
		return 0
	case s[i] == '-':
		return 1
	case strings.HasPrefix(s[i:], "–"):
		return len("–")
	case strings.HasPrefix(s[i:], "—"):
		return len("—")
	}
	return 0
}

var scaleNames = [...]string{"thousand", "million", "billion", "trillion", "bn"}

// withScale is scale at i then the rest.
func withScale(s string, i int, fold bool, rest func(int) int) int {
	if r := optSpace(s, i, func(j int) int { return scaleAt(s, j, fold, rest) }); r >= 0 {
		return r
	}
	return rest(i)
}

// scaleAt is (?:thousand|million|billion|trillion|bn|[KMBT])\b at i, then
// the rest.
func scaleAt(s string, i int, fold bool, rest func(int) int) int {
	for _, w := range scaleNames {
		if e := literal(s, i, w, fold); e >= 0 && boundary(s, e) {
			if r := rest(e); r >= 0 {
				return r
			}
		}
	}
	if e := scaleLetterEnd(s, i, fold); e >= 0 && boundary(s, e) {
		return rest(e)
	}
	return -1
}

// scaleLetterEnd is [KMBT] at i.
func scaleLetterEnd(s string, i int, fold bool) int {
	switch {
	case i >= len(s):
		return -1
	case strings.IndexByte("KMBT", s[i]) >= 0:
		return i + 1
	case fold && strings.IndexByte("kmbt", s[i]) >= 0:
		return i + 1
	case fold && strings.HasPrefix(s[i:], kelvin):
		return i + len(kelvin)
	}
	return -1
}

// withPercent is (?:\s?(?:%|percent\b))? at i then the rest.
func withPercent(s string, i int, fold bool, rest func(int) int) int {
	r := optSpace(s, i, func(j int) int {
		if j < len(s) && s[j] == '%' {
			return rest(j + 1)
		}
		if e := literal(s, j, "percent", fold); e >= 0 && boundary(s, e) {
			return rest(e)
		}
		return -1
	})
	if r >= 0 {
		return r
	}
	return rest(i)
}
