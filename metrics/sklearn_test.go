package metrics

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgainstScikitLearn compares with values scikit-learn computed from
// the same outcomes (testdata/sklearn/make_fixture.py made both files).
func TestAgainstScikitLearn(t *testing.T) {
	var in []struct {
		Gold      int        `json:"gold"`
		Abstained bool       `json:"abstained"`
		Logits    [3]float64 `json:"logits"`
	}
	var want struct {
		Confusion  [3][3]int  `json:"confusion_matrix"`
		Accuracy   float64    `json:"accuracy"`
		Precision  [3]float64 `json:"precision"`
		Recall     [3]float64 `json:"recall"`
		F1         [3]float64 `json:"f1"`
		MacroF1    float64    `json:"macro_f1"`
		LogLoss    float64    `json:"log_loss"`
		ProbTrue   []float64  `json:"calibration_prob_true"`
		ProbPred   []float64  `json:"calibration_prob_pred"`
		Counts     []int      `json:"calibration_counts"`
		ECE10      float64    `json:"ece_10"`
		Brier      float64    `json:"brier_multiclass"`
		AnsweredLb int        `json:"answered_labelled"`
	}
	for path, v := range map[string]any{"testdata/sklearn/outcomes.json": &in, "testdata/sklearn/expected.json": &want} {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, v))
	}
	outs := make([]Outcome, len(in))
	for i, x := range in {
		outs[i] = Outcome{Gold: Class(x.Gold), Abstained: x.Abstained, Scored: true, Logits: x.Logits, Predicted: Argmax(x.Logits)}
	}
	c := Count(outs)
	assert.Equal(t, want.Confusion, c.Confusion, "confusion_matrix")
	assert.Equal(t, want.AnsweredLb, c.AnsweredLabelled)
	assert.InDelta(t, want.Accuracy, c.Accuracy(), 1e-12, "accuracy_score")
	for k := Class(0); k < 3; k++ {
		p, r, f := c.PerClass(k)
		assert.InDelta(t, want.Precision[k], p, 1e-12, "precision %s", k)
		assert.InDelta(t, want.Recall[k], r, 1e-12, "recall %s", k)
		assert.InDelta(t, want.F1[k], f, 1e-12, "f1 %s", k)
	}
	assert.InDelta(t, want.MacroF1, c.MacroF1(), 1e-12, "f1_score macro")

	cal := Calibration(outs, 1)
	assert.InDelta(t, want.LogLoss, cal.NLL, 1e-9, "log_loss")
	assert.InDelta(t, want.Brier, cal.Brier, 1e-9, "multi-class Brier")
	assert.InDelta(t, want.ECE10, cal.ECE10, 1e-9, "10-bin ECE from calibration_curve")
	var acc, conf []float64
	var counts []int
	for _, b := range cal.Bins[EqualWidth10] {
		if b.Count > 0 {
			acc = append(acc, b.Accuracy)
			conf = append(conf, b.MeanConfidence)
			counts = append(counts, b.Count)
		}
	}
	assert.Equal(t, want.Counts, counts, "bin counts")
	assert.InDeltaSlice(t, want.ProbTrue, acc, 1e-12, "calibration_curve prob_true")
	assert.InDeltaSlice(t, want.ProbPred, conf, 1e-9, "calibration_curve prob_pred")
}
