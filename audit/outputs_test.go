package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// demoOutputs reads the demo's outputs file as the per-output layer's
// metadata; attempts, when set, gives query ids and attempts by line.
func demoOutputs(t *testing.T, attempts func(line int) (string, int, bool)) []OutputMeta {
	f, err := os.Open(demo + "outputs.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var ms []OutputMeta
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var o struct{ ID, Query string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &o))
		m := OutputMeta{ID: o.ID, Query: o.Query, Line: line}
		if attempts != nil {
			m.QueryID, m.Attempt, m.HasAttempt = attempts(line)
		}
		ms = append(ms, m)
	}
	require.NoError(t, sc.Err())
	return ms
}

// seedDecideRevision is seed 002's decideRevision written out again from
// the seed over records, apart from the package's own, so the test can
// catch a drift of either from the seed.
func seedDecideRevision(recs []reports.Record, revisionCount int) (shouldRevise bool, reason string, instructions []string) {
	if revisionCount >= 2 {
		return false, "Maximum revision cycles reached", nil
	}
	var matl, covered int
	for _, r := range recs {
		if r.Importance != "minor" {
			matl++
			if r.Verdict == "supported" || r.Verdict == "weak" {
				covered++
			}
		}
	}
	coverage := 1.0
	if matl > 0 {
		coverage = float64(covered) / float64(matl)
	}
	if coverage >= 0.85 {
		return false, "Coverage threshold met", nil
	}
	for _, r := range recs {
		if r.Importance == "critical" && r.Verdict == "not_found" {
			instructions = append(instructions, `Remove or qualify claim: "`+r.Text+`"`)
		}
	}
	if len(instructions) > 0 {
		return true, "Critical claims lack evidence", instructions
	}
	for _, r := range recs {
		if r.Verdict == "contradicted" {
			instructions = append(instructions, `Correct claim based on evidence: "`+r.Text+`"`)
		}
	}
	if len(instructions) > 0 {
		return true, "Claims contradict evidence", instructions
	}
	return true, fmt.Sprintf("Coverage %.0f%% below 85%% threshold", math.Floor(coverage*100+0.5)), []string{"Strengthen citations or remove unsupported claims"}
}

func runDemoOutputs(t *testing.T, metas []OutputMeta) (string, []reports.OutputRow, []reports.Record) {
	out := t.TempDir()
	o := demoOptions(t, out)
	o.Outputs = metas
	_, err := Run(context.Background(), o)
	require.NoError(t, err)
	rows, err := reports.ReadParquet[reports.OutputRow](filepath.Join(out, "outputs.parquet"))
	require.NoError(t, err)
	return out, rows, records(t, out)
}

