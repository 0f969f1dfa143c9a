package numeric

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkCheckAuto(b *testing.B) {
	pairs := [][2]string{{"1500", "1.5K"}, {"5.7", "about 5.8"}, {"12%", "0.12"}, {"90%", "85-95%"}, {"2021", "2021-07-01"}, {"5.7", "5.8"}}
	n := 0
	for b.Loop() {
		p := pairs[n%len(pairs)]
		Check(PolicyAuto, PolicyParams{}, p[0], p[1])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "checks/s")
}

// BenchmarkFindNumbers is one pass over a fixed set of texts (ns/text is
// per text), the scanner against the regular expressions it replaced: the
// passages of the real sets (their corpus documents, each line and each
// sentence; every 8th, at most 8,000) when DATA names their folder, else
// the sample outputs (prose with numbers) and the fuzz texts of the
// property test.
func BenchmarkFindNumbers(b *testing.B) {
	texts := benchTexts(b)
	for _, impl := range []struct {
		name string
		find func(string) []Mention
	}{{"scanner", FindNumbers}, {"regexp", findNumbersRegexp}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				for _, text := range texts {
					impl.find(text)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
		})
	}
}

// BenchmarkPassageNumbers is what the verifier, the numeric check and the
// rules ask of a passage: its mentions (FindNumbers, which parses each with
// ParseQuantity) and its years, over the texts of BenchmarkFindNumbers
// (ns/text is per text). It has no regular-expression twin: run it in a
// test binary of the old code to compare.
func BenchmarkPassageNumbers(b *testing.B) {
	texts := benchTexts(b)
	for b.Loop() {
		for _, text := range texts {
			FindNumbers(text)
			YearsIn(text)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
}

// benchTexts is the passages of the real sets (their corpus documents,
// each line and each sentence; every 8th, at most 8,000) when DATA names
// their folder, else the sample outputs and the fuzz texts of the property
// test.
func benchTexts(b *testing.B) []string {
	var texts []string
	if dir := os.Getenv("DATA"); dir != "" {
		var all []string
		for _, set := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
			for _, text := range jsonlTexts(b, filepath.Join(dir, set, "corpus.jsonl")) {
				all = append(all, withParts(text)...)
			}
		}
		for i := 0; i < len(all) && len(texts) < 8000; i += 8 {
			texts = append(texts, all[i])
		}
	} else {
		texts = append(fuzzTexts(2000), sampleTexts(b)...)
	}
	return texts
}
