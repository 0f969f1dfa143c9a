package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot formats (--plot-format).
const (
	FormatPNG = "png"
	FormatSVG = "svg"
)

// DefaultPlotFormats are written when none are asked for.
var DefaultPlotFormats = []string{FormatPNG, FormatSVG}

// ParsePlotFormats reads a --plot-format value: "png", "svg" or both,
// comma-separated.
func ParsePlotFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		switch f {
		case FormatPNG, FormatSVG:
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		case "":
		default:
			return nil, fmt.Errorf("plot format %q is not png or svg", f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no plot format in %q (want png, svg or png,svg)", s)
	}
	return out, nil
}

// Slide geometry: a 16:9 figure 10 inches wide; PNGs at 160 dpi are
// 1600×900 pixels, sharp on a projector and in a document. Figures with
// stacked panels are 4:3.
const (
	slideW   = 10 * vg.Inch
	slideH   = 5.625 * vg.Inch
	tallH    = 7.5 * vg.Inch
	pngDPI   = 160
	titlePt  = 17
	labelPt  = 14
	tickPt   = 12
	legendPt = 12
)

var (
	colRaw    = color.RGBA{R: 200, G: 60, B: 50, A: 255}
	colCal    = color.RGBA{R: 40, G: 90, B: 200, A: 255}
	colOracle = color.RGBA{R: 46, G: 139, B: 87, A: 255}
	colGrey   = color.Gray{Y: 120}
	colClass  = []color.Color{color.RGBA{R: 46, G: 139, B: 87, A: 255}, color.RGBA{R: 200, G: 60, B: 50, A: 255}, color.RGBA{R: 120, G: 120, B: 120, A: 255}}
	dashed    = []vg.Length{vg.Points(6), vg.Points(4)}
	dotted    = []vg.Length{vg.Points(2), vg.Points(3)}
)

// figure is one plot file: panels stacked top to bottom, their heights in
// proportion to weights, x axes aligned. Legend keeps the legend entries
// added through addLegend, so tests can see what is drawn.
type figure struct {
	name    string // file name without extension
	panels  []*plot.Plot
	weights []float64
	w, h    vg.Length
	legend  []string
	// below, when set, holds the legend entries, drawn in a strip under
	// the panels instead of over the data (for plots whose curves can be
	// anywhere).
	below       bool
	belowThumbs [][]plot.Thumbnailer
}

// newLegend is a legend with the slide's type size.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(legendPt)
	l.ThumbnailWidth = vg.Points(28)
	l.Top, l.Left = true, true
	l.Padding = vg.Points(legendGap) // rows apart, never touching
	return l
}

// legendGap is the space between two legend rows; legendRow the height
// of one row in the strip under a plot (the type size, its leading and
// the gap).
const (
	legendGap = 5
	legendRow = legendPt*1.25 + legendGap
)

func newFigure(name string, h vg.Length, panels ...*plot.Plot) *figure {
	f := &figure{name: name, panels: panels, w: slideW, h: h}
	for range panels {
		f.weights = append(f.weights, 1)
	}
	return f
}

// newPanel is a plot with the slide's type sizes.
func newPanel(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Title.TextStyle.Font.Size = vg.Points(titlePt)
	p.Title.Padding = vg.Points(8)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(labelPt)
		a.Tick.Label.Font.Size = vg.Points(tickPt)
		a.Padding = vg.Points(4)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(legendPt)
	p.Legend.Padding = vg.Points(legendGap)
	p.Legend.ThumbnailWidth = vg.Points(28)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), vg.Points(-6)
	return p
}

// addLegend adds a legend entry to a panel and records its name.
func (f *figure) addLegend(p *plot.Plot, name string, thumbs ...plot.Thumbnailer) {
	if f.below {
		f.belowThumbs = append(f.belowThumbs, thumbs)
	} else {
		p.Legend.Add(name, thumbs...)
	}
	f.legend = append(f.legend, name)
}

