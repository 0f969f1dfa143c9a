package rules

import "github.com/claimaudit/claimaudit/label"

// AbstainNoEvidence is the abstain reason of a claim nothing was retrieved for.
const AbstainNoEvidence = "no_evidence"

// noEvidence: seed 003 ("no relevant evidence is found in the corpus" is
// insufficient) and seed 004's constraint 2 (no evidence passage: the
// output is INSUFFICIENT). A claim nothing was retrieved for is
// insufficient rather than undecided, unless --no-evidence abstain.
func noEvidence(in Input, o Options) (finding, bool) {
	if len(in.Passages) > 0 {
		return finding{}, false
	}
	if o.NoEvidence == NoEvidenceAbstain {
		return finding{flags: []string{FlagNoEvidence}}, true
	}
	return finding{label: label.Insufficient, flags: []string{FlagNoEvidence}}, true
}
