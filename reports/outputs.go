package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claimaudit/claimaudit/metrics"
)

// MetricRow is one row of metrics.parquet (long form).
type MetricRow struct {
	RunID  string   `parquet:"run_id,dict"`
	Metric string   `parquet:"metric,dict"`
	Slice  string   `parquet:"slice,dict"`
	Stage  string   `parquet:"stage,dict"`
	Value  *float64 `parquet:"value,optional"`
	CILow  *float64 `parquet:"ci_low,optional"`
	CIHigh *float64 `parquet:"ci_high,optional"`
	// N counts the slice's claims; SliceKey and SliceValue are Slice split
	// at its "=" ("all" and null for the slice all).
	N           int64   `parquet:"n"`
	SliceKey    string  `parquet:"slice_key,dict"`
	SliceValue  *string `parquet:"slice_value,optional,dict"`
	RunInstance string  `parquet:"run_instance,dict"`
	StartedAt   int64   `parquet:"started_at,timestamp(millisecond)"`
}

// ConfusionRow is one cell of confusion.parquet.
type ConfusionRow struct {
	RunID          string `parquet:"run_id,dict"`
	Slice          string `parquet:"slice,dict"`
	GoldLabel      string `parquet:"gold_label,dict"`
	PredictedLabel string `parquet:"predicted_label,dict"`
	Count          int64  `parquet:"count"`
	RunInstance    string `parquet:"run_instance,dict"`
	StartedAt      int64  `parquet:"started_at,timestamp(millisecond)"`
}

// CalibrationRow is one reliability bin of calibration.parquet.
type CalibrationRow struct {
	RunID          string   `parquet:"run_id,dict"`
	Stage          string   `parquet:"stage,dict"`
	Scheme         string   `parquet:"scheme,dict"`
	Bin            int32    `parquet:"bin"`
	Lo             *float64 `parquet:"lo,optional"`
	Hi             *float64 `parquet:"hi,optional"`
	Count          int64    `parquet:"count"`
	MeanConfidence *float64 `parquet:"mean_confidence,optional"`
	Accuracy       *float64 `parquet:"accuracy,optional"`
	RunInstance    string   `parquet:"run_instance,dict"`
	StartedAt      int64    `parquet:"started_at,timestamp(millisecond)"`
}

// RiskCoverageRow is one point of risk_coverage.parquet.
type RiskCoverageRow struct {
	RunID       string  `parquet:"run_id,dict"`
	Stage       string  `parquet:"stage,dict"`
	Threshold   float64 `parquet:"threshold"`
	Coverage    float64 `parquet:"coverage"`
	Risk        float64 `parquet:"risk"`
	RunInstance string  `parquet:"run_instance,dict"`
	StartedAt   int64   `parquet:"started_at,timestamp(millisecond)"`
}

// OutputRow is one model output of outputs.parquet: its claims (those
// with its id as source_id) by predicted label, FActScore's supported
// fraction, whether any claim was predicted unsupported and seed 002's
// verdict on the output; then the same from gold labels.
type OutputRow struct {
	RunID             string  `parquet:"run_id,dict"`
	OutputID          string  `parquet:"output_id"`
	Claims            int64   `parquet:"claims"`
	Supported         int64   `parquet:"supported"`
	Unsupported       int64   `parquet:"unsupported"`
	Insufficient      int64   `parquet:"insufficient"`
	Abstained         int64   `parquet:"abstained"`
	SupportedFraction float64 `parquet:"supported_fraction"`
	// SupportedFractionLo and Hi are the Wilson 95% interval of the
	// supported fraction over the output's claims (its faithfulness when
	// its claims are judged against its own contexts); null without claims.
	SupportedFractionLo   *float64 `parquet:"supported_fraction_lo,optional"`
	SupportedFractionHi   *float64 `parquet:"supported_fraction_hi,optional"`
	AnyUnsupported        bool     `parquet:"any_unsupported"`
	Verdict               string   `parquet:"verdict,dict"`
	Labelled              int64    `parquet:"labelled"`
	GoldSupported         int64    `parquet:"gold_supported"`
	GoldUnsupported       int64    `parquet:"gold_unsupported"`
	GoldInsufficient      int64    `parquet:"gold_insufficient"`
	GoldSupportedFraction *float64 `parquet:"gold_supported_fraction,optional"`
	GoldAnyUnsupported    *bool    `parquet:"gold_any_unsupported,optional"`
	GoldVerdict           *string  `parquet:"gold_verdict,optional,dict"`
	RunInstance           string   `parquet:"run_instance,dict"`
	StartedAt             int64    `parquet:"started_at,timestamp(millisecond)"`

	// The per-output decision (audit run --outputs; null otherwise): the
	// output's query and attempt, seed 004's overall action and confidence,
	// seed 002's evidence coverage and revision decision, seed 004's
	// structured abstention, critical claims without a citation, risk
	// flags, and whether this attempt improved on the one before.
	Query             *string  `parquet:"query,optional"`
	QueryID           *string  `parquet:"query_id,optional"`
	Attempt           *int64   `parquet:"attempt,optional"`
	OverallAction     *string  `parquet:"overall_action,optional,dict"`
	OverallConfidence *float64 `parquet:"overall_confidence,optional"`
	WorstClaimID      *string  `parquet:"worst_claim_id,optional"`
	EvidenceCoverage  *float64 `parquet:"evidence_coverage,optional"`
	Revision          *string  `parquet:"revision,optional,dict"`
	RevisionReason    *string  `parquet:"revision_reason,optional,dict"`
	Instructions      []string `parquet:"instructions,list"`
	AbstentionMessage *string  `parquet:"abstention_message,optional"`
	UncitedCritical   []string `parquet:"uncited_critical,list"`
	RiskFlags         []string `parquet:"risk_flags,list"`
	Improved          *bool    `parquet:"improved,optional"`
	ExtractionError   *string  `parquet:"extraction_error,optional"`
	// RiskSeverities are risk_flags' severities, in their order (high,
	// medium, low); RiskLevel the highest, null without flags.
	// NoEvidenceResponse is the answer to give when none of the output's
	// claims found any evidence; null otherwise.
	RiskSeverities     []string `parquet:"risk_severities,list"`
	RiskLevel          *string  `parquet:"risk_level,optional,dict"`
	NoEvidenceResponse *string  `parquet:"no_evidence_response,optional"`
	// TerminationWarnings are the workflow's warnings on a query's final
	// attempt (NO_IMPROVEMENT, UNSUPPORTED_CLAIMS), empty on the others;
	// UnsupportedClaims the texts UNSUPPORTED_CLAIMS is about.
	TerminationWarnings []string `parquet:"termination_warnings,list"`
	UnsupportedClaims   []string `parquet:"unsupported_claims,list"`
	// QueryDecision is, on a query's final attempt, what the query
	// returns: "return" (ChosenOutputID, the best-scored passing attempt)
	// or "abstain" (none passes); QueryDecisionReason says which and why.
	// Null on earlier attempts.
	QueryDecision       *string `parquet:"query_decision,optional,dict"`
	ChosenOutputID      *string `parquet:"chosen_output_id,optional"`
	QueryDecisionReason *string `parquet:"query_decision_reason,optional"`
}

