package rules

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// oldHedgeCue is the regular expression hasHedgeCue replaces: its oracle.
var oldHedgeCue = regexp.MustCompile(`\b(may|might|could|possibly|perhaps|probably|likely|unlikely|presumably|` +
	`(?:is|are|was|were) (?:thought|believed|suspected|expected) to|it is possible)\b|` +
	`^(?:May|Might|Could|Perhaps|Possibly|Probably) [a-z]`)

// hedgePieces are what the cue tells apart: every cue, capitalised and
// not, words that hold one (mayor, unlikely, toward), word characters
// beside it (digits, underscore, non-ASCII), and the spaces between a
// phrase's words.
var hedgePieces = []string{
	"may", "May", "MAY", "might", "Might", "could", "Could", "possibly", "Possibly", "perhaps", "Perhaps", "probably",
	"Probably", "likely", "unlikely", "presumably", "is", "are", "was", "were", "Is", "thought", "believed", "suspected",
	"expected", "to", "toward", "it", "It", "possible", "mayor", "cou", "ld", "_", "1", "é", "ß", "\u212a", "x", "the",
	"drug", "reduce", " ", " ", " ", "  ", "\t", ".", ",", "-", "'", "\xff",
}

func hedgeText(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(12); n >= 0; n-- {
		b.WriteString(hedgePieces[r.IntN(len(hedgePieces))])
		if r.IntN(3) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// hasHedgeCue finds a cue where the regular expression does, on 50,000
// generated texts and the demo's claims (and the real sets' under DATA).
func TestHedgeCueEqualsRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	texts := []string{"", "May", "May ", "May a", "May A", "May 5", "Could be", "is thought to", "is thought tox", "it is possible_"}
	for range 50000 {
		texts = append(texts, hedgeText(r))
	}
	texts = append(texts, jsonlTexts(t, "../benchdata/demo/claims.jsonl")...)
	if dir := os.Getenv("DATA"); dir != "" {
		for _, set := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
			texts = append(texts, jsonlTexts(t, filepath.Join(dir, set, "claims.jsonl"))...)
			texts = append(texts, jsonlTexts(t, filepath.Join(dir, set, "corpus.jsonl"))...)
		}
	}
	hedged := 0
	for _, s := range texts {
		want := oldHedgeCue.MatchString(s)
		require.Equal(t, want, hasHedgeCue(s), "%q", s)
		if want {
			hedged++
		}
	}
	require.Greater(t, hedged, 5000)
	require.Greater(t, len(texts)-hedged, 5000)
}

// FuzzHedgeCue: any claim text has a cue for hasHedgeCue when it has one
// for the regular expression.
func FuzzHedgeCue(f *testing.F) {
	f.Add("Drug X may reduce symptoms.")
	f.Add("May 1850 saw the bridge open; it is thought to be old.")
	f.Fuzz(func(t *testing.T, s string) {
		if want := oldHedgeCue.MatchString(s); want != hasHedgeCue(s) {
			t.Fatalf("%q: regexp %v, scanner %v", s, want, !want)
		}
	})
}
