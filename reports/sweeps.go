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
	"gonum.org/v1/plot/vg/draw"
)

// thinPoint: a sweep point resting on fewer answered, labelled claims is
// marked as such.
const thinPoint = 30

// TemperatureSweepRow is one row of temperature_sweep.parquet.
type TemperatureSweepRow struct {
	RunID       string   `parquet:"run_id,dict"`
	Temperature float64  `parquet:"temperature"`
	ECE10       *float64 `parquet:"ece_10,optional"`
	NLL         *float64 `parquet:"nll,optional"`
	RunInstance string   `parquet:"run_instance,dict"`
	StartedAt   int64    `parquet:"started_at,timestamp(millisecond)"`
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
	// AnsweredLabelled is how many answered, labelled claims the rates
	// of this point rest on.
	AnsweredLabelled int64  `parquet:"answered_labelled"`
	RunInstance      string `parquet:"run_instance,dict"`
	StartedAt        int64  `parquet:"started_at,timestamp(millisecond)"`
}

// WriteSweeps writes temperature_sweep.parquet and its plot and
// threshold_sweep.parquet and its plot (in each of formats) for `audit calibrate --sweep`. temps are
// the per-claim (cross-fitted) temperatures of the calibrated stage;
// fitted is the full-data T the temperature grid centres on. Undefined
// values are null and left out of the plots.
func WriteSweeps(dir string, m Meta, outs []metrics.Outcome, temps []float64, fitted float64, formats []string) error {
	if len(formats) == 0 {
		formats = DefaultPlotFormats
	}
	// The grid reaches a factor 4 either side of the fitted temperature.
	ts := metrics.SweepTemperature(outs, metrics.TemperatureGrid(math.Min(0.25, fitted/4), math.Max(4, fitted*4)))
	var trows []TemperatureSweepRow
	for _, p := range ts {
		trows = append(trows, TemperatureSweepRow{RunID: m.RunID, Temperature: p.Temperature, ECE10: fp(p.ECE10), NLL: fp(p.NLL),
			RunInstance: m.Instance.ID, StartedAt: m.Instance.Millis()})
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
				Tier2FAConditional: fp(p.Tier2FAConditional), Tier2FAUnconditional: fp(p.Tier2FAUnconditional),
				AnsweredLabelled: answeredAt(st.outs, p.Threshold), RunInstance: m.Instance.ID, StartedAt: m.Instance.Millis()})
		}
	}
	if err := writeRows(filepath.Join(dir, "threshold_sweep.parquet"), m, hrows); err != nil {
		return err
	}

	tf, err := temperatureSweepFigure(ts, fitted)
	if err != nil {
		return err
	}
	if err := tf.save(dir, formats); err != nil {
		return err
	}
	hf, err := thresholdSweepFigure(hrows)
	if err != nil {
		return err
	}
	return hf.save(dir, formats)
}

// temperatureSweepFigure: ECE (top) and NLL (bottom), each on its own
// axis, over a log temperature axis with the fitted T marked.
func temperatureSweepFigure(ts []metrics.TemperaturePoint, fitted float64) (*figure, error) {
	ece := newPanel(fmt.Sprintf("Temperature sweep (labelled claims; fitted T = %.3f)", fitted), "", "ECE (10 bins)")
	nll := newPanel("", "temperature (log scale)", "NLL (nats per claim)")
	f := newFigure("temperature_sweep", tallH, ece, nll)
	for _, s := range []struct {
		p    *plot.Plot
		name string
		col  color.Color
		val  func(metrics.TemperaturePoint) float64
	}{{ece, "ECE (10 bins)", colCal, func(x metrics.TemperaturePoint) float64 { return x.ECE10 }},
		{nll, "NLL", colRaw, func(x metrics.TemperaturePoint) float64 { return x.NLL }}} {
		s.p.X.Scale, s.p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		s.p.X.Min, s.p.X.Max = ts[0].Temperature, ts[len(ts)-1].Temperature
		var pts plotter.XYs
		hi := 0.0
		for _, x := range ts {
			// Undefined points are left out, never drawn as 0.
			if y := s.val(x); !math.IsNaN(y) && !math.IsInf(y, 0) {
				pts = append(pts, plotter.XY{X: x.Temperature, Y: y})
				hi = math.Max(hi, y)
			}
		}
		s.p.Y.Min, s.p.Y.Max = 0, niceCeil(math.Max(hi, 1e-3)*1.1)
		if len(pts) > 0 {
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width, sc.Color, sc.Radius = s.col, vg.Points(2), s.col, vg.Points(2.5)
			s.p.Add(l, sc)
			f.addLegend(s.p, s.name, l)
		}
		fit, err := plotter.NewLine(plotter.XYs{{X: fitted, Y: 0}, {X: fitted, Y: s.p.Y.Max}})
		if err != nil {
			return nil, err
		}
		fit.Color, fit.Dashes, fit.Width = colGrey, dashed, vg.Points(1.5)
		s.p.Add(fit)
		f.addLegend(s.p, fmt.Sprintf("fitted T = %.3f", fitted), fit)
		s.p.Legend.Left = false
	}
	return f, nil
}

