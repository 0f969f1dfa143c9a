package audit

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
)

// Calibration modes.
const (
	CalibrateAuto  = "auto"  // fit T and apply it when the raw 10-bin ECE exceeds the threshold
	CalibrateOff   = "off"   // T = 1
	CalibrateFixed = "fixed" // T = Options.Temperature
)

// Abstain reasons.
const (
	ReasonNoEvidence    = "no_evidence"
	ReasonWeakRetrieval = "weak_retrieval"
	ReasonLowConfidence = "low_confidence"
	ReasonError         = "error"
)

// Options configure Run.
type Options struct {
	CorpusPath, SpansPath, ClaimsPath, GoldPath string
	OutDir                                      string
	IndexDir                                    string // default OutDir/index

	// NewVerifier makes the verifier once the index is open (backends may
	// use its statistics); VerifierName names it in records.
	NewVerifier  func(stats adjudicate.CorpusStats) (adjudicate.Verifier, error)
	VerifierName string

	K                 int     // passages per claim; default 5
	BatchSize         int     // 0: the verifier's preference
	Workers           int     // concurrent Verify calls; default 1
	AbstainBelow      float64 // abstain when the calibrated confidence is below
	MinRetrievalScore float64 // abstain when the best uncited passage scores below
	Calibrate         string  // auto, off or fixed
	Temperature       float64 // for fixed
	ECEThreshold      float64 // default 0.10
	Seed              uint64  // calibration folds
	Resume            bool    // reuse verdicts cached in OutDir/.cache
	MaxErrorRate      float64 // adjudication errors above this share of claims fail the run; default 0.01
	ToolVersion       string
	Gates             []reports.Gate // --fail-on: checked on the whole run, calibrated stage

	Progress func(done, total int)
}

// Result summarises a run.
type Result struct {
	RunID       string
	Records     int
	Errors      int
	Abstained   int
	Calibration metrics.CalibrationResult
	Temperature float64
	Outcomes    []metrics.Outcome
	Elapsed     map[string]time.Duration
	Tables      *reports.Tables
}

// ErrTooManyErrors fails a run whose adjudication errors exceed the bound;
// the records are written all the same, each saying why.
var ErrTooManyErrors = errors.New("too many claims could not be adjudicated")

// spooled is what a claim carries from verification to the final record.
type spooled struct {
	Claim     claims.Claim         `json:"claim"`
	Passages  []adjudicate.Passage `json:"passages"`
	Verdict   adjudicate.Verdict   `json:"verdict"`
	Err       string               `json:"err,omitempty"`
	LatencyMS float64              `json:"latency_ms"`
}

