package sentence

import (
	"unicode"
)

// Word lists shared by the packages that read sentences word by word:
// numeric (the counted noun of "25 built-in rules"), extract (content words
// of claims and queries, subjects) and lint (the entity a number is about).
// They live here, below all three, so that none of them imports another for
// a list of words.

// stopwords are function words that carry no content of their own.
var stopwords = set(`the and for are was were has have had with from that this what which who whom how when where why
	did does do not can could would should will may might its his her their our your there than then them they into onto about
	many much some any all each more most other such only own same too very just also been being`)

// IsStopword reports a lower-case function word ("the", "with", "about")
// that carries no content of its own.
func IsStopword(lower string) bool { return stopwords[lower] }

// commonOpeners are words that are capitalised only because they open the
// sentence ("In 2023, …", "Over 40% …"), not because they are names.
var commonOpeners = set(`in by at on for as since after before during last each every some most all over about
	nearly almost`)

// IsCommonOpener reports a lower-case word that, capitalised at the start
// of a sentence, is capitalised by its position rather than as a name.
func IsCommonOpener(lower string) bool { return commonOpeners[lower] }

// UpperFirst returns s with its first letter upper-cased, as a sentence
// opens.
func UpperFirst(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}
