package audit

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/rules"
)

// Calibration modes.
const (
	CalibrateAuto  = "auto"  // fit T and apply it when the raw 10-bin ECE exceeds the threshold
	CalibrateOff   = "off"   // T = 1
	CalibrateFixed = "fixed" // T = Options.Temperature
)

// Options configure Run.
type Options struct {
	// glossary is the corpus's definitions (corpus.ReadGlossary), read by
	// Run before retrieval.
	glossary *corpus.Glossary

	CorpusPath, SpansPath, ClaimsPath, GoldPath string
	OutDir                                      string
	// red redacts the verifier's secrets from every string the run writes
	// (set once the verifier is made).
	red adjudicate.Redactor
	// WriteDir is where the run's files are written: the staging folder
	// of OutDir that the caller commits (package outdir). Default OutDir.
	WriteDir string
	IndexDir string // default OutDir/index
	// Passages are the passage settings the index must have; zero fields
	// take the existing index's (or the defaults for a new index).
	Passages corpus.PassageSettings

	// NewVerifier makes the verifier once the index is open (backends may
	// use its statistics); VerifierName names it in records.
	NewVerifier  func(stats adjudicate.CorpusStats) (adjudicate.Verifier, error)
	VerifierName string

	// Evidence is the run's evidence scope (claims.EvidenceScopes; empty:
	// corpus): under cited and cited-or-corpus a claim is judged against
	// the spans and whole documents it cites only, chunk by chunk
	// (adjudicate.MaxSupport). A claim's evidence field overrides it.
	Evidence string
	// VerifierQuery is whether the user's query (the outputs file's
	// query) reaches the verifier with each claim of its output
	// (adjudicate.QueryModes; "" is auto: an LLM judge reads it, a pair
	// model not). queryUsed is what it came to for the run's verifier.
	VerifierQuery string
	queryUsed     bool
	// docTexts are the corpus's documents by id (read when some claim is
	// judged against its citations); chunking sizes their chunks for a
	// claim (the verifier's window).
	docTexts map[string]string
	chunking func(claim string) corpus.ChunkOptions
	// scopedClaims is set by validation when a claim's own evidence field
	// asks for a cited scope; citedIDs are the ids the claims judged
	// against their citations cite (the documents read whole).
	scopedClaims bool
	citedIDs     map[string]bool

	K                 int     // passages per claim; default 5
	BatchSize         int     // 0: the verifier's preference (the run writes back the number it used)
	Workers           int     // concurrent Verify calls; 0: the verifier's preference, else 1 (written back)
	AbstainBelow      float64 // abstain when the calibrated confidence is below
	MinRetrievalScore float64 // abstain when the best uncited passage scores below
	Calibrate         string  // auto, off or fixed
	Temperature       float64 // for fixed
	TemperatureFrom   string  // where a fixed T came from (a previous run's folder), for the manifest
	ECEThreshold      float64 // default 0.10
	Seed              uint64  // calibration folds
	SourceSlices      int     // reports: sources with their own slice (0: metrics.DefaultMaxSourceSlices, -1: all)
	Folds             int     // cross-fitting folds; default metrics.DefaultFolds
	MinCalibration    int     // fewest labelled claims to fit a temperature on; default metrics.DefaultMinCalibration
	Resume            bool    // reuse verdicts cached in OutDir/.cache
	// StrictGold makes a gold line naming a claim not in the claims file
	// an error; otherwise such lines are ignored and counted
	// (Result.IgnoredGold, and a warning): a run over a sample of the
	// claims with the full gold file.
	StrictGold bool
	// Shard, when it splits the run (Count > 1), audits only the claims
	// claims.ShardOf assigns it: their records are decided at T = 1 and
	// no reports are written; `audit report` over every shard's records
	// calibrates and reports the union (MergeShards). The run id is the
	// whole run's, whichever shard.
	Shard        Shard
	MaxErrorRate float64 // adjudication errors above this share of claims fail the run; default 0.01

	// WeakRetrieval is what a claim whose best uncited passage scores
	// under MinRetrievalScore gets: WeakRetrievalAbstain ("" too) or
	// WeakRetrievalInsufficient (decided insufficient).
	WeakRetrieval string
	// VerifyTimeout bounds one verification call (0: none): the claims of
	// a slower call, and with Outputs every claim of their outputs, are
	// skipped (abstain reason verify_timeout) and logged.
	VerifyTimeout time.Duration
	// AllowDegenerateVerifier keeps a run whose verifier is degenerate
	// (degenerateVerifier) from failing with ErrDegenerateVerifier; the
	// warning stands.
	AllowDegenerateVerifier bool
	// timedOutOutputs are the outputs a verification call timed out on;
	// degenerate is the degenerate-verifier warning ("" when it is not).
	timedOutOutputs map[string]bool
	degenerate      string

	// NumericPolicy decides whether a retrieved passage's number agrees
	// with a claim's (lint.MatchOptions.Policy): default auto.
	NumericPolicy string
	// NumericEffect is how the numeric check bears on the label: none,
	// flag (default) or override (lint.DecideNumeric).
	NumericEffect lint.NumericEffect
	// Rules is the decision-rule layer (package rules); the zero value
	// applies none.
	Rules RuleOptions

	// Outputs, when set, are the model outputs the claims were extracted
	// from (a claim's source_id is its output's id), in file order: the
	// run decides each output (outputs.parquet's decision columns) and a
	// claim's action counts its output's attempt as seed 004's branches.
	Outputs     []OutputMeta
	outputsByID map[string]OutputMeta
	// OutputsPath, when set, is a file of model outputs (JSONL, or plain
	// text) whose claims the run extracts (with Extract) into
	// ExtractedClaimsFile of the output folder and audits as ClaimsPath;
	// it sets Outputs.
	OutputsPath string
	Extract     extract.ExtractOptions
	// extractErrors are the outputs extraction failed on, by id.
	extractErrors map[string]string

	ToolVersion string
	// Instance identifies this execution (run_instance, started_at in every
	// file); the zero value draws one when Run starts.
	Instance reports.Instance
	// Now is the clock of the records' decided_at (time.Now when nil).
	Now func() time.Time
	// Prices are what a remote model's tokens cost (--price-input,
	// --price-output): the records' cost and summary.json's usage.
	Prices      reports.Prices
	Gates       []reports.Gate // --fail-on: checked on the whole run, calibrated stage
	SliceBy     []string       // claim metadata keys to slice on (--slice-by meta.KEY)
	PlotFormats []string       // nil: reports.DefaultPlotFormats

	Progress func(done, total int)
	// IndexProgress, when set, is told of the passages indexed when the
	// index is built; ReportsProgress of the metrics computed
	// (reports.Input.Progress).
	IndexProgress, ReportsProgress func(done, total int)
	// DecideProgress, when set, is told of the claims decided and written
	// (the decide_and_write stage: minutes at a million claims).
	DecideProgress func(done, total int)

	// claimSource, when set, holds the claims validation read, which the
	// feed reads instead of parsing the claims file again.
	claimSource *claimSpool

	// branchAt is the BRANCH threshold the calibrate stage chose
	// (BranchThresholdDegenerate for a degenerate-unsupported verifier; 0:
	// BranchThreshold).
	branchAt float64
	// Stage, when set, is told when each stage begins (done false) and
	// ends (done true, with its wall time), for stage lines on a terminal.
	Stage func(name string, done bool, elapsed time.Duration)
	Log   *slog.Logger // default: discard
}

