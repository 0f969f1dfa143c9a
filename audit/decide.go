package audit

import (
	"github.com/claimaudit/claimaudit/adjudicate"
	"time"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/memo"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/reports"
)

// Abstain reasons.
const (
	ReasonNoEvidence    = "no_evidence"
	ReasonWeakRetrieval = "weak_retrieval"
	ReasonLowConfidence = "low_confidence"
	ReasonError         = "error"
)

// decision is what the pipeline concludes about one verified claim at a
// temperature. Decisions flow one way: verdict → decision → (outcome for
// metrics, record for the file).
type decision struct {
	t      float64
	scored bool       // the verifier answered (no error)
	raw, p [3]float64 // probabilities at T = 1 and at t
	pred   metrics.Class
	reason string // why the claim is abstained; "" when answered

	// Set by withNumeric: the claim's numeric check (nil when it states no
	// number), the verifier's own label and the rule that set pred.
	numeric      *lint.NumericCheck
	verifierPred metrics.Class
	rule         string
	// claim is the claim as the numeric check read it, for the rules
	// (nil when the check did not run).
	claim *lint.ClaimCheck

	// Set by withRules: the flags of the rules that fired, the first rule
	// that gave a label and that label (also under --rule-effect flag,
	// where it is not applied), and whether the fallback verifier decided.
	flags     []string
	ruleName  string
	ruleLabel metrics.Class
	fallback  bool
}

// decide applies the abstain policy: no evidence, weak retrieval, a
// verifier error, or a confidence below --abstain-below.
func (o *Options) decide(v verified, t float64) decision {
	d := decision{t: t}
	switch {
	case isTimeout(v.Err), o.skippedOutput(v):
		d.reason = ReasonTimeout
	case v.Err != "":
		d.reason = ReasonError
	case len(v.Passages) == 0:
		d.reason = ReasonNoEvidence
	case !v.Passages[0].Cited && v.Passages[0].Score < o.MinRetrievalScore:
		d.reason = ReasonWeakRetrieval
	}
	if v.Err != "" {
		return d
	}
	d.scored = true
	d.raw = metrics.Softmax(v.Verdict.Logits, 1)
	d.p = metrics.Softmax(v.Verdict.Logits, t)
	d.pred = metrics.Argmax(d.p)
	if d.reason == "" && d.p[d.pred] < o.AbstainBelow {
		d.reason = ReasonLowConfidence
	}
	return d
}

// withNumeric checks the claim's number against the retrieved passages
// under --numeric-policy and lets the check bear on the label as
// --numeric-effect says (lint.DecideNumeric): with override a mismatch
// makes the claim unsupported, and a verified number turns the verifier's
// unsupported into insufficient. Abstentions stand.
func (o *Options) withNumeric(v verified, d decision, fc *factCache) decision {
	d.verifierPred, d.rule = d.pred, verifierRule(v.Verdict)
	c := v.Claim
	if c.Type != "numeric" && len(numeric.FindNumbers(c.Text)) == 0 {
		return d
	}
	var facts []lint.Fact
	for _, p := range v.Passages {
		facts = append(facts, fc.facts(p.ID, p.Text)...)
	}
	// lint.VerifyNumeric, with the claim's reading kept for the rules.
	d.claim = lint.PrepareClaim(c.Text, lint.MatchOptions{Policy: o.NumericPolicy})
	nc := d.claim.Verify(facts)
	d.numeric = &nc
	if !d.scored {
		return d
	}
	var verifier claims.Label
	if d.reason == "" {
		verifier = label.Of(int(d.pred))
	}
	ld := lint.DecideNumeric(verifier, &nc, o.NumericEffect)
	if ld.Changed {
		d.pred = metrics.Class(ld.Label.Index())
	}
	d.rule = ld.Rule
	if ld.Rule == lint.RuleVerifier {
		d.rule = verifierRule(v.Verdict)
	}
	return d
}

