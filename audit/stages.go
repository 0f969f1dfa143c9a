package audit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
)

// verified is what a claim carries from verification to its record.
type verified struct {
	Claim     claims.Claim         `json:"claim"`
	Index     int                  `json:"index"` // the claim's position in the claims file
	Passages  []adjudicate.Passage `json:"passages"`
	Verdict   adjudicate.Verdict   `json:"verdict"`
	Err       string               `json:"err,omitempty"`
	LatencyMS float64              `json:"latency_ms"`
	// GoldEvidence are the ids the gold file names as the claim's evidence.
	GoldEvidence []string `json:"gold_evidence,omitempty"`
	// Fallback is the fallback verifier's verdict of a claim whose logits
	// were unusable (the fallback rule); nil otherwise.
	Fallback *adjudicate.Verdict `json:"fallback,omitempty"`
	// EvidenceFlags say how the claim's evidence scope shaped its
	// passages (FlagUncited, FlagCorpusFallback), for the record's flags.
	EvidenceFlags []string `json:"evidence_flags,omitempty"`
}

// retrieveAndVerify streams the claims through retrieval and the batch
// scheduler into a spool, in input order; each claim travels with its
// pair through the scheduler.
func (o *Options) retrieveAndVerify(ctx context.Context, in *inputs, ix *index, v adjudicate.Verifier, res *Result) (*spool, error) {
	fb, err := o.fallbackVerifier(ix)
	if err != nil {
		return nil, err
	}
	if fb != nil && o.docTexts != nil {
		fb = newChunkwise(fb, "fallback") // judged chunk by chunk, as the verifier judged
	}
	defer func() { closeIfCloser(fb) }()
	sp, err := newSpool(o.WriteDir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The queues are sized from the scheduler's batch and workers: a full
	// batch ready for every worker, and as many claims again in retrieval.
	sched := adjudicate.SchedulerOptions{BatchSize: o.BatchSize, Workers: o.Workers, Timeout: o.VerifyTimeout}.Resolve(v)
	o.BatchSize, o.Workers = sched.BatchSize, sched.Workers // the manifest names the numbers the run had
	jobs := make(chan adjudicate.Job[item], sched.Ahead())
	readErr := make(chan error, 1)
	go func() { readErr <- o.feed(ctx, ix, in.gold, jobs, sched.Ahead()) }()
	done := 0
	err = adjudicate.Schedule(ctx, v, jobs, sched,
		func(r adjudicate.Result[item]) error {
			s := verified{Claim: r.Item.claim, Index: r.Item.index, Passages: r.Pair.Passages, Verdict: r.Verdict,
				LatencyMS: float64(r.Latency.Microseconds()) / 1000, GoldEvidence: in.gold.Evidence(r.Item.claim.ID),
				EvidenceFlags: r.Item.flags}
			res.Timings.VerifyBusy += reports.Seconds(r.Latency)
			if r.Err == nil {
				r.Err = checkProbabilities(r.Verdict.Logits)
			}
			if r.Err != nil && invalidLogits(r.Err) {
				s.Fallback = o.refallback(ctx, fb, r.Pair)
			}
			s.Verdict.Rationale = o.red.Redact(s.Verdict.Rationale)
			if errors.Is(r.Err, adjudicate.ErrVerifyTimeout) {
				o.timedOut(&s, r.Err, res)
			} else if r.Err != nil {
				s.Err = o.red.Redact(r.Err.Error())
				s.Verdict = adjudicate.Verdict{Passage: -1}
				res.Errors++
			}
			if !o.Shard.Sharded() {
				sp.prelim = append(sp.prelim, metrics.ScoreOf(o.prelimOutcome(s), o.Folds, o.Seed))
			}
			done++
			o.Log.Debug("verified", "claim", r.Item.claim.ID, "passages", len(r.Pair.Passages), "batch_tries", r.Tries,
				"latency_ms", s.LatencyMS, "logits", r.Verdict.Logits, "err", s.Err)
			if o.Progress != nil {
				o.Progress(done, in.total)
			}
			return sp.add(s)
		})
	if err != nil {
		cancel() // stop the feeder: nobody reads its channel any more
	}
	if rerr := <-readErr; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = rerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && done != in.total {
		err = fmt.Errorf("internal: %d of %d claims adjudicated", done, in.total)
	}
	if err != nil {
		sp.remove()
		return nil, err
	}
	if cw, ok := v.(*chunkwise); ok {
		v = cw.Verifier
	}
	if c, ok := v.(interface{ Hits() int }); ok {
		res.CacheHits = c.Hits()
		o.Log.Info("verdict cache", "reused", res.CacheHits, "verified", in.total-res.CacheHits)
	}
	return sp, nil
}

// calibration is what the calibrate stage decided: the temperature of
// each claim (in spool order; nil means 1 for all) and the fit behind it.
type calibration struct {
	temps  []float64
	result metrics.CalibrationResult
}

// temp is claim i's temperature.
func (c calibration) temp(i int) float64 {
	if c.temps == nil {
		return 1
	}
	return c.temps[i]
}

// calibrate cross-fits a temperature on the labelled claims (decided at
// T = 1) whatever the mode, so every run reports what a fit would give.
// auto applies it out of sample — each labelled claim gets the T fitted on
// the other folds, claims without gold the full-data T — when the raw
// 10-bin ECE exceeds the threshold; fixed applies one given T to every
// claim; off applies none.
//
// A shard of a run fits nothing: its claims are decided at T = 1 and
// `audit report` calibrates the union of the shards (MergeShards).
func (o *Options) calibrate(sp *spool) (calibration, error) {
	if o.Shard.Sharded() {
		o.Log.Info("calibration deferred to audit report over all shards", "shard", o.Shard.String())
		return calibration{result: metrics.CalibrationResult{Temperature: 1}}, nil
	}
	prelim := sp.prelim
	sp.prelim = nil
	if l, k, n, deg := degenerateVerifier(prelim); deg {
		o.degenerate = DegenerateWarning(l, k, n, o.AllowDegenerateVerifier) // summary.json's warnings, and stderr's
	}
	if deg, u, n := degenerateUnsupported(prelim); deg {
		o.branchAt = BranchThresholdDegenerate
		o.Log.Warn("the verifier is degenerate-unsupported: BRANCH now needs confidence >= 0.9 (the verifier failure-mode rule, docs/rules.md)",
			"unsupported", u, "answered", n)
	}
	c := o.calibrateScores(prelim)
	switch cf := c.result.CrossFit; {
	case !cf.Fitted:
		o.Log.Info("no temperature fitted", "why", cf.Reason)
	case cf.FullAtBound:
		o.Log.Warn("the fitted temperature sits on its bound: the fit says more about the data than about calibration", "temperature", cf.Full)
	default:
		o.Log.Info("temperature fitted", "full", cf.Full, "applied", c.result.Applied, "labelled", cf.Labelled, "folds", cf.K)
	}
	return c, nil
}

// prelimOutcome is a claim's outcome decided at T = 1, for the calibrate
// stage's row (metrics.ScoreOf keeps the ids, gold, decisions and logits);
// the evidence ranks, which it does not read, are not computed.
func (o *Options) prelimOutcome(v verified) metrics.Outcome {
	v.GoldEvidence = nil
	return o.decide(v, 1).outcome(v)
}

// calibrateScores is calibrate's rule on the outcomes decided at T = 1
// (their metrics.Score): a whole run's, or the union of its shards'
// (MergeShards).
func (o *Options) calibrateScores(prelim []metrics.Score) calibration {
	c := calibration{result: metrics.CalibrateScores(prelim, metrics.CalibrateOptions{Threshold: o.ECEThreshold,
		Folds: o.Folds, Seed: o.Seed, Min: o.MinCalibration})}
	cf := c.result.CrossFit
	switch o.Calibrate {
	case CalibrateOff:
		c.result = metrics.CalibrationResult{Temperature: 1, Before: c.result.Before, After: c.result.Before, CrossFit: cf}
	case CalibrateFixed:
		c.temps = make([]float64, len(prelim))
		for i := range c.temps {
			c.temps[i] = o.Temperature
		}
		c.result = metrics.CalibrationResult{Applied: true, Temperature: o.Temperature, Before: c.result.Before,
			After: metrics.CalibrationOfScores(prelim, o.Temperature), CrossFit: cf}
	default:
		if c.result.Applied {
			c.temps = cf.PerOutcome
		}
	}
	return c
}

// writeRecords decides every claim at its temperature and writes
// records.parquet; the metrics outcomes come from the same decisions.
// afterDecision adds what the claim's evidence scope did to the decision's
// flags and infers an undeclared type — after the decision, which reads the
// claim as given — for the slices and the record; it says whether it did.
func afterDecision(v *verified, d *decision) bool {
	if len(v.EvidenceFlags) > 0 {
		d.flags = append(append([]string(nil), d.flags...), v.EvidenceFlags...)
	}
	inferred := v.Claim.Type == ""
	if inferred {
		v.Claim.Type = extract.InferType(&v.Claim)
	}
	return inferred
}

func (o *Options) writeRecords(ctx context.Context, sp *spool, cal calibration, res *Result, total int) ([]metrics.Outcome, error) {
	w, err := reports.NewParquetWriter[reports.Record](filepath.Join(o.WriteDir, "records.parquet"), reports.Meta{RunID: res.RunID, ToolVersion: o.ToolVersion, Instance: o.Instance})
	if err != nil {
		return nil, err
	}
	outSpool, err := newOutcomeSpool(o.WriteDir)
	if err != nil {
		w.Abort()
		return nil, err
	}
	defer outSpool.remove()
	fc := newFactCache(factCachePassages)
	docs, err := o.readDocs(ctx)
	if err != nil {
		w.Abort()
		return nil, err
	}
	tags, err := o.readSpanTags(ctx)
	if err != nil {
		w.Abort()
		return nil, err
	}
	picker := reports.NewErrorPicker(reports.ReportErrors)
	err = sp.each(func(i int, v verified) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := o.withWeakRetrieval(o.withRules(v, o.withNumeric(v, o.decide(v, cal.temp(i)), fc), fc, docs))
		inferred := afterDecision(&v, &d)
		if d.fallback {
			res.Errors-- // decided by the fallback verifier: no longer an error
			res.Fallbacks++
		}
		if d.reason != "" {
			res.Abstained++
		}
		out := d.outcome(v)
		// The reports read only the --slice-by part of the metadata, and
		// never an outcome's id (cross-fitting, which does, ran on the
		// calibrate stage's outcomes).
		out.Meta = sliceMeta(out.Meta, o.SliceBy)
		out.ID = ""
		rec := o.record(v, d, out, res.RunID)
		rec.ClaimTypeInferred = inferred
		rec.EvidenceTags = tags.of(rec.EvidenceUsed)
		out.Tags = metrics.TagsName(rec.EvidenceTags) // as reports.OutcomeOf reads them back
		if err := outSpool.add(&out); err != nil {
			return err
		}
		res.Records++
		if o.DecideProgress != nil && (res.Records%1024 == 0 || res.Records == total) {
			o.DecideProgress(res.Records, total)
		}
		res.usage.Add(&rec)
		picker.Add(rec)
		o.addToLedger(res, v.Claim, rec)
		return w.Write(rec)
	})
	if err != nil {
		w.Abort()
		return nil, err
	}
	res.errors = picker.Records()
	if err := w.Close(); err != nil {
		return nil, err
	}
	// The writer's row-group buffers and the fact cache are garbage now;
	// collecting them here (and giving their pages back) before the
	// outcomes are read back starts the reports, the other stage with a
	// value per claim, from the live heap rather than from this stage's
	// high-water mark.
	debug.FreeOSMemory()
	return outSpool.load(ctx)
}

