package onnx

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tiny = "testdata/tiny"

// needRuntime skips without ONNX Runtime; `make test` (and so CI) fetches
// it with `make ort` and sets ORT_LIB, so there these tests always run.
func needRuntime(t *testing.T) {
	if os.Getenv("ORT_LIB") == "" {
		t.Skip("ORT_LIB not set: `make test` fetches ONNX Runtime (make ort) and runs these tests")
	}
}

func newTiny(t *testing.T) *Verifier {
	needRuntime(t)
	v, err := New(Options{Model: tiny})
	require.NoError(t, err)
	t.Cleanup(func() { v.(*Verifier).Close() })
	return v.(*Verifier)
}

type reference struct {
	Pairs    [][2]string  `json:"pairs"`
	InputIDs [][]int64    `json:"input_ids"`
	Types    [][]int64    `json:"token_type_ids"`
	Logits   [][3]float64 `json:"logits"`
}

func loadReference(t *testing.T) reference {
	var r reference
	b, err := os.ReadFile(filepath.Join(tiny, "reference.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &r))
	return r
}

// Token ids equal those of an independent WordPiece implementation
// (testdata/make_tiny.py), accents, unknown words and an empty passage included.
func TestTokenIDsMatchReference(t *testing.T) {
	v := newTiny(t)
	ref := loadReference(t)
	for i, p := range ref.Pairs {
		ids, types, err := v.encode(p[0], p[1])
		require.NoError(t, err)
		assert.Equal(t, ref.InputIDs[i], ids, "pair %d %q", i, p)
		assert.Equal(t, ref.Types[i], types, "pair %d", i)
	}
}

// ONNX Runtime reproduces torch's logits for the reference batch.
func TestLogitsMatchTorch(t *testing.T) {
	v := newTiny(t)
	ref := loadReference(t)
	var pairs []encoded
	var idx []int
	width := 0
	for i := range ref.Pairs {
		pairs = append(pairs, encoded{ids: ref.InputIDs[i], types: ref.Types[i]})
		idx = append(idx, i)
		width = max(width, len(ref.InputIDs[i]))
	}
	got := make([][3]float64, len(pairs))
	require.NoError(t, v.run(pairs, idx, width, got))
	for i := range got {
		for k := 0; k < 3; k++ {
			assert.InDelta(t, ref.Logits[i][v.outIndex[k]], got[i][k], 1e-4, "pair %d class %d", i, k)
		}
	}
}

func TestConformance(t *testing.T) {
	adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier { return newTiny(t) })
}

// The deciding passage is the one with the strongest evidence either way,
// and its logits are the claim's.
func TestDecidingPassage(t *testing.T) {
	v := newTiny(t)
	pair := adjudicatetest.Pairs()[3]
	got, err := v.Verify(context.Background(), []adjudicate.Pair{pair})
	require.NoError(t, err)
	best, bestP := -1.0, -1
	for i, ps := range pair.Passages {
		one, err := v.Verify(context.Background(), []adjudicate.Pair{{ClaimID: "x", Claim: pair.Claim, Passages: []adjudicate.Passage{ps}}})
		require.NoError(t, err)
		p := softmax(one[0].Logits)
		if s := max(p[0], p[1]); s > best {
			best, bestP = s, i
		}
	}
	assert.Equal(t, bestP, got[0].Passage)
	assert.Contains(t, got[0].Rationale, "strongest of 2 passages")
}

// Long inputs are truncated to the model's maximum length, the passage
// first and the claim only when it alone is too long — never a crash.
func TestTruncation(t *testing.T) {
	v := newTiny(t)
	long := strings.Repeat("zebra quartz wharf ", 300)
	for _, c := range []struct{ claim, passage string }{
		{"Lake Orrin is deep.", long},
		{long, "The lake is deep."},
		{long, long},
		{long, ""},
	} {
		ids, types, err := v.encode(c.claim, c.passage)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(ids), v.maxLen)
		assert.Greater(t, len(ids), v.maxLen-40, "as much as fits is kept")
		assert.Len(t, types, len(ids))
	}
	ids, _, err := v.encode("Lake Orrin is deep.", long)
	require.NoError(t, err)
	short, _, err := v.encode("Lake Orrin is deep.", "")
	require.NoError(t, err)
	assert.Equal(t, short[:len(short)-1], ids[:len(short)-1], "the claim is kept whole when the passage can be cut")
}

