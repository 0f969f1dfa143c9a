package numeric

import "testing"

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

// BenchmarkFindNumbers is per text, over the sample outputs (prose with
// numbers) and the fuzz texts of the filter test.
func BenchmarkFindNumbers(b *testing.B) {
	texts := fuzzTexts(2000)
	texts = append(texts, sampleTexts(b)...)
	n := 0
	for b.Loop() {
		FindNumbers(texts[n%len(texts)])
		n++
	}
}
