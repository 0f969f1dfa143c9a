package audit

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feedAll runs feed to the end and returns what it sent, in order.
func feedAll(t *testing.T, o *Options, ix *index, window int) []adjudicate.Job[item] {
	jobs := make(chan adjudicate.Job[item], 1)
	errc := make(chan error, 1)
	go func() { errc <- o.feed(context.Background(), ix, nil, jobs, window) }()
	var got []adjudicate.Job[item]
	for j := range jobs {
		got = append(got, j)
	}
	require.NoError(t, <-errc)
	return got
}

// The feed hands the claims on in file order, each with the passages a
// lone Retriever gives it, whatever the retrieval window and the number of
// retrieval workers (one per GOMAXPROCS); a shard's claims keep their
// positions in the whole file.
func TestFeedKeepsFileOrderWhateverTheQueues(t *testing.T) {
	o := demoOptions(t, t.TempDir())
	o.defaults()
	ix, err := o.openIndex(context.Background())
	require.NoError(t, err)
	defer ix.Close()
	var cs []claims.Claim
	require.NoError(t, claims.Scan(context.Background(), o.ClaimsPath, nil, func(c claims.Claim) error { cs = append(cs, c); return nil }))
	r := Retriever{Index: ix.Index, K: o.K}
	want := make([]adjudicate.Job[item], len(cs))
	for i, c := range cs {
		p, err := r.Pair(context.Background(), c)
		require.NoError(t, err)
		want[i] = adjudicate.Job[item]{Pair: p, Item: item{claim: c, index: i}}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for _, window := range []int{1, 1000} {
			got := feedAll(t, &o, ix, window)
			require.Len(t, got, len(want), "GOMAXPROCS %d, window %d", procs, window)
			assert.Equal(t, want, got, "GOMAXPROCS %d, window %d", procs, window)
		}
	}
	o.Shard = Shard{Index: 1, Count: 3}
	got := feedAll(t, &o, ix, 7)
	var shard []adjudicate.Job[item]
	for _, j := range want {
		if o.Shard.Holds(j.Item.claim.ID) {
			shard = append(shard, j)
		}
	}
	require.NotEmpty(t, shard)
	assert.Equal(t, shard, got, "a shard's claims, at their positions in the file")
}

// A consumer that stops reading and cancels gets feed back at once, with
// the cancellation, its channel closed and its goroutines ended.
func TestFeedStopsWhenCancelled(t *testing.T) {
	o := demoOptions(t, t.TempDir())
	o.defaults()
	ix, err := o.openIndex(context.Background())
	require.NoError(t, err)
	defer ix.Close()
	ctx, cancel := context.WithCancel(context.Background())
	jobs := make(chan adjudicate.Job[item])
	errc := make(chan error, 1)
	go func() { errc <- o.feed(ctx, ix, nil, jobs, 64) }()
	for range 3 {
		<-jobs
	}
	cancel()
	select {
	case err := <-errc:
		assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("feed did not return after its context was cancelled")
	}
	_, open := <-jobs
	assert.False(t, open, "the jobs channel is closed")
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	assert.NotContains(t, stacks, "audit.(*Options).feed", "feed's reader and workers end with it")
}
