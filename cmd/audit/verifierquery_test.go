package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queryRun writes a corpus and an outputs file whose first output has a
// query and whose second has none, and returns the run's arguments.
func queryRun(t *testing.T, out string, extra ...string) []string {
	t.Helper()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.jsonl")
	require.NoError(t, os.WriteFile(corpus, []byte(`{"doc_id":"lakes","text":"Lake Orrin is 18 metres deep. Lake Vell is 40 metres deep."}`+"\n"), 0o644))
	outputs := filepath.Join(dir, "outputs.jsonl")
	require.NoError(t, os.WriteFile(outputs, []byte(`{"id":"o1","query":"How deep is Lake Orrin?","text":"Lake Orrin is 18 metres deep."}`+"\n"+
		`{"id":"o2","text":"Lake Vell is 40 metres deep."}`+"\n"), 0o644))
	return append([]string{"run", "--log-level", "warn", "--corpus", corpus, "--outputs", outputs, "--out", out, "--rules", "none"}, extra...)
}

// The user's query reaches the LLM judge's prompt by default, for the
// claims of the output that has one only; --verifier-query off keeps it
// out, and the run id says whether the verifier read it.
func TestVerifierQueryReachesTheJudge(t *testing.T) {
	var mu sync.Mutex
	var prompts []string
	judge := remotetest.NewOpenAI("judge-7b", func(prompt string) remotetest.Answer {
		mu.Lock()
		prompts = append(prompts, prompt)
		mu.Unlock()
		return oracleJudge(map[string]string{claimOf(prompt): "supported"})(prompt)
	})
	srv := httptest.NewServer(judge)
	defer srv.Close()
	judgeArgs := []string{"--verifier", "openai", "--endpoint", srv.URL + "/v1", "--model", "judge-7b"}
	promptOf := func(claim string) string {
		for _, p := range prompts {
			if claimOf(p) == claim {
				return p
			}
		}
		t.Fatalf("no prompt for %q in %d prompts", claim, len(prompts))
		return ""
	}
	runIDs := map[string]string{}
	for _, mode := range []string{"", "auto", "off"} {
		prompts = nil
		out := filepath.Join(t.TempDir(), "out")
		args := queryRun(t, out, judgeArgs...)
		if mode != "" {
			args = append(args, "--verifier-query", mode)
		}
		code, _, stderr := runBackends(t, defaultBackends(), args...)
		require.Equal(t, exitOK, code, stderr)
		recs, _ := readRun(t, out)
		require.Len(t, recs, 2)
		runIDs[mode] = recs[0].RunID
		asked, unasked := promptOf("Lake Orrin is 18 metres deep."), promptOf("Lake Vell is 40 metres deep.")
		if mode == "off" {
			assert.NotContains(t, asked, "How deep is Lake Orrin?", "off: no query in the prompt")
		} else {
			assert.Contains(t, asked, "The claim comes from an answer to this question (context only: judge the claim, not the answer):\nHow deep is Lake Orrin?\n", "mode %q", mode)
		}
		assert.NotContains(t, unasked, "question", "mode %q: an output without a query gets the prompt without one", mode)
	}
	assert.Equal(t, runIDs[""], runIDs["auto"])
	assert.NotEqual(t, runIDs["auto"], runIDs["off"], "the run id says whether the verifier read the query")

	code, _, stderr := runBackends(t, defaultBackends(), queryRun(t, filepath.Join(t.TempDir(), "bad"), append(judgeArgs, "--verifier-query", "always")...)...)
	assert.Equal(t, exitInput, code)
	assert.Contains(t, stderr, `--verifier-query "always" is not one of auto, on, off`)
}

// A pair model (TEI) gets the query only under --verifier-query on, as a
// third segment after the claim.
func TestVerifierQueryPairModelOffByDefault(t *testing.T) {
	var mu sync.Mutex
	var claims []string
	tei := remotetest.NewTEI(func(claim, passage string) []float64 {
		mu.Lock()
		claims = append(claims, claim)
		mu.Unlock()
		return []float64{-1, 3, -1}
	})
	srv := httptest.NewServer(tei)
	defer srv.Close()
	for _, mode := range []string{"auto", "on", "off"} {
		claims = nil
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := runBackends(t, defaultBackends(), queryRun(t, out, "--verifier", "tei", "--endpoint", srv.URL, "--verifier-query", mode)...)
		require.Equal(t, exitOK, code, stderr)
		require.NotEmpty(t, claims)
		joined := strings.Join(claims, "|")
		if mode == "on" {
			assert.Contains(t, claims, "Lake Orrin is 18 metres deep.\nQuestion: How deep is Lake Orrin?")
			assert.Contains(t, claims, "Lake Vell is 40 metres deep.", "no query: the claim alone")
		} else {
			assert.NotContains(t, joined, "Question:", "mode %s", mode)
			assert.Contains(t, claims, "Lake Orrin is 18 metres deep.")
		}
	}
}
