package audit

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/memo"
	"github.com/claimaudit/claimaudit/rules"
)

// item is a claim on its way through the scheduler, with its position in
// the claims file.
type item struct {
	claim claims.Claim
	index int
	// flags are what the claim's evidence scope gave it (FlagUncited…).
	flags []string
}

// retrieval is one claim on its way through the retrieval workers; done
// is closed once pair and err are set.
type retrieval struct {
	item item
	pair adjudicate.Pair
	err  error
	done chan struct{}
}

// feed streams claims (a shard's only, with --shard) to the scheduler in
// file order, each with its pair. Reading the claims, retrieving and
// verifying overlap: a reader queues each claim twice — for the retrieval
// workers (one per core), and in file order for the sender, which hands
// each pair on as soon as it and those before it are retrieved. Up to
// window claims are in retrieval at once; there is no batch of claims to
// wait for, so a slow claim holds back only its successors' sending.
func (o *Options) feed(ctx context.Context, ix *index, gold *claims.GoldIndex, jobs chan<- adjudicate.Job[item], window int) error {
	defer close(jobs)
	r, warn := o.retriever(ix)
	defer warn()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window = max(window, 2*runtime.GOMAXPROCS(0))
	todo := make(chan *retrieval, window)
	order := make(chan *retrieval, window)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range todo {
				// A damaged index can make bleve panic: an error, not a crash.
				t.pair, t.err = corpus.Recovered(func() (adjudicate.Pair, error) {
					p, flags, err := r.Evidence(ctx, t.item.claim)
					t.item.flags = flags
					if o.queryUsed {
						p.Query = o.outputsByID[t.item.claim.SourceID].Query
					}
					return p, err
				})
				close(t.done)
			}
		}()
	}
	scanErr := make(chan error, 1)
	go func() {
		defer close(todo)
		defer close(order)
		scanErr <- o.scanShard(ctx, gold, func(it item) error {
			t := &retrieval{item: it, done: make(chan struct{})}
			for _, q := range []chan *retrieval{order, todo} {
				select {
				case q <- t:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
	}()
	err := send(ctx, order, jobs)
	if err != nil {
		cancel() // stop the reader and the workers
	}
	if serr := <-scanErr; err == nil {
		err = serr
	}
	wg.Wait()
	return err
}

// send hands the retrieved claims to the scheduler in file order.
func send(ctx context.Context, order <-chan *retrieval, jobs chan<- adjudicate.Job[item]) error {
	for t := range order {
		select {
		case <-t.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if t.err != nil {
			return t.err
		}
		select {
		case jobs <- adjudicate.Job[item]{Pair: t.pair, Item: t.item}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// scanShard calls fn with each claim of the run's shard and its position
// in the claims file.
func (o *Options) scanShard(ctx context.Context, gold *claims.GoldIndex, fn func(item) error) error {
	next := 0 // the next claim's position in the file
	each := func(fn func(claims.Claim) error) error { return claims.Scan(ctx, o.ClaimsPath, gold, fn) }
	if o.claimSource != nil {
		each = func(fn func(claims.Claim) error) error {
			return o.claimSource.each(ctx, func(c claims.Claim) error {
				if l, ok := gold.Label(c.ID); ok { // as Scan joins them
					c.Label = l
				}
				return fn(c)
			})
		}
	}
	return each(func(c claims.Claim) error {
		i := next
		next++
		if !o.Shard.Holds(c.ID) {
			return nil
		}
		return fn(item{claim: c, index: i})
	})
}

// retriever is the run's Retriever; warn, called once retrieval is over,
// logs the cite ids that named nothing in the corpus.
func (o *Options) retriever(ix *index) (r Retriever, warn func()) {
	var unknown struct {
		sync.Mutex
		n     int
		first []string
	}
	r = Retriever{Index: ix.Index, K: o.K, UnknownCite: func(claimID, citeID string) {
		unknown.Lock()
		defer unknown.Unlock()
		unknown.n++
		if len(unknown.first) < 5 {
			unknown.first = append(unknown.first, claimID+"→"+citeID)
		}
	}}
	if o.Rules.Effect != rules.EffectFlag {
		r.Glossary = o.glossary // flag only: the claim is judged as written
	}
	r.Scope, r.Docs, r.Chunking = o.Evidence, o.docTexts, o.chunking
	if r.Docs != nil {
		r.chunks = memo.New[docChunkKey, []adjudicate.Passage](docChunksSize)
	}
	return r, func() {
		// A cite that names nothing in the corpus is the claim's (or the
		// corpus's) defect: said once, with the first few, never dropped
		// silently.
		if unknown.n > 0 {
			why := "those claims were retrieved by their text alone"
			if scoped(o.Evidence) || o.scopedClaims {
				why = "they are no evidence (a claim judged against its citations that has no other is flagged uncited, or under cited-or-corpus retrieved by its text)"
			}
			o.Log.Warn("cite ids name no span or document of the corpus; "+why,
				"cites", unknown.n, "first", strings.Join(unknown.first, ", "))
		}
	}
}
