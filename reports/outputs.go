package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"time"

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
}

// ConfusionRow is one cell of confusion.parquet.
type ConfusionRow struct {
	RunID          string `parquet:"run_id,dict"`
	Slice          string `parquet:"slice,dict"`
	GoldLabel      string `parquet:"gold_label,dict"`
	PredictedLabel string `parquet:"predicted_label,dict"`
	Count          int64  `parquet:"count"`
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
}

// RiskCoverageRow is one point of risk_coverage.parquet.
type RiskCoverageRow struct {
	RunID     string  `parquet:"run_id,dict"`
	Stage     string  `parquet:"stage,dict"`
	Threshold float64 `parquet:"threshold"`
	Coverage  float64 `parquet:"coverage"`
	Risk      float64 `parquet:"risk"`
}

// Stages of every metric: raw (T = 1) and calibrated (the applied T; equal
// to raw when no temperature was applied).
const (
	StageRaw        = "raw"
	StageCalibrated = "calibrated"
)

// Input is what the report files are computed from.
type Input struct {
	RunID       string
	ToolVersion string
	Outcomes    []metrics.Outcome
	Temperature float64
	Calibration metrics.CalibrationResult
	Seed        uint64 // bootstrap
	Resamples   int    // bootstrap; default 1000
	// MaxSourceSlices: sources with a slice of their own (the largest;
	// the rest pooled in metrics.OtherSources); 0: the default cap, -1:
	// every source.
	MaxSourceSlices int
	// Manifest is written as manifest.json (inputs, settings, timings);
	// Write fills its ids, versions and time.
	Manifest Manifest
}

// Summary is summary.json: the headline numbers a person or a job reads.
type Summary struct {
	RunID              string                        `json:"run_id"`
	SchemaVersion      string                        `json:"schema_version"`
	Claims             int                           `json:"claims"`
	Temperature        float64                       `json:"temperature"`
	CalibrationApplied bool                          `json:"calibration_applied"`
	Metrics            map[string]float64            `json:"metrics"`   // slice all, stage calibrated
	Intervals          map[string][2]float64         `json:"intervals"` // 95% bootstrap
	RawMetrics         map[string]float64            `json:"raw_metrics"`
	Confusion          map[string]map[string]int     `json:"confusion"` // gold → predicted → count
	Verdicts           map[string]int                `json:"verdicts"`
	QualityGates       metrics.Gates                 `json:"quality_gates"`
	CalibrationBounds  map[string]any                `json:"calibration_bounds"`
	Slices             map[string]map[string]float64 `json:"slices"`
	Gates              []GateResult                  `json:"gates,omitempty"`
}

