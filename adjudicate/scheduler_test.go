package adjudicate_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echo is a fake backend: logits from the claim's length.
type echo struct {
	calls atomic.Int32
	fail  func(batch []adjudicate.Pair, call int32) error
	nan   string  // claim id that gets NaN logits
	shift float64 // added to every logit
}

func (e *echo) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	call := e.calls.Add(1)
	if e.fail != nil {
		if err := e.fail(batch, call); err != nil {
			return nil, err
		}
	}
	out := make([]adjudicate.Verdict, len(batch))
	for i, p := range batch {
		n := float64(len(p.Claim))
		out[i] = adjudicate.Verdict{Logits: [3]float64{n + e.shift, -n + e.shift, 1 + e.shift}, Passage: -1}
		if len(p.Passages) > 0 {
			out[i].Passage = 0
		}
		if p.ClaimID == e.nan {
			out[i].Logits[1] = math.NaN()
		}
	}
	return out, nil
}

func TestConformanceOfFake(t *testing.T) {
	adjudicatetest.Run(t, func(*testing.T) adjudicate.Verifier { return &echo{} })
}

// job is a scheduler job whose item is its input position.
type job = adjudicate.Job[int]

func feed(pairs []adjudicate.Pair) <-chan job {
	in := make(chan job)
	go func() {
		defer close(in)
		for i, p := range pairs {
			in <- job{Pair: p, Item: i}
		}
	}()
	return in
}

// collect schedules pairs and checks order. Batches are cut by size and by
// the end of input only (MaxWait is an hour unless the test sets it), so
// which pairs share a batch never depends on goroutine timing.
func collect(t *testing.T, v adjudicate.Verifier, pairs []adjudicate.Pair, opts adjudicate.SchedulerOptions) []adjudicate.Result[int] {
	if opts.MaxWait == 0 {
		opts.MaxWait = time.Hour
	}
	var rs []adjudicate.Result[int]
	err := adjudicate.Schedule(context.Background(), v, feed(pairs), opts, func(r adjudicate.Result[int]) error {
		rs = append(rs, r)
		return nil
	})
	require.NoError(t, err)
	require.Len(t, rs, len(pairs))
	for i, r := range rs {
		require.Equal(t, i, r.Index, "input order")
		require.Equal(t, pairs[i].ClaimID, r.Pair.ClaimID)
		require.Equal(t, i, r.Item, "the item travels with its pair")
	}
	return rs
}

func many(n int) []adjudicate.Pair {
	ps := make([]adjudicate.Pair, n)
	for i := range ps {
		ps[i] = adjudicate.Pair{ClaimID: string(rune('a'+i%26)) + string(rune('0'+i/26%10)), Claim: string(make([]byte, i%13))}
	}
	return ps
}

func TestFailedBatchBecomesPerClaimErrors(t *testing.T) {
	pairs := many(20)
	boom := errors.New("model exploded")
	v := &echo{fail: func(b []adjudicate.Pair, _ int32) error {
		for _, p := range b {
			if p.ClaimID == pairs[7].ClaimID {
				return boom
			}
		}
		return nil
	}}
	rs := collect(t, v, pairs, adjudicate.SchedulerOptions{BatchSize: 5, Workers: 3, Backoff: -1})
	failed := 0
	for i, r := range rs {
		if i >= 5 && i < 10 {
			assert.ErrorIs(t, r.Err, boom, "pair %d shares the failed batch", i)
			failed++
		} else {
			assert.NoError(t, r.Err, "pair %d", i)
		}
	}
	assert.Equal(t, 5, failed, "the run goes on; only that batch's claims fail")
}

