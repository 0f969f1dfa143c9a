package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/rules"
	"github.com/claimaudit/claimaudit/userfile"
)

// RuleOptions configure the decision-rule layer (package rules) of a run.
// The zero value applies no rule: a run's records are then the verifier's
// (and the numeric check's) decisions alone.
type RuleOptions struct {
	rules.Options
	// AuthorityKey and AuthorityValue name the documents that resolve a
	// conflict besides those whose meta.authority is true: meta[KEY] as
	// JSON text (a string without its quotes) equal to VALUE.
	AuthorityKey, AuthorityValue string
	// NewFallback makes the verifier that decides a claim whose logits
	// were unusable (the fallback rule); nil disables the re-verification.
	NewFallback func(stats adjudicate.CorpusStats) (adjudicate.Verifier, error)
	// FallbackName names that verifier in the records it decided (their
	// verifier column names the verifier that produced the numbers).
	FallbackName string
}

// on says whether a rule is enabled.
func (r RuleOptions) on(name string) bool { return r.Enabled[name] }

// invalidLogits says whether a per-claim error is a verdict whose logits
// were unusable (NaN, infinite, or probabilities that are not finite):
// the claims the fallback rule re-verifies. The one place that reads it.
func invalidLogits(err error) bool {
	var np *nonFiniteError
	return errors.Is(err, adjudicate.ErrInvalidLogits) || errors.As(err, &np)
}

// refallback verifies a claim whose verdict had unusable logits with the
// fallback verifier; nil when there is none or it failed too.
func (o *Options) refallback(ctx context.Context, fb adjudicate.Verifier, p adjudicate.Pair) *adjudicate.Verdict {
	if fb == nil {
		return nil
	}
	vs, err := fb.Verify(ctx, []adjudicate.Pair{p})
	if err != nil || len(vs) != 1 || checkProbabilities(vs[0].Logits) != nil {
		o.Log.Warn("fallback verifier failed too", "claim", p.ClaimID, "err", err)
		return nil
	}
	return &vs[0]
}

// docIndex is what the rules know of each document (created_at, authority),
// read from the corpus file when the conflict or stale rule is on.
type docIndex map[string]rules.Doc

