package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/userfile"
)

// Flags a claim's record carries when its evidence scope shaped its
// passages (docs/format/claims.md).
const (
	// FlagUncited: under the cited scope the claim cites nothing the
	// corpus holds, so it has no evidence (the no_evidence rule makes it
	// insufficient).
	FlagUncited = "uncited"
	// FlagCorpusFallback: under cited-or-corpus the claim cites nothing
	// the corpus holds, so its evidence was retrieved from the whole
	// corpus as in a corpus audit.
	FlagCorpusFallback = "evidence_from_corpus"
)

// scopeOf is a claim's evidence scope: its own evidence field, else the
// run's (corpus when unset).
func scopeOf(c claims.Claim, run string) string {
	if c.Evidence != "" {
		return c.Evidence
	}
	if run == "" {
		return claims.EvidenceCorpus
	}
	return run
}

// scoped says whether a scope judges claims against their citations.
func scoped(scope string) bool {
	return scope == claims.EvidenceCited || scope == claims.EvidenceCitedOrCorpus
}

// ChunkSizer is a verifier that reads a bounded number of tokens per
// (passage, claim) pair (a cross-encoder's --max-length): PassageTokens is
// how many tokens of passage text fit beside the claim, CountTokens how
// many tokens it reads in a text. The chunks of a cited document are
// sized by it; other verifiers get corpus.DefaultChunkTokens.
type ChunkSizer interface {
	PassageTokens(claim string) int
	CountTokens(text string) int
}

// chunkOptions sizes the chunks of a cited document for a claim.
func chunkOptions(v adjudicate.Verifier, claim string) corpus.ChunkOptions {
	if cv, ok := v.(*cachedVerifier); ok {
		v = cv.inner // --resume: the window is the verifier's
	}
	cs, ok := v.(ChunkSizer)
	if !ok {
		return corpus.ChunkOptions{}
	}
	return corpus.ChunkOptions{Tokens: max(16, cs.PassageTokens(claim)), Count: cs.CountTokens}
}

// cited is a claim's evidence under the cited scopes: each cited span or
// window whole, each cited document as all of its chunks, no other passage
// and no k limit. A claim with none gets the corpus's retrieval under
// cited-or-corpus (flagged) and nothing under cited (flagged).
func (r Retriever) cited(ctx context.Context, c claims.Claim, text, scope string) (adjudicate.Pair, []string, error) {
	pair := adjudicate.Pair{ClaimID: c.ID, Claim: text, PerPassage: true}
	query := queryOf(c, text)
	seen := map[string]bool{}
	var scorer *corpus.TextScorer
	add := func(p adjudicate.Passage) error {
		if seen[p.ID] {
			return nil
		}
		seen[p.ID] = true
		if scorer == nil {
			var err error
			if scorer, err = r.Index.TextScorer(query); err != nil {
				return err
			}
		}
		p.Score, p.Cited = scorer.Score(p.Text), true
		pair.Passages = append(pair.Passages, p)
		return nil
	}
	for _, id := range c.Cite {
		if h, ok, err := r.Index.Passage(ctx, id); err != nil {
			return pair, nil, err
		} else if ok {
			if err := add(adjudicate.Passage{ID: h.ID, DocID: h.DocID, SpanID: h.SpanID, Start: h.Start, End: h.End, Text: h.Text}); err != nil {
				return pair, nil, err
			}
			continue
		}
		doc, ok := r.Docs[id]
		if !ok {
			if r.UnknownCite != nil {
				r.UnknownCite(c.ID, id)
			}
			continue
		}
		opts := corpus.ChunkOptions{}
		if r.Chunking != nil {
			opts = r.Chunking(text)
		}
		for _, p := range r.docChunks(id, doc, opts) {
			if err := add(p); err != nil {
				return pair, nil, err
			}
		}
	}
	if len(pair.Passages) > 0 {
		return pair, nil, nil
	}
	if scope == claims.EvidenceCited {
		return pair, []string{FlagUncited}, nil
	}
	pair.PerPassage = false
	hits, err := r.Index.SearchQuery(ctx, query, r.K)
	if err != nil {
		return pair, nil, fmt.Errorf("retrieve for claim %s: %w", c.ID, err)
	}
	for _, h := range hits {
		pair.Passages = append(pair.Passages, adjudicate.Passage{ID: h.ID, DocID: h.DocID, SpanID: h.SpanID,
			Start: h.Start, End: h.End, Text: h.Text, Score: h.Score})
	}
	return pair, []string{FlagCorpusFallback}, nil
}

