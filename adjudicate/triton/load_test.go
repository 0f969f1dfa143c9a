package triton

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/stretchr/testify/require"
)

// loadPairs are n distinct claims with one passage each.
func loadPairs(n int) []adjudicate.Pair {
	pairs := make([]adjudicate.Pair, n)
	for i := range pairs {
		pairs[i] = adjudicate.Pair{ClaimID: fmt.Sprintf("c%05d", i), Claim: fmt.Sprintf("Lake %d is %d metres deep.", i, i%97),
			Passages: []adjudicate.Passage{{ID: "p", DocID: fmt.Sprintf("d%d", i%50), Text: fmt.Sprintf("Lake %d is %d metres deep and lies north of the city.", i, (i*7)%97)}}}
	}
	return pairs
}

// runLoad schedules pairs through v with 8 workers and checks that every
// claim came back once, in order, and that every tenth has the logits its
// own pair gives (re-tokenising them all would double the test's time).
func runLoad(t testing.TB, v *Verifier, pairs []adjudicate.Pair) time.Duration {
	in := make(chan adjudicate.Job[struct{}])
	go func() {
		defer close(in)
		for _, p := range pairs {
			in <- adjudicate.Job[struct{}]{Pair: p}
		}
	}()
	next := 0
	began := time.Now()
	err := adjudicate.Schedule(context.Background(), v, in, adjudicate.SchedulerOptions{Workers: 8}, func(r adjudicate.Result[struct{}]) error {
		if r.Err != nil {
			return r.Err
		}
		if r.Index != next || r.Pair.ClaimID != pairs[next].ClaimID {
			return fmt.Errorf("result %d (%s) arrived at position %d", r.Index, r.Pair.ClaimID, next)
		}
		p := pairs[next]
		next++
		if r.Index%10 != 0 {
			return nil
		}
		ids, types, err := v.tok.EncodePair(p.Claim, p.Passages[0].Text)
		if err != nil {
			return err
		}
		mask := make([]int64, len(ids))
		for i := range mask {
			mask[i] = 1
		}
		z := remotetest.HashScore(ids, mask, types)
		for k := 0; k < 3; k++ {
			if want := float64(z[v.outIndex[k]]); r.Verdict.Logits[k] != want {
				return fmt.Errorf("claim %s: logits %v, its own pair gives column %d = %v", p.ClaimID, r.Verdict.Logits, k, want)
			}
		}
		return nil
	})
	elapsed := time.Since(began)
	require.NoError(t, err)
	require.Equal(t, len(pairs), next, "every claim came back")
	return elapsed
}

// TestLoad10k: 10,000 claims against the in-process KServe v2 server with 8
// workers: nothing lost, nothing duplicated (the server inferred exactly one
// row per claim), every tenth verdict checked against its own pair. Its speed is
// BenchmarkLoad's business.
func TestLoad10k(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: the scheduler's concurrency is checked by the conformance suite there")
	}
	tr := remotetest.NewTriton("nli", remotetest.HashScore)
	srv := httptest.NewServer(tr)
	defer srv.Close()
	v := newVerifier(t, Options{Client: fastRetries(srv.URL, nil)})
	pairs := loadPairs(10000)
	elapsed := runLoad(t, v, pairs)
	require.Equal(t, int64(len(pairs)), tr.Rows.Load(), "one row per claim: none lost, none sent twice")
	t.Logf("10000 claims in %v: %.0f claims/s", elapsed, 10000/elapsed.Seconds())
}

// BenchmarkLoad reports claims/s through the scheduler (8 workers) against
// the in-process server: the client's cost (tokenising, JSON) plus the
// loopback HTTP, the stand-in model costing next to nothing.
func BenchmarkLoad(b *testing.B) {
	tr := remotetest.NewTriton("nli", remotetest.HashScore)
	srv := httptest.NewServer(tr)
	defer srv.Close()
	v, err := New(context.Background(), Options{Model: tiny, ModelName: "nli", Client: fastRetries(srv.URL, nil)})
	require.NoError(b, err)
	pairs := loadPairs(2000)
	var total time.Duration
	for b.Loop() {
		total += runLoad(b, v, pairs)
	}
	b.ReportMetric(float64(b.N*len(pairs))/total.Seconds(), "claims/s")
}