// Every demo output's revision, reason and instructions are what seed
// 002's decideRevision gives from its claims' records; its overall action
// is its worst claim's and its confidence the least.
func TestDemoOutputRevisionIsTheSeedRule(t *testing.T) {
	metas := demoOutputs(t, nil)
	// The run over the demo's outputs file itself: extraction, then the
	// decisions.
	out := t.TempDir()
	o := demoOptions(t, out)
	o.ClaimsPath, o.GoldPath, o.OutputsPath = "", "", demo+"outputs.jsonl"
	_, err := Run(context.Background(), o)
	require.NoError(t, err)
	rows, err := reports.ReadParquet[reports.OutputRow](filepath.Join(out, "outputs.parquet"))
	require.NoError(t, err)
	recs := records(t, out)
	require.Len(t, rows, len(metas), "one row per output, claims or not")
	bySource := map[string][]reports.Record{}
	for _, r := range recs {
		bySource[r.SourceID] = append(bySource[r.SourceID], r)
	}
	seen := map[string]int{}
	for _, row := range rows {
		rs := bySource[row.OutputID]
		should, reason, instr := seedDecideRevision(rs, 0)
		require.NotNil(t, row.Revision, row.OutputID)
		want := "revise"
		if !should {
			want = "ship"
		}
		assert.Equal(t, want, *row.Revision, row.OutputID)
		assert.Equal(t, reason, *row.RevisionReason, row.OutputID)
		assert.Equal(t, len(instr), len(row.Instructions), row.OutputID)
		if len(instr) > 0 {
			assert.Equal(t, instr, row.Instructions, row.OutputID)
		}
		seen[reason]++

		// Overall action: the first claim of the worst verdict; confidence
		// the minimum.
		rank := func(r reports.Record) int {
			switch {
			case r.PredictedLabel == nil:
				return 1
			case *r.PredictedLabel == "unsupported":
				return 0
			case *r.PredictedLabel == "supported":
				return 2
			}
			return 1
		}
		wantAction, minConf, worst := "CONTINUE", math.Inf(1), 3
		for _, r := range rs {
			if rank(r) < worst { // strictly: the first of equally bad claims
				worst, wantAction = rank(r), r.Action
			}
			if r.Confidence != nil {
				minConf = math.Min(minConf, *r.Confidence)
			}
		}
		assert.Equal(t, wantAction, *row.OverallAction, row.OutputID)
		if len(rs) > 0 {
			require.NotNil(t, row.OverallConfidence)
			assert.Equal(t, minConf, *row.OverallConfidence, row.OutputID)
		}
		if *row.OverallAction == ActionAbstain {
			require.NotNil(t, row.AbstentionMessage)
			assert.Contains(t, *row.AbstentionMessage, "I cannot provide a verified answer to this question. [Reason: ")
		} else {
			assert.Nil(t, row.AbstentionMessage)
		}
	}
	// The demo reaches more than one branch of the rule, so the comparison
	// says something.
	assert.GreaterOrEqual(t, len(seen), 2, "reasons reached: %v", seen)
	t.Logf("reasons: %v", seen)
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), fmt.Sprintf("<h2>Model outputs (%d)</h2>", len(metas)))
	assert.Contains(t, string(html), "Correct claim based on evidence: &#34;")
}

// entry is a claim of a hand-made ledger.
func entry(id, label string, conf float64, branches int) LedgerEntry {
	e := LedgerEntry{ClaimID: id, Text: "claim " + id, Importance: "material", Label: label, Confidence: ptr(conf)}
	pred := metrics.Supported
	switch label {
	case "unsupported":
		pred, e.Verdict = metrics.Unsupported, metrics.VerdictContradicted
	case "insufficient":
		pred, e.Verdict = metrics.Insufficient, metrics.VerdictNotFound
	default:
		e.Verdict = metrics.VerdictSupported
	}
	e.Action = ClaimAction(false, pred, e.Confidence, branches, 0)
	return e
}

