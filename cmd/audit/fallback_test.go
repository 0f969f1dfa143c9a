package main

import (
	"testing"

	"github.com/claimaudit/claimaudit/rules"
)

// TestFallbackOnlyWhenNamed: the fallback rule (another verifier decides a
// claim whose verifier answer is invalid) runs only when --rules names it.
func TestFallbackOnlyWhenNamed(t *testing.T) {
	for list, want := range map[string]bool{
		"all": false, "": false, "none": false, "hedge,conflict": false,
		"fallback": true, "all,fallback": true, "hedge, fallback": true,
	} {
		o, err := (&ruleFlags{rules: list, effect: string(rules.EffectOverride), noEvidence: rules.NoEvidenceInsufficient, maxAge: "365d"}).parse()
		if err != nil {
			t.Fatalf("--rules %q: %v", list, err)
		}
		if o.Enabled[rules.Fallback] != want {
			t.Errorf("--rules %q: fallback on = %v, want %v", list, o.Enabled[rules.Fallback], want)
		}
		if list == "all,fallback" && !o.Enabled[rules.Hedge] {
			t.Errorf("--rules all,fallback leaves out hedge")
		}
	}
}