// thresholdSweepFigure: coverage, selective risk and tier-1 false accepts
// (calibrated) as the abstain threshold rises, one panel each, and beneath
// them how many answered, labelled claims stand behind each point.
// Undefined points (nothing answered) are left out.
func thresholdSweepFigure(rows []ThresholdSweepRow) (*figure, error) {
	title := "Abstain-threshold sweep (calibrated, cross-fitted)"
	var panels []*plot.Plot
	qs := []struct {
		name string
		col  color.Color
		val  func(ThresholdSweepRow) *float64
		rate bool // a share of the answered claims, noisy when they are few
	}{{"coverage", colClass[0], func(r ThresholdSweepRow) *float64 { return r.Coverage }, false},
		{"selective risk", colRaw, func(r ThresholdSweepRow) *float64 { return r.SelectiveRisk }, true},
		{"tier-1 FA rate", colCal, func(r ThresholdSweepRow) *float64 { return r.Tier1FAConditional }, true}}
	for i, q := range qs {
		panels = append(panels, newPanel(map[bool]string{true: title}[i == 0], "", q.name))
	}
	counts := newPanel("", "abstain below calibrated confidence", "claims (log)")
	counts.Y.Scale, counts.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	panels = append(panels, counts)
	f := newFigure("threshold_sweep", 9*vg.Inch, panels...)
	lo, hi := 1.0, 0.0
	for _, r := range rows {
		if r.Stage == StageCalibrated && r.Threshold > 0 {
			lo, hi = math.Min(lo, r.Threshold), math.Max(hi, r.Threshold)
		}
	}
	var ticks []plot.Tick
	for _, t := range tenthTicks() {
		if t.Value >= lo-1e-9 && t.Value <= hi+1e-9 {
			ticks = append(ticks, t)
		}
	}
	for _, p := range panels {
		p.X.Min, p.X.Max = lo, hi
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.Legend.Left = false
	}
	for i, q := range qs {
		var pts plotter.XYs
		top := 0.0
		for _, r := range rows {
			if y := q.val(r); r.Stage == StageCalibrated && r.Threshold > 0 && y != nil {
				pts = append(pts, plotter.XY{X: r.Threshold, Y: *y})
				top = math.Max(top, *y)
			}
		}
		p := panels[i]
		p.Y.Min, p.Y.Max = 0, math.Min(1, niceCeil(math.Max(top, 0.01)*1.15))
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = q.col, vg.Points(2)
		p.Add(l)
		// Points resting on few claims are ringed, so a jump there reads
		// as noise.
		var thin plotter.XYs
		for _, r := range rows {
			if y := q.val(r); q.rate && r.Stage == StageCalibrated && r.Threshold > 0 && y != nil && r.AnsweredLabelled < thinPoint {
				thin = append(thin, plotter.XY{X: r.Threshold, Y: *y})
			}
		}
		if len(thin) > 0 {
			sc, err := plotter.NewScatter(thin)
			if err != nil {
				return nil, err
			}
			sc.Color, sc.Shape, sc.Radius = colGrey, draw.CircleGlyph{}, vg.Points(3.5)
			p.Add(sc)
			f.addLegend(p, fmt.Sprintf("under %d claims", thinPoint), sc)
		}
	}
	// Answered, labelled claims behind each point, on a log axis so that
	// 5 and 50 differ visibly; thresholds that keep none are left out.
	var pts plotter.XYs
	top := 1.0
	for _, r := range rows {
		if r.Stage == StageCalibrated && r.Threshold > 0 && r.AnsweredLabelled > 0 {
			pts = append(pts, plotter.XY{X: r.Threshold, Y: float64(r.AnsweredLabelled)})
			top = math.Max(top, float64(r.AnsweredLabelled))
		}
	}
	counts.Y.Min, counts.Y.Max = 1, math.Pow(10, math.Ceil(math.Log10(top*1.2)))
	if len(pts) > 0 {
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = colGrey, vg.Points(2)
		counts.Add(l)
	}
	return f, nil
}

// answeredAt counts the answered, labelled claims a threshold keeps.
func answeredAt(outs []metrics.Outcome, tau float64) int64 {
	var n int64
	for _, o := range outs {
		if o.Abstained || !o.Scored || o.Gold == metrics.Unknown {
			continue
		}
		if p := metrics.Softmax(o.Logits, 1); p[metrics.Argmax(p)] >= tau {
			n++
		}
	}
	return n
}