// sliceMeta is the part of a claim's metadata the reports read: the
// values of the --slice-by keys (nil without any). The records carry the
// whole of it; an outcome, which lives until the reports are written,
// need not (its strings are held once when the outcomes are read back).
func sliceMeta(meta map[string]string, keys []string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := meta[k]; ok {
			if out == nil {
				out = make(map[string]string, len(keys))
			}
			out[k] = v
		}
	}
	return out
}

// writeReports computes every report file from the run's outcomes and
// writes them, with the manifest.
// A signal during the (CPU-bound) computation is answered at once: the
// computation is abandoned and nothing is written.
func (o *Options) writeReports(ctx context.Context, in *inputs, ix *index, verifierVersion string, res *Result) (*reports.Tables, error) {
	defer heapLimit()()
	input := reports.Input{RunID: res.RunID, ToolVersion: o.ToolVersion, Outcomes: res.Outcomes,
		Temperatures: res.Temperatures, CrossFit: res.Calibration.CrossFit, Seed: o.Seed, MaxSourceSlices: o.SourceSlices, SliceBy: o.SliceBy, PlotFormats: o.PlotFormats, Errors: res.errors, Manifest: o.manifest(in, ix, verifierVersion, res),
		Warnings: append(append(goldWarnings(in, o.GoldPath), fallbackWarnings(res, o.Rules.FallbackName)...), o.fallbackNotes(res)...), Instance: o.Instance, Progress: o.ReportsProgress}
	t, err := ComputeReports(ctx, input)
	if err != nil {
		return nil, err
	}
	if o.Outputs != nil {
		rows, values := o.decideOutputs(res)
		t.SetOutputDecisions(rows, values)
	}
	t.Summary.Usage = reports.NewUsageSummary(res.usage, o.extractorUsage(), o.Prices)
	t.Summary.Gates = reports.Check(o.Gates, t)
	return t, t.Write(o.WriteDir)
}

