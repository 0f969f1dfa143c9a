package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary act as the audit command inside scripts, so
// exit codes are checked as a shell sees them.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"audit": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// audit with one more backend, nan: the lexical verifier, but NaN
		// logits for the claims --nan-ids names (a corrupted model).
		"audit-nan": func() {
			e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, backends: append(defaultBackends(), nanBackend())}
			os.Exit(runWith(context.Background(), e, os.Args[1:]))
		},
	})
}

// TestScripts runs the txtar scripts in testdata/script: whole CLI runs with
// their stdout, stderr and exit codes. The generated demo set is $DEMO; the
// small hand-written corpus of the retrieval tests is $SMALL.
func TestScripts(t *testing.T) {
	demo, err := filepath.Abs("../../benchdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	small, err := filepath.Abs("../../corpus/testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("DEMO", demo)
			e.Setenv("SMALL", small)
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"sameReports": sameReports, "sameRecords": sameRecords, "goldAnswers": goldAnswers, "exportsAll": exportsAll,
			"longDoc": longDoc, "chunksCover": chunksCover},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
	})
}

// latencyLine is a wall-clock latency percentile in summary.json: it
// measures the process that verified the claims, so no two runs (two
// single runs neither) agree on it.
var latencyLine = regexp.MustCompile(`("latency_p(?:50|99)_ms": )[^,\n]+`)

// instanceLine is the execution's id and start time in summary.json: two
// runs of one configuration differ in them and nothing else.
var instanceLine = regexp.MustCompile(`("(?:run_instance|started_at)": )"[^"]*"`)

// unstamped zeroes a row's run_instance and started_at.
func unstamped[T any](r T) T {
	v := reflect.ValueOf(&r).Elem()
	for _, f := range []string{"RunInstance", "StartedAt"} {
		if fv := v.FieldByName(f); fv.IsValid() {
			fv.SetZero()
		}
	}
	return r
}

// sameReports DIR_A DIR_B: the two folders' summary.json are equal byte
// for byte but for the latency percentiles, and their metrics, confusion,
// calibration and risk-coverage tables are equal row for row (the latency
// metrics aside).
func sameReports(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sameReports DIR_A DIR_B")
	}
	read := func(dir, name string) string { return ts.ReadFile(filepath.Join(dir, name)) }
	mask := func(s string) string {
		return instanceLine.ReplaceAllString(latencyLine.ReplaceAllString(s, "${1}0"), `${1}""`)
	}
	a, b := mask(read(args[0], "summary.json")), mask(read(args[1], "summary.json"))
	if a != b {
		ts.Fatalf("summary.json of %s and %s differ (beyond latency):\n%s", args[0], args[1], firstDiff(a, b))
	}
	if n := len(latencyLine.FindAllString(a, -1)); n == 0 {
		ts.Fatalf("summary.json has no latency percentiles: the mask is stale")
	}
	sameRows[reports.MetricRow](ts, args, "metrics.parquet", func(r reports.MetricRow) bool { return !strings.HasPrefix(r.Metric, "latency_") })
	sameRows[reports.ConfusionRow](ts, args, "confusion.parquet", nil)
	sameRows[reports.CalibrationRow](ts, args, "calibration.parquet", nil)
	sameRows[reports.RiskCoverageRow](ts, args, "risk_coverage.parquet", nil)
}

