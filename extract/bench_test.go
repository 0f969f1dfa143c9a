package extract

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
