package reports

import (
	"fmt"
	"image/color"
	"math"

	"github.com/claimaudit/claimaudit/metrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figures builds the four plots of a report, in the order the HTML report
// shows them.
func (t *Tables) figures() ([]*figure, error) {
	var out []*figure
	for _, build := range []func() (*figure, error){t.reliabilityFigure, t.riskCoverageFigure, t.confusionFigure, t.confidenceFigure} {
		f, err := build()
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func (t *Tables) formats() []string {
	if len(t.plotFormats) == 0 {
		return DefaultPlotFormats
	}
	return t.plotFormats
}

// reliabilityFigure: accuracy against mean confidence per equal-width
// tenth, raw and calibrated (out of sample), over the diagonal; beneath, how
// many claims each bin holds, for both.
func (t *Tables) reliabilityFigure() (*figure, error) {
	raw, cal := t.Reliability[0], t.Reliability[1]
	top := newPanel("Reliability, 10 equal-width bins. Temperature scaling: "+calibrationLine(&t.Summary), "", "accuracy")
	top.X.Min, top.X.Max, top.Y.Min, top.Y.Max = 0, 1, 0, 1.02
	bottom := newPanel("", "confidence (mean of the bin)", "claims")
	bottom.X.Min, bottom.X.Max = 0, 1
	bottom.Y.Min = 0
	bottom.Y.Tick.Marker = countTicks{}
	bottom.Legend.Top, bottom.Legend.Left = true, true
	f := newFigure("reliability", tallH, top, bottom)
	f.weights = []float64{2.6, 1}

	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return nil, err
	}
	diag.Color, diag.Dashes = colGrey, dotted
	top.Add(diag)
	f.addLegend(top, "perfect calibration", diag)

	maxCount := 0
	series := []struct {
		name   string
		rep    metrics.CalibrationReport
		col    color.Color
		shape  draw.GlyphDrawer
		dashes []vg.Length
		offset float64 // of the count bars, in confidence units
	}{{"raw (T = 1)", raw, colRaw, draw.CircleGlyph{}, nil, -0.0125},
		{"calibrated, out of sample", cal, colCal, draw.TriangleGlyph{}, dashed, 0.0125}}
	for _, s := range series {
		var pts, counts plotter.XYs
		for _, b := range s.rep.Bins[metrics.EqualWidth10] {
			mid := (b.Lo + b.Hi) / 2
			counts = append(counts, plotter.XY{X: mid + s.offset, Y: float64(b.Count)})
			maxCount = max(maxCount, b.Count)
			if b.Count > 0 {
				pts = append(pts, plotter.XY{X: b.MeanConfidence, Y: b.Accuracy})
			}
		}
		name := fmt.Sprintf("%s: ECE %s", s.name, num(fp(s.rep.ECE10)))
		if len(pts) > 0 {
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width, l.Dashes = s.col, vg.Points(2), s.dashes
			sc.Color, sc.Shape, sc.Radius = s.col, s.shape, vg.Points(5)
			top.Add(l, sc)
			f.addLegend(top, name, l, sc)
		}
		bars, err := newBars(counts, s.col, 0.024)
		if err != nil {
			return nil, err
		}
		bottom.Add(bars)
		f.addLegend(bottom, s.name+": claims per bin", bars)
	}
	bottom.Y.Max = niceCeil(float64(maxCount) * 1.35)
	return f, nil
}

// newBars draws one bar per point, width in data units, as filled
// rectangles: plotter.BarChart places bars by index, not at an x.
func newBars(pts plotter.XYs, col color.Color, width float64) (*bars, error) {
	return &bars{pts: pts, col: col, width: width}, nil
}

type bars struct {
	pts   plotter.XYs
	col   color.Color
	width float64
}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, pt := range b.pts {
		if pt.Y <= 0 {
			continue
		}
		r := vg.Rectangle{Min: vg.Point{X: tx(pt.X - b.width/2), Y: ty(0)}, Max: vg.Point{X: tx(pt.X + b.width/2), Y: ty(pt.Y)}}
		c.SetColor(b.col)
		c.Fill(r.Path())
	}
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, p := range b.pts {
		xmin, xmax, ymax = math.Min(xmin, p.X-b.width/2), math.Max(xmax, p.X+b.width/2), math.Max(ymax, p.Y)
	}
	return xmin, xmax, 0, ymax
}

func (b *bars) Thumbnail(c *draw.Canvas) {
	c.SetColor(b.col)
	c.Fill(c.Rectangle.Path())
}

// oracleRisk is the risk–coverage curve of the best possible ordering of n
// claims with e errors: every correct claim first.
func oracleRisk(n, e int) plotter.XYs {
	if n == 0 {
		return nil
	}
	pts := plotter.XYs{{X: 0, Y: 0}}
	good := n - e
	if good > 0 {
		pts = append(pts, plotter.XY{X: float64(good) / float64(n), Y: 0})
	}
	steps := 100
	for i := 1; i <= steps; i++ {
		m := good + int(math.Round(float64(e)*float64(i)/float64(steps)))
		if m == 0 {
			continue
		}
		pts = append(pts, plotter.XY{X: float64(m) / float64(n), Y: float64(m-good) / float64(m)})
	}
	return pts
}

// riskCoverageFigure: risk (errors ÷ accepted) as the confidence threshold
// admits more answered, labelled claims, raw and calibrated, with the
// oracle (best possible ordering) and a random ordering (the overall error
// rate at every coverage) for reference.
func (t *Tables) riskCoverageFigure() (*figure, error) {
	p := newPanel("", "coverage (share of answered, labelled claims accepted, most confident first)", "risk: the verifier's own label wrong")
	f := newFigure("risk_coverage", slideH, p)
	// The curves can be anywhere: the legend goes under the plot.
	f.below = true
	p.X.Min, p.X.Max, p.Y.Min = 0, 1, 0
	maxRisk := 0.0
	title := "Risk–coverage"
	n, e := 0, 0
	for i, s := range []struct {
		name   string
		col    color.Color
		dashes []vg.Length
	}{{"raw", colRaw, nil}, {"calibrated", colCal, dashed}} {
		c := t.curves[i]
		if len(c.points) == 0 {
			continue
		}
		// Drawn from the thinned points the table holds (at most
		// metrics.CurvePoints+2): a million points draw no better than a
		// thousand. The AURC is the full curve's.
		pts := make(plotter.XYs, 0, len(c.points))
		for _, x := range c.points {
			pts = append(pts, plotter.XY{X: x.Coverage, Y: x.Risk})
			// The first few claims say little: the axis is sized by the
			// curve from 5% coverage on, and clamps what lies above.
			if x.Coverage >= 0.05 {
				maxRisk = math.Max(maxRisk, x.Risk)
			}
		}
		n, e = c.n, c.e
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = s.col, vg.Points(2), s.dashes
		p.Add(l)
		f.addLegend(p, fmt.Sprintf("%s (AURC %.3f)", s.name, c.aurc), l)
		if s.name == "calibrated" {
			title = fmt.Sprintf("Risk–coverage of the verifier's own labels (%d answered, labelled; calibrated AURC %.3f)", n, c.aurc)
		}
	}
	if n > 0 {
		o, err := plotter.NewLine(oracleRisk(n, e))
		if err != nil {
			return nil, err
		}
		o.Color, o.Width, o.Dashes = colOracle, vg.Points(1.5), dotted
		p.Add(o)
		f.addLegend(p, fmt.Sprintf("oracle: errors last (AURC %.3f)", metrics.OracleAURC(n, e)), o)
		rate := float64(e) / float64(n)
		r, err := plotter.NewLine(plotter.XYs{{X: 0, Y: rate}, {X: 1, Y: rate}})
		if err != nil {
			return nil, err
		}
		r.Color, r.Width, r.Dashes = colGrey, vg.Points(1.5), dashed
		p.Add(r)
		what := fmt.Sprintf("random order (error rate %.3f)", rate)
		if acc := t.Summary.Metrics["accuracy"]; acc != nil && math.Abs(1-*acc-rate) > 0.0005 {
			// The headline's accuracy is of the final labels, after the
			// labelling rules; this curve ranks the verifier's argmax.
			what = fmt.Sprintf("random order (error %.3f; final labels %.3f)", rate, 1-*acc)
		}
		f.addLegend(p, what, r)
		maxRisk = math.Max(maxRisk, rate)
	}
	p.Title.Text = title
	// Just above the curves, never past 1.
	p.Y.Max = math.Min(1, niceCeil(math.Max(maxRisk, 0.01)*1.1))
	return f, nil
}

func answeredLabelled(outs []metrics.Outcome) int {
	n := 0
	for _, o := range outs {
		if !o.Abstained && o.Scored && o.Gold != metrics.Unknown {
			n++
		}
	}
	return n
}

type confusionGrid struct{ z [3][3]float64 }

func (g confusionGrid) Dims() (c, r int)   { return 3, 3 }
func (g confusionGrid) Z(c, r int) float64 { return g.z[2-r][c] }
func (g confusionGrid) X(c int) float64    { return float64(c) }
func (g confusionGrid) Y(r int) float64    { return float64(r) }

// confusionCells are the confusion figure's cell labels: the count and its
// share of the gold row; the colour is the row share.
func confusionCells(c metrics.Counts) (share [3][3]float64, labels [3][3]string) {
	for r := 0; r < 3; r++ {
		row := 0
		for col := 0; col < 3; col++ {
			row += c.Confusion[r][col]
		}
		for col := 0; col < 3; col++ {
			v := c.Confusion[r][col]
			if row == 0 {
				labels[r][col] = fmt.Sprintf("%d\n—", v)
				continue
			}
			share[r][col] = float64(v) / float64(row)
			labels[r][col] = fmt.Sprintf("%d\n%.1f%% of row", v, 100*share[r][col])
		}
	}
	return share, labels
}

// confusionFigure: gold (rows) × predicted (columns) over answered,
// labelled claims, each cell with its count and its share of the row.
func (t *Tables) confusionFigure() (*figure, error) {
	c := t.counts
	p := newPanel(fmt.Sprintf("Confusion (%d answered, labelled claims): rows gold, columns predicted", c.AnsweredLabelled), "predicted", "gold")
	f := newFigure("confusion", slideH, p)
	share, labels := confusionCells(c)
	var xy plotter.XYs
	var ls []string
	var styles []text.Style
	for r := 0; r < 3; r++ {
		for col := 0; col < 3; col++ {
			xy = append(xy, plotter.XY{X: float64(col), Y: float64(2 - r)})
			ls = append(ls, labels[r][col])
			st := text.Style{Color: color.Black, Font: p.Title.TextStyle.Font, XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: p.Title.TextStyle.Handler}
			st.Font.Size = vg.Points(15)
			if share[r][col] > 0.55 {
				st.Color = color.White
			}
			styles = append(styles, st)
		}
	}
	hm := plotter.NewHeatMap(confusionGrid{z: share}, &blues{})
	hm.Min, hm.Max = 0, 1
	p.Add(hm)
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: ls})
	if err != nil {
		return nil, err
	}
	lab.TextStyle = styles
	p.Add(lab)
	p.NominalX(metrics.ClassNames[:]...)
	p.NominalY(metrics.ClassNames[2], metrics.ClassNames[1], metrics.ClassNames[0])
	p.Y.Label.Padding = vg.Points(10)
	return f, nil
}

