package reports

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"github.com/claimaudit/claimaudit/metrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// TemperatureSweepRow is one row of temperature_sweep.parquet.
type TemperatureSweepRow struct {
	RunID       string   `parquet:"run_id,dict"`
	Temperature float64  `parquet:"temperature"`
	ECE10       *float64 `parquet:"ece_10,optional"`
	NLL         *float64 `parquet:"nll,optional"`
}

// ThresholdSweepRow is one row of threshold_sweep.parquet.
type ThresholdSweepRow struct {
	RunID                string   `parquet:"run_id,dict"`
	Stage                string   `parquet:"stage,dict"`
	Threshold            float64  `parquet:"threshold"`
	Coverage             *float64 `parquet:"coverage,optional"`
	SelectiveRisk        *float64 `parquet:"selective_risk,optional"`
	Tier1FAConditional   *float64 `parquet:"tier1_fa_conditional,optional"`
	Tier1FAUnconditional *float64 `parquet:"tier1_fa_unconditional,optional"`
	Tier2FAConditional   *float64 `parquet:"tier2_fa_conditional,optional"`
	Tier2FAUnconditional *float64 `parquet:"tier2_fa_unconditional,optional"`
}

// WriteSweeps writes temperature_sweep.parquet/.png and
// threshold_sweep.parquet/.png for `audit calibrate --sweep`. temps are
// the per-claim (cross-fitted) temperatures of the calibrated stage;
// fitted is the full-data T the temperature grid centres on. Undefined
// values are null and left out of the plots.
func WriteSweeps(dir string, m Meta, outs []metrics.Outcome, temps []float64, fitted float64) error {
	// The grid reaches a factor 4 either side of the fitted temperature.
	ts := metrics.SweepTemperature(outs, metrics.TemperatureGrid(math.Min(0.25, fitted/4), math.Max(4, fitted*4)))
	var trows []TemperatureSweepRow
	for _, p := range ts {
		trows = append(trows, TemperatureSweepRow{RunID: m.RunID, Temperature: p.Temperature, ECE10: fp(p.ECE10), NLL: fp(p.NLL)})
	}
	if err := writeRows(filepath.Join(dir, "temperature_sweep.parquet"), m, trows); err != nil {
		return err
	}
	var hrows []ThresholdSweepRow
	for _, st := range []struct {
		name string
		outs []metrics.Outcome
	}{{StageRaw, outs}, {StageCalibrated, metrics.Scaled(outs, temps)}} {
		for _, p := range metrics.SweepAbstain(st.outs, 1, metrics.DefaultThresholdGrid()) {
			hrows = append(hrows, ThresholdSweepRow{RunID: m.RunID, Stage: st.name, Threshold: p.Threshold, Coverage: fp(p.Coverage),
				SelectiveRisk: fp(p.SelectiveRisk), Tier1FAConditional: fp(p.Tier1FAConditional), Tier1FAUnconditional: fp(p.Tier1FAUnconditional),
				Tier2FAConditional: fp(p.Tier2FAConditional), Tier2FAUnconditional: fp(p.Tier2FAUnconditional)})
		}
	}
	if err := writeRows(filepath.Join(dir, "threshold_sweep.parquet"), m, hrows); err != nil {
		return err
	}

	p := plot.New()
	p.Title.Text = fmt.Sprintf("Temperature sweep: fitted T = %.3f", fitted)
	p.X.Label.Text, p.Y.Label.Text = "temperature", "ECE (10 bins) and NLL"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
	for _, s := range []struct {
		name string
		col  color.Color
		val  func(metrics.TemperaturePoint) float64
	}{{"ECE (10 bins)", colCal, func(x metrics.TemperaturePoint) float64 { return x.ECE10 }},
		{"NLL", colRaw, func(x metrics.TemperaturePoint) float64 { return x.NLL }}} {
		var pts plotter.XYs
		for _, x := range ts {
			if y := s.val(x); !math.IsNaN(y) {
				pts = append(pts, plotter.XY{X: x.Temperature, Y: y})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color, sc.Color = s.col, s.col
		p.Add(l, sc)
		p.Legend.Add(s.name, l)
	}
	p.Legend.Top = true
	if top := ts[0].NLL; !math.IsNaN(top) {
		fit, err := plotter.NewLine(plotter.XYs{{X: fitted, Y: 0}, {X: fitted, Y: top}})
		if err != nil {
			return err
		}
		fit.Color = color.Gray{Y: 120}
		fit.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(fit)
		p.Legend.Add(fmt.Sprintf("fitted T = %.3f", fitted), fit)
	}
	if err := savePNG(p, filepath.Join(dir, "temperature_sweep.png")); err != nil {
		return err
	}

	q := plot.New()
	q.Title.Text = "Abstain-threshold sweep (calibrated, cross-fitted)"
	q.X.Label.Text, q.Y.Label.Text = "abstain below confidence", "share"
	q.Y.Min, q.Y.Max = 0, 1
	for _, s := range []struct {
		name string
		col  color.Color
		val  func(ThresholdSweepRow) *float64
	}{{"coverage", colClass[0], func(r ThresholdSweepRow) *float64 { return r.Coverage }},
		{"selective risk", colRaw, func(r ThresholdSweepRow) *float64 { return r.SelectiveRisk }},
		{"tier-1 FA (of answered)", colCal, func(r ThresholdSweepRow) *float64 { return r.Tier1FAConditional }}} {
		var pts plotter.XYs
		for _, r := range hrows {
			// An undefined value (nothing answered at this threshold) is
			// left out, never drawn as 0.
			if y := s.val(r); r.Stage == StageCalibrated && r.Threshold > 0 && y != nil {
				pts = append(pts, plotter.XY{X: r.Threshold, Y: *y})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = s.col
		l.Width = vg.Points(1.5)
		q.Add(l)
		q.Legend.Add(s.name, l)
	}
	q.Legend.Top, q.Legend.Left = true, true
	return savePNG(q, filepath.Join(dir, "threshold_sweep.png"))
}
