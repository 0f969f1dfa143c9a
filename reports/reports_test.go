package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func outcomes(n int, seed uint64) []metrics.Outcome {
	rng := rand.New(rand.NewPCG(seed, 3))
	outs := make([]metrics.Outcome, n)
	for i := range outs {
		var z [3]float64
		for k := range z {
			z[k] = rng.NormFloat64() * 2
		}
		// Gold follows the logits' argmax 60% of the time: a verifier that
		// knows something and is over-confident about it.
		gold := metrics.Class(rng.IntN(3))
		if rng.Float64() < 0.6 {
			gold = metrics.Argmax(z)
		}
		o := metrics.Outcome{ID: fmt.Sprintf("c%03d", i), Gold: gold, Scored: true, Logits: z, Predicted: metrics.Argmax(z),
			Type: metrics.NameOf([]string{"numeric", "fact"}[i%2]), Source: []string{"a", "b", "c"}[i%3], Importance: metrics.NameOf("material"), LatencyMS: float64(i % 7)}
		if i%9 == 0 {
			o.Abstained = true
		}
		if i%13 == 0 {
			o.Gold = metrics.Unknown
		}
		outs[i] = o
	}
	return outs
}

// crossFitted is the Input of a run that applied cross-fitted temperatures.
func crossFitted(runID string, outs []metrics.Outcome, seed uint64, resamples int) Input {
	cf := metrics.CrossFit(outs, metrics.CrossFitOptions{Seed: seed})
	return Input{RunID: runID, ToolVersion: "test", Outcomes: outs, Temperatures: cf.PerOutcome, CrossFit: cf, Seed: seed, Resamples: resamples}
}

func writeReport(t *testing.T) (string, *Tables) {
	dir := t.TempDir()
	tab, err := Compute(crossFitted("r1", outcomes(500, 1), 1, 200))
	require.NoError(t, err)
	require.Equal(t, AppliedCrossFitted, tab.Summary.Calibration.Applied)
	require.NoError(t, tab.Write(dir))
	return dir, tab
}

// readArrow reads a Parquet file with arrow-go's pqarrow, the reader
// family pyarrow and DuckDB users rely on: an independent implementation.
func readArrow(t *testing.T, path string) arrow.Table {
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	tbl, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(memory.DefaultAllocator), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	require.NoError(t, err, path)
	t.Cleanup(tbl.Release)
	return tbl
}

func columnNames(tbl arrow.Table) []string {
	var n []string
	for _, f := range tbl.Schema().Fields() {
		n = append(n, f.Name)
	}
	return n
}

func TestParquetFilesReadByArrow(t *testing.T) {
	dir, tab := writeReport(t)
	cases := []struct {
		file string
		cols []string
		rows int
	}{
		{"metrics.parquet", []string{"run_id", "metric", "slice", "stage", "value", "ci_low", "ci_high", "n", "slice_key", "slice_value", "run_instance", "started_at"}, len(tab.Metrics)},
		{"confusion.parquet", []string{"run_id", "slice", "gold_label", "predicted_label", "count", "run_instance", "started_at"}, len(tab.Confusion)},
		{"calibration.parquet", []string{"run_id", "stage", "scheme", "bin", "lo", "hi", "count", "mean_confidence", "accuracy", "run_instance", "started_at"}, len(tab.Calibration)},
		{"risk_coverage.parquet", []string{"run_id", "stage", "threshold", "coverage", "risk", "run_instance", "started_at"}, len(tab.RiskCoverage)},
	}
	for _, c := range cases {
		tbl := readArrow(t, filepath.Join(dir, c.file))
		assert.Equal(t, c.cols, columnNames(tbl), c.file)
		assert.EqualValues(t, c.rows, tbl.NumRows(), c.file)
		pf, err := file.OpenParquetFile(filepath.Join(dir, c.file), false)
		require.NoError(t, err)
		kv := pf.MetaData().KeyValueMetadata()
		require.NotNil(t, kv.FindValue("claimaudit.run_id"), c.file)
		assert.Equal(t, "r1", *kv.FindValue("claimaudit.run_id"), c.file)
		assert.Equal(t, SchemaVersion, *kv.FindValue("claimaudit.schema_version"), c.file)
		pf.Close()
	}
	// Values survive: the sum of confusion counts, and nulls where a value is undefined.
	tbl := readArrow(t, filepath.Join(dir, "confusion.parquet"))
	var arrowSum, goSum int64
	for _, ch := range tbl.Column(4).Data().Chunks() {
		for _, v := range ch.(*array.Int64).Int64Values() {
			arrowSum += v
		}
	}
	for _, r := range tab.Confusion {
		goSum += r.Count
	}
	assert.Equal(t, goSum, arrowSum)
	cal := readArrow(t, filepath.Join(dir, "calibration.parquet"))
	nulls := 0
	for _, ch := range cal.Column(7).Data().Chunks() {
		nulls += ch.NullN()
	}
	assert.Positive(t, nulls, "empty bins have a null mean confidence, not NaN")
}