// draw lays the panels out on c.
func (f *figure) draw(c draw.Canvas) {
	total := 0.0
	for _, w := range f.weights {
		total += w
	}
	var strip draw.Canvas
	if f.below {
		// Two columns of entries, legendRow apart.
		rows := (len(f.legend) + 1) / 2
		h := vg.Length(rows)*vg.Points(legendRow) + vg.Points(10)
		strip = draw.Crop(c, 0, 0, 0, -(c.Max.Y - c.Min.Y - h))
		c = draw.Crop(c, 0, 0, h, 0)
	}
	height := c.Max.Y - c.Min.Y
	cs := make([]draw.Canvas, len(f.panels))
	top := c.Max.Y
	for i, w := range f.weights {
		h := vg.Length(w / total * float64(height))
		cs[i] = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: top - h}, Max: vg.Point{X: c.Max.X, Y: top}}}
		top -= h
	}
	// Align the data areas' left and right edges, so panels that share an
	// x axis line up.
	var left, right vg.Length
	for i, p := range f.panels {
		d := p.DataCanvas(cs[i])
		left = max(left, d.Min.X-cs[i].Min.X)
		right = max(right, cs[i].Max.X-d.Max.X)
	}
	for i, p := range f.panels {
		d := p.DataCanvas(cs[i])
		cs[i] = draw.Crop(cs[i], left-(d.Min.X-cs[i].Min.X), -(right - (cs[i].Max.X - d.Max.X)), 0, 0)
		p.Draw(cs[i])
	}
	if f.below {
		// Two columns under the data area, the first entries on the left.
		d := f.panels[len(f.panels)-1].DataCanvas(cs[len(cs)-1])
		half := (d.Max.X - d.Min.X) / 2
		n := (len(f.legend) + 1) / 2
		for col, idx := range [][2]int{{0, n}, {n, len(f.legend)}} {
			if idx[0] == idx[1] {
				continue
			}
			l := newLegend()
			for i := idx[0]; i < idx[1]; i++ {
				l.Add(f.legend[i], f.belowThumbs[i]...)
			}
			x0 := d.Min.X + vg.Length(col)*half
			l.Draw(draw.Crop(strip, x0-strip.Min.X, -(strip.Max.X - x0 - half), 0, 0))
		}
	}
}

// render draws the figure in one format.
func (f *figure) render(format string) ([]byte, error) {
	var buf bytes.Buffer
	switch format {
	case FormatPNG:
		c := vgimg.NewWith(vgimg.UseWH(f.w, f.h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
		f.draw(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return nil, err
		}
	case FormatSVG:
		c := vgsvg.New(f.w, f.h)
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		f.draw(dc)
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("plot format %q is not png or svg", format)
	}
	return buf.Bytes(), nil
}

// save writes the figure once per format, as dir/name.format.
func (f *figure) save(dir string, formats []string) error {
	for _, format := range formats {
		b, err := f.render(format)
		if err != nil {
			return fmt.Errorf("plot %s.%s: %w", f.name, format, err)
		}
		a, err := CreateAtomic(filepath.Join(dir, f.name+"."+format))
		if err != nil {
			return err
		}
		if _, err := a.Write(b); err != nil {
			a.Abort()
			return err
		}
		if err := a.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// countTicks labels an axis of counts with whole numbers only, at 1-2-5
// steps of at least 1.
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceStep((hi - lo) / 5)
	step = math.Max(1, math.Round(step))
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatInt(int64(math.Round(v)), 10)})
	}
	return ts
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= x {
			return m * e
		}
	}
	return 10 * e
}

// niceCeil rounds x up to a multiple of its nice step.
func niceCeil(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	s := niceStep(x / 10)
	return math.Ceil(x/s-1e-9) * s
}

// logTicks labels a log axis at 1, 2 and 5 times each power of ten, in
// plain decimals ("0.2", "1", "5", "20"), with unlabelled minor ticks
// between; over more than two decades only the powers of ten.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	wide := hi/lo > 200
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || !wide && (m == 2 || m == 5) {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
