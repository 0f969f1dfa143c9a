package audit

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/rules"
	"github.com/claimaudit/claimaudit/userfile"
)

// The per-output layer: one decision per model output from the decisions
// on its claims (seed 002 §6–7, seed 004 §7.4–7.6, §7.7).

// Revision outcomes of an output.
const (
	RevisionShip    = "ship"    // evidence coverage met: the output can go out as it is
	RevisionRevise  = "revise"  // the writer should revise it (reason and instructions say how)
	RevisionAbstain = "abstain" // no revision left and coverage not met: answer with the abstention message
)

// Seed 002's revision-loop constants and seed 004's branch limit.
const (
	MaxRevisions      = 2    // decideRevision: revisionCount >= 2 stops the loop
	CoverageThreshold = 0.85 // decideRevision: evidence coverage that ships an output
	MaxBranches       = 3    // decide_action: branches tried before a refuted claim abstains
)

// Seed 004's actions.
const (
	ActionContinue = "CONTINUE"
	ActionBranch   = "BRANCH"
	ActionAbstain  = "ABSTAIN"
)

// Seed 002 decideRevision's reasons and instruction texts.
const (
	ReasonMaxRevisions     = "Maximum revision cycles reached"
	ReasonCoverageMet      = "Coverage threshold met"
	ReasonCriticalNotFound = "Critical claims lack evidence"
	ReasonContradicted     = "Claims contradict evidence"
	InstructionGeneral     = "Strengthen citations or remove unsupported claims"
)

// AbstentionPrefix opens seed 004's structured abstention (constraint 5).
const AbstentionPrefix = "I cannot provide a verified answer to this question."

// LedgerEntry is one claim of an output as the per-output layer reads it:
// seed 002's ledger entry plus seed 004's per-claim verdict and action.
type LedgerEntry struct {
	ClaimID    string
	Text       string
	Importance string // critical, material, minor ("" counts as non-minor, as in the seed)
	// Verdict is seed 002's: supported, weak, contradicted or not_found.
	Verdict string
	// Label is the predicted label (supported, unsupported, insufficient);
	// "" when the claim was abstained (no decision).
	Label        string
	AbstainCause string   // why it was abstained ("" when decided)
	Confidence   *float64 // calibrated confidence of the predicted label; nil when not scored
	Action       string   // seed 004's action at the output's branch count
	Cited        bool     // the claim carries a citation anchor
	Flags        []string // risk flags of the claim (claimFlags)
	NoEvidence   bool     // nothing was retrieved for the claim
}

// RevisionDecision is seed 002's RevisionDecision.
type RevisionDecision struct {
	ShouldRevise bool
	Reason       string
	Instructions []string
}

// material are the entries seed 002's coverage counts: importance not
// minor.
func material(entries []LedgerEntry) []LedgerEntry {
	var m []LedgerEntry
	for _, e := range entries {
		if e.Importance != "minor" {
			m = append(m, e)
		}
	}
	return m
}

// EvidenceCoverage is seed 002's calculateEvidenceCoverage: the share of
// non-minor claims whose verdict is supported or weak, 1.0 when there is
// none (defined is then false: the column is null, the rule reads 1.0).
func EvidenceCoverage(entries []LedgerEntry) (coverage float64, defined bool) {
	m := material(entries)
	if len(m) == 0 {
		return 1.0, false
	}
	n := 0
	for _, e := range m {
		if e.Verdict == metrics.VerdictSupported || e.Verdict == metrics.VerdictWeak {
			n++
		}
	}
	return float64(n) / float64(len(m)), true
}