// sameRecords SINGLE SHARD...: the shards' records, put back in claims-file
// order, are the single run's row for row in every column but those of the
// execution (latency_ms, run_instance, started_at: two runs differ in them),
// and those the calibrated confidence sets: temperature, p_*, confidence,
// verifier_confidence, verdict and action. A shard decides at T = 1 (temperature 1, p_* the raw
// probabilities: checked here) and leaves calibration to audit report over
// the union, which writes no records: sameReports checks what it makes of
// them. With --abstain-below the labels depend on the calibrated confidence
// too, so the runs compared here use none.
func sameRecords(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: sameRecords SINGLE_DIR SHARD_DIR...")
	}
	read := func(dir string) []reports.Record {
		rs, err := reports.ReadParquet[reports.Record](ts.MkAbs(filepath.Join(dir, "records.parquet")))
		ts.Check(err)
		return rs
	}
	uncalibrated := func(r *reports.Record) {
		r.LatencyMS, r.RunInstance, r.StartedAt, r.DecidedAt = 0, "", 0, 0
		r.Temperature, r.Confidence, r.VerifierConfidence, r.Verdict, r.Action = 0, nil, nil, "", ""
		r.PSupported, r.PUnsupported, r.PInsufficient = nil, nil, nil
	}
	want := read(args[0])
	var got []reports.Record
	for _, d := range args[1:] {
		for _, r := range read(d) {
			if r.Temperature != 1 || !reflect.DeepEqual([]*float64{r.PSupported, r.PUnsupported, r.PInsufficient}, []*float64{r.RawPSupported, r.RawPUnsupp, r.RawPInsuff}) {
				ts.Fatalf("%s: claim %s is not at T = 1 (temperature %v)", d, r.ClaimID, r.Temperature)
			}
			got = append(got, r)
		}
	}
	slices.SortFunc(got, func(a, b reports.Record) int { return cmp.Compare(a.ClaimIndex, b.ClaimIndex) })
	if len(got) != len(want) {
		ts.Fatalf("the shards hold %d records, %s %d", len(got), args[0], len(want))
	}
	for i := range want {
		uncalibrated(&want[i])
		uncalibrated(&got[i])
		if !reflect.DeepEqual(want[i], got[i]) {
			ts.Fatalf("record %d (claim %s) differs from %s's in %s", i, want[i].ClaimID, args[0], strings.Join(differingFields(want[i], got[i]), ", "))
		}
	}
	ts.Logf("%d records equal to %s's (but for execution and calibration)", len(want), args[0])
}

// differingFields names the fields in which a and b differ.
func differingFields[T any](a, b T) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var names []string
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			names = append(names, va.Type().Field(i).Name)
		}
	}
	return names
}

func sameRows[T any](ts *testscript.TestScript, dirs []string, name string, keep func(T) bool) {
	var rows [2][]T
	for i, d := range dirs {
		rs, err := reports.ReadParquet[T](ts.MkAbs(filepath.Join(d, name)))
		ts.Check(err)
		for _, r := range rs {
			if keep == nil || keep(r) {
				rows[i] = append(rows[i], unstamped(r))
			}
		}
	}
	if len(rows[0]) == 0 || !reflect.DeepEqual(rows[0], rows[1]) {
		ts.Fatalf("%s of %s and %s differ (%d and %d rows)", name, dirs[0], dirs[1], len(rows[0]), len(rows[1]))
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(la), len(lb))
}