// decisionUndefined says why a decision metric is null.
var decisionUndefined = map[string]string{
	"query_no_improvement_rate":     "no query was revised (no query has a second attempt)",
	"query_unsupported_claims_rate": "no query (no output)",
	"query_abstain_rate":            "no query (no output)",
	"branch_success_rate":           "no query has a second attempt",
}

// DecisionMetrics are the per-output decision metrics of a run over model
// outputs (audit run --outputs), gateable like every metric: shares of
// outputs by revision, outputs with an uncited critical claim, queries and
// the share whose final attempt abstains (seed 004's abstain rate),
// branches (attempts after a query's first) and the share that improved
// the verdict (seed 004's branch success rate). Undefined is null.
var DecisionMetrics = []string{"output_ship_rate", "output_revise_rate", "output_abstain_rate", "output_uncited_critical_rate",
	"queries", "query_abstain_rate", "branches", "branch_success_rate", "query_no_improvement_rate", "query_unsupported_claims_rate"}

// outputRow is an output's row of outputs.parquet, without a decision.
func (t *Tables) outputRow(s metrics.OutputScore) OutputRow {
	r := OutputRow{RunID: t.meta.RunID, OutputID: s.OutputID, Claims: int64(s.Claims), Supported: int64(s.Predicted[metrics.Supported]),
		Unsupported: int64(s.Predicted[metrics.Unsupported]), Insufficient: int64(s.Predicted[metrics.Insufficient]),
		Abstained: int64(s.Abstained), SupportedFraction: s.SupportedFraction, AnyUnsupported: s.AnyUnsupported, Verdict: s.Verdict,
		Labelled: int64(s.Labelled), GoldSupported: int64(s.Gold[metrics.Supported]), GoldUnsupported: int64(s.Gold[metrics.Unsupported]),
		GoldInsufficient: int64(s.Gold[metrics.Insufficient]), GoldSupportedFraction: fp(s.GoldSupportedFraction),
		RunInstance: t.meta.Instance.ID, StartedAt: t.meta.Instance.Millis()}
	if lo, hi, ok := metrics.Wilson(s.Predicted[metrics.Supported], s.Claims); ok {
		r.SupportedFractionLo, r.SupportedFractionHi = &lo, &hi
	}
	if s.Labelled > 0 {
		r.GoldAnyUnsupported = &s.GoldAnyUnsupported
	}
	if s.GoldVerdict != "" {
		r.GoldVerdict = &s.GoldVerdict
	}
	return r
}

// OutputRows are outputs.parquet's rows: one per model output (source_id),
// by output id.
func (t *Tables) OutputRows() []OutputRow {
	if t.outputs == nil {
		t.outputs = make([]OutputRow, 0, len(t.outputScores))
		for _, s := range t.outputScores {
			t.outputs = append(t.outputs, t.outputRow(s))
		}
		t.outputScores = nil
	}
	return t.outputs
}