// DecideRevision is seed 002's decideRevision, rule for rule and text for
// text: the revision limit first, then the coverage threshold, then
// critical claims not found, then contradictions, then low coverage.
func DecideRevision(entries []LedgerEntry, revisionCount int) RevisionDecision {
	if revisionCount >= MaxRevisions {
		return RevisionDecision{Reason: ReasonMaxRevisions, Instructions: []string{}}
	}
	coverage, _ := EvidenceCoverage(entries)
	if coverage >= CoverageThreshold {
		return RevisionDecision{Reason: ReasonCoverageMet, Instructions: []string{}}
	}
	var critical, contradicted []string
	for _, e := range entries {
		if e.Importance == "critical" && e.Verdict == metrics.VerdictNotFound {
			critical = append(critical, fmt.Sprintf("Remove or qualify claim: %q", e.Text))
		}
		if e.Verdict == metrics.VerdictContradicted {
			contradicted = append(contradicted, fmt.Sprintf("Correct claim based on evidence: %q", e.Text))
		}
	}
	if len(critical) > 0 {
		return RevisionDecision{ShouldRevise: true, Reason: ReasonCriticalNotFound, Instructions: critical}
	}
	if len(contradicted) > 0 {
		return RevisionDecision{ShouldRevise: true, Reason: ReasonContradicted, Instructions: contradicted}
	}
	// (coverage * 100).toFixed(0): JavaScript rounds a tie up, as
	// math.Round does for positive numbers.
	return RevisionDecision{ShouldRevise: true, Reason: fmt.Sprintf("Coverage %d%% below 85%% threshold", int(math.Round(coverage*100))),
		Instructions: []string{InstructionGeneral}}
}

// Revision maps a decision onto ship / revise / abstain: revise when
// decideRevision says so; otherwise ship when the coverage threshold is
// met, and abstain when the loop stopped at its limit short of it (seed
// 002's "mark unsupported" branch, answered with seed 004's structured
// abstention rather than an output known to fall short).
func Revision(d RevisionDecision, coverage float64) string {
	switch {
	case d.ShouldRevise:
		return RevisionRevise
	case coverage >= CoverageThreshold:
		return RevisionShip
	}
	return RevisionAbstain
}

// ClaimAction is seed 004's decide_action at a branch count: supported →
// CONTINUE; unsupported (REFUTED) with confidence >= 0.7 → BRANCH below
// MaxBranches branches and ABSTAIN from there, below 0.7 → CONTINUE;
// insufficient → BRANCH below MaxBranches, CONTINUE from there. A claim
// with no decision (abstained) is ABSTAIN. branchAt, when above 0.7, is
// the raised threshold of a degenerate-unsupported verifier (seed 004
// §7.9: BranchThresholdDegenerate).
func ClaimAction(abstained bool, pred metrics.Class, conf *float64, branches int, branchAt float64) string {
	branchAt = max(branchAt, BranchThreshold)
	switch {
	case abstained:
		return ActionAbstain
	case pred == metrics.Unsupported && conf != nil && *conf >= branchAt:
		if branches < MaxBranches {
			return ActionBranch
		}
		return ActionAbstain
	case pred == metrics.Insufficient && branches < MaxBranches:
		return ActionBranch
	}
	return ActionContinue
}

// verdictRank orders seed 004's verdicts worst first: REFUTED 0,
// INSUFFICIENT 1 (an abstained claim: no evidence decided it, seed 004
// constraint 2), SUPPORTED 2.
func verdictRank(e LedgerEntry) int {
	switch e.Label {
	case "unsupported":
		return 0
	case "supported":
		return 2
	}
	return 1
}

// outputVerdict is the worst claim's rank; an output without claims has
// nothing refuted or undecided (SUPPORTED).
func outputVerdict(entries []LedgerEntry) int {
	r := 2
	for _, e := range entries {
		r = min(r, verdictRank(e))
	}
	return r
}

// OutputMeta is what the outputs file says of one output.
type OutputMeta struct {
	ID      string
	Query   string
	QueryID string
	// Attempt is the regeneration number (0 the first answer); HasAttempt
	// says the file gave one.
	Attempt    int
	HasAttempt bool
	Line       int // in the outputs file, for messages
}

