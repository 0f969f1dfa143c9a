package rules

import (
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/lint"
	"slices"
	"testing"

	"github.com/claimaudit/claimaudit/label"
)

// only enables one rule, with the given effect.
func only(name string, effect Effect) Options {
	return Options{Enabled: map[string]bool{name: true}, Effect: effect}
}

// passage is a passage with its numbers read as the pipeline reads them.
func passage(doc, text string) Passage {
	return Passage{DocID: doc, Text: text, Facts: lint.FactsFromText(doc+"#p", text)}
}

func expect(t *testing.T, r Result, lbl label.Label, decidedBy string, flags ...string) {
	t.Helper()
	if r.Label != lbl || r.DecidedBy != decidedBy || !slices.Equal(r.Flags, flags) {
		t.Errorf("got label %q decided_by %q flags %v, want %q %q %v", r.Label, r.DecidedBy, r.Flags, lbl, decidedBy, flags)
	}
}

func hedgedClaim() claims.Claim {
	return claims.Claim{Text: "Drug X may reduce symptoms.", Modality: "possibility"}
}
