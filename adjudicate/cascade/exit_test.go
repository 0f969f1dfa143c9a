package cascade

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
)

// pairwise is a fake cross-encoder: each (claim, passage) pair gets logits
// of its own (a hash of the two texts), a claim's verdict is the strongest
// passage's (adjudicate.Strongest, the onnx backend's rule). It counts the
// pairs it scored per claim, and fails any pair whose passage says "fail".
type pairwise struct {
	mu     sync.Mutex
	scored map[string]int
	rule   func([3]float64) float64 // the passage ranking (nil: either way)
}

// Strength implements adjudicate.PassageScorer: Strongest's rule here.
func (s *pairwise) Strength(p [3]float64) float64 {
	if s.rule != nil {
		return s.rule(p)
	}
	return adjudicate.EvidenceEitherWay(p)
}

func pairLogits(claim, passage string) [3]float64 {
	h := fnv.New64a()
	h.Write([]byte(claim + "\x00" + passage))
	x := h.Sum64()
	f := func(k uint) float64 { return float64((x>>(k*16))%1000)/1000*8 - 4 }
	return [3]float64{f(0), f(1), f(2)}
}

var errPair = errors.New("pair failed")

func (s *pairwise) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var idx []adjudicate.PairIndex
	var logits [][3]float64
	s.mu.Lock()
	if s.scored == nil {
		s.scored = map[string]int{}
	}
	for i, p := range batch {
		for j, ps := range p.Passages {
			idx = append(idx, adjudicate.PairIndex{Claim: i, Passage: j})
			logits = append(logits, pairLogits(p.Claim, ps.Text))
			s.scored[p.ClaimID]++
		}
		if len(p.Passages) == 0 {
			idx = append(idx, adjudicate.PairIndex{Claim: i})
			logits = append(logits, pairLogits(p.Claim, ""))
			s.scored[p.ClaimID]++
		}
	}
	s.mu.Unlock()
	out := adjudicate.Strongest(batch, idx, logits, s.Strength)
	for i, p := range batch {
		for _, ps := range p.Passages {
			if ps.Text == "fail" {
				out[i] = adjudicate.Verdict{Passage: -1, Err: errPair}
			}
		}
		if out[i].Err == nil {
			out[i].Rationale = fmt.Sprintf("strongest of %d passages", len(p.Passages))
		}
	}
	return out, nil
}

// exitPairs are claims with 0 to 5 passages each.
func exitPairs(n int) []adjudicate.Pair {
	var out []adjudicate.Pair
	for i := 0; i < n; i++ {
		p := adjudicate.Pair{ClaimID: fmt.Sprint(i), Claim: fmt.Sprintf("claim number %d", i)}
		for j := 0; j < i%6; j++ {
			p.Passages = append(p.Passages, adjudicate.Passage{ID: fmt.Sprintf("%d-%d", i, j), DocID: "d", Text: fmt.Sprintf("passage %d of claim %d", j, i)})
		}
		out = append(out, p)
	}
	return out
}

func exitCascade(exit float64) (*Verifier, *pairwise) {
	s := &pairwise{}
	return &Verifier{First: first{}, Second: s, FirstName: "lexical", SecondName: "pairwise", Band: Everything, Exit: exit}, s
}

// With an exit, a claim whose first passage's evidence reaches it is
// decided there and its other passages are never scored; every other
// claim gets exactly the verdict of reading every passage (the strongest
// passage, its index and every passage's logits), each passage scored
// once.
func TestExitStopsAtAStrongFirstPassageAndOtherwiseReadsAll(t *testing.T) {
	for _, rule := range []func([3]float64) float64{nil, supportedOnly} {
		testExitStops(t, rule)
	}
}

// supportedOnly is a two-label model's passage ranking: p(supported).
func supportedOnly(p [3]float64) float64 { return p[adjudicate.Supported] }

func testExitStops(t *testing.T, rule func([3]float64) float64) {
	const exit = 0.8
	pairs := exitPairs(120)
	full, fs := exitCascade(0)
	fs.rule = rule
	want, err := full.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	v, s := exitCascade(exit)
	s.rule = rule
	got, err := v.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	stopped, read := 0, 0
	for i, p := range pairs {
		n := len(p.Passages)
		if n < 2 {
			if got[i].Logits != want[i].Logits || got[i].Passage != want[i].Passage || s.scored[p.ClaimID] != 1 {
				t.Errorf("claim %s (%d passages): %+v scored %d times, want %+v once", p.ClaimID, n, got[i], s.scored[p.ClaimID], want[i])
			}
			continue
		}
		one := pairLogits(p.Claim, p.Passages[0].Text)
		if s.Strength(adjudicate.Probabilities(one)) >= exit {
			stopped++
			if got[i].Logits != one || got[i].Passage != 0 || s.scored[p.ClaimID] != 1 {
				t.Errorf("claim %s: first passage reaches the exit, got %+v after %d pairs; want its logits %v after 1", p.ClaimID, got[i], s.scored[p.ClaimID], one)
			}
			if !strings.Contains(got[i].Rationale, "decided on the first of") {
				t.Errorf("claim %s: rationale %q does not say the first passage decided", p.ClaimID, got[i].Rationale)
			}
			continue
		}
		read++
		if got[i].Logits != want[i].Logits || got[i].Passage != want[i].Passage || fmt.Sprint(got[i].PassageLogits) != fmt.Sprint(want[i].PassageLogits) {
			t.Errorf("claim %s: %+v, want the full read's %+v", p.ClaimID, got[i], want[i])
		}
		if s.scored[p.ClaimID] != n {
			t.Errorf("claim %s: %d pairs scored for %d passages", p.ClaimID, s.scored[p.ClaimID], n)
		}
	}
	if stopped == 0 || read == 0 {
		t.Fatalf("%d claims stopped, %d read on: pick an exit that splits them", stopped, read)
	}
	// the full read's passage choice must reach past the first passage
	// for the test to say anything about the merge
	past := 0
	for i := range pairs {
		if want[i].Passage > 0 {
			past++
		}
	}
	if past == 0 {
		t.Fatal("no claim is decided past its first passage")
	}
}