// QueryKey groups an output's attempts: its query_id, or its own id when it
// has none (a query answered once).
func (m OutputMeta) QueryKey() string {
	if m.QueryID != "" {
		return "q:" + m.QueryID
	}
	return "o:" + m.ID
}

// OutputDecision is the per-output decision: a row of outputs.parquet's
// decision columns.
type OutputDecision struct {
	Meta              OutputMeta
	Claims            int
	OverallAction     string   // the worst claim's action (seed 004 §7.6); CONTINUE with no claims
	OverallConfidence *float64 // the least confidence of its claims; nil when none has one
	WorstClaimID      string   // the claim whose action is the overall action ("" with no claims)
	EvidenceCoverage  *float64 // seed 002's, nil with no non-minor claim (the rule then reads 1.0)
	Revision          string
	RevisionReason    string
	Instructions      []string
	// AbstentionMessage is seed 004's structured abstention when the
	// overall action is ABSTAIN ("" otherwise).
	AbstentionMessage string
	UncitedCritical   []string // ids of critical claims without a citation anchor (seed 002 §3.5: must be cited)
	RiskFlags         []string // the union of its claims' risk flags, sorted
	// RiskSeverities are RiskFlags' severities, in their order
	// (FlagSeverity); RiskLevel the highest ("" with no flag).
	RiskSeverities []string
	RiskLevel      string
	// NoEvidenceResponse is the answer to give in place of an output none
	// of whose claims found any evidence (NoEvidenceMessage); "" otherwise.
	NoEvidenceResponse string
	// Unverified are the texts of its material claims (not minor) that
	// were not decided supported, in claim order.
	Unverified []string
	// TerminationWarnings are the workflow's warnings on a query's final
	// attempt (Queries): WarnNoImprovement, WarnUnsupportedClaims; empty
	// on earlier attempts.
	TerminationWarnings []string
	// QueryDecision is, on a query's final attempt, what the query
	// returns: QueryReturn (the best-scored passing attempt, ChosenID) or
	// QueryAbstain (no attempt passes); "" on earlier attempts.
	// QueryDecisionReason says which and why.
	QueryDecision, ChosenID, QueryDecisionReason string
	// Improved says whether this attempt's verdict beats the attempt it
	// branched from (the query's previous attempt); nil for a first attempt.
	Improved *bool
	// ExtractionError says why no claim could be extracted ("" when they were).
	ExtractionError string
}

// DecideOutput decides one output from its claims, in claim order. The
// revision count of seed 002 and the branch count of seed 004 are the
// output's attempt: attempt 0 is the first answer.
func DecideOutput(m OutputMeta, entries []LedgerEntry) OutputDecision {
	d := OutputDecision{Meta: m, Claims: len(entries), OverallAction: ActionContinue, Instructions: []string{},
		UncitedCritical: []string{}, RiskFlags: []string{}, TerminationWarnings: []string{}}
	worst := -1
	flags := map[string]bool{}
	for i, e := range entries {
		// min_by_key keeps the first of equally bad claims.
		if worst < 0 || verdictRank(e) < verdictRank(entries[worst]) {
			worst = i
		}
		if c := e.Confidence; c != nil && (d.OverallConfidence == nil || *c < *d.OverallConfidence) {
			d.OverallConfidence = ptr(*c)
		}
		if e.Importance == "critical" && !e.Cited {
			d.UncitedCritical = append(d.UncitedCritical, e.ClaimID)
		}
		if e.Importance != "minor" && e.Label != "supported" {
			d.Unverified = append(d.Unverified, e.Text)
		}
		for _, f := range e.Flags {
			flags[f] = true
		}
	}
	if worst >= 0 {
		d.OverallAction, d.WorstClaimID = entries[worst].Action, entries[worst].ClaimID
	}
	cov, defined := EvidenceCoverage(entries)
	if defined {
		d.EvidenceCoverage = ptr(cov)
	}
	rd := DecideRevision(entries, m.Attempt)
	d.Revision, d.RevisionReason, d.Instructions = Revision(rd, cov), rd.Reason, rd.Instructions
	if d.OverallAction == ActionAbstain {
		d.AbstentionMessage = AbstentionMessage(entries[worst], m.Attempt)
	}
	for f := range flags {
		d.RiskFlags = append(d.RiskFlags, f)
	}
	sort.Strings(d.RiskFlags)
	d.RiskSeverities, d.RiskLevel = severities(d.RiskFlags)
	if len(entries) > 0 && !slices.ContainsFunc(entries, func(e LedgerEntry) bool { return !e.NoEvidence }) {
		d.NoEvidenceResponse = NoEvidenceMessage
	}
	return d
}

