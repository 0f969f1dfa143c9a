package reports

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func figureNamed(t *testing.T, figs []*figure, name string) *figure {
	for _, f := range figs {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no figure %s", name)
	return nil
}

func legendHas(f *figure, prefix string) bool {
	for _, l := range f.legend {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func TestFiguresLayout(t *testing.T) {
	tab, err := Compute(crossFitted("r1", outcomes(500, 1), 1, 50))
	require.NoError(t, err)
	figs, err := tab.figures()
	require.NoError(t, err)

	rel := figureNamed(t, figs, "reliability")
	require.Len(t, rel.panels, 2, "curves above, bin counts beneath")
	assert.True(t, legendHas(rel, "perfect calibration"))
	assert.True(t, legendHas(rel, "raw (T = 1): ECE 0."), "raw curve with its ECE: %v", rel.legend)
	assert.True(t, legendHas(rel, "calibrated, out of sample: ECE 0."), "calibrated curve with its ECE: %v", rel.legend)
	assert.True(t, legendHas(rel, "raw (T = 1): claims per bin") && legendHas(rel, "calibrated, out of sample: claims per bin"),
		"bin counts for both curves")
	most := 0
	for _, r := range tab.Reliability {
		for _, b := range r.Bins[metrics.EqualWidth10] {
			most = max(most, b.Count)
		}
	}
	assert.GreaterOrEqual(t, rel.panels[1].Y.Max, 1.3*float64(most), "count panel has headroom over its tallest bar")
	assert.Equal(t, 0.0, rel.panels[0].X.Min)
	assert.Equal(t, 1.0, rel.panels[0].X.Max)

	rc := figureNamed(t, figs, "risk_coverage")
	assert.True(t, legendHas(rc, "oracle: errors last (AURC "), "optimal curve: %v", rc.legend)
	assert.True(t, legendHas(rc, "random order (error rate "), "random baseline: %v", rc.legend)
	assert.Contains(t, rc.panels[0].Title.Text, "the verifier's own labels", "the curve ranks the verifier's argmax, not the final labels")
	// When the rules moved the final labels' accuracy away from the
	// verifier's, the legend gives both error rates.
	acc := 0.9
	tab.Summary.Metrics["accuracy"] = &acc
	figs2, err := tab.figures()
	require.NoError(t, err)
	assert.True(t, legendHas(figureNamed(t, figs2, "risk_coverage"), "random order (error 0."), "with final: %v", figureNamed(t, figs2, "risk_coverage").legend)
	assert.Contains(t, strings.Join(figureNamed(t, figs2, "risk_coverage").legend, "|"), "final labels 0.100)")
	p := rc.panels[0]
	assert.LessOrEqual(t, p.Y.Max, 1.0, "risk axis clamped at 1")
	assert.Equal(t, 0.0, p.Y.Min)
	for _, r := range tab.RiskCoverage {
		if r.Coverage >= 0.05 {
			assert.LessOrEqual(t, r.Risk, p.Y.Max, "the curve stays inside its axis from 5%% coverage on")
		}
	}

	conf := figureNamed(t, figs, "confidence")
	counts := tab.confidence
	top := 0
	for k := range counts {
		for _, c := range counts[k] {
			top = max(top, c)
		}
	}
	assert.GreaterOrEqual(t, conf.panels[0].Y.Max, 1.3*float64(top), "tallest bar clears the title and legend")
	for _, tk := range conf.panels[0].Y.Tick.Marker.Ticks(0, conf.panels[0].Y.Max) {
		assert.NotContains(t, tk.Label, ".", "counts are labelled as integers")
	}
	assert.Equal(t, []string{"supported", "unsupported", "insufficient"}, conf.legend)
	assert.Equal(t, 0.3, conf.panels[0].X.Min, "no empty axis below 1/3")

	cm := figureNamed(t, figs, "confusion")
	assert.Contains(t, cm.panels[0].Title.Text, "answered, labelled claims")
}

func TestConfusionCellsRowPercentages(t *testing.T) {
	var c metrics.Counts
	c.Confusion = [3][3]int{{8, 1, 1}, {0, 0, 0}, {1, 2, 1}}
	share, labels := confusionCells(c)
	assert.Equal(t, "8\n80.0% of row", labels[0][0])
	assert.Equal(t, "2\n50.0% of row", labels[2][1])
	assert.Equal(t, "0\n—", labels[1][1], "an empty gold row has no percentages")
	assert.InDelta(t, 0.25, share[2][0], 1e-12)
}

func TestOracleRisk(t *testing.T) {
	pts := oracleRisk(10, 3)
	assert.Equal(t, 0.0, pts[1].Y)
	assert.InDelta(t, 0.7, pts[1].X, 1e-12, "zero risk until every correct claim is in")
	last := pts[len(pts)-1]
	assert.InDelta(t, 1.0, last.X, 1e-12)
	assert.InDelta(t, 0.3, last.Y, 1e-12, "full coverage has the overall error rate")
	assert.Nil(t, oracleRisk(0, 0))
}

func TestTicks(t *testing.T) {
	labels := func(ts []plot.Tick) []string {
		var out []string
		for _, t := range ts {
			if t.Label != "" {
				out = append(out, t.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"0.2", "0.5", "1", "2", "5", "10", "20"}, labels(logTicks{}.Ticks(0.2, 20)), "log ticks in plain decimals")
	assert.Equal(t, []string{"1", "10", "100", "1000"}, labels(logTicks{}.Ticks(1, 2000)), "a wide log axis labels powers of ten only")
	assert.Equal(t, []string{"0", "1", "2", "3"}, labels(countTicks{}.Ticks(0, 3)), "a small count axis has whole steps")
	assert.Equal(t, []string{"0", "200", "400", "600", "800", "1000"}, labels(countTicks{}.Ticks(0, 1000)))
	assert.InDelta(t, 0.45, niceCeil(0.41), 1e-12)
	assert.Equal(t, 7000.0, niceCeil(6500))
}

func TestSweepFigures(t *testing.T) {
	outs := outcomes(400, 2)
	ts := metrics.SweepTemperature(outs, metrics.TemperatureGrid(0.25, 4))
	ts[3].ECE10 = math.NaN()
	tf, err := temperatureSweepFigure(ts, 1.3)
	require.NoError(t, err)
	require.Len(t, tf.panels, 2, "ECE and NLL on separate axes")
	assert.Equal(t, "ECE (10 bins)", tf.panels[0].Y.Label.Text)
	assert.Equal(t, "NLL (nats per claim)", tf.panels[1].Y.Label.Text)

	one := 0.5
	rows := []ThresholdSweepRow{
		{Stage: StageCalibrated, Threshold: 0.5, Coverage: &one, SelectiveRisk: &one, Tier1FAConditional: &one, AnsweredLabelled: 40},
		{Stage: StageCalibrated, Threshold: 0.6, Coverage: &one, SelectiveRisk: &one, Tier1FAConditional: &one, AnsweredLabelled: 3},
		{Stage: StageCalibrated, Threshold: 0.9, AnsweredLabelled: 0}, // nothing answered: undefined
	}
	hf, err := thresholdSweepFigure(rows)
	require.NoError(t, err)
	require.Len(t, hf.panels, 4, "coverage, risk, tier-1 FA and the claim counts each on its own axis")
	assert.Equal(t, "claims (log)", hf.panels[3].Y.Label.Text)
	assert.True(t, legendHas(hf, "under 30 claims"), "points on few claims are marked: %v", hf.legend)

	dir := t.TempDir()
	cf := metrics.CrossFit(outs, metrics.CrossFitOptions{Seed: 1})
	require.NoError(t, WriteSweeps(dir, Meta{RunID: "r"}, outs, cf.PerOutcome, cf.Full, []string{FormatSVG}))
	for _, n := range []string{"temperature_sweep.svg", "threshold_sweep.svg", "temperature_sweep.parquet", "threshold_sweep.parquet"} {
		assert.FileExists(t, filepath.Join(dir, n))
	}
	assert.NoFileExists(t, filepath.Join(dir, "temperature_sweep.png"), "only the asked formats")
	back, err := ReadParquet[ThresholdSweepRow](filepath.Join(dir, "threshold_sweep.parquet"))
	require.NoError(t, err)
	for _, r := range back {
		if r.Threshold == 0 && r.Stage == StageRaw {
			assert.Equal(t, int64(answeredLabelled(outs)), r.AnsweredLabelled, "threshold 0 keeps every answered, labelled claim")
		}
	}
}

func TestPlotFormats(t *testing.T) {
	got, err := ParsePlotFormats("svg, png,svg")
	require.NoError(t, err)
	assert.Equal(t, []string{"svg", "png"}, got)
	_, err = ParsePlotFormats("pdf")
	assert.ErrorContains(t, err, `"pdf" is not png or svg`)
	_, err = ParsePlotFormats("")
	assert.Error(t, err)

	dir, _ := writeReport(t)
	for _, name := range []string{"reliability", "confidence", "risk_coverage", "confusion"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		require.NoError(t, err)
		assert.True(t, bytes.Contains(b, []byte("<svg")), name)
		assert.Contains(t, string(b), `width="720pt" height=`, "%s is 10 inches wide", name)
	}
}

// Legend rows never touch: each row of the strip under a plot is taller
// than its text by the gap, and legends put that gap between entries.
func TestLegendRowsHaveAGap(t *testing.T) {
	l := newLegend()
	text := l.TextStyle.FontExtents().Height
	assert.Greater(t, float64(l.Padding), 0.0)
	assert.GreaterOrEqual(t, float64(vg.Points(legendRow)), float64(text+l.Padding), "a strip row holds a line of text and the gap")
	p := newPanel("t", "x", "y")
	assert.Equal(t, l.Padding, p.Legend.Padding)
}
