package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const demo = "../benchdata/demo/"

func demoOptions(t *testing.T, out string) Options {
	return Options{
		CorpusPath: demo + "corpus.jsonl", SpansPath: demo + "spans.jsonl",
		ClaimsPath: demo + "claims.jsonl", GoldPath: demo + "gold.jsonl",
		OutDir: out, IndexDir: filepath.Join(t.TempDir(), "index"), VerifierName: "lexical",
		NewVerifier: func(s adjudicate.CorpusStats) (adjudicate.Verifier, error) {
			return lexical.New("", s)
		},
	}
}

// records reads a run's records without the one column that measures time.
func records(t *testing.T, dir string) []reports.Record {
	rs, err := reports.ReadParquet[reports.Record](filepath.Join(dir, "records.parquet"))
	require.NoError(t, err)
	for i := range rs {
		// Latency is measured; the instance is this execution's own.
		rs[i].LatencyMS, rs[i].RunInstance, rs[i].StartedAt, rs[i].DecidedAt = 0, "", 0, 0
	}
	return rs
}

func TestRecordsIndependentOfBatchingAndWorkers(t *testing.T) {
	var want []reports.Record
	for _, c := range []struct{ batch, workers int }{{1, 1}, {7, 4}, {64, 1}, {64, 4}} {
		out := t.TempDir()
		o := demoOptions(t, out)
		o.BatchSize, o.Workers = c.batch, c.workers
		res, err := Run(context.Background(), o)
		require.NoError(t, err)
		require.Equal(t, 600, res.Records, "every claim is a record")
		got := records(t, out)
		if want == nil {
			want = got
			continue
		}
		assert.Equal(t, want, got, "batch %d, workers %d", c.batch, c.workers)
	}
}

// counting wraps a verifier and counts the pairs it is asked about.
type counting struct {
	adjudicate.Verifier
	pairs atomic.Int64
}

func (c *counting) Verify(ctx context.Context, b []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	c.pairs.Add(int64(len(b)))
	return c.Verifier.Verify(ctx, b)
}

func (c *counting) Version() string { return c.Verifier.(adjudicate.Versioner).Version() }