// blues is a white-to-blue palette.
type blues struct{}

func (blues) Colors() []color.Color {
	cs := make([]color.Color, 64)
	for i := range cs {
		f := float64(i) / 63
		cs[i] = color.RGBA{R: uint8(245 - 215*f), G: uint8(248 - 168*f), B: uint8(255 - 75*f), A: 255}
	}
	return cs
}

// confidenceCounts counts answered claims per confidence tenth and
// predicted label (of calibrated outcomes, for the confidence plot).
func confidenceCounts(outs []metrics.Outcome) [3][10]int {
	var counts [3][10]int
	for _, o := range outs {
		if o.Abstained || !o.Scored {
			continue
		}
		pr := metrics.Softmax(o.Logits, 1)
		k := metrics.Argmax(pr)
		b := int(math.Ceil(pr[k]*10)) - 1
		counts[k][max(0, min(9, b))]++
	}
	return counts
}

// confidenceFigure: how many answered claims fall in each confidence tenth,
// per predicted label (calibrated).
func (t *Tables) confidenceFigure() (*figure, error) {
	counts := t.confidence
	answered := 0
	for k := range counts {
		for _, c := range counts[k] {
			answered += c
		}
	}
	p := newPanel(fmt.Sprintf("Confidence of %d answered claims by predicted label (calibrated)", answered), "calibrated confidence of the predicted label", "claims")
	f := newFigure("confidence", slideH, p)
	// With three labels the predicted one has confidence above 1/3.
	p.X.Min, p.X.Max, p.Y.Min = 0.3, 1, 0
	p.Y.Tick.Marker = countTicks{}
	p.X.Tick.Marker = plot.ConstantTicks(tenthTicks())
	maxCount := 0
	for k := 0; k < 3; k++ {
		var pts plotter.XYs
		for b, c := range counts[k] {
			if b < 3 {
				continue // below 1/3: impossible
			}
			pts = append(pts, plotter.XY{X: float64(b)/10 + 0.05 + float64(k-1)*0.028, Y: float64(c)})
			maxCount = max(maxCount, c)
		}
		bs, err := newBars(pts, colClass[k], 0.026)
		if err != nil {
			return nil, err
		}
		p.Add(bs)
		f.addLegend(p, metrics.ClassNames[k], bs)
	}
	// Headroom so the tallest bar stays clear of the legend and title; the
	// x range is set after the bars, which would widen it.
	p.Y.Max = niceCeil(math.Max(1, float64(maxCount)) * 1.3)
	p.X.Min, p.X.Max = 0.3, 1
	return f, nil
}

func tenthTicks() []plot.Tick {
	var ts []plot.Tick
	for i := 3; i <= 10; i++ {
		ts = append(ts, plot.Tick{Value: float64(i) / 10, Label: fmt.Sprintf("%.1f", float64(i)/10)})
	}
	return ts
}
