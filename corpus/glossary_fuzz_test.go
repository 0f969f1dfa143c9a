package corpus

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRestate: any definition and claim restate without a panic; a claim
// that changes holds the term, and one already naming the term is left
// alone.
func FuzzRestate(f *testing.F) {
	f.Add("A business day is a weekday that is not a public holiday.", "Refunds are issued within 3 weekdays, not counting public holidays.")
	f.Add("Net income means revenue minus all operating expenses.", "revenue minus all operating expenses of $4 million")
	f.Add("Term: one two three", "three two one Term")
	f.Fuzz(func(t *testing.T, def, claim string) {
		if !utf8.ValidString(def) || !utf8.ValidString(claim) {
			return
		}
		g := &Glossary{}
		g.add(def, "s")
		got, terms, changed := g.Restate(claim)
		if !changed {
			if got != claim {
				t.Fatalf("unchanged, yet %q became %q", claim, got)
			}
			return
		}
		for _, term := range terms {
			if !strings.Contains(strings.ToLower(got), term) {
				t.Fatalf("%q restated as %q, without the term %q", claim, got, term)
			}
		}
	})
}
