package adjudicate

import (
	"errors"
	"testing"
)

func TestMaxSupport(t *testing.T) {
	sup := [3]float64{3, 0, 0}
	con := [3]float64{0, 3, 0}
	ins := [3]float64{0, 0, 3}
	weakSup := [3]float64{1, 0, 0.9}
	ps := func(scores ...float64) []Passage {
		out := make([]Passage, len(scores))
		for i, s := range scores {
			out[i].Score = s
		}
		return out
	}
	vs := func(zs ...[3]float64) []Verdict {
		out := make([]Verdict, len(zs))
		for i, z := range zs {
			out[i] = Verdict{Logits: z, Rationale: string(rune('a' + i))}
		}
		return out
	}
	for _, c := range []struct {
		name    string
		scores  []float64
		logits  [][3]float64
		passage int
	}{
		{"one chunk supports: it decides over a contradiction", []float64{1, 1, 1}, [][3]float64{ins, con, weakSup}, 2},
		{"the strongest support decides", []float64{1, 1}, [][3]float64{weakSup, sup}, 1},
		{"no support: the strongest relevant contradiction", []float64{1, 2, 1}, [][3]float64{ins, ins, con}, 2},
		{"a chunk sharing no word with the claim cannot contradict it", []float64{0, 2, 1}, [][3]float64{con, ins, ins}, 1},
		{"neither way: the best-scored chunk", []float64{1, 3, 2}, [][3]float64{ins, ins, ins}, 1},
		{"ties: the first chunk", []float64{1, 1}, [][3]float64{sup, sup}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := MaxSupport(ps(c.scores...), vs(c.logits...))
			if v.Err != nil || v.Passage != c.passage || v.Logits != c.logits[c.passage] || v.Rationale != string(rune('a'+c.passage)) {
				t.Fatalf("got passage %d logits %v rationale %q err %v, want passage %d", v.Passage, v.Logits, v.Rationale, v.Err, c.passage)
			}
			if len(v.PassageLogits) != len(c.logits) {
				t.Fatalf("%d chunk logits kept of %d", len(v.PassageLogits), len(c.logits))
			}
			for i := range c.logits {
				if v.PassageLogits[i] != c.logits[i] {
					t.Errorf("chunk %d's logits %v, want %v", i, v.PassageLogits[i], c.logits[i])
				}
			}
		})
	}
	bad := vs(sup, ins)
	bad[1].Err = errors.New("boom")
	if v := MaxSupport(ps(1, 1), bad); v.Err == nil || v.Passage != -1 {
		t.Errorf("a failed chunk: %+v, want the claim's verdict to fail", v)
	}
	if v := MaxSupport(nil, nil); v.Passage != -1 || v.Err != nil {
		t.Errorf("no chunks: %+v", v)
	}
}
