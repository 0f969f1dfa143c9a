package rules

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/lint"
)

// conflict: seed 003's "if multiple sources disagree in-corpus, treat as
// insufficient unless the corpus has an explicit resolution rule (e.g. a
// designated gold doc)". Two documents among the retrieved passages that
// speak of the claim's entity (entity.go: a passage about another entity
// that shares name words is not a source on the claim) disagree when, in
// this order (the first kind with both sides decides):
//
//   - the claim states a number that one document's numbers about the
//     entity verify and another's contradict (the numeric check, document
//     by document); or
//   - the claim dates an event (a year and no other number) and one
//     document's sentence about it (naming the entity; holding at least
//     80% of the claim's other words) gives that year while another
//     document's gives only another year; or
//   - the verifier scored the passages one by one and one passage naming
//     the entity supports the claim while another contradicts it, each at
//     a probability of at least ConflictMin.
//
// The claim is then insufficient, flagged conflict, unless some of the
// disagreeing documents are authorities (Doc.Authority): then the
// authorities' verdict decides (flags conflict and authority). Authorities
// that disagree among themselves decide nothing.
func conflict(in Input, o Options) (finding, bool) {
	// The checks that read the passages' own words come first: they do not
	// depend on the verifier, so a conflict in the corpus is found whichever
	// verifier ran and whichever passage ranks first.
	if f, ok := sides(numericVotes(in, o)); ok {
		return f, true
	}
	if f, ok := sides(yearVotes(in)); ok {
		return f, true
	}
	return sides(passageVotes(in, o))
}

// sides decides the conflict from one kind of votes: none unless both
// supported and unsupported are voted; then the authorities' side when
// only one side has authorities, else insufficient.
func sides(votes []vote) (finding, bool) {
	var seen, auth [3]bool
	for _, v := range votes {
		seen[v.label.Index()] = true
		if v.authority {
			auth[v.label.Index()] = true
		}
	}
	if !seen[0] || !seen[1] {
		return finding{}, false
	}
	switch {
	case auth[0] && !auth[1]:
		return finding{label: label.Supported, flags: []string{FlagConflict, FlagAuthority}}, true
	case auth[1] && !auth[0]:
		return finding{label: label.Unsupported, flags: []string{FlagConflict, FlagAuthority}}, true
	}
	return finding{label: label.Insufficient, flags: []string{FlagConflict}}, true
}

// vote is one document's side: supported or unsupported.
type vote struct {
	label     label.Label
	authority bool
}

// passageVotes are the passages the verifier scored on their own that
// support or contradict at ConflictMin or more, among those that name the
// claim's entity (a passage about another entity neither supports nor
// contradicts it).
func passageVotes(in Input, o Options) []vote {
	var out []vote
	for _, p := range in.Passages {
		if p.Probs == nil || !in.aboutEntity(p.Text) {
			continue
		}
		switch {
		case p.Probs[0] >= o.ConflictMin:
			out = append(out, vote{label.Supported, p.Doc.Authority})
		case p.Probs[1] >= o.ConflictMin:
			out = append(out, vote{label.Unsupported, p.Doc.Authority})
		}
	}
	return out
}

// numericVotes checks the claim's number against each document's numbers
// on their own — those about the claim's entity and under its qualifiers
// (relevantFacts) — : verified is a vote for supported, a mismatch one for
// unsupported.
func numericVotes(in Input, o Options) []vote {
	if !in.hasNumber() {
		return nil
	}
	var order []string
	facts := map[string][]lint.Fact{}
	authority := map[string]bool{}
	for _, p := range in.Passages {
		if _, seen := facts[p.DocID]; !seen {
			order = append(order, p.DocID)
		}
		facts[p.DocID] = append(facts[p.DocID], in.relevantFacts(p.Facts)...)
		authority[p.DocID] = authority[p.DocID] || p.Doc.Authority
	}
	if len(order) < 2 {
		return nil
	}
	var out []vote
	for _, d := range order {
		if len(facts[d]) == 0 {
			continue
		}
		nc := in.entityNumericCheck(facts[d], o.NumericPolicy)
		if nc.Fact == nil || !in.sameYears(nc.Fact.Years) {
			continue
		}
		switch nc.Status {
		case lint.NumericVerified:
			out = append(out, vote{label.Supported, authority[d]})
		case lint.NumericMismatch:
			out = append(out, vote{label.Unsupported, authority[d]})
		}
	}
	return out
}

