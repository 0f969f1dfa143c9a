package openai

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

// BenchmarkLoad reports claims/s through the scheduler (8 workers) against
// the in-process server: the client's cost plus loopback HTTP, the
// stand-in model costing next to nothing.
func BenchmarkLoad(b *testing.B) {
	srv := httptest.NewServer(remotetest.NewOpenAI("judge-7b", hashJudge))
	defer srv.Close()
	v, err := New(Options{Model: "judge-7b", MaxTokens: 100, Logprobs: true, JSONMode: true, Client: fastRetries(srv.URL+"/v1", nil)})
	require.NoError(b, err)
	pairs := make([]adjudicate.Pair, 2000)
	for i := range pairs {
		pairs[i] = adjudicate.Pair{ClaimID: fmt.Sprint(i), Claim: fmt.Sprintf("Lake %d is %d metres deep.", i, i%97),
			Passages: []adjudicate.Passage{{DocID: "d", Text: fmt.Sprintf("Lake %d is %d metres deep and lies north of the city.", i, (i*7)%97)}}}
	}
	var total time.Duration
	for b.Loop() {
		in := make(chan adjudicate.Job[struct{}])
		go func() {
			defer close(in)
			for _, p := range pairs {
				in <- adjudicate.Job[struct{}]{Pair: p}
			}
		}()
		began := time.Now()
		n := 0
		err := adjudicate.Schedule(context.Background(), v, in, adjudicate.SchedulerOptions{Workers: 8}, func(r adjudicate.Result[struct{}]) error {
			n++
			return r.Err
		})
		total += time.Since(began)
		require.NoError(b, err)
		require.Equal(b, len(pairs), n)
	}
	b.ReportMetric(float64(b.N*len(pairs))/total.Seconds(), "claims/s")
}