func fp(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Compute derives every table of a report. It is what `audit run` and
// `audit report` both call, so the two give identical files.
func Compute(in Input) (*Tables, error) {
	if in.Resamples == 0 {
		in.Resamples = 1000
	}
	t := &Tables{Summary: Summary{RunID: in.RunID, SchemaVersion: SchemaVersion, Claims: len(in.Outcomes), Temperature: in.Temperature,
		CalibrationApplied: in.Calibration.Applied, Metrics: map[string]float64{}, Intervals: map[string][2]float64{},
		RawMetrics: map[string]float64{}, Confusion: map[string]map[string]int{}, Verdicts: map[string]int{}, Slices: map[string]map[string]float64{}}}
	stages := []struct {
		name string
		temp float64
	}{{StageRaw, 1}, {StageCalibrated, in.Temperature}}
	for _, sl := range metrics.SlicesWith(in.Outcomes, metrics.SliceOptions{MaxSources: in.MaxSourceSlices}) {
		outs := sl.Pick(in.Outcomes)
		for _, st := range stages {
			m, err := metrics.Headline(outs, st.temp)
			if err != nil {
				return nil, err
			}
			// Intervals for "all" always; for a smaller slice only from
			// metrics.MinBootstrapClaims claims up (null below).
			var ci map[string]metrics.Interval
			if sl.Name == "all" || len(outs) >= metrics.MinBootstrapClaims {
				if ci, err = metrics.Bootstrap(outs, st.temp, metrics.BootstrapOptions{Resamples: in.Resamples, Seed: in.Seed}); err != nil {
					return nil, err
				}
			}
			for _, x := range m {
				row := MetricRow{RunID: in.RunID, Metric: x.Name, Slice: sl.Name, Stage: st.name, Value: fp(x.Value)}
				if iv, ok := ci[x.Name]; ok {
					row.CILow, row.CIHigh = fp(iv.Low), fp(iv.High)
				}
				t.Metrics = append(t.Metrics, row)
				if sl.Name == "all" && st.name == StageCalibrated {
					t.Summary.Metrics[x.Name] = finiteOr0(x.Value)
					if iv, ok := ci[x.Name]; ok {
						t.Summary.Intervals[x.Name] = [2]float64{iv.Low, iv.High}
					}
				}
				if sl.Name == "all" && st.name == StageRaw {
					t.Summary.RawMetrics[x.Name] = finiteOr0(x.Value)
				}
				if sl.Name != "all" && st.name == StageCalibrated && (x.Name == "n" || x.Name == "accuracy" || x.Name == "macro_f1" || x.Name == "tier1_fa_conditional" || x.Name == "coverage") {
					if t.Summary.Slices[sl.Name] == nil {
						t.Summary.Slices[sl.Name] = map[string]float64{}
					}
					t.Summary.Slices[sl.Name][x.Name] = finiteOr0(x.Value)
				}
			}
		}
		c := metrics.Count(outs)
		for g := 0; g < 3; g++ {
			for p := 0; p < 3; p++ {
				t.Confusion = append(t.Confusion, ConfusionRow{RunID: in.RunID, Slice: sl.Name, GoldLabel: metrics.ClassNames[g],
					PredictedLabel: metrics.ClassNames[p], Count: int64(c.Confusion[g][p])})
				if sl.Name == "all" {
					if t.Summary.Confusion[metrics.ClassNames[g]] == nil {
						t.Summary.Confusion[metrics.ClassNames[g]] = map[string]int{}
					}
					t.Summary.Confusion[metrics.ClassNames[g]][metrics.ClassNames[p]] = c.Confusion[g][p]
				}
			}
		}
	}
	for _, st := range stages {
		cal := metrics.Calibration(in.Outcomes, st.temp)
		for _, scheme := range []string{metrics.EqualWidth10, metrics.EqualWidth15, metrics.EqualMass10} {
			for _, b := range cal.Bins[scheme] {
				t.Calibration = append(t.Calibration, CalibrationRow{RunID: in.RunID, Stage: st.name, Scheme: scheme, Bin: int32(b.Index),
					Lo: fp(b.Lo), Hi: fp(b.Hi), Count: int64(b.Count), MeanConfidence: fp(b.MeanConfidence), Accuracy: fp(b.Accuracy)})
			}
		}
		t.Reliability = append(t.Reliability, cal)
		for _, p := range metrics.RiskCoverage(in.Outcomes, st.temp) {
			t.RiskCoverage = append(t.RiskCoverage, RiskCoverageRow{RunID: in.RunID, Stage: st.name, Threshold: p.Threshold, Coverage: p.Coverage, Risk: p.Risk})
		}
	}
	for _, o := range in.Outcomes {
		t.Summary.Verdicts[metrics.VerdictOf(o, in.Temperature)]++
	}
	t.Summary.QualityGates = metrics.QualityGates(in.Outcomes, in.Temperature)
	b := metrics.CalibrationBounds(in.Outcomes, in.Temperature)
	t.Summary.CalibrationBounds = map[string]any{
		"supported_accuracy_at_p80": finiteOr0(b.SupportedAccuracy), "supported_n_at_p80": b.SupportedN,
		"unsupported_accuracy_at_p80": finiteOr0(b.UnsupportedAccuracy), "unsupported_n_at_p80": b.UnsupportedN,
		"pass": b.CalibrationPass, "supported_rate": b.SupportedRate, "refuted_rate": b.RefutedRate,
		"degenerate_supported": b.DegenerateSupported, "degenerate_refuted": b.DegenerateRefuted,
	}
	t.outcomes = in.Outcomes
	t.temperature = in.Temperature
	t.manifest = in.Manifest
	t.meta = Meta{RunID: in.RunID, ToolVersion: in.ToolVersion}
	return t, nil
}

// Tables are the computed contents of a report folder.
type Tables struct {
	Summary      Summary
	Metrics      []MetricRow
	Confusion    []ConfusionRow
	Calibration  []CalibrationRow
	RiskCoverage []RiskCoverageRow
	Reliability  []metrics.CalibrationReport // raw, calibrated

	outcomes    []metrics.Outcome
	temperature float64
	manifest    Manifest
	meta        Meta
}

// Files written by Write (records.parquet is written by the pipeline).
var Files = []string{"metrics.parquet", "confusion.parquet", "calibration.parquet", "risk_coverage.parquet",
	"reliability.png", "confidence.png", "risk_coverage.png", "confusion.png", "summary.json", "manifest.json"}

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
	if err := t.plots(dir); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "summary.json"), t.Summary); err != nil {
		return err
	}
	m := t.manifest
	m.RunID, m.ToolVersion, m.SchemaVersion, m.ManifestVersion = t.meta.RunID, t.meta.ToolVersion, SchemaVersion, ManifestVersion
	m.WrittenAt = time.Now().UTC().Format(time.RFC3339)
	return writeJSON(filepath.Join(dir, "manifest.json"), m)
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