// writeOutputs writes outputs.parquet: the rows when they were made, else
// the scores turned into rows a batch at a time.
func (t *Tables) writeOutputs(path string) error {
	if t.outputs != nil {
		return writeRows(path, t.meta, t.outputs)
	}
	w, err := NewParquetWriter[OutputRow](path, t.meta)
	if err != nil {
		return err
	}
	const batch = 4096
	rows := make([]OutputRow, 0, batch)
	for i, s := range t.outputScores {
		rows = append(rows, t.outputRow(s))
		if len(rows) == batch || i == len(t.outputScores)-1 {
			if err := w.Write(rows...); err != nil {
				w.Abort()
				return err
			}
			rows = rows[:0]
		}
	}
	return w.Close()
}

// SetOutputDecisions merges per-output decisions into outputs.parquet's
// rows (by output id; an output with no claim gets a row of its own, with
// zero counts) and adds DecisionMetrics' values (NaN: undefined) to
// metrics.parquet — one row per stage, the same value: outputs are decided
// once, at the temperatures applied — and to summary.json.
func (t *Tables) SetOutputDecisions(rows []OutputRow, values map[string]float64) {
	// The rows added here carry the instance Compute stamped on the others.
	var instance string
	var started int64
	if len(t.Metrics) > 0 {
		instance, started = t.Metrics[0].RunInstance, t.Metrics[0].StartedAt
	}
	t.OutputRows()
	at := map[string]int{}
	for i, r := range t.outputs {
		at[r.OutputID] = i
	}
	for _, d := range rows {
		i, ok := at[d.OutputID]
		if !ok {
			t.outputs = append(t.outputs, OutputRow{RunID: t.meta.RunID, OutputID: d.OutputID, Verdict: metrics.OutputPass,
				SupportedFraction: math.NaN(), // FActScore over no claim is undefined
				RunInstance:       instance, StartedAt: started})
			i = len(t.outputs) - 1
		}
		r := &t.outputs[i]
		r.Query, r.QueryID, r.Attempt = d.Query, d.QueryID, d.Attempt
		r.OverallAction, r.OverallConfidence, r.WorstClaimID = d.OverallAction, d.OverallConfidence, d.WorstClaimID
		r.EvidenceCoverage, r.Revision, r.RevisionReason, r.Instructions = d.EvidenceCoverage, d.Revision, d.RevisionReason, d.Instructions
		r.AbstentionMessage, r.UncitedCritical, r.RiskFlags, r.Improved = d.AbstentionMessage, d.UncitedCritical, d.RiskFlags, d.Improved
		r.ExtractionError = d.ExtractionError
		r.RiskSeverities, r.RiskLevel, r.NoEvidenceResponse = d.RiskSeverities, d.RiskLevel, d.NoEvidenceResponse
		r.TerminationWarnings, r.UnsupportedClaims = d.TerminationWarnings, d.UnsupportedClaims
		r.QueryDecision, r.ChosenOutputID, r.QueryDecisionReason = d.QueryDecision, d.ChosenOutputID, d.QueryDecisionReason
	}
	slices.SortFunc(t.outputs, func(a, b OutputRow) int { return strings.Compare(a.OutputID, b.OutputID) })
	for _, stage := range []string{StageRaw, StageCalibrated} {
		for _, name := range DecisionMetrics {
			v, ok := values[name]
			if !ok {
				continue
			}
			t.Metrics = append(t.Metrics, MetricRow{RunID: t.meta.RunID, Metric: name, Slice: "all", Stage: stage, Value: fp(v),
				N: int64(t.Summary.Claims), SliceKey: "all", RunInstance: instance, StartedAt: started})
			if stage == StageCalibrated {
				t.Summary.Metrics[name] = fp(v)
				if why, ok := decisionUndefined[name]; ok && fp(v) == nil {
					if t.Summary.Undefined == nil {
						t.Summary.Undefined = map[string]string{}
					}
					t.Summary.Undefined[name] = why
				}
			} else {
				t.Summary.RawMetrics[name] = fp(v)
			}
		}
	}
}

// Stages of every metric: raw (T = 1) and calibrated (the applied T; equal
// to raw when no temperature was applied).
const (
	StageRaw        = "raw"
	StageCalibrated = "calibrated"
)

// Input is what the report files are computed from.
type Input struct {
	RunID string
	// Usage is summary.json's usage (nil: null).
	Usage       *UsageSummary
	ToolVersion string
	// Outcomes carry the raw logits and the decisions as recorded.
	Outcomes []metrics.Outcome
	// Temperatures holds the T applied to each outcome (the records'
	// temperature column); nil means 1 for all. Every calibrated-stage
	// number is computed from metrics.Scaled(Outcomes, Temperatures), so
	// with cross-fitted temperatures it is out of sample.
	Temperatures []float64
	// CrossFit is the cross-fitted temperature of the labelled claims,
	// reported whatever was applied (audit report recomputes it).
	CrossFit  metrics.CrossFitResult
	Seed      uint64 // bootstrap
	Resamples int    // bootstrap; default 1000
	// MaxSourceSlices: sources with a slice of their own (the largest;
	// the rest pooled in metrics.OtherSources); 0: the default cap, -1:
	// every source.
	MaxSourceSlices int
	// SliceBy names claim metadata keys to slice on besides type, source
	// and importance ("topic" for --slice-by meta.topic).
	SliceBy []string
	// PlotFormats are the formats every plot is written in; nil means
	// DefaultPlotFormats.
	PlotFormats []string
	// Errors are the misclassified records report.html shows, as picked
	// by an ErrorPicker; nil shows none.
	Errors []Record
	// Progress, when set, is told of the work done computing the metrics:
	// the claims of each slice evaluated, of the claims times the slice
	// kinds (all, then each partition, which covers every claim once).
	Progress func(done, total int)
	// Manifest is written as manifest.json (inputs, settings, timings);
	// Write fills its ids, versions and time.
	Manifest Manifest
	// Warnings from before the report (the inputs: ignored gold labels)
	// come first among the summary's warnings.
	Warnings []string
	// Instance is the execution the report belongs to (a run's, or the
	// one its records name); the zero Instance leaves the columns empty.
	Instance Instance
}

