package remotetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync/atomic"
)

// TEI serves a sequence-classification model as Hugging Face Text
// Embeddings Inference does: GET /info (the model and its id2label) and
// POST /predict (pairs in, one list of {score, label} per pair, sorted by
// score, raw logits when raw_scores is true).
type TEI struct {
	Counters
	ModelID  string
	ModelSHA string
	ID2Label map[string]string // e.g. {"0": "contradiction", "1": "neutral", "2": "entailment"}
	MaxBatch int               // max_client_batch_size
	// Score gives a pair's logits in id order. TEI scores [text, text_pair]
	// with text as the first sequence: the verifier sends [passage, claim]
	// (the premise first), and Score receives them by role.
	Score func(claim, passage string) []float64
	Pairs atomic.Int64 // pairs predicted
	fault Fault
}

// NewTEI serves a model with MNLI's label order (contradiction, neutral,
// entailment) and the given scorer.
func NewTEI(score func(claim, passage string) []float64) *TEI {
	return &TEI{ModelID: "example/nli-cross-encoder", ModelSHA: "0123abcd", MaxBatch: 32,
		ID2Label: map[string]string{"0": "contradiction", "1": "neutral", "2": "entailment"}, Score: score}
}

// SetFault installs a fault hook (nil removes it).
func (t *TEI) SetFault(f Fault) {
	t.mu.Lock()
	t.fault = f
	t.mu.Unlock()
}

// TextHashScore is a deterministic stand-in for a pair model.
func TextHashScore(claim, passage string) []float64 {
	out := make([]float64, 3)
	for k := range out {
		var h uint64 = 1469598103934665603 + uint64(k)
		for _, b := range []byte(claim + "\x00" + passage) {
			h = (h ^ uint64(b)) * 1099511628211
		}
		out[k] = float64(h%4001)/1000 - 2
	}
	return out
}

func teiError(w http.ResponseWriter, status int, kind, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...), "error_type": kind})
}

// ServeHTTP implements /info and /predict.
func (t *TEI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serve(&t.Counters, &t.fault, t.handle).ServeHTTP(w, r)
}

func (t *TEI) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	switch {
	case r.URL.Path == "/info" && r.Method == http.MethodGet:
		label2id := map[string]int{}
		for k, v := range t.ID2Label {
			label2id[v], _ = strconv.Atoi(k)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"model_id": t.ModelID, "model_sha": t.ModelSHA, "model_dtype": "float32",
			"model_type":              map[string]any{"classifier": map[string]any{"id2label": t.ID2Label, "label2id": label2id}},
			"max_concurrent_requests": 512, "max_input_length": 512, "max_batch_tokens": 16384,
			"max_client_batch_size": t.MaxBatch, "tokenization_workers": 2, "version": "1.5.0",
		})
	case r.URL.Path == "/predict" && r.Method == http.MethodPost:
		t.predict(w, body)
	default:
		teiError(w, http.StatusNotFound, "Validation", "not found")
	}
}

func (t *TEI) predict(w http.ResponseWriter, body []byte) {
	var req struct {
		Inputs    json.RawMessage `json:"inputs"`
		RawScores bool            `json:"raw_scores"`
		Truncate  *bool           `json:"truncate"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		teiError(w, http.StatusUnprocessableEntity, "Validation", "Failed to deserialize the JSON body: %v", err)
		return
	}
	var batch [][2]string
	if err := json.Unmarshal(req.Inputs, &batch); err != nil {
		teiError(w, http.StatusUnprocessableEntity, "Validation", "inputs: this server expects a batch of pairs: %v", err)
		return
	}
	if len(batch) == 0 {
		teiError(w, http.StatusUnprocessableEntity, "Empty", "`inputs` cannot be empty")
		return
	}
	if len(batch) > t.MaxBatch {
		teiError(w, http.StatusUnprocessableEntity, "Validation", "batch size %d > maximum allowed batch size %d", len(batch), t.MaxBatch)
		return
	}
	type prediction struct {
		Score float64 `json:"score"`
		Label string  `json:"label"`
	}
	out := make([][]prediction, len(batch))
	for i, p := range batch {
		z := t.Score(p[1], p[0]) // [premise, hypothesis] = [passage, claim]
		for k, s := range z {
			out[i] = append(out[i], prediction{Score: s, Label: t.ID2Label[strconv.Itoa(k)]})
		}
		if !req.RawScores {
			teiError(w, http.StatusUnprocessableEntity, "Validation", "this test server only serves raw_scores")
			return
		}
		sort.SliceStable(out[i], func(a, b int) bool { return out[i][a].Score > out[i][b].Score })
	}
	t.Pairs.Add(int64(len(batch)))
	writeJSON(w, http.StatusOK, out)
}