func TestRecordsReadByArrow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "records.parquet")
	w, err := NewParquetWriter[Record](path, Meta{RunID: "r", ToolVersion: "t"})
	require.NoError(t, err)
	g, p := "supported", "unsupported"
	require.NoError(t, w.Write(
		Record{ClaimID: "c1", Text: "A.", GoldLabel: &g, PredictedLabel: &p, Confidence: fp(0.7), Evidence: []Evidence{{DocID: "d1", SpanID: &g, Start: 0, End: 5, Score: 1.5}, {DocID: "d2", Start: 3, End: 9, Score: 0.5}},
			Qualifiers: &ClaimQualifiers{Location: &g}, Timeframe: &ClaimTimeframe{AsOf: &p}, Normalization: &ClaimNormalization{Entities: []string{"E"}}},
		Record{ClaimID: "c2", Text: "B.", Abstained: true},
	))
	require.NoError(t, w.Close())
	tbl := readArrow(t, path)
	assert.EqualValues(t, 2, tbl.NumRows())
	names := columnNames(tbl)
	assert.Equal(t, "claim_id", names[0])
	for _, c := range []string{"gold_evidence", "gold_evidence_retrieved", "gold_evidence_rank", "run_instance", "started_at", "output_id",
		"verifier_confidence", "verifier_correct", "subject", "predicate", "object", "modality", "polarity"} {
		assert.Contains(t, names, c)
	}
	// The claim's objects are struct columns (qualifiers.location in SQL),
	// null where the claim gives none.
	for _, c := range []string{"qualifiers", "timeframe", "normalization"} {
		i := slices.Index(names, c)
		require.GreaterOrEqual(t, i, 0, c)
		assert.Equal(t, arrow.STRUCT, tbl.Schema().Field(i).Type.ID(), c)
		assert.Equal(t, 1, tbl.Column(i).Data().Chunk(0).NullN(), "%s: c1 gives it, c2 does not", c)
	}
	// tier1_fa is null when the gold label is unknown (c2), not false.
	tier1 := tbl.Column(slices.Index(names, "tier1_fa")).Data().Chunk(0)
	assert.Equal(t, 2, tier1.NullN(), "neither record sets tier1_fa: both null")
	assert.Contains(t, names, "run_id")
	ev := tbl.Schema().Field(27)
	assert.Equal(t, "evidence", ev.Name)
	assert.Equal(t, arrow.LIST, ev.Type.ID(), "evidence is a standard LIST")
	gl := tbl.Column(5).Data().Chunk(0)
	assert.Equal(t, 1, gl.NullN(), "an unknown gold label is a null")
	back, err := ReadParquet[Record](path)
	require.NoError(t, err)
	assert.Equal(t, "d1", back[0].Evidence[0].DocID)
	assert.Nil(t, back[0].Evidence[1].SpanID)
}

func TestPNGsDecodeAndAreNotBlank(t *testing.T) {
	dir, _ := writeReport(t)
	for _, name := range []string{"reliability.png", "confidence.png", "risk_coverage.png", "confusion.png"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		img, err := png.Decode(bytes.NewReader(b))
		require.NoError(t, err, name)
		assert.Greater(t, img.Bounds().Dx(), 300, name)
		assert.Greater(t, distinctColours(img), 3, "%s is not blank", name)
	}
}

func distinctColours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bb, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bb, a}] = true
		}
	}
	return len(seen)
}