func TestTransientErrorsAreRetried(t *testing.T) {
	v := &echo{fail: func(_ []adjudicate.Pair, call int32) error {
		if call <= 2 {
			return adjudicate.Transient(errors.New("busy"))
		}
		return nil
	}}
	rs := collect(t, v, many(3), adjudicate.SchedulerOptions{BatchSize: 10, Retries: 3, Backoff: -1})
	for _, r := range rs {
		assert.NoError(t, r.Err)
		assert.Equal(t, 3, r.Tries, "two transient failures, then success")
	}

	v = &echo{fail: func([]adjudicate.Pair, int32) error { return adjudicate.Transient(errors.New("busy")) }}
	rs = collect(t, v, many(2), adjudicate.SchedulerOptions{BatchSize: 10, Retries: 2, Backoff: -1})
	assert.Error(t, rs[0].Err)
	assert.Equal(t, 3, rs[0].Tries, "one try and two retries, then give up")

	v = &echo{fail: func([]adjudicate.Pair, int32) error { return errors.New("bad input") }}
	rs = collect(t, v, many(2), adjudicate.SchedulerOptions{BatchSize: 10, Retries: 5, Backoff: -1})
	assert.Equal(t, 1, rs[0].Tries, "a permanent error is not retried")
}

func TestNaNLogitsAreErrors(t *testing.T) {
	pairs := many(10)
	rs := collect(t, &echo{nan: pairs[4].ClaimID}, pairs, adjudicate.SchedulerOptions{BatchSize: 4, Backoff: -1})
	for i, r := range rs {
		if i == 4 {
			assert.ErrorIs(t, r.Err, adjudicate.ErrInvalidLogits)
		} else {
			assert.NoError(t, r.Err)
		}
	}
}

func TestScheduleStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in := make(chan job) // never closed: only cancellation ends the run
	go func() { in <- job{Pair: adjudicate.Pair{ClaimID: "x"}} }()
	n := 0
	err := adjudicate.Schedule(ctx, &echo{}, in, adjudicate.SchedulerOptions{BatchSize: 1}, func(adjudicate.Result[int]) error {
		n++
		cancel()
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, n)
}

func TestEmitErrorStopsTheRun(t *testing.T) {
	stop := errors.New("disk full")
	err := adjudicate.Schedule(context.Background(), &echo{}, feed(many(50)), adjudicate.SchedulerOptions{BatchSize: 3, Workers: 2}, func(r adjudicate.Result[int]) error {
		if r.Index == 10 {
			return stop
		}
		return nil
	})
	assert.ErrorIs(t, err, stop)
}

func TestRegistry(t *testing.T) {
	b := adjudicate.Backend{Name: "echo", Configure: func(fs *flag.FlagSet) adjudicate.Factory {
		shift := fs.Float64("shift", 0, "added to every logit")
		return func(adjudicate.Env) (adjudicate.Verifier, error) { return &echo{shift: *shift}, nil }
	}}
	_, err := adjudicate.NewRegistry(b, b)
	assert.Error(t, err, "a duplicate name is an error")
	_, err = adjudicate.NewRegistry(adjudicate.Backend{Name: "bare"})
	assert.Error(t, err, "a backend without Configure is an error")
	r, err := adjudicate.NewRegistry(b)
	require.NoError(t, err)
	_, err = r.New("nope", adjudicate.Env{})
	assert.ErrorIs(t, err, adjudicate.ErrUnknownBackend)
	_, err = r.New("echo", adjudicate.Env{}, "-nope", "1")
	assert.Error(t, err, "an option the backend does not declare")
	v, err := r.New("echo", adjudicate.Env{}, "-shift", "2.5")
	require.NoError(t, err)
	assert.Equal(t, 2.5, v.(*echo).shift, "the backend reads the option it declared")
}

// blocking answers only when its context is cancelled, counting calls that
// started and that returned.
type blocking struct {
	started, returned atomic.Int32
	running           chan struct{}
}

func (b *blocking) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if b.started.Add(1) == 1 {
		close(b.running)
	}
	<-ctx.Done()
	b.returned.Add(1)
	return nil, ctx.Err()
}

// Schedule does not return while a Verify call it made is still running:
// callers release the verifier's resources right after it returns.
func TestScheduleWaitsForItsWorkers(t *testing.T) {
	v := &blocking{running: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-v.running
		cancel()
	}()
	err := adjudicate.Schedule(ctx, v, feed(many(40)), adjudicate.SchedulerOptions{BatchSize: 1, Workers: 4, Backoff: -1}, func(adjudicate.Result[int]) error { return nil })
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, v.started.Load(), v.returned.Load(), "every Verify call returned before Schedule did")
}

