// Package remotetest holds in-process servers of the three protocols the
// remote verifiers speak, for tests (as net/http/httptest does for HTTP):
// the KServe v2 inference protocol (REST/JSON) that Triton serves, Hugging
// Face Text Embeddings Inference's /info and /predict, and OpenAI's chat
// completions with logprobs. Request and response bodies follow the public
// specifications:
//
//   - KServe v2: https://github.com/kserve/open-inference-protocol
//     (specification/protocol/inference_rest.md: model metadata, infer
//     request and response, the {"error": ...} body);
//   - TEI: the OpenAPI document served at /docs (huggingface/
//     text-embeddings-inference, docs/openapi.json: Info, PredictRequest,
//     Prediction, ErrorResponse);
//   - OpenAI: https://platform.openai.com/docs/api-reference/chat
//     (ChatCompletion, choices[].logprobs.content[].top_logprobs, usage,
//     the {"error": {...}} body).
//
// Every server counts requests and the most it had in flight at once, and
// takes a Fault hook that may answer a request instead (429 with
// Retry-After, 500, a truncated body, a slow answer...).
package remotetest

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// Fault may answer a request in place of the server; it returns true when
// it did. n counts the server's requests from 1. body is the request body.
type Fault func(w http.ResponseWriter, r *http.Request, n int64, body []byte) bool

// Counters are what every server counts.
type Counters struct {
	Requests    atomic.Int64 // requests received
	inflight    atomic.Int64
	MaxInflight atomic.Int64 // most requests in flight at once
	mu          sync.Mutex
}

func (c *Counters) enter() int64 {
	n := c.Requests.Add(1)
	cur := c.inflight.Add(1)
	for {
		m := c.MaxInflight.Load()
		if cur <= m || c.MaxInflight.CompareAndSwap(m, cur) {
			break
		}
	}
	return n
}

func (c *Counters) leave() { c.inflight.Add(-1) }

// serve wraps a protocol handler with counting and the fault hook.
func serve(c *Counters, fault *Fault, h func(w http.ResponseWriter, r *http.Request, body []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := c.enter()
		defer c.leave()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		f := *fault
		c.mu.Unlock()
		if f != nil && f(w, r, n, body) {
			return
		}
		h(w, r, body)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Truncated answers 200 with a Content-Length larger than the body it
// sends: the client sees the connection end mid-body.
func Truncated(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "100000")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, body)
}
