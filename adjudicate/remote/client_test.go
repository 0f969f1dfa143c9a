package remote

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func TestRetryable(t *testing.T) {
	for status, want := range map[int]bool{200: false, 400: false, 401: false, 403: false, 404: false, 408: true, 413: false, 422: false,
		424: false, 429: true, 500: true, 501: false, 502: true, 503: true, 504: true, 505: false} {
		assert.Equal(t, want, Retryable(status), "status %d", status)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cases := map[string]time.Duration{
		"":                              0,
		"5":                             5 * time.Second,
		"0":                             time.Nanosecond, // retry now
		"-3":                            0,
		"3600":                          MaxRetryAfter,
		"soon":                          0,
		"Sun, 22 Nov 2026 10:00:30 GMT": 30 * time.Second,
		"Sun, 22 Nov 2026 09:00:00 GMT": 0,
	}
	for in, want := range cases {
		assert.Equal(t, want, parseRetryAfter(in, now), "%q", in)
	}
}

// Backoff doubles from Backoff up to MaxBackoff, each delay jittered in
// its upper half.
func TestBackoffJitter(t *testing.T) {
	c, err := New(Options{Endpoint: "http://x", Backoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	require.NoError(t, err)
	for attempt, ceiling := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		ceiling *= time.Millisecond
		seen := map[time.Duration]bool{}
		for i := 0; i < 50; i++ {
			d := c.backoff(attempt)
			assert.GreaterOrEqual(t, d, ceiling/2)
			assert.LessOrEqual(t, d, ceiling)
			seen[d] = true
		}
		assert.Greater(t, len(seen), 10, "jittered")
	}
}

// Retries stop at --max-retries; 4xx are not retried; the waits are the
// backoff or, when the server gives one, Retry-After.
func TestRetryPolicy(t *testing.T) {
	var n int
	var mu sync.Mutex
	status := []int{503, 429, 200}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		s := status[min(n, len(status)-1)]
		n++
		mu.Unlock()
		if s == 429 {
			w.Header().Set("Retry-After", "4")
		}
		w.WriteHeader(s)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	rec := &recorder{}
	c, err := New(Options{Endpoint: srv.URL, Retries: 5, Backoff: 10 * time.Millisecond, MaxBackoff: 10 * time.Millisecond, Sleep: rec.sleep})
	require.NoError(t, err)
	var out struct{ OK bool }
	require.NoError(t, c.GetJSON(context.Background(), "/x", &out))
	assert.True(t, out.OK)
	require.Len(t, rec.waits, 2)
	assert.LessOrEqual(t, rec.waits[0], 10*time.Millisecond, "backoff after the 503")
	assert.Equal(t, 4*time.Second, rec.waits[1], "Retry-After after the 429")

	mu.Lock()
	n, status = 0, []int{500}
	mu.Unlock()
	err = c.GetJSON(context.Background(), "/x", &out)
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 500, se.Status)
	assert.Contains(t, err.Error(), "gave up after 6 attempts")
	assert.False(t, adjudicate.IsTransient(err))
	assert.Equal(t, 6, n)

	mu.Lock()
	n, status = 0, []int{404}
	mu.Unlock()
	err = c.GetJSON(context.Background(), "/x", &out)
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, n, "a 404 is not retried")
}

// A cancelled context ends the retries at once with the context's error.
func TestCancelStopsRetries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(Options{Endpoint: srv.URL, Retries: 100, Sleep: func(context.Context, time.Duration) error { cancel(); return context.Canceled }})
	require.NoError(t, err)
	err = c.GetJSON(ctx, "/", nil)
	assert.ErrorIs(t, err, context.Canceled)
}

// Connection refused is retried, then reported.
func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	rec := &recorder{}
	c, err := New(Options{Endpoint: url, Retries: 2, Sleep: rec.sleep})
	require.NoError(t, err)
	err = c.GetJSON(context.Background(), "/", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gave up after 3 attempts")
	assert.Len(t, rec.waits, 2)
}

