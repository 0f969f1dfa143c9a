package onnx

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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
// (testdata/make_tiny.py), accents, unknown words and an empty second
// sequence included.
func TestTokenIDsMatchReference(t *testing.T) {
	v := newTiny(t)
	ref := loadReference(t)
	for i, p := range ref.Pairs {
		e, err := v.tok.EncodePair(p[0], p[1], v.maxLen)
		require.NoError(t, err)
		assert.Equal(t, ref.InputIDs[i], e.IDs, "pair %d %q", i, p)
		assert.Equal(t, ref.Types[i], e.TypeIDs, "pair %d", i)
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
			assert.InDelta(t, ref.Logits[i][v.labels.three[k]], got[i][k], 1e-4, "pair %d class %d", i, k)
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
		p := adjudicate.Probabilities(one[0].Logits)
		if s := max(p[0], p[1]); s > best {
			best, bestP = s, i
		}
	}
	assert.Equal(t, bestP, got[0].Passage)
	assert.Contains(t, got[0].Rationale, "strongest of 2 passages")
}

// Long inputs are truncated to the model's maximum length, the passage
// first — never a crash.
func TestTruncation(t *testing.T) {
	v := newTiny(t)
	long := strings.Repeat("zebra quartz wharf ", 300)
	pairs := []adjudicate.Pair{
		{ClaimID: "a", Claim: "Lake Orrin is deep.", Passages: []adjudicate.Passage{{Text: long}}},
		{ClaimID: "b", Claim: long, Passages: []adjudicate.Passage{{Text: "The lake is deep."}}},
		{ClaimID: "c", Claim: long, Passages: []adjudicate.Passage{{Text: long}}},
	}
	got, err := v.Verify(context.Background(), pairs)
	require.NoError(t, err)
	assert.Len(t, got, 3)
	e, err := v.tok.EncodePair(long, "Lake Orrin is deep.", v.maxLen)
	require.NoError(t, err)
	assert.Len(t, e.IDs, v.maxLen)
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
		{"0": "entailment", "1": "not_entailment"},
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
	_, err = New(Options{Model: tiny, LabelRule: "maybe"})
	assert.ErrorContains(t, err, "label rule")
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

type modelReference struct {
	InputIDs [][]int64   `json:"input_ids"`
	Mask     [][]int64   `json:"attention_mask"`
	Logits   [][]float64 `json:"logits"`
}

func newModel(t *testing.T, dir string, opts Options) *Verifier {
	needRuntime(t)
	opts.Model = dir
	v, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { v.(*Verifier).Close() })
	return v.(*Verifier)
}

