package audit

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/memo"
)

// Retriever finds the evidence for a claim: the passages its cite anchors
// name (a span id, or the best passages of a cited document) first, then
// the best BM25 passages for its text, k in all.
type Retriever struct {
	Index *corpus.Index
	K     int
	// UnknownCite, when set, hears of every cite id that names neither a
	// passage (span) nor a document of the index; it may be called from
	// several goroutines at once.
	UnknownCite func(claimID, citeID string)
	// Glossary, when set, restates a claim that restates a defined term
	// through its definition with the term (corpus.Glossary.Restate): the
	// search and the verifier read the claim so restated.
	Glossary *corpus.Glossary
	// Scope is the run's evidence scope (claims.EvidenceScopes; empty:
	// corpus); a claim's own evidence field overrides it. Under the cited
	// scopes a claim is judged against what it cites only (cited).
	Scope string
	// Docs are the corpus's document texts, for the whole cited
	// documents of the cited scopes.
	Docs map[string]string
	// Chunking sizes a cited document's chunks for a claim (nil:
	// corpus.ChunkOptions' defaults). Only the size (Tokens) may vary
	// with the claim: chunks kept are found by document and size.
	Chunking func(claim string) corpus.ChunkOptions
	// chunks keeps cited documents' chunks (nil: made for each claim).
	chunks *memo.Cache[docChunkKey, []adjudicate.Passage]
}

// Pair retrieves a claim's passages.
func (r Retriever) Pair(ctx context.Context, c claims.Claim) (adjudicate.Pair, error) {
	p, _, err := r.Evidence(ctx, c)
	return p, err
}

// Evidence is a claim's passages in its evidence scope, with the flags
// the scope gave it (FlagUncited, FlagCorpusFallback).
func (r Retriever) Evidence(ctx context.Context, c claims.Claim) (adjudicate.Pair, []string, error) {
	text := c.Text
	if restated, _, ok := r.Glossary.Restate(text); ok {
		text = restated
	}
	if scope := scopeOf(c, r.Scope); scoped(scope) {
		return r.cited(ctx, c, text, scope)
	}
	p, err := r.corpusPair(ctx, c, text)
	return p, nil, err
}

// corpusPair is a corpus audit's evidence: the cited passages (a span,
// or the best passages of a cited document) first, then the best BM25
// passages of the whole corpus, k in all.
func (r Retriever) corpusPair(ctx context.Context, c claims.Claim, text string) (adjudicate.Pair, error) {
	pair := adjudicate.Pair{ClaimID: c.ID, Claim: text}
	query := queryOf(c, text)
	seen := map[string]bool{}
	add := func(h corpus.Hit, cited bool) {
		if seen[h.ID] || len(pair.Passages) >= r.K {
			return
		}
		seen[h.ID] = true
		pair.Passages = append(pair.Passages, adjudicate.Passage{ID: h.ID, DocID: h.DocID, SpanID: h.SpanID,
			Start: h.Start, End: h.End, Text: h.Text, Score: h.Score, Cited: cited})
	}
	for _, id := range c.Cite {
		h, ok, err := r.Index.Passage(ctx, id)
		if err != nil {
			return pair, err
		}
		if ok {
			add(h, true)
			continue
		}
		hits, err := r.Index.SearchWithinQuery(ctx, query, id, r.K)
		if err != nil {
			return pair, err
		}
		if len(hits) == 0 && r.UnknownCite != nil {
			if known, err := r.Index.HasDoc(ctx, id); err != nil {
				return pair, err
			} else if !known {
				r.UnknownCite(c.ID, id)
			}
		}
		for _, h := range hits {
			add(h, true)
		}
	}
	hits, err := r.Index.SearchQuery(ctx, query, r.K)
	if err != nil {
		return pair, fmt.Errorf("retrieve for claim %s: %w", c.ID, err)
	}
	for _, h := range hits {
		add(h, false)
	}
	return pair, nil
}

// queryOf is what a claim is retrieved by: its text (restated through
// the glossary) with its entities and subject (corpus.Query). The
// verifier reads the text alone.
func queryOf(c claims.Claim, text string) corpus.Query {
	q := corpus.Query{Text: text}
	for _, f := range append(slices.Clip(c.Normalization.Entities), c.Subject) {
		if strings.TrimSpace(f) != "" {
			q.Fields = append(q.Fields, f)
		}
	}
	return q
}

// Pairs retrieves the evidence of many claims with workers goroutines,
// keeping their order.
func (r Retriever) Pairs(ctx context.Context, cs []claims.Claim, workers int) ([]adjudicate.Pair, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]adjudicate.Pair, len(cs))
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// A damaged index can make bleve panic: an error, not a crash.
				out[i], errs[i] = corpus.Recovered(func() (adjudicate.Pair, error) { return r.Pair(ctx, cs[i]) })
			}
		}()
	}
	for i := range cs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, ctx.Err()
}
