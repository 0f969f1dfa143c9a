package openai

import (
	"math"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
)

// FuzzJudgeAnswer feeds arbitrary answer text and one arbitrary
// log-probability: parsing never panics; an accepted answer names a label
// and a passage shown; checked log-probabilities give finite logits that
// pass adjudicate.CheckLogits.
func FuzzJudgeAnswer(f *testing.F) {
	f.Add(`{"label": "supported", "passage": 1, "reason": "it says so"}`, -0.1)
	f.Add("```json\n{\"label\": \"Unsupported\", \"passage\": null}\n```", 50.0)
	f.Add(`{"label": "unsupported", "label": "supported"}`, 1e308)
	f.Add(`{"label": "insufficient", "passage": 9}`, math.Inf(-1))
	f.Fuzz(func(t *testing.T, content string, lp float64) {
		a, labelAt, err := parseAnswer(content, 2)
		if err != nil {
			return
		}
		if a.label < 0 || a.label > 2 || a.passage < -1 || a.passage > 1 {
			t.Fatalf("accepted %q as label %d passage %d", content, a.label, a.passage)
		}
		tops := []remote.TopLogprob{{Token: labelNames[a.label], Logprob: lp}, {Token: "uns", Logprob: -2}}
		if checkLogprobs(lp, tops) != nil {
			return
		}
		toks := []string{content}
		if labelAt > 0 && labelAt < len(content) {
			toks = []string{content[:labelAt], content[labelAt:]}
		}
		probs, ok := labelProbabilities(content, labelAt, toks, [][]remote.TopLogprob{tops[:1], tops})
		if !ok {
			return
		}
		var z [3]float64
		for k := range probs {
			z[k] = math.Log(probs[k])
		}
		if err := adjudicate.CheckLogits(z); err != nil && !strings.Contains(err.Error(), "infinite") {
			t.Fatalf("logits %v from logprob %v: %v", z, lp, err)
		}
	})
}
