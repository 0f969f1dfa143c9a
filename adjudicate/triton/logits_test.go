package triton

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schedule runs pairs through the scheduler, as a run does.
func schedule(t *testing.T, v adjudicate.Verifier, pairs []adjudicate.Pair) []adjudicate.Result[int] {
	t.Helper()
	in := make(chan adjudicate.Job[int], len(pairs))
	for i, p := range pairs {
		in <- adjudicate.Job[int]{Pair: p, Item: i}
	}
	close(in)
	var rs []adjudicate.Result[int]
	require.NoError(t, adjudicate.Schedule(context.Background(), v, in, adjudicate.SchedulerOptions{Backoff: -1},
		func(r adjudicate.Result[int]) error { rs = append(rs, r); return nil }))
	return rs
}

// Issue 24 case 1: a server answering [1e300, -1e300, 0] for every pair
// (±Inf once read as the FP32 the model computed; out of range as FP64)
// gives every claim an error matching ErrInvalidLogits — never a verdict
// "no evidence retrieved; model on the claim alone" at p = 1/3.
func TestOverflowingLogitsAreClaimErrors(t *testing.T) {
	for _, dt := range []string{"FP32", "FP64"} {
		t.Run(dt, func(t *testing.T) {
			tr := remotetest.NewTriton("nli", remotetest.HashScore)
			tr.Metadata.Outputs[0].Datatype = dt
			tr.SetFault(func(w http.ResponseWriter, r *http.Request, _ int64, body []byte) bool {
				if !strings.HasSuffix(r.URL.Path, "/infer") {
					return false
				}
				var req remotetest.InferRequest
				require.NoError(t, json.Unmarshal(body, &req))
				n := req.Inputs[0].Shape[0]
				data := strings.TrimSuffix(strings.Repeat("1e300,-1e300,0,", int(n)), ",")
				fmt.Fprintf(w, `{"model_name":"nli","outputs":[{"name":"logits","datatype":%q,"shape":[%d,3],"data":[%s]}]}`, dt, n, data)
				return true
			})
			srv := serve(t, tr)
			v := newVerifier(t, Options{Client: fastRetries(srv.URL, nil)})
			pairs := []adjudicate.Pair{
				{ClaimID: "a", Claim: "Lake Orrin is deep."},
				{ClaimID: "b", Claim: "Lake Orrin is deep.", Passages: []adjudicate.Passage{{Text: "Lake Orrin is 18 metres deep."}}},
			}
			for _, r := range schedule(t, v, pairs) {
				require.Error(t, r.Err, "claim %s", r.Pair.ClaimID)
				assert.ErrorIs(t, r.Err, adjudicate.ErrInvalidLogits)
				assert.Equal(t, adjudicate.Verdict{Passage: -1}, r.Verdict)
			}
		})
	}
}

// One overflowing pair among a claim's passages fails the claim: it is not
// skipped in favour of the other passages.
func TestOneOverflowingPairFailsItsClaim(t *testing.T) {
	tr := remotetest.NewTriton("nli", func(ids, mask, types []int64) []float32 {
		n := 0
		for _, m := range mask {
			n += int(m)
		}
		if n > 40 { // the long passage
			return []float32{3e38, -3e38, 0}
		}
		return remotetest.HashScore(ids, mask, types)
	})
	srv := serve(t, tr)
	v := newVerifier(t, Options{Client: fastRetries(srv.URL, nil)})
	long := strings.Repeat("The committee met again and discussed the budget. ", 10)
	pairs := []adjudicate.Pair{
		{ClaimID: "a", Claim: "The budget was discussed.", Passages: []adjudicate.Passage{{Text: "The budget was discussed."}, {Text: long}}},
		{ClaimID: "b", Claim: "The budget was discussed.", Passages: []adjudicate.Passage{{Text: "The budget was discussed."}}},
	}
	rs := schedule(t, v, pairs)
	assert.ErrorIs(t, rs[0].Err, adjudicate.ErrLogitOutOfRange)
	assert.Contains(t, rs[0].Err.Error(), "passage 1")
	assert.NoError(t, rs[1].Err, "the other claim of the batch is unaffected")
}
