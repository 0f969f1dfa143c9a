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
		if i+1 < len(text) && text[i+1] == ']' {
			continue // "[...]" marks an elision
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
		if r == '.' {
			if n := spacedDots(text, i); n == 3 {
				continue // ". . ." inside a sentence; ". . . ." ends one
			}
			switch abbreviationKind(text[start:i]) {
			case abbrTitle:
				continue // "Dr. Patel", "p. 55", "No. 5"
			case abbrTerminal:
				// "U.S." ends a sentence only when a word that usually
				// opens one follows: "in the U.S. Is it any good?" but
				// "the U.S. Government".
				if !startsSentence(text[k:]) {
					continue
				}
			}
		}
		emit(j)
		i = j - 1
	}
	emit(len(text))
	return out
}

// Abbreviations after which a period does not end the sentence: titles and
// words that stand before a name or a number.
var titleAbbreviations = set(`mr mrs ms dr prof st gen gov sen rep mt ft fig figs no nos n° vol
	pp p cf vs e.g i.e approx est ca ch sec art col lt capt sgt rev hon op`)

// Abbreviations that may also end a sentence ("... and Co. They agreed."):
// the period ends it when a sentence opener follows (see startsSentence).
var terminalAbbreviations = set(`etc inc ltd co corp jr sr al u.s u.k u.n e.u a.m p.m ph.d
	jan feb mar apr jun jul aug sep sept oct nov dec bros`)

// sentenceOpeners are closed-class words that start sentences far more often
// than they follow an abbreviation in the middle of one (the idea behind
// Punkt's frequent sentence starters, as a fixed list).
var sentenceOpeners = set(`i it he she they we you how what when where why who which whose the this
	that these those there is are was were do does did can could will would should shall may might
	must has have had but and so if yet however in on my our their his her its after before then
	thus also although though as here today`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

type abbrKind int

const (
	abbrNone     abbrKind = iota
	abbrTitle             // never ends a sentence
	abbrTerminal          // ends one when an opener follows
)

// abbreviationKind classifies the word just before a period: an
// abbreviation, an initial ("J." in "J. Smith", but "I." in "you and I. Did"
// ends a sentence), a dotted acronym ("U.S.A", "e.g") or none.
func abbreviationKind(before []rune) abbrKind {
	w := len(before)
	for w > 0 && !unicode.IsSpace(before[w-1]) && before[w-1] != '(' {
		w--
	}
	orig := before[w:]
	if len(orig) == 0 {
		return abbrNone
	}
	if len(orig) == 1 && unicode.IsUpper(orig[0]) {
		return abbrTerminal
	}
	word := strings.ToLower(string(orig))
	switch {
	case titleAbbreviations[word]:
		return abbrTitle
	case terminalAbbreviations[word]:
		return abbrTerminal
	case isDottedAcronym(word):
		return abbrTerminal
	}
	return abbrNone
}

// isDottedAcronym: letters in groups of one or two joined by periods
// ("u.s.a", "e.g", "ph.d"), which an e-mail address or "that..." is not.
func isDottedAcronym(word string) bool {
	parts := strings.Split(word, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		r := []rune(p)
		if len(r) == 0 || len(r) > 2 {
			return false
		}
		for _, c := range r {
			if !unicode.IsLetter(c) {
				return false
			}
		}
	}
	return true
}

// startsSentence reports whether text opens with a sentence opener word.
func startsSentence(text []rune) bool {
	e := 0
	for e < len(text) && (unicode.IsLetter(text[e]) || text[e] == '\'' || text[e] == '’') {
		e++
	}
	if e == 0 {
		return false
	}
	w := strings.ToLower(string(text[:e]))
	if i := strings.IndexAny(w, "'’"); i > 0 {
		w = w[:i] // "It's", "Don't"
	}
	return sentenceOpeners[w]
}

// spacedDots counts the periods of a spaced ellipsis (". . .") ending at i.
func spacedDots(text []rune, i int) int {
	n := 1
	for k := i; k >= 2 && text[k-1] == ' ' && text[k-2] == '.'; k -= 2 {
		n++
	}
	return n
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