// How temperatures were applied, as summary.json's calibration.applied.
const (
	AppliedNone        = "none"         // every T is 1
	AppliedCrossFitted = "cross_fitted" // each labelled claim its fold's T, the rest the full-data T
	AppliedUniform     = "uniform"      // one T for every claim (--calibrate fixed, a reused T)
	AppliedPerClaim    = "per_claim"    // anything else
)

// CalibrationSummary is summary.json's account of temperature scaling.
type CalibrationSummary struct {
	Applied     string `json:"applied"`
	Fitted      bool   `json:"fitted"`
	Reason      string `json:"reason,omitempty"` // why no temperature was fitted
	Labelled    int    `json:"labelled"`         // labelled claims with logits
	MinLabelled int    `json:"min_labelled"`
	Folds       int    `json:"folds"`
	Seed        uint64 `json:"seed"`
	// FullTemperature is fitted on every labelled claim (null when not
	// fitted); FoldTemperatures[f] on every fold but f.
	FullTemperature  *float64          `json:"full_temperature"`
	FullAtBound      bool              `json:"full_at_bound"`
	FoldTemperatures []metrics.FoldFit `json:"fold_temperatures"`
}

// QualityGatesSummary is seed 002's gates with undefined rates as null.
type QualityGatesSummary struct {
	EvidenceCoverage    *float64 `json:"EvidenceCoverage"`
	UnsupportedRate     *float64 `json:"UnsupportedRate"`
	CriticalUnsupported int      `json:"CriticalUnsupported"`
	Contradictions      int      `json:"Contradictions"`
	Pass                bool     `json:"Pass"`
}

// Summary is summary.json: the headline numbers a person or a job reads.
// Undefined numbers are null.
type Summary struct {
	RunID         string `json:"run_id"`
	RunInstance   string `json:"run_instance"` // this execution (Instance)
	StartedAt     string `json:"started_at"`   // RFC 3339, UTC
	SchemaVersion string `json:"schema_version"`
	Claims        int    `json:"claims"`
	// Labelled counts the claims with a gold label: every gold-based
	// metric is over these only.
	Labelled int `json:"labelled"`
	// Temperature is the T claims without gold got, the one a later run
	// reuses: the full-data T when cross-fitted, the common T when uniform.
	Temperature        float64                        `json:"temperature"`
	CalibrationApplied bool                           `json:"calibration_applied"`
	Calibration        CalibrationSummary             `json:"calibration"`
	Metrics            map[string]*float64            `json:"metrics"`   // slice all, stage calibrated
	Intervals          map[string]*[2]float64         `json:"intervals"` // 95% bootstrap; null when undefined
	RawMetrics         map[string]*float64            `json:"raw_metrics"`
	Undefined          map[string]string              `json:"undefined,omitempty"` // why a metric is null
	Confusion          map[string]map[string]int      `json:"confusion"`           // gold → predicted → count
	Verdicts           map[string]int                 `json:"verdicts"`
	QualityGates       QualityGatesSummary            `json:"quality_gates"`
	CalibrationBounds  map[string]any                 `json:"calibration_bounds"`
	Slices             map[string]map[string]*float64 `json:"slices"`
	Warnings           []string                       `json:"warnings"`
	Gates              []GateResult                   `json:"gates,omitempty"`
	// Usage is what remote models spent (tokens, calls, retries, cost);
	// null where it is not known (a report over records of a run that
	// wrote no usage columns).
	Usage *UsageSummary `json:"usage"`
}

// sliceSummary are the metrics summary.json gives per slice.
var sliceSummary = []string{"n", "coverage", "accuracy", "majority_accuracy", "macro_f1", "tier1_fa_conditional",
	"pred_rate_supported", "pred_rate_unsupported", "pred_rate_insufficient", "degenerate_verifier"}

