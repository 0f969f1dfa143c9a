// Command retrieval measures the project's BM25 retrieval: queries per
// second and latency percentiles on one goroutine, the top-k of every
// query (for comparison with another engine), and, where gold evidence is
// known, recall@k. With -export it also writes the analysed passages and
// queries, so that another engine (see xapian_bm25.py) indexes and searches
// exactly the same terms.
//
// Usage:
//
//	go run ./bench/retrieval -corpus C -spans S -claims Q -index DIR -out DIR [-gold-details F] [-export]
//
// It is a benchmark tool run by `make bench-retrieval`, not part of audit.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "retrieval:", err)
		os.Exit(1)
	}
}

func run() error {
	corpusPath := flag.String("corpus", "", "corpus.jsonl")
	spansPath := flag.String("spans", "", "spans.jsonl (optional)")
	claimsPath := flag.String("claims", "", "claims.jsonl: each claim's text is a query")
	indexDir := flag.String("index", "", "index folder (built when missing or stale)")
	out := flag.String("out", "", "output folder")
	goldPath := flag.String("gold-details", "", "gold_details.jsonl with each claim's gold doc_ids and span_ids (optional)")
	k := flag.Int("k", 5, "hits per query")
	export := flag.Bool("export", false, "write passages.jsonl and queries.jsonl (analysed terms) for another engine")
	label := flag.String("label", "", "name printed with the figures")
	flag.Parse()
	if *corpusPath == "" || *claimsPath == "" || *indexDir == "" || *out == "" {
		flag.Usage()
		return fmt.Errorf("-corpus, -claims, -index and -out are required")
	}
	ctx := context.Background()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if _, err := corpus.EnsureIndex(ctx, corpus.EnsureRequest{Dir: *indexDir, CorpusPath: *corpusPath, SpansPath: *spansPath}); err != nil {
		return err
	}
	cs, err := claims.Load(ctx, *claimsPath, "")
	if err != nil {
		return err
	}
	ix, err := corpus.OpenIndex(*indexDir)
	if err != nil {
		return err
	}
	defer ix.Close()

	t0 := time.Now()
	if _, err := ix.Search(ctx, "warm up", 1); err != nil {
		return err
	}
	load := time.Since(t0)

	results := make([][]corpus.Hit, len(cs))
	lat := make([]time.Duration, len(cs))
	began := time.Now()
	for i, c := range cs {
		t := time.Now()
		if results[i], err = ix.Search(ctx, c.Text, *k); err != nil {
			return err
		}
		lat[i] = time.Since(t)
	}
	total := time.Since(began)
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	name := *label
	if name == "" {
		name = filepath.Base(filepath.Dir(*claimsPath))
	}
	fmt.Printf("%s: project BM25, %d queries, top %d, one goroutine: %.0f queries/s, p50 %.2f ms, p99 %.2f ms (first query, loading postings: %.0f ms)\n",
		name, len(cs), *k, float64(len(cs))/total.Seconds(), pct(0.5), pct(0.99), load.Seconds()*1000)

	if err := writeLines(filepath.Join(*out, "project.jsonl"), len(cs), func(i int) any {
		ids := make([]string, len(results[i]))
		for j, h := range results[i] {
			ids[j] = h.ID
		}
		return map[string]any{"claim_id": cs[i].ID, "ids": ids}
	}); err != nil {
		return err
	}

	if *goldPath != "" {
		if err := recall(name, *goldPath, *spansPath, cs, results, *k); err != nil {
			return err
		}
	}
	if *export {
		return exportTerms(ctx, ix, *corpusPath, *spansPath, *out, cs)
	}
	return nil
}