// NoEvidenceMessage is the per-output response when none of an output's
// claims found any evidence in the corpus.
const NoEvidenceMessage = "I could not find relevant information in the provided documents to answer this question."

// Severities of risk flags, highest first.
const (
	SeverityHigh   = "high"
	SeverityMedium = "medium"
	SeverityLow    = "low"
)

// flagSeverity is each risk flag's severity: high where the output states
// something the evidence contradicts or nothing supports, medium where the
// evidence is weak, old or only partly addresses the claim, low where a
// rule only qualified the reading. A flag not listed is medium.
var flagSeverity = map[string]string{
	FlagNoEvidence: SeverityHigh, rules.FlagConflict: SeverityHigh, FlagContradicted: SeverityHigh,
	FlagNumericMismatch: SeverityHigh, FlagError: SeverityHigh, FlagVerifyTimeout: SeverityHigh, FlagExtractionError: SeverityHigh, FlagUncitedCritical: SeverityHigh,
	rules.FlagStale: SeverityMedium, FlagWeakRetrieval: SeverityMedium, FlagLowConfidence: SeverityMedium,
	rules.FlagQualifierMissing: SeverityMedium, rules.FlagQualifierDiffers: SeverityMedium, rules.FlagNumericBound: SeverityMedium,
	rules.FlagUnderspecified: SeverityMedium, rules.FlagPolarity: SeverityMedium, rules.FlagFallback: SeverityMedium,
	rules.FlagHedged: SeverityLow, rules.FlagAuthority: SeverityLow, rules.FlagDefinition: SeverityLow,
}

// FlagSeverity is a risk flag's severity (medium for one not listed).
func FlagSeverity(flag string) string {
	if s, ok := flagSeverity[flag]; ok {
		return s
	}
	return SeverityMedium
}

// severities are flags' severities in their order, and the highest.
func severities(flags []string) ([]string, string) {
	out := make([]string, len(flags))
	level := ""
	rank := map[string]int{"": 0, SeverityLow: 1, SeverityMedium: 2, SeverityHigh: 3}
	for i, f := range flags {
		out[i] = FlagSeverity(f)
		if rank[out[i]] > rank[level] {
			level = out[i]
		}
	}
	return out, level
}

// AbstentionMessage is seed 004's structured abstention, "I cannot provide
// a verified answer to this question. [Reason: …]", the reason explaining
// the claim that made the output abstain.
func AbstentionMessage(e LedgerEntry, branches int) string {
	var why string
	switch {
	case e.Label == "":
		cause := strings.ReplaceAll(e.AbstainCause, "_", " ")
		if cause == "" {
			cause = "no decision"
		}
		why = fmt.Sprintf("the claim %q could not be verified (%s)", e.Text, cause)
	default:
		why = fmt.Sprintf("the evidence contradicts the claim %q", e.Text)
		if e.Confidence != nil {
			why += fmt.Sprintf(" (confidence %.2f)", *e.Confidence)
		}
		if branches > 0 {
			why += fmt.Sprintf(" after %d regenerations", branches)
		}
	}
	return AbstentionPrefix + " [Reason: " + why + "]"
}