func fp(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// appliedKind says how temps were applied, and the T claims without gold
// got.
func appliedKind(temps []float64, cf metrics.CrossFitResult) (string, float64) {
	ones, uniform := true, true
	for _, t := range temps {
		ones = ones && t == 1
		uniform = uniform && t == temps[0]
	}
	switch {
	case ones:
		return AppliedNone, 1
	case cf.Fitted && slices.Equal(temps, cf.PerOutcome):
		return AppliedCrossFitted, cf.Full
	case uniform:
		return AppliedUniform, temps[0]
	}
	return AppliedPerClaim, cf.Full
}

// Compute derives every table of a report. It is what `audit run` and
// `audit report` both call, so the two give identical files. While it
// runs it reorders in.Outcomes (each slice laid out contiguously in turn)
// and divides their logits by their temperatures in place (the calibrated
// stage); every outcome is back in its place with its raw logits when it
// returns: nothing may read in.Outcomes concurrently.
func Compute(in Input) (*Tables, error) {
	if in.Resamples == 0 {
		in.Resamples = 1000
	}
	if in.Temperatures != nil && len(in.Temperatures) != len(in.Outcomes) {
		return nil, fmt.Errorf("compute report: %d temperatures for %d outcomes", len(in.Temperatures), len(in.Outcomes))
	}
	for i, t := range in.Temperatures {
		if !(t > 0) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("compute report: outcome %d: temperature %v is not a positive number", i, t)
		}
	}
	kind, temp := appliedKind(in.Temperatures, in.CrossFit)
	cf := in.CrossFit
	t := &Tables{Summary: Summary{Usage: in.Usage, RunID: in.RunID, RunInstance: in.Instance.ID, StartedAt: in.Instance.Stamp(), SchemaVersion: SchemaVersion, Claims: len(in.Outcomes), Temperature: temp,
		CalibrationApplied: kind != AppliedNone,
		Calibration: CalibrationSummary{Applied: kind, Fitted: cf.Fitted, Reason: cf.Reason, Labelled: cf.Labelled,
			MinLabelled: cf.Min, Folds: cf.K, Seed: cf.Seed, FoldTemperatures: cf.Folds, FullAtBound: cf.FullAtBound},
		Metrics: map[string]*float64{}, Intervals: map[string]*[2]float64{},
		RawMetrics: map[string]*float64{}, Undefined: map[string]string{}, Confusion: map[string]map[string]int{},
		Verdicts: map[string]int{}, Slices: map[string]map[string]*float64{}, Warnings: []string{}},
		undefined: map[string]string{}}
	if cf.Fitted {
		t.Summary.Calibration.FullTemperature = fp(cf.Full)
	}
	if t.Summary.Calibration.FoldTemperatures == nil {
		t.Summary.Calibration.FoldTemperatures = []metrics.FoldFit{}
	}
	// Each slice is evaluated raw, then with its claims' logits divided by
	// their temperatures in place (the calibrated stage), then put back:
	// a calibrated copy of every outcome would cost a run of a million
	// claims 114 MiB. The slices of each partition (by type, source,
	// importance, metadata key) are laid side by side in in.Outcomes for
	// the purpose (groupInPlace) rather than copied out, and the outcomes
	// put back in their order after each partition. Rows come out in
	// SlicesBy's order, each slice's raw rows then its calibrated ones.
	var overall metrics.Evaluation
	each := func(name string, outs []metrics.Outcome, temps []float64, all bool) error {
		var rows [2][]MetricRow
		for si, st := range []struct {
			name string
			temp float64 // the temperature metric's value
		}{{StageRaw, 1}, {StageCalibrated, temp}} {
			restore := func() {}
			if st.name == StageCalibrated {
				restore = metrics.ScaleInPlace(outs, temps)
			}
			e, r, err := t.evaluateSlice(in, name, outs, st.name, st.temp)
			if err != nil {
				restore()
				return err
			}
			rows[si] = r
			if all {
				t.curves[si] = t.stageCurves(in, e, st.name, st.temp)
				if st.name == StageCalibrated {
					overall = e.WithoutCurves()
				}
			}
			restore()
		}
		t.Metrics = append(append(t.Metrics, rows[0]...), rows[1]...)
		t.confusionRows(in, name, outs)
		return nil
	}
	kinds := metrics.PartitionKinds(in.SliceBy)
	progressTotal, progressDone := len(in.Outcomes)*(1+len(kinds)), 0
	progress := func(n int) {
		progressDone += n
		if in.Progress != nil {
			in.Progress(progressDone, progressTotal)
		}
	}
	if err := each("all", in.Outcomes, in.Temperatures, true); err != nil {
		return nil, err
	}
	progress(len(in.Outcomes))
	for _, kind := range kinds {
		if kind == metrics.KindTag {
			if err := tagSlices(in, each, progress); err != nil {
				return nil, err
			}
			continue
		}
		p := metrics.PartitionOf(in.Outcomes, metrics.SliceOptions{MaxSources: in.MaxSourceSlices}, kind)
		gr := groupInPlace(in.Outcomes, in.Temperatures, p)
		for g, name := range p.Names {
			outs, temps := gr.span(in.Outcomes, g)
			if err := each(name, outs, temps, false); err != nil {
				gr.ungroup(in.Outcomes)
				return nil, err
			}
			progress(len(outs))
		}
		gr.ungroup(in.Outcomes)
	}
	if len(in.Outcomes) == 0 {
		// Slices always has "all"; this keeps the zero-claim report whole.
		overall, _ = metrics.Evaluate(nil, 1, metrics.BootstrapOptions{Resamples: 1})
	}
	defer metrics.ScaleInPlace(in.Outcomes, in.Temperatures)()
	// The outcomes are calibrated from here until Compute returns.
	scaled := in.Outcomes
	t.calibratedSummaries(scaled)
	t.Summary.Labelled = overall.Counts.Labelled
	t.Summary.Warnings = append(append([]string{}, in.Warnings...), warnings(&t.Summary, overall)...)
	t.temperature = temp
	t.manifest = in.Manifest
	t.plotFormats = in.PlotFormats
	t.errors = in.Errors
	t.meta = Meta{RunID: in.RunID, ToolVersion: in.ToolVersion, Instance: in.Instance}
	t.stampRows(in.Instance)
	return t, nil
}