// readDocs reads the documents' dates and authority from the corpus (the
// index has validated it).
func (o *Options) readDocs(ctx context.Context) (docIndex, error) {
	if !o.Rules.on(rules.Conflict) && !o.Rules.on(rules.Stale) {
		return nil, nil
	}
	f, err := userfile.Open(ctx, o.CorpusPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	docs := docIndex{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for line := 1; sc.Scan(); line++ {
		if line%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var d struct {
			DocID     string                     `json:"doc_id"`
			CreatedAt string                     `json:"created_at"`
			Meta      map[string]json.RawMessage `json:"meta"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", o.CorpusPath, line, err)
		}
		var doc rules.Doc
		if t, ok := corpus.ParseDate(d.CreatedAt); ok {
			doc.CreatedAt = t
		}
		doc.Authority = metaIs(d.Meta, "authority", "true") || (o.Rules.AuthorityKey != "" && metaIs(d.Meta, o.Rules.AuthorityKey, o.Rules.AuthorityValue))
		if doc != (rules.Doc{}) {
			docs[d.DocID] = doc
		}
	}
	return docs, sc.Err()
}

// metaIs says whether meta[key] is value: a JSON string without its
// quotes, anything else as its JSON text.
func metaIs(meta map[string]json.RawMessage, key, value string) bool {
	raw, ok := meta[key]
	if !ok {
		return false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s == value
	}
	return strings.TrimSpace(string(raw)) == value
}

// withRules applies the decision rules to a decided claim: a rule that
// fires flags it, and under --rule-effect override the first that gives a
// label sets it (decided_by rule:<name>). A claim whose logits were
// unusable is decided by the fallback verifier's verdict at T = 1.
func (o *Options) withRules(v verified, d decision, fc *factCache, docs docIndex) decision {
	if len(o.Rules.Enabled) == 0 || d.reason == ReasonTimeout {
		return d // a skipped claim stays skipped
	}
	var perPassage [][3]float64
	if d.scored {
		perPassage = v.Verdict.PassageLogits
	}
	in := rulesInput(v.Claim, v.Passages, v.Verdict.Passage, d, perPassage, docs, fc)
	in.Check = d.claim
	if _, terms, ok := o.glossary.Restate(v.Claim.Text); ok {
		in.Definitions = terms // as the retriever restated it
	}
	if d.reason == ReasonError && v.Fallback != nil {
		in.Fallback = label.Of(int(metrics.Argmax(metrics.Softmax(v.Fallback.Logits, 1))))
		in.Deciding = v.Fallback.Passage
	}
	r := rules.Apply(in, o.Rules.Options)
	d.flags, d.ruleName = r.Flags, r.Rule
	if r.RuleLabel.Valid() {
		d.ruleLabel = metrics.Class(r.RuleLabel.Index())
	}
	if r.DecidedBy == "" {
		return d
	}
	if r.Rule == rules.Fallback {
		z := v.Fallback.Logits
		d.scored, d.fallback, d.t = true, true, 1
		d.raw, d.p = metrics.Softmax(z, 1), metrics.Softmax(z, 1)
		d.verifierPred = metrics.Argmax(d.p)
	}
	d.pred, d.reason, d.rule = metrics.Class(r.Label.Index()), "", r.DecidedBy
	return d
}

// rulesInput is what the rules see of a decided claim: the label so far
// (none when abstained), the passages with their numbers, documents and,
// when the backend scored them one by one, their probabilities at the
// claim's temperature.
func rulesInput(c claims.Claim, ps []adjudicate.Passage, deciding int, d decision, perPassage [][3]float64, docs docIndex, fc *factCache) rules.Input {
	in := rules.Input{Claim: c, Deciding: deciding, Abstain: d.reason}
	if d.reason == "" {
		in.Label = label.Of(int(d.pred))
	}
	for i, p := range ps {
		rp := rules.Passage{DocID: p.DocID, Text: p.Text, Doc: docs[p.DocID], Facts: fc.facts(p.ID, p.Text)}
		if i < len(perPassage) {
			pr := metrics.Softmax(perPassage[i], d.t)
			rp.Probs = &pr
		}
		in.Passages = append(in.Passages, rp)
	}
	return in
}

// RuleDecider is the run's decision for a claim scored outside a run (the
// leave-one-set-out evaluation): the argmax of its logits at T = 1, or the
// no-evidence abstention, then the rules as a run applies them. It returns
// the label's index, or -1 for a claim left undecided.
func RuleDecider(o RuleOptions) func(c claims.Claim, p adjudicate.Pair, deciding int, z [3]float64) int {
	fc := newFactCache(factCachePassages)
	return func(c claims.Claim, p adjudicate.Pair, deciding int, z [3]float64) int {
		d := decision{t: 1, scored: true, pred: metrics.Argmax(metrics.Softmax(z, 1))}
		if len(p.Passages) == 0 {
			d.reason = ReasonNoEvidence
		}
		in := rulesInput(c, p.Passages, deciding, d, nil, nil, fc)
		r := rules.Apply(in, o.Options)
		if !r.Label.Valid() {
			if d.reason != "" {
				return -1
			}
			return int(d.pred)
		}
		return r.Label.Index()
	}
}

// enabled are the rules on, in rule order.
func (r RuleOptions) enabled() []string {
	var names []string
	for _, n := range rules.Names {
		if r.Enabled[n] {
			names = append(names, n)
		}
	}
	return names
}

// describe writes the rule settings into a manifest's settings (nothing
// when no rule is on).
func (r RuleOptions) describe(s *reports.RunSettings) {
	if len(r.Enabled) == 0 {
		return
	}
	s.Rules, s.RuleEffect, s.NoEvidence = r.enabled(), string(r.Effect), r.NoEvidence
	if s.NoEvidence == "" {
		s.NoEvidence = rules.NoEvidenceInsufficient
	}
	if r.AuthorityKey != "" {
		s.Authority = r.AuthorityKey + "=" + r.AuthorityValue
	}
	if r.MaxAge > 0 {
		s.MaxEvidenceAge = r.MaxAge.String()
	}
	if r.Enabled[rules.Stale] && !r.Today.IsZero() {
		s.AsOf = r.Today.Format(time.DateOnly)
	}
}

// replayRules takes again, for a shard's record re-decided at the merged
// temperature, the rules' decision from the flags the shard recorded
// (rules.Replay): a rule whose label now differs from the re-decided one
// decides, as in a run.
func replayRules(r reports.Record, out metrics.Outcome, t float64, s reports.RunSettings) metrics.Outcome {
	if len(s.Rules) == 0 || len(r.Flags) == 0 || !out.Scored || weakRetrievalDecided(r) {
		return out
	}
	so := label.Of(int(out.Predicted))
	if out.Abstained {
		// An undecided claim is decided again by the no_evidence rule
		// alone, as in a run (and not under --no-evidence abstain).
		if len(r.Evidence) > 0 || s.NoEvidence == rules.NoEvidenceAbstain || !slices.Contains(r.Flags, rules.FlagNoEvidence) {
			return out
		}
		so = label.None
	}
	authority := label.None
	if r.Rule != nil && *r.Rule == rules.Conflict && r.RuleLabel != nil {
		authority = label.Label(*r.RuleLabel)
	} else if r.VerifierLabel != nil {
		authority = label.Label(*r.VerifierLabel)
	}
	res := rules.Replay(r.Flags, so, authority, rules.Effect(s.RuleEffect), lint.NumericEffect(s.NumericEffect) == lint.EffectFlag)
	out.Rule, out.RuleLabel = metrics.NameOf(res.Rule), metrics.Unknown
	if res.Rule != "" {
		out.RuleLabel = metrics.Class(res.RuleLabel.Index())
		out.VerifierLabel = metrics.Argmax(metrics.Softmax(out.Logits, t))
	}
	if res.DecidedBy != "" {
		out.Predicted, out.Abstained = metrics.Class(res.Label.Index()), false
	}
	return out
}
