package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/rules"
	"github.com/spf13/pflag"
)

// ruleFlags are audit run's flags of the decision-rule layer (docs/rules.md).
type ruleFlags struct {
	rules, effect, noEvidence, authority, maxAge, asOf string
}

func (r *ruleFlags) add(f *pflag.FlagSet) {
	f.StringVar(&r.rules, "rules", "all", "labelling rules applied after calibration: all, none, or a list of "+strings.Join(rules.Names, ", ")+"; fallback (the lexical verifier decides a claim whose verifier answer is invalid, marked) runs only when named: all leaves it out, all,fallback adds it (docs/rules.md)")
	f.StringVar(&r.effect, "rule-effect", string(rules.EffectOverride), "what a rule that fires does: override (sets the label; decided_by rule:NAME) or flag (records it in flags only)")
	f.StringVar(&r.noEvidence, "no-evidence", rules.NoEvidenceInsufficient, "a claim nothing was retrieved for: insufficient (the labelling rule) or abstain")
	f.StringVar(&r.authority, "authority", "", "KEY=VALUE: documents whose meta.KEY is VALUE resolve conflicting sources (besides meta.authority = true)")
	f.StringVar(&r.maxAge, "max-evidence-age", "365d", "the stale rule flags a claim whose deciding document is older than its as-of date by more than this (Nd or a Go duration)")
	f.StringVar(&r.asOf, "as-of", "", "YYYY-MM-DD: the date a claim without one is taken to be made on, for the stale rule (default: the run's date, UTC)")
}

// parse turns the flags into the run's rule options.
func (r *ruleFlags) parse() (audit.RuleOptions, error) {
	var o audit.RuleOptions
	var err error
	if o.Enabled, err = rules.Parse(expandAll(r.rules)); err != nil {
		return o, fmt.Errorf("--rules: %w", err)
	}
	if !namesRule(r.rules, rules.Fallback) {
		// A verifier's invalid answer is an error for its claim, never a
		// verdict of another verifier, unless the fallback is asked for by
		// name (docs/reliability.md, "Verifier answers"): "all" leaves it out.
		delete(o.Enabled, rules.Fallback)
	}
	if o.Effect, err = rules.ParseEffect(r.effect); err != nil {
		return o, fmt.Errorf("--rule-effect: %w", err)
	}
	switch r.noEvidence {
	case rules.NoEvidenceInsufficient, rules.NoEvidenceAbstain:
		o.NoEvidence = r.noEvidence
	default:
		return o, fmt.Errorf("--no-evidence %q is not insufficient or abstain", r.noEvidence)
	}
	if r.authority != "" {
		k, v, ok := strings.Cut(r.authority, "=")
		if !ok || k == "" {
			return o, fmt.Errorf("--authority %q: want KEY=VALUE", r.authority)
		}
		o.AuthorityKey, o.AuthorityValue = k, v
	}
	if o.MaxAge, err = parseAge(r.maxAge); err != nil {
		return o, fmt.Errorf("--max-evidence-age: %w", err)
	}
	if r.asOf != "" {
		if o.Today, err = time.Parse(time.DateOnly, r.asOf); err != nil {
			return o, fmt.Errorf("--as-of %q: want a date YYYY-MM-DD", r.asOf)
		}
	}
	o.NewFallback = func(stats adjudicate.CorpusStats) (adjudicate.Verifier, error) { return lexical.New("", stats) }
	o.FallbackName = "lexical"
	return o, nil
}

// parseAge reads a duration written as Nd (days) or as a Go duration.
func parseAge(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q: want a positive number of days (365d) or a duration", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want a positive number of days (365d) or a duration", s)
	}
	return d, nil
}

// namesRule says whether a --rules list names rule explicitly.
func namesRule(list, rule string) bool {
	for _, n := range strings.Split(list, ",") {
		if strings.TrimSpace(n) == rule {
			return true
		}
	}
	return false
}

// expandAll lets "all" stand beside named rules ("all,fallback": every
// rule, the fallback included).
func expandAll(list string) string {
	toks := strings.Split(list, ",")
	if len(toks) < 2 {
		return list
	}
	var out []string
	for _, n := range toks {
		if strings.TrimSpace(n) == "all" {
			out = append(out, rules.Names...)
		} else {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}
