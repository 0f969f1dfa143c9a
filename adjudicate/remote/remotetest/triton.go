package remotetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// TensorMeta is a tensor's entry in KServe v2 model metadata.
type TensorMeta struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// ModelMetadata is the KServe v2 model metadata response.
type ModelMetadata struct {
	Name     string       `json:"name"`
	Versions []string     `json:"versions,omitempty"`
	Platform string       `json:"platform"`
	Inputs   []TensorMeta `json:"inputs"`
	Outputs  []TensorMeta `json:"outputs"`
}

// Tensor is a KServe v2 request tensor of integers (data row-major, flat).
type Tensor struct {
	Name     string  `json:"name"`
	Shape    []int64 `json:"shape"`
	Datatype string  `json:"datatype"`
	Data     []int64 `json:"data"`
}

// InferRequest is the body of POST /v2/models/{name}[/versions/{v}]/infer.
type InferRequest struct {
	ID      string   `json:"id,omitempty"`
	Inputs  []Tensor `json:"inputs"`
	Outputs []struct {
		Name string `json:"name"`
	} `json:"outputs,omitempty"`
}

// Triton serves one sequence-classification model over the KServe v2
// REST protocol, as Triton's onnxruntime backend serves an exported NLI
// model: inputs input_ids, attention_mask, token_type_ids [-1, -1] INT64,
// output logits [-1, 3] FP32.
type Triton struct {
	Counters
	Metadata ModelMetadata
	// Score gives one row's logits in the model's column order from the
	// row's ids, mask and type ids (padding included, as a model sees it).
	Score func(ids, mask, types []int64) []float32
	// ScoreBatch, when set, scores a whole request at once (a real model
	// run): inputs row-major [rows, width]; it returns rows × columns.
	ScoreBatch func(rows, width int, ids, mask, types []int64) ([]float32, int, error)
	Rows       atomic.Int64 // rows inferred
	fault      Fault
}

// NewTriton serves model name with the standard NLI metadata and score.
func NewTriton(name string, score func(ids, mask, types []int64) []float32) *Triton {
	in := func(n string) TensorMeta { return TensorMeta{Name: n, Datatype: "INT64", Shape: []int64{-1, -1}} }
	return &Triton{
		Metadata: ModelMetadata{Name: name, Versions: []string{"1"}, Platform: "onnxruntime_onnx",
			Inputs:  []TensorMeta{in("input_ids"), in("attention_mask"), in("token_type_ids")},
			Outputs: []TensorMeta{{Name: "logits", Datatype: "FP32", Shape: []int64{-1, 3}}}},
		Score: score,
	}
}

// SetFault installs a fault hook (nil removes it).
func (t *Triton) SetFault(f Fault) {
	t.mu.Lock()
	t.fault = f
	t.mu.Unlock()
}

// HashScore is a deterministic stand-in model: each row's three logits
// depend only on its unmasked tokens (so padding and batch never change
// them), spread over about [-2, 2].
func HashScore(ids, mask, types []int64) []float32 {
	var z [3]float64
	n := 0
	for i, id := range ids {
		if mask[i] == 0 {
			continue
		}
		n++
		for k := range z {
			h := uint64(id)*2654435761 + uint64(k+1)*40503 + uint64(types[i])*97 + uint64(i)*7919
			z[k] += float64(h%2001)/1000 - 1
		}
	}
	out := make([]float32, 3)
	for k := range z {
		if n > 0 {
			out[k] = float32(2 * z[k] / float64(n) * 3)
		}
	}
	return out
}

func tritonError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}

// ServeHTTP implements the protocol's health, metadata and infer routes.
func (t *Triton) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serve(&t.Counters, &t.fault, t.handle).ServeHTTP(w, r)
}