// docChunksSize bounds the cited documents whose chunks a run keeps: the
// claims of one output, or of one cited document, read the same documents
// one after another (RAG outputs with their contexts: each of an output's
// ~4.5 claims reads its ~5 contexts).
const docChunksSize = 2048

// docChunkKey names a document's chunks at one chunk size (a run's
// Chunking varies only the size with the claim).
type docChunkKey struct {
	doc    string
	tokens int
}

// docChunks are a cited document's chunks as passages (no score), from
// r.chunks when the run keeps them.
func (r Retriever) docChunks(id, doc string, opts corpus.ChunkOptions) []adjudicate.Passage {
	return r.chunks.Get(docChunkKey{id, opts.Tokens}, func() []adjudicate.Passage {
		runes := []rune(doc)
		var out []adjudicate.Passage
		for n, ch := range corpus.Chunks(runes, opts) {
			out = append(out, adjudicate.Passage{ID: fmt.Sprintf("%s#c%d", id, n), DocID: id, Start: ch[0], End: ch[1], Text: string(runes[ch[0]:ch[1]])})
		}
		return out
	})
}

// noteCites records, as validation reads a claim, whether it asks for a
// cited scope itself and which ids a claim judged against its citations
// cites: only those documents' texts are kept in memory.
func (o *Options) noteCites(c claims.Claim) {
	if scoped(c.Evidence) {
		o.scopedClaims = true
	}
	if !scoped(scopeOf(c, o.Evidence)) {
		return
	}
	if o.citedIDs == nil {
		o.citedIDs = map[string]bool{}
	}
	for _, id := range c.Cite {
		o.citedIDs[id] = true
	}
}

// scopedVerifier is the run's verifier, ready for the claims judged
// against their citations (scopeEvidence).
func (o *Options) scopedVerifier(ctx context.Context, ix *index) (adjudicate.Verifier, error) {
	v, err := o.verifier(ix)
	if err != nil {
		return nil, err
	}
	w, err := o.scopeEvidence(ctx, v)
	if err != nil {
		closeIfCloser(v)
		return nil, err
	}
	return w, nil
}

// scopeEvidence prepares a run in which some claim is judged against its
// citations only: the documents' texts, the chunk sizes of the verifier's
// window, and the verifier wrapped to verify chunk by chunk. A corpus
// audit is left as it is.
func (o *Options) scopeEvidence(ctx context.Context, v adjudicate.Verifier) (adjudicate.Verifier, error) {
	if !scoped(o.Evidence) && !o.scopedClaims {
		return v, nil
	}
	docs, err := readDocTexts(ctx, o.CorpusPath, o.citedIDs)
	if err != nil {
		return nil, fmt.Errorf("read the corpus's documents: %w", err)
	}
	o.docTexts = docs
	o.chunking = func(claim string) corpus.ChunkOptions { return chunkOptions(v, claim) }
	return newChunkwise(v, o.VerifierName), nil
}

// readDocTexts reads the texts of the documents named in keep from the
// corpus file (the index has validated it), for the whole cited
// documents.
func readDocTexts(ctx context.Context, path string, keep map[string]bool) (map[string]string, error) {
	f, err := userfile.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	docs := map[string]string{}
	br := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(b))) > 0 {
			var d struct {
				DocID string `json:"doc_id"`
				Text  string `json:"text"`
			}
			if jerr := json.Unmarshal(b, &d); jerr != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, jerr)
			}
			if keep[d.DocID] {
				docs[d.DocID] = d.Text
			}
		}
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if line%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// chunkwise verifies the pairs marked PerPassage passage by passage (each
// chunk a pair of its own, in batches of the inner verifier's size) and
// aggregates each claim's verdicts by adjudicate.MaxSupport; other pairs
// pass through unchanged.
type chunkwise struct {
	adjudicate.Verifier
	batch int
	name  string // the verifier's name, its version when it states none
}

func newChunkwise(v adjudicate.Verifier, name string) *chunkwise {
	b := 64
	if bs, ok := v.(adjudicate.BatchSizer); ok && bs.PreferredBatchSize() > 0 {
		b = bs.PreferredBatchSize()
	}
	return &chunkwise{Verifier: v, batch: b, name: name}
}