// When emit fails, Schedule returns its error without waiting for input
// that will never be read.
func TestEmitErrorDoesNotWaitForTheRest(t *testing.T) {
	in := make(chan job) // never closed
	go func() {
		for i := 0; ; i++ {
			select {
			case in <- job{Pair: adjudicate.Pair{ClaimID: fmt.Sprint(i)}, Item: i}:
			case <-time.After(10 * time.Second):
				return
			}
		}
	}()
	stop := errors.New("stop")
	err := adjudicate.Schedule(context.Background(), &echo{}, in, adjudicate.SchedulerOptions{BatchSize: 2}, func(adjudicate.Result[int]) error { return stop })
	assert.ErrorIs(t, err, stop)
}

// preferring is a verifier with a preferred batch size.
type preferring struct {
	echo
	size int
}

func (p *preferring) PreferredBatchSize() int { return p.size }

// Resolve gives the zero options the verifier's batch size and one worker
// (what Schedule runs with); Ahead is a full batch per worker.
func TestResolveAndAhead(t *testing.T) {
	o := adjudicate.SchedulerOptions{}.Resolve(&preferring{size: 48})
	assert.Equal(t, 48, o.BatchSize)
	assert.Equal(t, 1, o.Workers)
	assert.Equal(t, 48, o.Ahead())
	o = adjudicate.SchedulerOptions{BatchSize: 5, Workers: 4}.Resolve(&preferring{size: 48})
	assert.Equal(t, 5, o.BatchSize, "an explicit batch size wins")
	assert.Equal(t, 20, o.Ahead())
	assert.Equal(t, 32, adjudicate.SchedulerOptions{}.Resolve(&echo{}).BatchSize, "no preference: 32")
}

type preferringWorkers struct {
	echo
	workers int
}

func (p *preferringWorkers) PreferredWorkers() int { return p.workers }

// Zero workers take the verifier's preference (a model whose runs go side
// by side wants two calls in flight); an explicit number wins, and a
// preference of zero or none means one.
func TestResolveTakesTheVerifiersWorkers(t *testing.T) {
	assert.Equal(t, 2, adjudicate.SchedulerOptions{}.Resolve(&preferringWorkers{workers: 2}).Workers)
	assert.Equal(t, 3, adjudicate.SchedulerOptions{Workers: 3}.Resolve(&preferringWorkers{workers: 2}).Workers, "an explicit number wins")
	assert.Equal(t, 1, adjudicate.SchedulerOptions{}.Resolve(&preferringWorkers{}).Workers, "a preference of 0: one")
	assert.Equal(t, 1, adjudicate.SchedulerOptions{}.Resolve(&echo{}).Workers, "no preference: one")
}

// preparing is echo split as a Preparer: Prepare counts the batch and
// returns a run that waits, when wait is set, until the next batch is
// prepared (or the input ends) before answering.
type preparing struct {
	echo
	mu       sync.Mutex
	prepared []chan struct{} // closed when batch k is prepared
	count    int
	runs     atomic.Int32
	wait     bool
	total    int // batches the input makes
}

func (p *preparing) seen(k int) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.prepared) <= k {
		p.prepared = append(p.prepared, make(chan struct{}))
	}
	return p.prepared[k]
}

func (p *preparing) Prepare(ctx context.Context, batch []adjudicate.Pair) func(context.Context) ([]adjudicate.Verdict, error) {
	p.mu.Lock()
	k := p.count // with one worker, the batch's place in the input
	p.count++
	p.mu.Unlock()
	close(p.seen(k))
	return func(ctx context.Context) ([]adjudicate.Verdict, error) {
		p.runs.Add(1)
		if p.wait && k+1 < p.total {
			select {
			case <-p.seen(k + 1):
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				return nil, fmt.Errorf("batch %d ran without batch %d prepared", k, k+1)
			}
		}
		return p.Verify(ctx, batch)
	}
}

