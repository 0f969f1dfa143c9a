// Package rules applies the labelling rules that gold labels follow
// (DESIGN.md "Decisions per claim") to a claim the verifier has scored:
// hedged claims, qualifiers the evidence does not match, numeric claims
// without a timeframe, conflicting sources, claims with no evidence, stale
// evidence, and verdicts whose logits were unusable. The layer sits between
// calibration and the record, the same for every verifier backend; each
// rule lives in its own file and reads only the claim, its passages and
// the label so far.
package rules

import (
	"fmt"
	"github.com/claimaudit/claimaudit/lint"
	"slices"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

// Rule names, in the order they are tried: the first that sets a label
// decides; every rule that fires adds its flag.
const (
	Fallback       = "fallback"
	NoEvidence     = "no_evidence"
	Conflict       = "conflict"
	Numeric        = "numeric"
	Qualifier      = "qualifier"
	Underspecified = "underspecified"
	Hedge          = "hedge"
	Stale          = "stale"
	Definition     = "definition"
)

// Names lists every rule in the order they are tried.
var Names = []string{Fallback, NoEvidence, Conflict, Numeric, Qualifier, Underspecified, Hedge, Stale, Definition}

// Flags a rule adds to a claim's record.
const (
	FlagFallback         = "fallback"
	FlagNoEvidence       = "no_evidence"
	FlagConflict         = "conflict"
	FlagAuthority        = "authority"
	FlagNumericMismatch  = "numeric_mismatch"
	FlagNumericBound     = "numeric_bound"
	FlagQualifierMissing = "qualifier_missing"
	FlagQualifierDiffers = "qualifier_differs"
	FlagPolarity         = "polarity"
	FlagUnderspecified   = "underspecified"
	FlagHedged           = "hedged"
	FlagStale            = "stale"
	FlagDefinition       = "definition"
	// FlagEvidenceAge prefixes the flag that says how old stale evidence
	// is: evidence_age=34y, evidence_age=400d.
	FlagEvidenceAge = "evidence_age="
)

// Effect is how a rule bears on the label.
type Effect string

// Effects.
const (
	// EffectOverride: the first rule that fires sets the label.
	EffectOverride Effect = "override"
	// EffectFlag: rules only flag; the verifier's label stands.
	EffectFlag Effect = "flag"
)

// No-evidence modes.
const (
	NoEvidenceInsufficient = "insufficient" // the labelling rule: no evidence is insufficient
	NoEvidenceAbstain      = "abstain"      // keep the claim undecided
)

// Options configure Apply. The zero value applies no rule.
type Options struct {
	Enabled    map[string]bool
	Effect     Effect
	NoEvidence string        // NoEvidenceInsufficient (default) or NoEvidenceAbstain
	MaxAge     time.Duration // stale: evidence older than the claim's date by more; default 365 days
	// Today is the date an undated claim's evidence is aged against (the
	// run's date); zero: undated claims are never stale.
	Today time.Time
	// ConflictMin is the probability at or above which a passage counts as
	// supporting (or contradicting) in the conflict rule; default 0.6.
	ConflictMin float64
	// NumericPolicy is the numeric match policy (lint.MatchOptions): the
	// run's --numeric-policy.
	NumericPolicy string
	// NumericEffect is the run's --numeric-effect: the numeric rule sets
	// the label under rule (or "") and override, only flags under flag, and
	// is off under none.
	NumericEffect lint.NumericEffect
}

// DefaultMaxAge is --max-evidence-age's default.
const DefaultMaxAge = 365 * 24 * time.Hour

// DefaultConflictMin is the conflict rule's default probability.
const DefaultConflictMin = 0.6

// Parse reads --rules: "all", "none" or a comma-separated list of names.
func Parse(s string) (map[string]bool, error) {
	on := map[string]bool{}
	switch strings.TrimSpace(s) {
	case "", "all":
		for _, n := range Names {
			on[n] = true
		}
		return on, nil
	case "none":
		return on, nil
	}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(Names, n) {
			return nil, fmt.Errorf("rule %q is not one of %s (or all, none)", n, strings.Join(Names, ", "))
		}
		on[n] = true
	}
	return on, nil
}

// ParseEffect reads --rule-effect.
func ParseEffect(s string) (Effect, error) {
	switch Effect(s) {
	case EffectOverride, EffectFlag:
		return Effect(s), nil
	}
	return "", fmt.Errorf("rule effect %q is not one of override, flag", s)
}