func TestMapLabels(t *testing.T) {
	for _, ok := range []map[string]string{
		{"0": "entailment", "1": "neutral", "2": "contradiction"},
		{"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"},
		{"0": "SUPPORTS", "1": "REFUTES", "2": "NOT ENOUGH INFO"},
		{"0": "supported", "1": "unsupported", "2": "insufficient"},
	} {
		_, err := MapLabels(ok)
		assert.NoError(t, err, "%v", ok)
	}
	got, err := MapLabels(map[string]string{"0": "contradiction", "1": "neutral", "2": "entailment"})
	require.NoError(t, err)
	assert.Equal(t, [3]int{2, 0, 1}, got, "supported←2, unsupported←0, insufficient←1")
	for _, bad := range []map[string]string{
		{"0": "positive", "1": "negative"},
		{"0": "entailment", "1": "entailment", "2": "neutral"},
		{"0": "entailment", "1": "neutral", "x": "contradiction"},
		{"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"},
	} {
		_, err := MapLabels(bad)
		assert.Error(t, err, "%v", bad)
	}
}

func TestBadModelFolder(t *testing.T) {
	needRuntime(t)
	_, err := New(Options{Model: t.TempDir()})
	assert.ErrorContains(t, err, "config.json")
	_, err = New(Options{})
	assert.ErrorContains(t, err, "--model")
	_, err = New(Options{Model: tiny, Device: "tpu"})
	assert.ErrorContains(t, err, "not cpu or cuda")
}

func BenchmarkVerifyTiny(b *testing.B) {
	if os.Getenv("ORT_LIB") == "" {
		b.Skip("ORT_LIB not set")
	}
	v, err := New(Options{Model: tiny})
	if err != nil {
		b.Fatal(err)
	}
	pairs := adjudicatetest.Pairs()
	n := 0
	for _, p := range pairs {
		n += max(1, len(p.Passages))
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(context.Background(), pairs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkRun measures ONNX Runtime throughput on the tiny model by batch
// size and (padded) sequence length, on CPU.
func BenchmarkRun(b *testing.B) {
	if os.Getenv("ORT_LIB") == "" {
		b.Skip("ORT_LIB not set")
	}
	vv, err := New(Options{Model: tiny})
	if err != nil {
		b.Fatal(err)
	}
	v := vv.(*Verifier)
	for _, seq := range []int{32, 128, 256} {
		for _, batch := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("seq=%d/batch=%d", seq, batch), func(b *testing.B) {
				pairs := make([]encoded, batch)
				idx := make([]int, batch)
				for i := range pairs {
					ids, types := make([]int64, seq), make([]int64, seq)
					for j := range ids {
						ids[j] = int64(5 + (i*7+j*3)%100)
					}
					pairs[i], idx[i] = encoded{ids: ids, types: types}, i
				}
				out := make([][3]float64, batch)
				for b.Loop() {
					if err := v.run(pairs, idx, seq, out); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "pairs/s")
			})
		}
	}
}

// BenchmarkModel times any model folder (BENCH_MODEL) on BENCH_DEVICE with
// batches of 32 pairs of 128 tokens: bench/gpu/run.sh uses it on a GPU.
func BenchmarkModel(b *testing.B) {
	dir := os.Getenv("BENCH_MODEL")
	if dir == "" || os.Getenv("ORT_LIB") == "" {
		b.Skip("BENCH_MODEL and ORT_LIB not set (see bench/gpu/run.sh)")
	}
	vv, err := New(Options{Model: dir, Device: os.Getenv("BENCH_DEVICE")})
	if err != nil {
		b.Fatal(err)
	}
	v := vv.(*Verifier)
	const batch, seq = 32, 128
	pairs := make([]encoded, batch)
	idx := make([]int, batch)
	for i := range pairs {
		ids := make([]int64, seq)
		for j := range ids {
			ids[j] = int64(5 + (i*7+j*3)%1000)
		}
		pairs[i], idx[i] = encoded{ids: ids, types: make([]int64, seq)}, i
	}
	out := make([][3]float64, batch)
	for b.Loop() {
		if err := v.run(pairs, idx, seq, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "pairs/s")
}
