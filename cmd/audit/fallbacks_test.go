package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Verifier failure fallbacks (issue 45, item 11), end to end through
// `audit run` against an in-process TEI server.

// stallOn makes the server never answer a request that holds one of the
// texts: it waits until the client gives up on it (its context ends).
func stallOn(tei *remotetest.TEI, texts ...string) {
	var marks [][]byte
	for _, s := range texts {
		b, _ := json.Marshal(s)
		marks = append(marks, b[1:len(b)-1])
	}
	tei.SetFault(func(w http.ResponseWriter, r *http.Request, _ int64, body []byte) bool {
		for _, m := range marks {
			if strings.Contains(string(body), string(m)) {
				<-r.Context().Done()
				return true
			}
		}
		return false
	})
}

// oracleTEI answers the claims' gold labels (as in TestTEIThroughRun).
func oracleTEI(d demoSubset) *remotetest.TEI {
	return remotetest.NewTEI(func(claim, passage string) []float64 {
		switch oracleLabel(d.goldOf, claim) {
		case "supported":
			return []float64{-2, 0, 3}
		case "unsupported":
			return []float64{3, 0, -2}
		}
		return []float64{-1, 3, -1}
	})
}

// A verification call slower than --verify-timeout: its claims are
// skipped (abstain_reason verify_timeout, the error column says why), the
// log names them, summary.json warns, they are no errors (the run exits 0)
// and every other claim is decided as without the bound.
func TestVerifyTimeoutSkipsTheSlowCall(t *testing.T) {
	d := subset(t, 40)
	recsOf := func(out string) []reports.Record { r, _ := readRun(t, out); return r }
	tei := oracleTEI(d)
	srv := httptest.NewServer(tei)
	defer srv.Close()
	args := func(out string, extra ...string) []string {
		return d.args(out, append([]string{"--verifier", "tei", "--endpoint", srv.URL, "--max-batch", "1", "--batch-size", "1", "--max-retries", "0", "--rules", "none"}, extra...)...)
	}
	base := filepath.Join(t.TempDir(), "base")
	code, _, stderr := runBackends(t, defaultBackends(), args(base)...)
	require.Equal(t, exitOK, code, stderr)
	want := recsOf(base)

	slow := want[7].Text
	stallOn(tei, slow)
	out := filepath.Join(t.TempDir(), "slow")
	code, _, stderr = runBackends(t, defaultBackends(), args(out, "--verify-timeout", "300ms")...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "slower than --verify-timeout")
	got := recsOf(out)
	require.Len(t, got, len(want))
	skipped := 0
	for i, r := range got {
		if r.Text != slow {
			assert.Equal(t, want[i].PredictedLabel, r.PredictedLabel, r.ClaimID)
			assert.Nil(t, r.Error, r.ClaimID)
			continue
		}
		skipped++
		assert.True(t, r.Abstained)
		require.NotNil(t, r.AbstainReason)
		assert.Equal(t, audit.ReasonTimeout, *r.AbstainReason)
		require.NotNil(t, r.Error)
		assert.Contains(t, *r.Error, "verify_timeout: ")
		assert.Nil(t, r.PredictedLabel)
	}
	assert.Equal(t, 1, skipped)
	summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "1 claims were skipped: their verification call was slower than --verify-timeout 300ms")

	code, _, stderr = runBackends(t, defaultBackends(), args(filepath.Join(t.TempDir(), "neg"), "--verify-timeout", "-1s")...)
	assert.Equal(t, exitInput, code, stderr)
}

// With --outputs, a timed-out call skips its output as a whole: every
// claim of that output abstains verify_timeout; the other output's claims
// are decided.
func TestVerifyTimeoutSkipsTheOutput(t *testing.T) {
	d := subset(t, 6)
	var texts []string
	for text := range d.goldOf {
		texts = append(texts, text)
	}
	sort.Strings(texts)
	dir := t.TempDir()
	outputs := filepath.Join(dir, "outputs.jsonl")
	lines := fmt.Sprintf("{\"id\":\"o1\",\"text\":%q}\n{\"id\":\"o2\",\"text\":%q}\n", texts[0]+" "+texts[1], texts[2]+" "+texts[3])
	require.NoError(t, os.WriteFile(outputs, []byte(lines), 0o644))
	tei := oracleTEI(d)
	stallOn(tei, strings.TrimSuffix(texts[0], "."))
	srv := httptest.NewServer(tei)
	defer srv.Close()
	out := filepath.Join(dir, "out")
	code, _, stderr := runBackends(t, defaultBackends(), "run", "--log-level", "warn", "--corpus", d.corpus, "--spans", d.spans, "--outputs", outputs,
		"--out", out, "--verifier", "tei", "--endpoint", srv.URL, "--max-batch", "1", "--batch-size", "1", "--max-retries", "0", "--verify-timeout", "300ms")
	require.Equal(t, exitOK, code, stderr)
	recs, _ := readRun(t, out)
	byOutput := map[string][]reports.Record{}
	for _, r := range recs {
		byOutput[r.SourceID] = append(byOutput[r.SourceID], r)
	}
	require.GreaterOrEqual(t, len(byOutput["o1"]), 2, "o1 has two claims")
	require.NotEmpty(t, byOutput["o2"])
	for _, r := range byOutput["o1"] {
		require.NotNil(t, r.AbstainReason, r.Text)
		assert.Equal(t, audit.ReasonTimeout, *r.AbstainReason, r.Text)
	}
	for _, r := range byOutput["o2"] {
		if r.AbstainReason != nil {
			assert.NotEqual(t, audit.ReasonTimeout, *r.AbstainReason, r.Text)
		}
	}
	rows, err := reports.ReadParquet[reports.OutputRow](filepath.Join(out, "outputs.parquet"))
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Contains(t, rows[0].RiskFlags, audit.FlagVerifyTimeout)
}