// extractorUsage is what an LLM extractor spent on the run's outputs; nil
// for the rules (or no extraction).
func (o *Options) extractorUsage() *reports.Usage {
	u, ok := o.Extract.Source.(interface{ Usage() adjudicate.Usage })
	if !ok || o.Outputs == nil {
		return nil
	}
	x := u.Usage()
	return &reports.Usage{TokensIn: int64(x.PromptTokens), TokensOut: int64(x.CompletionTokens), Calls: int64(x.Calls), Retries: int64(x.Retries)}
}

// ComputeReports is reports.Compute that returns when ctx is done (the
// abandoned computation finishes in the background and is dropped).
func ComputeReports(ctx context.Context, in reports.Input) (*reports.Tables, error) {
	type result struct {
		t   *reports.Tables
		err error
	}
	done := make(chan result, 1)
	go func() {
		t, err := reports.Compute(in)
		done <- result{t, err}
	}()
	select {
	case r := <-done:
		if r.err == nil {
			r.err = ctx.Err()
		}
		return r.t, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// checkProbabilities refuses logits whose probabilities are not finite at
// any temperature the run may use (finite logits near ±MaxFloat64 overflow
// once divided by a temperature below 1): such a verdict is a per-claim
// error, never a NaN in the metrics.
func checkProbabilities(z [3]float64) error {
	for _, t := range []float64{1, metrics.MinTemperature, metrics.MaxTemperature} {
		for _, p := range metrics.Softmax(z, t) {
			if math.IsNaN(p) || math.IsInf(p, 0) {
				return &nonFiniteError{z: z, t: t}
			}
		}
	}
	return nil
}

// nonFiniteError is checkProbabilities' error: logits whose probabilities
// are not finite at a temperature the run may use.
type nonFiniteError struct {
	z [3]float64
	t float64
}

func (e *nonFiniteError) Error() string {
	return fmt.Sprintf("verifier logits %v give probabilities that are not finite at temperature %v", e.z, e.t)
}

// fallbackVerifier makes the fallback rule's verifier; nil when the rule
// is off or no fallback is configured.
func (o *Options) fallbackVerifier(ix *index) (adjudicate.Verifier, error) {
	if !o.Rules.on("fallback") || o.Rules.NewFallback == nil {
		return nil, nil
	}
	fb, err := o.Rules.NewFallback(ix.Index)
	if err != nil {
		return nil, fmt.Errorf("fallback verifier: %w", err)
	}
	return fb, nil
}

// fallbackWarnings says how many claims the fallback verifier decided: never
// silent (summary.json's warnings, stderr; rule_fallback_count gates them).
func fallbackWarnings(res *Result, name string) []string {
	if res.Fallbacks == 0 {
		return nil
	}
	return []string{FallbackWarning(res.Fallbacks, name)}
}

// FallbackWarning is the line that says n claims were decided by the
// fallback verifier.
func FallbackWarning(n int, name string) string {
	return fmt.Sprintf("%d claims had an invalid verifier answer and were decided by the fallback verifier (%s): their records say verifier=%s and flag fallback; gate with --fail-on 'rule_fallback_count>0'", n, name, name)
}

// goldWarnings says what of the gold file the run left out: labels for
// claims not in the claims file (a sample's run with the full gold file).
func goldWarnings(in *inputs, goldPath string) []string {
	if in.ignoredGold == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: %d gold labels name claims not in this run and were ignored (--strict-gold makes them an error)",
		goldPath, in.ignoredGold)}
}