// Doc is what the rules know of a passage's document.
type Doc struct {
	CreatedAt time.Time // zero when unknown
	Authority bool      // the corpus designates it to resolve conflicts
}

// Passage is one retrieved passage as the rules see it.
type Passage struct {
	DocID string
	Text  string
	Doc   Doc
	// Probs are the verifier's calibrated probabilities for this passage
	// alone; nil when the backend scores the passages together.
	Probs *[3]float64
	Facts []lint.Fact // the passage's numbers (the numeric check's)
}

// Input is one claim as the rules see it.
type Input struct {
	Claim    claims.Claim
	Passages []Passage
	Deciding int         // the deciding passage's index; -1 when none
	Label    label.Label // the label so far (verifier and numeric check); None when abstained
	// Abstain is why the claim is undecided ("" when answered); the
	// no-evidence abstention is "no_evidence".
	Abstain string
	// Fallback is the label of the fallback (lexical) verifier when the
	// verifier's own logits were unusable; None otherwise.
	Fallback label.Label
	// Definitions are the corpus terms the claim was restated with before
	// it was retrieved and verified (corpus.Glossary.Restate); nil when it
	// was not.
	Definitions []string
	// Check is the claim's text as the numeric check read it, when the
	// caller has it: lint.PrepareClaim(Claim.Text, lint.MatchOptions{Policy:
	// any policy, the other options zero}). The rules then do not read the
	// claim again; nil, they read it when a rule needs it.
	Check *lint.ClaimCheck

	// claim is what the rules read of the claim's text, shared by the
	// rules of one Apply (nil outside Apply: read on each use).
	claim *claimText
}

// Result is what the rules concluded.
type Result struct {
	Label     label.Label // the final label; None when the claim stays undecided
	DecidedBy string      // "rule:<name>" (or "fallback") when a rule set Label; "" otherwise
	// Rule and RuleLabel are the first rule that gave a label and that
	// label, also under EffectFlag (where it is not applied): what the
	// per-rule metrics compare with the verifier's own label.
	Rule      string
	RuleLabel label.Label
	Flags     []string
}

// finding is one rule's conclusion: a label (None: flag only) and flags.
type finding struct {
	label label.Label
	flags []string
}

type rule func(in Input, o Options) (finding, bool)

var table = map[string]rule{
	Fallback: fallback, NoEvidence: noEvidence, Conflict: conflict, Numeric: numericRule, Qualifier: qualifier,
	Underspecified: underspecified, Hedge: hedge, Stale: stale, Definition: definition,
}

// Apply runs the enabled rules on one claim.
func Apply(in Input, o Options) Result { return apply(in, o, true) }

// apply is Apply; memo says whether the rules share what they read of the
// claim and its passages (always, but in the test that holds the memo to
// reading on each use).
func apply(in Input, o Options, memo bool) Result {
	if o.MaxAge == 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.ConflictMin == 0 {
		o.ConflictMin = DefaultConflictMin
	}
	r := Result{Label: in.Label}
	in.claim = nil
	if memo {
		in.claim = &claimText{}
	}
	for _, name := range Names {
		if !o.Enabled[name] {
			continue
		}
		f, fired := table[name](in, o)
		if !fired {
			continue
		}
		r.Flags = append(r.Flags, f.flags...)
		// A rule decides when it changes the label so far; one that
		// agrees with it only flags.
		// An undecided claim stays undecided but for the rules that exist
		// to decide such claims (no_evidence, fallback): the others only
		// flag it.
		if f.label == label.None || f.label == in.Label || r.Rule != "" ||
			(in.Label == label.None && name != NoEvidence && name != Fallback) {
			continue
		}
		r.Rule, r.RuleLabel = name, f.label
		if o.Effect == EffectFlag {
			continue
		}
		r.Label = f.label
		r.DecidedBy = DecidedBy(name)
		// A rule that decides settles the claim for the rules after it,
		// which see its label.
		in.Label, in.Abstain = f.label, ""
	}
	return r
}

// DecidedBy is the decided_by value of a rule.
func DecidedBy(name string) string {
	if name == Fallback {
		return "fallback"
	}
	return "rule:" + name
}

// deciding is the deciding passage, if any.
func (in Input) deciding() (Passage, bool) {
	if in.Deciding < 0 || in.Deciding >= len(in.Passages) {
		return Passage{}, false
	}
	return in.Passages[in.Deciding], true
}