// The exit's verdicts do not depend on the batch.
func TestExitVerdictsDoNotDependOnTheBatch(t *testing.T) {
	pairs := exitPairs(60)
	v, _ := exitCascade(0.7)
	whole, err := v.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 4, 7} {
		v, _ := exitCascade(0.7)
		for lo := 0; lo < len(pairs); lo += size {
			part, err := v.Verify(context.Background(), pairs[lo:min(lo+size, len(pairs))])
			if err != nil {
				t.Fatal(err)
			}
			for k, vd := range part {
				w := whole[lo+k]
				if vd.Logits != w.Logits || vd.Passage != w.Passage || vd.Rationale != w.Rationale {
					t.Errorf("batch size %d, claim %s: %+v, want %+v", size, pairs[lo+k].ClaimID, vd, w)
				}
			}
		}
	}
}

// A pair that fails after the first passage fails its claim (never a
// verdict from the pairs that worked), and only that claim.
func TestExitSecondRoundFailureIsTheClaims(t *testing.T) {
	pairs := exitPairs(30)
	bad := -1
	for i, p := range pairs {
		if len(p.Passages) >= 3 && adjudicate.EvidenceEitherWay(adjudicate.Probabilities(pairLogits(p.Claim, p.Passages[0].Text))) < 0.99 {
			pairs[i].Passages[2].Text = "fail"
			bad = i
			break
		}
	}
	if bad < 0 {
		t.Fatal("no claim reads past its first passage")
	}
	v, _ := exitCascade(0.99)
	got, err := v.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for i, vd := range got {
		if (vd.Err != nil) != (i == bad) {
			t.Errorf("claim %d: err %v", i, vd.Err)
		}
	}
	if !errors.Is(got[bad].Err, errPair) || !strings.Contains(got[bad].Err.Error(), "passages 2 to") && !strings.Contains(got[bad].Err.Error(), "passage 2") {
		t.Errorf("claim %d: err %v, want the pair's error naming the passages", bad, got[bad].Err)
	}
}

func TestExitConformance(t *testing.T) {
	adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier {
		v, _ := exitCascade(0.6)
		return v
	})
}

// With checks after several passage counts, a claim reads up to the first
// check whose strongest evidence so far reaches the exit, and pays that
// many pairs; a claim that never reaches it gets the full read's verdict.
func TestExitAfterSeveralChecks(t *testing.T) {
	const exit = 0.85
	pairs := exitPairs(240)
	full, _ := exitCascade(0)
	want, err := full.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for _, checks := range [][]int{{1, 2, 3, 4}, {2}, {1, 3}} {
		v, s := exitCascade(exit)
		v.ExitAfter = checks
		got, err := v.Verify(context.Background(), pairs)
		if err != nil {
			t.Fatal(err)
		}
		stops := map[int]int{}
		for i, p := range pairs {
			n := len(p.Passages)
			// the strongest of the first c passages, first on ties
			stop, bestZ, bestS, bestAt := n, [3]float64{}, -1.0, -1
			for j := 0; j < n; j++ {
				z := pairLogits(p.Claim, p.Passages[j].Text)
				if e := adjudicate.EvidenceEitherWay(adjudicate.Probabilities(z)); e > bestS {
					bestZ, bestS, bestAt = z, e, j
				}
				if slices.Contains(checks, j+1) && j+1 < n && bestS >= exit {
					stop = j + 1
					break
				}
			}
			if stop == n || n < 2 {
				if got[i].Logits != want[i].Logits || got[i].Passage != want[i].Passage || s.scored[p.ClaimID] != max(n, 1) {
					t.Errorf("checks %v, claim %s: %+v after %d pairs, want the full read's %+v after %d", checks, p.ClaimID, got[i], s.scored[p.ClaimID], want[i], n)
				}
				continue
			}
			stops[stop]++
			if got[i].Logits != bestZ || got[i].Passage != bestAt || s.scored[p.ClaimID] != stop {
				t.Errorf("checks %v, claim %s: %+v after %d pairs, want passage %d's logits after %d", checks, p.ClaimID, got[i], s.scored[p.ClaimID], bestAt, stop)
			}
		}
		if len(stops) < len(checks) {
			t.Errorf("checks %v: claims stopped at %v: want some at every check", checks, stops)
		}
	}
}

// A backend that reads a claim's passages together (no PassageScorer) gets
// no exit: reading them in rounds would not give its verdict.
func TestExitNeedsAPassageScorer(t *testing.T) {
	env := adjudicate.Env{Verifier: func(name string) (adjudicate.Verifier, error) {
		if name == "lexical" {
			return first{}, nil
		}
		return &second{}, nil
	}}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	if _, err := build(env, "together", "all", 0, 0.5, "", fs); err == nil || !strings.Contains(err.Error(), "together reads a claim's passages together") {
		t.Errorf("exit over a backend without PassageScorer: err %v, want a refusal naming it", err)
	}
	if _, err := build(env, "together", "all", 0, 0, "", fs); err != nil {
		t.Errorf("no exit: %v", err)
	}
	if _, err := build(env, "together", "all", 0, 0, "1,2", fs); err == nil || !strings.Contains(err.Error(), "no exit to check") {
		t.Errorf("--cascade-exit-after without an exit: err %v, want a refusal", err)
	}
}
