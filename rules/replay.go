package rules

import "github.com/claimaudit/claimaudit/label"

// Replay takes the rules' decision again from the flags a record holds,
// for a label so far that has changed since (a shard's claim re-decided
// at the temperature fitted over all the shards): each flag stands for the
// rule that fired, with the label that rule gives — hedged,
// underspecified, no_evidence: insufficient; qualifier_missing:
// insufficient when the label so far is supported or unsupported;
// qualifier_differs: insufficient and polarity: unsupported, when it is
// supported; conflict: insufficient, or with the authority flag the
// authorities' label. As in Apply, the first rule whose label differs from
// the label so far decides (under EffectOverride). The fallback rule is
// not replayed: its claims keep the fallback verifier's decision.
func Replay(flags []string, so label.Label, authority label.Label, effect Effect, numericFlagOnly bool) Result {
	has := map[string]bool{}
	for _, f := range flags {
		has[f] = true
	}
	r := Result{Label: so, Flags: flags}
	propose := func(rule string, l label.Label) {
		if r.Rule != "" || l == label.None || l == so {
			return
		}
		r.Rule, r.RuleLabel = rule, l
		if effect != EffectFlag {
			r.Label, r.DecidedBy = l, DecidedBy(rule)
		}
	}
	if has[FlagNoEvidence] {
		propose(NoEvidence, label.Insufficient)
	}
	if has[FlagConflict] {
		l := label.Insufficient
		if has[FlagAuthority] {
			l = authority
		}
		propose(Conflict, l)
	}
	if !numericFlagOnly && has[FlagNumericMismatch] {
		propose(Numeric, label.Unsupported)
	}
	if !numericFlagOnly && has[FlagNumericBound] {
		propose(Numeric, label.Insufficient)
	}
	if (so == label.Supported || so == label.Unsupported) && has[FlagQualifierMissing] {
		propose(Qualifier, label.Insufficient)
	}
	if so == label.Supported && has[FlagQualifierDiffers] {
		propose(Qualifier, label.Insufficient)
	}
	if so == label.Supported && has[FlagPolarity] {
		propose(Qualifier, label.Unsupported)
	}
	if has[FlagUnderspecified] {
		propose(Underspecified, label.Insufficient)
	}
	if has[FlagHedged] {
		propose(Hedge, label.Insufficient)
	}
	return r
}