// A tokenizer.json that declares a truncation length sets the default
// maximum length; --max-length still overrides it, and the length keys the
// version.
func TestMaxLengthFromTokenizer(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"model.onnx", "config.json", "tokenizer.json"} {
		b, err := os.ReadFile(filepath.Join(tiny, f))
		require.NoError(t, err)
		if f == "tokenizer.json" {
			var tj map[string]any
			require.NoError(t, json.Unmarshal(b, &tj))
			tj["truncation"] = map[string]any{"direction": "Right", "max_length": 20, "strategy": "OnlyFirst", "stride": 0}
			b, err = json.Marshal(tj)
			require.NoError(t, err)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	plain := newTiny(t)
	declared := newModel(t, dir, Options{})
	assert.Equal(t, 20, declared.MaxLength())
	assert.Greater(t, plain.MaxLength(), 20)
	assert.Equal(t, 40, newModel(t, dir, Options{MaxLength: 40}).MaxLength())
	e, err := declared.tok.EncodePair(strings.Repeat("long passage words ", 20), "a claim", declared.MaxLength())
	require.NoError(t, err)
	assert.Len(t, e.IDs, 20)
}

// The RoBERTa-style model (no token_type_ids) and the two-label model
// (int32 inputs, an output named scores) reproduce torch's outputs.
func TestOtherModelsMatchTorch(t *testing.T) {
	for _, dir := range []string{"testdata/roberta", "testdata/binary"} {
		v := newModel(t, dir, Options{})
		var ref modelReference
		b, err := os.ReadFile(filepath.Join(dir, "reference.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &ref))
		var pairs []encoded
		var idx []int
		for i, row := range ref.InputIDs {
			n := 0
			for _, m := range ref.Mask[i] {
				n += int(m)
			}
			pairs = append(pairs, encoded{ids: row[:n], types: make([]int64, n)})
			idx = append(idx, i)
		}
		got := make([][3]float64, len(pairs))
		require.NoError(t, v.run(pairs, idx, len(ref.InputIDs[0]), got))
		for i := range got {
			want := v.labels.apply(ref.Logits[i])
			assert.InDeltaSlice(t, want[:], got[i][:], 1e-4, "%s row %d", dir, i)
		}
	}
}

func TestRobertaConformance(t *testing.T) {
	adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier { return newModel(t, "testdata/roberta", Options{}) })
}

func TestBinaryConformance(t *testing.T) {
	adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier { return newModel(t, "testdata/binary", Options{}) })
}

// A two-label model's not-supported logit becomes insufficient (or
// unsupported with LabelRule "unsupported"), the other class sits
// BinaryGap below it, and the deciding passage is the most supporting one.
func TestBinaryRule(t *testing.T) {
	pairs := adjudicatetest.Pairs()
	ins := newModel(t, "testdata/binary", Options{})
	uns := newModel(t, "testdata/binary", Options{LabelRule: "unsupported"})
	assert.NotEqual(t, ins.Version(), uns.Version(), "the rule keys the verdict cache")
	a, err := ins.Verify(context.Background(), pairs)
	require.NoError(t, err)
	b, err := uns.Verify(context.Background(), pairs)
	require.NoError(t, err)
	for i := range pairs {
		z := a[i].Logits
		assert.Equal(t, z[adjudicate.Insufficient]-BinaryGap, z[adjudicate.Unsupported], "pair %d", i)
		assert.Equal(t, [3]float64{z[0], z[2], z[2] - BinaryGap}, b[i].Logits, "pair %d", i)
		assert.Less(t, adjudicate.Probabilities(z)[adjudicate.Unsupported], 1e-8)
		if len(pairs[i].Passages) > 1 {
			best, bestP := -1.0, -1
			for j, ps := range pairs[i].Passages {
				one, err := ins.Verify(context.Background(), []adjudicate.Pair{{ClaimID: "x", Claim: pairs[i].Claim, Passages: []adjudicate.Passage{ps}}})
				require.NoError(t, err)
				if p := adjudicate.Probabilities(one[0].Logits)[0]; p > best {
					best, bestP = p, j
				}
			}
			assert.Equal(t, bestP, a[i].Passage, "pair %d: the most supporting passage decides", i)
		}
	}
	assert.Contains(t, a[0].Rationale, "two-label model")
}

// A model whose inputs are not a text pair's is refused at load, naming
// its inputs and what was expected.
func TestWrongInputsFailAtLoad(t *testing.T) {
	needRuntime(t)
	_, err := New(Options{Model: "testdata/badinputs"})
	require.ErrorIs(t, err, ErrModel)
	assert.ErrorContains(t, err, "pixel_values float32")
	assert.ErrorContains(t, err, "expected input_ids and attention_mask")
	assert.False(t, adjudicate.IsTransient(err))
}

func TestTwoLabelMapping(t *testing.T) {
	for _, c := range []struct {
		id2label map[string]string
		pos, neg int
	}{
		{map[string]string{"0": "not_entailment", "1": "entailment"}, 1, 0},
		{map[string]string{"0": "consistent", "1": "hallucinated"}, 0, 1},
		{map[string]string{"0": "Unsupported", "1": "Supported"}, 1, 0},
		{map[string]string{"0": "INCONSISTENT", "1": "CONSISTENT"}, 1, 0},
	} {
		m, err := mapLabels(c.id2label, "")
		require.NoError(t, err, "%v", c.id2label)
		assert.True(t, m.binary)
		assert.Equal(t, [2]int{c.pos, c.neg}, [2]int{m.pos, m.neg}, "%v", c.id2label)
	}
	for _, bad := range []map[string]string{
		{"0": "LABEL_0", "1": "LABEL_1"},
		{"0": "entailment", "1": "supported"},
		{"0": "a", "1": "b", "2": "c", "3": "d"},
	} {
		_, err := mapLabels(bad, "")
		assert.Error(t, err, "%v", bad)
	}
}

func TestHalfToFloat(t *testing.T) {
	for h, want := range map[uint16]float64{0x3c00: 1, 0xc000: -2, 0x3555: 0.333251953125, 0x0001: math.Pow(2, -24), 0x7bff: 65504} {
		assert.Equal(t, want, halfToFloat(h), "%#x", h)
	}
}
