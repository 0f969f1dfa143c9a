package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const key = "sk-test-SECRET-4242"

// fakeServer is an OpenAI-compatible chat endpoint on the loopback
// interface that answers with reply(prompt), checks the bearer key and
// records each request.
type fakeServer struct {
	url   string
	calls atomic.Int64
	last  atomic.Value // remote.ChatRequest
}

func newServer(t *testing.T, reply func(w http.ResponseWriter, prompt string)) *fakeServer {
	fs := &fakeServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, "bad path or key", http.StatusUnauthorized)
			return
		}
		var req remote.ChatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fs.last.Store(req)
		reply(w, req.Messages[0].Content)
	}))
	t.Cleanup(srv.Close)
	fs.url = srv.URL + "/v1"
	return fs
}

func content(w http.ResponseWriter, c string) {
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": c}, "finish_reason": "stop"}}})
}

func newExtractor(t *testing.T, url string, cache string, timeout time.Duration) *Extractor {
	t.Helper()
	e, err := New(Options{Model: "facts-7b", APIKeyEnv: "TEST_KEY", CacheDir: cache,
		Getenv: func(k string) string { return map[string]string{"TEST_KEY": key}[k] },
		Client: remote.Options{Endpoint: url, Timeout: timeout, Retries: 1, Backoff: time.Millisecond, MaxBackoff: time.Millisecond}})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

func TestNormalAnswerAndCache(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, prompt string) {
		if !strings.Contains(prompt, "The Eiffel Tower is in Paris. It opened in 1889.") {
			content(w, `{"facts": ["Oslo is in Norway."]}`)
			return
		}
		assert.Contains(t, prompt, "The question the answer responds to: When did the tower open?")
		content(w, "```json\n{\"facts\": [\"The Eiffel Tower is in Paris.\", \"The Eiffel Tower opened in 1889.\"]}\n```")
	})
	cache := t.TempDir()
	e := newExtractor(t, srv.url, cache, 5*time.Second)
	facts, err := e.Facts(context.Background(), "The Eiffel Tower is in Paris. It opened in 1889.", "When did the tower open?")
	require.NoError(t, err)
	assert.Equal(t, []string{"The Eiffel Tower is in Paris.", "The Eiffel Tower opened in 1889."}, facts)
	req := srv.last.Load().(remote.ChatRequest)
	assert.Equal(t, 0.0, req.Temperature)
	assert.Equal(t, Seed, req.Seed)
	assert.Equal(t, "facts-7b", req.Model)
	assert.Equal(t, map[string]string{"type": "json_object"}, req.ResponseFormat)
	// The same output again comes from the cache, also in a new extractor.
	e2 := newExtractor(t, srv.url, cache, 5*time.Second)
	again, err := e2.Facts(context.Background(), "The Eiffel Tower is in Paris. It opened in 1889.", "When did the tower open?")
	require.NoError(t, err)
	assert.Equal(t, facts, again)
	assert.Equal(t, int64(1), srv.calls.Load())
	// Another text is another key.
	_, err = e2.Facts(context.Background(), "Oslo is in Norway.", "")
	require.NoError(t, err)
	assert.Equal(t, int64(2), srv.calls.Load())
	// An empty list is an answer: nothing asserted.
	empty := newServer(t, func(w http.ResponseWriter, _ string) { content(w, `{"facts": []}`) })
	got, err := newExtractor(t, empty.url, "", time.Second).Facts(context.Background(), "Thanks!", "")
	require.NoError(t, err)
	assert.Equal(t, []string{}, got)
	assertNoKey(t, cache)
}

func TestMalformedAnswers(t *testing.T) {
	for _, c := range []string{`The facts are: Paris is in France.`, `{"facts": "Paris is in France."}`, `{"fact": ["x"]}`,
		`{"facts": ["x", 3]}`, `{"facts": ["x", "  "]}`, `{"facts": ["x"]} {"facts": []}`} {
		srv := newServer(t, func(w http.ResponseWriter, _ string) { content(w, c) })
		cache := t.TempDir()
		_, err := newExtractor(t, srv.url, cache, time.Second).Facts(context.Background(), "Paris is in France.", "")
		require.ErrorIs(t, err, ErrMalformed, c)
		assert.NotContains(t, err.Error(), key)
		entries, _ := os.ReadDir(cache)
		assert.Empty(t, entries, "a malformed answer is not cached")
	}
	// Cut at max tokens.
	srv := newServer(t, func(w http.ResponseWriter, _ string) {
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"content": `{"facts": ["Paris is`}, "finish_reason": "length"}}})
	})
	_, err := newExtractor(t, srv.url, "", time.Second).Facts(context.Background(), "Paris is in France.", "")
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "cut at --max-tokens")
}

