package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgainstScikitLearn compares with values scikit-learn computed from
// the same outcomes (testdata/sklearn/make_fixture.py made both files).
func TestAgainstScikitLearn(t *testing.T) {
	var in []sklearnOutcome
	var want struct {
		Confusion  [3][3]int                   `json:"confusion_matrix"`
		Accuracy   float64                     `json:"accuracy"`
		Precision  [3]float64                  `json:"precision"`
		Recall     [3]float64                  `json:"recall"`
		F1         [3]float64                  `json:"f1"`
		MacroF1    float64                     `json:"macro_f1"`
		LogLoss    float64                     `json:"log_loss"`
		ProbTrue   []float64                   `json:"calibration_prob_true"`
		ProbPred   []float64                   `json:"calibration_prob_pred"`
		Counts     []int                       `json:"calibration_counts"`
		ECE10      float64                     `json:"ece_10"`
		Brier      float64                     `json:"brier_multiclass"`
		AnsweredLb int                         `json:"answered_labelled"`
		Baselines  sklearnBaselines            `json:"baselines"`
		Cases      map[string]sklearnBaselines `json:"cases"`
	}
	var cases map[string][]sklearnOutcome
	for path, v := range map[string]any{"testdata/sklearn/outcomes.json": &in, "testdata/sklearn/expected.json": &want,
		"testdata/sklearn/cases.json": &cases} {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, v))
	}
	outs := sklearnOutcomes(in)
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

	assertBaselines(t, want.Baselines, outs, "main")
	require.Len(t, want.Cases, 3)
	for name, c := range cases {
		assertBaselines(t, want.Cases[name], sklearnOutcomes(c), name)
	}
	// The degenerate case is what degenerate_verifier exists for.
	e, err := Evaluate(sklearnOutcomes(cases["degenerate"]), 1, BootstrapOptions{Resamples: 100, Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, 1.0, e.Value("degenerate_verifier"))
}

type sklearnOutcome struct {
	Gold      int        `json:"gold"`
	Abstained bool       `json:"abstained"`
	Logits    [3]float64 `json:"logits"`
}

func sklearnOutcomes(in []sklearnOutcome) []Outcome {
	outs := make([]Outcome, len(in))
	for i, x := range in {
		outs[i] = Outcome{ID: fmt.Sprint(i), Gold: Class(x.Gold), Abstained: x.Abstained, Scored: true, Logits: x.Logits, Predicted: Argmax(x.Logits)}
	}
	return outs
}

// sklearnBaselines are scikit-learn's values over answered, labelled
// claims; null (nil) where the value is undefined.
type sklearnBaselines struct {
	Accuracy         *float64    `json:"accuracy"`
	MacroF1          *float64    `json:"macro_f1"`
	Precision        [3]*float64 `json:"precision"`
	Recall           [3]*float64 `json:"recall"`
	F1               [3]*float64 `json:"f1"`
	BalancedAccuracy *float64    `json:"balanced_accuracy"`
	CohenKappa       *float64    `json:"cohen_kappa"`
	MajorityAccuracy *float64    `json:"majority_accuracy"`
	MajorityMacroF1  *float64    `json:"majority_macro_f1"`
	BinaryBalanced   *float64    `json:"binary_balanced_accuracy"`
	BinaryAUC        *float64    `json:"binary_auc"`
	AUC              [3]*float64 `json:"auc_ovr"`
}

// assertValue compares with scikit-learn's value: both undefined, or both
// defined and equal.
func assertValue(t *testing.T, want *float64, got float64, what string) {
	t.Helper()
	if want == nil {
		assert.True(t, math.IsNaN(got), "%s: scikit-learn says undefined, we say %v", what, got)
		return
	}
	assert.InDelta(t, *want, got, 1e-12, what)
}

func assertBaselines(t *testing.T, want sklearnBaselines, outs []Outcome, name string) {
	t.Helper()
	c := Count(outs)
	assertValue(t, want.Accuracy, c.Accuracy(), name+" accuracy_score")
	assertValue(t, want.MacroF1, c.MacroF1(), name+" f1_score macro")
	for k := Class(0); k < 3; k++ {
		p, r, f := c.PerClass(k)
		assertValue(t, want.Precision[k], p, fmt.Sprintf("%s precision %s", name, k))
		assertValue(t, want.Recall[k], r, fmt.Sprintf("%s recall %s", name, k))
		assertValue(t, want.F1[k], f, fmt.Sprintf("%s f1 %s", name, k))
		assertValue(t, want.AUC[k], AUC(outs, 1, k), fmt.Sprintf("%s roc_auc_score one-vs-rest %s", name, k))
	}
	assertValue(t, want.BalancedAccuracy, c.BalancedAccuracy(), name+" balanced_accuracy_score")
	assertValue(t, want.CohenKappa, c.CohenKappa(), name+" cohen_kappa_score")
	assertValue(t, want.MajorityAccuracy, c.MajorityAccuracy(), name+" majority accuracy_score")
	assertValue(t, want.MajorityMacroF1, c.MajorityMacroF1(), name+" majority f1_score macro")
	assertValue(t, want.BinaryBalanced, c.BinaryBalancedAccuracy(), name+" binary balanced_accuracy_score")
	assertValue(t, want.BinaryAUC, AUC(outs, 1, Supported), name+" binary roc_auc_score")
}
