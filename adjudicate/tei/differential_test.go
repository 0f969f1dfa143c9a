package tei_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/claimaudit/claimaudit/adjudicate/onnx"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/claimaudit/claimaudit/adjudicate/tei"
	"github.com/claimaudit/claimaudit/adjudicate/triton"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tiny is the onnx backend's test model folder (tokenizer.json,
// config.json, model.onnx).
const tiny = "../onnx/testdata/tiny"

// rowScorer scores padded rows of token ids, as a Triton model does.
type rowScorer func(rows, width int, ids, mask, types []int64) ([]float32, int, error)

// teiOver is a TEI server whose model is the one the triton server runs:
// it tokenises each pair with the model folder's tokenizer (the premise,
// TEI's first text, as the first sequence) and scores the row with score.
// A client that sends the claim where the passage belongs gets other
// logits.
func teiOver(t *testing.T, score rowScorer) *remotetest.TEI {
	tok, err := onnx.LoadTokenizer(tiny)
	require.NoError(t, err)
	var cfg struct {
		ID2Label map[string]string `json:"id2label"`
	}
	b, err := os.ReadFile(tiny + "/config.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &cfg))
	s := remotetest.NewTEI(func(claim, passage string) []float64 {
		ids, types, err := tok.EncodePair(claim, passage) // passage first, as onnx encodes
		require.NoError(t, err)
		mask := make([]int64, len(ids))
		for i := range mask {
			mask[i] = 1
		}
		z, _, err := score(1, len(ids), ids, mask, types)
		require.NoError(t, err)
		out := make([]float64, len(z))
		for i, v := range z {
			out[i] = float64(v) // the float32 the model computed, as JSON carries it
		}
		return out
	})
	s.ID2Label = cfg.ID2Label
	return s
}

func client(url string) remote.Options {
	return remote.Options{Endpoint: url, Retries: 1, Timeout: 10 * time.Second, Backoff: time.Millisecond}
}

// verdicts runs the pairs through the triton and tei verifiers over servers
// that score with the same model.
func remoteVerdicts(t *testing.T, score rowScorer, pairs []adjudicate.Pair) (tr, te []adjudicate.Verdict) {
	ts := remotetest.NewTriton("nli", nil)
	ts.ScoreBatch = score
	tsrv := httptest.NewServer(ts)
	defer tsrv.Close()
	esrv := httptest.NewServer(teiOver(t, score))
	defer esrv.Close()
	ctx := context.Background()
	tv, err := triton.New(ctx, triton.Options{Model: tiny, ModelName: "nli", Client: client(tsrv.URL)})
	require.NoError(t, err)
	defer tv.Close()
	ev, err := tei.New(ctx, tei.Options{Client: client(esrv.URL)})
	require.NoError(t, err)
	defer ev.Close()
	tr, err = tv.Verify(ctx, pairs)
	require.NoError(t, err)
	te, err = ev.Verify(ctx, pairs)
	require.NoError(t, err)
	return tr, te
}

func label(v adjudicate.Verdict) int {
	p := adjudicate.Probabilities(v.Logits)
	best := 0
	for k := range p {
		if p[k] > p[best] {
			best = k
		}
	}
	return best
}

// assertSame compares what decides a record: the label, the logits and the
// deciding passage (the rationale's wording is each backend's own).
func assertSame(t *testing.T, name string, want, got []adjudicate.Verdict, pairs []adjudicate.Pair) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, label(want[i]), label(got[i]), "%s: claim %s label", name, pairs[i].ClaimID)
		assert.Equal(t, want[i].Logits, got[i].Logits, "%s: claim %s logits", name, pairs[i].ClaimID)
		assert.Equal(t, want[i].Passage, got[i].Passage, "%s: claim %s deciding passage", name, pairs[i].ClaimID)
	}
}

// The same pairs through the triton and tei backends, over servers running
// the same (hash) model on the same token ids, give the same labels,
// logits and deciding passages. Sending (claim, passage) to TEI instead of
// (passage, claim) breaks it. No ONNX Runtime needed.
func TestDifferentialTritonTEI(t *testing.T) {
	score := func(rows, width int, ids, mask, types []int64) ([]float32, int, error) {
		out := make([]float32, 0, rows*3)
		for r := 0; r < rows; r++ {
			out = append(out, remotetest.HashScore(ids[r*width:(r+1)*width], mask[r*width:(r+1)*width], types[r*width:(r+1)*width])...)
		}
		return out, 3, nil
	}
	pairs := adjudicatetest.Pairs()
	tr, te := remoteVerdicts(t, score, pairs)
	assertSame(t, "tei vs triton", tr, te, pairs)
}

// With the real ONNX model: the in-process onnx backend, triton (a KServe
// server running the model with ONNX Runtime) and tei (a TEI server
// running it on its own tokenisation) give the same labels.
func TestDifferentialOnnxTritonTEI(t *testing.T) {
	if os.Getenv("ORT_LIB") == "" {
		t.Skip("ORT_LIB not set (make ort fetches ONNX Runtime; make test sets it)")
	}
	local, err := onnx.New(onnx.Options{Model: tiny})
	require.NoError(t, err)
	defer local.(io.Closer).Close()
	score, closeFn, err := remotetest.ONNXScorer(tiny + "/model.onnx")
	require.NoError(t, err)
	defer closeFn()
	pairs := adjudicatetest.Pairs()
	want, err := local.Verify(context.Background(), pairs)
	require.NoError(t, err)
	tr, te := remoteVerdicts(t, score, pairs)
	assertSame(t, "triton vs onnx", want, tr, pairs)
	assertSame(t, "tei vs onnx", want, te, pairs)
}
