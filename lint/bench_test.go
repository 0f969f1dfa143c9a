package lint

import "testing"

func BenchmarkVerifyNumeric(b *testing.B) {
	facts := FactsFromText("p", "Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022. Punctuality reached 91.4% on regional lines. The company operated 412 trains and employed 5,700 staff.")
	for b.Loop() {
		VerifyNumeric("Meridian Rail carried 48 million passengers in 2023.", facts, MatchOptions{})
	}
}

// BenchmarkFactWords reads the words of the demo passages' facts (each
// sentence with the one before it), as Prepare does: old is the reading
// before the one-pass ASCII reading (the oracle), new is Prepare's.
func BenchmarkFactWords(b *testing.B) {
	type pair struct{ desc, ctx string }
	var pairs []pair
	for _, doc := range jsonlTexts(b, "../benchdata/demo/corpus.jsonl") {
		for _, f := range FactsFromText("p", doc) {
			if n := len(pairs); n == 0 || pairs[n-1] != (pair{f.Description, f.Context}) {
				pairs = append(pairs, pair{f.Description, f.Context})
			}
		}
	}
	b.Run("old", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			for _, p := range pairs {
				oldFactWords(p.desc, p.ctx)
			}
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	})
	b.Run("new", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			for _, p := range pairs {
				readFactWords(p.desc, p.ctx)
			}
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	})
}