// Attempts 0–3 of three queries (and a query answered once): the branch
// success rate and the per-query abstain rate are the hand counts.
func TestBranchSuccessRateHandCount(t *testing.T) {
	type att struct {
		query  string
		n      int
		labels []string // the claims' predicted labels
	}
	plan := []att{
		// q1: refuted → insufficient (improved) → insufficient (no) → supported (improved)
		{"q1", 0, []string{"supported", "unsupported"}},
		{"q1", 1, []string{"supported", "insufficient"}},
		{"q1", 2, []string{"insufficient"}},
		{"q1", 3, []string{"supported"}},
		// q2: refuted four times; the fourth abstains (3 branches tried)
		{"q2", 3, []string{"unsupported"}}, // out of order on purpose
		{"q2", 0, []string{"unsupported"}},
		{"q2", 1, []string{"unsupported", "supported"}},
		{"q2", 2, []string{"unsupported"}},
		// q3: supported → refuted (worse) → supported (improved)
		{"q3", 0, []string{"supported"}},
		{"q3", 1, []string{"unsupported"}},
		{"q3", 2, []string{"supported", "supported"}},
		// a query answered once, without a query id
		{"", 0, []string{"insufficient"}},
	}
	o := &Options{}
	res := &Result{ledger: map[string][]LedgerEntry{}}
	for i, a := range plan {
		id := fmt.Sprintf("out%02d", i)
		o.Outputs = append(o.Outputs, OutputMeta{ID: id, QueryID: a.query, Attempt: a.n, HasAttempt: a.query != ""})
		for j, l := range a.labels {
			res.ledger[id] = append(res.ledger[id], entry(fmt.Sprintf("%s-%d", id, j), l, 0.9, a.n))
		}
	}
	rows, v := o.decideOutputs(res)
	// Branches: q1 3, q2 3, q3 2 = 8. Improved: q1 attempts 1 and 3, q3
	// attempt 2 = 3.
	assert.Equal(t, 8.0, v["branches"])
	assert.Equal(t, 3.0/8.0, v["branch_success_rate"])
	assert.Equal(t, 4.0, v["queries"])
	// Final attempts: q1 supported (CONTINUE), q2 attempt 3 refuted at 3
	// branches (ABSTAIN), q3 CONTINUE, the single one insufficient at 0
	// branches (BRANCH): 1 of 4.
	assert.Equal(t, 0.25, v["query_abstain_rate"])
	improved := map[string]*bool{}
	for _, r := range rows {
		improved[r.OutputID] = r.Improved
	}
	want := map[string]*bool{"out00": nil, "out01": ptr(true), "out02": ptr(false), "out03": ptr(true),
		"out04": ptr(false), "out05": nil, "out06": ptr(false), "out07": ptr(false),
		"out08": nil, "out09": ptr(false), "out10": ptr(true), "out11": nil}
	assert.Equal(t, want, improved)
	// The b ≥ 3 rows of seed 004's table: refuted at 3 branches abstains,
	// insufficient at 3 branches continues.
	assert.Equal(t, ActionAbstain, *rows[4].OverallAction)
	assert.Contains(t, *rows[4].AbstentionMessage, "after 3 regenerations")
	assert.Equal(t, ActionContinue, ClaimAction(false, metrics.Insufficient, ptr(0.9), 3, 0))
	assert.Equal(t, ActionBranch, ClaimAction(false, metrics.Insufficient, ptr(0.9), 2, 0))
	assert.Equal(t, ActionContinue, ClaimAction(false, metrics.Unsupported, ptr(0.6), 0, 0))
	// Attempt 2 and up: the revision loop has stopped (seed 002: two
	// revisions at most); short of coverage it abstains.
	assert.Equal(t, ReasonMaxRevisions, *rows[7].RevisionReason)
	assert.Equal(t, RevisionAbstain, *rows[7].Revision)
	assert.Equal(t, RevisionShip, *rows[3].Revision) // q1 attempt 3: coverage 1
}

func TestDecideRevisionBranches(t *testing.T) {
	sup := entry("a", "supported", 0.9, 0)
	con := entry("b", "unsupported", 0.9, 0)
	crit := entry("c", "insufficient", 0.9, 0)
	crit.Importance = "critical"
	minor := entry("d", "insufficient", 0.9, 0)
	minor.Importance = "minor"
	// Coverage met (1 of 1 non-minor): ship even with nothing else to say.
	d := DecideRevision([]LedgerEntry{sup, minor}, 0)
	assert.Equal(t, RevisionDecision{Reason: ReasonCoverageMet, Instructions: []string{}}, d)
	// 6 of 7 supported: 0.857 ≥ 0.85 ships despite a contradiction (the
	// seed checks coverage first).
	es := []LedgerEntry{sup, sup, sup, sup, sup, sup, con}
	assert.False(t, DecideRevision(es, 0).ShouldRevise)
	// Critical not found outranks a contradiction.
	d = DecideRevision([]LedgerEntry{sup, con, crit}, 1)
	assert.Equal(t, ReasonCriticalNotFound, d.Reason)
	assert.Equal(t, []string{`Remove or qualify claim: "claim c"`}, d.Instructions)
	d = DecideRevision([]LedgerEntry{sup, con}, 0)
	assert.Equal(t, []string{`Correct claim based on evidence: "claim b"`}, d.Instructions)
	// Low coverage alone: 2 of 3 → "67%".
	weakless := entry("e", "insufficient", 0.9, 0)
	d = DecideRevision([]LedgerEntry{sup, sup, weakless}, 0)
	assert.Equal(t, "Coverage 67% below 85% threshold", d.Reason)
	assert.Equal(t, []string{InstructionGeneral}, d.Instructions)
	// The limit comes first, whatever the claims.
	assert.Equal(t, ReasonMaxRevisions, DecideRevision([]LedgerEntry{sup}, 2).Reason)
	// No non-minor claim: coverage reads 1.0, undefined in the column.
	c, defined := EvidenceCoverage([]LedgerEntry{minor})
	assert.Equal(t, 1.0, c)
	assert.False(t, defined)
}

