package triton

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/claimaudit/claimaudit/adjudicate/onnx"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tiny is the onnx backend's test model folder (tokenizer.json, config.json).
const tiny = "../onnx/testdata/tiny"

// fastRetries: retries that wait a recorded moment, never the real delay.
func fastRetries(endpoint string, waits *[]time.Duration) remote.Options {
	var mu sync.Mutex
	return remote.Options{Endpoint: endpoint, Retries: 3, Timeout: 5 * time.Second, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			if waits != nil {
				*waits = append(*waits, d)
			}
			mu.Unlock()
			return ctx.Err()
		}}
}

func serve(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func newVerifier(t *testing.T, o Options) *Verifier {
	t.Helper()
	if o.Model == "" {
		o.Model = tiny
	}
	if o.ModelName == "" {
		o.ModelName = "nli"
	}
	v, err := New(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

func TestConformance(t *testing.T) {
	srv := serve(t, remotetest.NewTriton("nli", remotetest.HashScore))
	adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier {
		return newVerifier(t, Options{Client: fastRetries(srv.URL, nil), MaxBatch: 4})
	})
}

// The client sends the ids the onnx backend computes: the request tensors
// hold, row by row, onnx.Tokenizer's ids padded with zeros and a mask of
// ones over them.
func TestSendsTheOnnxTokenizersIDs(t *testing.T) {
	tr := remotetest.NewTriton("nli", remotetest.HashScore)
	var mu sync.Mutex
	var rows [][]int64
	tr.Score = func(ids, mask, types []int64) []float32 {
		mu.Lock()
		var kept []int64
		for i := range ids {
			if mask[i] == 1 {
				kept = append(kept, ids[i])
			} else {
				assert.Zero(t, ids[i], "padding")
			}
		}
		rows = append(rows, kept)
		mu.Unlock()
		return remotetest.HashScore(ids, mask, types)
	}
	srv := serve(t, tr)
	v := newVerifier(t, Options{Client: fastRetries(srv.URL, nil)})
	_, err := v.Verify(context.Background(), []adjudicate.Pair{{ClaimID: "c", Claim: "Lake Orrin is deep.", Passages: []adjudicate.Passage{{Text: "Lake Orrin is 18 metres deep."}}}})
	require.NoError(t, err)
	tok, err := onnx.LoadTokenizer(tiny)
	require.NoError(t, err)
	want, _, err := tok.EncodePair("Lake Orrin is deep.", "Lake Orrin is 18 metres deep.")
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, want, rows[0])
}

// Served by a KServe v2 server that runs the same ONNX model with ONNX
// Runtime (as Triton's onnxruntime backend does), the triton verifier's
// verdicts equal the onnx backend's, bit for bit.
func TestSameVerdictsAsOnnxBackend(t *testing.T) {
	if os.Getenv("ORT_LIB") == "" {
		t.Skip("ORT_LIB not set (make ort fetches ONNX Runtime; make test sets it)")
	}
	local, err := onnx.New(onnx.Options{Model: tiny})
	require.NoError(t, err)
	defer local.(io.Closer).Close()
	score, closeFn, err := remotetest.ONNXScorer(tiny + "/model.onnx")
	require.NoError(t, err)
	defer closeFn()
	tr := remotetest.NewTriton("nli", nil)
	tr.ScoreBatch = score
	srv := serve(t, tr)
	v := newVerifier(t, Options{Client: fastRetries(srv.URL, nil)})
	pairs := adjudicatetest.Pairs()
	want, err := local.Verify(context.Background(), pairs)
	require.NoError(t, err)
	got, err := v.Verify(context.Background(), pairs)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// A served model whose metadata differs from what the client sends fails
// at construction, before any infer request.
func TestMetadataMismatchFailsBeforeAnyClaim(t *testing.T) {
	cases := []struct {
		name   string
		change func(md *remotetest.ModelMetadata)
		want   string
	}{
		{"input datatype", func(md *remotetest.ModelMetadata) { md.Inputs[0].Datatype = "FP32" }, "input input_ids has data type FP32"},
		{"missing input", func(md *remotetest.ModelMetadata) { md.Inputs = md.Inputs[1:] }, "no input input_ids"},
		{"extra input", func(md *remotetest.ModelMetadata) {
			md.Inputs = append(md.Inputs, remotetest.TensorMeta{Name: "position_ids", Datatype: "INT64", Shape: []int64{-1, -1}})
		}, "input position_ids"},
		{"input rank", func(md *remotetest.ModelMetadata) { md.Inputs[1].Shape = []int64{-1} }, "input attention_mask has shape [-1]"},
		{"fixed batch", func(md *remotetest.ModelMetadata) { md.Inputs[0].Shape = []int64{1, -1} }, "fixed batch dimension 1"},
		{"short fixed sequence", func(md *remotetest.ModelMetadata) { md.Inputs[0].Shape = []int64{-1, 8} }, "sequences of 8 tokens"},
		{"two labels", func(md *remotetest.ModelMetadata) { md.Outputs[0].Shape = []int64{-1, 2} }, "output logits has shape [-1 2]"},
		{"no logits", func(md *remotetest.ModelMetadata) { md.Outputs[0].Name = "probabilities" }, "no output logits (outputs: probabilities)"},
		{"logits datatype", func(md *remotetest.ModelMetadata) { md.Outputs[0].Datatype = "BYTES" }, "output logits has data type BYTES"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := remotetest.NewTriton("nli", remotetest.HashScore)
			c.change(&tr.Metadata)
			srv := serve(t, tr)
			_, err := New(context.Background(), Options{Model: tiny, ModelName: "nli", Client: fastRetries(srv.URL, nil)})
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrModelMismatch)
			assert.Contains(t, err.Error(), c.want)
			assert.False(t, adjudicate.IsTransient(err))
			assert.Zero(t, tr.Rows.Load(), "no claim was sent")
		})
	}
	t.Run("unknown model", func(t *testing.T) {
		tr := remotetest.NewTriton("nli", remotetest.HashScore)
		srv := serve(t, tr)
		_, err := New(context.Background(), Options{Model: tiny, ModelName: "other", Client: fastRetries(srv.URL, nil)})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "404")
		assert.Equal(t, int64(1), tr.Requests.Load(), "a 404 is not retried")
	})
}