// --max-rps spaces request starts 1/rps apart.
func TestMaxRPS(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") }))
	defer srv.Close()
	rec := &recorder{}
	c, err := New(Options{Endpoint: srv.URL, MaxRPS: 4, Sleep: rec.sleep})
	require.NoError(t, err)
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c.rate.now = func() time.Time { return start } // a stopped clock: the waits are exact
	for i := 0; i < 5; i++ {
		require.NoError(t, c.GetJSON(context.Background(), "/", nil))
	}
	// The first starts at once; each later one waits for its slot (the
	// recorder returns at once, so the slots pile up 250 ms apart).
	require.Len(t, rec.waits, 4)
	for i, d := range rec.waits {
		assert.Equal(t, time.Duration(i+1)*250*time.Millisecond, d, "wait %d", i)
	}
}

// A server whose certificate a private CA signed is trusted with --ca-cert
// and refused without it.
func TestCustomCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"v":1}`) }))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))

	c, err := New(Options{Endpoint: srv.URL, CACert: ca})
	require.NoError(t, err)
	var out struct{ V int }
	require.NoError(t, c.GetJSON(context.Background(), "/", &out))
	assert.Equal(t, 1, out.V)

	plain, err := New(Options{Endpoint: srv.URL, Retries: 0})
	require.NoError(t, err)
	err = plain.GetJSON(context.Background(), "/", &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate")

	bad := filepath.Join(dir, "bad.pem")
	require.NoError(t, os.WriteFile(bad, []byte("not a certificate"), 0o644))
	_, err = New(Options{Endpoint: srv.URL, CACert: bad})
	assert.ErrorContains(t, err, "no PEM certificate")
}

// --max-inflight bounds the requests in flight across callers.
func TestMaxInflight(t *testing.T) {
	var mu sync.Mutex
	cur, peak := 0, 0
	arrived := make(chan struct{}, 64)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cur++
		peak = max(peak, cur)
		mu.Unlock()
		arrived <- struct{}{}
		<-release
		mu.Lock()
		cur--
		mu.Unlock()
		io.WriteString(w, "{}")
	}))
	defer srv.Close()
	c, err := New(Options{Endpoint: srv.URL, MaxInflight: 2})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, c.GetJSON(context.Background(), "/", nil))
		}()
	}
	for i := 0; i < 8; i++ {
		<-arrived
		if i >= 1 {
			release <- struct{}{}
		}
	}
	release <- struct{}{}
	wg.Wait()
	assert.Equal(t, 2, peak)
}

// The secret is sent as a bearer token and scrubbed from errors, even from
// a body that echoes it; user information never shows in the endpoint.
func TestSecretScrubbed(t *testing.T) {
	const secret = "sk-live-abcdef0123456789"
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s"}}`, secret)
	}))
	defer srv.Close()
	c, err := New(Options{Endpoint: srv.URL, Secret: secret})
	require.NoError(t, err)
	err = c.GetJSON(context.Background(), "/", nil)
	require.Error(t, err)
	assert.Equal(t, "Bearer "+secret, got)
	assert.NotContains(t, err.Error(), secret)
	var se *StatusError
	require.True(t, errors.As(err, &se))
	assert.NotContains(t, se.Body, secret)

	c, err = New(Options{Endpoint: "https://alice:pa55word@judge.internal:8443/v1/"})
	require.NoError(t, err)
	assert.Equal(t, "https://judge.internal:8443/v1", c.Endpoint())
}

func TestOptionErrors(t *testing.T) {
	for _, o := range []Options{{}, {Endpoint: "judge:8000"}, {Endpoint: "http://x", Retries: -1}, {Endpoint: "http://x", MaxRPS: -1}, {Endpoint: "http://x", CACert: "/does/not/exist"}} {
		_, err := New(o)
		assert.Error(t, err, "%+v", o)
	}
}
