package rules

import (
	"regexp"

	"github.com/claimaudit/claimaudit/label"
)

// hedgeModalities are the modalities that state less than a fact.
var hedgeModalities = map[string]bool{"possibility": true, "hypothesis": true, "prediction": true}

// hedgeCue finds a hedge in a claim: the modal verbs of possibility and the
// phrases that report a belief. "May" the month is not a cue: only the
// lower-case word, or a capitalised one that opens the text and is
// followed by a lower-case word, counts.
var hedgeCue = regexp.MustCompile(`\b(may|might|could|possibly|perhaps|probably|likely|unlikely|presumably|` +
	`(?:is|are|was|were) (?:thought|believed|suspected|expected) to|it is possible)\b|` +
	`^(?:May|Might|Could|Perhaps|Possibly|Probably) [a-z]`)

// possibilityCue finds a passage that states a possibility or likelihood
// itself (a hedged claim it supports as hedged).
var possibilityCue = regexp.MustCompile(`(?i)\b(may|might|could|possibl[ey]|possibility|perhaps|probabl[ey]|likely|` +
	`potential(?:ly)?|suggests?|suggested|risk of|is thought|are thought|believed|hypothes[ie]s|predicted|expected)\b`)

// Hedged says whether a claim hedges: its modality is possibility,
// hypothesis or prediction, or its text carries a hedge cue.
func Hedged(modality, text string) bool {
	return hedgeModalities[modality] || hedgeCue.MatchString(text)
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
