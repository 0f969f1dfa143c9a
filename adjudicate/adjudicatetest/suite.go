// Package adjudicatetest is the conformance suite every verifier backend
// runs from its tests, as fstest.TestFS is for file systems:
//
//	func TestConformance(t *testing.T) {
//		adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier { return newVerifier(t) })
//	}
package adjudicatetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
)

// Pairs is the suite's input: ordinary claims, and the awkward ones a
// backend must survive (no passages, empty text, long passages, Unicode,
// numbers, negation).
func Pairs() []adjudicate.Pair {
	p := func(id, claim string, passages ...string) adjudicate.Pair {
		pair := adjudicate.Pair{ClaimID: id, Claim: claim}
		for i, t := range passages {
			pair.Passages = append(pair.Passages, adjudicate.Passage{ID: fmt.Sprintf("%s-p%d", id, i), DocID: "d" + id, Start: 0, End: len([]rune(t)), Text: t, Score: 5 - float64(i)})
		}
		return pair
	}
	long := strings.Repeat("The committee met again and discussed the budget in detail. ", 400)
	return []adjudicate.Pair{
		p("1", "Meridian Rail carried 48.2 million passengers in 2023.", "Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022."),
		p("2", "Meridian Rail carried 60 million passengers in 2023.", "Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022."),
		p("3", "Lake Orrin is 18 metres deep.", "The city hall was renovated in 1999."),
		p("4", "Children were included in the programme.", "Children were not included in this programme.", "The programme ran for five months."),
		p("5", "The café opened in Saint-Étienne in 2021. 🌍", "Café Lumière opened its first shop in Saint-Étienne on 4 May 2021."),
		p("6", "A claim with no evidence at all."),
		p("7", "", "An empty claim against a passage."),
		p("8", "The budget was discussed.", long),
		p("9", "Revenue rose by 12%.", "Revenue fell by 12% in 2023.", "Costs rose by 3%."),
		p("10", "It may be that the bridge spans 503 metres.", "The Harbour Bridge was completed in 1932 and spans 503 metres."),
	}
}

// Run checks a backend. newVerifier is called once per subtest.
func Run(t *testing.T, newVerifier func(t *testing.T) adjudicate.Verifier) {
	ctx := context.Background()
	pairs := Pairs()

	t.Run("OneVerdictPerPairInOrder", func(t *testing.T) {
		v := newVerifier(t)
		got, err := v.Verify(ctx, pairs)
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if len(got) != len(pairs) {
			t.Fatalf("%d verdicts for %d pairs", len(got), len(pairs))
		}
		for i, vd := range got {
			alone, err := v.Verify(ctx, pairs[i:i+1])
			if err != nil {
				t.Fatalf("Verify pair %d alone: %v", i, err)
			}
			if alone[0].Logits != vd.Logits {
				t.Errorf("pair %d: logits %v in the batch but %v alone (verdicts must not depend on the batch)", i, vd.Logits, alone[0].Logits)
			}
		}
	})

	t.Run("FiniteLogitsAndValidPassages", func(t *testing.T) {
		v := newVerifier(t)
		got, err := v.Verify(ctx, pairs)
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		for i, vd := range got {
			if vd.Err != nil {
				t.Errorf("pair %d (%q): %v", i, pairs[i].ClaimID, vd.Err)
			}
			if err := adjudicate.CheckLogits(vd.Logits); err != nil {
				t.Errorf("pair %d (%q): %v", i, pairs[i].ClaimID, err)
			}
			if vd.Passage < -1 || vd.Passage >= len(pairs[i].Passages) {
				t.Errorf("pair %d: deciding passage %d of %d", i, vd.Passage, len(pairs[i].Passages))
			}
			if len(pairs[i].Passages) == 0 && vd.Passage != -1 {
				t.Errorf("pair %d has no passages but names passage %d", i, vd.Passage)
			}
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		v := newVerifier(t)
		a, err := v.Verify(ctx, pairs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := v.Verify(ctx, pairs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if !reflect.DeepEqual(a[i], b[i]) {
				t.Errorf("pair %d: %+v then %+v", i, a[i], b[i])
			}
		}
	})

	t.Run("EmptyBatch", func(t *testing.T) {
		got, err := newVerifier(t).Verify(ctx, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("empty batch: %v, %v", got, err)
		}
	})

	t.Run("HonoursCancellation", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		_, err := newVerifier(t).Verify(c, pairs)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Verify with a cancelled context: %v, want context.Canceled", err)
		}
	})

	t.Run("BatchSizeInvarianceThroughScheduler", func(t *testing.T) {
		v := newVerifier(t)
		var want []adjudicate.Verdict
		for _, bs := range []int{1, 3, 7, 64} {
			got := schedule(t, v, pairs, adjudicate.SchedulerOptions{BatchSize: bs, Workers: 1 + bs%3})
			if want == nil {
				want = got
				continue
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("batch size %d, pair %d: %+v, want %+v", bs, i, got[i], want[i])
				}
			}
		}
	})

	t.Run("ConcurrentUse", func(t *testing.T) {
		v := newVerifier(t)
		want, err := v.Verify(ctx, pairs)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < 3; r++ {
					got, err := v.Verify(ctx, pairs)
					if err != nil {
						t.Error(err)
						return
					}
					for i := range got {
						if !reflect.DeepEqual(got[i], want[i]) {
							t.Errorf("concurrent call, pair %d: %+v, want %+v", i, got[i], want[i])
						}
					}
				}
			}()
		}
		wg.Wait()
	})
}

func schedule(t *testing.T, v adjudicate.Verifier, pairs []adjudicate.Pair, opts adjudicate.SchedulerOptions) []adjudicate.Verdict {
	t.Helper()
	in := make(chan adjudicate.Job[struct{}])
	go func() {
		defer close(in)
		for _, p := range pairs {
			in <- adjudicate.Job[struct{}]{Pair: p}
		}
	}()
	var out []adjudicate.Verdict
	err := adjudicate.Schedule(context.Background(), v, in, opts, func(r adjudicate.Result[struct{}]) error {
		if r.Err != nil {
			return r.Err
		}
		if r.Index != len(out) {
			return fmt.Errorf("result %d arrived at position %d", r.Index, len(out))
		}
		out = append(out, r.Verdict)
		return nil
	})
	if err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	return out
}
