package adjudicate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// SchedulerOptions tune Schedule. Zero values take the defaults.
type SchedulerOptions struct {
	BatchSize int           // pairs per call; default: the verifier's preference, else 32
	MaxWait   time.Duration // flush a partial batch this long after its first pair; default 20ms
	Workers   int           // concurrent Verify calls; default: the verifier's preference (WorkerSizer), else 1
	Retries   int           // retries of a transient failure; default 2
	Backoff   time.Duration // first retry delay, doubling; default 50ms (negative: none)
	// Timeout bounds one Verify call (0: none): a call that has not
	// answered by then is cancelled, and one that answers later anyway is
	// not used; its pairs get an error matching ErrVerifyTimeout, without
	// a retry.
	Timeout time.Duration
}

// ErrVerifyTimeout is the error of a pair whose Verify call took longer
// than SchedulerOptions.Timeout.
var ErrVerifyTimeout = errors.New("verification call slower than the bound")

// Resolve is o with its zero fields given their defaults for v (the batch
// size v prefers, else 32; the workers v prefers, else one; ...): what
// Schedule runs with.
func (o SchedulerOptions) Resolve(v Verifier) SchedulerOptions {
	if o.BatchSize <= 0 {
		o.BatchSize = 32
		if bs, ok := v.(BatchSizer); ok && bs.PreferredBatchSize() > 0 {
			o.BatchSize = bs.PreferredBatchSize()
		}
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 20 * time.Millisecond
	}
	if o.Workers <= 0 {
		o.Workers = max(1, PreferredWorkers(v))
	}
	if o.Retries == 0 {
		o.Retries = 2
	}
	if o.Backoff == 0 {
		o.Backoff = 50 * time.Millisecond
	}
	return o
}

// Ahead is how many jobs a producer should hold ready for Schedule (resolved
// options): a full batch for every worker, so that no worker's next batch
// waits for its jobs to be made while the others verify.
func (o SchedulerOptions) Ahead() int { return max(1, o.BatchSize) * max(1, o.Workers) }

// Preparer is a verifier whose calls begin with work that needs no model
// (tokenising): Prepare does that work for a batch and returns the rest of
// the call, which gives exactly what Verify gives on the batch and may be
// called again (a retry). Schedule prepares each worker's next batch while
// its current one is verified, so the model does not wait for it.
type Preparer interface {
	Prepare(ctx context.Context, batch []Pair) func(context.Context) ([]Verdict, error)
}

// Job is what the scheduler carries: a pair to verify and the caller's item
// (a claim, say) that travels with it to the result.
type Job[T any] struct {
	Pair Pair
	Item T
}

// Result is the outcome of one job, in input order.
type Result[T any] struct {
	Index int // position in the input stream
	Job[T]
	Verdict Verdict
	Err     error // the pair could not be adjudicated: why
	Tries   int   // Verify calls made for its batch
	// Latency is the pair's share of its batch's Verify time.
	Latency time.Duration
}

type batch[T any] struct {
	first int
	jobs  []Job[T]
	done  chan []Result[T]
}

func (b *batch[T]) pairs() []Pair {
	ps := make([]Pair, len(b.jobs))
	for i, j := range b.jobs {
		ps[i] = j.Pair
	}
	return ps
}

