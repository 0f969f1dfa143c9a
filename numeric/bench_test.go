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

// BenchmarkFindNumbers is per text, the scanner against the regular
// expressions it replaced: over the passages of the real sets (their
// corpus documents, each line and each sentence) when DATA names their
// folder, else over the sample outputs (prose with numbers) and the fuzz
// texts of the property test.
func BenchmarkFindNumbers(b *testing.B) {
	var texts []string
	if dir := os.Getenv("DATA"); dir != "" {
		for _, set := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
			for _, text := range jsonlTexts(b, filepath.Join(dir, set, "corpus.jsonl")) {
				texts = append(texts, withParts(text)...)
			}
		}
	} else {
		texts = append(fuzzTexts(2000), sampleTexts(b)...)
	}
	for _, impl := range []struct {
		name string
		find func(string) []Mention
	}{{"scanner", FindNumbers}, {"regexp", findNumbersRegexp}} {
		b.Run(impl.name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				impl.find(texts[n%len(texts)])
				n++
			}
		})
	}
}