func TestCalibratedStageEqualsRawWithoutTemperature(t *testing.T) {
	tab, err := Compute(Input{RunID: "r", Outcomes: outcomes(300, 2), Seed: 1, Resamples: 50})
	require.NoError(t, err)
	raw, cal := map[string]*float64{}, map[string]*float64{}
	for _, r := range tab.Metrics {
		key := r.Slice + "/" + r.Metric
		if r.Stage == StageRaw {
			raw[key] = r.Value
		} else {
			cal[key] = r.Value
		}
	}
	require.NotEmpty(t, raw)
	assert.Equal(t, raw, cal)
	assert.Equal(t, AppliedNone, tab.Summary.Calibration.Applied)
	assert.False(t, tab.Summary.CalibrationApplied)
}

// Every calibrated number comes from each claim's own temperature: the
// calibrated ECE is that of the cross-fitted probabilities, not of the
// full-data T applied to the claims it was fitted on.
func TestCalibratedStageIsCrossFitted(t *testing.T) {
	outs := outcomes(500, 1)
	in := crossFitted("r", outs, 1, 50)
	require.True(t, in.CrossFit.Fitted, in.CrossFit.Reason)
	before := slices.Clone(outs)
	tab, err := Compute(in)
	require.NoError(t, err)
	assert.Equal(t, before, outs, "Compute gives the caller's outcomes back with their raw logits")
	want := metrics.Calibration(metrics.Scaled(outs, in.CrossFit.PerOutcome), 1).ECE10
	inSample := metrics.Calibration(outs, in.CrossFit.Full).ECE10
	require.NotEqual(t, want, inSample)
	assert.Equal(t, want, *tab.Summary.Metrics["ece_10"])
	assert.Equal(t, in.CrossFit.Full, tab.Summary.Temperature)
	assert.Equal(t, in.CrossFit.Full, *tab.Summary.Calibration.FullTemperature)
	assert.Len(t, tab.Summary.Calibration.FoldTemperatures, 5)
	assert.Equal(t, want, tab.Reliability[1].ECE10, "the reliability plot draws the same bins")

	// One T for all is reported as uniform, and claims without gold get it.
	uni := make([]float64, len(outs))
	for i := range uni {
		uni[i] = 1.3
	}
	tab, err = Compute(Input{RunID: "r", Outcomes: outs, Temperatures: uni, CrossFit: in.CrossFit, Seed: 1, Resamples: 20})
	require.NoError(t, err)
	assert.Equal(t, AppliedUniform, tab.Summary.Calibration.Applied)
	assert.Equal(t, 1.3, tab.Summary.Temperature)
}

// A gate over a metric fails with its value; the gate is written with the
// metric's literal name, so renaming the metric fails this test.
func TestGates(t *testing.T) {
	outs := outcomes(400, 4)
	tab, err := Compute(Input{RunID: "r", Outcomes: outs, Seed: 1, Resamples: 20})
	require.NoError(t, err)
	c := metrics.Count(outs)
	require.Greater(t, c.Tier1FAConditional(), 0.05)
	g, err := ParseGates("tier1_fa_conditional>0.05, coverage >= 0.99,coverage<0.8")
	require.NoError(t, err)
	require.Len(t, g, 3)
	res := Check(g, &tab.Summary)
	assert.Equal(t, c.Tier1FAConditional(), res[0].Value)
	assert.True(t, res[0].Failed)
	assert.Equal(t, c.Coverage(), res[1].Value)
	assert.False(t, res[1].Failed, "coverage %v", c.Coverage())
	assert.False(t, res[2].Failed)
	assert.False(t, res[0].Undefined)
	err = Failures(res)
	var ge *GateError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, fmt.Sprintf("gate failed: tier1_fa_conditional>0.05 (value %.4g)", c.Tier1FAConditional()), err.Error())
	assert.NoError(t, Failures(res[1:]))

	v := func(x float64) *float64 { return &x }
	res = Check(g, &Summary{Metrics: map[string]*float64{"tier1_fa_conditional": v(0.05), "coverage": v(0.99)}})
	assert.Equal(t, []bool{false, true, false}, []bool{res[0].Failed, res[1].Failed, res[2].Failed}, "> is strict, >= is not")
	for _, bad := range []string{"accuracy", "accuracy=>0.5", "acuracy>0.5", "accuracy>high", ">0.5"} {
		_, err := ParseGates(bad)
		assert.ErrorIs(t, err, ErrBadGate, bad)
	}
	none, err := ParseGates("")
	assert.NoError(t, err)
	assert.Empty(t, none)
}