// Result summarises a run.
type Result struct {
	RunID string
	// usage totals the records' remote calls (summary.json's usage).
	usage   reports.Usage
	Records int
	Errors  int
	// Fallbacks counts the claims the fallback verifier decided (their
	// verifier's answer was invalid; only with the fallback rule named).
	Fallbacks int
	// TimedOut counts the claims whose verification call was slower than
	// Options.VerifyTimeout (not counted in Errors).
	TimedOut    int
	Abstained   int
	Calibration metrics.CalibrationResult
	// Temperature is the full-data T when scaling was applied (what claims
	// without gold got, and what a later run reuses), the fixed T, or 1;
	// Temperatures holds each claim's own (nil: 1 for all).
	Temperature  float64
	Temperatures []float64
	// Outcomes are the claims' outcomes the reports were computed from,
	// in claim order, without their ids (the reports read none).
	Outcomes  []metrics.Outcome
	Timings   reports.Timings
	Tables    *reports.Tables // nil for a shard
	CacheHits int             // verdicts reused from the --resume cache
	Instance  reports.Instance
	// IgnoredGold counts gold lines for claims not in this run (ignored
	// unless Options.StrictGold).
	IgnoredGold int

	errors []reports.Record // the misclassified claims report.html shows
	// ledger holds each output's claims as the per-output layer reads
	// them (with Options.Outputs), by output id, in claim order.
	ledger map[string][]LedgerEntry
}

