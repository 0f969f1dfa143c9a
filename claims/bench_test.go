package claims

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

func loadSample(b *testing.B) []Output {
	f, err := os.Open("testdata/extract/outputs.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var outs []Output
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var o Output
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			b.Fatal(err)
		}
		outs = append(outs, o)
	}
	return outs
}

// BenchmarkExtract is per model output (seed 004 budgets ~0.5 ms each); the
// sample outputs hold 5–10 sentences.
func BenchmarkExtract(b *testing.B) {
	outs := loadSample(b)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		Extract(outs[n%len(outs)], ExtractOptions{}, nil)
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "outputs/s")
}

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

func BenchmarkVerifyNumeric(b *testing.B) {
	facts := FactsFromText("p", "Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022. Punctuality reached 91.4% on regional lines. The company operated 412 trains and employed 5,700 staff.")
	for b.Loop() {
		VerifyNumeric("Meridian Rail carried 48 million passengers in 2023.", facts, MatchOptions{})
	}
}

// BenchmarkFindNumbers is per text, over the sample outputs (prose with
// numbers) and the fuzz texts of the filter test.
func BenchmarkFindNumbers(b *testing.B) {
	texts := fuzzTexts(2000)
	for _, o := range loadSample(b) {
		texts = append(texts, o.Text)
	}
	n := 0
	for b.Loop() {
		FindNumbers(texts[n%len(texts)])
		n++
	}
}