// verifierRule is decided_by for a label the verifier set: "verifier", or
// "verifier:<backend>" when the verifier is made of several (the cascade)
// and names the one that decided.
func verifierRule(v adjudicate.Verdict) string {
	if v.DecidedBy == "" {
		return lint.RuleVerifier
	}
	return lint.RuleVerifier + ":" + v.DecidedBy
}

// outcome is what metrics need of the decision; reports.OutcomeOf gives
// the same from the record (a test holds the two together).
func (d decision) outcome(v verified) metrics.Outcome {
	c := v.Claim
	out := metrics.Outcome{ID: c.ID, Gold: metrics.Unknown, Abstained: d.reason != "", Type: metrics.NameOf(c.Type), Source: c.SourceID,
		Importance: metrics.NameOf(c.Importance), LatencyMS: v.LatencyMS, Meta: c.Meta}
	if i := c.Label.Index(); i >= 0 {
		out.Gold = metrics.Class(i)
	}
	if d.scored {
		out.Scored, out.Logits, out.Predicted = true, v.Verdict.Logits, d.pred
		if d.fallback {
			out.Logits = v.Fallback.Logits
		}
	} else if !out.Abstained {
		out.Predicted = d.pred // a rule decided a claim the verifier never scored
	}
	out.Rule, out.RuleLabel, out.VerifierLabel = metrics.NameOf(d.ruleName), metrics.Unknown, metrics.Unknown
	if d.ruleName != "" {
		out.RuleLabel = d.ruleLabel
		if d.scored {
			out.VerifierLabel = d.verifierPred
		}
	}
	if len(v.GoldEvidence) > 0 {
		ps := make([]metrics.Passage, len(v.Passages))
		for i, p := range v.Passages {
			ps[i] = metrics.Passage{DocID: p.DocID, SpanID: p.SpanID}
		}
		out.EvidenceRanks = metrics.EvidenceRanksOf(v.GoldEvidence, ps)
	}
	return out
}

// recordUsage writes what the claim's remote call spent; nothing when no
// call was made for it.
func (o *Options) recordUsage(rec *reports.Record, u adjudicate.Usage) {
	if u.Calls == 0 {
		return
	}
	in, out := int64(u.PromptTokens), int64(u.CompletionTokens)
	rec.TokensIn, rec.TokensOut = &in, &out
	rec.Calls, rec.Retries = ptr(int64(u.Calls)), ptr(int64(u.Retries))
	rec.Cost = o.Prices.Cost(in, out)
}

// now is the records' clock.
func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// record is the claim's row of records.parquet.
func (o *Options) record(v verified, d decision, out metrics.Outcome, runID string) reports.Record {
	c := v.Claim
	rec := reports.Record{ClaimID: c.ID, SourceID: c.SourceID, Text: c.Text, ClaimType: c.Type, Importance: c.Importance,
		Temperature: d.t, Rationale: v.Verdict.Rationale, LatencyMS: v.LatencyMS, Verifier: o.VerifierName, RunID: runID,
		Abstained: out.Abstained, Meta: c.Meta, ClaimIndex: int64(v.Index),
		RunInstance: o.Instance.ID, StartedAt: o.Instance.Millis()}
	if c.Label.Valid() {
		rec.GoldLabel = ptr(c.Label.String())
	}
	o.recordEvidence(&rec, v, d)
	o.recordRules(&rec, d)
	// The one redaction, on the joined string (never a piece of it).
	rec.Rationale = o.red.Redact(rec.Rationale)
	recordLabel(&rec, d, out)
	if out.EvidenceRanks != nil {
		rec.GoldEvidence = v.GoldEvidence
		got, _ := out.EvidenceRetrieved()
		rec.GoldEvidenceRetrieved = ptr(got)
		if r := out.FirstEvidenceRank(); r > 0 {
			rec.GoldEvidenceRank = ptr(int32(r))
		}
	}
	if _, ok := o.outputIndex()[c.SourceID]; ok {
		rec.OutputID = ptr(c.SourceID)
	}
	rec.Action = ClaimAction(out.Abstained, out.Predicted, rec.Confidence, o.branches(c.SourceID), o.branchAt)
	rec.Verdict = metrics.VerdictOf(out, d.t)
	recordNumeric(&rec, d.numeric)
	recordClaimFields(&rec, &c)
	rec.Reviewer, rec.DecidedAt = reports.ReviewerAuto, o.now().UnixMilli()
	o.recordUsage(&rec, v.Verdict.Usage)
	return rec
}