func TestExitCodes(t *testing.T) {
	demo := "../../corpus/testdata/small/"
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"help", []string{"--help"}, exitOK},
		{"valid corpus", []string{"validate", "--corpus", demo + "corpus.jsonl", "--spans", demo + "spans.jsonl"}, exitOK},
		{"unknown command", []string{"frobnicate"}, exitInput},
		{"unknown flag", []string{"validate", "--corpse", "x"}, exitInput},
		{"bad flag value", []string{"search", "--index", "x", "--k", "many", "q"}, exitInput},
		{"missing required flag", []string{"index", "--corpus", demo + "corpus.jsonl"}, exitInput},
		{"missing file", []string{"validate", "--corpus", "does-not-exist.jsonl"}, exitInput},
		{"invalid input", []string{"validate", "--corpus", "../../corpus/testdata/defects/corpus.jsonl"}, exitInput},
		{"not an index", []string{"search", "--index", t.TempDir(), "q"}, exitInput},
		{"numcheck verified", []string{"numcheck", "--policy", "abbr", "--claim", "1500", "--token", "1.5K"}, exitOK},
		{"numcheck not verified", []string{"numcheck", "--policy", "exact", "--claim", "5.7", "--token", "5.8"}, exitGate},
		{"numcheck unparseable is not verified", []string{"numcheck", "--policy", "exact", "--claim", "5.7", "--token", "?"}, exitGate},
		{"numcheck claim that is not a number", []string{"numcheck", "--policy", "exact", "--claim", "abc", "--token", "5"}, exitInput},
		{"numcheck token that is two numbers", []string{"numcheck", "--policy", "exact", "--claim", "5.7", "--token", "5.7 or 9"}, exitGate},
		{"numcheck unknown policy", []string{"numcheck", "--policy", "fuzzy", "--claim", "1", "--token", "1"}, exitInput},
		{"valid claims and gold", []string{"validate", "--claims", "../../extract/testdata/extract/claims.golden.jsonl"}, exitOK},
		{"invalid claims", []string{"validate", "--claims", "../../claims/testdata/defects/claims.jsonl"}, exitInput},
		{"gold without claims", []string{"validate", "--gold", "x.jsonl"}, exitInput},
		{"run with invalid claims", []string{"run", "--corpus", demo + "corpus.jsonl", "--claims", "../../claims/testdata/defects/claims.jsonl", "--out", t.TempDir()}, exitInput},
		{"run with unknown verifier", []string{"run", "--corpus", demo + "corpus.jsonl", "--claims", "../../extract/testdata/extract/claims.golden.jsonl", "--out", t.TempDir(), "--verifier", "x"}, exitInput},
		{"run whose gate fails", []string{"run", "--corpus", "../../benchdata/demo/corpus.jsonl", "--claims", "../../benchdata/demo/claims.jsonl", "--gold", "../../benchdata/demo/gold.jsonl", "--out", t.TempDir(), "--fail-on", "accuracy<0.99"}, exitGate},
		{"run whose gates pass", []string{"run", "--corpus", "../../benchdata/demo/corpus.jsonl", "--claims", "../../benchdata/demo/claims.jsonl", "--gold", "../../benchdata/demo/gold.jsonl", "--out", t.TempDir(), "--fail-on", "coverage<0.5"}, exitOK},
		{"unknown numeric effect", []string{"run", "--corpus", demo + "corpus.jsonl", "--claims", "../../extract/testdata/extract/claims.golden.jsonl", "--out", t.TempDir(), "--numeric-effect", "veto"}, exitInput},
		{"unknown numeric policy", []string{"run", "--corpus", demo + "corpus.jsonl", "--claims", "../../extract/testdata/extract/claims.golden.jsonl", "--out", t.TempDir(), "--numeric-policy", "fuzzy"}, exitInput},
		{"lint without facts", []string{"lint", "--input", "x.jsonl"}, exitInput},
		{"malformed gate", []string{"run", "--corpus", "../../benchdata/demo/corpus.jsonl", "--claims", "../../benchdata/demo/claims.jsonl", "--out", t.TempDir(), "--fail-on", "accuracy"}, exitInput},
		{"bad log level", []string{"validate", "--log-level", "loud", "--corpus", demo + "corpus.jsonl"}, exitInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			got := run(context.Background(), tt.args, strings.NewReader(""), &out, &errOut)
			assert.Equal(t, tt.want, got, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
			if got == exitInput || got == exitInternal {
				assert.NotEmpty(t, errOut.String(), "a failure says why on stderr")
			}
		})
	}
}

func TestInterruptedCommandExits130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	got := run(ctx, []string{"index", "--corpus", "../../benchdata/demo/corpus.jsonl", "--index", filepath.Join(dir, "idx")}, nil, &out, &errOut)
	assert.Equal(t, exitInterrupted, got, errOut.String())
	entries, err := os.ReadDir(dir)
	assert.NoError(t, err)
	assert.Empty(t, entries, "an interrupted build leaves nothing behind")
}