// Schedule verifies a stream of pairs in batches and calls emit with every
// result in input order. A batch that fails (after retrying transient
// errors) gives each of its pairs an error result and the run goes on; so
// does a verdict whose Err is set or whose logits fail CheckLogits (that
// claim alone gets the error, matching ErrInvalidLogits, and a zero
// verdict). Schedule returns when the
// input is closed and every result emitted, when emit returns an error, or
// when ctx is cancelled (returning ctx's error).
func Schedule[T any](ctx context.Context, v Verifier, in <-chan Job[T], opts SchedulerOptions, emit func(Result[T]) error) error {
	opts = opts.Resolve(v)
	ctx, cancel := context.WithCancel(ctx)
	// No goroutine started here outlives Schedule: callers may release what
	// the verifier uses (an index, a session) as soon as it returns.
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()

	work := make(chan *batch[T])
	order := make(chan *batch[T], opts.Workers*2)
	// Batcher: cut the stream into batches; sequence them for the emitter.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(order)
		next := 0
		var cur *batch[T]
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		flush := func() bool {
			if cur == nil {
				return true
			}
			b := cur
			cur = nil
			timer.Stop()
			select {
			case order <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case work <- b:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for {
			select {
			case j, ok := <-in:
				if !ok {
					flush()
					return
				}
				if cur == nil {
					cur = &batch[T]{first: next, done: make(chan []Result[T], 1)}
					timer.Reset(opts.MaxWait)
				}
				cur.jobs = append(cur.jobs, j)
				next++
				if len(cur.jobs) >= opts.BatchSize && !flush() {
					return
				}
			case <-timer.C:
				if !flush() {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	pr, prepares := v.(Preparer)
	for w := 0; w < opts.Workers; w++ {
		if !prepares {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := range work {
					pairs := b.pairs()
					b.done <- verifyBatch(ctx, func(ctx context.Context) ([]Verdict, error) { return v.Verify(ctx, pairs) }, b, opts, 0)
				}
			}()
			continue
		}
		// The worker's next batch is prepared while its current one is
		// verified: one batch ahead, never more.
		prepared := make(chan preparedBatch[T])
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer close(prepared)
			for b := range work {
				began := time.Now()
				run := pr.Prepare(ctx, b.pairs())
				select {
				case prepared <- preparedBatch[T]{b, run, time.Since(began)}:
				case <-ctx.Done():
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for p := range prepared {
				p.b.done <- verifyBatch(ctx, p.run, p.b, opts, p.took)
			}
		}()
	}
	// Emitter: results in input order.
	for b := range order {
		select {
		case rs := <-b.done:
			for _, r := range rs {
				if err := emit(r); err != nil {
					return err
				}
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// preparedBatch is a batch whose Prepare took took, and the rest of its
// verification.
type preparedBatch[T any] struct {
	b    *batch[T]
	run  func(context.Context) ([]Verdict, error)
	took time.Duration
}

// verifyBatch runs verify (the batch's Verify call, or what its Prepare
// left), retrying transient failures; prepared is the time Prepare took,
// counted in the pairs' latency.
func verifyBatch[T any](ctx context.Context, verify func(context.Context) ([]Verdict, error), b *batch[T], opts SchedulerOptions, prepared time.Duration) []Result[T] {
	rs := make([]Result[T], len(b.jobs))
	for i, j := range b.jobs {
		rs[i] = Result[T]{Index: b.first + i, Job: j}
	}
	n := len(b.jobs)
	var verdicts []Verdict
	var err error
	tries := 0
	began := time.Now()
	for attempt := 0; ; attempt++ {
		tries++
		verdicts, err = timedVerify(ctx, verify, opts.Timeout)
		if err == nil && len(verdicts) != n {
			err = fmt.Errorf("verifier returned %d verdicts for %d pairs", len(verdicts), n)
		}
		if err == nil || !IsTransient(err) || errors.Is(err, ErrVerifyTimeout) || attempt >= opts.Retries || ctx.Err() != nil {
			break
		}
		if opts.Backoff > 0 {
			t := time.NewTimer(opts.Backoff << attempt)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
	}
	share := (prepared + time.Since(began)) / time.Duration(len(rs))
	for i := range rs {
		rs[i].Tries = tries
		rs[i].Latency = share
		if err != nil {
			rs[i].Err = fmt.Errorf("verify batch of %d (after %d tries): %w", n, tries, err)
			continue
		}
		vd := verdicts[i]
		if vd.Err == nil {
			vd.Err = CheckLogits(vd.Logits)
		}
		if vd.Err != nil {
			// Nothing of a failed verdict travels on (a NaN would not even
			// encode into the spool).
			rs[i].Err = fmt.Errorf("claim %s: %w", rs[i].Pair.ClaimID, vd.Err)
			rs[i].Verdict = Verdict{Passage: -1}
			continue
		}
		rs[i].Verdict = vd
	}
	return rs
}

// timedVerify is one Verify call under a bound (0: none): past it the
// call's context is cancelled, and the call's answer, whenever it comes,
// is ErrVerifyTimeout (a backend that ignores its context is not waited
// on twice: its late answer is not used either).
func timedVerify(ctx context.Context, verify func(context.Context) ([]Verdict, error), bound time.Duration) ([]Verdict, error) {
	if bound <= 0 {
		return verify(ctx)
	}
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	began := time.Now()
	vs, err := verify(cctx)
	if took := time.Since(began); ctx.Err() == nil && (took > bound || cctx.Err() != nil) {
		return nil, fmt.Errorf("%w: the call took %s, over %s", ErrVerifyTimeout, took.Round(time.Millisecond), bound)
	}
	return vs, err
}