// Without gold every gold-based number is null in every file, a gate over
// one fails saying why, and the predicted-label distribution is there.
func TestNoGoldIsNullEverywhere(t *testing.T) {
	outs := outcomes(300, 5)
	for i := range outs {
		outs[i].Gold = metrics.Unknown
	}
	cf := metrics.CrossFit(outs, metrics.CrossFitOptions{Seed: 1})
	require.False(t, cf.Fitted)
	dir := t.TempDir()
	tab, err := Compute(Input{RunID: "r", Outcomes: outs, CrossFit: cf, Seed: 1, Resamples: 50})
	require.NoError(t, err)
	g, err := ParseGates("accuracy<0.6,tier1_fa_conditional>0.05,pred_rate_supported<0.99")
	require.NoError(t, err)
	tab.Summary.Gates = Check(g, &tab.Summary)
	require.NoError(t, tab.Write(dir))

	for _, r := range tab.Summary.Gates[:2] {
		assert.True(t, r.Failed && r.Undefined, r.Expr)
		assert.Contains(t, r.Reason, "is undefined: no claim has a gold label", r.Expr)
	}
	assert.True(t, tab.Summary.Gates[2].Failed && !tab.Summary.Gates[2].Undefined, "the predicted distribution is gateable")
	assert.Contains(t, Failures(tab.Summary.Gates).Error(), "accuracy<0.6 (accuracy is undefined: no claim has a gold label)")

	// metrics.parquet: gold-based values and their intervals are null.
	tbl := readArrow(t, filepath.Join(dir, "metrics.parquet"))
	names := map[string]bool{"accuracy": true, "tier1_fa_conditional": true, "ece_10": true, "majority_accuracy": true, "binary_auc": true, "cohen_kappa": true}
	seen := 0
	for i := 0; i < int(tbl.NumRows()); i++ {
		metric := columnString(t, tbl, 1, i)
		if !names[metric] {
			continue
		}
		seen++
		for col := 4; col <= 6; col++ {
			assert.True(t, columnNull(t, tbl, col, i), "%s %s is null", metric, columnNames(tbl)[col])
		}
	}
	assert.Positive(t, seen)

	js, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var sum map[string]any
	require.NoError(t, json.Unmarshal(js, &sum))
	m := sum["metrics"].(map[string]any)
	assert.Nil(t, m["accuracy"])
	assert.Contains(t, m, "accuracy", "present, as null")
	assert.Nil(t, sum["intervals"].(map[string]any)["accuracy"])
	assert.NotNil(t, m["pred_rate_supported"])
	assert.Equal(t, "no claim has a gold label", sum["undefined"].(map[string]any)["accuracy"])
	assert.Contains(t, string(js), `"value": null`, "an undefined gate's value is null")

	var buf bytes.Buffer
	require.NoError(t, PrintTables(&buf, &tab.Summary))
	out := buf.String()
	assert.Regexp(t, `accuracy +│ — +│ +│ —`, out)
	assert.NotContains(t, out, "0.000 [0.000")
	assert.NotContains(t, out, "warning", "warnings are logged, not printed with the results")
	assert.Contains(t, strings.Join(tab.Summary.Warnings, "\n"), "no gold labels")
	assert.Contains(t, strings.Join(tab.Summary.Warnings, "\n"), "no temperature fitted: no labelled claims with logits")
	assert.Regexp(t, `supported +│ [0-9]+ +│ 0\.[0-9]{3}`, out)
	assert.NotContains(t, out, "gold \\ predicted", "no confusion matrix without gold")
}

// A verifier that says one label for everything is flagged, with a warning
// that names the label and the majority baseline.
func TestDegenerateVerifierWarns(t *testing.T) {
	outs := outcomes(300, 6)
	for i := range outs {
		outs[i].Logits = [3]float64{0, 0, 1 + float64(i%5)/10}
		outs[i].Predicted = metrics.Insufficient
		outs[i].Gold = metrics.Class(i % 3)
		if i%10 < 7 {
			outs[i].Gold = metrics.Insufficient
		}
	}
	tab, err := Compute(Input{RunID: "r", Outcomes: outs, Seed: 1, Resamples: 100})
	require.NoError(t, err)
	s := tab.Summary
	assert.Equal(t, 1.0, *s.Metrics["degenerate_verifier"])
	assert.Equal(t, *s.Metrics["accuracy"], *s.Metrics["majority_accuracy"], "always insufficient is the majority baseline")
	var buf bytes.Buffer
	require.NoError(t, PrintTables(&buf, &s))
	assert.Contains(t, strings.Join(s.Warnings, "\n"), "degenerate verifier: it predicted insufficient for 100.0% of answered claims")
	assert.Contains(t, strings.Join(s.Warnings, "\n"), "degenerate verifier: accuracy")
	assert.Regexp(t, `majority-class baseline +│ 0\.[0-9]{3} +│ \[`, buf.String())
	assert.Regexp(t, `degenerate verifier +│ YES`, buf.String())

	good, err := Compute(crossFitted("r", outcomes(500, 1), 1, 100))
	require.NoError(t, err)
	assert.Equal(t, 0.0, *good.Summary.Metrics["degenerate_verifier"])
	for _, w := range good.Summary.Warnings {
		assert.NotContains(t, w, "degenerate")
	}
}

