package onnx

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
)

// arithmetic is what a shipped model's reference.json declares of its graph
// (train/export.py): "int8-rows" when every product is integer or done one
// row at a time, so a pair's logits are bit for bit the same whatever its
// batch; absent for the float32 graphs.
func arithmetic(t *testing.T, dir string) string {
	var ref struct {
		Arithmetic string `json:"arithmetic"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &ref))
	return ref.Arithmetic
}

// A shipped model whose graph declares per-row int8 arithmetic passes the
// whole conformance suite, whose batch tests ask for identical logits (a
// pair alone, in a batch, through the scheduler at any batch size).
func TestShippedRowArithmeticConformance(t *testing.T) {
	ran := 0
	for _, dir := range shippedModels(t) {
		if arithmetic(t, dir) != "int8-rows" {
			continue
		}
		ran++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier { return newModel(t, dir, Options{}) })
		})
	}
	t.Logf("%d shipped models declare int8-rows arithmetic", ran)
}

// Every shipped model's logits for a pair alone (its own width, no
// padding) are within float rounding of the same pair's inside a batch of
// pairs of other lengths: no per-tensor activation scale (quantize_dynamic
// moved them by up to 0.17). The float32 graphs differ in the last bits
// (their GEMMs block by row count); per-row int8 graphs not at all.
func TestShippedModelsBatchDelta(t *testing.T) {
	ctx := context.Background()
	pairs := adjudicatetest.Pairs()
	for _, dir := range shippedModels(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			v := newModel(t, dir, Options{})
			batch, err := v.Verify(ctx, pairs)
			require.NoError(t, err)
			exact := arithmetic(t, dir) == "int8-rows"
			for i := range pairs {
				alone, err := v.Verify(ctx, pairs[i:i+1])
				require.NoError(t, err)
				if exact {
					assert.Equal(t, batch[i].Logits, alone[0].Logits, "pair %d", i)
				} else {
					assert.InDeltaSlice(t, batch[i].Logits[:], alone[0].Logits[:], 1e-5, "pair %d", i)
				}
			}
		})
	}
}
