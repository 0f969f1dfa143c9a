package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 24 cases 12: the interrupt message gives the endpoint without its
// user information.
func TestInterruptedMessageHidesUserinfo(t *testing.T) {
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, backends: defaultBackends()}
	cmd := newRunCmd(e)
	require.NoError(t, cmd.ParseFlags([]string{"--corpus", "c.jsonl", "--claims", "c.jsonl", "--out", "o", "--verifier", "triton",
		"--endpoint", "http://alice:PASSW0RD@triton.example:8000/base"}))
	msg := interruptedMessage(cmd, audit.Options{OutDir: "o"}, "")
	assert.NotContains(t, msg, "PASSW0RD")
	assert.NotContains(t, msg, "alice")
	assert.Contains(t, msg, "--endpoint http://triton.example:8000/base")
}

// hostileJudge is an OpenAI-compatible server that tries every way of
// getting the API key written somewhere: it echoes the Authorization
// header in the judge's reason, answers errors whose body holds the key
// across the 300-character cut of error snippets, and redirects (307) to a
// collector on another port that records every Authorization header it is
// sent and echoes it too.
type hostileJudge struct {
	n         atomic.Int64
	collector string
	mu        sync.Mutex
	stolen    []string // Authorization headers the collector saw
}

func (h *hostileJudge) answer(w http.ResponseWriter, auth string) {
	content := fmt.Sprintf(`{"label": "supported", "passage": null, "reason": "you sent %s"}`, auth)
	json.NewEncoder(w).Encode(map[string]any{"model": "judge-7b", "choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}}})
}

func (h *hostileJudge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	auth := r.Header.Get("Authorization")
	switch h.n.Add(1) % 3 {
	case 0:
		w.Header().Set("Location", h.collector+r.URL.Path)
		w.WriteHeader(http.StatusTemporaryRedirect)
	case 1:
		h.answer(w, auth)
	default:
		// The key straddles the 300th character of the body.
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "%s echo: %s", strings.Repeat("x", 290), auth)
	}
}

// The "Must show" of issue 24: a run against a hostile judge (echoing the
// header, redirecting to another origin, long error bodies) writes the key
// nowhere — no file of the folder, stdout, stderr — and the other origin
// never receives it (cases 10, 11, 13).
func TestHostileJudgeNeverGetsTheKeyWritten(t *testing.T) {
	const key = "sk-claimaudit-hostile-8c1f0a7e3b2d"
	t.Setenv("CLAIMAUDIT_TEST_JUDGE_KEY", key)
	d := subset(t, 30)
	h := &hostileJudge{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		h.mu.Lock()
		h.stolen = append(h.stolen, r.Header.Get("Authorization"))
		h.mu.Unlock()
		h.answer(w, r.Header.Get("Authorization"))
	}))
	defer collector.Close()
	h.collector = collector.URL
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "hostile")
	args := d.args(out, "--verifier", "openai", "--endpoint", srv.URL+"/v1", "--model", "judge-7b", "--api-key-env", "CLAIMAUDIT_TEST_JUDGE_KEY",
		"--max-retries", "0", "--batch-size", "1", "--resume")
	_, stdout, stderr := runBackends(t, defaultBackends(), args...)
	recs, err := reports.ReadParquet[reports.Record](filepath.Join(out, "records.parquet"))
	require.NoError(t, err, stderr)
	echoed, failed := 0, 0
	for _, r := range recs {
		if strings.Contains(r.Rationale, "you sent Bearer [redacted]") {
			echoed++
		}
		if r.Error != nil {
			failed++
			assert.NotContains(t, *r.Error, key[:12], "no prefix of the key survives a cut")
		}
	}
	assert.Positive(t, echoed, "the echoing answers were recorded, key redacted")
	assert.Positive(t, failed, "the long error bodies were recorded")
	h.mu.Lock()
	assert.NotEmpty(t, h.stolen, "the redirect was followed")
	for _, a := range h.stolen {
		assert.Empty(t, a, "Authorization never goes to another origin")
	}
	h.mu.Unlock()
	noKey(t, key, out, stdout, stderr)
}