// Attempts through the pipeline: outputs.parquet carries query ids and
// attempts, metrics.parquet the branch success rate, and the rate equals a
// count of the improved column.
func TestDemoAttemptsBranchSuccess(t *testing.T) {
	metas := demoOutputs(t, func(line int) (string, int, bool) {
		if line > 40 {
			return "", 0, false
		}
		return fmt.Sprintf("q%d", (line-1)/4), (line - 1) % 4, true
	})
	out, rows, _ := runDemoOutputs(t, metas)
	var branches, improved int
	for _, r := range rows {
		if r.Improved != nil {
			branches++
			if *r.Improved {
				improved++
			}
		}
	}
	assert.Equal(t, 30, branches, "10 queries of 4 attempts")
	ms, err := reports.ReadParquet[reports.MetricRow](filepath.Join(out, "metrics.parquet"))
	require.NoError(t, err)
	got := map[string]float64{}
	for _, m := range ms {
		if m.Slice == "all" && m.Stage == reports.StageCalibrated && m.Value != nil {
			got[m.Metric] = *m.Value
		}
		// The decision rows carry the run's instance like every other row.
		assert.Equal(t, ms[0].RunInstance, m.RunInstance, m.Metric)
		assert.NotEmpty(t, m.RunInstance, m.Metric)
	}
	assert.Equal(t, 30.0, got["branches"])
	assert.Equal(t, float64(improved)/30, got["branch_success_rate"])
	assert.Equal(t, float64(10+len(rows)-40), got["queries"])
	gates, err := reports.ParseGates("branch_success_rate<0.4,query_abstain_rate>0.15")
	require.NoError(t, err)
	assert.Len(t, gates, 2)
}

// A run over the outputs file itself: claims are extracted into the output
// folder, every output is a row (with or without claims), and the manifest
// names the outputs file.
func TestRunOverOutputsFile(t *testing.T) {
	out := t.TempDir()
	o := demoOptions(t, out)
	o.ClaimsPath, o.GoldPath, o.OutputsPath = "", "", demo+"outputs.jsonl"
	res, err := Run(context.Background(), o)
	require.NoError(t, err)
	rows, err := reports.ReadParquet[reports.OutputRow](filepath.Join(out, "outputs.parquet"))
	require.NoError(t, err)
	metas := demoOutputs(t, nil)
	require.Len(t, rows, len(metas))
	extracted, err := os.ReadFile(filepath.Join(out, ExtractedClaimsFile))
	require.NoError(t, err)
	assert.Equal(t, res.Records, len(strings.Split(strings.TrimSpace(string(extracted)), "\n")))
	claimsOf := map[string]int64{}
	for _, r := range records(t, out) {
		claimsOf[r.SourceID]++
	}
	for _, r := range rows {
		assert.Equal(t, claimsOf[r.OutputID], r.Claims, r.OutputID)
		require.NotNil(t, r.Revision)
		require.NotNil(t, r.OverallAction)
	}
	m, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)
	assert.Contains(t, string(m), `"role": "outputs"`)
}