// tagSlices evaluates the evidence-tag slices (metrics.TagSlices). They
// overlap, so they cannot be laid side by side in place as a partition's
// are: each is copied out (its outcomes and temperatures), one at a time.
func tagSlices(in Input, each func(string, []metrics.Outcome, []float64, bool) error, progress func(int)) error {
	for _, sl := range metrics.TagSlices(in.Outcomes) {
		outs := sl.Pick(in.Outcomes)
		var temps []float64
		if in.Temperatures != nil {
			temps = make([]float64, len(sl.Indexes))
			for i, j := range sl.Indexes {
				temps[i] = in.Temperatures[j]
			}
		}
		if err := each(sl.Name, outs, temps, false); err != nil {
			return err
		}
		progress(len(outs))
	}
	return nil
}

// calibratedSummaries are what Compute reads of the calibrated outcomes
// besides the slices' metrics: confidence counts, per-claim verdicts,
// per-output scores, the quality gates and the calibration bounds.
func (t *Tables) calibratedSummaries(scaled []metrics.Outcome) {
	t.confidence = confidenceCounts(scaled)
	t.counts = metrics.Count(scaled)
	for _, o := range scaled {
		t.Summary.Verdicts[metrics.VerdictOf(o, 1)]++
	}
	t.outputScores = metrics.Outputs(scaled, 1)
	g := metrics.QualityGates(scaled, 1)
	t.Summary.QualityGates = QualityGatesSummary{EvidenceCoverage: fp(g.EvidenceCoverage), UnsupportedRate: fp(g.UnsupportedRate),
		CriticalUnsupported: g.CriticalUnsupported, Contradictions: g.Contradictions, Pass: g.Pass}
	b := metrics.CalibrationBounds(scaled, 1)
	var pass any
	if b.CalibrationDefined {
		pass = b.CalibrationPass
	}
	t.Summary.CalibrationBounds = map[string]any{
		"supported_accuracy_at_p80": fp(b.SupportedAccuracy), "supported_n_at_p80": b.SupportedN,
		"unsupported_accuracy_at_p80": fp(b.UnsupportedAccuracy), "unsupported_n_at_p80": b.UnsupportedN,
		"pass": pass, "supported_rate": fp(b.SupportedRate), "refuted_rate": fp(b.RefutedRate),
		"degenerate_supported": b.DegenerateSupported, "degenerate_refuted": b.DegenerateRefuted,
	}
}

// evaluateSlice evaluates one slice at one stage (the outcomes already
// scaled for it): its metrics.parquet rows, and the summary's entries.
func (t *Tables) evaluateSlice(in Input, name string, outs []metrics.Outcome, stage string, temp float64) (metrics.Evaluation, []MetricRow, error) {
	// Intervals for "all" always; for a smaller slice only from
	// metrics.MinBootstrapClaims claims up (null below).
	e, err := metrics.Evaluate(outs, 1, metrics.BootstrapOptions{Resamples: in.Resamples, Seed: in.Seed,
		None: name != "all" && len(outs) < metrics.MinBootstrapClaims})
	if err != nil {
		return e, nil, err
	}
	for i := range e.Metrics {
		if e.Metrics[i].Name == "temperature" {
			e.Metrics[i].Value = temp
		}
	}
	rows := make([]MetricRow, 0, len(e.Metrics))
	for _, x := range e.Metrics {
		if math.IsNaN(x.Value) && stage == StageCalibrated {
			t.undefined[name+"\x00"+x.Name] = metrics.Undefined(x.Name, e.Counts)
		}
		row := MetricRow{RunID: in.RunID, Metric: x.Name, Slice: name, Stage: stage, Value: fp(x.Value), N: int64(e.Counts.N)}
		row.SliceKey, row.SliceValue = splitSlice(name)
		iv, hasCI := e.Intervals[x.Name]
		if hasCI {
			row.CILow, row.CIHigh = fp(iv.Low), fp(iv.High)
		}
		rows = append(rows, row)
		switch {
		case name == "all" && stage == StageCalibrated:
			t.Summary.Metrics[x.Name] = fp(x.Value)
			if metrics.HasInterval(x.Name) {
				t.Summary.Intervals[x.Name] = nil
				if hasCI {
					t.Summary.Intervals[x.Name] = &[2]float64{iv.Low, iv.High}
				}
			}
			if math.IsNaN(x.Value) {
				t.Summary.Undefined[x.Name] = metrics.Undefined(x.Name, e.Counts)
			}
		case name == "all" && stage == StageRaw:
			t.Summary.RawMetrics[x.Name] = fp(x.Value)
		case stage == StageCalibrated && slices.Contains(sliceSummary, x.Name):
			if t.Summary.Slices[name] == nil {
				t.Summary.Slices[name] = map[string]*float64{}
			}
			t.Summary.Slices[name][x.Name] = fp(x.Value)
		}
	}
	return e, rows, nil
}