// recordEvidence writes the passages retrieved, the one the verdict rests
// on (the fallback verifier's when it decided) and, when adjudication
// failed, the error and why (the rationale is redacted by the caller).
func (o *Options) recordEvidence(rec *reports.Record, v verified, d decision) {
	for _, p := range v.Passages {
		e := reports.Evidence{DocID: p.DocID, Start: int64(p.Start), End: int64(p.End), Score: p.Score,
			PassageID: p.ID, Snippet: reports.Snippet(p.Text)}
		if p.SpanID != "" {
			e.SpanID = ptr(p.SpanID)
		}
		rec.Evidence = append(rec.Evidence, e)
	}
	if i := v.Verdict.Passage; v.Err == "" && i >= 0 && i < len(v.Passages) {
		rec.EvidenceUsed = &reports.EvidenceUsed{PassageID: v.Passages[i].ID, Rank: int32(i + 1)}
	}
	if v.Err != "" {
		rec.Error = ptr(o.red.Redact(v.Err))
		rec.Rationale = "adjudication failed: " + v.Err
	}
	if d.fallback {
		rec.Error = nil
		rec.Verifier = o.Rules.FallbackName
		rec.Rationale = "the verifier's logits were unusable (" + v.Err + "); the fallback verifier decided: " + v.Fallback.Rationale
		if i := v.Fallback.Passage; i >= 0 && i < len(v.Passages) {
			rec.EvidenceUsed = &reports.EvidenceUsed{PassageID: v.Passages[i].ID, Rank: int32(i + 1)}
		}
	}
}

// recordLabel writes the decision: the scores of a scored claim (logits,
// raw and calibrated probabilities, confidence), then the abstention's
// reason or the label with what decided it and, against gold, whether it
// is right and a false accept.
func recordLabel(rec *reports.Record, d decision, out metrics.Outcome) {
	if d.scored {
		z := out.Logits
		rec.LogitSupported, rec.LogitUnsupp, rec.LogitInsuff = ptr(z[0]), ptr(z[1]), ptr(z[2])
		rec.RawPSupported, rec.RawPUnsupp, rec.RawPInsuff = ptr(d.raw[0]), ptr(d.raw[1]), ptr(d.raw[2])
		rec.PSupported, rec.PUnsupported, rec.PInsufficient = ptr(d.p[0]), ptr(d.p[1]), ptr(d.p[2])
		rec.Confidence = ptr(d.p[d.pred])
		rec.VerifierConfidence = ptr(d.p[d.verifierPred])
	}
	if out.Abstained {
		rec.AbstainReason = ptr(d.reason)
		if out.Gold != metrics.Unknown {
			// No false accept, and defined: the unconditional rates
			// count abstained labelled claims.
			rec.Tier1FA, rec.Tier2FA = ptr(false), ptr(false)
		}
		return
	}
	rec.PredictedLabel = ptr(label.Of(int(out.Predicted)).String())
	if d.scored {
		rec.VerifierLabel = ptr(label.Of(int(d.verifierPred)).String())
	}
	if d.rule != "" {
		rec.DecidedBy = ptr(d.rule)
	}
	if out.Gold != metrics.Unknown {
		rec.Correct = ptr(out.Predicted == out.Gold)
		rec.Tier1FA = ptr(out.Predicted == metrics.Supported && out.Gold != metrics.Supported)
		rec.Tier2FA = ptr(out.Predicted != metrics.Unsupported && out.Gold == metrics.Unsupported)
		if d.scored {
			rec.VerifierCorrect = ptr(d.verifierPred == out.Gold)
		}
	}
}