// Risk flags carry their severity, in their order, and the output its
// highest; an output none of whose claims found evidence gets the
// no-evidence response, one with any evidence does not.
func TestRiskSeverityAndNoEvidenceResponse(t *testing.T) {
	m := OutputMeta{ID: "o1"}
	d := DecideOutput(m, []LedgerEntry{
		{ClaimID: "a", Action: ActionAbstain, AbstainCause: ReasonNoEvidence, Flags: []string{FlagNoEvidence}, NoEvidence: true},
		{ClaimID: "b", Action: ActionAbstain, AbstainCause: ReasonNoEvidence, Flags: []string{"stale", "hedged"}, NoEvidence: true},
	})
	assert.Equal(t, []string{"hedged", "no_evidence", "stale"}, d.RiskFlags)
	assert.Equal(t, []string{"low", "high", "medium"}, d.RiskSeverities)
	assert.Equal(t, "high", d.RiskLevel)
	assert.Equal(t, NoEvidenceMessage, d.NoEvidenceResponse)

	d = DecideOutput(m, []LedgerEntry{
		{ClaimID: "a", Action: ActionContinue, Label: "supported", Flags: []string{"stale", "qualifier_missing"}},
		{ClaimID: "b", Action: ActionAbstain, AbstainCause: ReasonNoEvidence, Flags: []string{FlagNoEvidence}, NoEvidence: true},
	})
	assert.Empty(t, d.NoEvidenceResponse, "one claim found evidence")
	assert.Equal(t, "high", d.RiskLevel)

	d = DecideOutput(m, []LedgerEntry{{ClaimID: "a", Action: ActionContinue, Label: "supported", Flags: []string{"stale"}}})
	assert.Equal(t, "medium", d.RiskLevel, "an outdated source is medium")
	d = DecideOutput(m, nil)
	assert.Empty(t, d.RiskLevel, "no flag, no level")
	assert.Empty(t, d.NoEvidenceResponse, "no claim: nothing was looked for")
	for _, f := range []string{FlagNoEvidence, "conflict", FlagContradicted, FlagNumericMismatch} {
		assert.Equal(t, SeverityHigh, FlagSeverity(f), f)
	}
	assert.Equal(t, SeverityMedium, FlagSeverity("a_flag_added_later"), "a flag not listed is medium, not dropped")
}

// A query's final attempt carries the workflow's termination warnings:
// NO_IMPROVEMENT when revisions did not raise its evidence coverage,
// UNSUPPORTED_CLAIMS (with the texts) while material claims are not
// supported; earlier attempts carry none, and the rates count queries.
func TestTerminationWarnings(t *testing.T) {
	sup := func(id string) LedgerEntry {
		return LedgerEntry{ClaimID: id, Text: id + " holds.", Importance: "material", Label: "supported", Verdict: "supported", Action: ActionContinue}
	}
	uns := func(id, imp string) LedgerEntry {
		return LedgerEntry{ClaimID: id, Text: id + " fails.", Importance: imp, Label: "unsupported", Verdict: "contradicted", Action: ActionBranch}
	}
	at := func(q string, attempt int, es ...LedgerEntry) OutputDecision {
		return DecideOutput(OutputMeta{ID: q + fmt.Sprint(attempt), QueryID: q, Attempt: attempt, HasAttempt: true}, es)
	}
	ds := []OutputDecision{
		// q1: coverage 0.5 → 0.5 after a revision, one material claim unsupported.
		at("q1", 0, sup("a"), uns("b", "material")), at("q1", 1, sup("a"), uns("c", "material")),
		// q2: coverage 0.5 → 1: improved; all material claims supported
		// (a minor one is not, and does not count).
		at("q2", 0, sup("a"), uns("b", "material")), at("q2", 1, sup("a"), uns("m", "minor")),
		// q3: one attempt with an unsupported critical claim.
		at("q3", 0, uns("k", "critical")),
	}
	q := Queries(ds, []int{1, 1, 1, 2, 0})
	assert.Equal(t, []string{}, ds[0].TerminationWarnings, "an earlier attempt has none")
	assert.Equal(t, []string{WarnNoImprovement, WarnUnsupportedClaims}, ds[1].TerminationWarnings)
	assert.Equal(t, []string{"c fails."}, ds[1].Unverified)
	assert.Equal(t, []string{}, ds[3].TerminationWarnings)
	assert.Equal(t, []string{WarnUnsupportedClaims}, ds[4].TerminationWarnings, "no revision: no NO_IMPROVEMENT")
	assert.Equal(t, 2, q.Revised)
	assert.InDelta(t, 0.5, q.NoImprovementRate(), 1e-12)
	assert.InDelta(t, 2.0/3, q.UnsupportedClaimsRate(), 1e-12)
	row := outputRow(ds[1])
	assert.Equal(t, []string{"c fails."}, row.UnsupportedClaims)
	assert.Empty(t, outputRow(ds[0]).UnsupportedClaims)
}