// confusionRows adds a slice's confusion matrix (decisions do not depend on
// the stage).
func (t *Tables) confusionRows(in Input, name string, outs []metrics.Outcome) {
	c := metrics.Count(outs)
	for g := 0; g < 3; g++ {
		for p := 0; p < 3; p++ {
			t.Confusion = append(t.Confusion, ConfusionRow{RunID: in.RunID, Slice: name, GoldLabel: metrics.ClassNames[g],
				PredictedLabel: metrics.ClassNames[p], Count: int64(c.Confusion[g][p])})
			if name == "all" {
				if t.Summary.Confusion[metrics.ClassNames[g]] == nil {
					t.Summary.Confusion[metrics.ClassNames[g]] = map[string]int{}
				}
				t.Summary.Confusion[metrics.ClassNames[g]][metrics.ClassNames[p]] = c.Confusion[g][p]
			}
		}
	}
}

// curve is one stage's risk–coverage curve as the plot draws it.
type curve struct {
	points []metrics.RCPoint // thinned (metrics.ThinCurve), as in risk_coverage.parquet
	aurc   float64           // over the full curve
	n, e   int               // answered, labelled claims and errors among them
}

// stageCurves adds a stage's calibration bins and risk–coverage points
// (the outcomes already scaled for it) and returns its curve for the plot.
func (t *Tables) stageCurves(in Input, e metrics.Evaluation, stage string, temp float64) curve {
	// The evaluation of every outcome computed them already.
	cal, full, ok := e.Curves()
	if !ok {
		cal, full = metrics.Calibration(in.Outcomes, 1), metrics.RiskCoverage(in.Outcomes, 1)
	}
	cal.Temperature = temp
	for _, scheme := range []string{metrics.EqualWidth10, metrics.EqualWidth15, metrics.EqualMass10} {
		for _, b := range cal.Bins[scheme] {
			t.Calibration = append(t.Calibration, CalibrationRow{RunID: in.RunID, Stage: stage, Scheme: scheme, Bin: int32(b.Index),
				Lo: fp(b.Lo), Hi: fp(b.Hi), Count: int64(b.Count), MeanConfidence: fp(b.MeanConfidence), Accuracy: fp(b.Accuracy)})
		}
	}
	t.Reliability = append(t.Reliability, cal)
	c := curve{points: metrics.ThinCurve(full, metrics.CurvePoints), aurc: metrics.AURC(full, 1)}
	if len(full) > 0 {
		c.n = answeredLabelled(in.Outcomes)
		c.e = int(math.Round(full[len(full)-1].Risk * float64(c.n)))
	}
	for _, p := range c.points {
		t.RiskCoverage = append(t.RiskCoverage, RiskCoverageRow{RunID: in.RunID, Stage: stage, Threshold: p.Threshold, Coverage: p.Coverage, Risk: p.Risk})
	}
	return c
}

// warnings are the lines a person must not miss, in a fixed order: no
// gold, a degenerate verifier, no temperature fitted, a fit on its bound.
func warnings(s *Summary, e metrics.Evaluation) []string {
	w := []string{}
	c := e.Counts
	if c.N > 0 && c.Labelled == 0 {
		w = append(w, "no gold labels: accuracy, false-accept rates and calibration error are undefined (null); the predicted-label distribution is the headline")
	}
	if c.Labelled > 0 && c.Labelled < c.N {
		w = append(w, fmt.Sprintf("partial gold: %s; accuracy, false-accept rates, calibration error and the temperature fit are over the %d labelled claims only",
			LabelledOf(c.Labelled, c.N), c.Labelled))
	}
	if e.Value("degenerate_verifier") == 1 {
		for k := metrics.Class(0); k < 3; k++ {
			if c.Answered >= metrics.DegenerateMinAnswered && float64(c.PredictedTotal[k]) >= metrics.DegenerateShare*float64(c.Answered) {
				w = append(w, fmt.Sprintf("degenerate verifier: it predicted %s for %.1f%% of answered claims (%d of %d)",
					k, 100*float64(c.PredictedTotal[k])/float64(c.Answered), c.PredictedTotal[k], c.Answered))
			}
		}
		acc, maj := e.Value("accuracy"), e.Value("majority_accuracy")
		if iv, ok := e.Intervals["majority_accuracy"]; ok && !math.IsNaN(acc) && acc <= iv.High {
			w = append(w, fmt.Sprintf("degenerate verifier: accuracy %.3f does not beat the majority-class baseline %.3f (always %s; 95%% interval [%.3f, %.3f])",
				acc, maj, majorityName(c), iv.Low, iv.High))
		}
	}
	cal := s.Calibration
	if !cal.Fitted && s.Calibration.Applied == AppliedNone && cal.Reason != "" {
		w = append(w, "no temperature fitted: "+cal.Reason+"; probabilities are the verifier's own (T = 1)")
	}
	if cal.Fitted {
		var at []string
		if cal.FullAtBound {
			at = append(at, fmt.Sprintf("full data T = %g", *cal.FullTemperature))
		}
		for _, f := range cal.FoldTemperatures {
			if f.AtBound {
				at = append(at, fmt.Sprintf("fold %d T = %g", f.Fold, f.Temperature))
			}
		}
		if len(at) > 0 {
			w = append(w, fmt.Sprintf("temperature fit on its bound [%g, %g] (%s): the NLL kept falling past it; treat calibrated numbers with suspicion",
				metrics.MinTemperature, metrics.MaxTemperature, strings.Join(at, ", ")))
		}
	}
	return w
}

