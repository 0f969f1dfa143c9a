package reports

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/color"
	"path/filepath"

	_ "embed"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TrendMetrics are the metrics audit trend plots by default.
var TrendMetrics = []string{"accuracy", "macro_f1", "tier1_fa_of_gold_negatives", "tier1_fa_conditional", "ece_10", "coverage", "aurc"}

// TrendView says which series the plots and trend.html show (trend.parquet
// holds every one).
type TrendView struct {
	Metrics []string // default TrendMetrics
	Slice   string   // default all
	Stage   string   // default calibrated
	Formats []string // plot formats; default DefaultPlotFormats
	Gates   []GateResult
}

func (v *TrendView) defaults() {
	if len(v.Metrics) == 0 {
		v.Metrics = TrendMetrics
	}
	if v.Slice == "" {
		v.Slice = "all"
	}
	if v.Stage == "" {
		v.Stage = StageCalibrated
	}
	if len(v.Formats) == 0 {
		v.Formats = DefaultPlotFormats
	}
}

// TrendFiles names what WriteTrend writes for a metric's plot.
func TrendPlotName(metric string) string { return "trend_" + metric }

// WriteTrend writes trend.parquet (every row), a plot per shown metric
// (trend_<metric>.png/.svg) and trend.html into dir.
func (t *TrendTable) Write(dir string, v TrendView) error {
	v.defaults()
	if err := writeRows(filepath.Join(dir, "trend.parquet"), Meta{ToolVersion: ""}, t.Rows); err != nil {
		return err
	}
	var figs []*figure
	for _, m := range v.Metrics {
		f, err := t.trendFigure(m, v.Slice, v.Stage)
		if err != nil {
			return fmt.Errorf("plot %s: %w", TrendPlotName(m), err)
		}
		if f == nil {
			continue
		}
		if err := f.save(dir, v.Formats); err != nil {
			return err
		}
		figs = append(figs, f)
	}
	b, err := t.html(v, figs)
	if err != nil {
		return err
	}
	f, err := CreateAtomic(filepath.Join(dir, "trend.html"))
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

var (
	colFlag     = color.RGBA{R: 200, G: 30, B: 30, A: 255}
	colImproved = color.RGBA{R: 30, G: 130, B: 70, A: 255}
)

// trendFigure plots one metric over the runs (x: run number, oldest
// first): the value with its 95% interval, the band of the previous runs,
// and the runs that left it in red. Nil when no run has a value.
func (t *TrendTable) trendFigure(metric, slice, stage string) (*figure, error) {
	s := t.Series(metric, slice, stage)
	var pts, flagged, improved plotter.XYs
	var errs plotter.YErrors
	var bandLo, bandHi plotter.XYs
	for i, r := range s {
		x := float64(i + 1)
		if r.Value == nil {
			continue
		}
		pts = append(pts, plotter.XY{X: x, Y: *r.Value})
		lo, hi := *r.Value, *r.Value
		if r.CILow != nil && r.CIHigh != nil {
			lo, hi = *r.CILow, *r.CIHigh
		}
		errs = append(errs, struct{ Low, High float64 }{*r.Value - lo, hi - *r.Value})
		if r.BandLow != nil {
			bandLo, bandHi = append(bandLo, plotter.XY{X: x, Y: *r.BandLow}), append(bandHi, plotter.XY{X: x, Y: *r.BandHigh})
		}
		if r.Flagged {
			flagged = append(flagged, plotter.XY{X: x, Y: *r.Value})
		}
		if r.Improved {
			improved = append(improved, plotter.XY{X: x, Y: *r.Value})
		}
	}
	if len(pts) == 0 {
		return nil, nil
	}
	p := newPanel(fmt.Sprintf("%s (slice %s, %s; %s) over %d runs", metric, slice, stage, WorseWay(metric), len(s)), "run (oldest first; label: start date, UTC)", metric)
	f := newFigure(TrendPlotName(metric), slideH, p)
	f.below = true
	if err := addBand(f, p, bandLo, bandHi, t.opts.Window); err != nil {
		return nil, err
	}
	line, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width, sc.Color, sc.Shape = colCal, vg.Points(2), colCal, draw.CircleGlyph{}
	eb := &plotter.YErrorBars{XYs: pts, YErrors: errs, LineStyle: draw.LineStyle{Color: colCal, Width: vg.Points(1)}, CapWidth: vg.Points(6)}
	p.Add(line, sc, eb)
	f.addLegend(p, "value, with its 95% bootstrap interval", line, sc)
	if len(flagged) > 0 {
		fs, err := plotter.NewScatter(flagged)
		if err != nil {
			return nil, err
		}
		fs.Color, fs.Shape, fs.Radius = colFlag, draw.RingGlyph{}, vg.Points(9)
		p.Add(fs)
		what := "worse: left the previous runs' band"
		if WorseWay(metric) == EitherWay {
			what = "left the previous runs' band"
		}
		f.addLegend(p, what, fs)
	}
	if len(improved) > 0 {
		is, err := plotter.NewScatter(improved)
		if err != nil {
			return nil, err
		}
		is.Color, is.Shape, is.Radius = colImproved, draw.RingGlyph{}, vg.Points(9)
		p.Add(is)
		f.addLegend(p, "better: left the band the better way", is)
	}
	p.X.Min, p.X.Max = 0.5, float64(len(s))+0.5
	p.X.Tick.Marker = runTicks(s)
	return f, nil
}

// addBand draws the previous runs' band (lowest and highest value) as two
// dashed grey step lines.
func addBand(f *figure, p *plot.Plot, lo, hi plotter.XYs, window int) error {
	if len(lo) == 0 {
		return nil
	}
	for i, xy := range []plotter.XYs{lo, hi} {
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes, l.StepStyle = colGrey, vg.Points(1.5), dashed, plotter.MidStep
		p.Add(l)
		if i == 0 {
			f.addLegend(p, fmt.Sprintf("band: lowest–highest of the previous %d runs", window), l)
		}
	}
	return nil
}

// runTicks labels each run with its number and start date.
func runTicks(s []TrendRow) plot.ConstantTicks {
	every := max(1, len(s)/12)
	var ticks plot.ConstantTicks
	for i, r := range s {
		label := ""
		if i%every == 0 || i == len(s)-1 {
			label = fmt.Sprintf("%d\n%s", i+1, InstanceOf(r.RunInstance, r.StartedAt).StartedAt.Format("01-02 15:04"))
		}
		ticks = append(ticks, plot.Tick{Value: float64(i + 1), Label: label})
	}
	return ticks
}

//go:embed trend.html.tmpl
var trendTemplate string

var trendTmpl = template.Must(template.New("trend").Parse(trendTemplate))

type trendPage struct {
	View   TrendView
	Runs   int
	First  string
	Last   string
	Window int
	Series []trendSeries
}

type trendSeries struct {
	Metric    string
	Plot      template.URL
	Rows      []trendLine
	Flagged   int
	Improved  int
	Direction string
}

type trendLine struct {
	N                          int
	Started, Instance, RunID   string
	Run, Value, Interval, Band string
	Flagged, Improved          bool
}

func (t *TrendTable) html(v TrendView, figs []*figure) ([]byte, error) {
	p := trendPage{View: v, Runs: len(t.Runs), Window: t.opts.Window}
	if len(t.Runs) > 0 {
		p.First, p.Last = t.Runs[0].Instance.Stamp(), t.Runs[len(t.Runs)-1].Instance.Stamp()
	}
	plots := map[string]template.URL{}
	for _, f := range figs {
		b, err := f.render(FormatSVG)
		if err != nil {
			return nil, err
		}
		plots[f.name] = template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(b))
	}
	for _, m := range v.Metrics {
		s := trendSeries{Metric: m, Plot: plots[TrendPlotName(m)], Direction: WorseWay(m).String()}
		for i, r := range t.Series(m, v.Slice, v.Stage) {
			l := trendLine{N: i + 1, Started: InstanceOf(r.RunInstance, r.StartedAt).Stamp(), Instance: r.RunInstance, RunID: r.RunID,
				Run: r.Run, Value: FormatMetric(m, r.Value, false), Flagged: r.Flagged, Improved: r.Improved}
			if r.CILow != nil && r.CIHigh != nil {
				l.Interval = fmt.Sprintf("[%.3f, %.3f]", *r.CILow, *r.CIHigh)
			}
			if r.BandLow != nil {
				l.Band = fmt.Sprintf("%s – %s", FormatMetric(m, r.BandLow, false), FormatMetric(m, r.BandHigh, false))
			}
			if r.Flagged {
				s.Flagged++
			}
			if r.Improved {
				s.Improved++
			}
			s.Rows = append(s.Rows, l)
		}
		p.Series = append(p.Series, s)
	}
	var buf bytes.Buffer
	if err := trendTmpl.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("render trend.html: %w", err)
	}
	return buf.Bytes(), nil
}