// exportTerms writes passages.jsonl (each passage's analysed terms, text
// and provenance) and queries.jsonl (each claim's analysed terms with
// their weights) into out, for another engine.
func exportTerms(ctx context.Context, ix *corpus.Index, corpusPath, spansPath, out string, cs []claims.Claim) error {
	c, err := corpus.Load(ctx, corpusPath, spansPath, corpus.LoadOptions{})
	if err != nil {
		return err
	}
	// The text and provenance too: xapian_index.py indexes them
	// with Xapian's own analysis, as the index build does with the
	// project's.
	type passage struct {
		ID     string   `json:"id"`
		Tokens []string `json:"tokens"`
		Text   string   `json:"text"`
		DocID  string   `json:"doc_id"`
		SpanID string   `json:"span_id,omitempty"`
	}
	var ps []passage
	if err := c.Passages(ix.Manifest().Passages, func(p corpus.Passage) error {
		ps = append(ps, passage{p.ID, ix.Tokens(p.Text), p.Text, p.DocID, p.SpanID})
		return nil
	}); err != nil {
		return err
	}
	slices.SortFunc(ps, func(a, b passage) int { return strings.Compare(a.ID, b.ID) })
	if err := writeLines(filepath.Join(out, "passages.jsonl"), len(ps), func(i int) any { return ps[i] }); err != nil {
		return err
	}
	if err := writeLines(filepath.Join(out, "queries.jsonl"), len(cs), func(i int) any {
		return map[string]any{"claim_id": cs[i].ID, "terms": ix.QueryWeights(cs[i].Text)}
	}); err != nil {
		return err
	}
	return nil
}

// recall prints recall@k against gold evidence: a claim counts when one
// of its top-k passages is a gold span, or a window of a gold document
// overlapping a gold span ("evidence"), or any passage of a gold document
// ("document").
func recall(name, goldPath, spansPath string, cs []claims.Claim, results [][]corpus.Hit, k int) error {
	type span struct {
		DocID      string `json:"doc_id"`
		Start, End int
	}
	spans := map[string]span{}
	if spansPath != "" {
		if err := readLines(spansPath, func(b []byte) error {
			var s struct {
				SpanID string `json:"span_id"`
				span
			}
			if err := json.Unmarshal(b, &s); err != nil {
				return err
			}
			spans[s.SpanID] = s.span
			return nil
		}); err != nil {
			return err
		}
	}
	type gold struct {
		ClaimID string   `json:"claim_id"`
		DocIDs  []string `json:"doc_ids"`
		SpanIDs []string `json:"span_ids"`
	}
	golds := map[string]gold{}
	if err := readLines(goldPath, func(b []byte) error {
		var g gold
		if err := json.Unmarshal(b, &g); err != nil {
			return err
		}
		golds[g.ClaimID] = g
		return nil
	}); err != nil {
		return err
	}
	n, docHits, evHits := 0, 0, 0
	for i, c := range cs {
		g, ok := golds[c.ID]
		if !ok || (len(g.DocIDs) == 0 && len(g.SpanIDs) == 0) {
			continue
		}
		n++
		doc, ev := false, false
		for _, h := range results[i] {
			if slices.Contains(g.DocIDs, h.DocID) {
				doc = true
			}
			for _, sid := range g.SpanIDs {
				s, known := spans[sid]
				if h.SpanID == sid || (known && h.SpanID == "" && h.DocID == s.DocID && h.Start < s.End && s.Start < h.End) {
					ev = true
				}
				if known && h.DocID == s.DocID {
					doc = true
				}
			}
		}
		if doc {
			docHits++
		}
		if ev {
			evHits++
		}
	}
	if n == 0 {
		fmt.Printf("%s: no claims with gold evidence\n", name)
		return nil
	}
	fmt.Printf("%s: recall@%d over %d claims with gold evidence: evidence %.3f, document %.3f\n",
		name, k, n, float64(evHits)/float64(n), float64(docHits)/float64(n))
	return nil
}

func readLines(path string, f func([]byte) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := f(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}

func writeLines(path string, n int, item func(int) any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := 0; i < n; i++ {
		if err := enc.Encode(item(i)); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