// recordNumeric writes the numeric check of a claim that states a number:
// its status, policy and reason, and the passage's value it was matched
// with (or the nearest one).
func recordNumeric(rec *reports.Record, nc *lint.NumericCheck) {
	if nc == nil {
		return
	}
	rec.NumericCheck, rec.NumericPolicy, rec.NumericReason = ptr(nc.Status), ptr(nc.Policy), ptr(nc.Reason)
	f := nc.Fact
	if f == nil {
		f = nc.Nearest
	}
	if f != nil {
		rec.NumericFactID, rec.NumericFactValue = ptr(f.ID), ptr(f.Value)
		if f.Unit != "" {
			rec.NumericFactUnit = ptr(f.Unit)
		}
		if len(f.Years) > 0 {
			rec.NumericFactYear = ptr(int64(f.Years[0]))
		}
	}
}

// branches is seed 004's branch count of a claim: its output's attempt
// (0 for a claim of no output: a post-hoc audit has tried no branch).
func (o *Options) branches(sourceID string) int {
	if m, ok := o.outputIndex()[sourceID]; ok {
		return m.Attempt
	}
	return 0
}

// factCache keeps the numeric facts of passages already read: a run
// retrieves the same passages for many claims. Keyed by passage id (one
// index per run) and bounded by entry count (memo's clock eviction), so a
// run whose passages fit reads each once, and the words of its facts
// once (lint.Prepare). A nil cache reads every time.
type factCache struct {
	m *memo.Cache[string, []lint.Fact]
}

// factCachePassages is the fact cache's size for a run: 28,000 passages'
// facts take the memory 20,000 took before they were held compactly (one
// context string per sentence, the description inside it, the stems a
// sorted slice: ~1.9 KB a text of the generated corpus's documents and
// spans, was ~2.8 KB),
// and on the 100k generated set (37,000 passages retrieved) they read
// half as many passages again as 20,000 did.
const factCachePassages = 28000

func newFactCache(capacity int) *factCache {
	return &factCache{m: memo.New[string, []lint.Fact](capacity)}
}

func (c *factCache) facts(id, text string) []lint.Fact {
	read := func() []lint.Fact { return lint.Prepare(lint.FactsFromText(id, text)) }
	if c == nil {
		return read()
	}
	return c.m.Get(id, read)
}

// recordRules writes the rules' columns of a record: the flags (an empty
// list when the layer is off or nothing fired), and the first rule that
// gave a label with that label.
func (o *Options) recordRules(rec *reports.Record, d decision) {
	rec.Flags = d.flags
	if rec.Flags == nil {
		rec.Flags = []string{}
	}
	if d.ruleName != "" {
		rec.Rule, rec.RuleLabel = ptr(d.ruleName), ptr(label.Of(int(d.ruleLabel)).String())
	}
}

// BRANCH thresholds of an unsupported claim's confidence (seed 004 §7.4,
// §7.9): 0.7, raised to 0.9 when the verifier is degenerate-unsupported —
// it calls more than half of at least DegenerateMinClaims answered claims
// unsupported (its own labels at T = 1, before any rule).
const (
	BranchThreshold           = 0.7
	BranchThresholdDegenerate = 0.9
	DegenerateMinClaims       = 100
)

// degenerateUnsupported says whether the verifier's own labels make it
// degenerate-unsupported (seed 004 §7.9).
func degenerateUnsupported(prelim []metrics.Score) (bool, int, int) {
	answered, unsupported := 0, 0
	for _, o := range prelim {
		if o.Abstained || !o.Scored {
			continue
		}
		answered++
		if o.Predicted == metrics.Unsupported {
			unsupported++
		}
	}
	return answered >= DegenerateMinClaims && 2*unsupported > answered, unsupported, answered
}