// A Preparer's batch k+1 is prepared while batch k runs (each run here
// waits for the next Prepare), the results are Verify's, and a retry runs
// the prepared call again without preparing anew.
func TestPreparerIsPreparedOneBatchAhead(t *testing.T) {
	pairs := many(21)
	want := collect(t, &echo{}, pairs, adjudicate.SchedulerOptions{BatchSize: 4})
	p := &preparing{wait: true, total: 6}
	got := collect(t, p, pairs, adjudicate.SchedulerOptions{BatchSize: 4})
	for i := range want {
		assert.Equal(t, want[i].Verdict, got[i].Verdict, "pair %d", i)
		assert.NoError(t, got[i].Err, "pair %d", i)
	}
	assert.Equal(t, 6, p.count, "every batch prepared once")
	assert.Equal(t, int32(6), p.runs.Load())

	p = &preparing{echo: echo{fail: func(_ []adjudicate.Pair, call int32) error {
		if call <= 2 {
			return adjudicate.Transient(errors.New("busy"))
		}
		return nil
	}}}
	rs := collect(t, p, many(3), adjudicate.SchedulerOptions{BatchSize: 10, Retries: 3, Backoff: -1})
	for _, r := range rs {
		assert.NoError(t, r.Err)
		assert.Equal(t, 3, r.Tries, "two transient failures, then success")
	}
	assert.Equal(t, 1, p.count, "a retry runs the prepared call again")
}

func TestConformanceOfPreparingFake(t *testing.T) {
	adjudicatetest.Run(t, func(*testing.T) adjudicate.Verifier { return &preparing{} })
}

// blockingPreparer's prepared calls answer only when their context is
// cancelled.
type blockingPreparer struct{ blocking }

func (b *blockingPreparer) Prepare(_ context.Context, batch []adjudicate.Pair) func(context.Context) ([]adjudicate.Verdict, error) {
	return func(ctx context.Context) ([]adjudicate.Verdict, error) { return b.Verify(ctx, batch) }
}

// With a Preparer too, Schedule does not return while a call it made is
// still running.
func TestScheduleWaitsForItsPreparingWorkers(t *testing.T) {
	v := &blockingPreparer{blocking{running: make(chan struct{})}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-v.running
		cancel()
	}()
	err := adjudicate.Schedule(ctx, v, feed(many(40)), adjudicate.SchedulerOptions{BatchSize: 1, Workers: 4, Backoff: -1}, func(adjudicate.Result[int]) error { return nil })
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, v.started.Load(), v.returned.Load(), "every call returned before Schedule did")
}

// stalls is a backend that, on a batch holding a given claim, answers only
// when its call's context ends (a server that never replies); the other
// batches it answers at once. ignoreCtx makes it answer the stalled batch
// anyway, after its context ended (a backend that ignores cancellation).
type stalls struct {
	echo
	claim     string
	ignoreCtx bool
}

func (s *stalls) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	for _, p := range batch {
		if p.ClaimID != s.claim {
			continue
		}
		<-ctx.Done()
		if !s.ignoreCtx {
			return nil, adjudicate.Transient(ctx.Err())
		}
		return s.echo.Verify(context.Background(), batch)
	}
	return s.echo.Verify(ctx, batch)
}

// A call that has not answered within SchedulerOptions.Timeout gives its
// pairs ErrVerifyTimeout, is not retried (even when the backend calls its
// failure transient), and leaves the other batches alone; a backend that
// ignores the cancelled context and answers late is not used either.
func TestVerifyTimeout(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		pairs := many(12)
		v := &stalls{claim: pairs[5].ClaimID, ignoreCtx: ignore}
		rs := collect(t, v, pairs, adjudicate.SchedulerOptions{BatchSize: 4, Workers: 2, Retries: 3, Backoff: -1, Timeout: 20 * time.Millisecond})
		for i, r := range rs {
			if i >= 4 && i < 8 {
				assert.ErrorIs(t, r.Err, adjudicate.ErrVerifyTimeout, "pair %d shares the stalled call (ignoreCtx %v)", i, ignore)
				assert.Equal(t, 1, r.Tries, "a timed-out call is not retried")
			} else {
				assert.NoError(t, r.Err, "pair %d", i)
			}
		}
	}
}