// An interrupted run leaves no records file; --resume then reuses the cached
// verdicts and ends with records identical to an uninterrupted run. (A
// cancelled context leaves the same on-disk state as SIGKILL at that point:
// records are only written at the end, and the cache commits whole batches
// in bbolt transactions, which a crash rolls back.)
func TestResumeAfterInterruption(t *testing.T) {
	clean := t.TempDir()
	_, err := Run(context.Background(), demoOptions(t, clean))
	require.NoError(t, err)

	out := t.TempDir()
	var first, second *counting
	o := demoOptions(t, out)
	o.Resume, o.BatchSize = true, 16
	o.NewVerifier = func(s adjudicate.CorpusStats) (adjudicate.Verifier, error) {
		v, err := lexical.New("", s)
		first = &counting{Verifier: v}
		return first, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	o.Progress = func(done, _ int) {
		if done == 300 {
			cancel()
		}
	}
	_, err = Run(ctx, o)
	require.ErrorIs(t, err, context.Canceled)
	_, statErr := os.Stat(filepath.Join(out, "records.parquet"))
	assert.True(t, os.IsNotExist(statErr), "an interrupted run writes no records file")

	o = demoOptions(t, out)
	o.IndexDir = filepath.Join(t.TempDir(), "index2")
	o.Resume = true
	o.NewVerifier = func(s adjudicate.CorpusStats) (adjudicate.Verifier, error) {
		v, err := lexical.New("", s)
		second = &counting{Verifier: v}
		return second, err
	}
	_, err = Run(context.Background(), o)
	require.NoError(t, err)
	assert.Less(t, second.pairs.Load(), int64(600-290), "the resumed run verifies only what the first did not finish")
	assert.Equal(t, records(t, clean), records(t, out), "resumed records equal an uninterrupted run's")
}

// failing fails every batch that holds one of the marked claims.
type failing struct {
	adjudicate.Verifier
	bad map[string]bool
}

func (f *failing) Verify(ctx context.Context, b []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	for _, p := range b {
		if f.bad[p.ClaimID] {
			return nil, errors.New("backend crashed")
		}
	}
	return f.Verifier.Verify(ctx, b)
}

func TestFailingBackendGivesPerClaimErrors(t *testing.T) {
	for _, c := range []struct {
		bad     []string
		tooMany bool
	}{{[]string{"c_0000010"}, false}, {[]string{"c_0000010", "c_0000200", "c_0000400", "c_0000500"}, true}} {
		out := t.TempDir()
		o := demoOptions(t, out)
		o.BatchSize = 2 // each bad claim takes one neighbour down with it
		bad := map[string]bool{}
		for _, id := range c.bad {
			bad[id] = true
		}
		o.NewVerifier = func(s adjudicate.CorpusStats) (adjudicate.Verifier, error) {
			v, err := lexical.New("", s)
			return &failing{Verifier: v, bad: bad}, err
		}
		res, err := Run(context.Background(), o)
		if c.tooMany {
			assert.ErrorIs(t, err, ErrTooManyErrors, "8 of 600 is over the 1% bound")
		} else {
			assert.NoError(t, err, "2 of 600 is within the 1% bound")
		}
		require.NotNil(t, res)
		assert.Equal(t, 2*len(c.bad), res.Errors)
		rs := records(t, out)
		require.Len(t, rs, 600, "failed claims are records too")
		n := 0
		for _, r := range rs {
			if r.Error != nil {
				n++
				assert.True(t, r.Abstained)
				assert.Equal(t, ReasonError, *r.AbstainReason)
				assert.Contains(t, *r.Error, "backend crashed")
				assert.Nil(t, r.PredictedLabel)
			}
		}
		assert.Equal(t, 2*len(c.bad), n)
	}
}

// Without gold every column that needs it is null, never false: a
// notebook's mean of tier1_fa is then undefined, not a false-accept rate
// of 0.
func TestUnlabelledRecordsAreNull(t *testing.T) {
	out := t.TempDir()
	o := demoOptions(t, out)
	o.GoldPath = ""
	_, err := Run(context.Background(), o)
	require.NoError(t, err)
	rs := records(t, out)
	require.Len(t, rs, 600)
	for _, r := range rs {
		assert.Nil(t, r.GoldLabel)
		assert.Nil(t, r.Correct, r.ClaimID)
		assert.Nil(t, r.Tier1FA, r.ClaimID)
		assert.Nil(t, r.Tier2FA, r.ClaimID)
		assert.Nil(t, r.VerifierCorrect, r.ClaimID)
		require.NotNil(t, r.VerifierConfidence, "the verifier's confidence needs no gold")
		assert.GreaterOrEqual(t, *r.VerifierConfidence, 1.0/3)
	}
}

// ECE computed in a notebook from verifier_confidence and verifier_correct
// equals the run's (from confidence and correct, the final labels', it
// differs once a labelling rule changes labels: the demo's 0.255 against
// 0.100 with every rule on).
func TestECEFromVerifierColumns(t *testing.T) {
	out := t.TempDir()
	res, err := Run(context.Background(), demoOptions(t, out))
	require.NoError(t, err)
	var vconf []float64
	var vok []bool
	for _, r := range records(t, out) {
		if r.Abstained || r.VerifierCorrect == nil {
			continue
		}
		vconf, vok = append(vconf, *r.VerifierConfidence), append(vok, *r.VerifierCorrect)
	}
	want := *res.Tables.Summary.Metrics["ece_10"]
	assert.InDelta(t, want, metrics.TopLabelECE(vconf, vok, 10), 1e-12)
}

func TestRecordColumns(t *testing.T) {
	out := t.TempDir()
	o := demoOptions(t, out)
	o.AbstainBelow = 0.6
	_, err := Run(context.Background(), o)
	require.NoError(t, err)
	rs := records(t, out)
	reasons := map[string]int{}
	for _, r := range rs {
		require.NotNil(t, r.GoldLabel)
		require.NotNil(t, r.Confidence)
		if r.Abstained {
			reasons[*r.AbstainReason]++
			assert.Nil(t, r.PredictedLabel)
			assert.Nil(t, r.Correct)
			assert.Less(t, *r.Confidence, 0.6)
			assert.Equal(t, "ABSTAIN", r.Action)
			assert.Equal(t, ptr(false), r.Tier1FA, "labelled and abstained: no false accept")
			assert.Nil(t, r.VerifierCorrect)
			continue
		}
		require.NotNil(t, r.PredictedLabel)
		assert.Equal(t, *r.PredictedLabel == *r.GoldLabel, *r.Correct)
		require.NotNil(t, r.Tier1FA)
		assert.Equal(t, *r.PredictedLabel == "supported" && *r.GoldLabel != "supported", *r.Tier1FA)
		assert.Equal(t, *r.PredictedLabel != "unsupported" && *r.GoldLabel == "unsupported", *r.Tier2FA)
		// The verifier's own confidence is its argmax's probability, and
		// verifier_correct its label against gold.
		p := []float64{*r.PSupported, *r.PUnsupported, *r.PInsufficient}
		assert.Equal(t, slices.Max(p), *r.VerifierConfidence)
		assert.Equal(t, *r.VerifierLabel == *r.GoldLabel, *r.VerifierCorrect)
		assert.InDelta(t, 1, *r.PSupported+*r.PUnsupported+*r.PInsufficient, 1e-9)
		assert.NotEmpty(t, r.Evidence)
		assert.NotEmpty(t, r.Rationale)
		// The deciding passage is named by id and 1-based rank, and is the
		// one the rationale cites.
		require.NotNil(t, r.EvidenceUsed, r.ClaimID)
		require.GreaterOrEqual(t, r.EvidenceUsed.Rank, int32(1))
		require.LessOrEqual(t, int(r.EvidenceUsed.Rank), len(r.Evidence))
		used := r.Evidence[r.EvidenceUsed.Rank-1]
		assert.Equal(t, used.PassageID, r.EvidenceUsed.PassageID)
		assert.Contains(t, r.Rationale, used.DocID)
		for _, e := range r.Evidence {
			assert.NotEmpty(t, e.Snippet)
			assert.LessOrEqual(t, len([]rune(e.Snippet)), reports.SnippetRunes+1)
		}
		assert.Contains(t, []string{"CONTINUE", "BRANCH"}, r.Action)
		assert.Contains(t, []string{"supported", "weak", "contradicted", "not_found"}, r.Verdict)
		if r.ClaimType == "numeric" {
			require.NotNil(t, r.NumericCheck)
			assert.Contains(t, []string{"verified", "mismatch", "unverifiable"}, *r.NumericCheck)
		}
	}
	assert.Positive(t, reasons[ReasonLowConfidence], "--abstain-below 0.6 abstains some claims")
}

// The run's metrics outcomes are derived from its decisions; `audit report`
// derives them from the records. The two must agree claim by claim.
func TestOutcomesEqualThoseOfTheRecords(t *testing.T) {
	out := t.TempDir()
	o := demoOptions(t, out)
	o.AbstainBelow = 0.6
	res, err := Run(context.Background(), o)
	require.NoError(t, err)
	rs, err := reports.ReadParquet[reports.Record](filepath.Join(out, "records.parquet"))
	require.NoError(t, err)
	require.Len(t, res.Outcomes, len(rs))
	abstained := 0
	for i, r := range rs {
		want := reports.OutcomeOf(r)
		want.ID = "" // the run's outcomes carry no id (Result.Outcomes)
		require.Equal(t, want, res.Outcomes[i], "claim %s", r.ClaimID)
		if r.Abstained {
			abstained++
		}
	}
	assert.Positive(t, abstained, "abstentions are compared too")
}

// An index built with other passage settings is reused with them, and the
// run id covers them; a contradicting setting rebuilds it.
func TestRunKeepsTheIndexSettings(t *testing.T) {
	ctx := context.Background()
	ixDir := filepath.Join(t.TempDir(), "ix")
	five := corpus.PassageSettings{WindowSentences: 5, WindowStride: 2, MaxChars: 1200}
	built, err := corpus.EnsureIndex(ctx, corpus.EnsureRequest{Dir: ixDir, CorpusPath: demo + "corpus.jsonl",
		SpansPath: demo + "spans.jsonl", Index: corpus.IndexOptions{Passages: five}})
	require.NoError(t, err)

	o := demoOptions(t, t.TempDir())
	o.IndexDir = ixDir
	res, err := Run(ctx, o)
	require.NoError(t, err)
	m, err := corpus.ReadManifest(ixDir)
	require.NoError(t, err)
	assert.Equal(t, five, m.Passages, "the index keeps the settings it was built with")
	assert.Equal(t, built.Manifest.CreatedAt, m.CreatedAt, "and is not rebuilt")

	def := demoOptions(t, t.TempDir())
	resDefault, err := Run(ctx, def)
	require.NoError(t, err)
	assert.NotEqual(t, resDefault.RunID, res.RunID, "the run id covers the index's settings")

	o = demoOptions(t, t.TempDir())
	o.IndexDir = ixDir
	o.Passages.WindowSentences = 4
	_, err = Run(ctx, o)
	require.NoError(t, err)
	m, err = corpus.ReadManifest(ixDir)
	require.NoError(t, err)
	assert.Equal(t, 4, m.Passages.WindowSentences, "a contradicting setting rebuilds")
	assert.Equal(t, 2, m.Passages.WindowStride, "unset settings keep the index's")
}

// --numeric-effect override makes a numeric mismatch unsupported and keeps
// a verified number from being unsupported by the verifier alone; records
// name the rule, the verifier's own label and the passage number. (Effect
// none and flag are lint.DecideNumeric's table; they keep the label.)
func TestNumericOverride(t *testing.T) {
	out := t.TempDir()
	o := demoOptions(t, out)
	o.NumericEffect = lint.EffectOverride
	res, err := Run(context.Background(), o)
	require.NoError(t, err)
	over := records(t, out)
	changed, mismatches, facts := 0, 0, 0
	for i, r := range over {
		if r.NumericFactID != nil {
			facts++
			require.NotNil(t, r.NumericFactValue)
			require.NotNil(t, r.NumericReason)
		}
		want := res.Outcomes[i]
		want.LatencyMS = 0 // records() drops the one column that measures time
		got := reports.OutcomeOf(r)
		got.ID = "" // the run's outcomes carry no id (Result.Outcomes)
		require.Equal(t, got, want, "metrics see the overridden label: %s", r.ClaimID)
		if r.Abstained {
			assert.Nil(t, r.DecidedBy)
			assert.Nil(t, r.VerifierLabel)
			continue
		}
		require.NotNil(t, r.VerifierLabel)
		switch {
		case r.NumericCheck != nil && *r.NumericCheck == lint.NumericMismatch:
			mismatches++
			assert.Equal(t, "unsupported", *r.PredictedLabel, r.ClaimID)
			assert.Equal(t, lint.RuleNumericMismatch, *r.DecidedBy)
			assert.Contains(t, *r.NumericReason, "differs from")
		case r.NumericCheck != nil && *r.NumericCheck == lint.NumericVerified:
			assert.NotEqual(t, "unsupported", *r.PredictedLabel, r.ClaimID)
			if *r.VerifierLabel == "unsupported" {
				assert.Equal(t, lint.RuleNumericVerified, *r.DecidedBy)
			}
		default:
			assert.Equal(t, *r.VerifierLabel, *r.PredictedLabel)
			assert.Equal(t, lint.RuleVerifier, *r.DecidedBy)
		}
		if *r.PredictedLabel != *r.VerifierLabel {
			changed++
		}
	}
	assert.Positive(t, mismatches, "the demo set has numeric mismatches")
	assert.Positive(t, changed, "override changed some labels")
	assert.Positive(t, facts, "records name the matched passage number")

	// The numeric settings enter the run id when they are not the defaults.
	ix := &index{manifest: &corpus.IndexManifest{Passages: corpus.DefaultPassageSettings}}
	def := Options{NumericPolicy: numeric.PolicyAuto, NumericEffect: lint.EffectFlag}
	assert.NotEqual(t, runID(&inputs{}, ix, def, "v"), runID(&inputs{}, ix, o, "v"))
	def2 := def
	def2.NumericPolicy = numeric.PolicyExact
	assert.NotEqual(t, runID(&inputs{}, ix, def, "v"), runID(&inputs{}, ix, def2, "v"))
}