// A query returns its best-scored attempt that passes (every claim
// supported), said on its final attempt, else abstains: a later passing
// attempt with lower coverage does not replace a better earlier one.
func TestQueryReturnsBestPassingAttempt(t *testing.T) {
	e := func(id, imp, label, verdict string, conf float64) LedgerEntry {
		return LedgerEntry{ClaimID: id, Text: id, Importance: imp, Label: label, Verdict: verdict, Action: ActionContinue, Confidence: &conf}
	}
	at := func(q string, attempt int, es ...LedgerEntry) OutputDecision {
		return DecideOutput(OutputMeta{ID: fmt.Sprintf("%s-%d", q, attempt), QueryID: q, Attempt: attempt, HasAttempt: true}, es)
	}
	ds := []OutputDecision{
		at("q1", 0, e("a", "material", "unsupported", "contradicted", 0.9)),                                               // fails
		at("q1", 1, e("a", "material", "supported", "supported", 0.8), e("b", "material", "supported", "supported", 0.7)), // coverage 1, conf 0.7
		at("q1", 2, e("a", "material", "supported", "weak", 0.95), e("b", "minor", "supported", "supported", 0.95)),       // coverage 1, conf 0.95: best
		at("q2", 0, e("a", "material", "unsupported", "contradicted", 0.9)),
		at("q2", 1, e("a", "material", "insufficient", "not_found", 0.6)),
	}
	Queries(ds, []int{0, 2, 2, 0, 1})
	assert.Empty(t, ds[0].QueryDecision, "earlier attempts say nothing")
	assert.Equal(t, QueryReturn, ds[2].QueryDecision)
	assert.Equal(t, "q1-2", ds[2].ChosenID)
	assert.Contains(t, ds[2].QueryDecisionReason, "return attempt 2 (output q1-2)")
	assert.Equal(t, QueryAbstain, ds[4].QueryDecision)
	assert.Empty(t, ds[4].ChosenID)
	assert.Contains(t, ds[4].QueryDecisionReason, "none of the query's 2 attempts passes")
	row := outputRow(ds[2])
	assert.Equal(t, "q1-2", *row.ChosenOutputID)
	assert.Nil(t, outputRow(ds[1]).QueryDecision)

	// The best passing attempt is chosen by score, not by order.
	ds = []OutputDecision{
		at("q3", 0, e("a", "material", "supported", "supported", 0.9)),
		at("q3", 1, e("a", "material", "supported", "supported", 0.6)),
	}
	Queries(ds, []int{2, 2})
	assert.Equal(t, "q3-0", ds[1].ChosenID, "the first attempt scored higher")
}