// A verifier that says one label for 99% or more of 100+ answered claims
// is disabled for decisions: the run writes its files, says so (stderr,
// summary.json's warnings) and exits 3, unless --allow-degenerate-verifier
// (exit 0, the warning kept). An oracle of the demo's labels is no such
// verifier.
func TestDegenerateVerifierFailsTheRun(t *testing.T) {
	d := subset(t, 120)
	always := remotetest.NewTEI(func(claim, passage string) []float64 { return []float64{-2, 0, 3} })
	srv := httptest.NewServer(always)
	defer srv.Close()
	args := func(out string, extra ...string) []string {
		return d.args(out, append([]string{"--verifier", "tei", "--endpoint", srv.URL, "--rules", "none"}, extra...)...)
	}
	out := filepath.Join(t.TempDir(), "deg")
	code, _, stderr := runBackends(t, defaultBackends(), args(out)...)
	assert.Equal(t, exitInternal, code, stderr)
	assert.Contains(t, stderr, "disabled for decisions")
	recs, _ := readRun(t, out)
	assert.Len(t, recs, 120, "the files are written all the same")
	summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "the verifier is disabled for decisions: it labels 120 of 120 answered claims supported")

	out = filepath.Join(t.TempDir(), "allowed")
	code, _, stderr = runBackends(t, defaultBackends(), args(out, "--allow-degenerate-verifier")...)
	assert.Equal(t, exitOK, code, stderr)
	summary, err = os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "kept going by --allow-degenerate-verifier")

	oracle := oracleTEI(d)
	srv2 := httptest.NewServer(oracle)
	defer srv2.Close()
	out = filepath.Join(t.TempDir(), "oracle")
	code, _, stderr = runBackends(t, defaultBackends(), d.args(out, "--verifier", "tei", "--endpoint", srv2.URL, "--rules", "none")...)
	assert.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "disabled for decisions")
}

// Retrieval that finds nothing relevant (the best passage under
// --min-retrieval-score): by default the claim abstains weak_retrieval;
// under --weak-retrieval insufficient the same claims are decided
// insufficient (decided_by weak_retrieval, flag weak_retrieval), none
// abstains, and the others keep their labels. A bad policy is exit 2.
func TestWeakRetrievalPolicy(t *testing.T) {
	d := subset(t, 60)
	args := func(out string, extra ...string) []string {
		return d.args(out, append([]string{"--rules", "none"}, extra...)...)
	}
	base, weak, insuf := filepath.Join(t.TempDir(), "base"), filepath.Join(t.TempDir(), "weak"), filepath.Join(t.TempDir(), "insufficient")
	for _, run := range [][]string{args(base), args(weak, "--min-retrieval-score", "12"), args(insuf, "--min-retrieval-score", "12", "--weak-retrieval", "insufficient")} {
		code, _, stderr := runBackends(t, defaultBackends(), run...)
		require.Equal(t, exitOK, code, stderr)
	}
	b, _ := readRun(t, base)
	w, _ := readRun(t, weak)
	in, _ := readRun(t, insuf)
	require.Len(t, in, len(w))
	n := 0
	for i := range w {
		if w[i].AbstainReason == nil || *w[i].AbstainReason != audit.ReasonWeakRetrieval {
			assert.Equal(t, b[i].PredictedLabel, in[i].PredictedLabel, in[i].ClaimID)
			assert.Equal(t, b[i].DecidedBy, in[i].DecidedBy, in[i].ClaimID)
			continue
		}
		n++
		assert.False(t, in[i].Abstained, in[i].ClaimID)
		assert.Nil(t, in[i].AbstainReason)
		require.NotNil(t, in[i].PredictedLabel)
		assert.Equal(t, "insufficient", *in[i].PredictedLabel)
		require.NotNil(t, in[i].DecidedBy)
		assert.Equal(t, audit.DecidedByWeakRetrieval, *in[i].DecidedBy)
		assert.Contains(t, in[i].Flags, audit.FlagWeakRetrieval)
	}
	assert.Positive(t, n, "some claims retrieve under the threshold")
	assert.Less(t, n, len(w), "and some above it")
	code, _, stderr := runBackends(t, defaultBackends(), args(filepath.Join(t.TempDir(), "bad"), "--weak-retrieval", "skip")...)
	assert.Equal(t, exitInput, code, stderr)
	assert.Contains(t, stderr, "--weak-retrieval")
}
