package tei

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fastRetries(endpoint string, waits *[]time.Duration) remote.Options {
	return remote.Options{Endpoint: endpoint, Retries: 3, Timeout: 5 * time.Second, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
		Sleep: func(ctx context.Context, d time.Duration) error {
			if waits != nil {
				*waits = append(*waits, d)
			}
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
	v, err := New(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

func TestConformance(t *testing.T) {
	srv := serve(t, remotetest.NewTEI(remotetest.TextHashScore))
	adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier {
		return newVerifier(t, Options{Client: fastRetries(srv.URL, nil), MaxBatch: 3})
	})
}

// Scores come back sorted by score and named by label: they are mapped by
// name (MNLI's contradiction/neutral/entailment order here), never by
// position.
func TestLabelsMappedByName(t *testing.T) {
	tei := remotetest.NewTEI(func(claim, passage string) []float64 { return []float64{1, 2, 3} }) // contradiction, neutral, entailment
	srv := serve(t, tei)
	v := newVerifier(t, Options{Client: fastRetries(srv.URL, nil)})
	got, err := v.Verify(context.Background(), []adjudicate.Pair{{ClaimID: "c", Claim: "x", Passages: []adjudicate.Passage{{Text: "y", DocID: "d"}}}})
	require.NoError(t, err)
	assert.Equal(t, [3]float64{3, 1, 2}, got[0].Logits, "supported = entailment, unsupported = contradiction, insufficient = neutral")
	assert.Equal(t, 0, got[0].Passage)
}

// Requests never carry more pairs than the server's max_client_batch_size.
func TestServerBatchLimit(t *testing.T) {
	tei := remotetest.NewTEI(remotetest.TextHashScore)
	tei.MaxBatch = 4
	srv := serve(t, tei)
	v := newVerifier(t, Options{Client: fastRetries(srv.URL, nil), MaxBatch: 32})
	pairs := adjudicatetest.Pairs()
	_, err := v.Verify(context.Background(), pairs) // 12 pairs: the server refuses more than 4 at once
	require.NoError(t, err)
	assert.Equal(t, int64(1+3), tei.Requests.Load(), "info + 12/4 predict requests")
}

func TestNotAnNLIClassifier(t *testing.T) {
	for name, id2label := range map[string]map[string]string{
		"two labels":     {"0": "LABEL_0", "1": "LABEL_1"},
		"unknown labels": {"0": "positive", "1": "negative", "2": "neutral"},
	} {
		t.Run(name, func(t *testing.T) {
			tei := remotetest.NewTEI(remotetest.TextHashScore)
			tei.ID2Label = id2label
			srv := serve(t, tei)
			_, err := New(context.Background(), Options{Client: fastRetries(srv.URL, nil)})
			assert.ErrorIs(t, err, ErrNotClassifier)
			assert.Equal(t, int64(1), tei.Requests.Load(), "no pair was sent")
		})
	}
	t.Run("embedding model", func(t *testing.T) {
		srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"model_id":"BAAI/bge-small-en-v1.5","model_sha":null,"model_dtype":"float16","model_type":{"embedding":{"pooling":"cls"}},"max_client_batch_size":32}`)
		}))
		_, err := New(context.Background(), Options{Client: fastRetries(srv.URL, nil)})
		assert.ErrorIs(t, err, ErrNotClassifier)
		assert.Contains(t, err.Error(), "BAAI/bge-small-en-v1.5")
	})
}

func TestVersionNamesEndpointAndModel(t *testing.T) {
	a := remotetest.NewTEI(remotetest.TextHashScore)
	b := remotetest.NewTEI(remotetest.TextHashScore)
	b.ModelSHA = "ffff0000"
	sa, sb := serve(t, a), serve(t, b)
	va := newVerifier(t, Options{Client: fastRetries(sa.URL, nil)})
	vb := newVerifier(t, Options{Client: fastRetries(sb.URL, nil)})
	assert.Contains(t, va.Version(), "example/nli-cross-encoder@0123abcd")
	assert.Contains(t, va.Version(), sa.URL)
	assert.NotEqual(t, va.Version(), vb.Version())
}

var onePair = []adjudicate.Pair{{ClaimID: "c1", Claim: "Lake Orrin is deep.", Passages: []adjudicate.Passage{{Text: "Lake Orrin is 18 metres deep."}}}}

// TestFaults: the TEI rows of the fault table in docs/remote-verifiers.md.
func TestFaults(t *testing.T) {
	isPredict := func(r *http.Request) bool { return r.URL.Path == "/predict" }
	body := func(w http.ResponseWriter, status int, s string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, s)
	}
	cases := []struct {
		name      string
		fault     remotetest.Fault
		wantErr   string
		wantTries int64
		wantWaits []time.Duration
	}{
		{"429 overloaded with Retry-After", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if isPredict(r) && n == 2 {
				w.Header().Set("Retry-After", "2")
				body(w, http.StatusTooManyRequests, `{"error":"Model is overloaded","error_type":"Overloaded"}`)
				return true
			}
			return false
		}, "", 2, []time.Duration{2 * time.Second}},
		{"422 validation not retried", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isPredict(r) {
				body(w, http.StatusUnprocessableEntity, `{"error":"Input validation error: inputs must have less than 512 tokens","error_type":"Validation"}`)
				return true
			}
			return false
		}, "422 Unprocessable Entity", 1, nil},
		{"424 backend error not retried", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isPredict(r) {
				body(w, http.StatusFailedDependency, `{"error":"Inference failed","error_type":"Backend"}`)
				return true
			}
			return false
		}, "424 Failed Dependency", 1, nil},
		{"502 from a proxy retried", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if isPredict(r) && n == 2 {
				body(w, http.StatusBadGateway, `<html>bad gateway</html>`)
				return true
			}
			return false
		}, "", 2, nil},
		{"truncated body retried", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if isPredict(r) && n == 2 {
				remotetest.Truncated(w, `[[{"score":1.5,"label":"entail`)
				return true
			}
			return false
		}, "", 2, nil},
		{"malformed body not retried", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isPredict(r) {
				body(w, http.StatusOK, `[[{"score":1.5,"label":"entailment"},]]`)
				return true
			}
			return false
		}, "malformed response", 1, nil},
		{"too few predictions", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isPredict(r) {
				body(w, http.StatusOK, `[]`)
				return true
			}
			return false
		}, "0 predictions for 1 pairs", 1, nil},
		{"a label missing", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			if isPredict(r) {
				body(w, http.StatusOK, `[[{"score":1.5,"label":"entailment"},{"score":0.5,"label":"neutral"}]]`)
				return true
			}
			return false
		}, "2 labels, want the model's 3", 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tei := remotetest.NewTEI(remotetest.TextHashScore)
			tei.SetFault(c.fault)
			srv := serve(t, tei)
			var waits []time.Duration
			v := newVerifier(t, Options{Client: fastRetries(srv.URL, &waits)})
			got, err := v.Verify(context.Background(), onePair)
			if c.wantErr == "" {
				require.NoError(t, err)
				require.Len(t, got, 1)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				assert.False(t, adjudicate.IsTransient(err))
			}
			assert.Equal(t, c.wantTries, tei.Requests.Load()-1)
			if c.wantWaits != nil {
				assert.Equal(t, c.wantWaits, waits)
			}
		})
	}
}

// What the client sends follows TEI's PredictRequest: a batch of
// [passage, claim] pairs (the passage is the premise, first, as the onnx
// and triton backends encode it), raw scores, truncation on.
func TestRequestBody(t *testing.T) {
	tei := remotetest.NewTEI(remotetest.TextHashScore)
	var got map[string]any
	tei.SetFault(func(w http.ResponseWriter, r *http.Request, _ int64, body []byte) bool {
		if r.URL.Path == "/predict" {
			require.NoError(t, json.Unmarshal(body, &got))
		}
		return false
	})
	srv := serve(t, tei)
	v := newVerifier(t, Options{Client: fastRetries(srv.URL, nil)})
	_, err := v.Verify(context.Background(), onePair)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"inputs": []any{[]any{"Lake Orrin is 18 metres deep.", "Lake Orrin is deep."}}, "raw_scores": true, "truncate": true, "truncation_direction": "Right"}, got)
}
