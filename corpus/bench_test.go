package corpus

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeBenchCorpus writes a deterministic corpus of n documents of about 100
// words: five sentences in which English stop words alternate with
// Zipf-distributed content words from a 20,000-word vocabulary, plus an
// entity, a year and a percentage — roughly the make-up of real prose. Every
// fourth document has a span on its first sentence. The queries are ten
// consecutive words of a random sentence, as a claim would be.
func writeBenchCorpus(tb testing.TB, dir string, n int) (corpusPath, spansPath string, queries []string) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(42, uint64(n)))
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("%s%s", []string{"ka", "lo", "mi", "ne", "su", "ta", "ve", "ro"}[i%8], strings.Repeat("x", i%5)) + fmt.Sprint(i)
	}
	zipf := rand.NewZipf(rng, 1.05, 2, uint64(len(vocab)-1))
	fillers := strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they were had")
	entities := []string{"Meridian", "Orrin", "Kestrel", "Brackwater", "Veld", "Northgate", "Lumière", "Harbour"}
	corpusPath, spansPath = filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "spans.jsonl")
	cf, err := os.Create(corpusPath)
	if err != nil {
		tb.Fatal(err)
	}
	sf, err := os.Create(spansPath)
	if err != nil {
		tb.Fatal(err)
	}
	cw, sw := bufio.NewWriter(cf), bufio.NewWriter(sf)
	for d := 0; d < n; d++ {
		var sents []string
		for s := 0; s < 5; s++ {
			words := []string{entities[rng.IntN(len(entities))]}
			for w := 0; w < 18; w++ {
				if w%2 == 1 {
					words = append(words, fillers[rng.IntN(len(fillers))])
				} else {
					words = append(words, vocab[zipf.Uint64()])
				}
			}
			words = append(words, fmt.Sprint(1900+rng.IntN(125)), fmt.Sprintf("%.1f%%", rng.Float64()*100))
			sents = append(sents, strings.Join(words, " ")+".")
		}
		text := strings.Join(sents, " ")
		id := fmt.Sprintf("doc_%06d", d)
		line, _ := jsonLine(map[string]any{"doc_id": id, "title": "Doc " + id, "text": text, "created_at": "2024-01-01"})
		cw.WriteString(line)
		if d%4 == 0 {
			line, _ := jsonLine(map[string]any{"span_id": "span_" + id, "doc_id": id, "start": 0, "end": RuneLen(sents[0]), "quote": sents[0]})
			sw.WriteString(line)
		}
		if d%(n/200+1) == 0 {
			w := strings.Fields(sents[rng.IntN(len(sents))])
			queries = append(queries, strings.Join(w[:10], " "))
		}
	}
	for _, err := range []error{cw.Flush(), sw.Flush(), cf.Close(), sf.Close()} {
		if err != nil {
			tb.Fatal(err)
		}
	}
	return corpusPath, spansPath, queries
}

func BenchmarkLoad20k(b *testing.B) {
	cp, sp, _ := writeBenchCorpus(b, b.TempDir(), 20000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Load(context.Background(), cp, sp, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(20000*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkIndexBuild20k measures validation plus index build, as
// `audit index` does it on a fresh folder.
func BenchmarkIndexBuild20k(b *testing.B) {
	dir := b.TempDir()
	cp, sp, _ := writeBenchCorpus(b, dir, 20000)
	passages := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		res, err := EnsureIndex(context.Background(), EnsureRequest{Dir: filepath.Join(dir, fmt.Sprint("idx", i)), CorpusPath: cp, SpansPath: sp})
		if err != nil {
			b.Fatal(err)
		}
		passages = res.Manifest.Counts.Passages
	}
	b.ReportMetric(20000*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(float64(passages), "passages")
}

// BenchmarkIndexReuse20k measures the second `audit index` of an unchanged
// corpus: hashing the inputs and reading the manifest.
func BenchmarkIndexReuse20k(b *testing.B) {
	dir := b.TempDir()
	cp, sp, _ := writeBenchCorpus(b, dir, 20000)
	req := EnsureRequest{Dir: filepath.Join(dir, "idx"), CorpusPath: cp, SpansPath: sp}
	if _, err := EnsureIndex(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := EnsureIndex(context.Background(), req)
		if err != nil || !res.Reused {
			b.Fatal(err, res.Reason)
		}
	}
}

// benchIndex builds and opens the 20k-document index of the search
// benchmarks, with its queries; it is closed when the benchmark ends.
func benchIndex(b *testing.B) (*Index, []string) {
	b.Helper()
	dir := b.TempDir()
	cp, sp, queries := writeBenchCorpus(b, dir, 20000)
	if _, err := EnsureIndex(context.Background(), EnsureRequest{Dir: filepath.Join(dir, "idx"), CorpusPath: cp, SpansPath: sp}); err != nil {
		b.Fatal(err)
	}
	ix, err := OpenIndex(filepath.Join(dir, "idx"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix, queries
}

// BenchmarkSearch20k reports per-query latency percentiles for ten-word
// queries, top 5, on one goroutine.
func BenchmarkSearch20k(b *testing.B) {
	ix, queries := benchIndex(b)
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if _, err := ix.Search(context.Background(), queries[i%len(queries)], 5); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkSearchParallel20k is throughput with GOMAXPROCS goroutines.
func BenchmarkSearchParallel20k(b *testing.B) {
	ix, queries := benchIndex(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			if _, err := ix.Search(context.Background(), queries[i%len(queries)], 5); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

func BenchmarkWindows(b *testing.B) {
	text := []rune(strings.Repeat("Dr. Smith measured 5.7 units in the U.S. lab. Then it rained! ", 20))
	for b.Loop() {
		Windows(text, DefaultPassageSettings)
	}
}