func (t *Triton) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	path := strings.TrimPrefix(r.URL.Path, "/v2")
	if path == "/health/ready" || path == "/health/live" {
		w.WriteHeader(http.StatusOK)
		return
	}
	rest, ok := strings.CutPrefix(path, "/models/"+t.Metadata.Name)
	if !ok {
		tritonError(w, http.StatusNotFound, "Request for unknown model: '%s' is not found", strings.TrimPrefix(path, "/models/"))
		return
	}
	if v, ok := strings.CutPrefix(rest, "/versions/"); ok {
		ver, tail, _ := strings.Cut(v, "/")
		if len(t.Metadata.Versions) > 0 && ver != t.Metadata.Versions[0] {
			tritonError(w, http.StatusNotFound, "Request for unknown model: '%s' version %s is not found", t.Metadata.Name, ver)
			return
		}
		rest = strings.TrimSuffix("/"+tail, "/")
	}
	switch {
	case rest == "" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, t.Metadata)
	case rest == "/ready" && r.Method == http.MethodGet:
		w.WriteHeader(http.StatusOK)
	case rest == "/infer" && r.Method == http.MethodPost:
		t.infer(w, body)
	default:
		tritonError(w, http.StatusNotFound, "not found")
	}
}

func (t *Triton) infer(w http.ResponseWriter, body []byte) {
	var req InferRequest
	if err := json.Unmarshal(body, &req); err != nil {
		tritonError(w, http.StatusBadRequest, "failed to parse the request JSON buffer: %v", err)
		return
	}
	got := map[string][]int64{}
	var rows, width int64 = -1, -1
	for _, in := range req.Inputs {
		var meta *TensorMeta
		for i := range t.Metadata.Inputs {
			if t.Metadata.Inputs[i].Name == in.Name {
				meta = &t.Metadata.Inputs[i]
			}
		}
		if meta == nil {
			tritonError(w, http.StatusBadRequest, "unexpected inference input '%s' for model '%s'", in.Name, t.Metadata.Name)
			return
		}
		if in.Datatype != meta.Datatype {
			tritonError(w, http.StatusBadRequest, "inference input '%s' data-type is '%s', but model '%s' expects '%s'", in.Name, in.Datatype, t.Metadata.Name, meta.Datatype)
			return
		}
		if len(in.Shape) != 2 || int64(len(in.Data)) != in.Shape[0]*in.Shape[1] {
			tritonError(w, http.StatusBadRequest, "unexpected shape %v for input '%s' with %d elements", in.Shape, in.Name, len(in.Data))
			return
		}
		if rows >= 0 && (in.Shape[0] != rows || in.Shape[1] != width) {
			tritonError(w, http.StatusBadRequest, "input '%s' shape %v differs from the other inputs'", in.Name, in.Shape)
			return
		}
		rows, width = in.Shape[0], in.Shape[1]
		got[in.Name] = in.Data
	}
	for _, m := range t.Metadata.Inputs {
		if _, ok := got[m.Name]; !ok {
			tritonError(w, http.StatusBadRequest, "expected %d inputs but got %d inputs for model '%s'", len(t.Metadata.Inputs), len(req.Inputs), t.Metadata.Name)
			return
		}
	}
	types := got["token_type_ids"]
	if types == nil {
		types = make([]int64, rows*width)
	}
	var data []float32
	cols := int64(0)
	if t.ScoreBatch != nil {
		d, c, err := t.ScoreBatch(int(rows), int(width), got["input_ids"], got["attention_mask"], types)
		if err != nil {
			tritonError(w, http.StatusInternalServerError, "onnx runtime error: %v", err)
			return
		}
		data, cols = d, int64(c)
	}
	for i := int64(0); t.ScoreBatch == nil && i < rows; i++ {
		a, b := i*width, (i+1)*width
		row := t.Score(got["input_ids"][a:b], got["attention_mask"][a:b], types[a:b])
		cols = int64(len(row))
		data = append(data, row...)
	}
	t.Rows.Add(rows)
	ver := ""
	if len(t.Metadata.Versions) > 0 {
		ver = t.Metadata.Versions[0]
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"model_name": t.Metadata.Name, "model_version": ver, "id": req.ID,
		"outputs": []map[string]any{{"name": "logits", "datatype": "FP32", "shape": []int64{rows, cols}, "data": data}},
	})
}
