package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The remote backends end to end through `audit run`, each against an
// in-process server of its protocol, on the first 120 claims of the demo set.

const tinyModel = "../../adjudicate/onnx/testdata/tiny"

type demoSubset struct {
	corpus, spans, claims, gold string
	goldOf                      map[string]string // claim text → gold label
}

func subset(t *testing.T, n int) demoSubset {
	t.Helper()
	demo := "../../benchdata/demo/"
	dir := t.TempDir()
	d := demoSubset{corpus: demo + "corpus.jsonl", spans: demo + "spans.jsonl", claims: filepath.Join(dir, "claims.jsonl"), gold: filepath.Join(dir, "gold.jsonl"), goldOf: map[string]string{}}
	labels := map[string]string{}
	g, err := os.ReadFile(demo + "gold.jsonl")
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(g)), "\n") {
		var r struct {
			ClaimID string `json:"claim_id"`
			Label   string `json:"label"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		labels[r.ClaimID] = r.Label
	}
	f, err := os.Open(demo + "claims.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var claims, gold bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; i < n && sc.Scan(); i++ {
		var c struct{ ID, Text string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		claims.Write(sc.Bytes())
		claims.WriteByte('\n')
		fmt.Fprintf(&gold, "{\"claim_id\":%q,\"label\":%q}\n", c.ID, labels[c.ID])
		d.goldOf[c.Text] = labels[c.ID]
	}
	require.NoError(t, os.WriteFile(d.claims, claims.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(d.gold, gold.Bytes(), 0o644))
	return d
}

func (d demoSubset) args(out string, extra ...string) []string {
	return append([]string{"run", "--log-level", "debug", "--corpus", d.corpus, "--spans", d.spans, "--claims", d.claims, "--gold", d.gold,
		"--out", out, "--calibrate", "off", "--workers", "2"}, extra...)
}

func readRun(t *testing.T, out string) ([]reports.Record, map[string]float64) {
	t.Helper()
	recs, err := reports.ReadParquet[reports.Record](filepath.Join(out, "records.parquet"))
	require.NoError(t, err)
	rows, err := reports.ReadParquet[reports.MetricRow](filepath.Join(out, "metrics.parquet"))
	require.NoError(t, err)
	m := map[string]float64{}
	for _, r := range rows {
		if r.Slice == "all" && r.Stage == "raw" && r.Value != nil {
			m[r.Metric] = *r.Value
		}
	}
	return recs, m
}

// Triton: a KServe v2 server running the tiny ONNX model with ONNX Runtime
// gives the records and metrics of --verifier onnx on the same model.
func TestTritonThroughRun(t *testing.T) {
	if os.Getenv("ORT_LIB") == "" {
		t.Skip("ORT_LIB not set (make test fetches ONNX Runtime)")
	}
	d := subset(t, 40)
	local := filepath.Join(t.TempDir(), "onnx")
	code, _, stderr := runBackends(t, defaultBackends(), d.args(local, "--verifier", "onnx", "--model", tinyModel)...)
	require.Equal(t, exitOK, code, stderr)

	score, closeFn, err := remotetest.ONNXScorer(tinyModel + "/model.onnx")
	require.NoError(t, err)
	defer closeFn()
	tr := remotetest.NewTriton("nli", nil)
	tr.ScoreBatch = score
	srv := httptest.NewServer(tr)
	defer srv.Close()
	remote := filepath.Join(t.TempDir(), "triton")
	code, _, stderr = runBackends(t, defaultBackends(), d.args(remote, "--verifier", "triton", "--endpoint", srv.URL, "--model", tinyModel, "--model-name", "nli", "--max-retries", "1")...)
	require.Equal(t, exitOK, code, stderr)

	want, wantM := readRun(t, local)
	got, gotM := readRun(t, remote)
	require.Len(t, got, len(want))
	for i := range got {
		assert.Equal(t, "triton", got[i].Verifier)
		assert.Nil(t, got[i].Error)
		assert.Equal(t, want[i].ClaimID, got[i].ClaimID)
		assert.Equal(t, want[i].LogitSupported, got[i].LogitSupported, "claim %s", got[i].ClaimID)
		assert.Equal(t, want[i].LogitUnsupp, got[i].LogitUnsupp)
		assert.Equal(t, want[i].LogitInsuff, got[i].LogitInsuff)
		assert.Equal(t, want[i].PredictedLabel, got[i].PredictedLabel)
		assert.Equal(t, want[i].Rationale, got[i].Rationale)
	}
	for _, k := range []string{"accuracy", "macro_f1", "tier1_fa_conditional", "ece_10", "coverage"} {
		assert.Equal(t, wantM[k], gotM[k], k)
	}
	assert.Positive(t, tr.Rows.Load())
}

// oracleScore answers the gold label of the claim (as a TEI classifier with
// MNLI's label order), except for every claim whose text hashes to 0 mod 5,
// which it gets wrong (unsupported for supported, else supported).
func oracleLabel(goldOf map[string]string, claim string) string {
	g := goldOf[claim]
	h := fnv.New32a()
	h.Write([]byte(claim))
	if h.Sum32()%5 == 0 {
		if g == "supported" {
			return "unsupported"
		}
		return "supported"
	}
	return g
}

// expectedAccuracy is the share of answered claims the oracle gets right.
func expectedAccuracy(t *testing.T, recs []reports.Record, goldOf map[string]string) float64 {
	right, answered := 0, 0
	for _, r := range recs {
		if r.Abstained {
			continue
		}
		answered++
		if oracleLabel(goldOf, r.Text) == goldOf[r.Text] {
			right++
		}
	}
	require.Positive(t, answered)
	return float64(right) / float64(answered)
}

// TEI: a classifier that knows the gold labels (and is wrong on a known
// fifth) gives exactly the expected accuracy — the label names of MNLI's
// order are mapped by name.
func TestTEIThroughRun(t *testing.T) {
	d := subset(t, 120)
	tei := remotetest.NewTEI(func(claim, passage string) []float64 {
		switch oracleLabel(d.goldOf, claim) {
		case "supported":
			return []float64{-2, 0, 3} // contradiction, neutral, entailment
		case "unsupported":
			return []float64{3, 0, -2}
		}
		return []float64{-1, 3, -1}
	})
	srv := httptest.NewServer(tei)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "tei")
	code, _, stderr := runBackends(t, defaultBackends(), d.args(out, "--verifier", "tei", "--endpoint", srv.URL, "--max-batch", "16", "--rules", "none")...)
	require.Equal(t, exitOK, code, stderr)
	recs, m := readRun(t, out)
	require.Len(t, recs, 120)
	for _, r := range recs {
		assert.Equal(t, "tei", r.Verifier)
		assert.Nil(t, r.Error)
		if !r.Abstained {
			assert.Equal(t, oracleLabel(d.goldOf, r.Text), *r.PredictedLabel, r.ClaimID)
		}
	}
	assert.InDelta(t, expectedAccuracy(t, recs, d.goldOf), m["accuracy"], 1e-12)
	assert.Less(t, m["accuracy"], 1.0)
}

// claimOf reads the claim back out of the built-in prompt.
func claimOf(prompt string) string {
	_, rest, _ := strings.Cut(prompt, "Claim: ")
	claim, _, _ := strings.Cut(rest, "\n")
	return claim
}

func oracleJudge(goldOf map[string]string) func(string) remotetest.Answer {
	return func(prompt string) remotetest.Answer {
		label := oracleLabel(goldOf, claimOf(prompt))
		passage := "1"
		if strings.Contains(prompt, "(no passage was retrieved)") {
			passage = "null"
		}
		var top []remotetest.TopLogprob
		top = append(top, remotetest.TopLogprob{Token: label, Logprob: -0.25})
		for _, l := range []string{"supported", "unsupported", "insufficient"} {
			if l != label {
				top = append(top, remotetest.TopLogprob{Token: l[:3], Logprob: -2.5})
			}
		}
		return remotetest.Answer{Content: fmt.Sprintf(`{"label": %q, "passage": %s, "reason": "per the passage"}`, label, passage), LabelTop: top}
	}
}

// The LLM judge: labels and probabilities from the answer's logprobs give
// the expected accuracy; the API key is in no log line, record, manifest,
// summary, cache or error — in a good run and in a run the server refuses.
func TestOpenAIThroughRunKeyNeverShown(t *testing.T) {
	const key = "sk-claimaudit-test-5f2b9c1e8d7a"
	t.Setenv("CLAIMAUDIT_TEST_JUDGE_KEY", key)
	d := subset(t, 120)
	judge := remotetest.NewOpenAI("judge-7b", oracleJudge(d.goldOf))
	judge.APIKey = key
	srv := httptest.NewServer(judge)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "openai")
	args := d.args(out, "--verifier", "openai", "--endpoint", srv.URL+"/v1", "--model", "judge-7b", "--api-key-env", "CLAIMAUDIT_TEST_JUDGE_KEY", "--resume", "--max-retries", "1", "--rules", "none")
	code, stdout, stderr := runBackends(t, defaultBackends(), args...)
	require.Equal(t, exitOK, code, stderr)
	recs, m := readRun(t, out)
	require.Len(t, recs, 120)
	for _, r := range recs {
		assert.Equal(t, "openai", r.Verifier)
		assert.Nil(t, r.Error)
		if !r.Abstained {
			assert.Equal(t, oracleLabel(d.goldOf, r.Text), *r.PredictedLabel, r.ClaimID)
			assert.InDelta(t, -0.25, max(*r.LogitSupported, *r.LogitUnsupp, *r.LogitInsuff), 1e-9, "the answered label's logit is its logprob")
			assert.InDelta(t, -2.5, min(*r.LogitSupported, *r.LogitUnsupp, *r.LogitInsuff), 1e-9)
			assert.Contains(t, r.Rationale, "logprobs")
		}
	}
	assert.InDelta(t, expectedAccuracy(t, recs, d.goldOf), m["accuracy"], 1e-12)
	manifest, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)
	assert.Contains(t, string(manifest), "openai/"+srv.URL+"/v1/judge-7b/", "the manifest names endpoint and model")
	noKey(t, key, out, stdout, stderr)

	// The server now wants another key and echoes the one it got: every
	// claim fails (exit 3), and the key is still nowhere.
	judge.APIKey = "sk-something-else"
	out2 := filepath.Join(t.TempDir(), "refused")
	args = d.args(out2, "--verifier", "openai", "--endpoint", srv.URL+"/v1", "--model", "judge-7b", "--api-key-env", "CLAIMAUDIT_TEST_JUDGE_KEY", "--rules", "none")
	code, stdout, stderr = runBackends(t, defaultBackends(), args...)
	require.Equal(t, exitInternal, code, stderr)
	recs, _ = readRun(t, out2)
	require.NotEmpty(t, recs)
	require.NotNil(t, recs[0].Error)
	assert.Contains(t, *recs[0].Error, "401 Unauthorized")
	assert.Contains(t, *recs[0].Error, "[redacted]")
	noKey(t, key, out2, stdout, stderr)
}

// noKey fails when key appears in the run's output or in any file of its
// folder (Parquet, JSON, PNG, the verdict cache).
func noKey(t *testing.T, key, dir string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		assert.NotContains(t, s, key)
	}
	files := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		assert.False(t, bytes.Contains(b, []byte(key)), "the API key is in %s", p)
		return nil
	}))
	assert.GreaterOrEqual(t, files, 5)
}

// A Triton server whose model takes other inputs is refused before any
// claim is sent: exit 2, the mismatch named.
func TestTritonMetadataMismatchExit2(t *testing.T) {
	d := subset(t, 10)
	tr := remotetest.NewTriton("nli", remotetest.HashScore)
	tr.Metadata.Inputs[0].Datatype = "FP32"
	srv := httptest.NewServer(tr)
	defer srv.Close()
	code, _, stderr := runBackends(t, defaultBackends(), d.args(filepath.Join(t.TempDir(), "x"), "--verifier", "triton", "--endpoint", srv.URL, "--model", tinyModel)...)
	assert.Equal(t, exitInput, code)
	assert.Contains(t, stderr, "input input_ids has data type FP32, want INT64 or INT32")
	assert.Zero(t, tr.Rows.Load(), "no claim was sent")
	assert.Equal(t, int64(1), tr.Requests.Load(), "only the metadata was read")
}

// A remote judge's usage reaches the records (tokens in and out, calls,
// retries, cost at the given prices) and is summed in summary.json; a
// retried request counts its retries.
func TestOpenAIUsageInRecordsAndSummary(t *testing.T) {
	d := subset(t, 24)
	judge := remotetest.NewOpenAI("judge-7b", oracleJudge(d.goldOf))
	var faults atomic.Int64
	judge.SetFault(func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
		if r.Method != http.MethodPost || n%7 != 3 {
			return false
		}
		faults.Add(1)
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return true
	})
	srv := httptest.NewServer(judge)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "usage")
	args := d.args(out, "--verifier", "openai", "--endpoint", srv.URL+"/v1", "--model", "judge-7b", "--max-retries", "2", "--rules", "none",
		"--price-input", "2", "--price-output", "6")
	code, _, stderr := runBackends(t, defaultBackends(), args...)
	require.Equal(t, exitOK, code, stderr)
	recs, _ := readRun(t, out)
	require.Len(t, recs, 24)
	var want reports.Usage
	cost := 0.0
	for _, r := range recs {
		require.NotNil(t, r.Calls, r.ClaimID)
		assert.Equal(t, int64(1), *r.Calls)
		assert.Positive(t, *r.TokensIn)
		assert.Positive(t, *r.TokensOut)
		require.NotNil(t, r.Cost)
		assert.InDelta(t, (float64(*r.TokensIn)*2+float64(*r.TokensOut)*6)/1e6, *r.Cost, 1e-15)
		want.Add(&r)
		cost += *r.Cost
	}
	assert.Positive(t, faults.Load(), "some requests failed once")
	assert.Equal(t, faults.Load(), want.Retries, "every failed request was retried once, and counted")
	var s struct {
		Usage reports.UsageSummary `json:"usage"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	u := s.Usage
	assert.Equal(t, [4]int64{want.TokensIn, want.TokensOut, 24, want.Retries}, [4]int64{u.Verifier.TokensIn, u.Verifier.TokensOut, u.Verifier.Calls, u.Verifier.Retries})
	require.NotNil(t, u.Cost)
	assert.InDelta(t, cost, *u.Cost, 1e-12)
	assert.Nil(t, u.Extractor, "claims, not outputs: nothing extracted")

	// Without prices the tokens are counted and the cost is null; the
	// prices go together.
	out2 := filepath.Join(t.TempDir(), "noprice")
	judge.SetFault(nil)
	code, _, stderr = runBackends(t, defaultBackends(), d.args(out2, "--verifier", "openai", "--endpoint", srv.URL+"/v1", "--model", "judge-7b", "--rules", "none")...)
	require.Equal(t, exitOK, code, stderr)
	recs, _ = readRun(t, out2)
	for _, r := range recs {
		assert.Nil(t, r.Cost)
		assert.NotNil(t, r.TokensIn)
	}
	b, err = os.ReadFile(filepath.Join(out2, "summary.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"cost": null`)
	code, _, stderr = runBackends(t, defaultBackends(), d.args(filepath.Join(t.TempDir(), "half"), "--price-input", "2")...)
	assert.Equal(t, exitInput, code)
	assert.Contains(t, stderr, "--price-input and --price-output go together")
}
