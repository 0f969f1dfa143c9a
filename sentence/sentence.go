// Package sentence splits prose into sentences by rule: no model, no
// allocation per character, offsets in code points. Corpus passages and
// claim extraction share it so that both see the same sentences.
package sentence

import (
	"strings"
	"unicode"
)

// Split splits text into sentence ranges [start, end) in code points,
// trimmed of surrounding white space and of list markers ("1. ", "2) ",
// "a) ", "- ", "* ", "• ") at the start of a line. Boundaries are line breaks and
// sentence-final punctuation followed by white space and an upper-case
// letter, digit, quote or bracket — except after common abbreviations
// ("Dr.", "e.g.", "U.S.") and single-letter initials.
func Split(text []rune) [][2]int {
	var out [][2]int
	start := skipMarker(text, 0)
	emit := func(end int) {
		s, e := start, end
		for s < e && unicode.IsSpace(text[s]) {
			s++
		}
		for e > s && unicode.IsSpace(text[e-1]) {
			e--
		}
		if s < e {
			out = append(out, [2]int{s, e})
		}
		start = end
	}
	for i := start; i < len(text); i++ {
		r := text[i]
		if r == '\n' {
			emit(i + 1)
			start = skipMarker(text, i+1)
			i = start - 1
			continue
		}
		if r != '.' && r != '!' && r != '?' {
			continue
		}
		j := i + 1
		for j < len(text) && strings.ContainsRune("\"')]”’»", text[j]) {
			j++
		}
		if j >= len(text) || !unicode.IsSpace(text[j]) {
			continue // "5.7", "U.S.A", end of text
		}
		k := j
		for k < len(text) && unicode.IsSpace(text[k]) && text[k] != '\n' {
			k++
		}
		if k < len(text) && text[k] != '\n' {
			next := text[k]
			if !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("\"'([“‘«", next)) {
				continue
			}
		}
		if r == '.' && isAbbreviation(text[start:i]) {
			continue
		}
		emit(j)
		i = j - 1
	}
	emit(len(text))
	return out
}

var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "cf": true, "al": true, "inc": true, "ltd": true,
	"co": true, "corp": true, "no": true, "nos": true, "fig": true, "approx": true, "est": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "gen": true, "gov": true,
	"sen": true, "rep": true, "mt": true, "ft": true, "u.s": true, "u.k": true, "u.n": true,
	"a.m": true, "p.m": true, "ph.d": true, "vol": true, "pp": true,
}

// isAbbreviation reports whether the word just before a period is an
// abbreviation or an initial ("J." in "J. Smith").
func isAbbreviation(before []rune) bool {
	w := len(before)
	for w > 0 && !unicode.IsSpace(before[w-1]) && before[w-1] != '(' {
		w--
	}
	orig := before[w:]
	if len(orig) == 0 {
		return false
	}
	if len(orig) == 1 && unicode.IsUpper(orig[0]) {
		return true
	}
	word := strings.ToLower(string(orig))
	if abbreviations[word] {
		return true
	}
	// Dotted acronyms such as "U.S.A" or "e.g".
	return strings.Contains(word, ".") && !strings.ContainsFunc(word, unicode.IsDigit)
}

// skipMarker returns the position after a list marker that starts the line
// at pos (after blanks), or pos when there is none. Only short markers count:
// "2021. It rained" is a sentence, not item 2021, and "A. Smith" an initial.
func skipMarker(text []rune, pos int) int {
	p := pos
	for p < len(text) && (text[p] == ' ' || text[p] == '\t') {
		p++
	}
	// A marker is followed by a blank and then by text on the same line; a
	// marker alone on its line is kept as text.
	spaceAt := func(i int) bool {
		if i >= len(text) || (text[i] != ' ' && text[i] != '\t') {
			return false
		}
		for ; i < len(text) && text[i] != '\n'; i++ {
			if !unicode.IsSpace(text[i]) {
				return true
			}
		}
		return false
	}
	if p < len(text) && strings.ContainsRune("-*•–", text[p]) && spaceAt(p+1) {
		return p + 2
	}
	d := p
	for d < len(text) && d-p < 3 && unicode.IsDigit(text[d]) {
		d++
	}
	if d > p && d < len(text) && (text[d] == '.' || text[d] == ')') && spaceAt(d+1) {
		return d + 2
	}
	if p+1 < len(text) && unicode.IsLetter(text[p]) && text[p+1] == ')' && spaceAt(p+2) {
		return p + 3
	}
	return pos
}