func TestRefusal(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ string) {
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"content": nil, "refusal": "I can't help with that."}, "finish_reason": "stop"}}})
	})
	_, err := newExtractor(t, srv.url, "", time.Second).Facts(context.Background(), "Some output.", "")
	require.ErrorIs(t, err, ErrRefused)
	assert.Contains(t, err.Error(), "I can't help with that.")
	filtered := newServer(t, func(w http.ResponseWriter, _ string) {
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"content": ""}, "finish_reason": "content_filter"}}})
	})
	_, err = newExtractor(t, filtered.url, "", time.Second).Facts(context.Background(), "Some output.", "")
	require.ErrorIs(t, err, ErrRefused)
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, _ string) {
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		content(w, `{"facts": []}`)
	})
	t.Cleanup(func() { close(release) }) // before the server's Close, which waits for handlers
	t0 := time.Now()
	_, err := newExtractor(t, srv.url, "", 100*time.Millisecond).Facts(context.Background(), "Some output.", "")
	require.Error(t, err)
	assert.Less(t, time.Since(t0), 3*time.Second, "the per-request timeout bounds the wait")
	assert.Contains(t, err.Error(), "gave up after 2 attempts", "a timeout is retried (--max-retries 1), then fails")
	assert.NotContains(t, err.Error(), key)
	assert.Equal(t, int64(2), srv.calls.Load())
}

// A server that echoes the authorization header into its error body: the
// key is scrubbed from the error.
func TestKeyScrubbedFromErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad key "+r.Header.Get("Authorization"), http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	_, err := newExtractor(t, srv.URL+"/v1", "", time.Second).Facts(context.Background(), "Some output.", "")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), key)
}

func TestPromptDocumentedAndChecked(t *testing.T) {
	assert.Contains(t, DefaultPrompt(), `{"facts": [`)
	bad := filepath.Join(t.TempDir(), "p.tmpl")
	require.NoError(t, os.WriteFile(bad, []byte("{{.Nope}}"), 0o644))
	_, err := New(Options{Model: "m", Prompt: bad, Client: remote.Options{Endpoint: "http://127.0.0.1:1/v1"}})
	require.Error(t, err)
	_, err = New(Options{Client: remote.Options{Endpoint: "http://127.0.0.1:1/v1"}})
	require.Error(t, err)
	_, err = New(Options{Model: "m", APIKeyEnv: "NOT_SET_ANYWHERE", Getenv: func(string) string { return "" },
		Client: remote.Options{Endpoint: "http://127.0.0.1:1/v1"}})
	require.Error(t, err)
}

// assertNoKey fails when any file under dir holds the API key.
func assertNoKey(t *testing.T, dir string) {
	t.Helper()
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), key) {
			return fmt.Errorf("%s holds the API key", p)
		}
		return err
	}))
	require.Positive(t, n, "something was written to check")
}

// The extractor counts what its calls spent: the server's tokens, the
// calls answered and their retries; a cached answer costs nothing.
func TestUsageCounted(t *testing.T) {
	var n atomic.Int64
	srv := newServer(t, func(w http.ResponseWriter, _ string) {
		if n.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": `{"facts": ["Oslo is in Norway."]}`}, "finish_reason": "stop"}},
			"usage": map[string]int{"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129}})
	})
	e := newExtractor(t, srv.url, t.TempDir(), 5*time.Second)
	for range 2 {
		_, err := e.Facts(context.Background(), "Oslo is in Norway.", "")
		require.NoError(t, err)
	}
	_, err := e.Facts(context.Background(), "Bergen is in Norway.", "")
	require.NoError(t, err)
	assert.Equal(t, adjudicate.Usage{PromptTokens: 240, CompletionTokens: 18, Calls: 2, Retries: 1}, e.Usage(),
		"two answered calls (the second text's once), one retry, the cached repeat free")
}
