package corpus

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRetrieveSet replays the retrieval of audit run (audit.Retriever:
// a cited passage looked up, a cited document searched within, then the
// claim searched, k = 5) over the claims of the generated set in the folder
// RETRIEVAL_SET (corpus.jsonl, spans.jsonl, claims.jsonl), one claim per
// operation, on one goroutine; the index is built before the clock starts.
// Besides ns/op it reports the process's CPU time per claim (user+system,
// garbage collection included), the figure to compare on a loaded machine.
// Sub-benchmarks time the calls apart: search (Search), within
// (SearchWithin of each cited document) and claim (all of them).
func BenchmarkRetrieveSet(b *testing.B) {
	dir := os.Getenv("RETRIEVAL_SET")
	if dir == "" {
		b.Skip("RETRIEVAL_SET unset: no generated set to replay")
	}
	ix := openIndexOf(b, filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "spans.jsonl"))
	texts, cites := claimTexts(b, filepath.Join(dir, "claims.jsonl"))
	ctx := context.Background()
	const k = 5
	// The first search loads the postings: not part of any claim's cost.
	if _, err := ix.Search(ctx, texts[0], k); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, claim func(i int) error) {
		cpu0 := cpuTime()
		i := 0
		for b.Loop() {
			if err := claim(i % len(texts)); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	search := func(i int) error {
		_, err := ix.Search(ctx, texts[i], k)
		return err
	}
	within := func(i int) error {
		for _, id := range cites[i] {
			if strings.HasPrefix(id, "doc_") {
				if _, err := ix.SearchWithin(ctx, texts[i], id, k); err != nil {
					return err
				}
			}
		}
		return nil
	}
	b.Run("search", func(b *testing.B) { run(b, search) })
	b.Run("within", func(b *testing.B) { run(b, within) })
	b.Run("claim", func(b *testing.B) {
		run(b, func(i int) error {
			for _, id := range cites[i] {
				_, ok, err := ix.Passage(ctx, id)
				if err != nil {
					return err
				}
				if !ok {
					if _, err := ix.SearchWithin(ctx, texts[i], id, k); err != nil {
						return err
					}
				}
			}
			return search(i)
		})
	})
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