// ErrTooManyErrors fails a run whose adjudication errors exceed the bound;
// the records are written all the same, each saying why.
var ErrTooManyErrors = errors.New("too many claims could not be adjudicated")

// ErrNoClaims is a claims file without a claim (empty, blank lines, a
// byte-order mark only): an input error, never an empty run.
var ErrNoClaims = errors.New("no claims in the file (empty, blank or a byte-order mark only): nothing to audit")

// Run audits the claims: every input claim gives exactly one record. The
// stages run in order, each timed: validate the claims, ensure the index,
// retrieve and verify into a spool, calibrate, decide and write the
// records, compute and write the reports.
//
// Every string the run writes passes one Redactor of the verifier's
// secrets (adjudicate.SecretHolder): records' rationale and error, the
// reports made from them, and the error Run returns.
func Run(ctx context.Context, o Options) (*Result, error) {
	res, err := o.run(ctx)
	return res, o.red.Error(err)
}

func (o *Options) run(ctx context.Context) (*Result, error) {
	o.defaults()
	res := &Result{Instance: o.Instance}
	tm, st := &res.Timings, o.Stage
	if o.OutputsPath != "" {
		if _, err := timed(st, "extract", &tm.Validate, func() (struct{}, error) { return struct{}{}, o.extractOutputs(ctx) }); err != nil {
			return nil, err
		}
		o.defaults() // index the outputs just read
	}
	in, err := timed(st, "validate", &tm.Validate, func() (*inputs, error) { return o.readInputs(ctx) })
	if err != nil {
		return nil, err
	}
	defer in.claims.remove()
	o.claimSource = in.claims
	ix, err := timed(st, "index", &tm.Index, func() (*index, error) { return o.openIndex(ctx) })
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if err := o.warnUnknownEvidence(ctx, in, ix); err != nil {
		return nil, err
	}
	v, err := o.scopedVerifier(ctx, ix)
	if err != nil {
		return nil, err
	}
	defer func() { closeIfCloser(v) }()
	version := versionOf(v, o.VerifierName)
	res.RunID = runID(in, ix, *o, version)
	res.IgnoredGold = in.ignoredGold
	// The corpus's definitions (the definition rule): a claim that
	// restates a defined term through its definition is retrieved and
	// verified with the term — under --rule-effect flag it is only
	// flagged.
	if o.Rules.on(rules.Definition) {
		if o.glossary, err = corpus.ReadGlossary(ctx, o.CorpusPath, o.SpansPath); err != nil {
			return nil, fmt.Errorf("read the corpus's definitions: %w", err)
		}
	}
	sp, err := timed(st, "retrieve_and_verify", &tm.RetrieveAndVerify, func() (*spool, error) { return o.retrieveAndVerify(ctx, in, ix, v, res) })
	if err != nil {
		return nil, err
	}
	defer sp.remove()
	// What only verification needed is let go before the stages that hold
	// a value per claim: the verifier (and its caches; an ONNX session),
	// the gold labels and evidence ids (they travel in the spool), so the
	// run's peak memory is not their sum. Collecting here (and giving the
	// freed pages back) starts calibration from the live heap, not from
	// the verification stage's high-water mark.
	closeIfCloser(v)
	v = nil
	in.gold = nil
	debug.FreeOSMemory()
	cal, err := timed(st, "calibrate", &tm.Calibrate, func() (calibration, error) { return o.calibrate(sp) })
	if err != nil {
		return nil, err
	}
	res.Calibration, res.Temperature, res.Temperatures = cal.result, cal.result.Temperature, cal.temps
	res.Outcomes, err = timed(st, "decide_and_write", &tm.DecideAndWrite, func() ([]metrics.Outcome, error) { return o.writeRecords(ctx, sp, cal, res, in.total) })
	if err != nil {
		return nil, err
	}
	if o.Shard.Sharded() {
		err = reports.WriteManifest(o.WriteDir, reports.Meta{RunID: res.RunID, ToolVersion: o.ToolVersion, Instance: o.Instance}, o.manifest(in, ix, version, res))
	} else {
		res.Tables, err = timed(st, "reports", &tm.Reports, func() (*reports.Tables, error) { return o.writeReports(ctx, in, ix, version, res) })
	}
	if err != nil {
		return nil, err
	}
	return res, o.failed(res)
}

