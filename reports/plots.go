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

var (
	colRaw   = color.RGBA{R: 200, G: 60, B: 50, A: 255}
	colCal   = color.RGBA{R: 40, G: 90, B: 200, A: 255}
	colClass = []color.Color{color.RGBA{R: 46, G: 139, B: 87, A: 255}, color.RGBA{R: 200, G: 60, B: 50, A: 255}, color.RGBA{R: 120, G: 120, B: 120, A: 255}}
)

// plots writes the four PNGs.
func (t *Tables) plots(dir string) error {
	for name, draw := range map[string]func() (*plot.Plot, error){
		"reliability.png": t.reliabilityPlot, "confidence.png": t.confidencePlot,
		"risk_coverage.png": t.riskCoveragePlot, "confusion.png": t.confusionPlot,
	} {
		p, err := draw()
		if err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		if err := savePNG(p, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func savePNG(p *plot.Plot, path string) error {
	wt, err := p.WriterTo(7*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return err
	}
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	if _, err := wt.WriteTo(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// reliabilityPlot: accuracy against mean confidence per 10-bin, raw and
// calibrated, with the diagonal and each bin's count.
func (t *Tables) reliabilityPlot() (*plot.Plot, error) {
	p := plot.New()
	raw, cal := t.Reliability[0], t.Reliability[1]
	p.Title.Text = fmt.Sprintf("Reliability (10 bins): ECE %s raw, %s calibrated (%s)", num(fp(raw.ECE10)), num(fp(cal.ECE10)), calibrationLine(&t.Summary))
	p.X.Label.Text, p.Y.Label.Text = "confidence", "accuracy"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return nil, err
	}
	diag.Color = color.Gray{Y: 150}
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(diag)
	p.Legend.Add("perfect calibration", diag)
	p.Legend.Top, p.Legend.Left = true, true
	for _, s := range []struct {
		name string
		rep  metrics.CalibrationReport
		col  color.Color
	}{{"raw", raw, colRaw}, {"calibrated", cal, colCal}} {
		var pts plotter.XYs
		var labels []string
		for _, b := range s.rep.Bins[metrics.EqualWidth10] {
			if b.Count > 0 {
				pts = append(pts, plotter.XY{X: b.MeanConfidence, Y: b.Accuracy})
				labels = append(labels, fmt.Sprint(b.Count))
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		l.Color, sc.Color = s.col, s.col
		p.Add(l, sc)
		p.Legend.Add(s.name, l, sc)
		if s.name == "raw" {
			lab, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
			if err != nil {
				return nil, err
			}
			p.Add(lab)
		}
	}
	return p, nil
}

// confidencePlot: how many answered claims fall in each confidence tenth,
// per predicted label (calibrated).
func (t *Tables) confidencePlot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Confidence of answered claims by predicted label (calibrated)"
	p.X.Label.Text, p.Y.Label.Text = "confidence bin (upper edge)", "claims"
	var counts [3][10]float64
	for _, o := range t.scaled {
		if o.Abstained || !o.Scored {
			continue
		}
		pr := metrics.Softmax(o.Logits, 1)
		k := metrics.Argmax(pr)
		b := int(math.Ceil(pr[k]*10)) - 1
		b = max(0, min(9, b))
		counts[k][b]++
	}
	w := vg.Points(8)
	for k := 0; k < 3; k++ {
		bars, err := plotter.NewBarChart(plotter.Values(counts[k][:]), w)
		if err != nil {
			return nil, err
		}
		bars.Color = colClass[k]
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(k-1) * w
		p.Add(bars)
		p.Legend.Add(metrics.ClassNames[k], bars)
	}
	p.Legend.Top, p.Legend.Left = true, true
	names := make([]string, 10)
	for i := range names {
		names[i] = fmt.Sprintf("%.1f", float64(i+1)/10)
	}
	p.NominalX(names...)
	return p, nil
}

// riskCoveragePlot: risk (errors ÷ accepted) as the confidence threshold
// admits more claims, raw and calibrated, with AURC.
func (t *Tables) riskCoveragePlot() (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = "coverage (share of answered claims accepted)", "risk (error rate among accepted)"
	p.X.Min, p.X.Max, p.Y.Min = 0, 1, 0
	title := "Risk–coverage"
	for _, s := range []struct {
		name string
		outs []metrics.Outcome
		col  color.Color
	}{{"raw", t.outcomes, colRaw}, {"calibrated", t.scaled, colCal}} {
		rc := metrics.RiskCoverage(s.outs, 1)
		if len(rc) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(rc))
		for i, x := range rc {
			pts[i] = plotter.XY{X: x.Coverage, Y: x.Risk}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = s.col
		l.Width = vg.Points(1.5)
		p.Add(l)
		aurc := metrics.AURC(rc, 1)
		p.Legend.Add(fmt.Sprintf("%s (AURC %.3f)", s.name, aurc), l)
		if s.name == "calibrated" {
			title = fmt.Sprintf("Risk–coverage: AURC %.3f", aurc)
		}
	}
	p.Title.Text = title
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

type confusionGrid struct{ c [3][3]float64 }

func (g confusionGrid) Dims() (c, r int)   { return 3, 3 }
func (g confusionGrid) Z(c, r int) float64 { return g.c[2-r][c] }
func (g confusionGrid) X(c int) float64    { return float64(c) }
func (g confusionGrid) Y(r int) float64    { return float64(r) }

// confusionPlot: gold (rows) × predicted (columns) over answered, labelled
// claims, with counts.
func (t *Tables) confusionPlot() (*plot.Plot, error) {
	p := plot.New()
	c := metrics.Count(t.outcomes)
	var g confusionGrid
	var xy plotter.XYs
	var labels []string
	maxv := 1.0
	for r := 0; r < 3; r++ {
		for col := 0; col < 3; col++ {
			v := float64(c.Confusion[r][col])
			g.c[r][col] = v
			maxv = math.Max(maxv, v)
			xy = append(xy, plotter.XY{X: float64(col), Y: float64(2 - r)})
			labels = append(labels, fmt.Sprint(c.Confusion[r][col]))
		}
	}
	p.Title.Text = fmt.Sprintf("Confusion (answered, labelled claims: %d); rows gold, columns predicted", c.AnsweredLabelled)
	pal := &blues{max: maxv}
	hm := plotter.NewHeatMap(g, pal)
	hm.Min, hm.Max = 0, maxv
	p.Add(hm)
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	if err != nil {
		return nil, err
	}
	p.Add(lab)
	p.NominalX(metrics.ClassNames[:]...)
	p.NominalY(metrics.ClassNames[2], metrics.ClassNames[1], metrics.ClassNames[0])
	p.X.Label.Text, p.Y.Label.Text = "predicted", "gold"
	return p, nil
}

// blues is a white-to-blue palette.
type blues struct{ max float64 }

func (b *blues) Colors() []color.Color {
	cs := make([]color.Color, 64)
	for i := range cs {
		f := float64(i) / 63
		cs[i] = color.RGBA{R: uint8(255 - 200*f), G: uint8(255 - 140*f), B: 255, A: 255}
	}
	return cs
}
