package onnx

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shipped is the fine-tuned verifier the project ships (make model writes
// it, with the reference batch Python computed at export).
const shipped = "../../models/minilm-l6-verifier"

type shippedReference struct {
	MaxLength  int          `json:"max_length"`
	Pairs      [][2]string  `json:"pairs"`
	InputIDs   [][]int64    `json:"input_ids"`
	TypeIDs    [][]int64    `json:"type_ids"`
	OnnxLogits [][3]float64 `json:"onnx_logits"`
	TorchLogit [][3]float64 `json:"torch_logits"`
}

// The shipped model's tokenizer gives, id for id, the (passage, claim) ids
// the Python trainer gave for the reference batch (long passages, a claim
// longer than the room, an empty passage, accents), at the length it was
// trained at, which its tokenizer.json declares; and ONNX Runtime from Go
// gives the logits Python's ONNX Runtime gave for that batch, within
// ortParity, and torch's float32 model's within 0.05 (the int8 weights:
// 0.027 at most).
func TestShippedModelMatchesPython(t *testing.T) {
	// ortParity bounds Go against Python's ONNX Runtime across machines:
	// the reference was computed on a CPU where ONNX Runtime's int8 matrix
	// products round differently from one with AVX-512 VNNI (exact 32-bit
	// dot products rather than saturating 16-bit pair sums). On the same
	// CPU the two agree within 1e-4; on a VNNI machine (AMD EPYC, 2026-11-26)
	// the largest difference over the reference batch was 0.0102. A wrong
	// input (ids, type ids, mask, positions) moves logits by far more.
	const ortParity = 0.02
	var ref shippedReference
	b, err := os.ReadFile(filepath.Join(shipped, "reference.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &ref))
	v := newModel(t, shipped, Options{})
	require.Equal(t, ref.MaxLength, v.MaxLength(), "the default length is the one the model was trained at")
	require.Len(t, ref.InputIDs, len(ref.Pairs))
	var pairs []encoded
	var idx []int
	width := 0
	for i, p := range ref.Pairs {
		e, err := v.tok.EncodePair(p[0], p[1], v.maxLen)
		require.NoError(t, err)
		assert.Equal(t, ref.InputIDs[i], e.IDs, "pair %d ids", i)
		assert.Equal(t, ref.TypeIDs[i], e.TypeIDs, "pair %d type ids", i)
		pairs = append(pairs, encoded{ids: e.IDs, types: e.TypeIDs})
		idx = append(idx, i)
		width = max(width, len(e.IDs))
	}
	got := make([][3]float64, len(pairs))
	require.NoError(t, v.run(pairs, idx, bucket(width), got))
	for i := range got {
		want := v.labels.apply(ref.OnnxLogits[i][:])
		assert.InDeltaSlice(t, want[:], got[i][:], ortParity, "row %d: Go vs Python ONNX Runtime", i)
		torch := v.labels.apply(ref.TorchLogit[i][:])
		assert.InDeltaSlice(t, torch[:], got[i][:], 0.05, "row %d: Go (int8) vs torch (float32)", i)
	}
}