func majorityName(c metrics.Counts) string {
	k, _ := c.Majority()
	return k.String()
}

// Tables are the computed contents of a report folder.
type Tables struct {
	Summary      Summary
	Metrics      []MetricRow
	Confusion    []ConfusionRow
	Calibration  []CalibrationRow
	RiskCoverage []RiskCoverageRow
	Reliability  []metrics.CalibrationReport // raw, calibrated

	// The outputs (one per model output, source_id, by output id) are held
	// as scores until their rows are needed (OutputRows, or
	// SetOutputDecisions): a row is ~400 bytes with its pointers, a score
	// 150, and a run of a million claims has hundreds of thousands of
	// outputs; Write turns the scores into rows a batch at a time.
	outputScores []metrics.OutputScore
	outputs      []OutputRow // nil until made from outputScores

	curves      [2]curve          // risk–coverage of the raw and calibrated stages, for the plot
	counts      metrics.Counts    // over every claim, for the confusion plot
	confidence  [3][10]int        // answered claims by predicted label and calibrated-confidence tenth
	undefined   map[string]string // slice, NUL, metric → why it is undefined (calibrated stage)
	temperature float64
	manifest    Manifest
	meta        Meta
	plotFormats []string
	errors      []Record
}

// Files written by Write with the default plot formats (records.parquet
// is written by the pipeline).
var Files = []string{"metrics.parquet", "confusion.parquet", "calibration.parquet", "risk_coverage.parquet", "outputs.parquet",
	"reliability.png", "confidence.png", "risk_coverage.png", "confusion.png",
	"reliability.svg", "confidence.svg", "risk_coverage.svg", "confusion.svg", "report.html", "summary.json", "manifest.json"}

// Write writes every report file into dir, each atomically.
func (t *Tables) Write(dir string) error {
	if err := writeRows(filepath.Join(dir, "metrics.parquet"), t.meta, t.Metrics); err != nil {
		return err
	}
	if err := writeRows(filepath.Join(dir, "confusion.parquet"), t.meta, t.Confusion); err != nil {
		return err
	}
	if err := writeRows(filepath.Join(dir, "calibration.parquet"), t.meta, t.Calibration); err != nil {
		return err
	}
	if err := writeRows(filepath.Join(dir, "risk_coverage.parquet"), t.meta, t.RiskCoverage); err != nil {
		return err
	}
	if err := t.writeOutputs(filepath.Join(dir, "outputs.parquet")); err != nil {
		return err
	}
	figs, err := t.figures()
	if err != nil {
		return err
	}
	for _, f := range figs {
		if err := f.save(dir, t.formats()); err != nil {
			return err
		}
	}
	if err := t.writeHTML(dir, figs); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "summary.json"), t.Summary); err != nil {
		return err
	}
	return WriteManifest(dir, t.meta, t.manifest)
}

func writeRows[T any](path string, m Meta, rows []T) error {
	w, err := NewParquetWriter[T](path, m)
	if err != nil {
		return err
	}
	if len(rows) > 0 {
		if err := w.Write(rows...); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// LabelledOf is the labelled count as every headline states it: "300 of
// 600 labelled".
func LabelledOf(labelled, n int) string {
	return fmt.Sprintf("%d of %d labelled", labelled, n)
}

// splitSlice splits a slice name at its first "=": "type=numeric" is
// ("type", "numeric"), "all" is ("all", nil).
func splitSlice(name string) (string, *string) {
	k, v, ok := strings.Cut(name, "=")
	if !ok {
		return name, nil
	}
	return k, &v
}

// stampRows writes the instance into every row of every table.
func (t *Tables) stampRows(in Instance) {
	id, at := in.ID, in.Millis()
	for i := range t.Metrics {
		t.Metrics[i].RunInstance, t.Metrics[i].StartedAt = id, at
	}
	for i := range t.Confusion {
		t.Confusion[i].RunInstance, t.Confusion[i].StartedAt = id, at
	}
	for i := range t.Calibration {
		t.Calibration[i].RunInstance, t.Calibration[i].StartedAt = id, at
	}
	for i := range t.RiskCoverage {
		t.RiskCoverage[i].RunInstance, t.RiskCoverage[i].StartedAt = id, at
	}
	for i := range t.outputs {
		t.outputs[i].RunInstance, t.outputs[i].StartedAt = id, at
	}
}
