package reports

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
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
		o := metrics.Outcome{Gold: metrics.Class(rng.IntN(3)), Scored: true, Logits: z, Predicted: metrics.Argmax(z),
			Type: []string{"numeric", "fact"}[i%2], Source: []string{"a", "b", "c"}[i%3], Importance: "material", LatencyMS: float64(i % 7)}
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

func writeReport(t *testing.T) (string, *Tables) {
	dir := t.TempDir()
	tab, err := Compute(Input{RunID: "r1", ToolVersion: "test", Outcomes: outcomes(500, 1), Temperature: 1.7,
		Calibration: metrics.CalibrationResult{Applied: true, Temperature: 1.7}, Seed: 1, Resamples: 200})
	require.NoError(t, err)
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
		{"metrics.parquet", []string{"run_id", "metric", "slice", "stage", "value", "ci_low", "ci_high"}, len(tab.Metrics)},
		{"confusion.parquet", []string{"run_id", "slice", "gold_label", "predicted_label", "count"}, len(tab.Confusion)},
		{"calibration.parquet", []string{"run_id", "stage", "scheme", "bin", "lo", "hi", "count", "mean_confidence", "accuracy"}, len(tab.Calibration)},
		{"risk_coverage.parquet", []string{"run_id", "stage", "threshold", "coverage", "risk"}, len(tab.RiskCoverage)},
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
		Record{ClaimID: "c1", Text: "A.", GoldLabel: &g, PredictedLabel: &p, Confidence: fp(0.7), Evidence: []Evidence{{DocID: "d1", SpanID: &g, Start: 0, End: 5, Score: 1.5}, {DocID: "d2", Start: 3, End: 9, Score: 0.5}}},
		Record{ClaimID: "c2", Text: "B.", Abstained: true},
	))
	require.NoError(t, w.Close())
	tbl := readArrow(t, path)
	assert.EqualValues(t, 2, tbl.NumRows())
	names := columnNames(tbl)
	assert.Equal(t, "claim_id", names[0])
	assert.Equal(t, "run_id", names[len(names)-1])
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
	tab, err := Compute(Input{RunID: "r", Outcomes: outcomes(300, 2), Temperature: 1, Seed: 1, Resamples: 50})
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
}

func TestGates(t *testing.T) {
	g, err := ParseGates("tier1_fa_conditional>0.05, ece_10 >= 0.10,coverage<0.8")
	require.NoError(t, err)
	require.Len(t, g, 3)
	res := Check(g, map[string]float64{"tier1_fa_conditional": 0.07, "ece_10": 0.05, "coverage": 0.9})
	assert.True(t, res[0].Failed)
	assert.False(t, res[1].Failed)
	assert.False(t, res[2].Failed)
	res = Check(g, map[string]float64{"tier1_fa_conditional": 0.05, "ece_10": 0.10, "coverage": 0.5})
	assert.Equal(t, []bool{false, true, true}, []bool{res[0].Failed, res[1].Failed, res[2].Failed}, "> is strict, >= is not")
	for _, bad := range []string{"accuracy", "accuracy=>0.5", "acuracy>0.5", "accuracy>high", ">0.5"} {
		_, err := ParseGates(bad)
		assert.ErrorIs(t, err, ErrBadGate, bad)
	}
	none, err := ParseGates("")
	assert.NoError(t, err)
	assert.Empty(t, none)
}

func TestSummaryHasHeadlineAndIntervals(t *testing.T) {
	_, tab := writeReport(t)
	s := tab.Summary
	assert.Equal(t, 500, s.Claims)
	for _, name := range metrics.BootstrapMetrics {
		iv, ok := s.Intervals[name]
		require.True(t, ok, name)
		assert.LessOrEqual(t, iv[0], iv[1])
	}
	assert.False(t, math.IsNaN(s.Metrics["accuracy"]))
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
	in := Input{RunID: "r", Temperature: 1.3, Seed: 1, Resamples: 100}
	in.Outcomes = many
	tm, err := Compute(in)
	require.NoError(t, err)
	in.Outcomes = one
	to, err := Compute(in)
	require.NoError(t, err)
	assert.Equal(t, to.Summary.Metrics, tm.Summary.Metrics)
	assert.Equal(t, to.Summary.Intervals, tm.Summary.Intervals)

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