// Verify implements adjudicate.Verifier.
func (c *chunkwise) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	var flat []adjudicate.Pair
	start := make([]int, len(batch)+1)
	for i, p := range batch {
		start[i] = len(flat)
		if !p.PerPassage || len(p.Passages) == 0 {
			p.PerPassage = false
			flat = append(flat, p)
			continue
		}
		for _, ps := range p.Passages {
			flat = append(flat, adjudicate.Pair{ClaimID: p.ClaimID, Claim: p.Claim, Passages: []adjudicate.Passage{ps}, Query: p.Query})
		}
	}
	start[len(batch)] = len(flat)
	vs := make([]adjudicate.Verdict, 0, len(flat))
	for lo := 0; lo < len(flat); lo += c.batch {
		got, err := c.Verifier.Verify(ctx, flat[lo:min(len(flat), lo+c.batch)])
		if err != nil {
			return nil, err
		}
		if len(got) != min(len(flat), lo+c.batch)-lo {
			return nil, fmt.Errorf("verifier returned %d verdicts for %d pairs", len(got), min(len(flat), lo+c.batch)-lo)
		}
		vs = append(vs, got...)
	}
	out := make([]adjudicate.Verdict, len(batch))
	for i, p := range batch {
		part := vs[start[i]:start[i+1]]
		if !p.PerPassage || len(p.Passages) == 0 {
			out[i] = part[0]
			continue
		}
		out[i] = adjudicate.MaxSupport(p.Passages, part)
	}
	return out, nil
}

// Version implements adjudicate.Versioner: the inner verifier's.
func (c *chunkwise) Version() string { return versionOf(c.Verifier, c.name) }

// PreferredBatchSize implements adjudicate.BatchSizer: the inner's.
func (c *chunkwise) PreferredBatchSize() int { return c.batch }

// PreferredWorkers implements adjudicate.WorkerSizer: the inner's.
func (c *chunkwise) PreferredWorkers() int { return adjudicate.PreferredWorkers(c.Verifier) }

// Close releases the inner verifier.
func (c *chunkwise) Close() error {
	closeIfCloser(c.Verifier)
	return nil
}

// ContextsCorpusFile is where a run over model outputs with contexts and
// no corpus writes the contexts as documents (ContextID ids), in its
// output folder: the corpus their claims are judged against.
const ContextsCorpusFile = "contexts_corpus.jsonl"

// contextsCorpus writes the outputs' contexts as a corpus while the
// outputs are read; nil (a no-op) when the run has a corpus.
type contextsCorpus struct {
	f    *os.File
	w    *bufio.Writer
	path string
	n    int
}

func (o *Options) newContextsCorpus() (*contextsCorpus, error) {
	if o.CorpusPath != "" {
		return nil, nil
	}
	path := filepath.Join(o.WriteDir, ContextsCorpusFile)
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return nil, err
	}
	return &contextsCorpus{f: f, w: bufio.NewWriterSize(f, 1<<20), path: path}, nil
}

func (c *contextsCorpus) add(out extract.Output) error {
	if c == nil {
		return nil
	}
	for i, text := range out.Contexts {
		line, err := json.Marshal(struct {
			DocID string `json:"doc_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}{extract.ContextID(out.ID, i), out.ID, text})
		if err != nil {
			return err
		}
		c.w.Write(line)
		if err := c.w.WriteByte('\n'); err != nil {
			return err
		}
		c.n++
	}
	return nil
}

// finish puts the corpus in place and makes it the run's, each claim
// judged against its own output's contexts (--evidence cited unless the
// run asked for cited-or-corpus).
func (c *contextsCorpus) finish(o *Options) error {
	if c == nil {
		return nil
	}
	if c.n == 0 {
		return fmt.Errorf("%s: %w", o.OutputsPath, ErrNoContexts)
	}
	if err := c.w.Flush(); err != nil {
		return err
	}
	if err := c.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(c.path+".tmp", c.path); err != nil {
		return err
	}
	o.CorpusPath, o.SpansPath = c.path, ""
	if !scoped(o.Evidence) {
		o.Evidence = claims.EvidenceCited
	}
	o.Log.Info("contexts as the corpus", "documents", c.n, "file", ContextsCorpusFile, "evidence", o.Evidence)
	return nil
}

func (c *contextsCorpus) abort() {
	if c != nil {
		c.f.Close()
		os.Remove(c.path + ".tmp")
	}
}

// ErrNoContexts: a run over model outputs without --corpus needs outputs
// that carry their contexts.
var ErrNoContexts = errors.New("no --corpus and no output carries contexts: give a corpus, or each output's \"contexts\"")