func columnString(t *testing.T, tbl arrow.Table, col, row int) string {
	t.Helper()
	for _, ch := range tbl.Column(col).Data().Chunks() {
		if row < ch.Len() {
			switch a := ch.(type) {
			case *array.String:
				return a.Value(row)
			case *array.Dictionary:
				return a.Dictionary().(*array.String).Value(a.GetValueIndex(row))
			}
			t.Fatalf("column %d is %T", col, ch)
		}
		row -= ch.Len()
	}
	t.Fatalf("row %d out of range", row)
	return ""
}

func columnNull(t *testing.T, tbl arrow.Table, col, row int) bool {
	t.Helper()
	for _, ch := range tbl.Column(col).Data().Chunks() {
		if row < ch.Len() {
			return ch.IsNull(row)
		}
		row -= ch.Len()
	}
	t.Fatalf("row %d out of range", row)
	return false
}

func TestSummaryHasHeadlineAndIntervals(t *testing.T) {
	_, tab := writeReport(t)
	s := tab.Summary
	assert.Equal(t, 500, s.Claims)
	for _, name := range metrics.BootstrapMetrics {
		iv := s.Intervals[name]
		require.NotNil(t, iv, name)
		assert.LessOrEqual(t, iv[0], iv[1])
	}
	require.NotNil(t, s.Metrics["accuracy"])
	assert.Contains(t, s.Slices, "type=numeric")
	assert.Contains(t, s.Slices, "source=a")
}

// A run with a source per few claims: the source slices are capped (the
// rest pooled), slices under the floor get null intervals, and "all" — the
// summary and the gates — is what it is with a single source.
func TestManySourcesAreCappedAndSmallSlicesHaveNoIntervals(t *testing.T) {
	many := outcomes(600, 2)
	one := outcomes(600, 2)
	for i := range many {
		many[i].Source = fmt.Sprintf("src%04d", i/3)
		one[i].Source = "only"
	}
	in := Input{RunID: "r", Seed: 1, Resamples: 100}
	in.Outcomes = many
	tm, err := Compute(in)
	require.NoError(t, err)
	in.Outcomes = one
	to, err := Compute(in)
	require.NoError(t, err)
	// Metrics over claims do not depend on how claims group into sources;
	// those over outputs (one output per source_id) do.
	perOutput := func(name string) bool {
		return name == "outputs" || strings.HasPrefix(name, "output_") || strings.HasPrefix(name, "gold_output_")
	}
	for name, v := range to.Summary.Metrics {
		if !perOutput(name) {
			assert.Equal(t, v, tm.Summary.Metrics[name], name)
			assert.Equal(t, to.Summary.Intervals[name], tm.Summary.Intervals[name], name)
		}
	}
	require.NotNil(t, tm.Summary.Metrics["outputs"])
	assert.Equal(t, 200.0, *tm.Summary.Metrics["outputs"], "600 claims, three per source")

	sources := map[string]bool{}
	for _, r := range tm.Metrics {
		if strings.HasPrefix(r.Slice, "source=") {
			sources[r.Slice] = true
		}
		if r.Slice == metrics.OtherSources && r.Metric == "accuracy" {
			assert.NotNil(t, r.CILow, "the pooled slice is large enough for intervals")
		}
		if strings.HasPrefix(r.Slice, "source=src") {
			assert.Nil(t, r.CILow, "%s has 3 claims, under the floor: no interval", r.Slice)
			assert.Nil(t, r.CIHigh)
		}
	}
	assert.Len(t, sources, metrics.DefaultMaxSourceSlices+1)
	assert.Contains(t, sources, metrics.OtherSources)
}
