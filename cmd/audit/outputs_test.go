package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fake OpenAI-compatible server for the LLM extractor: the facts of an
// output are its sentences; an output that says BROKEN gets prose instead
// of JSON. It checks the bearer key.
func factServer(t *testing.T, key string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, "bad key "+r.Header.Get("Authorization"), http.StatusUnauthorized)
			return
		}
		var req struct {
			Messages []struct{ Content string }
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		prompt := req.Messages[0].Content
		text := prompt[strings.Index(prompt, "Answer:\n")+len("Answer:\n"):]
		text = text[:strings.Index(text, "\n\nReply with")]
		content := "Here are the facts you asked for."
		if !strings.Contains(text, "BROKEN") {
			var facts []string
			for _, s := range strings.SplitAfter(text, ". ") {
				if s = strings.TrimSpace(s); s != "" {
					facts = append(facts, s)
				}
			}
			b, _ := json.Marshal(map[string]any{"facts": facts})
			content = string(b)
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// audit run --outputs with the LLM extractor: every output is a row of
// outputs.parquet, the one whose answer was malformed says so and
// abstains, and the API key is in no file the run writes nor in its
// output.
func TestOutputsRunLLMExtractorKeyNeverShown(t *testing.T) {
	const key = "sk-claimaudit-extract-7d3e1a"
	t.Setenv("CLAIMAUDIT_TEST_EXTRACT_KEY", key)
	srv := factServer(t, key)
	dir := t.TempDir()
	outputs := filepath.Join(dir, "outputs.jsonl")
	b, err := os.ReadFile("../../benchdata/demo/outputs.jsonl")
	require.NoError(t, err)
	lines := strings.SplitN(string(b), "\n", 9)[:8]
	lines = append(lines, `{"id": "broken", "text": "BROKEN output.", "query_id": "q", "attempt": 0}`)
	require.NoError(t, os.WriteFile(outputs, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	out, cache := filepath.Join(dir, "run"), filepath.Join(dir, "cache")
	code, stdout, stderr := runBackends(t, defaultBackends(), "run", "--corpus", "../../benchdata/demo/corpus.jsonl",
		"--spans", "../../benchdata/demo/spans.jsonl", "--outputs", outputs, "--out", out, "--extractor", "openai",
		"--extract-endpoint", srv.URL+"/v1", "--extract-model", "facts-7b", "--extract-api-key-env", "CLAIMAUDIT_TEST_EXTRACT_KEY",
		"--extract-cache", cache, "--extract-max-retries", "0")
	require.Equal(t, exitOK, code, stderr)
	rows, err := reports.ReadParquet[reports.OutputRow](filepath.Join(out, "outputs.parquet"))
	require.NoError(t, err)
	require.Len(t, rows, 9)
	var broken *reports.OutputRow
	for i, r := range rows {
		require.NotNil(t, r.Revision, r.OutputID)
		if r.OutputID == "broken" {
			broken = &rows[i]
		} else {
			assert.Nil(t, r.ExtractionError)
			assert.Positive(t, r.Claims, r.OutputID)
		}
	}
	require.NotNil(t, broken)
	require.NotNil(t, broken.ExtractionError)
	assert.Contains(t, *broken.ExtractionError, "not the required JSON")
	assert.Equal(t, "abstain", *broken.Revision)
	assert.Equal(t, "ABSTAIN", *broken.OverallAction)
	assert.Contains(t, stderr, "broken")
	noKey(t, key, out, stdout, stderr)
	noKey(t, key, cache)

	// audit extract with the same server: the failed output is a row of
	// OUT.errors.jsonl, the command exits 3, the key is nowhere.
	claimsOut := filepath.Join(dir, "x", "claims.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(claimsOut), 0o755))
	code, stdout, stderr = runBackends(t, defaultBackends(), "extract", "--input", outputs, "--out", claimsOut, "--extractor", "openai",
		"--endpoint", srv.URL+"/v1", "--model", "facts-7b", "--api-key-env", "CLAIMAUDIT_TEST_EXTRACT_KEY", "--max-retries", "0")
	assert.Equal(t, exitInternal, code, stderr)
	errs, err := os.ReadFile(claimsOut + ".errors.jsonl")
	require.NoError(t, err)
	assert.Contains(t, string(errs), `{"id":"broken","line":9,"error":`)
	assert.Contains(t, stderr, "claims of 1 of 9 outputs could not be extracted")
	assert.Equal(t, fmt.Sprint(1), fmt.Sprint(strings.Count(strings.TrimSpace(string(errs)), "\n")+1))
	for _, f := range []string{claimsOut, claimsOut + ".errors.jsonl"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NotContains(t, string(b), key)
	}
	assert.NotContains(t, stdout+stderr, key)
}

// The termination warnings of a run over outputs: each query's final
// attempt carries them in outputs.parquet (the unsupported claims' texts
// with UNSUPPORTED_CLAIMS), report.html shows them, and their rates gate.
func TestTerminationWarningsGate(t *testing.T) {
	demo := "../../benchdata/demo/"
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runBackends(t, defaultBackends(), "run", "--log-level", "warn", "--corpus", demo+"corpus.jsonl", "--spans", demo+"spans.jsonl",
		"--outputs", demo+"outputs.jsonl", "--out", out, "--fail-on", "query_unsupported_claims_rate>0.01,query_no_improvement_rate>1")
	require.Equal(t, exitGate, code, stdout+stderr)
	assert.Contains(t, stderr, "gate failed: ")
	var s struct {
		Gates []struct {
			Gate   string `json:"gate"`
			Failed bool   `json:"failed"`
		} `json:"gates"`
		Undefined map[string]string `json:"undefined"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.Len(t, s.Gates, 2)
	assert.True(t, s.Gates[0].Failed, "most queries end with material claims unsupported")
	assert.Equal(t, "no query was revised (no query has a second attempt)", s.Undefined["query_no_improvement_rate"],
		"the demo's outputs are first attempts: a gate over the rate fails as undefined, saying why")
	rows, err := reports.ReadParquet[reports.OutputRow](filepath.Join(out, "outputs.parquet"))
	require.NoError(t, err)
	warned := 0
	for _, r := range rows {
		if len(r.TerminationWarnings) == 0 {
			assert.Empty(t, r.UnsupportedClaims, r.OutputID)
			continue
		}
		warned++
		for _, w := range r.TerminationWarnings {
			assert.Contains(t, []string{"NO_IMPROVEMENT", "UNSUPPORTED_CLAIMS"}, w)
		}
		if slices.Contains(r.TerminationWarnings, "UNSUPPORTED_CLAIMS") {
			assert.NotEmpty(t, r.UnsupportedClaims, r.OutputID)
		}
	}
	require.Positive(t, warned)
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "warnings: ")
	assert.Contains(t, string(html), "UNSUPPORTED_CLAIMS")
}