// QuerySummary are the per-query numbers over a run's output decisions.
type QuerySummary struct {
	Queries int // distinct queries (query_id, or an output without one)
	// Abstained counts queries whose final attempt's overall action is
	// ABSTAIN (seed 004's abstain rate is per query).
	Abstained int
	// Branches are attempts after a query's first; Improved those whose
	// verdict beats the attempt before (seed 004's branch success rate).
	Branches, Improved int
	// Revised counts queries with more than one attempt; NoImprovement
	// and UnsupportedClaims the queries with those termination warnings.
	Revised, NoImprovement, UnsupportedClaims int
}

// The workflow's termination warnings of a query (on its final attempt).
const (
	// WarnNoImprovement: the query was revised and its final attempt's
	// evidence coverage is no higher than its first's.
	WarnNoImprovement = "NO_IMPROVEMENT"
	// WarnUnsupportedClaims: material claims of the final attempt are
	// still not supported (their texts are unsupported_claims).
	WarnUnsupportedClaims = "UNSUPPORTED_CLAIMS"
)

// terminate sets the termination warnings of a query whose attempts are
// ds[idx[0]], ds[idx[1]], … in attempt order, and counts them.
func (q *QuerySummary) terminate(ds []OutputDecision, idx []int) {
	first, final := &ds[idx[0]], &ds[idx[len(idx)-1]]
	final.TerminationWarnings = []string{}
	if len(idx) > 1 {
		q.Revised++
		if coverageOf(final) <= coverageOf(first) {
			final.TerminationWarnings = append(final.TerminationWarnings, WarnNoImprovement)
			q.NoImprovement++
		}
	}
	if len(final.Unverified) > 0 {
		final.TerminationWarnings = append(final.TerminationWarnings, WarnUnsupportedClaims)
		q.UnsupportedClaims++
	}
}

// What a query returns (OutputDecision.QueryDecision).
const (
	QueryReturn  = "return"
	QueryAbstain = "abstain"
)

// choose decides what a query returns, on its final attempt: the
// best-scored attempt that passes (every claim supported: verdict 2, and
// not abstaining) — highest evidence coverage, then highest overall
// confidence, then the earliest — else abstain.
func choose(ds []OutputDecision, idx, verdicts []int) {
	best := -1
	for _, i := range idx {
		if verdicts[i] != 2 || ds[i].OverallAction == ActionAbstain {
			continue
		}
		if best < 0 || betterAttempt(&ds[i], &ds[best]) {
			best = i
		}
	}
	final := &ds[idx[len(idx)-1]]
	if best < 0 {
		final.QueryDecision = QueryAbstain
		final.QueryDecisionReason = fmt.Sprintf("abstain: none of the query's %d attempts passes (every claim supported)", len(idx))
		return
	}
	b := &ds[best]
	final.QueryDecision, final.ChosenID = QueryReturn, b.Meta.ID
	conf := "none"
	if b.OverallConfidence != nil {
		conf = fmt.Sprintf("%.2f", *b.OverallConfidence)
	}
	final.QueryDecisionReason = fmt.Sprintf("return attempt %d (output %s): the best-scored of the query's %d attempts that pass (evidence coverage %.2f, confidence %s)",
		b.Meta.Attempt, b.Meta.ID, len(idx), coverageOf(b), conf)
}

// betterAttempt says a scores above b: higher coverage, then confidence.
func betterAttempt(a, b *OutputDecision) bool {
	if ca, cb := coverageOf(a), coverageOf(b); ca != cb {
		return ca > cb
	}
	conf := func(d *OutputDecision) float64 {
		if d.OverallConfidence == nil {
			return -1
		}
		return *d.OverallConfidence
	}
	return conf(a) > conf(b)
}

// coverageOf is an attempt's evidence coverage as the revision rule reads
// it: 1 when undefined (no material claim).
func coverageOf(d *OutputDecision) float64 {
	if d.EvidenceCoverage == nil {
		return 1
	}
	return *d.EvidenceCoverage
}