// Run audits the claims: every input claim gives exactly one record.
func Run(ctx context.Context, o Options) (*Result, error) {
	o.defaults()
	res := &Result{Elapsed: map[string]time.Duration{}}
	t0 := time.Now()

	// 1. Inputs: claims and gold first (cheap), then the corpus and index.
	cv := claims.NewValidator(false)
	if err := cv.ReadFile(ctx, "claims", o.ClaimsPath); err != nil {
		return nil, err
	}
	if o.GoldPath != "" {
		if err := cv.ReadFile(ctx, "gold", o.GoldPath); err != nil {
			return nil, err
		}
	}
	if err := cv.Errors().Err(); err != nil {
		return nil, err
	}
	total, _ := cv.Counts()
	gold := cv.Gold()
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, err
	}
	// A run killed part way leaves its spool behind; it is never reused.
	if stale, _ := filepath.Glob(filepath.Join(o.OutDir, ".spool-*.jsonl")); len(stale) > 0 {
		for _, f := range stale {
			os.Remove(f)
		}
	}
	ens, err := corpus.EnsureIndex(ctx, corpus.EnsureRequest{Dir: o.IndexDir, CorpusPath: o.CorpusPath, SpansPath: o.SpansPath})
	if err != nil {
		return nil, err
	}
	ix, err := corpus.OpenIndex(o.IndexDir)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	v, err := o.NewVerifier(ix)
	if err != nil {
		return nil, err
	}
	if c, ok := v.(io.Closer); ok {
		defer c.Close() // an ONNX session, for one
	}
	inputs := append([]corpus.Input(nil), ens.Manifest.Inputs...)
	for _, in := range []struct{ role, path string }{{"claims", o.ClaimsPath}, {"gold", o.GoldPath}} {
		if in.path == "" {
			continue
		}
		sum, n, err := corpus.HashFile(in.path)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, corpus.Input{Role: in.role, Path: in.path, SHA256: sum, Bytes: n})
	}
	res.RunID = runID(inputs, o, v)
	res.Elapsed["validate_and_index"] = time.Since(t0)

	if o.Resume {
		if err := os.MkdirAll(filepath.Join(o.OutDir, ".cache"), 0o755); err != nil {
			return nil, err
		}
		c, err := OpenCache(filepath.Join(o.OutDir, ".cache", "verdicts.db"))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		v = WithCache(v, c)
	}

	// 2. Retrieve and verify, streaming; spool what each claim needs.
	t1 := time.Now()
	spool, err := os.CreateTemp(o.OutDir, ".spool-*.jsonl")
	if err != nil {
		return nil, err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	sw := bufio.NewWriter(spool)
	enc := json.NewEncoder(sw)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pairs := make(chan adjudicate.Pair, 256)
	byIndex := make(chan claims.Claim, 512) // the claims, in order, for the emitter
	readErr := make(chan error, 1)
	go func() { readErr <- o.feed(ctx, ix, gold, pairs, byIndex) }()
	done := 0
	err = adjudicate.Schedule(ctx, v, pairs, adjudicate.SchedulerOptions{BatchSize: o.BatchSize, Workers: o.Workers},
		func(r adjudicate.Result) error {
			c := <-byIndex
			s := spooled{Claim: c, Passages: r.Pair.Passages, Verdict: r.Verdict, LatencyMS: float64(r.Latency.Microseconds()) / 1000}
			res.Elapsed["verify_busy"] += r.Latency
			if r.Err != nil {
				s.Err = r.Err.Error()
				res.Errors++
			}
			done++
			if o.Progress != nil {
				o.Progress(done, total)
			}
			return enc.Encode(s)
		})
	if err != nil {
		cancel() // stop the feeder: nobody reads its channels any more
	}
	if rerr := <-readErr; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = rerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if done != total {
		return nil, fmt.Errorf("internal: %d of %d claims adjudicated", done, total)
	}
	if err := sw.Flush(); err != nil {
		return nil, err
	}
	res.Elapsed["retrieve_and_verify"] = time.Since(t1)

	// 3. Calibrate on preliminary outcomes (decided at T = 1).
	t2 := time.Now()
	prelim, err := o.outcomes(spool, 1)
	if err != nil {
		return nil, err
	}
	switch o.Calibrate {
	case CalibrateOff:
		res.Temperature = 1
		res.Calibration = metrics.CalibrationResult{Temperature: 1, Before: metrics.Calibration(prelim, 1)}
		res.Calibration.After = res.Calibration.Before
	case CalibrateFixed:
		res.Temperature = o.Temperature
		res.Calibration = metrics.CalibrationResult{Applied: true, Temperature: o.Temperature,
			Before: metrics.Calibration(prelim, 1), After: metrics.Calibration(prelim, o.Temperature)}
	default:
		res.Calibration = metrics.Calibrate(prelim, metrics.CalibrateOptions{Threshold: o.ECEThreshold, Seed: o.Seed})
		res.Temperature = res.Calibration.Temperature
	}
	res.Elapsed["calibrate"] = time.Since(t2)

	// 4. Decide and write the records.
	t3 := time.Now()
	w, err := reports.NewParquetWriter[reports.Record](filepath.Join(o.OutDir, "records.parquet"), reports.Meta{RunID: res.RunID, ToolVersion: o.ToolVersion})
	if err != nil {
		return nil, err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		w.Abort()
		return nil, err
	}
	dec := json.NewDecoder(bufio.NewReader(spool))
	for {
		var s spooled
		if err := dec.Decode(&s); err == io.EOF {
			break
		} else if err != nil {
			w.Abort()
			return nil, fmt.Errorf("read spool: %w", err)
		}
		rec, out := o.decide(s, res.Temperature, res.RunID, true)
		if rec.Abstained {
			res.Abstained++
		}
		res.Outcomes = append(res.Outcomes, out)
		if err := w.Write(rec); err != nil {
			w.Abort()
			return nil, err
		}
		res.Records++
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	res.Elapsed["decide_and_write"] = time.Since(t3)

	// 5. Every report file, from the same outcomes.
	t4 := time.Now()
	// TODO(lead): cross-fit. Interim: every record carries the one applied T;
	// the report states the cross-fit (recomputed by `audit report`).
	temps := make([]float64, len(res.Outcomes))
	for i := range temps {
		temps[i] = res.Temperature
	}
	res.Tables, err = reports.Compute(reports.Input{RunID: res.RunID, ToolVersion: o.ToolVersion, Outcomes: res.Outcomes,
		Temperatures: temps, CrossFit: metrics.CrossFit(res.Outcomes, metrics.CrossFitOptions{Seed: o.Seed}), Seed: o.Seed, Manifest: o.manifest(inputs, res, v)})
	if err != nil {
		return nil, err
	}
	res.Tables.Summary.Gates = reports.Check(o.Gates, &res.Tables.Summary) // TODO(lead): cross-fit (Check takes the summary)
	if err := res.Tables.Write(o.OutDir); err != nil {
		return nil, err
	}
	res.Elapsed["reports"] = time.Since(t4)
	if res.Records > 0 && float64(res.Errors) > o.MaxErrorRate*float64(res.Records) {
		return res, fmt.Errorf("%w: %d of %d (bound %.1f%%); see the error column of records.parquet",
			ErrTooManyErrors, res.Errors, res.Records, 100*o.MaxErrorRate)
	}
	return res, nil
}

func (o *Options) defaults() {
	if o.IndexDir == "" {
		o.IndexDir = filepath.Join(o.OutDir, "index")
	}
	if o.K <= 0 {
		o.K = 5
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.Calibrate == "" {
		o.Calibrate = CalibrateAuto
	}
	if o.ECEThreshold == 0 {
		o.ECEThreshold = 0.10
	}
	if o.MaxErrorRate == 0 {
		o.MaxErrorRate = 0.01
	}
}

// feed streams claims, retrieves their passages in parallel chunks (keeping
// order) and sends the pairs to the scheduler and the claims to the emitter.
func (o *Options) feed(ctx context.Context, ix *corpus.Index, gold map[string]claims.Label, pairs chan<- adjudicate.Pair, byIndex chan<- claims.Claim) error {
	defer close(pairs)
	r := Retriever{Index: ix, K: o.K}
	var chunk []claims.Claim
	flush := func() error {
		ps, err := r.Pairs(ctx, chunk, 0)
		if err != nil {
			return err
		}
		for i, p := range ps {
			select {
			case byIndex <- chunk[i]:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case pairs <- p:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		chunk = chunk[:0]
		return nil
	}
	err := claims.Scan(ctx, o.ClaimsPath, gold, func(c claims.Claim) error {
		chunk = append(chunk, c)
		if len(chunk) == 64 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return err
}

func classOf(l claims.Label) metrics.Class {
	switch l {
	case claims.Supported:
		return metrics.Supported
	case claims.Unsupported:
		return metrics.Unsupported
	case claims.Insufficient:
		return metrics.Insufficient
	}
	return metrics.Unknown
}

// outcomes reads the spool and decides at temperature t.
func (o *Options) outcomes(spool *os.File, t float64) ([]metrics.Outcome, error) {
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var outs []metrics.Outcome
	dec := json.NewDecoder(bufio.NewReader(spool))
	for {
		var s spooled
		if err := dec.Decode(&s); err == io.EOF {
			return outs, nil
		} else if err != nil {
			return nil, fmt.Errorf("read spool: %w", err)
		}
		_, out := o.decide(s, t, "", false)
		outs = append(outs, out)
	}
}

// decide turns a verified claim into its record and metrics outcome;
// full=false skips what only the record needs (the numeric fact check).
func (o *Options) decide(s spooled, t float64, runID string, full bool) (reports.Record, metrics.Outcome) {
	c := s.Claim
	rec := reports.Record{ClaimID: c.ID, SourceID: c.SourceID, Text: c.Text, ClaimType: c.Type, Importance: c.Importance,
		Temperature: t, Rationale: s.Verdict.Rationale, LatencyMS: s.LatencyMS, Verifier: o.VerifierName, RunID: runID}
	out := metrics.Outcome{Gold: classOf(c.Label), Type: c.Type, Source: c.SourceID, Importance: c.Importance, LatencyMS: s.LatencyMS}
	if c.Label != "" {
		rec.GoldLabel = ptr(string(c.Label))
	}
	for _, p := range s.Passages {
		e := reports.Evidence{DocID: p.DocID, Start: int64(p.Start), End: int64(p.End), Score: p.Score}
		if p.SpanID != "" {
			e.SpanID = ptr(p.SpanID)
		}
		rec.Evidence = append(rec.Evidence, e)
	}
	reason := ""
	switch {
	case s.Err != "":
		reason = ReasonError
		rec.Error = ptr(s.Err)
		rec.Rationale = "adjudication failed: " + s.Err
	case len(s.Passages) == 0:
		reason = ReasonNoEvidence
	case !s.Passages[0].Cited && s.Passages[0].Score < o.MinRetrievalScore:
		reason = ReasonWeakRetrieval
	}
	if s.Err == "" {
		z := s.Verdict.Logits
		out.Scored, out.Logits = true, z
		raw := metrics.Softmax(z, 1)
		p := metrics.Softmax(z, t)
		rec.LogitSupported, rec.LogitUnsupp, rec.LogitInsuff = ptr(z[0]), ptr(z[1]), ptr(z[2])
		rec.RawPSupported, rec.RawPUnsupp, rec.RawPInsuff = ptr(raw[0]), ptr(raw[1]), ptr(raw[2])
		rec.PSupported, rec.PUnsupported, rec.PInsufficient = ptr(p[0]), ptr(p[1]), ptr(p[2])
		pred := metrics.Argmax(p)
		rec.Confidence = ptr(p[pred])
		if reason == "" && p[pred] < o.AbstainBelow {
			reason = ReasonLowConfidence
		}
		out.Predicted = pred
	}
	if reason != "" {
		rec.Abstained, out.Abstained = true, true
		rec.AbstainReason = ptr(reason)
	} else {
		rec.PredictedLabel = ptr(metrics.ClassNames[out.Predicted])
		if out.Gold != metrics.Unknown {
			rec.Correct = ptr(out.Predicted == out.Gold)
			rec.Tier1FA = out.Predicted == metrics.Supported && out.Gold != metrics.Supported
			rec.Tier2FA = out.Predicted != metrics.Unsupported && out.Gold == metrics.Unsupported
		}
	}
	out = reports.OutcomeOf(rec) // the one mapping `audit report` uses too
	rec.Action = action(out, rec.Confidence)
	rec.Verdict = metrics.VerdictOf(out, t)
	if full && (c.Type == "numeric" || len(claims.FindNumbers(c.Text)) > 0) {
		var facts []claims.Fact
		for _, p := range s.Passages {
			facts = append(facts, claims.FactsFromText(p.ID, p.Text)...)
		}
		nc := claims.VerifyNumeric(c.Text, facts, claims.MatchOptions{})
		rec.NumericCheck, rec.NumericPolicy = ptr(nc.Status), ptr(nc.Policy)
	}
	return rec, out
}

// action is seed 004's decide_action for a post-hoc audit, where no
// branches have been tried: supported → CONTINUE; unsupported with
// confidence >= 0.7 → BRANCH (halt and regenerate), below → CONTINUE;
// insufficient → BRANCH (look for better evidence); no decision → ABSTAIN.
func action(o metrics.Outcome, conf *float64) string {
	switch {
	case o.Abstained:
		return "ABSTAIN"
	case o.Predicted == metrics.Unsupported && conf != nil && *conf >= 0.7:
		return "BRANCH"
	case o.Predicted == metrics.Insufficient:
		return "BRANCH"
	}
	return "CONTINUE"
}

// manifest is the audit trail of a run (seed 002 §9): inputs and their
// hashes, settings, versions, counts and per-stage timings.
func (o *Options) manifest(inputs []corpus.Input, res *Result, v adjudicate.Verifier) map[string]any {
	files := []map[string]any{}
	for _, in := range inputs {
		files = append(files, map[string]any{"role": in.Role, "path": in.Path, "sha256": in.SHA256, "bytes": in.Bytes})
	}
	version := o.VerifierName
	if vv, ok := v.(adjudicate.Versioner); ok {
		version = vv.Version()
	}
	timings := map[string]float64{}
	for k, d := range res.Elapsed {
		timings[k] = d.Seconds()
	}
	return map[string]any{
		"inputs": files,
		"settings": map[string]any{"k": o.K, "batch_size": o.BatchSize, "workers": o.Workers, "abstain_below": o.AbstainBelow,
			"min_retrieval_score": o.MinRetrievalScore, "calibrate": o.Calibrate, "temperature": res.Temperature,
			"ece_threshold": o.ECEThreshold, "seed": o.Seed, "resume": o.Resume, "index": o.IndexDir},
		"verifier":        map[string]any{"name": o.VerifierName, "version": version},
		"counts":          map[string]any{"claims": res.Records, "abstained": res.Abstained, "errors": res.Errors},
		"timings_seconds": timings,
	}
}

// runID is a hash of the inputs (corpus, spans, claims, gold), settings and verifier: the same
// configuration gives the same id, so records are comparable byte for byte.
func runID(inputs []corpus.Input, o Options, v adjudicate.Verifier) string {
	h := sha256.New()
	for _, in := range inputs {
		fmt.Fprintf(h, "%s=%s\n", in.Role, in.SHA256)
	}
	version := o.VerifierName
	if vv, ok := v.(adjudicate.Versioner); ok {
		version = vv.Version()
	}
	fmt.Fprintf(h, "%s k=%d abstain=%v minscore=%v cal=%s T=%v ece=%v seed=%d\n", version, o.K, o.AbstainBelow,
		o.MinRetrievalScore, o.Calibrate, o.Temperature, o.ECEThreshold, o.Seed)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func ptr[T any](v T) *T { return &v }