// sameYears says whether a fact's years agree with the claim's: the claim
// names none (its timeframe or text) and neither does the fact, or they
// share one.
func (in Input) sameYears(years []int) bool {
	want := in.wantYears()
	if len(want) == 0 {
		return len(years) == 0
	}
	for _, y := range years {
		for _, w := range want {
			if y == w {
				return true
			}
		}
	}
	return false
}

// wantYears are the years sameYears accepts: the claim's, and those of
// its timeframe (not to be modified).
func (in Input) wantYears() []int {
	c := in.claim
	if c != nil && c.wantRead {
		return c.want
	}
	want := slices.Clone(in.claimYears())
	if lo, hi, ok := timeframeYears(in.Claim.Timeframe); ok {
		for y := lo; y <= hi && y-lo < 200; y++ {
			want = append(want, y)
		}
	}
	if c != nil {
		c.want, c.wantRead = want, true
	}
	return want
}

var sentenceEnd = regexp.MustCompile(`[.!?]\s+`)

// yearVotes: for a claim that dates something (a year, no other number),
// each document whose sentence about the same thing gives the claim's
// year votes supported, one whose sentence gives only other years votes
// unsupported.
func yearVotes(in Input) []vote {
	years := in.claimYears()
	if len(years) != 1 || in.hasNumber() {
		return nil
	}
	y := years[0]
	var words []string
	for _, w := range contentWords(in.Claim.Text) {
		if w != strconv.Itoa(y) {
			words = append(words, w)
		}
	}
	if len(words) < 2 {
		return nil
	}
	seen := map[string]bool{}
	var out []vote
	for _, p := range in.Passages {
		if seen[p.DocID] {
			continue
		}
		for _, s := range sentenceEnd.Split(p.Text, -1) {
			ys := yearsIn(s)
			if len(ys) == 0 || !in.aboutEntity(s) || !sameEvent(in, words, s) {
				continue
			}
			seen[p.DocID] = true
			l := label.Unsupported
			if slices.Contains(ys, y) {
				l = label.Supported
			}
			out = append(out, vote{l, p.Doc.Authority})
			break
		}
	}
	return out
}

// sameEvent says whether a sentence is about what the claim dates: with
// normalised entities, it names them all and shares another word (by its
// first five letters: "chartered", "charter") with the claim; without, it
// holds at least 80% of the claim's words.
func sameEvent(in Input, words []string, sentence string) bool {
	c := in.Claim
	if len(c.Normalization.Entities) == 0 {
		return overlap(words, sentence) >= 0.8
	}
	entity := map[string]bool{}
	for _, e := range c.Normalization.Entities {
		if !mentions(in.textWords(sentence), normName(e)) {
			return false
		}
		for _, w := range contentWords(e) {
			entity[w] = true
		}
	}
	var rest []string
	for _, w := range words {
		if !entity[w] {
			rest = append(rest, w)
		}
	}
	return len(rest) > 0 && overlap(rest, sentence) > 0
}

// overlap is the share of words found in text, a word matching another
// with the same first five letters.
func overlap(words []string, text string) float64 {
	have := map[string]bool{}
	for _, w := range strings.Fields(fold(text)) {
		have[prefix5(w)] = true
	}
	n := 0
	for _, w := range words {
		if have[prefix5(w)] {
			n++
		}
	}
	return float64(n) / float64(len(words))
}

func prefix5(w string) string {
	if len(w) > 5 {
		return w[:5]
	}
	return w
}