// NoImprovementRate is NoImprovement ÷ Revised (NaN when no query was
// revised); UnsupportedClaimsRate UnsupportedClaims ÷ Queries.
func (q QuerySummary) NoImprovementRate() float64     { return ratio(q.NoImprovement, q.Revised) }
func (q QuerySummary) UnsupportedClaimsRate() float64 { return ratio(q.UnsupportedClaims, q.Queries) }

// AbstainRate is Abstained ÷ Queries (NaN without queries).
func (q QuerySummary) AbstainRate() float64 { return ratio(q.Abstained, q.Queries) }

// BranchSuccessRate is Improved ÷ Branches (NaN without branches).
func (q QuerySummary) BranchSuccessRate() float64 { return ratio(q.Improved, q.Branches) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Queries groups decisions by query, orders each query's attempts, sets
// each later attempt's Improved (its verdict — the worst claim's, refuted <
// insufficient < supported — against the attempt before it) and counts.
// verdicts[i] is decision i's outputVerdict.
func Queries(ds []OutputDecision, verdicts []int) QuerySummary {
	groups := map[string][]int{}
	var keys []string
	for i, d := range ds {
		k := d.Meta.QueryKey()
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	var q QuerySummary
	for _, k := range keys {
		idx := groups[k]
		slices.SortStableFunc(idx, func(a, b int) int { return ds[a].Meta.Attempt - ds[b].Meta.Attempt })
		q.Queries++
		q.terminate(ds, idx)
		choose(ds, idx, verdicts)
		if ds[idx[len(idx)-1]].OverallAction == ActionAbstain {
			q.Abstained++
		}
		for j := 1; j < len(idx); j++ {
			better := verdicts[idx[j]] > verdicts[idx[j-1]]
			ds[idx[j]].Improved = ptr(better)
			q.Branches++
			if better {
				q.Improved++
			}
		}
	}
	return q
}

// outputIndex is Options.Outputs by id (nil without outputs).
func (o *Options) outputIndex() map[string]OutputMeta { return o.outputsByID }

// addToLedger keeps what the per-output layer needs of a claim's record
// (with Options.Outputs only: a claims run holds nothing more per claim).
func (o *Options) addToLedger(res *Result, c claims.Claim, rec reports.Record) {
	if o.Outputs == nil {
		return
	}
	if res.ledger == nil {
		res.ledger = map[string][]LedgerEntry{}
	}
	e := LedgerEntry{ClaimID: rec.ClaimID, Text: rec.Text, Importance: rec.Importance, Verdict: rec.Verdict,
		Confidence: rec.Confidence, Action: rec.Action, Cited: len(c.Cite) > 0}
	if rec.PredictedLabel != nil {
		e.Label = *rec.PredictedLabel
	}
	if rec.AbstainReason != nil {
		e.AbstainCause = *rec.AbstainReason
	}
	e.Flags, e.NoEvidence = claimFlags(rec, e), len(rec.Evidence) == 0
	res.ledger[c.SourceID] = append(res.ledger[c.SourceID], e)
}

// Risk flags of a claim (seed 002 §8's risk_flags, by type).
const (
	FlagContradicted    = "contradicted"     // verdict contradicted
	FlagNoEvidence      = "no_evidence"      // nothing retrieved (seed 002 §8.1)
	FlagWeakRetrieval   = "weak_retrieval"   // the best passage scored below --min-retrieval-score
	FlagLowConfidence   = "low_confidence"   // abstained below --abstain-below
	FlagError           = "error"            // the verifier failed on it
	FlagVerifyTimeout   = "verify_timeout"   // skipped: a verification call slower than --verify-timeout
	FlagNumericMismatch = "numeric_mismatch" // its number disagrees with the evidence's
	FlagUncitedCritical = "uncited_critical" // critical and without a citation anchor (seed 002 §3.5)
	FlagExtractionError = "extraction_error" // the output's claims could not be extracted
)

// claimFlags are a claim's risk flags: the labelling rules that fired on it
// (the record's flags: hedge, qualifier, conflict, stale, fallback…) and
// what its record says besides. This is the one place that reads them.
func claimFlags(rec reports.Record, e LedgerEntry) []string {
	// The rules' flags, but for the evidence's age (a detail of stale,
	// which grows with the calendar): risk flags are a fixed vocabulary.
	f := slices.DeleteFunc(slices.Clone(rec.Flags), func(x string) bool { return strings.HasPrefix(x, rules.FlagEvidenceAge) })
	if e.Verdict == metrics.VerdictContradicted {
		f = append(f, FlagContradicted)
	}
	switch e.AbstainCause {
	case ReasonNoEvidence:
		f = append(f, FlagNoEvidence)
	case ReasonWeakRetrieval:
		f = append(f, FlagWeakRetrieval)
	case ReasonLowConfidence:
		f = append(f, FlagLowConfidence)
	case ReasonError:
		f = append(f, FlagError)
	case ReasonTimeout:
		f = append(f, FlagVerifyTimeout)
	}
	if rec.NumericCheck != nil && *rec.NumericCheck == lint.NumericMismatch && !slices.Contains(f, FlagNumericMismatch) {
		f = append(f, FlagNumericMismatch) // the numeric rule flags it too
	}
	if e.Importance == "critical" && !e.Cited {
		f = append(f, FlagUncitedCritical)
	}
	return f
}

// decideOutputs decides every output of Options.Outputs (one with no claim
// too) and computes DecisionMetrics: outputs.parquet's decision columns.
func (o *Options) decideOutputs(res *Result) ([]reports.OutputRow, map[string]float64) {
	ds := make([]OutputDecision, len(o.Outputs))
	verdicts := make([]int, len(o.Outputs))
	for i, m := range o.Outputs {
		es := res.ledger[m.ID]
		ds[i] = DecideOutput(m, es)
		verdicts[i] = outputVerdict(es)
		if e, failed := o.extractErrors[m.ID]; failed {
			ds[i] = failedOutput(m, e)
			verdicts[i] = 1 // nothing verified: insufficient
		}
	}
	q := Queries(ds, verdicts)
	var ship, revise, abstain, uncited int
	rows := make([]reports.OutputRow, len(ds))
	for i, d := range ds {
		switch d.Revision {
		case RevisionShip:
			ship++
		case RevisionRevise:
			revise++
		case RevisionAbstain:
			abstain++
		}
		if len(d.UncitedCritical) > 0 {
			uncited++
		}
		rows[i] = outputRow(d)
	}
	n := len(ds)
	return rows, map[string]float64{"output_ship_rate": ratio(ship, n), "output_revise_rate": ratio(revise, n),
		"output_abstain_rate": ratio(abstain, n), "output_uncited_critical_rate": ratio(uncited, n),
		"queries": float64(q.Queries), "query_abstain_rate": q.AbstainRate(), "branches": float64(q.Branches),
		"branch_success_rate": q.BranchSuccessRate(), "query_no_improvement_rate": q.NoImprovementRate(),
		"query_unsupported_claims_rate": q.UnsupportedClaimsRate()}
}

// outputRow is a decision as outputs.parquet's decision columns.
func outputRow(d OutputDecision) reports.OutputRow {
	m := d.Meta
	r := reports.OutputRow{OutputID: m.ID, OverallAction: ptr(d.OverallAction), OverallConfidence: d.OverallConfidence,
		EvidenceCoverage: d.EvidenceCoverage, Revision: ptr(d.Revision), RevisionReason: ptr(d.RevisionReason),
		Instructions: d.Instructions, UncitedCritical: d.UncitedCritical, RiskFlags: d.RiskFlags, Improved: d.Improved,
		RiskSeverities: d.RiskSeverities, TerminationWarnings: d.TerminationWarnings}
	if d.QueryDecision != "" {
		r.QueryDecision, r.QueryDecisionReason = ptr(d.QueryDecision), ptr(d.QueryDecisionReason)
		if d.ChosenID != "" {
			r.ChosenOutputID = ptr(d.ChosenID)
		}
	}
	if slices.Contains(d.TerminationWarnings, WarnUnsupportedClaims) {
		r.UnsupportedClaims = d.Unverified
	}
	if d.RiskLevel != "" {
		r.RiskLevel = ptr(d.RiskLevel)
	}
	if d.NoEvidenceResponse != "" {
		r.NoEvidenceResponse = ptr(d.NoEvidenceResponse)
	}
	if m.Query != "" {
		r.Query = ptr(m.Query)
	}
	if m.QueryID != "" {
		r.QueryID = ptr(m.QueryID)
	}
	if m.HasAttempt {
		r.Attempt = ptr(int64(m.Attempt))
	}
	if d.WorstClaimID != "" {
		r.WorstClaimID = ptr(d.WorstClaimID)
	}
	if d.AbstentionMessage != "" {
		r.AbstentionMessage = ptr(d.AbstentionMessage)
	}
	if d.ExtractionError != "" {
		r.ExtractionError = ptr(d.ExtractionError)
	}
	return r
}

// ExtractedClaimsFile is where a run over model outputs writes the claims it
// extracted, in its output folder.
const ExtractedClaimsFile = "extracted_claims.jsonl"

// extractOutputs reads the outputs file (its metadata becomes Outputs) and
// extracts its claims into ExtractedClaimsFile, which the run then audits.
// Outputs extraction failed on are remembered: each is a row of
// outputs.parquet that says why.
func (o *Options) extractOutputs(ctx context.Context) error {
	f, err := userfile.Open(ctx, o.OutputsPath)
	if err != nil {
		return fmt.Errorf("open outputs: %w", err)
	}
	o.Outputs = nil
	if err := os.MkdirAll(o.WriteDir, outdir.DirMode); err != nil {
		f.Close()
		return err
	}
	ctxs, err := o.newContextsCorpus()
	if err != nil {
		f.Close()
		return err
	}
	err = extract.ReadInput(ctx, f, o.OutputsPath, o.Extract.Split, func(out extract.Output) error {
		o.Outputs = append(o.Outputs, OutputMeta{ID: out.ID, Query: out.Query, QueryID: out.QueryID, Attempt: out.Attempt,
			HasAttempt: out.HasAttempt, Line: out.Line})
		return ctxs.add(out)
	})
	f.Close()
	if err == nil {
		err = ctxs.finish(o)
	}
	if err != nil {
		ctxs.abort()
		return err
	}
	if o.Outputs == nil {
		o.Outputs = []OutputMeta{}
	}
	path := filepath.Join(o.WriteDir, ExtractedClaimsFile)
	stats, err := extract.ExtractFile(ctx, o.OutputsPath, path, o.Extract)
	if err != nil {
		return err
	}
	o.extractErrors = map[string]string{}
	for _, e := range stats.Errors {
		o.extractErrors[e.ID] = e.Error
		o.Log.Warn("claims could not be extracted from an output", "output", e.ID, "line", e.Line, "error", e.Error)
	}
	o.Log.Info("extracted claims", "outputs", stats.Outputs, "sentences", stats.Sentences, "claims", stats.Claims, "failed", len(stats.Errors))
	o.ClaimsPath = path
	return nil
}

// failedOutput is the decision on an output whose claims could not be
// extracted: nothing about it is verified, so it abstains, and says why.
func failedOutput(m OutputMeta, err string) OutputDecision {
	return OutputDecision{Meta: m, OverallAction: ActionAbstain, Revision: RevisionAbstain,
		RevisionReason: "Claims could not be extracted", Instructions: []string{}, UncitedCritical: []string{},
		RiskFlags: []string{FlagExtractionError}, RiskSeverities: []string{SeverityHigh}, RiskLevel: SeverityHigh, ExtractionError: err,
		AbstentionMessage: AbstentionPrefix + " [Reason: its claims could not be extracted: " + err + "]"}
}