// timed runs a stage, adds its wall time to d and tells report (if set)
// when it begins and when it ends well.
func timed[T any](report func(string, bool, time.Duration), name string, d *reports.Seconds, stage func() (T, error)) (T, error) {
	if report != nil {
		report(name, false, 0)
	}
	t0 := time.Now()
	v, err := stage()
	elapsed := time.Since(t0)
	*d += reports.Seconds(elapsed)
	if report != nil && err == nil {
		report(name, true, elapsed)
	}
	return v, err
}

func (o *Options) defaults() {
	if o.IndexDir == "" {
		o.IndexDir = filepath.Join(o.OutDir, "index")
	}
	if o.WriteDir == "" {
		o.WriteDir = o.OutDir
	}
	if o.K <= 0 {
		o.K = 5
	}
	if o.Calibrate == "" {
		o.Calibrate = CalibrateAuto
	}
	if o.ECEThreshold == 0 {
		o.ECEThreshold = 0.10
	}
	if o.Folds <= 0 {
		o.Folds = metrics.DefaultFolds
	}
	if o.MinCalibration <= 0 {
		o.MinCalibration = metrics.DefaultMinCalibration
	}
	if o.MaxErrorRate == 0 {
		o.MaxErrorRate = 0.01
	}
	if o.NumericPolicy == "" {
		o.NumericPolicy = numeric.PolicyAuto
	}
	if o.NumericEffect == "" {
		o.NumericEffect = lint.EffectRule
	}
	// The rules check numbers as the run does.
	o.Rules.NumericPolicy, o.Rules.NumericEffect = o.NumericPolicy, o.NumericEffect
	if o.Outputs != nil && o.outputsByID == nil {
		o.outputsByID = make(map[string]OutputMeta, len(o.Outputs))
		for _, m := range o.Outputs {
			o.outputsByID[m.ID] = m
		}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Instance.ID == "" {
		o.Instance = reports.NewInstance(time.Now())
	}
	if o.Rules.Today.IsZero() {
		// An undated claim's evidence is aged against the run's date.
		t := time.UnixMilli(o.Instance.Millis()).UTC()
		o.Rules.Today = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
}

// inputs are the validated claims file (and gold) with their hashes.
type inputs struct {
	total int // claims
	// gold are the labels (of --gold and of the claims file) and the gold
	// evidence ids the gold file names, by claim.
	gold *claims.GoldIndex
	// claims are the claims file's claims as validation read them, for
	// the feed (removed once verification is over).
	claims *claimSpool
	files  []corpus.Input // claims and gold, hashed
	// ignoredGold counts gold lines naming claims not in the claims file.
	ignoredGold int
}

// readInputs validates the claims and gold (every defect is reported at
// file:line:col) and hashes them for the run id and manifest.
func (o *Options) readInputs(ctx context.Context) (*inputs, error) {
	cv := claims.NewValidator(false)
	cv.IgnoreUnknownGold = !o.StrictGold
	// The claims are kept (on disk) as they are validated, for the feed.
	cs, err := newClaimSpool(o.WriteDir)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			cs.remove()
		}
	}()
	cv.EachClaim = func(c claims.Claim) error {
		o.noteCites(c)
		return cs.add(c)
	}
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
	in := &inputs{gold: cv.GoldIndex(), ignoredGold: cv.UnknownGold(), claims: cs}
	in.total, _ = cv.Counts()
	if in.total == 0 {
		// An empty records.parquet that report then refuses helps nobody.
		return nil, fmt.Errorf("%s: %w", o.ClaimsPath, ErrNoClaims)
	}
	if o.Shard.Sharded() {
		var err error
		if in.total, err = o.shardCount(ctx); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct{ role, path string }{{"outputs", o.OutputsPath}, {"claims", o.ClaimsPath}, {"gold", o.GoldPath}} {
		if f.path == "" {
			continue
		}
		sum, n, err := corpus.HashFile(f.path)
		if err != nil {
			return nil, err
		}
		in.files = append(in.files, corpus.Input{Role: f.role, Path: f.path, SHA256: sum, Bytes: n})
	}
	ok = true
	return in, nil
}

// shardCount counts the claims of the run's shard.
func (o *Options) shardCount(ctx context.Context) (int, error) {
	n := 0
	err := claims.Scan(ctx, o.ClaimsPath, nil, func(c claims.Claim) error {
		if o.Shard.Holds(c.ID) {
			n++
		}
		return nil
	})
	return n, err
}

// index is the open passage index with the manifest it was built under.
type index struct {
	*corpus.Index
	manifest *corpus.IndexManifest
}

// openIndex reuses the index when it reflects the corpus and the passage
// settings asked for (unset ones take the index's own), and otherwise
// rebuilds it, saying why.
func (o *Options) openIndex(ctx context.Context) (*index, error) {
	ens, err := corpus.EnsureIndex(ctx, corpus.EnsureRequest{Dir: o.IndexDir, CorpusPath: o.CorpusPath, SpansPath: o.SpansPath,
		Index: corpus.IndexOptions{Passages: o.Passages, Progress: o.IndexProgress}})
	if err != nil {
		return nil, err
	}
	if ens.Reused {
		o.Log.Info("reusing index", "dir", o.IndexDir, "passages", ens.Manifest.Counts.Passages)
	} else {
		o.Log.Info("built index", "dir", o.IndexDir, "passages", ens.Manifest.Counts.Passages, "why", ens.Reason)
	}
	ix, err := corpus.OpenIndex(o.IndexDir)
	if err != nil {
		return nil, err
	}
	return &index{Index: ix, manifest: ens.Manifest}, nil
}

// verifier makes the verifier, wrapped by the verdict cache with --resume.
func (o *Options) verifier(ix *index) (adjudicate.Verifier, error) {
	v, err := o.NewVerifier(ix.Index)
	if err == nil {
		o.red = adjudicate.NewRedactor(adjudicate.SecretsOf(v)...)
		o.queryUsed = o.Outputs != nil && adjudicate.ReadsQuery(cmp.Or(o.VerifierQuery, adjudicate.QueryAuto), v)
	}
	if err != nil || !o.Resume {
		return v, err
	}
	dir := filepath.Join(o.OutDir, ".cache")
	if err := cacheFolder(dir); err != nil {
		closeIfCloser(v)
		return nil, err
	}
	c, err := OpenCache(filepath.Join(dir, "verdicts.db"), o.Log)
	if err != nil {
		closeIfCloser(v)
		return nil, err
	}
	return WithCache(v, c), nil
}

// warnUnknownEvidence says once (a warning with the count and the first
// few) when gold evidence ids name no span or document of the corpus:
// retrieval recall and MRR count such evidence as never retrieved, which
// would otherwise read as a retrieval failure.
func (o *Options) warnUnknownEvidence(ctx context.Context, in *inputs, ix *index) error {
	ids := in.gold.EvidenceIDs()
	var unknown []string
	for _, id := range ids {
		_, ok, err := ix.Passage(ctx, id)
		if err == nil && !ok {
			ok, err = ix.HasDoc(ctx, id)
		}
		if err != nil {
			return err
		}
		if !ok {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		o.Log.Warn("gold evidence ids name no span or document of the corpus; retrieval recall and MRR count them as never retrieved",
			"ids", len(unknown), "of", len(ids), "first", strings.Join(unknown[:min(5, len(unknown))], ", "))
	}
	return nil
}

// cacheFolder makes the verdict cache's folder, marked as the tool's
// (outdir.OwnTag) when the tool creates it or the cache file in it; an
// existing cache file must be a regular file.
func cacheFolder(dir string) error {
	if err := outdir.NoLink(dir); err != nil {
		return fmt.Errorf("verdict cache: %w", err)
	}
	db := filepath.Join(dir, "verdicts.db")
	st, err := os.Lstat(db)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("%s %w: not a regular file, so not a verdict cache; move it away", db, outdir.ErrNotOurs)
	case err == nil:
		return nil // an existing cache: OpenCache replaces it only in a folder marked as ours
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.MkdirAll(dir, outdir.DirMode); err != nil {
		return err
	}
	return outdir.MarkOwned(dir)
}

// closeIfCloser releases what a verifier holds (an ONNX session, a cache).
func closeIfCloser(v adjudicate.Verifier) {
	if c, ok := v.(io.Closer); ok {
		c.Close()
	}
}

func versionOf(v adjudicate.Verifier, name string) string {
	if vv, ok := v.(adjudicate.Versioner); ok {
		return vv.Version()
	}
	return name
}

// manifest is the audit trail of a run (seed 002 §9): inputs and their
// hashes, settings, versions, counts and per-stage timings.
func (o *Options) manifest(in *inputs, ix *index, verifierVersion string, res *Result) reports.Manifest {
	temperature := res.Temperature
	if o.Shard.Sharded() {
		temperature = o.Temperature // a shard applies none: the report over all shards needs --calibrate fixed's T
	}
	m := reports.Manifest{MadeBy: "audit run",
		Settings: &reports.RunSettings{K: o.K, BatchSize: o.BatchSize, Workers: o.Workers, AbstainBelow: o.AbstainBelow,
			MinRetrievalScore: o.MinRetrievalScore, Calibrate: o.Calibrate, Temperature: temperature,
			ECEThreshold: o.ECEThreshold, Seed: o.Seed, Folds: o.Folds, MinCalibration: o.MinCalibration,
			TemperatureFrom: o.TemperatureFrom, Resume: o.Resume, Index: o.IndexDir, Passages: ix.manifest.Passages,
			NumericPolicy: o.NumericPolicy, NumericEffect: string(o.NumericEffect), WeakRetrieval: o.WeakRetrieval,
			AllowDegenerateVerifier: o.AllowDegenerateVerifier},
		Verifier: &reports.VerifierInfo{Name: o.VerifierName, Version: verifierVersion},
		Counts:   reports.ManifestCount{Claims: res.Records, Abstained: res.Abstained, Errors: res.Errors},
		Timings:  &res.Timings,
	}
	o.Rules.describe(m.Settings)
	if o.VerifyTimeout > 0 {
		m.Settings.VerifyTimeout = o.VerifyTimeout.String()
	}
	if o.Shard.Sharded() {
		m.Shard = &reports.ShardInfo{Index: o.Shard.Index, Count: o.Shard.Count}
	}
	for _, f := range append(append([]corpus.Input(nil), ix.manifest.Inputs...), in.files...) {
		m.Inputs = append(m.Inputs, reports.InputFile{Role: f.Role, Path: f.Path, SHA256: f.SHA256, Bytes: f.Bytes})
	}
	return m
}

// runID is a hash of the inputs (corpus, spans, claims, gold), the index's
// passage settings, the run's settings and the verifier: the same
// configuration gives the same id, so records are comparable byte for byte.
func runID(in *inputs, ix *index, o Options, verifierVersion string) string {
	h := sha256.New()
	for _, f := range append(append([]corpus.Input(nil), ix.manifest.Inputs...), in.files...) {
		fmt.Fprintf(h, "%s=%s\n", f.Role, f.SHA256)
	}
	p := ix.manifest.Passages
	fmt.Fprintf(h, "%s k=%d abstain=%v minscore=%v cal=%s T=%v ece=%v seed=%d\n", verifierVersion, o.K, o.AbstainBelow,
		o.MinRetrievalScore, o.Calibrate, o.Temperature, o.ECEThreshold, o.Seed)
	if o.Folds != metrics.DefaultFolds || o.MinCalibration != metrics.DefaultMinCalibration {
		fmt.Fprintf(h, "folds=%d min=%d\n", o.Folds, o.MinCalibration)
	}
	if scoped(o.Evidence) || o.scopedClaims {
		// Only a scoped run hashes it: a corpus audit keeps its id.
		fmt.Fprintf(h, "evidence=%s claims=%v aggregation=%s\n", o.Evidence, o.scopedClaims, adjudicate.AggregationMaxSupport)
	}
	if p != corpus.DefaultPassageSettings {
		// Only non-default settings enter the hash, so run ids of default
		// configurations stay what they were before settings were hashed.
		fmt.Fprintf(h, "passages=%d/%d/%d\n", p.WindowSentences, p.WindowStride, p.MaxChars)
	}
	if o.queryUsed {
		// Only a run whose verifier reads the query hashes it.
		fmt.Fprintf(h, "verifier-query\n")
	}
	if o.NumericPolicy != numeric.PolicyAuto || o.NumericEffect != lint.EffectRule {
		fmt.Fprintf(h, "numeric=%s/%s\n", o.NumericPolicy, o.NumericEffect)
	}
	if o.WeakRetrieval == WeakRetrievalInsufficient {
		fmt.Fprintf(h, "weakretrieval=%s\n", o.WeakRetrieval) // the default keeps the id
	}
	if r := o.Rules; len(r.Enabled) > 0 {
		// Only a run with rules hashes them: a run without keeps its id.
		var names []string
		for _, n := range rules.Names {
			if r.Enabled[n] {
				names = append(names, n)
			}
		}
		fmt.Fprintf(h, "rules=%s effect=%s noevidence=%s maxage=%v authority=%s=%s\n", strings.Join(names, ","), r.Effect, r.NoEvidence,
			r.MaxAge, r.AuthorityKey, r.AuthorityValue)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func ptr[T any](v T) *T { return &v }