func TestRunWithONNXVerifier(t *testing.T) {
	if os.Getenv("ORT_LIB") == "" {
		t.Skip("ORT_LIB not set: `make test` fetches ONNX Runtime and runs this")
	}
	demo := "../../benchdata/demo/"
	// the random-weight test models label nearly every claim alike: degenerate
	// by construction, which this test is not about
	base := []string{"run", "--verifier", "onnx", "--allow-degenerate-verifier", "--k", "1", "--corpus", demo + "corpus.jsonl", "--claims", demo + "claims.jsonl", "--gold", demo + "gold.jsonl"}
	for _, c := range []struct {
		name  string
		extra []string
		want  int
	}{
		{"tiny model on cpu", []string{"--model", "../../adjudicate/onnx/testdata/tiny", "--device", "cpu"}, exitOK},
		{"no model folder", []string{"--model", "nowhere"}, exitInput},
		{"bad device", []string{"--model", "../../adjudicate/onnx/testdata/tiny", "--device", "tpu"}, exitInput},
		{"roberta-style model without token_type_ids", []string{"--model", "../../adjudicate/onnx/testdata/roberta"}, exitOK},
		{"two-label model", []string{"--model", "../../adjudicate/onnx/testdata/binary"}, exitOK},
		{"model with wrong inputs", []string{"--model", "../../adjudicate/onnx/testdata/badinputs"}, exitInput},
		{"cuda without its provider", []string{"--model", "../../adjudicate/onnx/testdata/tiny", "--device", "cuda"}, exitInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			got := run(context.Background(), append(append(base, "--out", out), c.extra...), nil, &stdout, &stderr)
			assert.Equal(t, c.want, got, "stderr: %s", stderr.String())
			if c.want == exitOK {
				assert.Contains(t, stdout.String(), "600 claims")
				_, err := os.Stat(filepath.Join(out, "records.parquet"))
				assert.NoError(t, err)
			}
			switch c.name {
			case "model with wrong inputs":
				assert.Contains(t, stderr.String(), "pixel_values")
				assert.Contains(t, stderr.String(), "expected input_ids and attention_mask")
			case "cuda without its provider":
				assert.Contains(t, stderr.String(), "CUDA")
			case "two-label model":
				// The documented rule: not supported is insufficient, never
				// unsupported — for the verifier's own label (a labelling
				// rule may still decide unsupported, and says so in
				// decided_by).
				recs, err := reports.ReadParquet[reports.Record](filepath.Join(out, "records.parquet"))
				require.NoError(t, err)
				require.Len(t, recs, 600)
				for _, r := range recs {
					if r.VerifierLabel != nil {
						assert.NotEqual(t, "unsupported", *r.VerifierLabel, r.ClaimID)
					}
					if r.PredictedLabel != nil && (r.DecidedBy == nil || *r.DecidedBy == "verifier") {
						assert.NotEqual(t, "unsupported", *r.PredictedLabel, r.ClaimID)
					}
					if r.RawPUnsupp != nil {
						assert.Less(t, *r.RawPUnsupp, 1e-8, r.ClaimID)
					}
					if r.LogitUnsupp != nil && r.LogitInsuff != nil {
						assert.InDelta(t, *r.LogitInsuff-20, *r.LogitUnsupp, 1e-9, r.ClaimID)
					}
				}
			}
		})
	}
}

func TestTrainOnSetFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.json")
	var stdout, stderr bytes.Buffer
	got := run(context.Background(), []string{"train", "--set", "../../benchdata/demo", "--out", out}, nil, &stdout, &stderr)
	require.Equal(t, exitOK, got, stderr.String())
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	w, err := lexical.ParseWeights(b)
	require.NoError(t, err)
	sets := w.Provenance["sets"].([]any)
	require.Len(t, sets, 1)
	assert.Equal(t, "demo", sets[0].(map[string]any)["name"])
	assert.Equal(t, true, sets[0].(map[string]any)["generated"])

	for name, args := range map[string][]string{
		"same set twice":          {"train", "--set", "../../benchdata/demo", "--set", "../../benchdata/demo", "--out", out},
		"one set to leave out":    {"train", "--set", "../../benchdata/demo", "--leave-one-out"},
		"no set":                  {"train", "--out", out},
		"folder without a corpus": {"train", "--set", t.TempDir(), "--out", out},
	} {
		stderr.Reset()
		assert.Equal(t, exitInput, run(context.Background(), args, nil, &stdout, &stderr), "%s: %s", name, stderr.String())
	}
}
