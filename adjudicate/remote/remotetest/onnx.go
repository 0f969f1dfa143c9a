package remotetest

import (
	"errors"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ONNXScorer runs an exported NLI model (inputs input_ids, attention_mask,
// token_type_ids; output logits [batch, 3]) with ONNX Runtime, one request
// as one batch, as Triton's onnxruntime backend does: set it as a Triton's
// ScoreBatch. ONNX Runtime must already be initialised (by the onnx
// backend: make an onnx verifier first).
func ONNXScorer(modelPath string) (score func(rows, width int, ids, mask, types []int64) ([]float32, int, error), closeFn func(), err error) {
	if !ort.IsInitialized() {
		return nil, nil, errors.New("ONNX Runtime is not initialised: make an onnx verifier first")
	}
	sess, err := ort.NewDynamicAdvancedSession(modelPath, []string{"input_ids", "attention_mask", "token_type_ids"}, []string{"logits"}, nil)
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	score = func(rows, width int, ids, mask, types []int64) ([]float32, int, error) {
		mu.Lock()
		defer mu.Unlock()
		shape := ort.NewShape(int64(rows), int64(width))
		var in []ort.Value
		defer func() {
			for _, x := range in {
				x.Destroy()
			}
		}()
		for _, d := range [][]int64{ids, mask, types} {
			x, err := ort.NewTensor(shape, d)
			if err != nil {
				return nil, 0, err
			}
			in = append(in, x)
		}
		out, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), 3))
		if err != nil {
			return nil, 0, err
		}
		defer out.Destroy()
		if err := sess.Run(in, []ort.Value{out}); err != nil {
			return nil, 0, err
		}
		return append([]float32(nil), out.GetData()...), 3, nil
	}
	return score, func() { sess.Destroy() }, nil
}
