package rules

import (
	"regexp"
	"strings"

	"github.com/claimaudit/claimaudit/label"
)

// hedgeModalities are the modalities that state less than a fact.
var hedgeModalities = map[string]bool{"possibility": true, "hypothesis": true, "prediction": true}

// A hedge in a claim: the modal verbs of possibility and the phrases that
// report a belief. "May" the month is not a cue: only the lower-case word,
// or a capitalised one that opens the text and is followed by a lower-case
// word, counts. hasHedgeCue reads them with one pass over the claim (every
// claim is read; the regular expression it replaces,
//
//	\b(may|might|could|possibly|perhaps|probably|likely|unlikely|presumably|
//	(?:is|are|was|were) (?:thought|believed|suspected|expected) to|it is possible)\b|
//	^(?:May|Might|Could|Perhaps|Possibly|Probably) [a-z]
//
// is its oracle in the tests).
var (
	hedgeWords   = []string{"may", "might", "could", "possibly", "perhaps", "probably", "likely", "unlikely", "presumably", "it is possible"}
	hedgeBe      = []string{"is ", "are ", "was ", "were "}
	hedgeBelief  = []string{"thought to", "believed to", "suspected to", "expected to"}
	hedgeOpeners = []string{"May ", "Might ", "Could ", "Perhaps ", "Possibly ", "Probably "}
)

// hasHedgeCue says whether a claim's text carries a hedge cue. Word
// boundaries are the regular expressions' \b: between an ASCII letter,
// digit or underscore and anything else.
func hasHedgeCue(s string) bool {
	for _, w := range hedgeOpeners {
		if len(s) > len(w) && strings.HasPrefix(s, w) && 'a' <= s[len(w)] && s[len(w)] <= 'z' {
			return true
		}
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) || i > 0 && isWordByte(s[i-1]) {
			continue // not the start of a word
		}
		rest := s[i:]
		for _, w := range hedgeWords {
			if strings.HasPrefix(rest, w) && wordEnds(s, i+len(w)) {
				return true
			}
		}
		for _, be := range hedgeBe {
			if !strings.HasPrefix(rest, be) {
				continue
			}
			for _, b := range hedgeBelief {
				if strings.HasPrefix(rest[len(be):], b) && wordEnds(s, i+len(be)+len(b)) {
					return true
				}
			}
		}
	}
	return false
}

// isWordByte is \w: an ASCII letter, digit or underscore (a byte of a
// multi-byte rune is none).
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// wordEnds says whether a word that ends at j (with a word byte) is
// followed by a boundary.
func wordEnds(s string, j int) bool { return j == len(s) || !isWordByte(s[j]) }

// possibilityCue finds a passage that states a possibility or likelihood
// itself (a hedged claim it supports as hedged).
var possibilityCue = regexp.MustCompile(`(?i)\b(may|might|could|possibl[ey]|possibility|perhaps|probabl[ey]|likely|` +
	`potential(?:ly)?|suggests?|suggested|risk of|is thought|are thought|believed|hypothes[ie]s|predicted|expected)\b`)

// Hedged says whether a claim hedges: its modality is possibility,
// hypothesis or prediction, or its text carries a hedge cue.
func Hedged(modality, text string) bool {
	return hedgeModalities[modality] || hasHedgeCue(text)
}

// hedge: seed 003's "hedged language (may/could) tends toward insufficient
// unless evidence establishes the possibility/likelihood explicitly". A
// hedged claim is insufficient unless the deciding passage itself states a
// possibility or likelihood.
func hedge(in Input, _ Options) (finding, bool) {
	if !Hedged(in.Claim.Modality, in.Claim.Text) {
		return finding{}, false
	}
	if p, ok := in.deciding(); ok && possibilityCue.MatchString(p.Text) {
		return finding{}, false
	}
	return finding{label: label.Insufficient, flags: []string{FlagHedged}}, true
}