var onePair = []adjudicate.Pair{{ClaimID: "c1", Claim: "Lake Orrin is deep.", Passages: []adjudicate.Passage{{Text: "Lake Orrin is 18 metres deep."}}}}

func inferRequests(tr *remotetest.Triton) int64 { return tr.Requests.Load() - 2 } // minus metadata and ready

// TestFaults is the fault table of docs/remote-verifiers.md: each row a
// server behaviour and what the client does about it.
func TestFaults(t *testing.T) {
	isInfer := func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/infer") }
	cases := []struct {
		name      string
		fault     remotetest.Fault
		wantErr   string // "" = success
		wantTries int64  // infer requests
		wantWaits []time.Duration
	}{
		{"429 with Retry-After", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if isInfer(r) && n == 3 {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
				return true
			}
			return false
		}, "", 2, []time.Duration{7 * time.Second}},
		{"503 twice then success", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if isInfer(r) && n <= 4 {
				http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
				return true
			}
			return false
		}, "", 3, nil},
		{"500 until retries run out", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isInfer(r) {
				http.Error(w, `{"error":"internal"}`, http.StatusInternalServerError)
				return true
			}
			return false
		}, "500 Internal Server Error: {\"error\":\"internal\"} (gave up after 4 attempts)", 4, nil},
		{"400 not retried", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isInfer(r) {
				http.Error(w, `{"error":"unexpected shape for input 'input_ids'"}`, http.StatusBadRequest)
				return true
			}
			return false
		}, "400 Bad Request", 1, nil},
		{"truncated body retried", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if isInfer(r) && n == 3 {
				remotetest.Truncated(w, `{"model_name":"nli","outputs":[{"name":"logits","shape":[1,3],"da`)
				return true
			}
			return false
		}, "", 2, nil},
		{"malformed body not retried", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isInfer(r) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"model_name":"nli","outputs":[{"name":"logits","shape":[1,3],"data":[0.1,0.2,`)
				return true
			}
			return false
		}, "malformed response", 1, nil},
		{"wrong output shape", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isInfer(r) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"model_name":"nli","outputs":[{"name":"logits","datatype":"FP32","shape":[1,2],"data":[0.1,0.2]}]}`)
				return true
			}
			return false
		}, "output logits has shape [1 2] with 2 values, want [1 3]", 1, nil},
		{"no logits output", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isInfer(r) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"model_name":"nli","outputs":[{"name":"probs","datatype":"FP32","shape":[1,3],"data":[0.1,0.2,0.7]}]}`)
				return true
			}
			return false
		}, "no output logits", 1, nil},
		{"timeout retried", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if isInfer(r) && n == 3 {
				<-r.Context().Done() // never answers: the client's --request-timeout ends it
				return true
			}
			return false
		}, "", 2, nil},
		{"connection dropped", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if isInfer(r) && n == 3 {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return true
			}
			return false
		}, "", 2, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := remotetest.NewTriton("nli", remotetest.HashScore)
			tr.SetFault(c.fault)
			srv := serve(t, tr)
			var waits []time.Duration
			o := fastRetries(srv.URL, &waits)
			if c.name == "timeout retried" {
				o.Timeout = 100 * time.Millisecond
			}
			v := newVerifier(t, Options{Client: o})
			got, err := v.Verify(context.Background(), onePair)
			if c.wantErr == "" {
				require.NoError(t, err)
				require.Len(t, got, 1)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				assert.False(t, adjudicate.IsTransient(err), "the client retried already: the scheduler must not multiply the attempts")
			}
			assert.Equal(t, c.wantTries, inferRequests(tr))
			if c.wantWaits != nil {
				assert.Equal(t, c.wantWaits, waits, "Retry-After is the wait")
			}
		})
	}
}

// A slow server never sees more than --max-inflight requests at once, and
// a cancelled run leaves no client goroutine behind.
func TestSlowServerBoundedConcurrencyNoLeak(t *testing.T) {
	tr := remotetest.NewTriton("nli", remotetest.HashScore)
	release := make(chan struct{})
	arrived := make(chan struct{}, 100)
	tr.SetFault(func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
		if !strings.HasSuffix(r.URL.Path, "/infer") {
			return false
		}
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return false
	})
	srv := serve(t, tr)
	o := fastRetries(srv.URL, nil)
	o.MaxInflight = 3
	v := newVerifier(t, Options{Client: o, MaxBatch: 1})
	var pairs []adjudicate.Pair
	for i := 0; i < 40; i++ { // 40 pairs of one bucket: 40 requests of one row
		pairs = append(pairs, adjudicate.Pair{ClaimID: fmt.Sprint(i), Claim: fmt.Sprintf("claim %d", i), Passages: []adjudicate.Passage{{Text: "a passage"}}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(ctx, pairs)
		done <- err
	}()
	for i := 0; i < 3; i++ {
		<-arrived
	}
	// Three requests are held; let them go one by one and watch the bound.
	for i := 0; i < 6; i++ {
		release <- struct{}{}
		<-arrived
	}
	assert.LessOrEqual(t, tr.MaxInflight.Load(), int64(3))
	cancel()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "adjudicate/triton.(*Verifier)") || strings.Contains(g, "adjudicate/remote.(*Client)") {
			t.Errorf("goroutine left behind after Verify returned:\n%s", g)
		}
	}
}

// The version names the server and the model: another endpoint or model
// never shares cached verdicts. No user information leaks into it.
func TestVersionNamesEndpointAndModel(t *testing.T) {
	a := serve(t, remotetest.NewTriton("nli", remotetest.HashScore))
	b := serve(t, remotetest.NewTriton("nli", remotetest.HashScore))
	other := remotetest.NewTriton("nli2", remotetest.HashScore)
	c := serve(t, other)
	va := newVerifier(t, Options{Client: fastRetries(strings.Replace(a.URL, "http://", "http://user:hunter2@", 1), nil)})
	vb := newVerifier(t, Options{Client: fastRetries(b.URL, nil)})
	vc := newVerifier(t, Options{Client: fastRetries(c.URL, nil), ModelName: "nli2"})
	assert.NotEqual(t, va.Version(), vb.Version())
	assert.NotEqual(t, vb.Version(), vc.Version())
	assert.Contains(t, vc.Version(), "nli2@1")
	assert.NotContains(t, va.Version(), "hunter2")
}

func TestOptionsErrors(t *testing.T) {
	_, err := New(context.Background(), Options{ModelName: "nli", Client: remote.Options{Endpoint: "http://x"}})
	assert.ErrorContains(t, err, "--model DIR is required")
	_, err = New(context.Background(), Options{Model: tiny, ModelName: "nli"})
	assert.ErrorContains(t, err, "--endpoint URL is required")
	_, err = New(context.Background(), Options{Model: tiny, ModelName: "nli", Client: remote.Options{Endpoint: "ftp://x"}})
	assert.ErrorContains(t, err, "not an http:// or https:// URL")
	var mm = errors.New("x")
	assert.NotErrorIs(t, err, mm)
}
